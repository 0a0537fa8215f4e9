"""Table entries: the reductions and pointwise ops of ``mathfns`` (nansum, nanmedian, std_mean /
var_mean, copysign, fmax / fmin, deg2rad / rad2deg, ldexp, mvlgamma, renorm, i0 / special_i1,
nextafter, igamma / igammac, bincount's node, the in-place asinh_ / acosh_ / atanh_)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .ops_pointwise import _not_implemented
from .ops_reduce import (
    _evenly,
    _mean_bw,
    _mean_dim_bw,
    _norm_bw,
    _restore,
    _select_dim_bw,
    _std_bw,
    _var_bw,
    _var_fwd,
)
from .optable import Op, Save, keep_given, register


# -- reductions ----------------------------------------------------------------------------------
def _nansum_fwd(x: Any, dim: Any = None, keepdim: bool = False) -> Any:
    axis = tuple(dim) if dim else None
    out = np.nansum(x, axis=axis, keepdims=keepdim) if x.dtype.kind == "f" else np.sum(
        x, axis=axis, keepdims=keepdim, dtype=np.int64)
    return np.array(out, order="C")


def _nansum_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x, shape = c.self, c.shape(0)
    dim = c.attrs.get("dim")
    if dim:
        g = _restore(g, shape, dim, c.attrs.get("keepdim", False), D, c.attrs.get("@dim"))
    # NB: PyTorch's sum_backward(grad) * self.isnan().logical_not() (x == x: not nan)
    return (D.mul(D.expand(g, size=shape), D.eq(x, x)),)


def _nanmedian_fwd(x: Any) -> Any:
    kept = np.sort(x[~np.isnan(x)], axis=None)
    return kept[(kept.size - 1) // 2] if kept.size else np.array(np.nan, x.dtype)


def _nanmedian_dim_fwd(x: Any, dim: int, keepdim: bool = False) -> Any:
    # NB: the lower median of the values that are not nan (nan sorts last); a row of nan only
    # gives its first nan
    order = np.argsort(x, axis=dim, kind="stable")
    count = np.sum(~np.isnan(x), axis=dim, keepdims=True)
    idx = np.take_along_axis(order, np.maximum(count - 1, 0) // 2, axis=dim)
    out = np.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        out, idx = out.squeeze(dim), idx.squeeze(dim)
    return out, {"indices": idx.astype(np.int64)}


class _Part:
    """The context a reduction's formula reads, for one output of a two-output node."""

    def __init__(self, c: Any, result: Any = None) -> None:
        self.attrs, self.needs, self.tensor_mode = c.attrs, c.needs, c.tensor_mode
        self._c, self.result = c, result

    @property
    def self(self) -> Any:
        return self._c.self

    def shape(self, i: int = 0) -> tuple[int, ...]:
        return self._c.shape(i)


