"""``torch.distributed``: the engine runs in one process with no communication backend, so
it reports the package unavailable (as PyTorch builds without distributed support do) and no
process group initialised."""

from __future__ import annotations

from typing import Any

__all__ = ["is_available", "is_initialized", "get_rank", "get_world_size", "barrier",
           "init_process_group"]

_NO_GROUP = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


def is_available() -> bool:
    """``False``: no ``init_process_group`` backend (gloo, nccl, mpi) exists here.

    >>> is_available(), is_initialized()
    (False, False)
    """
    return False


def is_initialized() -> bool:
    return False


def get_rank(group: Any = None) -> int:
    raise ValueError(_NO_GROUP)


def get_world_size(group: Any = None) -> int:
    raise ValueError(_NO_GROUP)


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> None:
    raise ValueError(_NO_GROUP)


def init_process_group(*args: Any, **kw: Any) -> None:
    raise NotImplementedError("graphviz_autograd runs in one process: torch.distributed has no "
                              "backend to initialize")
