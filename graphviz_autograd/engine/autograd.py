"""Recording the graph: applying a table op (out of place, in place, on views) and tensor hooks."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import dtypes as dt
from . import events
from . import messages as msg
from .grad_mode import state as grad_state
from .node import Node, RemovableHandle, SavedTensor, get_accumulator, node_class
from .optable import EXTRA, INPUT, KWARG, NP, RESULT, TABLE, Op, build_backends, register
from .pre_write import WATCH as _WATCH
from .pre_write import before_write
from .saved_hooks import STACK as _HOOKS
from .tensor import Tensor, new_uid

__all__ = ["apply", "apply_inplace", "edge", "CopySlices", "regenerate_view_grad_fn",
           "regenerated_view_name",
           "register_tensor_hook", "retain_grad", "register_post_accumulate_hook", "wrap"]

Edge = tuple[Node | None, int]


def wrap(arr: Any) -> Tensor:
    """A tensor outside the graph around a numpy result."""
    if type(arr) is not np.ndarray:
        arr = np.asarray(arr)
    return Tensor._make(arr, dt.from_numpy(arr.dtype))


def edge(t: Tensor) -> Edge:
    return _edges_and_metas((t,))[0][0]


def _arg(v: Any) -> Any:
    """A tensor keyword value as the numpy forward wants it."""
    if isinstance(v, Tensor):
        return v._data
    if isinstance(v, tuple | list) and any(isinstance(x, Tensor) for x in v):
        return tuple(x._data if isinstance(x, Tensor) else x for x in v)
    return v


def _forward(op: Op, arrays: Sequence[Any], kw: dict[str, Any] | None) -> Any:
    if not kw or op.attrs_only:
        return op.forward(*arrays)
    if op.tensor_kw:
        return op.forward(*arrays, **{k: _arg(v) for k, v in kw.items()})
    return op.forward(*arrays, **kw)


def apply(op: Op, inputs: Sequence[Tensor | None], kw: dict[str, Any] | None = None,
          arrays: Sequence[Any] | None = None, dtype: dt.DType | None = None) -> Any:
    """Run ``op`` forward and, in grad mode with an input requiring grad, record its node."""
    if arrays is None:
        arrays = [t._data if t is not None else None for t in inputs]
    if not kw or op.attrs_only:
        res = op.forward(*arrays)
    elif op.tensor_kw:
        res = op.forward(*arrays, **{k: _arg(v) for k, v in kw.items()})
    else:
        res = op.forward(*arrays, **kw)
    extras = None
    if op.extras:
        res, extras = res
    if op.n_outputs == 1:
        if type(res) is not np.ndarray:
            res = np.asarray(res)
        if dtype is None:
            dtype = dt.from_numpy(res.dtype)
        elif res.dtype is not dtype.np and res.dtype != dtype.np:
            res = res.astype(dtype.np)
        out = Tensor._make(res, dtype)
        outs = [out]
    else:
        outs = [_as_tensor(r, dtype) for r in res]
        out = outs  # type: ignore[assignment]
    if op.view:
        _link_views(op, inputs[0], outs, kw)  # type: ignore[arg-type]
    if grad_state.enabled:
        for t in inputs:
            if t is not None and (t._rg or t._grad_fn is not None):
                record(op, inputs, outs, kw, extras)
                break
    if grad_state.dual:
        from .forward_ad import propagate
        propagate(op, inputs, outs, kw, extras, arrays)
    return out


def _as_tensor(res: Any, dtype: dt.DType | None) -> Tensor:
    if type(res) is not np.ndarray:
        res = np.asarray(res)
    if dtype is None:
        return Tensor._make(res, dt.from_numpy(res.dtype))
    if res.dtype != dtype.np:
        res = res.astype(dtype.np)
    return Tensor._make(res, dtype)


_NO_EDGE: Edge = (None, 0)


def _edges_and_metas(inputs: Sequence[Tensor | None]
                     ) -> tuple[tuple[Edge, ...], tuple[Any, ...]]:
    """Each input's edge (its grad_fn, or its leaf's accumulator) and (shape, dtype), in one
    pass: the hot path of every recorded op."""
    edges: list[Edge] = []
    metas: list[Any] = []
    for t in inputs:
        if t is None:
            edges.append(_NO_EDGE)
            metas.append(None)
            continue
        metas.append((t._data.shape, t._dtype))
        fn = t._grad_fn if t._base is None else t.grad_fn
        if fn is not None:
            edges.append((fn, t._output_nr))
        elif t._rg:
            ref = t._acc
            acc = ref() if ref is not None else None
            edges.append((acc if acc is not None else get_accumulator(t), 0))
        else:
            edges.append(_NO_EDGE)
    return tuple(edges), tuple(metas)


def record(op: Op, inputs: Sequence[Tensor | None], outs: list[Tensor],
           kw: dict[str, Any] | None, extras: dict[str, Any] | None,
           original_self: Tensor | None = None,
           wiring: tuple[tuple[Edge, ...], tuple[Any, ...]] | None = None,
           pre: dict[str, Any] | None = None) -> Node:
    """The node of an op that ran; ``wiring`` is ``_edges_and_metas(inputs)`` when the caller
    took it already (an in-place op takes it before it writes), ``pre`` the slots of the inputs
    it saved before it wrote (under saved-tensor hooks)."""
    node = op.cls.__new__(op.cls)
    node._uid = node._seq = new_uid()
    edges, node._in_meta = wiring if wiring is not None else _edges_and_metas(inputs)
    node._next = edges
    node._attrs = kw
    node._needs = None
    if len(outs) == 1:
        o = outs[0]
        o._grad_fn = node
        o._output_nr = 0
        node._meta = [(o._data.shape, o._dtype)]
    else:
        for nr, o in enumerate(outs):
            o._grad_fn = node
            o._output_nr = nr
        node._meta = [(o._data.shape, o._dtype) for o in outs]
    if op.plan:
        saved: dict[str, Any] = {}
        # NB: saved-tensor pack hooks see the values in PyTorch's order (inputs, then outputs)
        for name, needed_by, kind, i in op.plan if not _HOOKS else op.pack_plan:
            if pre and name in pre:
                saved[name] = pre[name]
                continue
            if needed_by:
                for j in needed_by:
                    if edges[j][0] is not None:
                        break
                else:
                    saved[name] = None
                    continue
            if kind == INPUT:
                t = original_self if i == 0 and original_self is not None else inputs[i]
                saved[name] = SavedTensor(t, False) if t is not None else None
            elif kind == RESULT:
                o = outs[i]
                if _HOOKS and (i in op.nondiff or not o._dtype.is_floating_point):
                    # NB: a pack hook sees an output PyTorch gives no history without one
                    plain = Tensor._make(o._data, o._dtype)
                    plain._vc = o._vc
                    saved[name] = SavedTensor(plain, False)
                else:
                    saved[name] = SavedTensor(o, True)
            elif kind == EXTRA:
                saved[name] = SavedTensor(wrap(extras[name]), False)  # type: ignore[index]
            else:
                saved[name] = _save_kwarg((kw or {}).get(name))
        if _HOOKS:
            saved = {p[0]: saved[p[0]] for p in op.plan}
        node._saved = saved
    else:
        node._saved = None
    if events.listeners:
        events.emit("node_created", node, outs[0])
    return node


def _save_kwarg(v: Any) -> SavedTensor | list[SavedTensor | None] | None:
    if isinstance(v, Tensor):
        return SavedTensor(v, False)
    if isinstance(v, tuple | list):
        return [SavedTensor(x, False) if isinstance(x, Tensor) else None for x in v]
    return None


def _link_views(op: Op, src: Tensor, outs: list[Tensor], kw: dict[str, Any] | None) -> None:
    base = src._base if src._base is not None else src
    parent = src._view_fn
    fwd = op.forward
    kwargs = {k: _arg(v) for k, v in (kw or {}).items()}
    creation = None if grad_state.enabled else ("no_grad",)
    for i, o in enumerate(outs):
        o._base = base
        o._vc = src._vc
        o._view_version = src._vc.v
        if op.n_outputs != 1:
            o._creation = ("multi", i, op.name[:-len("Backward0")])
        elif creation is None and src._creation is not None and src._creation[0] == "multi":
            # NB: a view of such a view is one too; PyTorch's error then names the new view's op
            o._creation = ("multi", 0, op.name[:-len("Backward0")])
        elif creation is not None or src._creation is not None:
            o._creation = creation or src._creation
            if creation is not None and (src._rg or src._grad_fn is not None):
                o._rg = True      # NB: as PyTorch: a view keeps its base's requires_grad
        o._view_fn = _compose(parent, _replay(fwd, kwargs, None if op.n_outputs == 1 else i))


def _replay(fwd: Callable[..., Any], kwargs: dict[str, Any], j: int | None
            ) -> Callable[[Any], Any]:
    """The view op again, on another array of the base's shape (e.g. a gradient)."""
    if j is None:
        return lambda a: fwd(a, **kwargs)
    return lambda a: fwd(a, **kwargs)[j]


