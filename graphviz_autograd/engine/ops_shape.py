"""Table entries: views and shape ops (view, transpose, select, slice, index, cat, stack, ...)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, keep_given, register


def view_array(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A true view with a new shape; raises ValueError where it would need a copy. The view
    gets PyTorch's strides (they decide later layouts, and ``_saved_*`` strides), size-1 dims
    included, where numpy's may differ."""
    out = np.asarray(x).view()      # NB: numpy gives scalars for 0-d results: made arrays
    # NB: a size-1 dim's stride can be anything in a contiguous array too, and decides its
    # view's strides
    if (out.flags.c_contiguous and 1 not in out.shape) or out.size == 0:
        try:
            out.shape = shape
        except AttributeError as e:
            raise ValueError("needs a copy") from e
        return out
    size = out.itemsize
    strides = _view_strides(out.shape, [st // size for st in out.strides], shape)
    if strides is None:
        raise ValueError("needs a copy")
    return np.lib.stride_tricks.as_strided(out, shape, [st * size for st in strides])


def _view_strides(old: tuple[int, ...], old_strides: list[int], new: tuple[int, ...]
                  ) -> list[int] | None:
    """PyTorch's strides of a view with shape ``new`` (its ``computeStride``), or None: the
    view needs a copy. Dims are grouped into chunks laid out contiguously, from the last."""
    if not old:
        return [1] * len(new)
    strides = [0] * len(new)
    view_d = len(new) - 1
    base = old_strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(old) - 1, -1, -1):
        tensor_numel *= old[d]
        if d == 0 or (old[d - 1] != 1 and old_strides[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                strides[view_d] = view_numel * base
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                base = old_strides[d - 1]
                tensor_numel = view_numel = 1
    return strides if view_d == -1 else None


def _unsafe_view_fwd(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    try:
        return view_array(x, shape)
    except ValueError:
        return x.reshape(shape)


def _inverse(dims: tuple[int, ...]) -> tuple[int, ...]:
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return tuple(inv)



def _unsqueeze_to(dims: Any) -> Any:
    """A squeeze's backward: PyTorch's unsqueeze_to, an unsqueeze for each squeezed dim of size
    1 (``dims``: the squeezed dims, None for all) where a graph is built; else one reshape."""
    def backward(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        shape = c.shape(0)
        if not D.tensor_mode:
            return (D.reshape(g, shape=shape),)
        chosen = range(len(shape)) if dims is None else dims(c.attrs["dim"], len(shape))
        for d in sorted(chosen):
            if shape[d] == 1:
                g = D.unsqueeze(g, dim=d)
        return (g,)
    return backward


def _wrapped(dim: Any, n: int) -> list[int]:
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return [d % n for d in dims] if n else []


def _expand_fwd(x: Any, size: tuple[int, ...]) -> Any:
    """A view; writable where no element is repeated (only new dims of size 1), as in PyTorch."""
    lead = len(size) - x.ndim
    if all(s == 1 for s in size[:lead]) and tuple(size[lead:]) == x.shape:
        return x[(None,) * lead]
    return np.broadcast_to(x, size)

def _select_fwd(x: np.ndarray, dim: int, index: int) -> np.ndarray:
    # NB: a slice then a squeeze, so even a 0-d result is a view (x[i] would be a copy)
    key: list[Any] = [slice(None)] * x.ndim
    index %= x.shape[dim]
    key[dim] = slice(index, index + 1)
    return x[tuple(key)].squeeze(dim)


def _slice_fwd(x: np.ndarray, dim: int, start: int, end: int, step: int = 1) -> np.ndarray:
    key: list[Any] = [slice(None)] * x.ndim
    key[dim] = slice(start, end, step)
    return x[tuple(key)]


def _embed(key_fn: Any) -> Any:
    """Backward helper forward: zeros of the input's size with ``g`` written at ``key``."""
    def fwd(g: np.ndarray, size: tuple[int, ...], dim: int, **kw: Any) -> np.ndarray:
        out = np.zeros(size, dtype=g.dtype)
        key: list[Any] = [slice(None)] * len(size)
        key[dim] = key_fn(**kw)
        out[tuple(key)] = g
        return out
    return fwd


def _index_key(indices: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(slice(None) if i is None else i for i in indices)


def _index_fwd(x: np.ndarray, indices: tuple[Any, ...]) -> np.ndarray:
    # NB: contiguous, as PyTorch's (numpy may lay a mixed basic/advanced result out otherwise,
    # and a later reshape would then copy where PyTorch views)
    return np.ascontiguousarray(x[_index_key(indices)])


def _index_put_fwd(x: np.ndarray, values: np.ndarray, indices: tuple[Any, ...],
                   accumulate: bool = False) -> np.ndarray:
    out = x.copy()
    key = _index_key(indices)
    if accumulate:
        np.add.at(out, key, values)
    else:
        out[key] = values
    return out


def _index_put_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    idx = c.indices
    gs = None
    if c.needs[0]:
        gs = g if c.attrs.get("accumulate") else D.index_put(
            g, D.zeros_like(D.index(g, indices=idx)), indices=idx)
    gv = D.index(g, indices=idx) if c.needs[1] else None
    return gs, gv


def _cat_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    dim = c.attrs["dim"]
    out: list[Any] = []
    start = 0
    for i in range(len(c.node._in_meta)):
        shape = c.shape(i)
        if len(shape) == 1 and shape[0] == 0 and len(c.shape(0)) != 1:
            out.append(None)
            continue
        n = shape[dim]
        out.append(D.slice(g, dim=dim, start=start, end=start + n) if c.needs[i] else None)
        start += n
    return tuple(out)


def _stack_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    dim = c.attrs["dim"]
    return tuple(D.select(g, dim=dim, index=i) if c.needs[i] else None
                 for i in range(len(c.node._in_meta)))


def _split_fwd(x: np.ndarray, split_size: int, dim: int) -> list[np.ndarray]:
    n = x.shape[dim]
    # NB: an empty dim still gives one (empty) piece
    return [_slice_fwd(x, dim, s, min(s + split_size, n))
            for s in range(0, max(n, 1), split_size)]


def _split_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    shape, dim, size = c.shape(0), c.attrs["dim"], c.attrs["split_size"]
    like = next(g for g in grads if g is not None)
    parts = []
    for i, g in enumerate(grads):
        if g is None:
            piece = list(shape)
            piece[dim] = min(size, shape[dim] - i * size)
            g = D.zeros(tuple(piece), like=like)
        parts.append(g)
    return (D.cat(*parts, dim=dim),)


def _split_sizes_fwd(x: np.ndarray, split_sizes: tuple[int, ...], dim: int
                     ) -> list[np.ndarray]:
    out, start = [], 0
    for n in split_sizes:
        out.append(_slice_fwd(x, dim, start, start + n))
        start += n
    return out


def _split_sizes_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    shape, dim = c.shape(0), c.attrs["dim"]
    like = next(g for g in grads if g is not None)
    parts = []
    for n, g in zip(c.attrs["split_sizes"], grads, strict=True):
        if g is None:
            piece = list(shape)
            piece[dim] = n
            g = D.zeros(tuple(piece), like=like)
        parts.append(g)
    return (D.cat(*parts, dim=dim),)


def _unbind_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    shape, dim = c.shape(0), c.attrs["dim"]
    piece = shape[:dim] + shape[dim + 1:]
    like = next(g for g in grads if g is not None)
    parts = [g if g is not None else D.zeros(piece, like=like) for g in grads]
    return (D.stack(*parts, dim=dim),)


def _repeat_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch's repeat_backward, op by op: sum away the new leading dims, then one reshape
    # to (repeat, size) pairs and one sum over the repeats
    shape, reps = tuple(c.shape(0)), tuple(c.attrs["repeats"])
    if 0 in reps:
        return (D.zeros(shape, like=g),)
    for _ in range(len(reps) - len(shape)):
        g = D.sum_dim(g, dim=(0,), keepdim=False)
    size: list[int] = []
    dims: list[int] = []
    for r, n in zip(reps[len(reps) - len(shape):], shape, strict=True):
        if r != 1:
            size.append(r)
            dims.append(len(size) - 1)
        size.append(n)
    if dims:
        g = D.sum_dim(D.reshape(g, shape=tuple(size)), dim=tuple(dims), keepdim=False)
    return (g,)


def _gather_fwd(x: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    # NB: an index smaller than the input reads only where it reaches (numpy would broadcast)
    part = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
    return np.take_along_axis(x[part], index, axis=dim)


def _gather_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: the dim as gather was given it (a negative one) on the create_graph node too
    return (keep_given(D.scatter_add(D.zeros(c.shape(0), like=g), g, dim=c.attrs["dim"],
                                     index=c.index), c.attrs, D),)


def _scatter_add_fwd(x: np.ndarray, src: np.ndarray, dim: int, index: Any) -> np.ndarray:
    out = x.copy()
    if np.shape(src) != index.shape:
        # NB: a source larger than the index adds only the part the index reaches
        src = np.asarray(src)[tuple(slice(0, n) for n in index.shape)]
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    np.add.at(out, tuple(grid), src)
    return out


register(
    Op("alias", "AliasBackward0", ("self",), lambda x: x.view(), lambda c, g, D: (g,),
       view=True),
    # NB: the primal unpack_dual gives (forward_ad): a view, its node PyTorch's Identity
    Op("fw_primal", "torch::autograd::Identity", ("self",), lambda x: x.view(),
       lambda c, g, D: (g,), view=True),
    Op("view", "ViewBackward0", ("self",), lambda x, shape: view_array(x, shape),
       lambda c, g, D: (D.reshape(g, shape=c.shape(0)),), view=True),
    Op("reshape_alias", "ReshapeAliasBackward0", ("self",), lambda x, shape: view_array(x, shape),
       lambda c, g, D: (D.reshape(g, shape=c.shape(0)),), view=True),
    Op("unsafe_view", "UnsafeViewBackward0", ("self",), lambda x, shape: _unsafe_view_fwd(x, shape),
       lambda c, g, D: (D.reshape(g, shape=c.shape(0)),)),
    Op("transpose", "TransposeBackward0", ("self",),
       lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1),
       lambda c, g, D: (D.transpose(g, dim0=c.attrs["dim0"], dim1=c.attrs["dim1"]),), (),
       ("dim0", "dim1"), view=True, lift_0d=True),
    # NB: transpose_ (in place), as PyTorch's recurrent layers turn a batch-first output
    Op("transpose_inplace", "TransposeBackward1", ("self",),
       lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1),
       lambda c, g, D: (D.transpose(g, dim0=c.attrs["dim0"], dim1=c.attrs["dim1"]),), (),
       ("dim0", "dim1"), view=True),
    Op("t", "TBackward0", ("self",), lambda x: x.T, lambda c, g, D: (D.t(g),), view=True),
    Op("permute", "PermuteBackward0", ("self",), lambda x, dims: np.transpose(x, dims),
       lambda c, g, D: (D.permute(g, dims=_inverse(c.attrs["dims"])),), (), ("dims",),
       view=True),
    Op("unsqueeze", "UnsqueezeBackward0", ("self",), lambda x, dim: np.expand_dims(x, dim),
       lambda c, g, D: (D.squeeze_dim(g, dim=c.attrs["dim"]),), (), ("dim",), view=True),
    Op("squeeze", "SqueezeBackward0", ("self",), lambda x: np.squeeze(x), _unsqueeze_to(None),
       view=True),
    Op("squeeze_dim", "SqueezeBackward1", ("self",),
       lambda x, dim: np.squeeze(x, dim) if x.ndim and x.shape[dim] == 1 else x,
       _unsqueeze_to(_wrapped), (), ("dim",), view=True),
    Op("squeeze_multi", "SqueezeBackward2", ("self",),
       lambda x, dim: np.squeeze(x, tuple(d for d in dim if x.ndim and x.shape[d] == 1)),
       _unsqueeze_to(_wrapped), (), ("dim",), view=True),
    Op("squeeze_dims", "SqueezeBackward4", ("self",),
       lambda x, dim: np.squeeze(x, dim) if x.ndim and x.shape[dim] == 1 else x,
       _unsqueeze_to(_wrapped), (), ("dim",), view=True),
    Op("expand", "ExpandBackward0", ("self",), _expand_fwd,
       lambda c, g, D: (D.sum_to(g, c.shape(0)),), view=True),
    Op("select", "SelectBackward0", ("self",), _select_fwd,
       lambda c, g, D: (keep_given(D.select_backward(g, size=c.shape(0), dim=c.attrs["dim"],
                                                     index=c.attrs["index"]), c.attrs, D),), (),
       ("dim", "index"),
       view=True),
    Op("select_backward", "SelectBackwardBackward0", ("grad_output",),
       _embed(lambda index: index),
       lambda c, gg, D: (D.select(gg, dim=c.attrs["dim"], index=c.attrs["index"]),), (),
       ("dim", "index")),
    Op("slice", "SliceBackward0", ("self",), _slice_fwd,
       lambda c, g, D: (keep_given(D.slice_backward(g, size=c.shape(0), dim=c.attrs["dim"],
                                                    start=c.attrs["start"], end=c.attrs["end"],
                                                    step=c.attrs.get("step", 1)), c.attrs, D),),
       (),
       ("dim", "start", "end", "step"), view=True),
    Op("slice_backward", "SliceBackwardBackward0", ("grad_output",),
       _embed(lambda start, end, step=1: slice(start, end, step)),
       lambda c, gg, D: (D.slice(gg, dim=c.attrs["dim"], start=c.attrs["start"],
                                 end=c.attrs["end"], step=c.attrs.get("step", 1)),), (),
       ("dim", "start", "end", "step")),
    Op("index", "IndexBackward0", ("self",), _index_fwd,
       lambda c, g, D: (D.index_put_impl(D.zeros(c.shape(0), like=g), g, indices=c.indices,
                                         accumulate=True),),
       (Save("indices"),), list_saves=("indices",)),
    Op("index_put", "IndexPutBackward0", ("self", "values"), _index_put_fwd, _index_put_bw,
       (Save("indices"),), ("accumulate",), list_saves=("indices",)),
    Op("index_put_impl", "IndexPutImplBackward0", ("self", "values"), _index_put_fwd,
       _index_put_bw, (Save("indices"),), ("accumulate",), list_saves=("indices",)),
    Op("clone", "CloneBackward0", ("self",), lambda x, contiguous=False: (
        np.ascontiguousarray(x).copy() if contiguous else x.copy(order="K")),
       lambda c, g, D: (g,)),
    Op("to_copy", "ToCopyBackward0", ("self",), lambda x, dtype: x.astype(dtype),
       lambda c, g, D: (g,)),
    Op("cat", "CatBackward0", ("*tensors",), lambda *xs, dim: np.concatenate(xs, axis=dim),
       _cat_bw, (), ("dim",)),
    Op("stack", "StackBackward0", ("*tensors",), lambda *xs, dim: np.stack(xs, axis=dim),
       _stack_bw, (), ("dim",)),
    Op("split", "SplitBackward0", ("self",), _split_fwd, _split_bw, (), ("dim", "split_size"),
       view=True, n_outputs=-1),
    # NB: as split, but its outputs are no views for autograd (PyTorch's recurrent cells
    # edit them in place): they share the input's memory, each with a version of its own
    Op("unsafe_split", "UnsafeSplitBackward0", ("self",), _split_fwd, _split_bw, (),
       ("dim", "split_size"), n_outputs=-1),
    Op("split_with_sizes", "SplitWithSizesBackward0", ("self",), _split_sizes_fwd,
       _split_sizes_bw, (), ("dim", "split_sizes"), view=True, n_outputs=-1),
    Op("unbind", "UnbindBackward0", ("self",),
       lambda x, dim: [_select_fwd(x, dim, i) for i in range(x.shape[dim])], _unbind_bw, (),
       ("dim",), view=True, n_outputs=-1),
    # NB: a copy, as in PyTorch (numpy's flip is a view: writing to it would write the input)
    Op("flip", "FlipBackward0", ("self",), lambda x, dims: np.flip(x, dims).copy(),
       lambda c, g, D: (D.flip(g, dims=c.attrs["dims"]),), (), ("dims",), lift_0d=True),
    Op("gather", "GatherBackward0", ("self",),
       _gather_fwd, _gather_bw,
       (Save("index"), Save("self")), ("dim", "sparse_grad"), lift_0d=True),
    Op("scatter_add", "ScatterAddBackward0", ("self", "src"), _scatter_add_fwd,
       lambda c, gg, D: (gg if c.needs[0] else None,
                         D.gather(gg, dim=c.attrs["dim"], index=c.index) if c.needs[1] else None),
       (Save("index", (1,)),), ("dim",), lift_0d=True),    # NB: only src's formula reads it
    Op("masked_fill", "MaskedFillBackward0", ("self",),
       lambda x, mask, value: np.where(mask, np.asarray(value, dtype=x.dtype), x),
       lambda c, g, D: (D.masked_fill(g, mask=c.mask, value=0),), (Save("mask"),)),
    Op("repeat", "RepeatBackward0", ("self",), lambda x, repeats: np.tile(x, repeats),
       _repeat_bw, (), ("repeats",)),
    Op("zero", "ZeroBackward0", ("self",), lambda x: np.zeros_like(x),
       lambda c, g, D: (D.zeros_like(g),)),
    Op("fill", "FillBackward2", ("self",),
       lambda x, value: np.full_like(x, value), lambda c, g, D: (D.zeros_like(g),)),
    Op("fill_tensor", "FillBackward3", ("self", "value"),
       lambda x, v: np.full_like(x, v),
       lambda c, g, D: (D.zeros_like(g) if c.needs[0] else None,
                        D.sum(g) if c.needs[1] else None)),
    Op("masked_fill_tensor", "MaskedFillBackward1", ("self", "value"),
       lambda x, v, mask: np.where(mask, np.asarray(v, dtype=x.dtype), x),
       # NB: PyTorch's formulas: grad.masked_fill(mask, 0), and the value's
       # grad.masked_select(mask).sum() (so their create_graph nodes)
       lambda c, g, D: (D.masked_fill(g, mask=c.mask, value=0) if c.needs[0] else None,
                        D.sum(D.masked_select(g, mask=c.mask)) if c.needs[1] else None),
       (Save("mask"),)),
    Op("copy", "torch::autograd::CopyBackwards", ("self", "src"),
       lambda x, src: np.broadcast_to(src, x.shape).astype(x.dtype),
       lambda c, g, D: (D.zeros_like(g) if c.needs[0] else None, g if c.needs[1] else None)),
)
