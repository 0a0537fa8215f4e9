"""``torch.autograd.anomaly_mode``: ``detect_anomaly`` and ``set_detect_anomaly``."""

from __future__ import annotations

import warnings

from ...engine import anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly"]


class set_detect_anomaly:  # noqa: N801 -- PyTorch's name
    """Anomaly mode on or off from now on (and back as it was when used as a context)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = anomaly.state.enabled, anomaly.state.check_nan
        anomaly.set_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        anomaly.set_enabled(self.prev, self.prev_check_nan)


class detect_anomaly:  # noqa: N801
    """Anomaly mode on inside the context."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = anomaly.state.enabled, anomaly.state.check_nan
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        anomaly.set_enabled(True, self.check_nan)

    def __exit__(self, *exc: object) -> None:
        anomaly.set_enabled(self.prev, self.prev_check_nan)
