"""Table entries: the shape and selection ops of ``shaping`` (unfold, rot90, the scatters into
a view, as_strided, the in-place views t_ / squeeze_ / unsqueeze_, block_diag)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .autograd import _as_strided_bw
from .ops_shape import _unsqueeze_to, _wrapped
from .optable import Op, keep_given, register


def _block_diag_fwd(*xs: Any) -> Any:
    mats = [np.reshape(x, (1, 1)) if x.ndim == 0 else np.reshape(x, (1, -1)) if x.ndim == 1
            else x for x in xs]
    dtype = np.result_type(*xs) if xs else np.float32
    rows, cols = sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)
    out = np.zeros((rows, cols), dtype)
    r = k = 0
    for m in mats:
        out[r:r + m.shape[0], k:k + m.shape[1]] = m
        r, k = r + m.shape[0], k + m.shape[1]
    return out


def _block_diag_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    out: list[Any] = []
    r = k = 0
    for i, need in enumerate(c.needs):
        shape = c.shape(i)
        rows, cols = (shape if len(shape) == 2 else (1, shape[0]) if shape else (1, 1))
        if need:
            part = D.slice(D.slice(g, dim=0, start=r, end=r + rows, step=1), dim=1, start=k,
                           end=k + cols, step=1)
            # NB: PyTorch's squeeze(-1), once for a vector (a no-op: its dims are 1 x n, and
            # the executor sums the first away) and twice for a number
            for _ in range(2 - len(shape)):
                part = keep_given(D.squeeze_dim(part, dim=len(part.shape) - 1), {"@dim": -1}, D)
            out.append(part)
        else:
            out.append(None)
        r, k = r + rows, k + cols
    return tuple(out)


def _as_strided_view_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        if g.requires_grad:
            return (_as_strided_graph(c, g),)
        return _as_strided_bw(c, g, D)
    # NB: elements the view repeats (overlapping strides) sum their gradients
    out = np.zeros(c.shape(0), dtype=g.dtype)
    where = c.attrs["view_fn"](np.arange(out.size).reshape(out.shape))
    np.add.at(out.reshape(-1), where.reshape(-1), np.broadcast_to(g, where.shape).reshape(-1))
    return (out,)


def _maybe_overlapping(size: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """PyTorch's test of whether a strided view may repeat memory: its strides in increasing
    order each beyond the reach of the smaller ones (dims of size 1 left out)."""
    reach = 0
    for n, s in sorted(((n, s) for n, s in zip(size, stride, strict=True) if n != 1),
                       key=lambda p: p[1]):
        if s <= reach:
            return True
        reach += s * (n - 1)
    return False


def _as_strided_graph(c: Any, g: Any) -> Any:
    """PyTorch's as_strided_backward where a graph is built: the gradient copied into an
    as_strided view of zeros (CopySlices), then that memory seen as the input
    (AsStridedBackward0)."""
    from .autograd import apply
    from .indexing import copy_
    from .optable import TABLE
    from .shaping import _strided
    from .tensor import Tensor
    shape = tuple(c.shape(0))
    n = int(np.prod(shape))
    a = c.attrs
    storage = Tensor._make(np.zeros(n, g._data.dtype), g._dtype)
    if _maybe_overlapping(a["size"], a["stride"]):
        # NB: PyTorch sums the gradient into the memory with index_add_
        from . import dtypes as dt
        from . import functional as F
        from .selecting import index_add_
        where = a["view_fn"](np.arange(n).reshape(shape)).reshape(-1)
        index_add_(storage, 0, Tensor._make(where.astype(np.int64), dt.int64),
                   F.reshape(g, (-1,)))
    else:
        view = apply(TABLE["as_strided_view"], (storage,), {
            "view_fn": a["view_fn"], "size": a["size"], "stride": a["stride"],
            "storage_offset": a["storage_offset"]}, dtype=g._dtype)
        copy_(view, g)
    strides = tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
    return apply(TABLE["as_strided_view"], (storage,), {
        "view_fn": _strided(shape, strides, 0), "size": shape, "stride": strides,
        "storage_offset": 0}, dtype=g._dtype)


def _rot90_fwd(x: Any, k: int = 1, dims: Any = (0, 1)) -> Any:
    return np.ascontiguousarray(np.rot90(x, k, axes=tuple(dims)))


def _select_scatter_fwd(x: Any, src: Any, dim: int, index: int) -> Any:
    out = x.copy()
    key = (slice(None),) * dim + (index,)
    out[key] = src
    return out


def _select_scatter_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: the nodes a create_graph makes show the dim and index as select_scatter was given them
    a = c.attrs
    dim, index = a["dim"], a["index"]
    gsrc = keep_given(D.select(g, dim=dim, index=index), a, D) if c.needs[1] else None
    gx = None
    if c.needs[0]:
        gx = keep_given(D.select_scatter(g, D.zeros_like(D.select(g, dim=dim, index=index)),
                                         dim=dim, index=index), a, D)
    return gx, gsrc


def _slice_scatter_fwd(x: Any, src: Any, dim: int, start: int, end: int, step: int) -> Any:
    out = x.copy()
    out[(slice(None),) * dim + (slice(start, end, step),)] = src
    return out


def _slice_kw(c: Any) -> dict[str, Any]:
    a = c.attrs
    return {"dim": a["dim"], "start": a["start"], "end": a["end"], "step": a["step"]}


def _slice_scatter_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    kw, a = _slice_kw(c), c.attrs
    gsrc = keep_given(D.slice(g, **kw), a, D) if c.needs[1] else None
    gx = keep_given(D.slice_scatter(g, D.zeros_like(D.slice(g, **kw)), **kw), a, D) \
        if c.needs[0] else None
    return gx, gsrc


def _diagonal_scatter_fwd(x: Any, src: Any, offset: int, dim1: int, dim2: int) -> Any:
    out = np.array(x, order="C")
    # NB: numpy's diagonal is read-only: write through the flat positions of its elements
    where = np.diagonal(np.arange(out.size).reshape(out.shape), offset, dim1, dim2)
    out.reshape(-1)[where.reshape(-1)] = np.broadcast_to(src, where.shape).reshape(-1)
    return out


def _diagonal_scatter_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    a = c.attrs
    kw = {"offset": a["offset"], "dim1": a["dim1"], "dim2": a["dim2"]}
    gsrc = keep_given(D.diagonal(g, **kw), a, D) if c.needs[1] else None
    gx = keep_given(D.diagonal_scatter(g, D.zeros_like(D.diagonal(g, **kw)), **kw), a, D) \
        if c.needs[0] else None
    return gx, gsrc


def _unfold_fwd(x: Any, dimension: int, size: int, step: int) -> Any:
    """The sliding windows of ``size`` every ``step`` along ``dimension``: a view, the window
    dim last (a 0-d input counts as one dim of size 1)."""
    if x.ndim == 0:
        return np.lib.stride_tricks.as_strided(x, (1,) * size, (x.itemsize,) * size,
                                               writeable=x.flags.writeable)
    n = x.shape[dimension]
    shape = list(x.shape)
    shape[dimension] = (n - size) // step + 1
    strides = list(x.strides)
    strides[dimension] = x.strides[dimension] * step
    return np.lib.stride_tricks.as_strided(x, (*shape, size), (*strides, x.strides[dimension]),
                                           writeable=x.flags.writeable)


def _unfold_backward_fwd(g: Any, input_sizes: tuple[int, ...], dim: int, size: int,
                         step: int) -> Any:
    out = np.zeros(input_sizes, g.dtype)
    # NB: windows may overlap: sum what each position of the input receives
    where = _unfold_fwd(np.arange(out.size).reshape(input_sizes), dim, size, step)
    np.add.at(out.reshape(-1), where.reshape(-1), np.broadcast_to(g, where.shape).reshape(-1))
    return out


def _unfold_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    a = c.attrs
    out = D.unfold_backward(g, input_sizes=tuple(c.shape(0)), dim=a["dimension"],
                            size=a["size"], step=a["step"])
    return (keep_given(out, {"@dim": a.get("@dimension", a["dimension"])}, D),)


def _unfold_backward_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    a = c.attrs
    return (keep_given(D.unfold(gg, dimension=a["dim"], size=a["size"], step=a["step"]),
                       {"@dimension": a.get("@dim", a["dim"])}, D),)


register(
    Op("unfold", "UnfoldBackward0", ("self",), _unfold_fwd, _unfold_bw, (),
       ("dimension", "size", "step"), view=True),
    Op("unfold_backward", "UnfoldBackwardBackward0", ("grad_in",), _unfold_backward_fwd,
       _unfold_backward_bw, (), ("dim", "size", "step")),
    # NB: Tensor.as_strided: a view of the tensor's memory (AsStridedBackward0, as the node
    Op("as_strided_view", "AsStridedBackward0", ("self",), lambda x, view_fn, **_: view_fn(x),
       _as_strided_view_bw, (), ("size", "storage_offset", "stride"), view=True),
    # NB: the in-place view ops (t_, squeeze_): their own nodes (TBackward1, SqueezeBackward3/5)
    Op("t_inplace", "TBackward1", ("self",), lambda x: x.T, lambda c, g, D: (D.t(g),),
       view=True),
    Op("squeeze_inplace", "SqueezeBackward3", ("self",), lambda x: np.squeeze(x),
       _unsqueeze_to(None), view=True),
    Op("squeeze_inplace_dims", "SqueezeBackward5", ("self",),
       lambda x, dim: np.squeeze(x, tuple(d for d in dim if x.shape[d] == 1)) if x.ndim else x,
       _unsqueeze_to(_wrapped), (), ("dim",), view=True),
    # NB: unsqueeze_ (in place), as PyTorch's quantile moves its quantiles first
    Op("unsqueeze_inplace", "UnsqueezeBackward1", ("self",), lambda x, dim: np.expand_dims(x, dim),
       lambda c, g, D: (D.squeeze_dim(g, dim=c.attrs["dim"]),), (), ("dim",), view=True),
    Op("block_diag", "BlockDiagBackward0", ("*tensors",), _block_diag_fwd, _block_diag_bw),
    Op("rot90", "Rot90Backward0", ("self",), _rot90_fwd,
       lambda c, g, D: (D.rot90(g, k=-c.attrs.get("@k", c.attrs["k"]),
                                dims=c.attrs.get("@dims", c.attrs["dims"])),), (),
       ("dims", "k")),
    Op("select_scatter", "SelectScatterBackward0", ("self", "src"), _select_scatter_fwd,
       _select_scatter_bw, (), ("dim", "index")),
    Op("slice_scatter", "SliceScatterBackward0", ("self", "src"), _slice_scatter_fwd,
       _slice_scatter_bw, (), ("dim", "end", "start", "step")),
    Op("diagonal_scatter", "DiagonalScatterBackward0", ("self", "src"), _diagonal_scatter_fwd,
       _diagonal_scatter_bw, (), ("dim1", "dim2", "offset")),
)