def _compose(parent: Callable[[Any], Any] | None, fn: Callable[[Any], Any]
             ) -> Callable[[Any], Any]:
    if parent is None:
        return fn
    return lambda a: fn(parent(a))


# -- in place ------------------------------------------------------------------------------------
def check_inplace(t: Tensor, others: Sequence[Tensor | None] = ()) -> None:
    """PyTorch's checks before an in-place op in grad mode (when anything requires grad)."""
    if not grad_state.enabled:
        return
    rg = t.requires_grad
    if not rg and not any(o is not None and o.requires_grad for o in others):
        return
    if t._base is not None:
        creation = t._creation
        if creation is not None:
            raise RuntimeError(msg.view_rebase_error(creation))
        if rg and t._base._grad_fn is None:
            raise RuntimeError(msg.VIEW_OF_LEAF_INPLACE)
    if rg and t._grad_fn is None and t._base is None:
        raise RuntimeError(msg.LEAF_INPLACE)


def apply_inplace(op: Op, self: Tensor, others: Sequence[Tensor | None] = (),
                  kw: dict[str, Any] | None = None, arrays: Sequence[Any] | None = None) -> Tensor:
    """``self.<op>_(...)``: write the result into ``self``'s memory, bump its version, and
    rebase its grad_fn (through ``CopySlices`` when ``self`` is a view)."""
    if grad_state.dual:
        from .forward_ad import propagate_inplace
        return propagate_inplace(op, self, others, kw, arrays)
    if (self._inference or (self._base is not None and self._base._inference)) \
            and not grad_state.inference:
        raise RuntimeError(msg.INFERENCE_INPLACE)
    if not grad_state.enabled and type(op.forward) is np.ufunc and arrays is not None \
            and len(arrays) == 2 and not kw:
        # NB: outside the graph, a ufunc writes straight into the tensor's memory (no temporary);
        # a same-dtype array operand needs no result_type, and numpy itself refuses a
        # read-only target (the general path below then raises PyTorch's error)
        target = self._data
        other = arrays[1]
        if (type(other) is np.ndarray and other.dtype is target.dtype) \
                or np.result_type(*arrays) == target.dtype:
            if _WATCH:
                before_write(self)
            try:
                op.forward(arrays[0], other, out=target)
            except ValueError:
                if target.flags.writeable:
                    raise
            else:
                self._vc.v += 1
                if events.listeners and self._vc.saves:
                    events.emit("tensor_modified", self, None)
                return self
    inputs = (self, *others)
    needs_graph = False
    if grad_state.enabled:
        check_inplace(self, others)
        for t in inputs:
            if t is not None and (t._rg or t._grad_fn is not None or (
                    t._base is not None and t.grad_fn is not None)):
                needs_graph = True
                break
    if arrays is None:
        arrays = [t._data if t is not None else None for t in inputs]
    if _WATCH:
        # NB: as PyTorch's, before the kernel runs: a write that then fails has cloned
        before_write(self)
    res = _forward(op, arrays, kw)
    extras = None
    if op.extras:
        res, extras = res
    if type(res) is not np.ndarray:
        res = np.asarray(res)
    target = self._data
    partial = False
    if not target.flags.writeable:
        partial = _check_overlap(op.key, target, others, kw)
        target = _writable_alias(self)
    if res.dtype is not target.dtype and res.dtype != target.dtype and not np.can_cast(
            res.dtype, target.dtype, "same_kind"):
        got = dt.from_numpy(res.dtype).name
        if got == "float64" and all(t is None or t._dtype is not dt.float64 for t in inputs):
            got = "float32"     # NB: numpy's float64 of integers stands for PyTorch's float32
        raise RuntimeError(f"result type {msg.SCALAR_NAME.get(got, got)} can't be cast to the "
                           f"desired output type "
                           f"{msg.SCALAR_NAME.get(self._dtype.name, self._dtype.name)}")
    if not needs_graph:
        if partial:
            _write_changed(target, res)
        else:
            target[...] = res
        self._vc.v += 1
        if events.listeners and self._vc.saves:
            events.emit("tensor_modified", self, None)
        return self
    original = None
    if any(p[2] == INPUT and p[3] == 0 for p in op.plan):
        # NB: PyTorch saves a clone of the overwritten input, made in grad mode (CloneBackward0)
        with events.unseen():
            original = apply(TABLE["clone"], (self,))
    wiring = _edges_and_metas(inputs)
    # NB: PyTorch saves an in-place op's inputs before it writes: saved-tensor pack hooks see
    # them as they were (their version, their history, their values)
    pre = _saved_inputs(op, inputs, kw, wiring[0], original) if _HOOKS else None
    if _WATCH:
        before_write(self)      # NB: again once the op packed its inputs: one may be self
    if partial:
        _write_changed(target, res)
    else:
        target[...] = res
    self._vc.v += 1
    if events.listeners and self._vc.saves:
        events.emit("tensor_modified", self, None)
    if self._base is not None:
        _copy_slices(op, self, inputs, kw, extras, original, wiring, pre)
    else:
        node = record(op, inputs, [self], kw, extras, original, wiring, pre)
        _saved_before_write(node, self, others)
        _move_retain(self, *wiring[0][0])   # the edge to self's old grad_fn
    if original is not None and original._grad_fn is not None:
        # NB: PyTorch clones the input after it made the op's node: the clone's node comes
        # later in sequence (a backward runs it first)
        original._grad_fn._seq = new_uid()
    return self


