"""The math functions PyTorch builds from other ops (``trapezoid``, ``cov``, ``corrcoef``,
``nanmean``, ``float_power``, ``diagflat``, ``rot90``, ...), decomposed node for node as PyTorch
decomposes them, with the aliases (``arccos``, ``fix``, ``negative``, ...) and the Tensor methods
of the ops of ``ops_mathfns``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import dtypes as dt
from . import functional as F
from . import messages as msg
from .autograd import apply, apply_inplace, check_inplace
from .optable import TABLE
from .tensor import Tensor

__all__ = ["trapezoid", "trapz", "cumulative_trapezoid", "nanmean", "nansum", "nanmedian",
           "float_power",
           "cov", "corrcoef", "diagflat", "count_nonzero", "fliplr", "flipud", "ravel",
           "std_mean", "var_mean", "copysign", "fmax", "fmin", "deg2rad", "rad2deg", "positive",
           "rot90", "select_scatter", "slice_scatter", "diagonal_scatter", "index_put", "quantile",
           "nanquantile", "ldexp", "mvlgamma", "renorm", "signbit", "gcd", "lcm", "histc",
           "bincount", "block_diag", "cartesian_prod", "combinations", "as_strided", "i0",
           "nextafter", "special_i1", "igamma", "igammac", "METHODS", "ALIASES",
           "INPLACE_FUNCTIONS"]

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
            warnings.warn(f"{key}(): degrees of freedom is <= 0. Correction should be strictly "
                          "less than the reduction factor (input numel divided by output "
                          "numel).", UserWarning, stacklevel=2)
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
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
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


def histc(input: Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:
    """A histogram of ``bins`` equal bins over [min, max] (the data's range where both are 0);
    no graph."""
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"histogram_cpu" not implemented for '
                                  f"'{_name(input._dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    data = input._data.reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc(): max must be larger than min")
    keep = data[(data >= lo) & (data <= hi)]
    # NB: PyTorch's bin, computed in the input's dtype: (x - min) * bins / (max - min), the
    # maximum in the last bin
    t = keep.dtype.type
    pos = ((keep - t(lo)) * t(bins) / (t(hi) - t(lo))).astype(np.int64)
    counts = np.bincount(np.minimum(pos, bins - 1), minlength=bins)
    return Tensor._make(counts.astype(input._dtype.np), input._dtype)


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


def block_diag(*tensors: Tensor) -> Tensor:
    """The inputs (numbers, vectors as rows, matrices) along the diagonal of one matrix (one
    ``BlockDiagBackward0`` node)."""
    for i, t in enumerate(tensors):
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t._data.ndim} dimensions")
    if not tensors:
        return Tensor._make(np.zeros((1, 0), np.float32), dt.float32)
    dtype = F.promote(*tensors)
    return apply(TABLE["block_diag"], tensors, dtype=dtype,
                 arrays=[t._data.astype(dtype.np, copy=False) for t in tensors])


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element of each input, as rows (PyTorch's meshgrid, flatten,
    stack)."""
    from .stacking import meshgrid
    for t in tensors:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape "
                               f"[{', '.join(map(str, t._data.shape))}]")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return F.stack([F.flatten(g) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The ``r``-element combinations of a vector's elements, as rows (PyTorch's meshgrid,
    masked_select by an upper-triangular mask, stack)."""
    from .selecting import masked_select
    from .stacking import meshgrid
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape "
                           f"[{', '.join(map(str, input._data.shape))}]")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(np.zeros((0,), input._dtype.np), input._dtype)
    n = input._data.size
    grids = meshgrid(*([input] * r), indexing="ij")
    idx = np.indices((n,) * r)
    mask = np.ones((n,) * r, bool)
    for k in range(r - 1):
        mask &= (idx[k] <= idx[k + 1]) if with_replacement else (idx[k] < idx[k + 1])
    m = Tensor._make(mask, dt.bool_)
    return F.stack([masked_select(g, m) for g in grids], 1)


# -- shape ---------------------------------------------------------------------------------------
def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A matrix with the flattened input on its ``offset`` diagonal."""
    from .ordering import diag_embed
    return diag_embed(ravel(input), offset)


def fliplr(input: Tensor) -> Tensor:
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input: Tensor) -> Tensor:
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def ravel(input: Tensor) -> Tensor:
    """``contiguous().view(-1)``, as PyTorch (a copy first where the input is not
    contiguous)."""
    return F.view(F.contiguous(input), (-1,))


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """A rotation by ``k`` quarter turns in the plane ``dims`` (one ``Rot90Backward0``)."""
    dims = tuple(dims)
    n = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = F._dim(dims[0], n), F._dim(dims[1], n)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    return F.as_given(apply(TABLE["rot90"], (input,), {"k": k % 4, "dims": (d0, d1)},
                            dtype=input._dtype), k=k, dims=dims)


