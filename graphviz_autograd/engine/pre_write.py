"""The hooks every write into a tensor's memory calls first, while any is set: in-place ops,
optimizer steps, ``set_``, ``resize_``, in-place view ops, gradient accumulation into an
existing ``.grad``. ``allow_mutation_on_saved_tensors`` sets one (it clones a saved tensor the
write is about to change), as PyTorch's dispatch mode sees every op that writes an argument."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .tensor import Tensor

__all__ = ["WATCH", "before_write"]

# NB: read before every write: empty unless a context sets a hook (a write outside one pays a
# single truth test)
WATCH: list[Callable[[Tensor], None]] = []


def before_write(t: Tensor | Any) -> None:
    """Call every hook on ``t``, which something is about to write into.

    >>> from graphviz_autograd import torch
    >>> seen = []
    >>> WATCH.append(seen.append)
    >>> t = torch.zeros(2).add_(1)
    >>> WATCH.remove(seen.append)
    >>> seen[0] is t
    True
    """
    if isinstance(t, Tensor):
        for hook in list(WATCH):
            hook(t)
