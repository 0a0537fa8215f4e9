"""Table entries: elementwise ops (arithmetic, activations, comparisons-with-gradient)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dtypes import result_type
from .optable import Backward, Op, Save, register

# Broadcasting is undone in one place (the executor reduces each gradient to its input's shape),
# so the formulas below may return gradients of the broadcast shape.


def _scaled(g: Any, alpha: Any, D: Any) -> Any:
    return g if alpha == 1 else D.mul_scalar(g, other=alpha)


def _add_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    return (g if c.needs[0] else None,
            _scaled(g, c.attrs.get("alpha", 1), D) if c.needs[1] else None)


def _sub_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    alpha = c.attrs.get("alpha", 1)
    return (g if c.needs[0] else None,
            # NB: PyTorch's maybe_multiply(-grad, alpha): a negation, then the product
            (D.neg(g) if alpha == 1 else D.mul_scalar(D.neg(g), other=alpha))
            if c.needs[1] else None)


# NB: PyTorch's generated backward of a two-input op with a formula per input computes the
# second input's gradient first (the order its create_graph nodes are made in, so the order a
# backward through them runs in)
def _mul_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    go = D.mul(g, c.self) if c.needs[1] else None
    return (D.mul(g, c.other) if c.needs[0] else None), go


def _div_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    other = c.other
    go = None
    if c.needs[1]:
        # NB: -grad * ((self / other) / other): the right operand first, as PyTorch's C++
        ratio = D.div(D.div(c.self, other), other)
        go = D.mul(D.neg(g), ratio)
    gs = D.div(g, other) if c.needs[0] else None
    return gs, go


def _mod(x: Any, y: Any) -> Any:
    with np.errstate(all="ignore"):
        return np.mod(x, y)


def _fmod(x: Any, y: Any) -> Any:
    with np.errstate(all="ignore"):
        return np.fmod(x, y)


def _div_mode_fwd(x: Any, y: Any, rounding_mode: str) -> Any:
    with np.errstate(all="ignore"):
        if rounding_mode == "floor":
            return np.floor_divide(x, y)
        return np.trunc(np.true_divide(x, y))


def _div_mode_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: a rounded quotient is flat: zeros for both (PyTorch's div_tensor_*_backward)
    return (D.zeros_like(g) if c.needs[0] else None, D.zeros_like(g) if c.needs[1] else None)


def _rounding_bw(mode: str) -> Backward:
    """remainder (floor) and fmod (trunc): self's gradient is grad, other's is
    ``-grad * self.div(other, rounding_mode=mode)``, as PyTorch's."""
    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        go = D.mul(D.neg(g), D.div_mode(c.self, c.other, rounding_mode=mode)) \
            if c.needs[1] else None
        return (g if c.needs[0] else None), go
    return bw


def _not_implemented(name: str) -> Backward:
    """The backward of PyTorch's ``torch::autograd::NotImplemented`` node (an op with no
    derivative whose input requires grad): it raises when reached."""
    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return bw


def _pow_scalar(x: Any, exponent: Any) -> Any:
    """``x ** exponent`` as PyTorch's CPU kernel computes it: the exponents it special-cases
    (3, -2, -0.5) by multiplication, division and square root, bit for bit, in float32 and
    float64 (numpy's ``power`` rounds differently); the rest by ``power``."""
    if type(x) is np.ndarray and x.dtype.kind == "f" and x.dtype.itemsize >= 4:
        if exponent == 3:
            return x * x * x
        if exponent == -2:
            return 1 / (x * x)
        if exponent == -0.5:
            return 1 / np.sqrt(x)
    return np.power(x, exponent)


def _pow_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    e = c.attrs["exponent"]
    if e == 0:
        return (D.zeros_like(g),)
    if e == 2 and not D.tensor_mode:
        # NB: x ** 1 is x exactly: the same values without the power (the square's backward)
        return (D.mul(g, D.mul_scalar(c.self, other=2)),)
    # NB: PyTorch's exponent - 1 and its product are doubles (MulBackward1 shows 3.0)
    return (D.mul(g, D.mul_scalar(D.pow(c.self, exponent=float(e) - 1), other=float(e))),)


