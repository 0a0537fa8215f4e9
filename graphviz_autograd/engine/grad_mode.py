"""Grad mode: whether forward ops record a graph (``no_grad``, ``enable_grad``, ...)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

__all__ = ["state", "is_grad_enabled", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode"]

F = TypeVar("F", bound=Callable[..., Any])


class _State:
    __slots__ = ("enabled", "inference", "dual")

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False        # inside inference_mode(): new tensors are inference tensors
        self.dual = False             # a forward-AD dual level is active (``forward_ad``)


state = _State()


def is_grad_enabled() -> bool:
    return state.enabled


class _GradModeContext:
    """Context manager and decorator that sets grad mode and restores it on exit."""

    _mode: bool = True

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is not None and callable(orig_func) and not isinstance(orig_func, bool):
            return cls()(orig_func)       # used bare: @torch.no_grad
        return object.__new__(cls)

    def __init__(self, orig_func: Any = None) -> None:
        self._prev: list[bool] = []

    def __enter__(self) -> None:
        self._prev.append(state.enabled)
        state.enabled = self._mode

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        state.enabled = self._prev.pop()

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper  # type: ignore[return-value]


class no_grad(_GradModeContext):  # noqa: N801 -- PyTorch's name
    """Disable graph recording.

    >>> with no_grad():
    ...     is_grad_enabled()
    False
    """

    _mode = False


class enable_grad(_GradModeContext):  # noqa: N801 -- PyTorch's name
    _mode = True


class inference_mode(no_grad):  # noqa: N801 -- PyTorch's name; treated as no_grad here
    def __new__(cls, mode: Any = True) -> Any:
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return object.__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self._mode = not mode
        self._inference = bool(mode)
        self._was: list[bool] = []

    def __enter__(self) -> None:
        super().__enter__()
        self._was.append(state.inference)
        state.inference = self._inference

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        state.inference = self._was.pop()
        super().__exit__(exc_type, exc, tb)


class set_grad_enabled(_GradModeContext):  # noqa: N801 -- PyTorch's name
    """Set grad mode; takes effect at once, like PyTorch, and also works as a context."""

    def __new__(cls, mode: bool) -> Any:
        return object.__new__(cls)

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._mode = bool(mode)
        self._prev.append(state.enabled)
        state.enabled = self._mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        state.enabled = self._prev.pop()

    def __call__(self, fn: F) -> F:
        state.enabled = self._prev.pop()
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper  # type: ignore[return-value]
