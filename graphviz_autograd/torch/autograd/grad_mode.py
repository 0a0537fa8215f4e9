"""``torch.autograd.grad_mode``: the grad-mode context managers (the engine's), and the switch
for a multithreaded backward (a flag only: the engine's backward always runs on the calling
thread)."""

from __future__ import annotations

from ...engine.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "set_multithreading_enabled", "is_multithreading_enabled"]

_multithreading = [True]


def is_multithreading_enabled() -> bool:
    """Whether a multithreaded backward is on (PyTorch's default, ``True``)."""
    return _multithreading[0]


class set_multithreading_enabled:  # noqa: N801 -- PyTorch's name
    """Multithreaded backward on or off from now on (and back as it was when used as a context).

    >>> with set_multithreading_enabled(False):
    ...     is_multithreading_enabled()
    False
    >>> is_multithreading_enabled()
    True
    """

    def __init__(self, mode: bool) -> None:
        self.prev, self.mode = _multithreading[0], mode
        _multithreading[0] = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _multithreading[0] = self.prev

    def clone(self) -> set_multithreading_enabled:
        return self.__class__(self.mode)