# NB: a 0-d one per float dtype: numpy subtracts from it faster than from the Python number
_ONE = {np.dtype(d): np.ones((), d) for d in (np.float16, np.float32, np.float64)}
for _one in _ONE.values():
    _one.flags.writeable = False


def _tanh_backward(g: Any, r: Any) -> Any:
    return g * (_ONE.get(r.dtype, 1) - r * r)


def _power(x: Any, e: Any) -> Any:
    """``x ** e``; integers to negative integer powers as PyTorch computes them (numpy refuses):
    1 for a base of 1, 1 or -1 for a base of -1 (even or odd power), else 0."""
    if np.asarray(e).dtype.kind not in "iu" or np.asarray(x).dtype.kind not in "iu" \
            or not np.any(np.asarray(e) < 0):
        return np.power(x, e)
    xa, ea = np.asarray(x), np.asarray(e)
    neg = ea < 0
    out = np.power(xa, np.where(neg, 0, ea))
    small = np.where(xa == 1, 1, np.where(xa == -1, np.where(ea % 2 == 0, 1, -1), 0))
    return np.where(neg, small, out).astype(out.dtype)


def _pow_tt_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x, e = c.self, c.exponent
    gx = ge = None
    if c.needs[1]:
        # NB: 0 where the base is 0 and the exponent >= 0 (not 0 * log 0), as in PyTorch; the
        # base in the promoted dtype first (a copy node where it differs)
        base = x
        if c.dtype(0) is not c.dtype(1):
            promoted = result_type([c.dtype(i) for i in (0, 1) if c.shape(i)],
                                   [c.dtype(i) for i in (0, 1) if not c.shape(i)], [])
            if promoted is not c.dtype(0):
                base = D.to_copy(x, dtype=promoted.np)
        ge = D.mul(g, D.where(D.zeros_like(c.result), D.mul(c.result, D.log(base)),
                              condition=D.logical_and(D.eq(x, D.zeros_like(x)),
                                                      D.ge(e, D.zeros_like(e)))))
    if c.needs[0]:
        gx = D.where(D.zeros_like(g), D.mul(g, D.mul(e, D.pow_tensor(x, D.sub_scalar(e, other=1)))),
                     condition=D.eq(e, 0))
    return gx, ge


def _rpow_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    base = c.attrs["self"]
    if base == 0:
        # NB: as above: 0 where the exponent >= 0
        e = c.exponent
        return (D.where(D.zeros_like(g), D.mul_scalar(D.mul(g, c.result), other=-np.inf),
                        condition=D.ge(e, D.zeros_like(e))),)
    # NB: PyTorch's grad * (result * log(base)), in its order
    return (D.mul(g, D.mul_scalar(c.result, other=float(np.log(base)))),)


def _atan2_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x, y = c.self, c.other
    yy = D.mul(y, y)            # NB: self * self + other * other: the right operand first
    r2 = D.add(D.mul(x, x), yy)
    # NB: 0 at the origin, not nan, as in PyTorch
    with np.errstate(divide="ignore"):
        recip = D.masked_fill(D.reciprocal(r2), mask=D.eq(r2, D.zeros_like(r2)), value=0)
    return (D.mul(D.mul(g, y), recip) if c.needs[0] else None,
            D.mul(D.mul(g, D.neg(x)), recip) if c.needs[1] else None)


def _sign(x: Any) -> Any:
    s = np.sign(x)
    if s.dtype.kind == "f" and np.isnan(s).any():
        s = np.where(np.isnan(s), 0, s).astype(s.dtype)        # PyTorch: sign(nan) is 0
    return s


def _logit_fwd(x: Any, eps: Any = None) -> Any:
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x / (1 - x))


def _logit_bw(c: Any, g: Any, D: Any) -> Any:
    x, eps = c.self, c.attrs.get("eps")
    value = D.div(g, D.mul(x, D.sub(D.ones_like(x), x)))
    # NB: PyTorch's where(): nan outside [0, 1]; with eps, 0 outside [eps, 1 - eps]
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1 - eps)
    fill = D.zeros_like(value) if eps is not None else D.mul_scalar(D.ones_like(value),
                                                                     other=math.nan)
    return D.where(value, fill, condition=D.logical_and(D.ge(x, lo), D.le(x, hi)))