def _embedded_shape(what: str, expected: tuple[int, ...], src: Tensor) -> None:
    if tuple(src._data.shape) != expected:
        raise RuntimeError(f"expected src to have a size equal to the {what} of self. src "
                           f"size = [{', '.join(map(str, src._data.shape))}], {what} size = "
                           f"[{', '.join(map(str, expected))}]")


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """``input`` with ``src`` written into ``input.select(dim, index)``."""
    d = F._dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"[{', '.join(map(str, input._data.shape))}] at dimension {d}")
    _embedded_shape("slice", input._data.shape[:d] + input._data.shape[d + 1:], src)
    return F.as_given(apply(TABLE["select_scatter"], (input, src), {"dim": d,
                                                                   "index": index % size},
                            dtype=input._dtype), dim=dim, index=index)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: Any = None, end: Any = None,
                  step: int = 1) -> Tensor:
    """``input`` with ``src`` written into ``input[start:end:step]`` along ``dim``."""
    d = F._dim(dim, input._data.ndim)
    s, e, st = slice(start, end, step).indices(input._data.shape[d])
    e = max(e, s)
    shape = list(input._data.shape)
    shape[d] = len(range(s, e, st))
    _embedded_shape("slice", tuple(shape), src)
    return F.as_given(apply(TABLE["slice_scatter"], (input, src), {
        "dim": d, "start": s, "end": e, "step": st}, dtype=input._dtype),
        dim=dim, start=start, end=end)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> Tensor:
    """``input`` with ``src`` written into ``input.diagonal(offset, dim1, dim2)``."""
    n = input._data.ndim
    d1, d2 = F._dim(dim1, n), F._dim(dim2, n)
    _embedded_shape("slice", np.diagonal(input._data, offset, d1, d2).shape, src)
    return F.as_given(apply(TABLE["diagonal_scatter"], (input, src), {
        "offset": offset, "dim1": d1, "dim2": d2}, dtype=input._dtype), dim1=dim1, dim2=dim2)


def _index_put_args(self: Tensor, indices: Any, values: Tensor) -> tuple[Any, ...]:
    """PyTorch's checks of ``index_put``'s indices and values; the indices and the values
    broadcast to the part they are put into."""
    if not isinstance(indices, tuple | list):
        raise TypeError(f"index_put(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    for k, i in enumerate(indices):
        if not isinstance(i, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got "
                            f"{type(i).__name__}")
        if i._dtype not in (dt.int64, dt.int32, dt.uint8, dt.bool_):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if values._dtype is not self._dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_name(self._dtype)} for the destination and {_name(values._dtype)} "
                           "for the source.")
    shape = self._data.shape
    d = 0
    for i in indices:
        if i._dtype is not dt.bool_ and i._data.size:
            size = shape[d]
            hi, lo = int(i._data.max()), int(i._data.min())
            if hi >= size or lo < -size:
                raise IndexError(f"index {hi if hi >= size else lo} is out of bounds for "
                                 f"dimension {d} with size {size}")
        d += i._data.ndim if i._dtype is dt.bool_ else 1
    idx = tuple(indices)
    target = self._data[tuple(i._data for i in idx)].shape
    try:
        vals = values._data if values._data.shape == target else np.broadcast_to(values._data,
                                                                                 target)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape "
                           f"[{', '.join(map(str, values._data.shape))}] cannot be broadcast to "
                           f"indexing result of shape [{', '.join(map(str, target))}]") from None
    return idx, vals