def _saved_inputs(op: Op, inputs: Sequence[Tensor | None], kw: dict[str, Any] | None,
                  edges: tuple[Edge, ...], original: Tensor | None) -> dict[str, Any]:
    """The slots of the inputs ``op`` saves, made now, in PyTorch's order (``record`` takes
    them as they are). NB: ``record``'s loop makes them the same way, inline (the hot path)."""
    pre: dict[str, Any] = {}
    for name, needed_by, kind, i in op.pack_plan:
        if kind != INPUT and kind != KWARG:
            continue
        if needed_by and all(edges[j][0] is None for j in needed_by):
            pre[name] = None
        elif kind == INPUT:
            t = original if i == 0 and original is not None else inputs[i]
            pre[name] = SavedTensor(t, False) if t is not None else None
        else:
            pre[name] = _save_kwarg((kw or {}).get(name))
    return pre


def _saved_before_write(node: Node, self: Tensor, others: Sequence[Tensor | None]) -> None:
    """An operand that is self, or shares its memory (``t.mul_(t)``, ``v.mul_(v)`` on a view), is
    saved before the write, as in PyTorch: reading it after the write finds it modified."""
    if node._saved and any(o is not None and o._vc is self._vc for o in others):
        for slot in node._saved.values():
            if isinstance(slot, SavedTensor) and slot.tensor is not None \
                    and slot.vc is self._vc:
                slot.version -= 1


