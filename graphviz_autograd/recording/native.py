"""Reading the native engine's graph for the recorder, without changing it: no grad_fn is
regenerated, no accumulator created, no saved tensor unpacked."""

from __future__ import annotations

from typing import Any

from ..engine import events
from ..engine.autograd import CopySlices
from ..engine.node import AccumulateGrad, HookedSavedTensor, Node, SavedTensor
from ..engine.tensor import Tensor
from ..torch.nn.modules import Module
from ..torch.nn.parameter import Parameter
from .capture import ALIVE, ALL_ALIVE, ALL_FREED, FREED, Static

__all__ = ["NativeEngine", "static_record"]

_new = tuple.__new__

class NativeEngine:
    """The recorder's view of ``graphviz_autograd.torch``."""

    name = "native"

    @staticmethod
    def subscribe(fn: Any) -> None:
        events.subscribe(fn)

    @staticmethod
    def unsubscribe(fn: Any) -> None:
        events.unsubscribe(fn)

    # -- the backward's trace ------------------------------------------------------------------
    @staticmethod
    def open_trace() -> tuple[list[tuple[Any, ...]], bool]:
        """The list the engine logs the next backward's nodes in, and whether it is new (and is
        the caller's to close) or another listener's, shared."""
        if events.trace is not None:
            return events.trace, False
        trace: list[tuple[Any, ...]] = []
        events.trace = trace
        return trace, True

    @staticmethod
    def close_trace() -> None:
        events.trace = None

    tensor_types = (Tensor,)

    @staticmethod
    def is_tensor(x: Any) -> bool:
        return isinstance(x, Tensor)

    @staticmethod
    def is_module(x: Any) -> bool:
        return isinstance(x, Module)

    @staticmethod
    def is_node(x: Any) -> bool:
        return isinstance(x, Node)

    # -- tensors ------------------------------------------------------------------------------
    @staticmethod
    def tensor_uid(t: Tensor) -> int:
        return t._uid

    @staticmethod
    def grad_fn(t: Tensor) -> Node | None:
        return t._grad_fn

    @staticmethod
    def accumulator(t: Tensor) -> Node | None:
        ref = t._acc
        return ref() if ref is not None else None

    @staticmethod
    def counter(t: Tensor) -> Any:
        """The version counter object (shared by views): what in-place edits are logged by."""
        return t._vc

    @staticmethod
    def is_parameter(t: Tensor) -> bool:
        return isinstance(t, Parameter)

    @staticmethod
    def version(t: Tensor) -> int:
        return t._vc.v

    @staticmethod
    def describe(t: Tensor) -> tuple[Any, ...]:
        """(shape, dtype, requires_grad, is_leaf, grad's shape or None, version): made into
        text and lists only when the snapshot is read."""
        return NativeEngine.tensor_facts(t)[3]

    @staticmethod
    def grad_identity(t: Tensor) -> tuple[int, int] | None:
        """Which tensor ``t.grad`` is, and its version: a gradient kept as it was, or cleared
        (set to None, or zeroed in place)."""
        g = t._grad
        return (g._uid, g._vc.v) if g is not None else None

    # -- nodes --------------------------------------------------------------------------------
    @staticmethod
    def node_uid(n: Node) -> int:
        return n._uid

    @staticmethod
    def node_name(n: Node) -> str:
        return n.name()

    @staticmethod
    def node_of_ref(obj: Any) -> Node | None:
        """What a recorder's weak reference gives back (a node's output tensor, or the node):
        the tensor's grad_fn now, as on real torch. NB: a view whose base changed gives none
        (its node is stale; the name search reads a named one afresh): on real torch only a
        tensor the user still holds is found again, not one a node saved"""
        if type(obj) is not Tensor and not isinstance(obj, Tensor):
            return obj
        if obj._base is not None and obj._view_version != obj._vc.v:
            return None
        return obj._grad_fn

    @staticmethod
    def tensor_facts(t: Tensor) -> tuple[int, Node | None, int | None, tuple[Any, ...]]:
        """A named tensor's uid, the node a walk starts from (its grad_fn; none for a leaf),
        its grad_fn's uid, and ``describe(t)`` (made here): in one call, for each name at each
        snapshot."""
        fn = t._grad_fn
        if t._base is not None and t._view_version != t._vc.v:
            # NB: a view whose base changed: its grad_fn as reading it on PyTorch gives it
            # (a fresh AsStridedBackward0), or none where PyTorch refuses (unbind, split)
            try:
                fn = t.grad_fn
            except RuntimeError:
                return t._uid, None, None, (t._data.shape, t._dtype, True, False, None, t._vc.v)
        g = t._grad
        described = (t._data.shape, t._dtype, t._rg or fn is not None, fn is None,
                     g._data.shape if g is not None else None, t._vc.v)
        if fn is not None:
            return t._uid, fn, fn._uid, described
        # NB: a leaf's accumulator is found by the walk, through a node that uses it, as on
        # real torch (asking PyTorch for it would make one): one that only an unreachable node
        # holds (a view's stale grad_fn) is out of the snapshot on both engines
        return t._uid, None, None, described

    @staticmethod
    def walk(starts: list[Node], static: dict[int, Any], metas: dict[int, Any]
             ) -> tuple[Any, ...]:
        """Everything reachable from ``starts``: per node its saved buffers' states (and the
        ``Static`` of nodes not seen before, with what ``metas``, the recorder's records of
        nodes made, says of them), released CopySlices, leaves, memory."""
        # NB: the hot loop of every snapshot (a few microseconds a node): locals only, no
        # per-node lists beyond the states themselves
        states: dict[int, tuple[tuple[Any, ...], ...]] = {}
        dead_ends: set[int] = set()
        leaves: dict[int, Tensor] = {}
        alive: dict[int, int] = {}
        freed = 0
        stack = list(starts)
        pop, push = stack.pop, stack.append
        get_meta = metas.get
        none: tuple[()] = ()
        while stack:
            n = pop()
            uid = n._uid
            if uid in states:
                continue
            saved = n._saved
            if uid not in static:
                # NB: a node made since recording began has its static record in its record;
                # one made before is read now
                meta = get_meta(uid)
                if meta is None:
                    static[uid] = static_record(n, None, 0, False)
                elif len(meta) > 3:
                    static[uid] = meta[3]
                else:   # NB: (an engine wrapping this one, whose records are the generic ones)
                    static[uid] = static_record(n, meta[1], meta[2], True)

            if saved:
                # NB: the usual case, every buffer a plain one and alive: counted, no list
                k = 0
                for s in saved.values():
                    if type(s) is not SavedTensor or s.released or s.vc.v != s.version:
                        k = -1
                        break
                    alive[s.storage] = s.nbytes
                    k += 1
                if k < 0:
                    state, lost = _states(saved, alive)
                    states[uid] = state
                    freed += lost
                else:
                    states[uid] = ALL_ALIVE[k] if k < 64 else (ALIVE,) * k
            else:
                states[uid] = none
            cls = type(n)
            if cls is AccumulateGrad:
                var = n.variable  # type: ignore[attr-defined]
                leaves[var._uid] = var
            elif cls is CopySlices and n.fn is None:  # type: ignore[attr-defined]
                dead_ends.add(uid)
            for m, _ in n._next:
                if m is not None and m._uid not in states:
                    push(m)
        return states, dead_ends, leaves, alive, freed