def _var_mean_fwd(std: bool) -> Any:
    def fwd(x: Any, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Any:
        var = _var_fwd(x, dim=dim, correction=correction, keepdim=keepdim)
        axis = tuple(dim) if dim else None
        mean = np.mean(x, axis=axis, keepdims=keepdim) if x.size else np.full(
            np.shape(var), np.nan, x.dtype)
        first = np.sqrt(var) if std else var
        return np.asarray(first, x.dtype), np.asarray(mean, x.dtype)
    return fwd


def _var_mean_bw(std: bool) -> Any:
    def bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
        gv, gm = grads
        out = None
        if gv is not None:
            part = _Part(c, c.result0 if std else None)
            out = (_std_bw if std else _var_bw)(part, gv, D)[0]
        if gm is not None:
            dim = c.attrs.get("dim")
            mean = (_mean_dim_bw if dim and c.shape(0) else _mean_bw)(_Part(c), gm, D)[0]
            out = mean if out is None else D.add(out, mean)
        return (out,)
    return bw


# -- pointwise -----------------------------------------------------------------------------------
def _copysign_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x = c.self
    # NB: PyTorch's grad * (result / self).masked_fill(self == 0, 0)
    with np.errstate(all="ignore"):
        ratio = D.masked_fill(D.div(c.result, x), mask=D.eq(x, D.zeros_like(x)), value=0)
    gx = D.mul(g, ratio) if c.needs[0] else None
    return (gx,) if len(c.needs) == 1 else (gx, D.zeros_like(g) if c.needs[1] else None)


def _copysign_fwd(x: Any, y: Any) -> Any:
    dtype = np.result_type(x, y)
    if dtype.kind != "f":
        dtype = np.dtype(np.float32)
    return np.copysign(x, y).astype(dtype, copy=False)


def _fminmax_bw(key: str) -> Any:
    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        x, y = c.self, c.other
        wins = D.ge(x, y) if key == "max" else D.le(x, y)
        # NB: self wins where it beats other or other is nan, as PyTorch's masks
        keep = D.logical_or(wins, D.isnan(y))
        gy = D.masked_fill(g, mask=keep, value=0) if c.needs[1] else None
        gx = D.masked_fill(g, mask=~keep, value=0) if c.needs[0] else None
        return gx, gy
    return bw


_DEG = math.pi / 180


def _angle_fwd(scale: float) -> Any:
    def fwd(x: Any) -> Any:
        return (x * np.asarray(scale, x.dtype)) if x.dtype.kind == "f" else (
            x.astype(np.float32) * np.float32(scale))
    return fwd


def _nextafter_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch's where(self != other, grad, 0); other's gradient is 0
    go = D.zeros_like(g) if c.needs[1] else None
    gs = D.where(g, D.zeros_like(g), condition=D.ne(c.self, c.other)) if c.needs[0] else None
    return gs, go


def _igamma_float64(a: Any, x: Any, upper: bool) -> Any:
    """The regularized incomplete gamma function P(a, x) (Q = 1 - P where ``upper``), in
    float64: its series below a + 1, its continued fraction (Lentz) above."""
    from . import special_math as sm
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    with np.errstate(all="ignore"):
        log_front = a * np.log(x) - x - sm.lgamma(a)
        ok = (a >= 0) & (x >= 0) & ~np.isnan(a) & ~np.isnan(x)
        series = ok & (x < a + 1) & (a > 0) & (x > 0) & np.isfinite(x)
        s_a, s_x = a[series], x[series]
        term = 1 / s_a
        total = term.copy()
        for n in range(1, 500):
            term = term * s_x / (s_a + n)
            total += term
        p = total * np.exp(log_front[series])
        out[series] = 1 - p if upper else p
        frac = ok & (x >= a + 1) & (a > 0) & np.isfinite(x)
        f_a, f_x = a[frac], x[frac]
        tiny = 1e-300
        b = f_x + 1 - f_a
        c = np.full_like(b, 1 / tiny)
        d = 1 / b
        h = d.copy()
        for i in range(1, 500):
            an = -i * (i - f_a)
            b = b + 2
            d = an * d + b
            d = np.where(np.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            d = 1 / d
            h = h * d * c
        q = np.exp(log_front[frac]) * h
        out[frac] = q if upper else 1 - q
        # NB: the edges as PyTorch gives them: x = 0, a = 0, x = inf
        zero_x = ok & (x == 0) & (a > 0)
        out[zero_x] = 1.0 if upper else 0.0
        zero_a = ok & (a == 0) & (x > 0)
        out[zero_a] = 0.0 if upper else 1.0
        inf_x = ok & np.isinf(x) & (a > 0)
        out[inf_x] = 0.0 if upper else 1.0
    return out


def _igamma_fwd(upper: bool) -> Any:
    def fwd(a: Any, x: Any) -> Any:
        dtype = np.result_type(a, x)
        return _igamma_float64(a, x, upper).astype(dtype)
    return fwd


def _igamma_bw(upper: bool) -> Any:
    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        go = None
        if c.needs[1]:
            # NB: PyTorch's grad * exp((self - 1) * log(other) - other - lgamma(self)), negated
            # for the upper one
            a, x = c.self, c.other
            with np.errstate(all="ignore"):
                density = D.exp(D.sub(D.sub(D.mul(D.sub_scalar(a, other=1), D.log(x)), x),
                                      D.lgamma(a)))
            go = D.mul(D.neg(g) if upper else g, density)
        if c.needs[0]:
            raise NotImplementedError(f"the derivative for '{'igammac' if upper else 'igamma'}: "
                                      "input' is not implemented.")
        return None, go
    return bw


def _inplace_only(name: str) -> Any:
    """PyTorch's in-place inverse hyperbolic functions have no derivative (their node raises)."""
    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        raise NotImplementedError(f"the derivative for 'inplace version of {name}' is not "
                                  "implemented.")
    return bw


def _i1_float64(x: Any) -> Any:
    """The modified Bessel function of the first kind of order 1, in float64: its power series
    up to 30 (positive terms: no cancellation), the asymptotic series beyond."""
    ax = np.abs(np.asarray(x, np.float64))
    out = np.empty_like(ax)
    small = ax <= 30
    h = ax[small] / 2
    term = h.copy()
    total = term.copy()
    for k in range(1, 90):
        term = term * h * h / (k * (k + 1))
        total += term
    out[small] = total
    big = ax[~small]
    if big.size:
        with np.errstate(over="ignore", invalid="ignore"):
            series = np.ones_like(big)
            coef = np.ones_like(big)
            for k in range(1, 25):
                coef = coef * -(4 - (2 * k - 1) ** 2) / (k * 8 * big)
                series += coef
            out[~small] = np.exp(big) / np.sqrt(2 * np.pi * big) * series
    return np.copysign(out, x)


def _bessel(fn: Any) -> Any:
    """``fn`` computed in float64, given in the input's float dtype; inf where PyTorch's kernel
    overflows (its exp(|x|) factor, in that dtype)."""
    def fwd(x: Any) -> Any:
        dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)
        with np.errstate(over="ignore", invalid="ignore"):
            out = fn(x.astype(np.float64))
            limit = math.log(float(np.finfo(dtype).max))
            out = np.where(np.abs(x) > limit, np.copysign(np.inf, out), out)
        return out.astype(dtype)
    return fwd


def _i1_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch's i1_backward: (i0(x) - result / x) away from 0, where it is 0.5; x is
    # replaced by eps where tiny (|x| <= eps) so nothing divides by 0
    x = c.self
    eps = float(np.finfo(c.dtype(0).np).eps)
    zeros = D.zeros_like(x)
    tiny = D.gt(D.abs(x), D.add_scalar(zeros, other=eps))
    safe = D.where(x, D.add_scalar(zeros, other=eps), condition=tiny)
    # NB: the quotient first, as PyTorch's compiled C++ evaluates it
    ratio = D.mul(c.result, D.reciprocal(safe))
    gradx = D.sub(D.i0(safe), ratio)
    return (D.mul(g, D.where(gradx, D.add_scalar(zeros, other=0.5), condition=tiny)),)


def _quiet(fn: Any) -> Any:
    def f(x: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(x)
    return f


def _ldexp_fwd(x: Any, other: Any) -> Any:
    dtype = np.result_type(x, other)
    if dtype.kind != "f":
        dtype = np.dtype(np.float32)
    with np.errstate(all="ignore"):
        return (x.astype(dtype, copy=False) * np.power(2.0, other).astype(dtype)).astype(dtype)


def _ldexp_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch's other: grad * result * ln(2); self: grad * pow(2, other)
    go = D.mul_scalar(D.mul(g, c.result), other=math.log(2.0)) if c.needs[1] else None
    gs = D.mul(g, D.rpow(c.other, self=2)) if c.needs[0] else None
    return gs, go


def _mvlgamma_fwd(x: Any, p: int) -> Any:
    from . import special_math as sm
    args = x[..., None] + np.arange(-p / 2 + 0.5, 0.5, 0.5)[-p:].astype(x.dtype)
    out = np.sum(sm.lgamma(args), axis=-1) + p * (p - 1) / 4 * math.log(math.pi)
    return np.asarray(out, x.dtype)


def _mvlgamma_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch's grad * (arange(-p / 2 + 0.5, 0.5, 0.5) + self.unsqueeze(-1)).digamma_()
    # .sum(-1)
    p, x = c.attrs["p"], c.self
    steps = np.arange(-p / 2 + 0.5, 0.5, 0.5)[-p:]
    if D.tensor_mode:
        from .autograd import wrap
        args = D.add(wrap(steps.astype(c.dtype(0).np)), D.unsqueeze(x, dim=-1))
    else:
        args = steps.astype(x.dtype) + x[..., None]
    return (D.mul(g, keep_given(D.sum_dim(D.digamma(args), dim=(len(args.shape) - 1,),
                                          keepdim=False),
                                {"@dim": (-1,)}, D)),)


def _renorm_factor(x: Any, p: float, dim: int, maxnorm: float) -> tuple[Any, Any]:
    """The norms of the slices along ``dim`` (in double, as PyTorch accumulates a float) and
    the factor each slice is scaled by."""
    axes = tuple(i for i in range(x.ndim) if i != dim)
    acc = x.astype(np.float64)
    if p == math.inf:
        norm = np.max(np.abs(acc), axis=axes, keepdims=True)
    else:
        norm = np.sum(np.abs(acc) ** p, axis=axes, keepdims=True) ** (1.0 / p)
    factor = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return norm, factor


def _renorm_fwd(x: Any, p: float, dim: int, maxnorm: float) -> Any:
    return (x * _renorm_factor(x, p, dim, maxnorm)[1].astype(x.dtype)).astype(x.dtype)


class _NormCtx:
    """The context ``_norm_bw`` reads, for the norm renorm's backward takes."""

    def __init__(self, x: Any, shape: tuple[int, ...], attrs: dict[str, Any], norm: Any) -> None:
        self.self, self._shape, self.attrs, self.result = x, shape, attrs, norm
        self.tensor_mode = False

    def shape(self, i: int = 0) -> tuple[int, ...]:
        return self._shape


def _in_double(key: str, t: Any, kw: dict[str, Any], D: Any) -> Any:
    """``key`` (a norm, a sum) of ``t`` accumulated in double, as PyTorch's ``dtype=`` argument
    gives it: no conversion node."""
    if not D.tensor_mode:
        return getattr(D, key)(t.astype(np.float64), **kw)
    from . import dtypes as dt
    from .autograd import apply
    from .optable import TABLE
    return apply(TABLE[key], (t,), kw, (t._data.astype(np.float64),), dtype=dt.float64)


def _renorm_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch's renorm_backward, op by op: norms and sums accumulated in double
    a, x, shape = c.attrs, c.self, c.shape(0)
    p, dim, maxnorm = a["p"], a["dim"], a["maxnorm"]
    dims = tuple(i for i in range(len(shape)) if i != dim)
    with np.errstate(all="ignore"):
        norm = _in_double("norm", x, {"ord": p, "dim": dims, "keepdim": True}, D)
        summed = _in_double("sum_dim", D.mul(x, g), {"dim": dims, "keepdim": True}, D)
        nb = _norm_bw(_NormCtx(x, shape, {"dim": dims, "keepdim": True, "ord": p}, norm),
                      summed, D)[0]
        invnorm = D.reciprocal(D.add_scalar(norm, other=1e-7))
        # NB: (invnorm * maxnorm) * (grad - invnorm * nb): the right operand first, as
        # PyTorch's compiled C++ evaluates it
        rest = D.sub(g, D.mul(invnorm, nb))
        scaled = D.mul(D.mul_scalar(invnorm, other=maxnorm), rest)
    dtype = c.dtype(0)
    if D.tensor_mode:
        from .functional import to_dtype
        scaled = to_dtype(scaled, dtype)
    else:
        scaled = scaled.astype(dtype.np)
    return (D.where(scaled, g, condition=D.gt(norm, D.add_scalar(D.zeros_like(norm),
                                                                  other=maxnorm))),)


register(
    Op("nansum", "NansumBackward0", ("self",), _nansum_fwd, _nansum_bw, (Save("self"),),
       ("dim", "keepdim"), lift_0d=True),
    Op("nanmedian", "NanmedianBackward0", ("self",), _nanmedian_fwd, _evenly,
       (Save("result"), Save("self"))),
    Op("nanmedian_dim", "NanmedianBackward1", ("self",), _nanmedian_dim_fwd, _select_dim_bw,
       (Save("indices"),), ("dim", "keepdim"), extras=("indices",), lift_0d=True),
    Op("var_mean", "VarMeanBackward0", ("self",), _var_mean_fwd(False), _var_mean_bw(False),
       (Save("self"),), ("correction", "dim", "keepdim"), n_outputs=2, lift_0d=True),
    Op("std_mean", "StdMeanBackward0", ("self",), _var_mean_fwd(True), _var_mean_bw(True),
       (Save("result0", output=0), Save("self")), ("correction", "dim", "keepdim"),
       n_outputs=2, lift_0d=True),
    Op("copysign", "CopysignBackward0", ("self", "other"), _copysign_fwd, _copysign_bw,
       (Save("result", (0,)), Save("self", (0,)))),
    Op("copysign_scalar", "CopysignBackward1", ("self",),
       lambda x, other: _copysign_fwd(x, np.asarray(other, x.dtype if x.dtype.kind == "f"
                                                     else np.float32)),
       _copysign_bw, (Save("result"), Save("self"))),
    Op("fmax", "FmaxBackward0", ("self", "other"), np.fmax, _fminmax_bw("max"),
       (Save("other"), Save("self"))),
    Op("fmin", "FminBackward0", ("self", "other"), np.fmin, _fminmax_bw("min"),
       (Save("other"), Save("self"))),
    Op("deg2rad", "Deg2RadBackward0", ("self",), _angle_fwd(_DEG),
       lambda c, g, D: (D.mul_scalar(g, other=_DEG),)),
    Op("rad2deg", "Rad2DegBackward0", ("self",), _angle_fwd(1 / _DEG),
       lambda c, g, D: (D.mul_scalar(g, other=1 / _DEG),)),
    Op("asinh_", "AsinhBackward1", ("self",), _quiet(np.arcsinh), _inplace_only("asinh")),
    Op("acosh_", "AcoshBackward1", ("self",), _quiet(np.arccosh), _inplace_only("acosh")),
    Op("atanh_", "AtanhBackward1", ("self",), _quiet(np.arctanh), _inplace_only("atanh")),
    # PyTorch regenerates for a view whose base changed)
    Op("ldexp", "LdexpBackward0", ("self", "other"), _ldexp_fwd, _ldexp_bw,
       (Save("other"), Save("result"))),
    Op("mvlgamma", "MvlgammaBackward0", ("self",), _mvlgamma_fwd, _mvlgamma_bw, (Save("self"),),
       ("p",)),
    Op("renorm", "RenormBackward0", ("self",), _renorm_fwd, _renorm_bw, (Save("self"),),
       ("dim", "maxnorm", "p")),
    # NB: no derivative in PyTorch: a node over weights that require grad, which raises
    Op("bincount", "torch::autograd::NotImplemented", ("*tensors",),
       lambda x, w, minlength: np.bincount(x, w, minlength=minlength),
       _not_implemented("bincount")),
    Op("i0", "I0Backward0", ("self",), _bessel(np.i0),
       lambda c, g, D: (D.mul(g, D.special_i1(c.self)),), (Save("self"),)),
    Op("special_i1", "SpecialI1Backward0", ("self",), _bessel(_i1_float64), _i1_bw,
       (Save("result"), Save("self"))),
    Op("nextafter", "NextafterBackward0", ("self", "other"),
       lambda x, y: np.nextafter(x, y, dtype=np.result_type(x, y)), _nextafter_bw,
       (Save("other"), Save("self"))),
    Op("igamma", "IgammaBackward0", ("self", "other"), _igamma_fwd(False), _igamma_bw(False),
       (Save("other"), Save("self"))),
    Op("igammac", "IgammacBackward0", ("self", "other"), _igamma_fwd(True), _igamma_bw(True),
       (Save("other"), Save("self"))),
)