def index_put(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``values`` put at ``indices`` (one ``IndexPutBackward0``)."""
    idx, vals = _index_put_args(input, indices, values)
    return apply(TABLE["index_put"], (input, values), {"indices": idx, "accumulate": accumulate},
                 (input._data, vals), dtype=input._dtype)


def _index_put_(self: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    idx, vals = _index_put_args(self, indices, values)
    return apply_inplace(TABLE["index_put"], self, (values,),
                         {"indices": idx, "accumulate": accumulate}, arrays=(self._data, vals))


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """The sliding windows of ``size`` every ``step`` along ``dimension``, as a new last dim (a
    view: ``UnfoldBackward0``)."""
    shape = self._data.shape
    d = F._dim(dimension, len(shape))
    n = shape[d] if shape else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return F.as_given(apply(TABLE["unfold"], (self,), {"dimension": d, "size": size,
                                                        "step": step}, dtype=self._dtype),
                      dimension=dimension)


# -- in-place views ------------------------------------------------------------------------------
def _view_inplace(t: Tensor, key: str, kw: dict[str, Any] | None = None, **given: Any) -> Tensor:
    """``t`` itself made the view ``key`` of what it was (its data, grad_fn and version
    changed), as PyTorch's in-place view ops (``t_``, ``squeeze_``, ``transpose_``) do."""
    check_inplace(t)
    out = F.as_given(apply(TABLE[key], (t,), kw, dtype=t._dtype), **given)
    t._data = out._data
    t._grad_fn, t._output_nr = out._grad_fn, out._output_nr
    if t._base is not None:
        t._view_fn = out._view_fn
    t._vc.v += 1
    if t._base is not None:
        t._view_version = t._vc.v
    return t


def _t_(self: Tensor) -> Tensor:
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self._data.ndim}D")
    return _view_inplace(self, "t_inplace")


def _transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    n = self._data.ndim
    return _view_inplace(self, "transpose_inplace", {"dim0": F._dim(dim0, n),
                                                     "dim1": F._dim(dim1, n)},
                         dim0=dim0, dim1=dim1)


def _unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _view_inplace(self, "unsqueeze_inplace", {"dim": F._dim(dim, self._data.ndim + 1)},
                         dim=dim)


def _squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    n = self._data.ndim
    if dim is None:
        return _view_inplace(self, "squeeze_inplace")
    if isinstance(dim, tuple | list):
        dims = tuple(F._dim(d, n) for d in dim)
        return _view_inplace(self, "squeeze_inplace_dims", {"dim": dims}, dim=tuple(dim))
    return _view_inplace(self, "squeeze_dims", {"dim": F._dim(dim, n)}, dim=dim)


