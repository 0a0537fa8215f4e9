"""The math functions PyTorch has beyond the basics: reductions and statistics (``nansum``,
``nanmean``, ``std_mean``, ``quantile``, ``cov``, ``corrcoef``, ``trapezoid``, ...), pointwise
functions (``float_power``, ``copysign``, ``fmax``, ``ldexp``, ``i0``, ``igamma``, ...) and the
aliases (``arccos``, ``fix``, ``negative``, the ``torch.X_`` in-place functions), decomposed node
for node as PyTorch decomposes them or recorded through the table (``ops_mathfns``); with the
shape functions of ``shaping``, the Tensor methods of both."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as dt
from . import functional as F
from . import messages as msg
from . import shaping
from .autograd import apply, apply_inplace
from .optable import TABLE
from .tensor import Tensor

__all__ = ["trapezoid", "trapz", "cumulative_trapezoid", "nanmean", "nansum", "nanmedian",
           "count_nonzero", "std_mean", "var_mean", "cov", "corrcoef", "quantile", "nanquantile",
           "float_power", "copysign", "fmax", "fmin", "deg2rad", "rad2deg", "positive", "ldexp",
           "mvlgamma", "renorm", "signbit", "gcd", "lcm", "bincount", "i0", "special_i1",
           "nextafter", "igamma", "igammac", "METHODS", "ALIASES", "INPLACE_FUNCTIONS"]

# PyTorch's alias names: alias -> the engine's method
ALIASES = {"arccos": "acos", "arcsin": "asin", "arctan": "atan", "arctan2": "atan2",
           "arccosh": "acosh", "arcsinh": "asinh", "arctanh": "atanh", "negative": "neg",
           "fix": "trunc"}
# the in-place functions PyTorch exposes as ``torch.X_`` (each calls ``Tensor.X_``)
INPLACE_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "addmv_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_",
    "clamp_max_", "clamp_min_", "cos_", "cosh_", "detach_", "exp2_", "exp_", "expm1_", "fill_",
    "floor_", "log10_", "log1p_", "log2_", "log_", "neg_", "reciprocal_", "round_", "rsqrt_",
    "sin_", "sinh_", "sqrt_", "tan_", "trunc_", "zero_", "arccos_", "arcsin_", "arctan_",
    "arccosh_", "arcsinh_", "arctanh_", "negative_", "fix_", "deg2rad_", "rad2deg_", "gcd_",
    "lcm_", "ldexp_", "clip_", "i0_")


def _name(d: dt.DType) -> str:
    return msg.SCALAR_NAME.get(d.name, d.name)


# -- integration ---------------------------------------------------------------------------------
def _spacing(x: Tensor, y: Tensor, d: int) -> Tensor:
    """``x[1:] - x[:-1]`` along ``d``; a 1-d ``x`` is viewed along ``d`` first, as PyTorch."""
    if x._data.ndim == 1:
        if x._data.shape[0] != y._data.shape[d]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        sizes = [1] * y._data.ndim
        sizes[d] = -1
        x = F.view(x, tuple(sizes))
    elif x._data.ndim != y._data.ndim:
        raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
    return F.sub(_slice(x, d, 1, None), _slice(x, d, 0, -1))


def _slice(t: Tensor, dim: int, start: int, end: Any) -> Tensor:
    # NB: PyTorch's slice(dim, 1) keeps no end (its node shows None), and a -1 end as given
    return F.as_given(F.slice_(t, dim, start, end), end=end)


def _scalar_op(key: str, t: Tensor, v: Any) -> Tensor:
    """``t * v`` / ``t / v`` as ATen's scalar overloads (MulBackward1, DivBackward1)."""
    dtype = F.promote(t, F.scalar_tensor(v))
    if key == "div_scalar":
        dtype = F._float(dtype)
    return apply(TABLE[key], (t,), {"other": v}, dtype=dtype)