def _silu_bw(c: Any, g: Any, D: Any) -> Any:
    x = c.self
    s = D.sigmoid(x)
    # NB: grad * sigmoid * (1 + x * (1 - sigmoid)), in PyTorch's order (its double backward:
    # the right operand first, as its compiled C++ evaluates it)
    right = D.add_scalar(D.mul(x, D.sub(D.ones_like(s), s)), other=1)
    return D.mul(D.mul(g, s), right)


def _minmax_bw(sel_self: str) -> Any:
    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        x, y = c.self, c.other
        tie = D.eq(x, y)
        # NB: PyTorch's where(x == y, grad / 2, grad).masked_fill_(loses, 0), op by op: zero
        # where the input loses, so where either is nan both get it all
        self_loses = D.lt(x, y) if sel_self == "max" else D.gt(x, y)
        other_loses = D.gt(x, y) if sel_self == "max" else D.lt(x, y)
        gx = gy = None
        if c.needs[0]:
            gx = D.masked_fill(D.where(D.div_scalar(g, other=2), g, condition=tie),
                               mask=self_loses, value=0)
        if c.needs[1]:
            gy = D.masked_fill(D.where(D.div_scalar(g, other=2), g, condition=tie),
                               mask=other_loses, value=0)
        return gx, gy
    return bw


def _where_fwd(x: Any, y: Any, condition: Any) -> Any:
    return np.where(condition, x, y)


def _where_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    cond = c.condition
    z = D.zeros_like(g)
    return (D.where(g, z, condition=cond) if c.needs[0] else None,
            D.where(z, g, condition=cond) if c.needs[1] else None)


def _clamp_fwd(x: Any, min: Any = None, max: Any = None) -> Any:
    return np.clip(x, min, max)


def _clamp_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x, lo, hi = c.self, c.attrs.get("min"), c.attrs.get("max")
    keep = None
    if lo is not None:
        keep = D.ge(x, lo)
    if hi is not None:
        up = D.le(x, hi)
        keep = up if keep is None else D.logical_and(keep, up)
    return (D.where(g, D.zeros_like(g), condition=keep),)


def _clamp_t_fwd(x: Any, lo: Any, hi: Any) -> Any:
    out = x if lo is None else np.maximum(x, lo)
    return out if hi is None else np.minimum(out, hi)


def _clamp_t_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x = c.self
    z = D.zeros_like(g)
    lo = c.min if c.node._saved.get("min") is not None else None
    hi = c.max if c.node._saved.get("max") is not None else None
    keep = None
    if lo is not None:
        keep = D.ge(x, lo)
    if hi is not None:
        up = D.le(x, hi)
        keep = up if keep is None else D.logical_and(keep, up)
    gx = D.where(g, z, condition=keep) if c.needs[0] and keep is not None else (
        g if c.needs[0] else None)
    glo = D.where(g, z, condition=D.lt(x, lo)) if c.needs[1] and lo is not None else None
    ghi = D.where(g, z, condition=D.gt(x, hi)) if c.needs[2] and hi is not None else None
    return gx, glo, ghi


def _unary(key: str, name: str, fwd: Any, bw: Any, save: str | None,
           attrs: tuple[str, ...] = ()) -> Op:
    saves = (Save(save),) if save else ()
    return Op(key, name, ("self",), fwd, lambda c, g, D: (bw(c, g, D),), saves, attrs,
              exact=not attrs)


def _sigmoid(x: Any) -> Any:
    # NB: split by sign so large |x| neither overflows nor loses precision
    out = np.empty_like(x) if isinstance(x, np.ndarray) else np.empty(np.shape(x))
    pos = x >= 0
    ex = np.exp(np.where(pos, -x, x))
    np.divide(1, 1 + ex, out=out, where=pos)
    np.divide(ex, 1 + ex, out=out, where=~pos)
    return out


def _relu(x: Any) -> Any:
    return np.maximum(x, 0, dtype=x.dtype) if x.dtype != np.bool_ else x