# NB: what PyTorch writes into an expanded view (elements sharing memory): a constant fill and
# threshold_ (whose kernel skips the check), tril_/triu_ (which write only their zeros), and,
# with a deprecation warning, the indexed fills
_OVERLAP_ALLOWED = frozenset({"zero", "fill", "threshold_"})
_OVERLAP_ZEROING = frozenset({"tril", "triu"})     # (tril_, triu_: they write only the zeros)
_OVERLAP_DEPRECATED = {"masked_fill": ("masked_fill_", "tensor[mask] = scalar", 2450),
                       "masked_fill_tensor": ("masked_fill_", "tensor[mask] = scalar", 2450),
                       "index_fill": ("index_fill_", "tensor[mask] = scalar", 1913),
                       "index_fill_tensor": ("index_fill_", "tensor[mask] = scalar", 1913),
                       "index_put": ("index_put_", "tensor[indices] = tensor", 976)}


def _check_overlap(key: str, target: np.ndarray, others: Sequence[Tensor | None],
                   kw: dict[str, Any] | None) -> bool:
    """PyTorch's check before an in-place write into a read-only (expanded) array: refused
    where elements share memory (a size > 1 dim of stride 0), but for the ops it lets through.
    True: an indexed fill, which writes only the elements it selects."""
    if not internal_overlap(target) or key in _OVERLAP_ALLOWED:
        return False             # NB: (a part of an expanded view that overlaps nowhere)
    if key in _OVERLAP_ZEROING:
        return True
    deprecated = _OVERLAP_DEPRECATED.get(key)
    if deprecated is None:
        raise RuntimeError(msg.OVERLAPPING_WRITE)
    names = [deprecated]
    if key == "index_put" and kw is not None:
        # NB: one boolean mask and one value: PyTorch's index_put_ goes on to masked_fill_
        indices = [i for i in kw["indices"] if i is not None]
        value = others[0] if others else None
        if len(indices) == 1 and indices[0]._dtype is dt.bool_ and value is not None \
                and value._data.ndim == 0:
            names.append(_OVERLAP_DEPRECATED["masked_fill"])
    for name, example, line in names:
        msg.warn_user(f"Use of {name} on expanded tensors is deprecated. Please clone() the "
                      f"tensor before performing this operation. This also applies to advanced "
                      f"indexing e.g. {example} (Triggered internally at /__w/pytorch/pytorch/"
                      f"aten/src/ATen/native/TensorAdvancedIndexing.cpp:{line}.)")
    return True