def _sides(y: Tensor, dim: int) -> Tensor:
    return F.add(_slice(y, dim, 0, -1), _slice(y, dim, 1, None))


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``, with spacing ``dx`` or sample points ``x``.

    >>> import graphviz_autograd.torch as torch
    >>> torch.trapezoid(torch.tensor([1.0, 2.0, 4.0]))
    tensor(4.5000)
    """
    if isinstance(x, Tensor):
        if dx is not None:
            raise RuntimeError("trapezoid: received both x and dx")
        d = F._dim(dim, y._data.ndim)
        if y._data.shape[d] == 0:
            return F.sum(F.mul(y, 0), d)
        return _scalar_op("div_scalar", F.sum(F.mul(_sides(y, d), _spacing(x, y, d)), d), 2.0)
    if x is not None:
        raise _bad_args("trapezoid", y, x)
    dx = 1.0 if dx is None else float(dx)
    if y._data.shape[F._dim(dim, y._data.ndim)] == 0:
        return F.sum(F.mul(y, 0), dim)
    ends = F.add(F.select(y, dim, 0), F.select(y, dim, -1))
    return _scalar_op("mul_scalar", F.sub(F.sum(y, dim), _scalar_op("mul_scalar", ends, 0.5)),
                      dx)


def _bad_args(name: str, y: Any, x: Any) -> TypeError:
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"({type(y).__name__}, {type(x).__name__}), but expected one of:\n"
                     " * (Tensor y, Tensor x, *, int dim = -1)\n"
                     " * (Tensor y, *, Number dx = 1, int dim = -1)\n")


def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running trapezoidal rule along ``dim`` (one element fewer along it)."""
    if isinstance(x, Tensor):
        if dx is not None:
            raise RuntimeError("cumulative_trapezoid: received both x and dx")
        d = F._dim(dim, y._data.ndim)
        return _scalar_op("div_scalar", _cumsum(F.mul(_sides(y, d), _spacing(x, y, d)), d), 2.0)
    if x is not None:
        raise _bad_args("cumulative_trapezoid", y, x)
    dx = 1.0 if dx is None else float(dx)
    return _cumsum(_scalar_op("mul_scalar", _sides(y, dim), dx / 2), dim)


def _cumsum(t: Tensor, dim: int) -> Tensor:
    return t.cumsum(dim)


# -- nan-ignoring reductions ---------------------------------------------------------------------
def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The sum, nan counted as 0 (one ``NansumBackward0`` node)."""
    # NB: a dtype converts inside the kernel (no ToCopyBackward0 node)
    out_dtype = dtype if dtype is not None else (
        input._dtype if input._dtype.is_floating_point else dt.int64)
    arr = input._data if dtype is None else input._data.astype(dtype.np)
    dims = F.reduce_dims(dim, input._data.ndim)
    return F.as_given(apply(TABLE["nansum"], (input,), {"dim": dims, "keepdim": keepdim},
                            (arr,), dtype=out_dtype), dim=F.given_dims(dim))


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *,
            dtype: Any = None) -> Tensor:
    """The mean of the non-nan elements: ``nansum / count`` (PyTorch's two nodes)."""
    if not input._dtype.is_floating_point:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but "
                           f"got {_name(input._dtype)}")
    dims = F.reduce_dims(dim, input._data.ndim)
    notnan = ~np.isnan(input._data)
    axis = dims if dims else None
    count = Tensor._make(np.asarray(np.sum(notnan, axis=axis, keepdims=keepdim), np.int64),
                         dt.int64)
    return F.div(nansum(input, dim, keepdim, dtype=dtype), count)