def _states(saved: dict[str, Any], alive: dict[int, int]) -> tuple[tuple[Any, ...], int]:
    """A node's buffers' states where one is freed, modified, hook-packed or in a list (the
    walk's slow path), and the bytes freed; alive storages are noted in ``alive``."""
    out = []
    freed = 0
    changed = False
    for slot in saved.values():
        if slot is None:
            continue
        group: Any = (slot,) if type(slot) is not list else slot
        for s in group:
            if s is None:
                continue
            if s.released:
                out.append(FREED)
                freed += s.nbytes
                changed = True
                continue
            vc = s.vc
            v = vc.v
            if v == s.version:
                out.append(ALIVE)
            else:
                out.append(("modified", s.version, v, id(vc)))
                changed = True
            alive[s.storage] = s.nbytes
    k = len(out)
    if k >= 64:
        return tuple(out), freed
    if not changed:
        return ALL_ALIVE[k], freed
    # NB: all freed (shared, known by identity), or a mix
    return (ALL_FREED[k] if out.count(FREED) == k else tuple(out)), freed


def static_record(n: Node, source: tuple[Any, int] | None, created_by: int,
                  recorded: bool) -> Static:
    """What ``n`` is for as long as it lives (its ``Static``): made when the node is made
    (``recorded``, with the line it was made at and the backwards run before), or by the first
    walk that finds it (made before recording began)."""
    # NB: once per node of a recording: loops, not comprehensions (each makes a function)
    saved = n._saved
    slots: Any = ()
    if saved:
        slots = []
        for key, s in saved.items():
            if type(s) is SavedTensor:
                slots.append((key, s.shape, s.dtype, s.nbytes, False))
            elif s is not None:
                # NB: a list of saved tensors (rare): named as saved_slots names them, all
                # slots again
                slots = [(name, x.shape, x.dtype, x.nbytes, type(x) is HookedSavedTensor)
                         for name, x in n.saved_slots()]
                break
        slots = tuple(slots)
    nxt: Any = []
    for m, _ in n._next:
        nxt.append(None if m is None else m._uid)
    var = n.variable._uid if type(n) is AccumulateGrad else None
    # NB: as static_of makes it, without a call
    return _new(Static, (n._name, tuple(nxt), n._seq, slots, var, source, created_by, recorded))
