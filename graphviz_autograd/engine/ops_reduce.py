"""Table entries: reductions (sum, mean, max/min, prod, var/std, norm, logsumexp, cumsum)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .optable import Op, Save, keep_given, register


def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """The dims reduced, wrapped: all of them for None or an empty list (PyTorch's ``dim=[]``)."""
    if not dim:
        return tuple(range(ndim))
    return tuple(sorted(d % max(ndim, 1) for d in dim))


def _restore(g: Any, shape: tuple[int, ...], dim: Any, keepdim: bool, D: Any,
             given: Any = None) -> Any:
    """Give a reduced gradient back its reduced dims (size 1), ready to expand to ``shape``: as
    PyTorch does, an unsqueeze per dim named, none without dims (a 0-d gradient broadcasts).
    ``given``: the dims as the caller gave them, which the node of a single unsqueeze shows."""
    if keepdim or not shape or not dim:
        return g
    dims = _dims(dim, len(shape))
    if given is not None and len(dims) == 1 and D.tensor_mode:
        raw = given[0] if isinstance(given, tuple) else given
        return keep_given(D.unsqueeze(g, dim=dims[0]), {"@dim": raw}, D)
    for d in dims:
        g = D.unsqueeze(g, dim=d)
    return g


def _sum_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    return (D.expand(g, size=c.shape(0)),)


def _sum_dim_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    shape = c.shape(0)
    g = _restore(g, shape, c.attrs["dim"], c.attrs["keepdim"], D, c.attrs.get("@dim"))
    return (D.expand(g, size=shape),)


def _mean_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    shape = c.shape(0)
    n = math.prod(shape)
    if D.tensor_mode:
        return (D.div_scalar(D.expand(g, size=shape), other=n),)
    # NB: on arrays, every element of expand(g) / n is the one value g / n: fill it in
    out = np.empty(shape, g.dtype)
    out.fill(g / n)
    return (out,)


def _mean_dim_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    shape = c.shape(0)
    dims = _dims(c.attrs["dim"], len(shape))
    n = int(np.prod([shape[d] for d in dims], dtype=np.int64)) if shape else 1
    g = _restore(g, shape, c.attrs["dim"], c.attrs["keepdim"], D, c.attrs.get("@dim"))
    return (D.div_scalar(D.expand(g, size=shape), other=n),)


def _evenly(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: ties share the gradient equally, as PyTorch's evenly_distribute_backward does
    x, r = c.self, c.result
    # NB: a nan result came from the nan inputs: they share the gradient
    mask = D.isnan(x) if np.isnan(np.asarray(r)).any() else D.eq(x, r)
    if D.tensor_mode:
        # NB: PyTorch's zeros.masked_fill_(mask, grad / mask.sum()): its nodes
        return (D.masked_fill_tensor(D.zeros(c.shape(0), like=g), D.div(g, D.sum(mask)),
                                     mask=mask),)
    count = max(int(np.count_nonzero(np.asarray(mask))), 1)
    return (D.div_scalar(D.where(D.expand(g, size=c.shape(0)), D.zeros_like(x), condition=mask),
                         other=count),)


def _reduce_dim_fwd(fn: Any, arg: Any) -> Any:
    def fwd(x: Any, dim: int, keepdim: bool = False) -> Any:
        idx = arg(x, axis=dim, keepdims=True)
        out = np.take_along_axis(x, idx, axis=dim)
        if not keepdim:
            out = out.squeeze(dim)
            idx = idx.squeeze(dim)
        return out, {"indices": idx.astype(np.int64)}
    return fwd


def _select_dim_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    shape, dim, keepdim = c.shape(0), c.attrs["dim"], c.attrs["keepdim"]
    # NB: the nodes a create_graph makes show the dim as given (a negative one)
    given = {"@dim": c.attrs.get("@dim", dim)}
    idx = c.indices
    if not keepdim and shape:
        g = keep_given(D.unsqueeze(g, dim=dim % len(shape)), given, D)
        idx = D.unsqueeze(idx, dim=dim % len(shape))
    return (keep_given(D.scatter(D.zeros(shape, like=g), g, dim=dim % max(len(shape), 1),
                                 index=idx), given, D),)


def _median_dim_fwd(x: Any, dim: int, keepdim: bool = False) -> Any:
    # NB: the lower median; among equal values, the one a stable sort puts there (PyTorch's)
    order = np.argsort(x, axis=dim, kind="stable")
    idx = np.take(order, [(x.shape[dim] - 1) // 2], axis=dim)
    nan = np.isnan(x)
    if nan.any():                      # NB: a row with a nan has a nan median: the first one
        idx = np.where(nan.any(axis=dim, keepdims=True), np.argmax(nan, axis=dim, keepdims=True),
                       idx)
    out = np.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        out, idx = out.squeeze(dim), idx.squeeze(dim)
    return out, {"indices": idx.astype(np.int64)}


def _scatter_fwd(x: Any, src: Any, dim: int, index: Any) -> Any:
    out = x.copy()
    if np.shape(src) != index.shape:
        # NB: a source larger than the index gives only the part the index reaches
        src = np.asarray(src)[tuple(slice(0, n) for n in index.shape)]
    # NB: an index smaller than the input writes only where it reaches (numpy would broadcast)
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    out[tuple(grid)] = src
    return out


def _scatter_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch's grad.scatter(dim, index, 0) and grad.gather(dim, index), the second first
    idx, dim = c.index, c.attrs["dim"]
    gsrc = D.gather(gg, dim=dim, index=idx) if c.needs[1] else None
    return (D.scatter_value(gg, dim=dim, index=idx, value=0) if c.needs[0] else None, gsrc)


def _prod_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x, r = c.self, c.result
    shape = c.shape(0)
    if not shape:
        return (g,)                    # NB: as PyTorch: a 0-d input gets the gradient as is
    dim, keepdim = c.attrs.get("dim"), c.attrs.get("keepdim", False)
    if dim is not None:
        g = _restore(g, shape, (dim,), keepdim, D)
        r = _restore(r, shape, (dim,), keepdim, D)
    # NB: valid where x != 0; zeros fall back to the product of the others
    if not D.tensor_mode and np.any(x == 0):
        axis = None if dim is None else dim
        others = _prod_others(x, axis)
        return (np.broadcast_to(g, shape) * others,)
    if D.tensor_mode and np.any(x._data == 0):
        if dim is None:
            # NB: PyTorch's order: the input flattened, its gradient viewed back
            flat = D.view(x, shape=(-1,)) if x._data.flags.c_contiguous else \
                D.reshape(x, shape=(-1,))
            return (D.view(_prod_safe_zeros(D, g, flat, 0), shape=shape),)
        return (_prod_safe_zeros(D, g, x, dim % len(shape)),)
    return (D.mul(g, D.div(r, x)),)


def _prod_safe_zeros(D: Any, g: Any, x: Any, dim: int) -> Any:
    """PyTorch's gradient of a product where an element is zero, as a graph: the products of
    the elements before and after each (exclusive cumulative products, from each end)."""
    n = x._data.shape[dim]
    size = list(x._data.shape)
    size[dim] = 1
    ones = D.ones_like(D.zeros(tuple(size), like=x))
    before = D.cumprod(D.cat(ones, D.slice(x, dim=dim, start=0, end=n - 1), dim=dim), dim=dim)
    tail = D.flip(D.slice(x, dim=dim, start=1, end=n), dims=(dim,))
    after = D.flip(D.cumprod(D.cat(ones, tail, dim=dim), dim=dim), dims=(dim,))
    return D.mul(g, D.mul(before, after))


def _prod_others(x: np.ndarray, axis: int | None) -> np.ndarray:
    if x.ndim == 0:
        return np.ones_like(x)         # the product of no others
    flat = x.reshape(-1) if axis is None else np.moveaxis(x, axis, -1)
    n = flat.shape[-1]
    out = np.empty_like(flat)
    for i in range(n):
        out[..., i] = np.prod(np.delete(flat, i, axis=-1), axis=-1)
    return out.reshape(x.shape) if axis is None else np.moveaxis(out, -1, axis)


def _var_fwd(x: Any, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Any:
    corr = 1 if correction is None else correction
    axis = tuple(dim) if dim else None
    # NB: no degrees of freedom left gives nan or inf, with PyTorch's warning (given by the
    # caller), not numpy's
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.var(x, axis=axis, ddof=corr, keepdims=keepdim)


def _var_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x, shape = c.self, c.shape(0)
    dim, keepdim = c.attrs.get("dim"), c.attrs.get("keepdim", False)
    corr = c.attrs.get("correction")
    corr = 1 if corr is None else corr
    if not shape or dim is None:
        mean = D.mean(x) if shape else x
        dof = math.prod(shape) - corr
        if dof > 0:
            # NB: (2 / dof) * grad * (self - mean): the right operand first, as PyTorch's C++
            centred = D.sub(x, mean)
            return (D.mul(D.mul_scalar(g, other=2.0 / dof), centred),)
        # NB: 2 / 0 times x - mean, as PyTorch gives it: nan where x is the mean, else inf
        ones = D.ones_like(x)
        return (D.mul(g, D.where(D.mul_scalar(ones, other=math.nan),
                                 D.mul_scalar(ones, other=math.inf), condition=D.eq(x, mean))),)
    if len(shape) > 1:
        # NB: PyTorch unsqueezes only here: a 1-d input's 0-d gradient broadcasts
        g = _restore(g, shape, dim, keepdim, D, c.attrs.get("@dim"))
    # NB: as in PyTorch, n is the product of the sizes of the dims named: 1 for dim=[]
    n = math.prod(shape[d] for d in dim)
    mean = keep_given(D.mean_dim(x, dim=_dims(dim, len(shape)), keepdim=True),
                      {"@dim": c.attrs.get("@dim", dim)}, D)
    scale = 2.0 / (n - corr) if n != corr else math.inf
    centred = D.sub(x, mean)
    return (D.mul(D.mul_scalar(g, other=scale), centred),)


def _std_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    r = c.result
    # NB: where the std is 0 the gradient is 0, not nan (PyTorch masks it)
    gv = D.masked_fill(D.div(g, D.mul_scalar(r, other=2)), mask=D.eq(r, D.zeros_like(r)),
                       value=0)
    return _var_bw(c, gv, D)


def _norm_fwd(x: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False) -> Any:
    axis = tuple(dim) if dim else None
    if ord == 2:
        return np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdim))
    if ord == float("inf"):
        return np.max(np.abs(x), axis=axis, keepdims=keepdim)
    if ord == -float("inf"):
        return np.min(np.abs(x), axis=axis, keepdims=keepdim)
    if ord == 0:
        return np.sum(x != 0, axis=axis, keepdims=keepdim).astype(x.dtype)
    if ord == 1:
        return np.sum(np.abs(x), axis=axis, keepdims=keepdim)
    with np.errstate(divide="ignore"):
        return np.sum(np.abs(x) ** ord, axis=axis, keepdims=keepdim) ** (1.0 / ord)


def _norm_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    """PyTorch's norm_backward, op by op (so create_graph builds its nodes), for every p."""
    x, shape = c.self, c.shape(0)
    attrs = c.attrs
    # NB: LinalgVectorNormBackward0 names the order ``ord``, NormBackward1 ``p``
    dim, keepdim = attrs.get("dim"), attrs.get("keepdim", False)
    p = attrs.get("ord", attrs.get("p", 2))
    r = _restore(c.result, shape, dim, keepdim, D)
    g = _restore(g, shape, dim, keepdim, D)
    p = float(p)
    with np.errstate(all="ignore"):
        if p == 0:
            # NB: PyTorch's formula gives no gradient at all (the input's grad stays None)
            return (None,)
        if p == 1:
            return (D.mul(D.sgn(x), g),)
        if p == 2:
            # NB: a zero norm gives a zero gradient (PyTorch masks x / 0)
            return (D.mul(g, D.masked_fill(D.div(x, r), mask=D.eq(r, D.zeros_like(r)),
                                           value=0)),)
        if math.isinf(p):
            # NB: the elements at the max (or nan) share the gradient
            ax = D.abs(x)
            mask = D.logical_or(D.eq(ax, r), D.isnan(ax))
            count = D.sum_dim(mask, dim=_dims(dim, len(shape)), keepdim=True)
            shared = D.mul(D.div(g, count), mask)
            return (D.mul(D.sgn(x), shared),)
        # NB: PyTorch's C++ computes a product's right operand first (its compiler's order)
        zero = D.eq(r, D.zeros_like(r))
        if p < 1:
            powered = D.masked_fill(D.pow(D.abs(x), exponent=p - 1),
                                    mask=D.eq(x, D.zeros_like(x)), value=0)
            scaled = D.mul(D.sgn(x), powered)
            right = D.pow(r, exponent=1 - p)
            return (D.mul(D.mul(scaled, g), right),)
        if p < 2:
            powered = D.pow(D.abs(x), exponent=p - 1)
            scaled = D.mul(D.sgn(x), powered)
        else:
            scaled = D.mul(x, D.pow(D.abs(x), exponent=p - 2))
        scale = D.masked_fill(D.div(g, D.pow(r, exponent=p - 1)), mask=zero, value=0)
        return (D.mul(scaled, scale),)


def _lse_fwd(x: Any, dim: Any, keepdim: bool = False) -> Any:
    axis = tuple(dim) or None
    if x.size == 0:
        with np.errstate(divide="ignore"):       # NB: the log of an empty sum: -inf
            return np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdim))
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdim else np.squeeze(out, axis=axis)


def _lse_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    shape = c.shape(0)
    dim, keepdim = c.attrs["dim"], c.attrs.get("keepdim", False)
    given = c.attrs.get("@dim")
    r = _restore(c.result, shape, dim, keepdim, D, given)
    g = _restore(g, shape, dim, keepdim, D, given)
    return (D.mul(g, D.exp(D.sub(c.self, r))),)


def _cumsum_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    d = c.attrs["dim"]
    shape = c.shape(0)
    if int(np.prod(shape)) <= 1 or shape[d] == 1:
        return (g,)               # NB: PyTorch's trivial case: the gradient as it is
    return (D.flip(D.cumsum(D.flip(g, dims=(d,)), dim=d), dims=(d,)),)


def _mean_all(x: np.ndarray) -> Any:
    # NB: np.mean is a Python-level function; a reduce and a division are faster
    if x.size == 0:
        return np.array(np.nan, dtype=x.dtype)
    return np.add.reduce(x, axis=None) / x.size


def _sum_dim_fwd(x: Any, dim: Any, keepdim: bool = False) -> Any:
    out = np.sum(x, axis=tuple(dim) or None, keepdims=keepdim)
    # NB: PyTorch's result is contiguous, with the row-major strides even of its dims of size 1;
    # numpy's follows a permuted input's layout (a later reshape would then alias where
    # PyTorch's views, and a later elementwise op lay its result out otherwise, as einsum's)
    step = out.itemsize
    for n, s in zip(reversed(out.shape), reversed(out.strides), strict=True):
        if s != step:
            return out.copy()
        step *= n
    return out


register(
    Op("sum", "SumBackward0", ("self",), lambda x: np.sum(x), _sum_bw),
    Op("sum_dim", "SumBackward1", ("self",), _sum_dim_fwd,
       _sum_dim_bw, (), ("dim", "keepdim"), lift_0d=True),
    Op("mean", "MeanBackward0", ("self",), lambda x: _mean_all(x), _mean_bw),
    Op("mean_dim", "MeanBackward1", ("self",),
       lambda x, dim, keepdim=False: np.mean(x, axis=tuple(dim) or None, keepdims=keepdim),
       _mean_dim_bw, (), ("dim", "keepdim"), lift_0d=True),
    Op("max", "MaxBackward1", ("self",), lambda x: np.max(x), _evenly,
       (Save("result"), Save("self"))),
    Op("min", "MinBackward1", ("self",), lambda x: np.min(x), _evenly,
       (Save("result"), Save("self"))),
    Op("median", "MedianBackward0", ("self",),
       lambda x: np.sort(x, axis=None)[(x.size - 1) // 2] if x.size and not np.isnan(x).any()
       else np.array(np.nan, x.dtype),
       _evenly,
       (Save("result"), Save("self"))),
    Op("amax", "AmaxBackward0", ("self",),
       lambda x, dim, keepdim=False: np.max(x, axis=tuple(dim) or None, keepdims=keepdim),
       lambda c, g, D: _amax_bw(c, g, D), (Save("result"), Save("self")), ("dim", "keepdim"),
       lift_0d=True),
    Op("max_dim", "MaxBackward0", ("self",), _reduce_dim_fwd(np.max, np.argmax),
       _select_dim_bw, (Save("indices"),), ("dim", "keepdim"), extras=("indices",),
       lift_0d=True),
    Op("min_dim", "MinBackward0", ("self",), _reduce_dim_fwd(np.min, np.argmin),
       _select_dim_bw, (Save("indices"),), ("dim", "keepdim"), extras=("indices",),
       lift_0d=True),
    Op("median_dim", "MedianBackward1", ("self",), _median_dim_fwd, _select_dim_bw,
       (Save("indices"),), ("dim", "keepdim"), extras=("indices",), lift_0d=True),
    Op("scatter", "ScatterBackward0", ("self", "src"), _scatter_fwd, _scatter_bw,
       (Save("index"),), ("dim",), lift_0d=True),
    Op("prod", "ProdBackward0", ("self",), lambda x: np.prod(x), _prod_bw,
       (Save("result"), Save("self"))),
    Op("prod_dim", "ProdBackward1", ("self",),
       lambda x, dim, keepdim=False: np.prod(x, axis=dim, keepdims=keepdim), _prod_bw,
       (Save("result"), Save("self")), ("dim", "keepdim"), lift_0d=True),
    Op("var", "VarBackward0", ("self",), _var_fwd, _var_bw, (Save("self"),),
       ("correction", "dim", "keepdim"), lift_0d=True),
    Op("std", "StdBackward0", ("self",), lambda x, **kw: np.sqrt(_var_fwd(x, **kw)), _std_bw,
       (Save("result"), Save("self")), ("correction", "dim", "keepdim"), lift_0d=True),
    Op("norm", "LinalgVectorNormBackward0", ("self",), _norm_fwd, _norm_bw,
       (Save("result"), Save("self")), ("dim", "keepdim", "ord"), lift_0d=True),
    Op("logsumexp", "LogsumexpBackward0", ("self",), _lse_fwd, _lse_bw,
       (Save("result"), Save("self")), ("dim", "keepdim"), lift_0d=True),
    Op("cumsum", "CumsumBackward0", ("self",), lambda x, dim: np.cumsum(x, axis=dim),
       _cumsum_bw, (), ("dim",), lift_0d=True),
)


def _amax_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    shape = c.shape(0)
    dim, keepdim = c.attrs["dim"], c.attrs.get("keepdim", False)
    dims = _dims(dim, len(shape))
    r = c.result
    if not keepdim and (shape or D.tensor_mode):
        # NB: PyTorch restores the reduced dims with one view here (the dims as given: none
        # for ``amax()``, a view of the 0-d gradient as 0-d, which broadcasts)
        kept = tuple(1 if i in dims else n for i, n in enumerate(shape)) if dim else ()
        g, r = D.view(g, shape=kept), D.view(r, shape=kept)
    return (scale_grad_by_count(D, g, c.self, r, dims),)


def scale_grad_by_count(D: Any, g: Any, x: Any, r: Any, dims: Any) -> Any:
    """PyTorch's gradient of a max or min kept by every element equal to it:
    ``(grad / count) * mask`` (where the max is nan, count is 0 and all get nan)."""
    # NB: PyTorch's mask is boolean and its count int64 (what their nodes save); on arrays a
    # float mask keeps numpy from promoting to float64
    mask = D.eq(x, r) if D.tensor_mode else \
        D.where(D.ones_like(x), D.zeros_like(x), condition=D.eq(x, r))
    return D.mul(D.div(g, D.sum_dim(mask, dim=dims, keepdim=True)), mask)