def _silu_fwd(x: Any) -> Any:
    with np.errstate(all="ignore"):       # NB: -inf * 0 is nan, without numpy's warning
        return x * _sigmoid(x)


def _gelu(x: Any, approximate: str = "none") -> Any:
    with np.errstate(all="ignore"):       # NB: (as silu's)
        return _gelu_of(x, approximate)


def _gelu_of(x: Any, approximate: str) -> Any:
    if approximate == "tanh":
        k = np.sqrt(2 / np.pi)
        return 0.5 * x * (1 + np.tanh(k * (x + 0.044715 * x ** 3)))
    from math import erf
    verf = np.vectorize(erf, otypes=[x.dtype])
    return 0.5 * x * (1 + verf(x / np.sqrt(2)))


def _gelu_grad(x: Any, approximate: str) -> Any:
    if approximate == "tanh":
        k = np.sqrt(2 / np.pi)
        inner = k * (x + 0.044715 * x ** 3)
        th = np.tanh(inner)
        return 0.5 * (1 + th) + 0.5 * x * (1 - th ** 2) * k * (1 + 3 * 0.044715 * x ** 2)
    from math import erf
    verf = np.vectorize(erf, otypes=[x.dtype])
    cdf = 0.5 * (1 + verf(x / np.sqrt(2)))
    return cdf + x * np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)


def _np_only(D: Any, what: str) -> None:
    if D.tensor_mode:
        raise NotImplementedError(f"the backward of {what} is not differentiable in this engine")


def _gelu_bw(c: Any, g: Any, D: Any) -> Any:
    return D.gelu_backward(g, c.self, approximate=c.attrs.get("approximate", "none"))


def _gelu_grad2(x: Any, approximate: str) -> Any:
    """The second derivative of gelu."""
    if approximate == "tanh":
        k, a = np.sqrt(2 / np.pi), 0.044715
        th = np.tanh(k * (x + a * x ** 3))
        du, ddu = k * (1 + 3 * a * x ** 2), 6 * k * a * x
        return (1 - th ** 2) * du + 0.5 * x * (1 - th ** 2) * (ddu - 2 * th * du ** 2)
    return np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi) * (2 - x * x)


def _gelu_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    approximate = c.attrs.get("approximate", "none")
    x = c.self
    gx = None
    if c.needs[1]:
        _np_only(D, "gelu's backward")
        gx = gg * c.grad_output * _gelu_grad2(x, approximate).astype(gg.dtype)
    return (D.gelu_backward(gg, x, approximate=approximate) if c.needs[0] else None, gx)


def elu_fwd(x: Any, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0) -> Any:
    with np.errstate(over="ignore"):
        return scale * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0) * input_scale))


def elu_kw(c: Any) -> dict[str, Any]:
    """The elu node's alpha, scale and input_scale (selu's and celu's too) as given."""
    return {k: c.attrs[k] for k in ("alpha", "scale", "input_scale") if k in c.attrs}


def _elu_data_fwd(g: Any, x: Any, alpha: float = 1.0, scale: float = 1.0,
                  input_scale: float = 1.0, is_result: bool = False) -> Any:
    if is_result:
        # NB: x is the output: its negative part is alpha * scale * (exp(input_scale * z) - 1)
        neg = g * input_scale * (x + alpha * scale)
    else:
        neg = g * (input_scale * alpha * scale) * np.exp(np.minimum(x, 0) * input_scale)
    return np.where(x <= 0, neg, g * scale).astype(g.dtype)


def _elu_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    kw = elu_kw(c)
    x = c.self_or_result
    gx = None
    if c.needs[1] and c.attrs.get("is_result"):
        # NB: PyTorch's elu_double_backward (result form): gg * g * input_scale where x < 0
        v = D.mul_scalar(D.mul(gg, c.grad_output), other=kw.get("input_scale", 1.0))
        gx = D.where(v, D.zeros_like(v), condition=D.lt(x, 0))
    elif c.needs[1]:
        # NB: PyTorch's elu_double_backward (input form): elu_backward(gg * g * input_scale)
        # where x < 0, else 0
        v = D.elu_backward(D.mul_scalar(D.mul(gg, c.grad_output),
                                        other=kw.get("input_scale", 1.0)), x, **kw)
        gx = D.where(v, D.zeros_like(v), condition=D.lt(x, 0))
    return (D.elu_backward(gg, x, is_result=c.attrs.get("is_result", False), **kw)
            if c.needs[0] else None, gx)


