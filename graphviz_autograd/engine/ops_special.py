"""Table entries: fused elementwise ops (addcmul, addcdiv, lerp) and the special functions
(erf, erfinv, lgamma, digamma, polygamma, xlogy of a number, hypot, logaddexp, sinc, frac,
nan_to_num, heaviside)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import special_math as sm
from .ops_pointwise import _not_implemented
from .optable import Op, Save, register

# NB: PyTorch's generated backward computes the inputs' gradients in the order of their names
# (lerp: end, self, weight), the order its create_graph nodes are made in


def _addcmul_fwd(x: Any, t1: Any, t2: Any, value: Any = 1) -> Any:
    # NB: PyTorch's CPU kernel is one fused multiply-add: (value * t1) * t2 + x, rounded once
    dtype = np.result_type(x, t1, t2)
    if dtype.kind != "f":
        return x + value * t1 * t2
    return sm.fma((value * t1).astype(dtype), t2, x)


def _addcmul_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    v = c.attrs["value"]
    g1 = D.mul(g, D.mul_scalar(c.tensor2, other=v)) if c.needs[1] else None
    g2 = D.mul(g, D.mul_scalar(c.tensor1, other=v)) if c.needs[2] else None
    return (g if c.needs[0] else None), g1, g2


def _addcdiv_fwd(x: Any, t1: Any, t2: Any, value: Any = 1) -> Any:
    with np.errstate(all="ignore"):
        # NB: PyTorch's CPU kernel: x + (value * t1) / t2
        return x + (value * t1) / t2


def _addcdiv_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    v = c.attrs["value"]
    g2 = g1 = None
    if c.needs[1]:
        g1 = D.mul(g, D.div(v, c.tensor2))
    if c.needs[2]:
        t2 = c.tensor2
        # NB: -grad * (value * tensor1 / (tensor2 * tensor2)), the divisor first as PyTorch's
        # compiled C++ evaluates it
        sq = D.mul(t2, t2)
        g2 = D.mul(D.neg(g), D.div(D.mul_scalar(c.tensor1, other=v), sq))
    return (g if c.needs[0] else None), g1, g2


def _lerp_fwd(x: Any, end: Any, weight: Any) -> Any:
    # NB: PyTorch's two-sided formula (exact at weight 0 and 1), each side one fused
    # multiply-add in its CPU kernel
    diff = end - x
    w = np.asarray(weight, dtype=x.dtype)
    return np.where(np.abs(w) < 0.5, sm.fma(w, diff, x), sm.fma(-diff, 1 - w, end))


def _lerp_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    w = c.attrs["weight"]
    ge = D.mul_scalar(g, other=w) if c.needs[1] else None
    return (D.mul_scalar(g, other=1 - w) if c.needs[0] else None), ge


def _lerp_t_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    ge = D.mul(g, c.weight) if c.needs[1] else None
    gs = D.mul(g, D.sub(1, c.weight)) if c.needs[0] else None
    gw = D.mul(g, D.sub(c.end, c.self)) if c.needs[2] else None
    return gs, ge, gw


_SQRT_PI = math.sqrt(math.pi)


def _erf_bw(sign: float) -> Any:
    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        e = D.exp(D.neg(D.pow(c.self, exponent=2)))
        return (D.mul(D.mul_scalar(e, other=sign * 2.0 / _SQRT_PI), g),)
    return bw


def _erfinv_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    e = D.exp(D.pow(D.erfinv(c.self), exponent=2))
    return (D.mul(D.mul_scalar(e, other=0.5 * _SQRT_PI), g),)


def _xlogy(x: Any, y: Any) -> Any:
    # NB: a number on either side takes the array's dtype
    dtype = np.result_type(x, y)
    x, y = np.asarray(x, dtype), np.asarray(y, dtype)
    with np.errstate(all="ignore"):
        out = x * np.log(y)
        out = np.where(x == 0, np.zeros((), out.dtype), out)
        return np.where(np.isnan(y), y, out)


def _xlogy_self_bw(c: Any, g: Any, D: Any, other: float) -> Any:
    # NB: xlogy(grad, other), zeroed where self == 0 when other <= 0 (PyTorch makes the
    # masked_fill only then)
    out = D.xlogy_scalar(g, other=other)
    if other <= 0:
        out = D.masked_fill(out, mask=D.eq(c.self, 0), value=0.0)
    return out


def _hypot_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    go = D.div(D.mul(g, c.other), c.result) if c.needs[1] else None
    return (D.div(D.mul(g, c.self), c.result) if c.needs[0] else None), go


def _logaddexp_bw(two: bool) -> Any:
    def part(D: Any, d: Any) -> Any:
        return D.add_scalar(D.rpow(d, self=2) if two else D.exp(d), other=1)

    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        x, y = c.self, c.other
        go = D.div(g, part(D, D.sub(x, y))) if c.needs[1] else None
        return (D.div(g, part(D, D.sub(y, x))) if c.needs[0] else None), go
    return bw


def _sinc_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x = c.self
    xpi = D.mul_scalar(x, other=math.pi)
    sq = D.mul_scalar(D.mul(x, x), other=math.pi)
    sin = D.sin(xpi)        # NB: before the product, as PyTorch's compiled C++ evaluates it
    out = D.mul(g, D.div(D.sub(D.mul(xpi, D.cos(xpi)), sin), sq))
    return (D.where(D.zeros_like(out), out, condition=D.eq(sq, 0)),)


def _sinc(x: Any) -> Any:
    with np.errstate(invalid="ignore"):
        return np.sinc(x)


def _frac(x: Any) -> Any:
    with np.errstate(invalid="ignore"):
        return x - np.trunc(x)


def _nan_to_num_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x = c.self
    # NB: grad * isfinite(self)
    return (D.mul(g, D.logical_and(D.lt(x, np.inf), D.gt(x, -np.inf))),)


def _unary(key: str, name: str, fwd: Any, bw: Any, save: bool = True,
           attrs: tuple[str, ...] = ()) -> Op:
    return Op(key, name, ("self",), fwd, bw, (Save("self"),) if save else (), attrs,
              exact=False)


register(
    Op("addcmul", "AddcmulBackward0", ("self", "tensor1", "tensor2"), _addcmul_fwd,
       _addcmul_bw, (Save("tensor1", (2,)), Save("tensor2", (1,))), ("value",)),
    Op("addcdiv", "AddcdivBackward0", ("self", "tensor1", "tensor2"), _addcdiv_fwd,
       _addcdiv_bw, (Save("tensor1", (2,)), Save("tensor2")), ("value",)),
    Op("lerp", "LerpBackward0", ("self", "end"), _lerp_fwd, _lerp_bw, (), ("weight",)),
    Op("lerp_tensor", "LerpBackward1", ("self", "end", "weight"), _lerp_fwd, _lerp_t_bw,
       (Save("end", (2,)), Save("self", (2,)), Save("weight", (0, 1)))),
    _unary("erf", "ErfBackward0", sm.erf, _erf_bw(1.0)),
    _unary("erfc", "ErfcBackward0", sm.erfc, _erf_bw(-1.0)),
    _unary("erfinv", "ErfinvBackward0", sm.erfinv, _erfinv_bw),
    _unary("lgamma", "LgammaBackward0", sm.lgamma,
           lambda c, g, D: (D.mul(g, D.digamma(c.self)),)),
    _unary("digamma", "DigammaBackward0", sm.digamma,
           lambda c, g, D: (D.mul(g, D.polygamma(c.self, n=1)),)),
    _unary("polygamma", "PolygammaBackward0", lambda x, n: sm.polygamma(n, x),
           lambda c, g, D: (D.mul(g, D.polygamma(c.self, n=c.attrs["n"] + 1)),), attrs=("n",)),
    # NB: xlogy of two tensors (XlogyBackward0) is ops_loss_extra's; a number as other
    # (XlogyBackward2) or as self (XlogyBackward1) has no slot
    Op("xlogy_scalar", "XlogyBackward2", ("self",), lambda x, other: _xlogy(x, other),
       lambda c, g, D: (_xlogy_self_bw(c, g, D, c.attrs["other"]),), (Save("self"),),
       ("other",)),
    Op("xlogy_of_scalar", "XlogyBackward1", ("other",), lambda y, self: _xlogy(self, y),
       lambda c, g, D: (D.div(D.mul_scalar(g, other=c.attrs["self"]), c.other),),
       (Save("other"),), ("self",)),
    Op("hypot", "HypotBackward0", ("self", "other"), np.hypot, _hypot_bw,
       (Save("other", (1,)), Save("result"), Save("self", (0,)))),
    Op("logaddexp", "LogaddexpBackward0", ("self", "other"), np.logaddexp,
       _logaddexp_bw(False), (Save("other"), Save("self"))),
    Op("logaddexp2", "Logaddexp2Backward0", ("self", "other"), np.logaddexp2,
       _logaddexp_bw(True), (Save("other"), Save("self"))),
    _unary("sinc", "SincBackward0", _sinc, _sinc_bw),
    _unary("frac", "FracBackward0", _frac, lambda c, g, D: (g,), save=False),
    _unary("nan_to_num", "NanToNumBackward0",
           lambda x, nan=0.0, posinf=None, neginf=None: np.nan_to_num(
               x, nan=nan, posinf=posinf, neginf=neginf), _nan_to_num_bw),
    # NB: no derivative in PyTorch: a node over the inputs that require grad, which raises
    Op("heaviside", "torch::autograd::NotImplemented", ("*tensors",),
       lambda x, v: np.heaviside(x, v), _not_implemented("heaviside")),
)
