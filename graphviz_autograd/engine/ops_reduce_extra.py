"""Table entries: aminmax (AminmaxBackward0), narrow_copy (NarrowCopyBackward0) and the scatter
with a reduction (scatter_reduce: ScatterReduceBackward0)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ops_reduce import scale_grad_by_count
from .optable import Op, Save, no_double_backward, register


# -- aminmax -----------------------------------------------------------------------------------
def _aminmax_fwd(x: np.ndarray, dim: int | None = None, keepdim: bool = False) -> Any:
    return (np.min(x, axis=dim, keepdims=keepdim), np.max(x, axis=dim, keepdims=keepdim))


def _aminmax_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    shape = c.shape(0)
    dim, keepdim = c.attrs.get("dim"), c.attrs.get("keepdim", False)
    dims = tuple(range(len(shape))) if dim is None else (dim % max(len(shape), 1),)
    total = None
    for g, r in ((grads[0], c.min), (grads[1], c.max)):
        if g is None:
            continue
        if not keepdim and (shape or D.tensor_mode):
            # NB: PyTorch restores the reduced dim with one view (of the 0-d gradient as 0-d
            # where no dim is given)
            kept = tuple(1 if i in dims else n for i, n in enumerate(shape)) \
                if dim is not None else ()
            g, r = D.view(g, shape=kept), D.view(r, shape=kept)
        term = scale_grad_by_count(D, g, c.self, r, dims if shape else ())
        total = term if total is None else D.add(total, term)
    return (total,)


# -- narrow_copy -------------------------------------------------------------------------------
def _narrow_copy_fwd(x: np.ndarray, dim: int, start: int, length: int) -> np.ndarray:
    key: list[Any] = [slice(None)] * x.ndim
    key[dim] = slice(start, start + length)
    return np.ascontiguousarray(x[tuple(key)]).copy()


def _narrow_copy_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    a = c.attrs
    # NB: PyTorch: slice_backward of the gradient into the input's shape, from the start as
    # given: a negative start that ends at or past 0 slices nothing there, and raises
    dim, start, length = a["dim"], a.get("@start", a["start"]), a["length"]
    size = c.shape(0)[dim]
    lo, hi, _ = slice(start, start + length).indices(size)
    if max(hi - lo, 0) != length:
        raise RuntimeError(f"The size of tensor a ({max(hi - lo, 0)}) must match the size of "
                           f"tensor b ({length}) at non-singleton dimension {dim}")
    return (D.slice_backward(g, size=c.shape(0), dim=dim, start=lo, end=lo + length, step=1),)


# -- scatter_reduce ----------------------------------------------------------------------------
def _grid(index: np.ndarray, dim: int) -> tuple[Any, ...]:
    grid: list[Any] = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _scatter_reduce_fwd(x: np.ndarray, src: np.ndarray, dim: int, index: Any, reduce: str,
                        include_self: bool = True) -> np.ndarray:
    index = np.asarray(index)
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    src = src[tuple(slice(0, n) for n in index.shape)] if src.ndim else src
    at = _grid(index, dim) if x.ndim else (index.reshape(-1)[:0],)
    out = x.copy()
    if x.ndim == 0:
        out = out.reshape(1)
        at = (np.zeros(index.size, dtype=np.int64),)
        src = np.asarray(src).reshape(-1)
    hit = np.zeros(out.shape, dtype=bool)
    hit[at] = True
    if not include_self:
        fill: Any = {"sum": 0, "mean": 0, "prod": 1}.get(reduce)
        if fill is None:
            fill = -np.inf if reduce == "amax" else np.inf
            if not np.issubdtype(out.dtype, np.floating):
                info = np.iinfo(out.dtype)
                fill = info.min if reduce == "amax" else info.max
        out[hit] = fill
    if reduce in ("sum", "mean"):
        np.add.at(out, at, src)
    elif reduce == "prod":
        np.multiply.at(out, at, src)
    elif reduce == "amax":
        np.maximum.at(out, at, src)
    else:
        np.minimum.at(out, at, src)
    if reduce == "mean":
        count = np.zeros(out.shape, dtype=out.dtype) if not include_self else np.ones(
            out.shape, dtype=out.dtype)
        np.add.at(count, at, np.ones(np.shape(src), dtype=out.dtype))
        count[count == 0] = 1
        out = out / count if np.issubdtype(out.dtype, np.floating) else out // count
    return out.reshape(x.shape)


def _scatter_reduce_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("ScatterReduceBackward0")
    a = c.attrs
    dim, reduce, include = a["dim"], a["reduce"], a.get("include_self", True)
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', "
                           f"'amin' but got {reduce}.")
    index = np.asarray(c.index)
    x, src, res = c.self, c.src, c.result
    lifted = x.ndim == 0
    if lifted:
        x, res, g = x.reshape(1), res.reshape(1), np.asarray(g).reshape(1)
        at: tuple[Any, ...] = (np.zeros(index.size, dtype=np.int64),)
        src = src.reshape(-1)
    else:
        at = _grid(index, dim)
        src = src[tuple(slice(0, n) for n in index.shape)] if src.ndim else src
    if reduce == "sum":
        gx, gs = g, g[at]
    elif reduce == "mean":
        n = np.ones_like(g) if include else np.zeros_like(g)
        np.add.at(n, at, np.ones_like(src))
        n[n == 0] = 1
        gx = g / n
        gs = gx[at]
    elif reduce == "prod":
        masked_x = np.where(x == 0, 1, x)
        mres = _scatter_reduce_fwd(masked_x, src, 0 if lifted else dim, index if not lifted
                                   else index.reshape(-1), "prod", include)
        gx = g * mres / masked_x
        src_zero = src == 0
        zeros = np.zeros_like(x)
        np.add.at(zeros, at, src_zero.astype(x.dtype))
        single = src_zero & (zeros[at] == 1)
        sres = _scatter_reduce_fwd(x, np.where(single, 1, src), 0 if lifted else dim,
                                   index if not lifted else index.reshape(-1), "prod", include)
        gs = np.where(single, (g * sres)[at], (g * res)[at] / np.where(src_zero, 1, src))
    else:
        value = res[at]
        x_is = (x == res).astype(x.dtype)
        s_is = (src == value).astype(x.dtype)
        n = x_is.copy()
        np.add.at(n, at, s_is)
        share = g / n
        gx = x_is * share
        gs = s_is * share[at]
    if not include:
        gx = gx.copy()
        gx[at] = 0
    if c.needs[1]:
        full = np.zeros(c.shape(1), dtype=gs.dtype)
        if lifted:
            full = gs.reshape(c.shape(1))
        else:
            full[tuple(slice(0, n) for n in index.shape)] = gs
        gs = full
    return (np.asarray(gx).reshape(c.shape(0)) if c.needs[0] else None,
            gs if c.needs[1] else None)


register(
    Op("aminmax", "AminmaxBackward0", ("self",), _aminmax_fwd, _aminmax_bw,
       (Save("max", output=1), Save("min", output=0), Save("self")), ("dim", "keepdim"),
       n_outputs=2),
    Op("narrow_copy", "NarrowCopyBackward0", ("self",), _narrow_copy_fwd, _narrow_copy_bw, (),
       ("dim", "length", "start")),
    Op("scatter_reduce", "ScatterReduceBackward0", ("self", "src"), _scatter_reduce_fwd,
       _scatter_reduce_bw, (Save("index"), Save("result"), Save("self"), Save("src")),
       ("dim", "include_self", "reduce")),
)


def _legacy_fwd(x: np.ndarray, src: Any, dim: int, index: Any, reduce: str) -> np.ndarray:
    key = "sum" if reduce == "add" else "prod"
    index = np.asarray(index)
    src = np.broadcast_to(np.asarray(src, dtype=x.dtype), index.shape) if np.ndim(src) == 0 \
        else src
    return _scatter_reduce_fwd(x, src, dim, index, key, True)


def _legacy_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    raise RuntimeError("derivative for aten::scatter is not implemented")


register(
    # NB: scatter(..., reduce=) has no derivative in PyTorch: a node that raises when reached
    Op("scatter_reduce_legacy", "torch::autograd::NotImplemented", ("*tensors",), _legacy_fwd,
       _legacy_bw),
)
