"""``torch.autograd.graph``: the node type, the saved-tensor hooks (``saved_tensors_hooks``,
``save_on_cpu``, ``disable_saved_tensors_hooks``, ``allow_mutation_on_saved_tensors``),
gradient edges and multi-tensor hooks."""

from __future__ import annotations

import contextlib
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

import numpy as np

from ...engine import pre_write, saved_hooks
from ...engine.graph_edges import (
    GradientEdge,
    get_gradient_edge,
    increment_version,
    register_multi_grad_hook,
)
from ...engine.tensor import Tensor
from .graph_node import Node
from .graph_settings import (
    region_activation_memory_budget,
    set_override_stale_capture_stream,
    set_warn_on_accumulate_grad_stream_mismatch,
)

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors",
           "GradientEdge", "get_gradient_edge", "increment_version", "register_multi_grad_hook",
           "region_activation_memory_budget", "set_warn_on_accumulate_grad_stream_mismatch",
           "set_override_stale_capture_stream"]


class saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """Inside it, every tensor an operation saves for backward is kept as ``pack_hook(tensor)``,
    and turned back into a tensor by ``unpack_hook(packed)`` when a backward (or
    ``grad_fn._saved_<name>``) reads it. Only the innermost pair applies.

    >>> from graphviz_autograd import torch
    >>> a = torch.ones(2, requires_grad=True)
    >>> with saved_tensors_hooks(lambda t: t.detach() * 10, lambda p: p / 10):
    ...     y = a.exp()
    >>> y.grad_fn._raw_saved_result.data
    tensor([27.1828, 27.1828])
    """

    def __init__(self, pack_hook: Callable[[Any], Any],
                 unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        saved_hooks.push(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args: object) -> None:
        saved_hooks.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 (PyTorch's name)
    """Saved tensors are kept on the CPU: ``(device, tensor.cpu())``. On this engine every tensor
    is on the CPU already, so the tensor itself is kept, as PyTorch does for a CPU graph; with
    ``pin_memory=True`` a copy (PyTorch copies into memory it would pin if a device were
    there)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Any) -> tuple[Any, Any]:
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            packed = tensor.new_empty(tensor.size())
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed: tuple[Any, Any]) -> Any:
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Inside it, entering ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``;
    entering it while hooks are set raises that at once."""
    before = saved_hooks.disabled_message()
    try:
        saved_hooks.disable(error_message)
        yield
    finally:
        if before is None:
            saved_hooks.enable()
        else:
            saved_hooks.disable(before)


# -- allow_mutation_on_saved_tensors -------------------------------------------------------------
# A saved tensor is packed as a handle; the context keeps the tensor under it until a write is
# about to change it, then a clone. As in PyTorch, a write finds the saved tensors it changes by
# address and version (``data_ptr()``, ``_version``): a write through a view that starts elsewhere
# in the memory (``a[1:]``) clones nothing, and the backward reads the new values silently.

# NB: PyTorch's name: True while a context is open; the unpack hook of every graph recorded in
# one refuses to run when it is False
_allow_mutation_on_saved_tensors_enabled: bool = False
_MUTATION_MESSAGE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                     "contextin which the graph was originally recorded.")

_TID = tuple[int, int, int]
_SID = tuple[int, int]


def _get_tid(tensor: Tensor) -> _TID:
    return (id(tensor), tensor.data_ptr(), tensor._vc.v)


def _get_sid(tensor: Tensor) -> _SID:
    return (tensor.data_ptr(), tensor._vc.v)


class _Handle:
    """What the pack hook keeps for a saved tensor: the key of the original or its clone."""

    __slots__ = ("__weakref__",)


class _AllowMutationOnSavedContext:
    """What one context knows (what it yields), cleared on exit."""

    def __init__(self) -> None:
        self.cloned: MutableMapping[_Handle, Tensor] = weakref.WeakKeyDictionary()
        self.original: MutableMapping[_Handle, Tensor] = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle: MutableMapping[_TID, _Handle] = weakref.WeakValueDictionary()
        self.sid_to_tid: dict[_SID, set[_TID]] = defaultdict(set)

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()


class _swap_with_cloned(saved_tensors_hooks):  # noqa: N801 (PyTorch's name)
    """The hooks of ``allow_mutation_on_saved_tensors``: a saved tensor is packed as a handle
    (one per tensor and version), unpacked as its clone if a write cloned it, else as itself."""

    def __init__(self, ctx: _AllowMutationOnSavedContext) -> None:
        def pack_hook(tensor: Tensor) -> _Handle:
            tid = _get_tid(tensor)
            ctx.sid_to_tid[_get_sid(tensor)].add(tid)
            # NB: the same tensor (of the same version) saved twice shares one handle
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None:
                handle = _Handle()
                ctx.tid_to_weakhandle[tid] = handle
                ctx.original[handle] = tensor
            return handle

        def unpack_hook(handle: _Handle) -> Tensor:
            if not _allow_mutation_on_saved_tensors_enabled:
                raise AssertionError(_MUTATION_MESSAGE)
            if handle in ctx.cloned:
                return ctx.cloned[handle]
            if handle not in ctx.original:
                raise AssertionError(_MUTATION_MESSAGE)
            return ctx.original[handle]

        super().__init__(pack_hook, unpack_hook)


class _CloneArgBeforeMutateMode:
    """While it is entered, a write into a tensor first clones the saved tensors of ``ctx``
    that it would change (same address, same version), unless cloned already or freed."""

    def __init__(self, ctx: _AllowMutationOnSavedContext) -> None:
        self.ctx = ctx

    def maybe_clone(self, t: Tensor) -> None:
        ctx = self.ctx
        tids = ctx.sid_to_tid.get(_get_sid(t))
        if not tids:
            return
        for tid in tids:
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None or handle in ctx.cloned:
                continue        # NB: freed by a backward before the write, or cloned already
            # NB: a copy outside autograd, in the original's layout, with a version of its own
            old = ctx.original.pop(handle)
            ctx.cloned[handle] = Tensor._make(np.array(old._data, copy=True, order="K"),
                                              old._dtype)

    def __enter__(self) -> _CloneArgBeforeMutateMode:
        pre_write.WATCH.append(self.maybe_clone)
        return self

    def __exit__(self, *args: object) -> None:
        pre_write.WATCH.remove(self.maybe_clone)


@contextlib.contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """Inside it, a tensor saved for backward that an in-place op is about to change is cloned
    first, and the backward reads the clone: the value as it was saved. The forward and the
    backward must both run inside the same context; it cannot be nested.

    >>> from graphviz_autograd import torch
    >>> with allow_mutation_on_saved_tensors():
    ...     a = torch.ones(2, 3, requires_grad=True)
    ...     b = a.clone()
    ...     out = (b**2).sum()
    ...     b.sin_()
    ...     out.sum().backward()
    ...     a.grad
    tensor([[0.8415, 0.8415, 0.8415],
            [0.8415, 0.8415, 0.8415]], grad_fn=<SinBackward0>)
    tensor([[2., 2., 2.],
            [2., 2., 2.]])
    """
    global _allow_mutation_on_saved_tensors_enabled
    ctx = _AllowMutationOnSavedContext()
    with _swap_with_cloned(ctx), _CloneArgBeforeMutateMode(ctx):
        try:
            if _allow_mutation_on_saved_tensors_enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _allow_mutation_on_saved_tensors_enabled = True
            yield ctx
        finally:
            # NB: as PyTorch's, a refused nested context also ends the one around it: its
            # graphs can no longer be unpacked
            ctx.clear()
            _allow_mutation_on_saved_tensors_enabled = False
