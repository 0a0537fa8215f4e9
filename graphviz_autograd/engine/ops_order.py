"""Table entries: ordering (sort, topk, kthvalue, mode, amin), cumulative ops (cumprod, cummax,
cummin, logcumsumexp), triangles and diagonals (triu, tril, diagonal, diag_embed, trace) and
index_fill, which trace's backward formula uses."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ops_reduce import _amax_bw, _select_dim_bw
from .optable import Op, Save, keep_given, no_double_backward, register


# -- ordering --------------------------------------------------------------------------------------
def argsort(x: np.ndarray, dim: int, descending: bool = False) -> np.ndarray:
    """A stable order along ``dim`` (nan largest, as PyTorch): descending keeps equal elements
    in their order too (the ascending order of the reversed array, reversed back)."""
    if not descending:
        return np.argsort(x, axis=dim, kind="stable")
    n = x.shape[dim]
    order = np.argsort(np.flip(x, dim), axis=dim, kind="stable")
    return np.flip(n - 1 - order, dim)


def _sort_fwd(x: np.ndarray, dim: int, descending: bool = False, stable: bool = False) -> Any:
    idx = argsort(x, dim, descending)
    return np.take_along_axis(x, idx, axis=dim), {"indices": idx.astype(np.int64)}


def _topk_fwd(x: np.ndarray, k: int, dim: int, largest: bool = True, sorted: bool = True) -> Any:
    idx = np.take(argsort(x, dim, largest), np.arange(k), axis=dim)
    return np.take_along_axis(x, idx, axis=dim), {"indices": idx.astype(np.int64)}


def _scatter_back(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    """PyTorch's value_selecting_reduction_backward with keepdim: the gradient scattered into
    zeros of the input's shape at the saved indices."""
    shape = c.shape(0)
    if not shape and not D.tensor_mode:
        return (np.asarray(g).reshape(()),)
    out = D.scatter(D.zeros(shape, like=g), g, dim=c.attrs["dim"], index=c.indices)
    return (keep_given(out, c.attrs, D),)


def _last_equal(x: np.ndarray, value: np.ndarray, dim: int) -> np.ndarray:
    """The index of the last element along ``dim`` equal to ``value`` (nan equal to nan)."""
    same = (x == value) | (np.isnan(x) & np.isnan(value)) if x.dtype.kind == "f" else x == value
    n = x.shape[dim]
    return n - 1 - np.argmax(np.flip(same, dim), axis=dim, keepdims=True)


def _kthvalue_fwd(x: np.ndarray, k: int, dim: int, keepdim: bool = False) -> Any:
    # NB: among equal values PyTorch's selection gives the last one's index
    value = np.take(np.sort(x, axis=dim, kind="stable"), [k - 1], axis=dim)
    idx = _last_equal(x, value, dim)
    if not keepdim:
        value, idx = value.squeeze(dim), idx.squeeze(dim)
    return value, {"indices": idx.astype(np.int64)}