def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median of the values that are not nan (``NanmedianBackward0``); along ``dim``:
    values and indices (``NanmedianBackward1``)."""
    return F.max_min("nanmedian", input, dim, keepdim)


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    dims = F.reduce_dims(dim, input._data.ndim)
    out = np.count_nonzero(input._data, axis=None if dims is None else dims)
    return Tensor._make(np.asarray(out, np.int64), dt.int64)


def _var_mean(key: str) -> Any:
    def f(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
          correction: Any = None) -> Any:
        if isinstance(dim, bool):
            unbiased, dim = dim, None
        if correction is None and unbiased is not None:
            correction = 1 if unbiased else 0
        if not input._dtype.is_floating_point:
            raise RuntimeError(f"{key} only support floating point and complex dtypes")
        dims = F.reduce_dims(dim, input._data.ndim)
        shape = input._data.shape
        factor = input._data.size if not dims or not shape else int(
            np.prod([shape[d] for d in dims]))
        if factor - (1 if correction is None else correction) <= 0:
            msg.warn_user(f"{key}(): degrees of freedom is <= 0. Correction should be strictly "
                          "less than the reduction factor (input numel divided by output "
                          "numel).", UserWarning)
        outs = apply(TABLE[key], (input,), {"dim": dims, "correction": correction,
                                            "keepdim": keepdim}, dtype=input._dtype)
        return F.as_given(tuple(outs), dim=F.given_dims(dim))
    f.__name__ = key
    return f


std_mean = _var_mean("std_mean")
var_mean = _var_mean("var_mean")


# -- statistics ----------------------------------------------------------------------------------
def _cov_weights(name: str, w: Tensor, observations: int) -> None:
    if w._data.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} "
                           f"with {w._data.ndim} dimensions")
    integral = name == "fweights"
    if w._dtype.is_floating_point == integral or w._dtype is dt.bool_:
        kind = "integral" if integral else "floating point"
        raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                           f"{_name(w._dtype)} dtype")
    if w._data.size != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {w._data.size} != {observations}")
    if observations and w._data.min() < 0:
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input: Tensor, *, correction: int = 1, fweights: Any = None,
        aweights: Any = None) -> Tensor:
    """The covariance of the rows (variables) over the columns (observations), as PyTorch
    composes it: weighted mean, centre, ``mm`` with the (weighted) transpose, divide, squeeze."""
    n = input._data.ndim
    if n > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {n} dimensions")
    if input._dtype is dt.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input if n == 2 else F.reshape(input, (1, -1))
    observations = x._data.shape[1]
    w = None
    if fweights is not None:
        _cov_weights("fweights", fweights, observations)
        w = fweights
    if aweights is not None:
        _cov_weights("aweights", aweights, observations)
        w = aweights if w is None else F.mul(w, aweights)
    if w is None:
        w_sum = Tensor._make(np.asarray(observations, np.int64), dt.int64)
    else:
        w_sum = F.sum(w)
        if w_sum._data == 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = F.div(F.sum(x if w is None else F.mul(x, w), 1), w_sum)
    if w is not None and aweights is not None and correction != 0:
        scaled = _scalar_op("mul_scalar", F.sum(F.mul(w, aweights)), correction)
        norm = F.sub(w_sum, F.div(scaled, w_sum))
    elif correction == 0:
        norm = w_sum
    else:
        norm = Tensor._make(np.asarray(w_sum._data - correction), w_sum._dtype)
    if norm._data <= 0:
        msg.warn_user("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning)
        norm = norm.zero_() if norm.requires_grad else Tensor._make(np.zeros_like(norm._data),
                                                                    norm._dtype)
    xm = F.sub(x, F.unsqueeze(avg, 1))
    c = F.mm(xm, F.t_(xm if w is None else F.mul(xm, w)))
    return F.squeeze(F.div(c, norm))


def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients: ``cov`` scaled by the standard deviations, clamped to
    [-1, 1]."""
    c = cov(input)
    if c._data.ndim == 0:
        return F.div(c, c)
    from .ordering import diagonal
    std = F.unary("sqrt", diagonal(c))
    c = F.div(c, F.view(std, (-1, 1)))
    c = F.div(c, F.view(std, (1, -1)))
    return F.clamp(c, -1, 1)


# -- quantiles -----------------------------------------------------------------------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_q(input: Tensor, q: Any) -> Tensor:
    if isinstance(q, Tensor):
        if q._data.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q._dtype is not input._dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        if q._data.size and not ((q._data >= 0) & (q._data <= 1)).all():
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
        return q
    if not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    return Tensor._make(np.asarray(q, input._dtype.np), input._dtype)


