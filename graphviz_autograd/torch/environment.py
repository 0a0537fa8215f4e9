"""Process-wide settings a PyTorch script sets or reads: threads, determinism, the default device,
matmul precision, ``torch.compile``, layouts and memory formats. The engine computes with numpy
on the CPU, so each is kept and reported as PyTorch reports it, and changes no result."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

from ..engine import messages as _msg
from ..engine.predicates import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
    sparse_coo,
    strided,
)

__all__ = ["get_num_threads", "set_num_threads", "get_num_interop_threads",
           "set_num_interop_threads", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_default_device", "get_default_device", "set_float32_matmul_precision",
           "get_float32_matmul_precision", "compile", "layout", "memory_format",
           "strided", "sparse_coo", "contiguous_format", "channels_last", "channels_last_3d",
           "preserve_format", "set_warn_always", "is_warn_always_enabled", "typename",
           "is_storage"]

_STATE: dict[str, Any] = {"threads": os.cpu_count() or 1, "interop": os.cpu_count() or 1,
                          "deterministic": False, "warn_only": False, "device": "cpu",
                          "matmul": "highest"}


def _positive_int(name: str, n: Any) -> int:
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return n


def get_num_threads() -> int:
    """The threads PyTorch would use (this machine's cores until set; numpy ignores it).

    >>> set_num_threads(1); get_num_threads()
    1
    """
    return int(_STATE["threads"])


def set_num_threads(n: int) -> None:
    _STATE["threads"] = _positive_int("set_num_threads", n)


def get_num_interop_threads() -> int:
    return int(_STATE["interop"])


def set_num_interop_threads(n: int) -> None:
    _STATE["interop"] = _positive_int("set_num_interop_threads", n)


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Recorded only: every engine kernel is deterministic already."""
    if not isinstance(mode, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    _STATE["deterministic"], _STATE["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return bool(_STATE["deterministic"])


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return bool(_STATE["warn_only"])


def set_default_device(device: Any) -> None:
    """Only the CPU (or None) can be the default device here."""
    if device is None:
        _STATE["device"] = "cpu"
        return
    kind = _msg.device_type(str(getattr(device, "type", device)))
    if kind != "cpu":
        raise RuntimeError(f"set_default_device: this engine runs on the CPU only, not "
                           f"'{device}'")
    _STATE["device"] = "cpu"


def get_default_device() -> Any:
    from . import device
    return device("cpu")


_PRECISIONS = ("highest", "high", "medium")


def set_float32_matmul_precision(precision: str) -> None:
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the "
                      "currentsetFloat32MatmulPrecision call has no effect.", UserWarning,
                      stacklevel=2)
        return
    _STATE["matmul"] = precision


def get_float32_matmul_precision() -> str:
    return str(_STATE["matmul"])


def compile(model: Callable[..., Any] | None = None, *, fullgraph: bool = False,
            dynamic: bool | None = None, backend: Any = None, mode: str | None = None,
            options: dict[str, Any] | None = None, name: str | None = None,
            disable: bool = False, **kwargs: Any) -> Any:
    """``torch.compile``: the model or function itself (the engine runs it eagerly), or a
    decorator giving it back when called without one.

    >>> f = compile(lambda x: x + 1, mode="max-autotune")
    >>> f(1)
    2
    """
    if model is None:
        return lambda m: m
    return model


def set_warn_always(b: bool) -> None:
    """Recorded only: the engine's warnings follow Python's own filters."""
    _STATE["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    return bool(_STATE.get("warn_always", False))


def typename(obj: Any) -> str:
    """``torch.FloatTensor`` for a tensor, else the object's class by module and name.

    >>> typename(3)
    'int'
    """
    from ..engine.tensor import Tensor
    if isinstance(obj, Tensor):
        return str(obj.dtype.legacy)
    module = type(obj).__module__ or ""
    if module.startswith("graphviz_autograd.torch"):
        module = module[len("graphviz_autograd."):]
    if module in ("", "builtins"):
        return type(obj).__qualname__
    return f"{module}.{type(obj).__qualname__}"


def is_storage(obj: Any) -> bool:
    from ..engine.misc_more import TypedStorage, UntypedStorage
    return isinstance(obj, UntypedStorage | TypedStorage)


def _no_cuda(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("Torch not compiled with CUDA enabled")
