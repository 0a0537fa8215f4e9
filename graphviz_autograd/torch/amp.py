"""``torch.amp``: ``autocast`` and ``GradScaler`` as a CPU-only PyTorch build runs them where CUDA
is asked for (disabled, with PyTorch's warning), so mixed-precision scripts run unchanged.

Not emulated: an enabled CPU autocast (PyTorch runs matmuls and convolutions in bfloat16 there;
here every op keeps its dtype), and loss scaling (the scaler passes everything through, as a
disabled one does).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from ..engine import dtypes as _dt
from ..engine import messages as _msg

__all__ = ["autocast", "GradScaler", "is_autocast_available", "custom_fwd", "custom_bwd"]

_ENABLED: dict[str, bool] = {}


def is_autocast_available(device_type: str) -> bool:
    return device_type == "cpu"


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    return _ENABLED.get(device_type, False)


class autocast:  # noqa: N801 -- PyTorch's name
    """``torch.autocast(device_type, dtype=None, enabled=True)``: a context manager and
    decorator that changes no dtype (see the module's note).

    >>> from graphviz_autograd import torch
    >>> with torch.autocast("cpu", enabled=False):
    ...     (torch.ones(2) * 2).dtype
    torch.float32
    """

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError("Expected `device_type` of type `str`, got: "
                             f"`{type(device_type)}`")
        try:
            self.device = _msg.device_type(device_type)
        except RuntimeError:
            raise RuntimeError(f"Invalid device string: '{device_type}'") from None
        self.fast_dtype = dtype
        self._enabled = enabled
        if enabled and self.device == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=2)
            self._enabled = False
        elif enabled and self.device == "cpu" and dtype is not None and dtype not in (
                _dt.float16,):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling "
                          "autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, "
                          "torch.float16 currently.", UserWarning, stacklevel=2)
            self._enabled = False

    def __enter__(self) -> autocast:
        self._prev = _ENABLED.get(self.device, False)
        _ENABLED[self.device] = self._enabled
        return self

    def __exit__(self, *exc: object) -> None:
        _ENABLED[self.device] = self._prev

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)
        return wrapped


def _deprecated_autocast(device: str, default_dtype: Any) -> type:
    class _Autocast(autocast):
        def __init__(self, enabled: bool = True, dtype: Any = default_dtype,
                     cache_enabled: bool = True) -> None:
            warnings.warn(f"`torch.{device}.amp.autocast(args...)` is deprecated. Please use "
                          f"`torch.amp.autocast('{device}', args...)` instead.", FutureWarning,
                          stacklevel=2)
            super().__init__(device, dtype, enabled, cache_enabled)
    _Autocast.__name__ = _Autocast.__qualname__ = "autocast"
    return _Autocast


class GradScaler:
    """``torch.amp.GradScaler``: PyTorch's scaler as it runs disabled: ``scale`` returns its
    argument, ``step`` calls ``optimizer.step()``, ``update`` and ``unscale_`` do nothing."""

    def __init__(self, device: str = "cuda", init_scale: float = 65536.0,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        if enabled and device == "cuda":
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            enabled = False
        self._enabled = enabled
        self._init_scale = init_scale
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval = growth_interval

    def is_enabled(self) -> bool:
        return self._enabled

    def scale(self, outputs: Any) -> Any:
        return outputs

    def unscale_(self, optimizer: Any) -> None:
        return None

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale: Any = None) -> None:
        return None

    def get_scale(self) -> float:
        return 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        return None


def _deprecated_scaler(device: str) -> type:
    class _GradScaler(GradScaler):
        def __init__(self, init_scale: float = 65536.0, growth_factor: float = 2.0,
                     backoff_factor: float = 0.5, growth_interval: int = 2000,
                     enabled: bool = True) -> None:
            warnings.warn(f"`torch.{device}.amp.GradScaler(args...)` is deprecated. Please use "
                          f"`torch.amp.GradScaler('{device}', args...)` instead.",
                          FutureWarning, stacklevel=2)
            super().__init__(device, init_scale, growth_factor, backoff_factor,
                             growth_interval, enabled)
    _GradScaler.__name__ = _GradScaler.__qualname__ = "GradScaler"
    return _GradScaler


def custom_fwd(fwd: Any = None, *, device_type: str = "cuda", cast_inputs: Any = None) -> Any:
    """A decorator for a custom Function's forward: the function itself."""
    if fwd is None:
        return lambda f: f
    return fwd


def custom_bwd(bwd: Any = None, *, device_type: str = "cuda") -> Any:
    if bwd is None:
        return lambda f: f
    return bwd


class _Namespace:
    def __init__(self, **items: Any) -> None:
        self.__dict__.update(items)


cpu_amp = _Namespace(autocast=_deprecated_autocast("cpu", None), GradScaler=_deprecated_scaler(
    "cpu"))
cuda_amp = _Namespace(autocast=_deprecated_autocast("cuda", None),
                      GradScaler=_deprecated_scaler("cuda"), custom_fwd=custom_fwd,
                      custom_bwd=custom_bwd)
