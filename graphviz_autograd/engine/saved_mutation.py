"""The state of ``allow_mutation_on_saved_tensors``: which saved tensors each open context holds
(by handle), which of them were cloned, and the check every in-place write makes first
(``before_write``), which clones a saved tensor the write is about to change.

As in PyTorch, a saved tensor is found by its memory address and version (``data_ptr()``,
``_version``): a write through a view that starts elsewhere in the memory (``a[1:]``) clones
nothing, and the backward then reads the changed values silently, as PyTorch's does."""

from __future__ import annotations

import weakref
from collections import defaultdict
from collections.abc import MutableMapping
from typing import Any

import numpy as np

from .tensor import Tensor

__all__ = ["WATCH", "Handle", "MutationContext", "before_write", "tensor_id", "storage_id"]

# NB: read before every in-place write: empty unless an allow_mutation_on_saved_tensors context
# is open (a write outside it pays one truth test)
WATCH: list[MutationContext] = []

TID = tuple[int, int, int]
SID = tuple[int, int]


class Handle:
    """What the pack hook keeps for a saved tensor (PyTorch's ``_Handle``): the key under which
    its context holds the original, or the clone made before a write."""

    __slots__ = ("__weakref__",)


Handle.__name__ = Handle.__qualname__ = "_Handle"


class MutationContext:
    """PyTorch's ``_AllowMutationOnSavedContext``: what one context knows, cleared on exit."""

    def __init__(self) -> None:
        self.cloned: MutableMapping[Handle, Tensor] = weakref.WeakKeyDictionary()
        self.original: MutableMapping[Handle, Tensor] = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle: MutableMapping[TID, Handle] = weakref.WeakValueDictionary()
        self.sid_to_tid: dict[SID, set[TID]] = defaultdict(set)

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def maybe_clone(self, t: Tensor) -> None:
        """Clone every saved tensor that ``t`` aliases (same address, same version) and that
        was not cloned yet, and forget the original."""
        tids = self.sid_to_tid.get(storage_id(t))
        if not tids:
            return
        for tid in tids:
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None or handle in self.cloned:
                continue        # NB: freed by a backward before the write, or cloned already
            self.cloned[handle] = _clone(self.original.pop(handle))


MutationContext.__name__ = MutationContext.__qualname__ = "_AllowMutationOnSavedContext"


def tensor_id(t: Tensor) -> TID:
    return (id(t), t.data_ptr(), t._vc.v)


def storage_id(t: Tensor) -> SID:
    return (t.data_ptr(), t._vc.v)


def before_write(t: Tensor | Any) -> None:
    """Called before anything writes into ``t``'s memory (an in-place op, an optimizer step,
    ``set_``, ``resize_``) while a context is open."""
    if isinstance(t, Tensor):
        for ctx in WATCH:
            ctx.maybe_clone(t)


def _clone(t: Tensor) -> Tensor:
    """A copy outside autograd, in ``t``'s layout, with a version counter of its own (PyTorch
    clones below autograd: no history)."""
    return Tensor._make(np.array(t._data, copy=True, order="K"), t._dtype)