def _softplus_data_fwd(g: Any, x: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    bx = x * beta
    return np.where(bx > threshold, g, g * _sigmoid(bx)).astype(g.dtype)


def _softplus_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    beta, th = c.attrs.get("beta", 1.0), c.attrs.get("threshold", 20.0)
    x = c.self
    gx = None
    if c.needs[1]:
        bx = D.mul_scalar(x, other=beta)
        s = D.sigmoid(bx)
        v = D.mul_scalar(D.mul(D.mul(D.mul(gg, c.grad_output), s), D.rsub(s, other=1)),
                         other=beta)
        gx = D.where(D.zeros_like(v), v, condition=D.gt(bx, th))
    return (D.softplus_backward(gg, x, beta=beta, threshold=th) if c.needs[0] else None, gx)


def _softplus_fwd(x: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    bx = x * beta
    return np.where(bx > threshold, x, np.log1p(np.exp(np.minimum(bx, threshold))) / beta)


def _softplus_bw(c: Any, g: Any, D: Any) -> Any:
    return D.softplus_backward(g, c.self, beta=c.attrs.get("beta", 1.0),
                               threshold=c.attrs.get("threshold", 20.0))


register(
    # NB: the caller scales `other` by alpha before the call; alpha stays on the node for its
    # backward, and numpy's own ufunc is the forward
    Op("add", "AddBackward0", ("self", "other"), np.add, _add_bw, (), ("alpha",),
       attrs_only=True),
    Op("sub", "SubBackward0", ("self", "other"), np.subtract, _sub_bw, (), ("alpha",),
       attrs_only=True),
    Op("add_scalar", "AddBackward1", ("self",), lambda x, other: x + other,
       lambda c, g, D: (g,)),
    Op("sub_scalar", "SubBackward1", ("self",), lambda x, other: x - other,
       lambda c, g, D: (g,)),
    Op("rsub", "RsubBackward1", ("self",), lambda x, other, alpha=1: other - alpha * x,
       lambda c, g, D: (_scaled(D.neg(g), c.attrs.get("alpha", 1), D),), (),
       ("alpha",)),       # NB: PyTorch's RsubBackward1 shows alpha only
    Op("mul", "MulBackward0", ("self", "other"), np.multiply, _mul_bw,
       (Save("other", (0,)), Save("self", (1,)))),
    Op("mul_scalar", "MulBackward1", ("self",), lambda x, other: x * other,
       lambda c, g, D: (D.mul_scalar(g, other=c.attrs["other"]),), (), ("other",)),
    Op("div_scalar", "DivBackward1", ("self",), lambda x, other: x / other,
       lambda c, g, D: (D.div_scalar(g, other=c.attrs["other"]),), (), ("other",)),
    Op("div", "DivBackward0", ("self", "other"), np.true_divide, _div_bw,
       (Save("other", (0, 1)), Save("self", (1,)))),
    Op("div_mode", "DivBackward2", ("self", "other"), _div_mode_fwd, _div_mode_bw,
       (Save("other", (0, 1)), Save("self", (1,))), ("rounding_mode",)),
    Op("remainder", "RemainderBackward1", ("self", "other"), _mod, _rounding_bw("floor"),
       (Save("other", (1,)), Save("self", (1,)))),
    Op("remainder_scalar", "RemainderBackward0", ("self",), lambda x, other: _mod(x, other),
       lambda c, g, D: (g,)),
    Op("fmod", "FmodBackward1", ("self", "other"), _fmod, _rounding_bw("trunc"),
       (Save("other", (1,)), Save("self", (1,)))),
    Op("fmod_scalar", "FmodBackward0", ("self",), lambda x, other: _fmod(x, other),
       lambda c, g, D: (g,)),
    # NB: no derivative in PyTorch: a node over the inputs that require grad, which raises
    Op("floor_divide", "torch::autograd::NotImplemented", ("*tensors",),
       lambda x, y: _div_mode_fwd(x, y, "floor"), _not_implemented("floor_divide")),
    Op("floor_divide_", "torch::autograd::NotImplemented", ("*tensors",),
       lambda x, y: _div_mode_fwd(x, y, "floor"), _not_implemented("floor_divide_")),
    Op("remainder_of_scalar", "torch::autograd::NotImplemented", ("*tensors",), _mod,
       _not_implemented("remainder")),
    Op("pow", "PowBackward0", ("self",), _pow_scalar,
       _pow_bw, (Save("self"),), ("exponent",)),
    Op("pow_tensor", "PowBackward1", ("self", "exponent"), _power, _pow_tt_bw,
       (Save("exponent", (0, 1)), Save("result"), Save("self", (0, 1)))),
    Op("rpow", "PowBackward2", ("exponent",), lambda e, self: _power(self, e), _rpow_bw,
       (Save("exponent"), Save("result")), ("self",)),
    Op("maximum", "MaximumBackward0", ("self", "other"), np.maximum, _minmax_bw("max"),
       (Save("other"), Save("self"))),
    Op("minimum", "MinimumBackward0", ("self", "other"), np.minimum, _minmax_bw("min"),
       (Save("other"), Save("self"))),
    Op("where", "WhereBackward0", ("self", "other"), _where_fwd, _where_bw, (Save("condition"),)),
    Op("clamp", "ClampBackward1", ("self",), _clamp_fwd, _clamp_bw, (Save("self"),),
       ("max", "min")),
    Op("clamp_min", "ClampMinBackward0", ("self",), lambda x, min: np.maximum(x, min),
       lambda c, g, D: (D.where(g, D.zeros_like(g), condition=D.ge(c.self, c.attrs["min"])),),
       (Save("self"),), ("min",)),
    Op("clamp_max", "ClampMaxBackward0", ("self",), lambda x, max: np.minimum(x, max),
       lambda c, g, D: (D.where(g, D.zeros_like(g), condition=D.le(c.self, c.attrs["max"])),),
       (Save("self"),), ("max",)),
    Op("clamp_tensor", "ClampBackward0", ("self", "min", "max"), _clamp_t_fwd, _clamp_t_bw,
       (Save("max"), Save("min"), Save("self"))),
    _unary("neg", "NegBackward0", np.negative, lambda c, g, D: D.neg(g), None),
    _unary("exp", "ExpBackward0", np.exp, lambda c, g, D: D.mul(g, c.result), "result"),
    _unary("log", "LogBackward0", np.log, lambda c, g, D: D.div(g, c.self), "self"),
    _unary("sin", "SinBackward0", np.sin, lambda c, g, D: D.mul(g, D.cos(c.self)), "self"),
    _unary("cos", "CosBackward0", np.cos,
           lambda c, g, D: D.mul(g, D.neg(D.sin(c.self))), "self"),
    _unary("tan", "TanBackward0", np.tan, lambda c, g, D: D.mul(
        g, D.add_scalar(D.pow(c.result, exponent=2), other=1)), "result"),
    _unary("tanh", "TanhBackward0", np.tanh, lambda c, g, D: D.tanh_backward(g, c.result),
           "result"),
    _unary("sigmoid", "SigmoidBackward0", _sigmoid,
           lambda c, g, D: D.sigmoid_backward(g, c.result), "result"),
    _unary("relu", "ReluBackward0", _relu,
           lambda c, g, D: D.threshold_backward(g, c.result, threshold=0), "result"),
    _unary("abs", "AbsBackward0", np.abs, lambda c, g, D: D.mul(g, D.sgn(c.self)), "self"),
    _unary("sqrt", "SqrtBackward0", np.sqrt,
           lambda c, g, D: D.div(g, D.mul_scalar(c.result, other=2)), "result"),
    _unary("rsqrt", "RsqrtBackward0", lambda x: 1 / np.sqrt(x), lambda c, g, D: D.mul(
        D.mul_scalar(g, other=-0.5), D.pow(c.result, exponent=3)), "result"),
    _unary("reciprocal", "ReciprocalBackward0", np.reciprocal,
           lambda c, g, D: D.mul(D.neg(g), D.mul(c.result, c.result)), "result"),
    Op("sgn", "SgnBackward0", ("self",), _sign, lambda c, g, D: (D.zeros_like(g),),
       (Save("result"), Save("self"))),
    _unary("sign", "SignBackward0", _sign, lambda c, g, D: D.zeros_like(g), None),
    _unary("log1p", "Log1PBackward0", np.log1p,
           lambda c, g, D: D.div(g, D.add_scalar(c.self, other=1)), "self"),
    _unary("expm1", "Expm1Backward0", np.expm1,
           lambda c, g, D: D.mul(g, D.add_scalar(c.result, other=1)), "result"),
    _unary("log2", "Log2Backward0", np.log2,
           lambda c, g, D: D.div(g, D.mul_scalar(c.self, other=float(np.log(2)))), "self"),
    _unary("log10", "Log10Backward0", np.log10,
           lambda c, g, D: D.div(g, D.mul_scalar(c.self, other=float(np.log(10)))), "self"),
    _unary("exp2", "Exp2Backward0", np.exp2,
           lambda c, g, D: D.mul_scalar(D.mul(g, c.result), other=float(np.log(2))), "result"),
    _unary("sinh", "SinhBackward0", np.sinh, lambda c, g, D: D.mul(g, D.cosh(c.self)), "self"),
    _unary("cosh", "CoshBackward0", np.cosh, lambda c, g, D: D.mul(g, D.sinh(c.self)), "self"),
    _unary("atan", "AtanBackward0", np.arctan,
           lambda c, g, D: D.div(g, D.add_scalar(D.mul(c.self, c.self), other=1)), "self"),
    _unary("asin", "AsinBackward0", np.arcsin, lambda c, g, D: D.mul(
        g, D.rsqrt(D.add_scalar(D.mul(D.neg(c.self), c.self), other=1))), "self"),
    _unary("acos", "AcosBackward0", np.arccos, lambda c, g, D: D.mul(
        g, D.neg(D.rsqrt(D.add_scalar(D.mul(D.neg(c.self), c.self), other=1)))), "self"),
    _unary("asinh", "AsinhBackward0", np.arcsinh, lambda c, g, D: D.mul(
        g, D.rsqrt(D.add_scalar(D.pow(c.self, exponent=2), other=1))), "self"),
    _unary("acosh", "AcoshBackward0", np.arccosh, lambda c, g, D: D.mul(
        g, D.rsqrt(D.sub_scalar(D.mul(c.self, c.self), other=1))), "self"),
    # NB: PyTorch's grad * 1 / (1 - self.pow(2)): the product by 1 is a node too
    _unary("atanh", "AtanhBackward0", np.arctanh, lambda c, g, D: D.div(
        D.mul_scalar(g, other=1), D.sub(D.ones_like(c.self), D.pow(c.self, exponent=2))),
        "self"),
    Op("atan2", "Atan2Backward0", ("self", "other"), np.arctan2, _atan2_bw,
       (Save("other"), Save("self"))),
    _unary("floor", "FloorBackward0", np.floor, lambda c, g, D: D.zeros_like(g), None),
    _unary("ceil", "CeilBackward0", np.ceil, lambda c, g, D: D.zeros_like(g), None),
    _unary("round", "RoundBackward0", np.round, lambda c, g, D: D.zeros_like(g), None),
    _unary("trunc", "TruncBackward0", np.trunc, lambda c, g, D: D.zeros_like(g), None),
    _unary("leaky_relu", "LeakyReluBackward0",
           lambda x, negative_slope=0.01: np.where(x > 0, x, x * negative_slope),
           lambda c, g, D: D.leaky_relu_backward(
               g, c.self, negative_slope=c.attrs.get("negative_slope", 0.01)), "self",
           ("negative_slope",)),
    _unary("elu", "EluBackward0", elu_fwd, lambda c, g, D: D.elu_backward(g, c.self, **elu_kw(c)),
           "self", ("alpha", "input_scale", "scale")),
    _unary("logit", "LogitBackward0", _logit_fwd, _logit_bw, "self", ("eps",)),
    _unary("silu", "SiluBackward0", _silu_fwd, _silu_bw, "self"),
    _unary("hardtanh", "HardtanhBackward0",
           lambda x, min_val=-1.0, max_val=1.0: np.clip(x, min_val, max_val),
           lambda c, g, D: D.hardtanh_backward(g, c.self, min_val=c.attrs.get("min_val", -1.0),
                                               max_val=c.attrs.get("max_val", 1.0)), "self",
           ("max_val", "min_val")),
    _unary("gelu", "GeluBackward0", _gelu, _gelu_bw, "self", ("approximate",)),
    _unary("softplus", "SoftplusBackward0", _softplus_fwd, _softplus_bw, "self",
           ("beta", "threshold")),
    # the named backward ops the formulas above call (so double backward names them as PyTorch)
    Op("tanh_backward", "TanhBackwardBackward0", ("grad_output", "output"),
       _tanh_backward,
       lambda c, gg, D: (D.tanh_backward(gg, c.output) if c.needs[0] else None,
                         D.mul_scalar(D.mul(D.mul(gg, c.grad_output), c.output), other=-2)
                         if c.needs[1] else None),
       (Save("grad_output", (1,)), Save("output"))),
    Op("sigmoid_backward", "SigmoidBackwardBackward0", ("grad_output", "output"),
       lambda g, r: g * r * (1 - r),
       lambda c, gg, D: (D.sigmoid_backward(gg, c.output) if c.needs[0] else None,
                         D.mul(D.mul(gg, c.grad_output), D.rsub(D.mul_scalar(
                             c.output, other=2), other=1)) if c.needs[1] else None),
       (Save("grad_output", (1,)), Save("output"))),
    Op("threshold_backward", "ThresholdBackwardBackward0", ("grad_output", "self"),
       lambda g, x, threshold: np.where(x <= threshold, np.zeros_like(g), g),
       lambda c, gg, D: (D.threshold_backward(gg, c.self, threshold=c.attrs["threshold"])
                         if c.needs[0] else None, D.zeros_like(c.self) if c.needs[1] else None),
       (Save("self"),), ("threshold",)),
    Op("leaky_relu_backward", "LeakyReluBackwardBackward0", ("grad_output", "self"),
       lambda g, x, negative_slope=0.01: np.where(x > 0, g, g * np.asarray(negative_slope,
                                                                           g.dtype)),
       lambda c, gg, D: (D.leaky_relu_backward(gg, c.self, **c.attrs) if c.needs[0] else None,
                         D.zeros_like(c.self) if c.needs[1] else None),
       (Save("self"),), ("negative_slope",)),
    Op("hardtanh_backward", "HardtanhBackwardBackward0", ("grad_output", "self"),
       lambda g, x, min_val=-1.0, max_val=1.0: np.where((x <= min_val) | (x >= max_val),
                                                        np.zeros_like(g), g),
       lambda c, gg, D: (D.hardtanh_backward(gg, c.self, **c.attrs) if c.needs[0] else None,
                         D.zeros_like(c.self) if c.needs[1] else None),
       (Save("self"),), ("max_val", "min_val")),
    Op("elu_backward", "EluBackwardBackward0", ("grad_output", "self_or_result"),
       _elu_data_fwd, _elu_data_bw, (Save("grad_output", (1,)), Save("self_or_result")),
       ("alpha", "input_scale", "is_result", "scale")),
    Op("softplus_backward", "SoftplusBackwardBackward0", ("grad_output", "self"),
       _softplus_data_fwd, _softplus_data_bw, (Save("grad_output", (1,)), Save("self")),
       ("beta", "threshold")),
    Op("gelu_backward", "GeluBackwardBackward0", ("grad_output", "self"),
       lambda g, x, approximate="none": g * _gelu_grad(x, approximate).astype(g.dtype),
       _gelu_data_bw, (Save("grad_output", (1,)), Save("self")), ("approximate",)),
)