def _write_changed(target: np.ndarray, res: np.ndarray) -> None:
    """Only the elements an indexed fill changed, into memory its elements share (writing the
    others back would undo the change)."""
    changed = res != target
    target[changed] = res[changed]


def _writable_alias(view: Tensor) -> np.ndarray:
    """A writable array over the memory of ``view`` (an expanded view, read-only in numpy): its
    base's memory, with the view's offset, shape and strides."""
    base = view._base._data if view._base is not None else None
    if base is None or not (base.flags.writeable and base.flags.c_contiguous):
        # NB: a detached view, or a view of a base that is a view: the memory's owner (numpy's
        # chain of bases ends at the array that holds it)
        base = view._data
        while isinstance(base.base, np.ndarray):
            base = base.base
    return writable_alias(base, view._data)


def writable_alias(base: np.ndarray, data: np.ndarray) -> np.ndarray:
    """A writable array over the memory of ``data``, a read-only view into ``base`` (a
    contiguous, writable array, in C's order or Fortran's): ``data``'s offset, shape and
    strides on ``base``."""
    if not (base.flags.writeable and (base.flags.c_contiguous or base.flags.f_contiguous)):
        raise RuntimeError(msg.OVERLAPPING_WRITE)
    offset = data.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    # NB: a view: the base is contiguous (in its own order: a transposed clone's is Fortran's)
    flat = base.reshape(-1, order="C" if base.flags.c_contiguous else "F")
    start = flat[offset // base.itemsize:]
    return np.lib.stride_tricks.as_strided(start, shape=data.shape, strides=data.strides)


def internal_overlap(data: np.ndarray) -> bool:
    """PyTorch's sure sign that elements share memory: a dim of size > 1 and stride 0."""
    return any(st == 0 and n > 1 for st, n in zip(data.strides, data.shape, strict=True))


class CopySlices(Node):
    """The node an in-place op on a view gives its base: it runs the op's backward on the
    viewed part of the base's gradient. Releasing it drops the op's node, so a second backward
    through it fails although it saves no tensor (as in PyTorch)."""

    __slots__ = ("fn", "view_fn", "order")
    _name = "torch::autograd::CopySlices"

    def __init__(self, fn: Node, view_fn: Callable[[Any], Any]) -> None:
        super().__init__()
        self.fn: Node | None = fn
        self.view_fn = view_fn
        # NB: the base's dims, outermost in memory first, where not C's order (a transposed
        # clone): the gradient is laid out as the base, so that the view's function (a
        # ``view``) applies to it, as PyTorch's (``new_empty_strided`` of the base's strides)
        self.order: tuple[int, ...] | None = None

    def release_variables(self) -> None:
        if self.fn is not None:
            self.fn.release_variables()
        self.fn = None


def _copy_slices(op: Op, view: Tensor, inputs: Sequence[Tensor | None],
                 kw: dict[str, Any] | None, extras: dict[str, Any] | None,
                 original: Tensor | None,
                 wiring: tuple[tuple[Edge, ...], tuple[Any, ...]],
                 pre: dict[str, Any] | None = None) -> None:
    base = view._base
    assert base is not None and view._view_fn is not None
    # NB: under saved-tensor hooks, the result is the view itself, packed once its new history
    # is made (after the CopySlices), as PyTorch packs it
    hooked_result = pre is not None and any(p[0] == "result" and p[2] == RESULT
                                            for p in op.plan)
    if hooked_result:
        pre = {**(pre or {}), "result": None}
    # NB: the op's own node lives inside the CopySlices (no edge reaches it): no event, as no
    # walk of PyTorch's graph finds it
    with events.unseen():
        fn = record(op, inputs, [Tensor._make(view._data, view._dtype)], kw, extras, original,
                    wiring, pre)
    _saved_before_write(fn, view, inputs[1:])
    cs = CopySlices(fn, view._view_fn)
    if not base._data.flags.c_contiguous and base._data.ndim > 1:
        strides = base._data.strides
        cs.order = tuple(sorted(range(len(strides)), key=lambda d: -strides[d]))
    cs._next = (edge(base), *fn._next[1:])
    # NB: the op's edge to the view's old grad_fn is never followed (the CopySlices takes the
    # base's): dropped, so that node is kept by no hidden reference
    fn._next = (_NO_EDGE, *fn._next[1:])
    cs._in_meta = ((base._data.shape, base._dtype), *fn._in_meta[1:])
    cs._meta = [(base._data.shape, base._dtype)]
    old_fn, old_nr = base._grad_fn, base._output_nr
    base._grad_fn = cs
    base._output_nr = 0
    _move_retain(base, old_fn, old_nr)
    kept = None
    saved = fn._saved if fn._saved and "result" in fn._saved else None
    if saved is not None and not hooked_result:
        # NB: the view's memory and version, not the view: holding it would make a cycle
        # (view -> AsStridedBackward0 -> CopySlices -> fn -> view)
        kept = saved["result"] = SavedTensor.of_array(view, fn)
    regenerate_view_grad_fn(view)
    if saved is not None and hooked_result:
        kept = saved["result"] = SavedTensor(view, True)
    if kept is not None and view._grad_fn is not None:
        kept.view_grad_fn = weakref.ref(view._grad_fn)
    if events.listeners:
        events.emit("node_created", cs, base)
        if view._grad_fn is not None:
            # NB: and the view's fresh grad_fn, made by this op too (PyTorch's is made when
            # the view's grad_fn is next read: at once, by whoever uses the op's result)
            events.emit("node_created", view._grad_fn, view)


def _as_strided_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        if g.requires_grad:
            raise NotImplementedError("double backward through a view modified in place is "
                                      "not supported by this engine")
        # NB: a constant gradient: no graph to build (PyTorch's result has no grad_fn either)
        return (Tensor._make(_as_strided_bw(c, g._data, NP)[0], g._dtype),)
    out = np.zeros(c.shape(0), dtype=g.dtype)
    part = c.attrs["view_fn"](out)
    if part.flags.writeable:
        part[...] = g
        return (out,)
    # NB: an expanded view: elements sharing memory sum their gradients
    where = c.attrs["view_fn"](np.arange(out.size).reshape(out.shape))
    np.add.at(out.reshape(-1), where.reshape(-1), np.broadcast_to(g, where.shape).reshape(-1))
    return (out,)


register(Op("as_strided", "AsStridedBackward0", ("self",), lambda x, view_fn, **_: view_fn(x),
            _as_strided_bw, (), ("size", "storage_offset", "stride")))


def regenerated_view_name(view: Tensor) -> str | None:
    """The name ``regenerate_view_grad_fn`` would give the view's grad_fn (None: none), or its
    error, without changing the view."""
    base = view._base
    assert base is not None
    if base._grad_fn is None and not base._rg:
        return None
    creation = view._creation
    if creation is not None and creation[0] in ("custom", "multi"):
        raise RuntimeError(msg.view_base_modified(creation))
    return "AsStrided"


def regenerate_view_grad_fn(view: Tensor) -> None:
    """A view whose base changed in place gets a fresh ``AsStridedBackward0`` grad_fn."""
    base = view._base
    assert base is not None
    if regenerated_view_name(view) is None:
        view._view_version = view._vc.v
        view._grad_fn = None
        return
    view._view_version = view._vc.v
    node = node_class(TABLE["as_strided"])()
    node._next = (edge(base),)
    data, size = view._data, view._data.itemsize
    offset = data.__array_interface__["data"][0] - base._data.__array_interface__["data"][0]
    node._attrs = {"view_fn": view._view_fn, "size": data.shape,
                   "stride": tuple(s // size for s in data.strides),
                   "storage_offset": offset // size}
    node._in_meta = ((base._data.shape, base._dtype),)
    node._meta = [(view._data.shape, view._dtype)]
    old_fn, old_nr = view._grad_fn, view._output_nr
    view._grad_fn = node
    view._output_nr = 0
    _move_retain(view, old_fn, old_nr)


def _move_retain(t: Tensor, old_fn: Node | None, old_nr: int) -> None:
    """A tensor that retains its grad keeps doing so across an in-place op: the retaining
    moves to its new grad_fn, so ``.grad`` is the gradient of its latest version."""
    if not t._retains_grad:
        return
    hooks = old_fn._retain_hooks if old_fn is not None else None
    if hooks is not None and old_nr in hooks and hooks[old_nr]() is t:
        del hooks[old_nr]
    fn = t._grad_fn
    if fn is not None:
        if fn._retain_hooks is None:
            fn._retain_hooks = {}
        fn._hooked = True
        fn._retain_hooks[t._output_nr] = weakref.ref(t)


# -- hooks ---------------------------------------------------------------------------------------
def register_tensor_hook(t: Tensor, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
    if not t.requires_grad:
        raise RuntimeError(msg.HOOK_NO_GRAD)
    fn = t.grad_fn
    if fn is None:
        if t._hooks is None:
            t._hooks = []
        t._hooks.append(hook)
        return RemovableHandle(t._hooks, hook)
    if fn._tensor_pre_hooks is None:
        fn._tensor_pre_hooks = {}
    fn._hooked = True
    hooks = fn._tensor_pre_hooks.setdefault(t._output_nr, [])
    hooks.append(hook)
    return RemovableHandle(hooks, hook)


def retain_grad(t: Tensor) -> None:
    if not t.requires_grad:
        raise RuntimeError(msg.RETAIN_NO_GRAD)
    fn = t.grad_fn
    if fn is None or t._retains_grad:
        return
    if fn._retain_hooks is None:
        fn._retain_hooks = {}
    fn._hooked = True
    fn._retain_hooks[t._output_nr] = weakref.ref(t)     # NB: weak: no cycle through the node
    t._retains_grad = True


def register_post_accumulate_hook(t: Tensor, hook: Callable[[Tensor], None]) -> RemovableHandle:
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if t._post_acc_hooks is None:
        t._post_acc_hooks = []
    t._post_acc_hooks.append(hook)
    return RemovableHandle(t._post_acc_hooks, hook)


# -- the tensor backend for backward formulas (create_graph=True) -------------------------------
def _tt_call(op: Op, args: Sequence[Any], kw: dict[str, Any]) -> Any:
    # NB: None stays an absent optional tensor (a layer's weight)
    tensors = [a if isinstance(a, Tensor) or a is None else _scalar_tensor(a) for a in args]
    given = [t for t in tensors if t is not None]
    dtype = None
    if op.dtype_of >= 0:
        dtype = tensors[op.dtype_of]._dtype  # type: ignore[union-attr]
    elif len(given) >= 2:
        dtype = dt.result_type([t._dtype for t in given if t._data.ndim and not t._wrapped],
                               [t._dtype for t in given if not t._data.ndim and not t._wrapped],
                               [t._dtype for t in given if t._wrapped])
    return apply(op, tensors, kw or None, dtype=dtype)


def _scalar_tensor(v: Any) -> Tensor:
    t = Tensor._make(np.asarray(v, dtype=dt.scalar_dtype(v).np), dt.scalar_dtype(v))
    t._wrapped = True
    return t


def _unwrap(v: Any) -> Any:
    return v._data if isinstance(v, Tensor) else v


# The modules that fill the table (imported for their registrations).
# NB: copies imports the view ops' modules itself (it registers their twins)
from . import (  # noqa: E402, F401
    copies,
    ops_activation,
    ops_attention,
    ops_bag,
    ops_conv,
    ops_ctc,
    ops_decomp,
    ops_dist_math,
    ops_distance,
    ops_double,
    ops_fractional,
    ops_grid,
    ops_householder,
    ops_layers,
    ops_layers_extra,
    ops_ldl,
    ops_linalg,
    ops_loss,
    ops_loss_extra,
    ops_lstsq,
    ops_lu,
    ops_mathfns,
    ops_matrix_exp,
    ops_norm,
    ops_order,
    ops_packed,
    ops_pointwise,
    ops_pool3d,
    ops_random,
    ops_reduce,
    ops_reduce_extra,
    ops_rnn,
    ops_scatter,
    ops_select,
    ops_shape,
    ops_shaping,
    ops_special,
    ops_special_more,
    ops_weight_norm,
)

build_backends(_tt_call, wrap, _unwrap)
