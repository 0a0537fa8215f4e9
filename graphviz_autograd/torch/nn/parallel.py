"""``torch.nn.parallel``: ``DataParallel`` (with no GPU it calls the module) and
``DistributedDataParallel``, which, with no process group initialised (as always here), raises
PyTorch's error."""

from __future__ import annotations

from typing import Any

from .modules import Module
from .modules_more import DataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]


class DistributedDataParallel(Module):
    def __init__(self, module: Module, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        raise ValueError("Default process group has not been initialized, please make sure to "
                         "call init_process_group.")