def _quantile(input: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:
    """PyTorch's quantile, step for step: sort, view as rows, gather the ranks below and above,
    lerp between them in place, then squeeze (and move the quantiles first) in place."""
    if input._data.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if not input._dtype.is_floating_point or input._dtype is dt.float16:
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    qt = _quantile_q(input, q)
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    from .ordering import sort
    shape = list(input._data.shape)
    if dim is None:
        out_shape = [1] * len(shape) if keepdim else []
        ordered = sort(F.flatten(input))[0]
    else:
        d = F._dim(dim, len(shape))
        out_shape = list(shape)
        if shape:
            if keepdim:
                out_shape[d] = 1
            else:
                del out_shape[d]
        if d == len(shape) - 1 or not shape:
            ordered = sort(input)[0]
        else:
            ordered = sort(F.transpose(F.unsqueeze(input, -1), d, -1))[0]
    out_shape.insert(0, qt._data.size if qt._data.ndim else 1)
    ordered = F.view(ordered, (*out_shape[1:], ordered._data.shape[-1]))
    values, qv = ordered._data, qt._data
    with np.errstate(invalid="ignore"):
        if ignore_nan:
            count = np.sum(~np.isnan(values), axis=-1, keepdims=True)
            ranks = qv * (count - 1).astype(values.dtype)
            ranks = np.where(ranks < 0, np.zeros((), values.dtype), ranks)
        else:
            last = values.shape[-1] - 1
            ranks, nan = np.broadcast_arrays(qv * values.dtype.type(last),
                                             np.isnan(values).any(-1, keepdims=True))
            ranks = np.where(nan, values.dtype.type(last), ranks)
    rounding: Any = {"lower": np.floor, "higher": np.ceil, "nearest": np.round}.get(interpolation)
    if rounding is not None:
        ranks = rounding(ranks)
    below = ranks.astype(np.int64)
    out = F.gather(ordered, -1, Tensor._make(below, dt.int64))
    if interpolation in ("linear", "midpoint"):
        weights = np.full_like(ranks, 0.5) if interpolation == "midpoint" else (
            ranks - below.astype(ranks.dtype))
        above = F.gather(ordered, -1, Tensor._make(np.ceil(ranks).astype(np.int64), dt.int64))
        out.lerp_(above, Tensor._make(np.ascontiguousarray(weights), input._dtype))
    if qt._data.ndim == 0:
        return F._squeeze_inplace_dim(out, -1)
    out = _unsqueeze_inplace(out, 0)
    return F._squeeze_inplace_dim(F.transpose_inplace(out, 0, -1), -1)


def _unsqueeze_inplace(t: Tensor, dim: int) -> Tensor:
    """``t.unsqueeze_(dim)`` on a tensor no one else sees (UnsqueezeBackward1)."""
    out = apply(TABLE["unsqueeze_inplace"], (t,), {"dim": dim})
    out._base = out._view_fn = None
    out._vc.v += 1
    return out


def quantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The ``q``-th quantiles along ``dim`` (all elements: ``dim=None``).

    >>> import graphviz_autograd.torch as torch
    >>> torch.quantile(torch.tensor([1.0, 2.0, 4.0, 8.0]), 0.5)
    tensor(3.)
    """
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """``quantile`` ignoring nan (all nan: nan)."""
    return _quantile(input, q, dim, keepdim, interpolation, True)


# -- pointwise -----------------------------------------------------------------------------------
def float_power(input: Any, exponent: Any) -> Tensor:
    """``pow`` in double precision: the tensors converted to float64 first."""
    if not isinstance(input, Tensor):
        e = _double(F.as_tensor_arg(exponent))
        return F.pow(float(input), e)
    base = _double(input)
    if isinstance(exponent, Tensor):
        return F.pow(base, _double(exponent))
    return F.pow(base, float(exponent))


def copysign(input: Tensor, other: Any) -> Tensor:
    """``input``'s magnitudes with ``other``'s signs (``CopysignBackward0``; a number other:
    ``CopysignBackward1``)."""
    if isinstance(other, Tensor):
        return F._quiet(F.binary)("copysign", input, other, floating=True)
    dtype = F._float(F.promote(input, F.scalar_tensor(other)))
    return F._quiet(apply)(TABLE["copysign_scalar"], (input,), {"other": other}, dtype=dtype)


def _copysign_(self: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return F._quiet(F.binary_)("copysign", self, other)
    return F._quiet(apply_inplace)(TABLE["copysign_scalar"], self, (), {"other": other})


def _fminmax(key: str) -> Any:
    def f(input: Tensor, other: Tensor) -> Tensor:
        if not isinstance(other, Tensor):
            raise TypeError(f"{key}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        return F.binary(key, input, other)
    f.__name__ = key
    return f


fmax = _fminmax("fmax")
fmin = _fminmax("fmin")


def deg2rad(input: Tensor) -> Tensor:
    return F.unary("deg2rad", input)


def rad2deg(input: Tensor) -> Tensor:
    return F.unary("rad2deg", input)


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next floating-point value after ``input`` towards ``other`` (NextafterBackward0)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"nextafter(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    dtype = F.promote(input, other)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{_name(dtype)}\'')
    return F.binary("nextafter", input, other)


def _nextafter_(self: Tensor, other: Tensor) -> Tensor:
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f'"nextafter_cpu" not implemented for '
                                  f"'{_name(self._dtype)}'")
    return F.binary_("nextafter", self, other)


def _igamma(key: str) -> Any:
    def f(input: Tensor, other: Tensor) -> Tensor:
        if not isinstance(other, Tensor):
            raise TypeError(f"{key}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        dtype = F.promote(input, other)
        if not dtype.is_floating_point:
            raise NotImplementedError(f'"igamma_cpu" not implemented for \'{_name(dtype)}\'')
        return F._quiet(F.binary)(key, input, other)
    f.__name__ = key
    return f


igamma = _igamma("igamma")
igammac = _igamma("igammac")


def _igamma_(key: str) -> Any:
    def m(self: Tensor, other: Tensor) -> Tensor:
        if not self._dtype.is_floating_point:
            raise NotImplementedError(f'"igamma_cpu" not implemented for '
                                      f"'{_name(self._dtype)}'")
        return F._quiet(F.binary_)(key, self, other)
    return m


def i0(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 0 (``I0Backward0``)."""
    return F._quiet(F.unary)("i0", input)


def special_i1(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 1 (``SpecialI1Backward0``)."""
    return F._quiet(F.unary)("special_i1", input)


def _floating_(key: str) -> Any:
    """An in-place unary op whose result is floating: refused on an integer tensor."""
    def m(self: Tensor) -> Tensor:
        if not self._dtype.is_floating_point:
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{_name(self._dtype)}")
        return F.unary_(key, self)
    m.__name__ = key + "_"
    return m


def _double(t: Tensor) -> Tensor:
    return t if t._dtype is dt.float64 else F.to_dtype(t, dt.float64)


def _float_power_(self: Tensor, exponent: Any) -> Tensor:
    if self._dtype is not dt.float64:
        raise RuntimeError("the base given to float_power_ has dtype "
                           f"{_name(self._dtype)} but the operation's result requires dtype "
                           "Double")
    if isinstance(exponent, Tensor):
        return self.pow_(_double(exponent))
    return self.pow_(float(exponent))


def positive(input: Tensor) -> Tensor:
    if input._dtype is dt.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """``input * 2 ** other`` (one ``LdexpBackward0`` node)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"ldexp(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    F._check_broadcast(input, other)
    dtype = F._float(F.promote(input, other))
    return F._quiet(apply)(TABLE["ldexp"], (input, other), dtype=dtype)


def _ldexp_(self: Tensor, other: Tensor) -> Tensor:
    return F._quiet(apply_inplace)(TABLE["ldexp"], self, (other,))


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension ``p``."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if not input._dtype.is_floating_point:
        raise RuntimeError("mvlgamma is not implemented for integer tensors")
    return F._quiet(apply)(TABLE["mvlgamma"], (input,), {"p": p}, dtype=input._dtype)


def _mvlgamma_(self: Tensor, p: int) -> Tensor:
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return F._quiet(apply_inplace)(TABLE["mvlgamma"], self, (), {"p": p})


def _renorm_args(input: Tensor, p: Any, dim: int, maxnorm: Any) -> dict[str, Any]:
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input._data.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got "
                           f"{input._data.ndim} dimensions")
    return {"p": p, "dim": F._dim(dim, input._data.ndim), "maxnorm": maxnorm}


def renorm(input: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    """Each slice along ``dim`` scaled down to a ``p``-norm of at most ``maxnorm``."""
    return F.as_given(apply(TABLE["renorm"], (input,), _renorm_args(input, p, dim, maxnorm),
                            dtype=input._dtype), dim=dim)


def _renorm_(self: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    return apply_inplace(TABLE["renorm"], self, (), _renorm_args(self, p, dim, maxnorm))


def signbit(input: Tensor) -> Tensor:
    return Tensor._make(np.signbit(input._data), dt.bool_)


def _integer_binary(key: str, fn: Any) -> Any:
    def f(input: Tensor, other: Tensor) -> Tensor:
        dtype = F.promote(input, other)
        if dtype.is_floating_point or dtype is dt.bool_:
            raise NotImplementedError(f'"{key}_cpu" not implemented for \'{_name(dtype)}\'')
        F._check_broadcast(input, other)
        return Tensor._make(np.asarray(fn(input._data, other._data)).astype(dtype.np), dtype)
    f.__name__ = key
    return f


gcd = _integer_binary("gcd", np.gcd)
lcm = _integer_binary("lcm", np.lcm)


def _integer_binary_(fn: Any) -> Any:
    def m(self: Tensor, other: Tensor) -> Tensor:
        from .indexing import copy_
        out = fn(self, other)
        F._check_output(self._data.shape, out._data.shape)
        return copy_(self, out)
    return m


def bincount(input: Tensor, weights: Any = None, minlength: int = 0) -> Tensor:
    """How often each non-negative integer occurs (summed ``weights`` if given); no graph."""
    data = input._data
    if data.ndim != 1 or input._dtype.is_floating_point or input._dtype is dt.bool_ or (
            data.size and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return Tensor._make(np.bincount(data, minlength=minlength).astype(np.int64), dt.int64)
    dtype = dt.float32 if weights._dtype is dt.float32 else dt.float64
    graph = [weights] if weights.requires_grad else []
    return apply(TABLE["bincount"], graph, {"minlength": minlength},
                 (data, weights._data.astype(dtype.np)), dtype=dtype)


def _inverse_hyperbolic_(key: str) -> Any:
    def m(self: Tensor) -> Tensor:
        if not self._dtype.is_floating_point:
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{_name(self._dtype)}")
        return F._quiet(apply_inplace)(TABLE[key + "_"], self)
    m.__name__ = key + "_"
    return m


def _atan2_(self: Tensor, other: Tensor) -> Tensor:
    return F._quiet(F.binary_)("atan2", self, other)


def _alias(name: str) -> Any:
    def m(self: Tensor, *args: Any, **kw: Any) -> Any:
        return getattr(self, name)(*args, **kw)
    return m


METHODS: dict[str, Any] = {
    "__pos__": positive, "nansum": nansum, "nanmean": nanmean, "nanmedian": nanmedian,
    "count_nonzero": count_nonzero,
    "float_power": float_power, "float_power_": _float_power_, "positive": positive,
    "cov": cov, "corrcoef": corrcoef,
    "true_divide_": _alias("div_"), "divide_": _alias("div_"), "multiply_": _alias("mul_"),
    "subtract_": _alias("sub_"),
    "copysign": copysign, "copysign_": _copysign_, "fmax": fmax, "fmin": fmin,
    "deg2rad": deg2rad, "rad2deg": rad2deg, "deg2rad_": _floating_("deg2rad"),
    "rad2deg_": _floating_("rad2deg"), "quantile": quantile, "nanquantile": nanquantile,
    "ldexp": ldexp, "ldexp_": _ldexp_, "mvlgamma": mvlgamma, "mvlgamma_": _mvlgamma_,
    "renorm": renorm, "renorm_": _renorm_, "signbit": signbit, "gcd": gcd, "lcm": lcm,
    "gcd_": _integer_binary_(gcd), "lcm_": _integer_binary_(lcm),
    "bincount": bincount, "i0": i0, "i0_": _floating_("i0"), "atan2_": _atan2_,
    "arctan2_": _atan2_, "nextafter": nextafter, "nextafter_": _nextafter_,
    "igamma": igamma, "igammac": igammac, "igamma_": _igamma_("igamma"),
    "igammac_": _igamma_("igammac"),
    "clip_": _alias("clamp_"),
    **shaping.METHODS,
}
for _key in ("asinh", "acosh", "atanh"):
    METHODS[_key + "_"] = _inverse_hyperbolic_(_key)
for _alias_name, _target in ALIASES.items():
    METHODS[_alias_name] = _alias(_target)
    if _alias_name != "arctan2":
        METHODS[_alias_name + "_"] = _alias(_target + "_")
