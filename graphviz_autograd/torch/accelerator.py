"""``torch.accelerator``, as a CPU-only PyTorch build has it: none available
(``current_accelerator()`` is None), and PyTorch's error from everything that needs one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["current_accelerator", "current_device_idx", "current_device_index",
           "current_stream", "device_count", "device_index", "empty_cache", "get_memory_info",
           "is_available", "max_memory_allocated", "max_memory_reserved", "memory_allocated",
           "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
           "reset_peak_memory_stats", "set_device_idx", "set_device_index", "set_stream",
           "synchronize", "get_device_capability"]

NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def is_available(check_fully: bool = False) -> bool:
    """``False``: the engine computes on the CPU.

    >>> is_available(), current_accelerator()
    (False, None)
    """
    return False


def current_accelerator(check_available: bool = False) -> Any:
    return None


def device_count() -> int:
    return 0


def _none(*args: Any, **kw: Any) -> Any:
    raise RuntimeError(NONE_AVAILABLE)


current_device_index = current_device_idx = current_stream = synchronize = _none
set_device_index = set_device_idx = set_stream = empty_cache = _none
memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _none
memory_stats = reset_peak_memory_stats = reset_accumulated_memory_stats = _none
get_memory_info = get_device_capability = _none


@contextmanager
def device_index(device: Any) -> Iterator[None]:
    """A block on accelerator ``device``; ``None`` leaves the current one (there is none)."""
    if device is not None:
        raise RuntimeError(NONE_AVAILABLE)
    yield