def _strided(shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> Any:
    """The view function of ``as_strided`` on a C-contiguous array (strides in elements)."""
    def fn(arr: np.ndarray) -> np.ndarray:
        flat = arr.reshape(-1)[offset:]
        return np.lib.stride_tricks.as_strided(flat, shape, tuple(s * arr.itemsize
                                                                  for s in strides),
                                               writeable=arr.flags.writeable)
    return fn


def _storage_offset(t: Tensor) -> int:
    """Where ``t``'s first element lies in its base's memory, in elements."""
    if t._base is None:
        return 0
    start = t._data.__array_interface__["data"][0]
    return (start - t._base._data.__array_interface__["data"][0]) // t._data.itemsize


def as_strided(input: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
    """A view of the tensor's memory with the given sizes and strides (in elements), from
    ``storage_offset`` in its base's memory (by default where the tensor starts)."""
    size, stride = tuple(size), tuple(stride)
    own = _storage_offset(input)
    offset = own if storage_offset is None else int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    storage = input._base._data if input._base is not None else input._data
    need = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) \
        if all(size) else 0
    if need > storage.size:
        raise RuntimeError(f"setStorage: sizes [{', '.join(map(str, size))}], strides "
                           f"[{', '.join(map(str, stride))}], storage offset {offset}, and "
                           f"itemsize {input._data.itemsize} requiring a storage size of "
                           f"{need * input._data.itemsize} are out of bounds for storage of "
                           f"size {storage.nbytes}")
    if not input._data.flags.c_contiguous or offset < own or need > own + input._data.size:
        raise NotImplementedError("as_strided of a non-contiguous tensor, or reaching memory "
                                  "outside the tensor's own elements, is not supported by "
                                  "graphviz_autograd")
    return apply(TABLE["as_strided_view"], (input,), {
        "view_fn": _strided(size, stride, offset - own), "size": size, "stride": stride,
        "storage_offset": storage_offset}, dtype=input._dtype)


def _fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """The main diagonal (all dims equal; a tall matrix wraps every ``cols + 1`` rows with
    ``wrap``) filled in place: a fill through a view of it, as PyTorch."""
    shape = self._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(shape)
    step = sum(self._data.strides) // self._data.itemsize
    if len(shape) == 2 and wrap and shape[0] > shape[1] + 1 and self._data.flags.c_contiguous:
        n = -(-self._data.size // step)
    if len(shape) == 2 and n == min(shape):
        from .ordering import diagonal
        view = diagonal(self)
    elif self._base is None and self._data.flags.c_contiguous:
        view = apply(TABLE["as_strided_view"], (self,), {
            "view_fn": _strided((n,), (step,), 0), "size": (n,), "stride": (step,),
            "storage_offset": 0}, dtype=self._dtype)
    else:
        raise NotImplementedError("fill_diagonal_ of a view is not supported by "
                                  "graphviz_autograd")
    view.fill_(fill_value)
    return self


def _split_with_sizes(self: Tensor, split_sizes: Any, dim: int = 0) -> Any:
    return F.split(self, list(split_sizes), dim)


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
    "cov": cov, "corrcoef": corrcoef, "diagflat": diagflat, "fliplr": fliplr,
    "flipud": flipud, "ravel": ravel,
    "true_divide_": _alias("div_"), "divide_": _alias("div_"), "multiply_": _alias("mul_"),
    "subtract_": _alias("sub_"),
    "copysign": copysign, "copysign_": _copysign_, "fmax": fmax, "fmin": fmin,
    "deg2rad": deg2rad, "rad2deg": rad2deg, "deg2rad_": _floating_("deg2rad"),
    "rad2deg_": _floating_("rad2deg"), "rot90": rot90, "select_scatter": select_scatter,
    "slice_scatter": slice_scatter, "diagonal_scatter": diagonal_scatter,
    "index_put": index_put, "index_put_": _index_put_, "split_with_sizes": _split_with_sizes,
    "unfold": unfold, "quantile": quantile, "nanquantile": nanquantile,
    "ldexp": ldexp, "ldexp_": _ldexp_, "mvlgamma": mvlgamma, "mvlgamma_": _mvlgamma_,
    "renorm": renorm, "renorm_": _renorm_, "signbit": signbit, "gcd": gcd, "lcm": lcm,
    "gcd_": _integer_binary_(gcd), "lcm_": _integer_binary_(lcm), "histc": histc,
    "bincount": bincount, "t_": _t_, "transpose_": _transpose_, "swapaxes_": _transpose_,
    "swapdims_": _transpose_, "as_strided": as_strided,
    "fill_diagonal_": _fill_diagonal_, "i0": i0, "i0_": _floating_("i0"), "atan2_": _atan2_,
    "arctan2_": _atan2_, "nextafter": nextafter, "nextafter_": _nextafter_,
    "igamma": igamma, "igammac": igammac, "igamma_": _igamma_("igamma"),
    "igammac_": _igamma_("igammac"),
    "clip_": _alias("clamp_"), "unsqueeze_": _unsqueeze_, "squeeze_": _squeeze_,
}
for _key in ("asinh", "acosh", "atanh"):
    METHODS[_key + "_"] = _inverse_hyperbolic_(_key)
for _alias_name, _target in ALIASES.items():
    METHODS[_alias_name] = _alias(_target)
    if _alias_name != "arctan2":
        METHODS[_alias_name + "_"] = _alias(_target + "_")