def _mode_fwd(x: np.ndarray, dim: int, keepdim: bool = False) -> Any:
    """The most frequent value (the smallest of the most frequent ones) and its last index."""
    rows = np.moveaxis(x, dim, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    values = np.empty(flat.shape[0], dtype=x.dtype)
    for i, row in enumerate(flat):
        uniq, counts = np.unique(row, return_counts=True)
        values[i] = uniq[np.argmax(counts)]
    value = np.expand_dims(values.reshape(rows.shape[:-1]), dim)
    idx = _last_equal(x, value, dim)
    if not keepdim:
        value, idx = value.squeeze(dim), idx.squeeze(dim)
    return value, {"indices": idx.astype(np.int64)}


# -- cumulative ops --------------------------------------------------------------------------------
def _cumulative_arg(better: Any) -> Any:
    """cummax / cummin: the running extreme and the last index reaching it (nan wins, as in
    PyTorch)."""
    def fwd(x: np.ndarray, dim: int) -> Any:
        xs = np.moveaxis(x, dim, 0)
        values, idx = np.empty_like(xs), np.zeros(xs.shape, dtype=np.int64)
        floating = x.dtype.kind == "f"
        for i in range(xs.shape[0]):
            if i == 0:
                values[0], idx[0] = xs[0], 0
                continue
            cur, prev = xs[i], values[i - 1]
            take = better(cur, prev) | (cur == prev)
            if floating:
                take = (take & ~np.isnan(prev)) | np.isnan(cur)
            values[i] = np.where(take, cur, prev)
            idx[i] = np.where(take, i, idx[i - 1])
        return np.moveaxis(values, 0, dim), {"indices": np.moveaxis(idx, 0, dim)}
    return fwd


def _cummaxmin_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch: zeros_like(self).scatter_add(dim, indices, grad)
    if not c.shape(0) and not D.tensor_mode:
        return (g,)
    return (D.scatter_add(D.zeros_like(c.self), g, dim=c.attrs["dim"], index=c.indices),)


def _cumprod_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x, d = c.self, c.attrs["dim"]
    if not c.shape(0):
        return (g,)
    if not np.any(np.asarray(x._data if D.tensor_mode else x) == 0):
        # NB: PyTorch's formula where no input is zero: the reversed cumsum of grad * result,
        # divided by the input
        r = D.mul(c.result, g)
        return (D.div(D.flip(D.cumsum(D.flip(r, dims=(d,)), dim=d), dims=(d,)), x),)
    if D.tensor_mode:
        raise no_double_backward("CumprodBackward0", " where an input is zero")
    # NB: PyTorch's O(n) formula, which reads the saved result (a saved-tensor hook may have let
    # it change in place): before the first zero, the reversed cumsum of grad * result over the
    # input; at the first zero, the result before it times the sum of the later grads times the
    # products of the inputs after it (up to the second zero); after it, zero
    xs, r = np.moveaxis(x, d, -1), np.moveaxis(np.asarray(c.result), d, -1)
    gs = np.broadcast_to(np.moveaxis(np.asarray(g), d, -1), xs.shape)
    zeros = np.cumsum(xs == 0, axis=-1)
    before = zeros == 0
    with np.errstate(all="ignore"):
        w = np.where(before, r * gs, 0)
        out = np.where(before, np.flip(np.cumsum(np.flip(w, -1), axis=-1), -1) / xs, 0)
        first = (zeros == 1) & (xs == 0)
        later = np.cumprod(np.where((zeros == 1) & ~first, xs, 1), axis=-1)
        part = np.sum(np.where(zeros == 1, gs, 0) * later, axis=-1, keepdims=True)
        prev = np.concatenate([np.ones_like(r[..., :1]), r[..., :-1]], axis=-1)
        out = np.where(first, prev * part, out).astype(xs.dtype, copy=False)
    return (np.moveaxis(out, -1, d),)


def _logcumsumexp_fwd(x: np.ndarray, dim: int) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.logaddexp.accumulate(x, axis=dim)


def _logcumsumexp_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    """PyTorch's logcumsumexp_backward, op by op: the positive and the negative parts of the
    gradient, each through a reversed logcumsumexp in log space."""
    x, r, d = c.self, c.result, c.attrs["dim"]
    if not c.shape(0):
        return (g,)
    lowest = float(np.finfo(g.dtype if not D.tensor_mode else g._dtype.np).min)
    with np.errstate(all="ignore"):
        log_abs = D.log(D.abs(g))
        parts = []
        for side in (D.gt, D.lt):
            logged = D.where(log_abs, lowest, condition=side(g, 0))
            rev = D.flip(D.logcumsumexp(D.flip(D.sub(logged, r), dims=(d,)), dim=d), dims=(d,))
            parts.append(D.exp(D.add(rev, x)))
        return (D.sub(parts[0], parts[1]),)


# -- triangles and diagonals -----------------------------------------------------------------------
def diagonal_view(x: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """A writable view of the diagonal (numpy's ``diagonal`` is read-only), its dim last."""
    start = [slice(None)] * x.ndim
    if offset >= 0:
        start[dim2] = slice(min(offset, x.shape[dim2]), None)
    else:
        start[dim1] = slice(min(-offset, x.shape[dim1]), None)
    part = x[tuple(start)]
    n = max(min(part.shape[dim1], part.shape[dim2]), 0)
    keep = [i for i in range(x.ndim) if i not in (dim1, dim2)]
    shape = (*tuple(part.shape[i] for i in keep), n)
    strides = (*tuple(part.strides[i] for i in keep), part.strides[dim1] + part.strides[dim2])
    return np.lib.stride_tricks.as_strided(part, shape, strides,
                                           writeable=part.flags.writeable)


def _diag_embed_into(shape: tuple[int, ...], g: np.ndarray, offset: int, dim1: int,
                     dim2: int) -> np.ndarray:
    out = np.zeros(shape, dtype=g.dtype)
    diagonal_view(out, offset, dim1, dim2)[...] = g
    return out


def _diag_embed_fwd(x: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
    n = x.shape[-1] + abs(offset)
    ndim = x.ndim + 1
    d1, d2 = dim1 % ndim, dim2 % ndim
    rest = iter(x.shape[:-1])
    shape = tuple(n if i in (d1, d2) else next(rest) for i in range(ndim))
    return _diag_embed_into(shape, x, offset, d1, d2)


def _diagonal_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    a = c.attrs
    out = D.diagonal_backward(g, size=tuple(c.shape(0)), offset=a["offset"], dim1=a["dim1"],
                              dim2=a["dim2"])
    return (keep_given(out, a, D),)


def _trace_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch: zeros(numel).index_fill_(0, arange(0, numel, cols + 1), grad).view(sizes)
    rows, cols = c.shape(0)
    index: Any = np.arange(0, rows * cols, cols + 1, dtype=np.int64)[:min(rows, cols)]
    if D.tensor_mode:
        from .autograd import wrap
        index = wrap(index)
    flat = D.index_fill_tensor(D.zeros((rows * cols,), like=g), g, dim=0, index=index)
    return (D.view(flat, shape=(rows, cols)),)


def _index_fill_fwd(x: np.ndarray, *args: Any, dim: int, index: Any, value: Any = None) -> Any:
    out = np.array(x, copy=True)
    v = args[0] if args else value
    key: list[Any] = [slice(None)] * max(out.ndim, 1)
    key[dim] = np.asarray(index).reshape(-1)
    if out.ndim == 0:
        out = out.reshape(1)
        out[key[0]] = v
        return out.reshape(())
    out[tuple(key)] = v
    return out


def _index_fill_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    dim, index = c.attrs["dim"], c.index
    gx = D.index_fill(g, dim=dim, index=index, value=0) if c.needs[0] else None
    if len(c.needs) == 1:
        return (gx,)
    gv = D.sum(D.index_select(g, dim=dim, index=index)) if c.needs[1] else None
    return gx, gv


register(
    Op("sort", "SortBackward0", ("self",), _sort_fwd, _scatter_back, (Save("indices"),),
       ("dim",), extras=("indices",), lift_0d=True),
    Op("sort_stable", "SortBackward1", ("self",), _sort_fwd, _scatter_back, (Save("indices"),),
       ("dim",), extras=("indices",), lift_0d=True),
    Op("topk", "TopkBackward0", ("self",), _topk_fwd, _scatter_back, (Save("indices"),),
       ("dim",), extras=("indices",), lift_0d=True),
    Op("kthvalue", "KthvalueBackward0", ("self",), _kthvalue_fwd, _select_dim_bw,
       (Save("indices"),), ("dim", "keepdim"), extras=("indices",), lift_0d=True),
    Op("mode", "ModeBackward0", ("self",), _mode_fwd, _select_dim_bw,
       (Save("indices"),), ("dim", "keepdim"), extras=("indices",), lift_0d=True),
    Op("amin", "AminBackward0", ("self",),
       lambda x, dim, keepdim=False: np.min(x, axis=tuple(dim) or None, keepdims=keepdim),
       lambda c, g, D: _amax_bw(c, g, D), (Save("result"), Save("self")), ("dim", "keepdim"),
       lift_0d=True),
    Op("cumprod", "CumprodBackward0", ("self",), lambda x, dim: np.cumprod(x, axis=dim),
       _cumprod_bw, (Save("result"), Save("self")), ("dim",), lift_0d=True),
    Op("cummax", "CummaxBackward0", ("self",), _cumulative_arg(np.greater), _cummaxmin_bw,
       (Save("indices"), Save("self")), ("dim",), extras=("indices",), lift_0d=True),
    Op("cummin", "CumminBackward0", ("self",), _cumulative_arg(np.less), _cummaxmin_bw,
       (Save("indices"), Save("self")), ("dim",), extras=("indices",), lift_0d=True),
    Op("logcumsumexp", "LogcumsumexpBackward0", ("self",), _logcumsumexp_fwd,
       _logcumsumexp_bw, (Save("result"), Save("self")), ("dim",), lift_0d=True),
    Op("triu", "TriuBackward0", ("self",), lambda x, diagonal=0: np.triu(x, diagonal),
       lambda c, g, D: (D.triu(g, diagonal=c.attrs["diagonal"]),), (), ("diagonal",)),
    Op("tril", "TrilBackward0", ("self",), lambda x, diagonal=0: np.tril(x, diagonal),
       lambda c, g, D: (D.tril(g, diagonal=c.attrs["diagonal"]),), (), ("diagonal",)),
    Op("diagonal", "DiagonalBackward0", ("self",), diagonal_view, _diagonal_bw, (),
       ("dim1", "dim2", "offset"), view=True),
    # NB: torch.diag of a matrix: a copy of its diagonal, on a node of this name
    Op("diagonal_copy", "DiagonalBackward0_copy", ("self",),
       lambda x, offset, dim1, dim2: diagonal_view(x, offset, dim1, dim2).copy(), _diagonal_bw,
       (), ("dim1", "dim2", "offset")),
    Op("diagonal_backward", "DiagonalBackwardBackward0", ("grad_output",),
       lambda g, size, offset, dim1, dim2: _diag_embed_into(size, g, offset, dim1, dim2),
       lambda c, gg, D: (keep_given(D.diagonal(gg, offset=c.attrs["offset"],
                                               dim1=c.attrs["dim1"], dim2=c.attrs["dim2"]),
                                    c.attrs, D),), (), ("dim1", "dim2", "offset")),
    Op("diag_embed", "DiagEmbedBackward0", ("self",), _diag_embed_fwd,
       lambda c, g, D: (_diagonal_of(g, c.attrs, D),), (), ("dim1", "dim2", "offset")),
    Op("trace", "TraceBackward0", ("self",), lambda x: np.trace(x), _trace_bw),
    Op("index_fill", "IndexFillBackward0", ("self",), _index_fill_fwd, _index_fill_bw,
       (Save("index"),), ("dim",), lift_0d=True),
    Op("index_fill_tensor", "IndexFillBackward1", ("self", "value"), _index_fill_fwd,
       _index_fill_bw, (Save("index"),), ("dim",), lift_0d=True),
)


def _diagonal_of(g: Any, attrs: dict[str, Any], D: Any) -> Any:
    """diag_embed's gradient: the diagonal of ``g`` (a view: DiagonalBackward0), the dims as
    diag_embed was given them."""
    ndim = len(g.shape)
    out = D.diagonal(g, offset=attrs["offset"], dim1=attrs["dim1"] % ndim,
                     dim2=attrs["dim2"] % ndim)
    return keep_given(out, {"@dim1": attrs.get("@dim1", attrs["dim1"]),
                            "@dim2": attrs.get("@dim2", attrs["dim2"])}, D)
