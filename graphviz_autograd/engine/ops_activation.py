"""Table entries: the activations with nodes of their own beyond ops_pointwise's (celu,
hardswish, hardsigmoid, mish, threshold, glu, hardshrink, softshrink, prelu, rrelu, the
in-place forms that save their result) and the named backward ops their formulas call."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ops_pointwise import _not_implemented, _sigmoid, elu_fwd, elu_kw
from .optable import Op, Save, no_double_backward, register


def _np(D: Any, node: str) -> None:
    if D.tensor_mode:
        raise no_double_backward(node)


# -- elu family: celu, and the forms that save their result (elu_, selu_, celu_, leaky_relu_) ----
def _celu_fwd(x: Any, alpha: float = 1.0) -> Any:
    return elu_fwd(x, alpha, 1.0, 1.0 / alpha)


def _elu_result_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    return (D.elu_backward(g, c.result, is_result=True, **elu_kw(c)),)


def _celu_kw(c: Any) -> dict[str, Any]:
    alpha = c.attrs.get("alpha", 1.0)
    return {"alpha": alpha, "scale": 1.0, "input_scale": 1.0 / alpha}


# -- hardswish, hardsigmoid ----------------------------------------------------------------------
def _hardswish_fwd(x: Any) -> Any:
    with np.errstate(all="ignore"):       # NB: -inf * 0 is nan, without numpy's warning
        return x * np.clip(x + 3, 0, 6) / 6


def _hardswish_data_fwd(g: Any, x: Any) -> Any:
    # NB: PyTorch's boundaries: 0 from -3 down, the ramp strictly inside, g from 3 up
    return np.where(x <= -3, 0, np.where(x < 3, g * (x / 3 + 0.5), g)).astype(g.dtype)


def _hardswish_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    x = c.self
    gx = None
    if c.needs[1]:
        inside = D.logical_and(D.lt(-3.0, x), D.lt(x, 3.0))
        gx = D.where(D.div_scalar(D.mul(gg, c.grad_output), other=3.0), D.zeros_like(x),
                     condition=inside)
    go = D.hardswish_backward(gg, x) if c.needs[0] else None
    return go, gx


def _hardsigmoid_data_fwd(g: Any, x: Any) -> Any:
    return np.where((x > -3) & (x < 3), g / 6, 0).astype(g.dtype)


def _hardsigmoid_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if not D.tensor_mode:
        return (_hardsigmoid_data_fwd(g, c.self),)
    # NB: PyTorch has no derivative for hardsigmoid_backward: its node (NotImplemented) has an
    # edge for each of its inputs that requires grad only
    from .autograd import apply
    from .optable import TABLE
    x = c.self
    graph = [t for t in (g, x) if t._rg or t._grad_fn is not None]
    return (apply(TABLE["hardsigmoid_backward"], graph, arrays=(g._data, x._data),
                  dtype=g._dtype),)


# -- mish ----------------------------------------------------------------------------------------
def _mish_fwd(x: Any) -> Any:
    with np.errstate(all="ignore"):       # NB: a nan or inf input: no numpy warning
        return x * np.tanh(np.logaddexp(0, x))


def _mish_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x = c.self
    # NB: grad * (tanh(softplus(x)) + x * sigmoid(x) * (1 - tanh(softplus(x)) ** 2)), with
    # softplus as log1p(exp(x)), its nodes made in PyTorch's order
    s = D.sigmoid(x)
    t = D.tanh(D.log1p(D.exp(x)))
    rest = D.sub(1.0, D.mul(t, t))
    return (D.mul(g, D.add(t, D.mul(D.mul(x, s), rest))),)


# -- threshold, hardshrink, softshrink -----------------------------------------------------------
def _threshold_fwd(x: Any, threshold: Any, value: Any) -> Any:
    return np.where(x > threshold, x, value).astype(x.dtype)


def _threshold_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    return (D.threshold_backward(g, c.self, threshold=c.attrs["threshold"]),)


def _hardshrink_fwd(x: Any, lambd: float = 0.5) -> Any:
    return np.where((x >= -lambd) & (x <= lambd), 0, x).astype(x.dtype)


def _softshrink_fwd(x: Any, lambd: float = 0.5) -> Any:
    return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0)).astype(x.dtype)


def _shrink_data_fwd(g: Any, x: Any, lambd: float = 0.5) -> Any:
    return np.where((x >= -lambd) & (x <= lambd), 0, g).astype(g.dtype)


def _shrink_bw(key: str) -> Any:
    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        return (getattr(D, key)(g, c.self, lambd=c.attrs["lambd"]),)
    return bw


def _shrink_data_bw(key: str) -> Any:
    def bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
        return (getattr(D, key)(gg, c.self, lambd=c.attrs["lambd"]) if c.needs[0] else None,
                D.zeros_like(c.self) if c.needs[1] else None)
    return bw


# -- glu -----------------------------------------------------------------------------------------
def _halves(x: Any, dim: int) -> tuple[Any, Any]:
    a, b = np.split(x, 2, axis=dim)
    return a, b


def _glu_fwd(x: Any, dim: int) -> Any:
    a, b = _halves(x, dim)
    return a * _sigmoid(b).astype(x.dtype)


def _glu_data_fwd(g: Any, x: Any, dim: int) -> Any:
    a, b = _halves(x, dim)
    s = _sigmoid(b).astype(x.dtype)
    return np.concatenate([g * s, g * a * s * (1 - s)], axis=dim).astype(g.dtype)


def _glu_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    _np(D, "GluBackwardBackward0")
    dim = c.attrs["dim"]
    x, g = c.self, c.grad_output
    a, b = _halves(x, dim)
    gga, ggb = _halves(gg, dim)
    s = _sigmoid(b).astype(x.dtype)
    ds = s * (1 - s)
    gx = go = None
    if c.needs[1]:
        gx = np.concatenate([g * ds * ggb, g * ds * (gga + ggb * a * (1 - 2 * s))],
                            axis=dim).astype(gg.dtype)
    if c.needs[0]:
        go = (gga * s + ggb * a * ds).astype(gg.dtype)
    return go, gx


# -- prelu ---------------------------------------------------------------------------------------
def _prelu_fwd(x: Any, w: Any) -> Any:
    return np.where(x > 0, x, w * x).astype(np.result_type(x, w))


def _prelu_data_fwd(g: Any, x: Any, w: Any) -> list[Any]:
    pos = x > 0
    return [np.where(pos, g, w * g).astype(g.dtype), np.where(pos, 0, x * g).astype(g.dtype)]


def _prelu_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if not D.tensor_mode:
        gx, gw = _prelu_data_fwd(g, c.self, c.weight)
        return (gx if c.needs[0] else None), (gw if c.needs[1] else None)
    gx, gw = D.prelu_kernel_backward(g, c.self, c.weight)
    return (gx if c.needs[0] else None), (gw if c.needs[1] else None)


def _prelu_data_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    _np(D, "PreluKernelBackwardBackward0")
    ggx, ggw = grads
    x, w, g = c.self, c.weight, c.grad_output
    pos = x > 0
    ggx = np.zeros_like(g) if ggx is None else ggx
    ggw = np.zeros_like(g) if ggw is None else ggw
    go = np.where(pos, ggx, w * ggx) + np.where(pos, 0, x * ggw)
    return (go.astype(g.dtype) if c.needs[0] else None,
            np.where(pos, 0, g * ggw).astype(g.dtype) if c.needs[1] else None,
            np.where(pos, 0, g * ggx).astype(g.dtype) if c.needs[2] else None)


# -- rrelu ---------------------------------------------------------------------------------------
def _rrelu_fwd(x: Any, noise: Any, lower: float, upper: float, training: bool) -> Any:
    if training:
        return np.where(x > 0, x, x * noise).astype(x.dtype)
    slope = np.asarray((lower + upper) / 2, x.dtype)
    return np.where(x > 0, x, x * slope).astype(x.dtype)


def _rrelu_kw(c: Any) -> dict[str, Any]:
    return {k: c.attrs[k] for k in ("lower", "upper", "training")}


def _rrelu_data_fwd(g: Any, x: Any, noise: Any, lower: float, upper: float,
                    training: bool) -> Any:
    if training and upper - lower > 1e-6:
        return (g * noise).astype(g.dtype)
    slope = np.asarray((lower + upper) / 2, g.dtype)
    return np.where(x > 0, g, g * slope).astype(g.dtype)


def _rrelu_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    go = D.rrelu_with_noise_backward(gg, c.self, noise=c.noise, **_rrelu_kw(c)) \
        if c.needs[0] else None
    return go, (D.zeros_like(c.self) if c.needs[1] else None)


def _self_op(key: str, name: str, fwd: Any, bw: Any, attrs: tuple[str, ...] = ()) -> Op:
    return Op(key, name, ("self",), fwd, bw, (Save("self"),), attrs)


def _result_op(key: str, name: str, fwd: Any, bw: Any, attrs: tuple[str, ...]) -> Op:
    return Op(key, name, ("self",), fwd, bw, (Save("result"),), attrs)


register(
    _result_op("elu_", "EluBackward1", elu_fwd, _elu_result_bw,
               ("alpha", "input_scale", "scale")),
    _self_op("celu", "CeluBackward0", _celu_fwd,
             lambda c, g, D: (D.elu_backward(g, c.self, **_celu_kw(c)),), ("alpha",)),
    _result_op("celu_", "CeluBackward1", _celu_fwd,
               lambda c, g, D: (D.elu_backward(g, c.result, is_result=True, **_celu_kw(c)),),
               ("alpha",)),
    _result_op("leaky_relu_", "LeakyReluBackward1",
               lambda x, negative_slope=0.01: np.where(x > 0, x, x * negative_slope),
               lambda c, g, D: (D.leaky_relu_backward(
                   g, c.result, negative_slope=c.attrs.get("negative_slope", 0.01)),),
               ("negative_slope",)),
    _self_op("hardswish", "HardswishBackward0", _hardswish_fwd,
             lambda c, g, D: (D.hardswish_backward(g, c.self),)),
    Op("hardswish_backward", "HardswishBackwardBackward0", ("grad_output", "self"),
       _hardswish_data_fwd, _hardswish_data_bw, (Save("grad_output", (1,)), Save("self"))),
    _self_op("hardsigmoid", "HardsigmoidBackward0", lambda x: np.clip(x + 3, 0, 6) / 6,
             _hardsigmoid_bw),
    Op("hardsigmoid_backward", "torch::autograd::NotImplemented", ("*tensors",),
       _hardsigmoid_data_fwd, _not_implemented("hardsigmoid_backward")),
    _self_op("mish", "MishBackward0", _mish_fwd, _mish_bw),
    _self_op("threshold", "ThresholdBackward0", _threshold_fwd, _threshold_bw, ("threshold",)),
    _self_op("threshold_", "ThresholdBackward1", _threshold_fwd, _threshold_bw, ("threshold",)),
    _self_op("hardshrink", "HardshrinkBackward0", _hardshrink_fwd,
             _shrink_bw("hardshrink_backward"), ("lambd",)),
    _self_op("softshrink", "SoftshrinkBackward0", _softshrink_fwd,
             _shrink_bw("softshrink_backward"), ("lambd",)),
    Op("hardshrink_backward", "HardshrinkBackwardBackward0", ("grad_output", "self"),
       _shrink_data_fwd, _shrink_data_bw("hardshrink_backward"), (Save("self"),), ("lambd",)),
    Op("softshrink_backward", "SoftshrinkBackwardBackward0", ("grad_output", "self"),
       _shrink_data_fwd, _shrink_data_bw("softshrink_backward"), (Save("self"),), ("lambd",)),
    _self_op("glu", "GluBackward0", _glu_fwd,
             lambda c, g, D: (D.glu_backward(g, c.self, dim=c.attrs["dim"]),), ("dim",)),
    Op("glu_backward", "GluBackwardBackward0", ("grad_output", "self"), _glu_data_fwd,
       _glu_data_bw, (Save("grad_output", (1,)), Save("self")), ("dim",)),
    Op("rrelu_with_noise", "RreluWithNoiseBackward0", ("self",), _rrelu_fwd,
       lambda c, g, D: (D.rrelu_with_noise_backward(g, c.self, noise=c.noise, **_rrelu_kw(c)),),
       (Save("noise"), Save("self")), ("lower", "training", "upper")),
    Op("rrelu_with_noise_", "RreluWithNoiseBackward1", ("self",), _rrelu_fwd,
       lambda c, g, D: (D.rrelu_with_noise_backward(g, c.result, noise=c.noise,
                                                    **_rrelu_kw(c)),),
       (Save("noise"), Save("result")), ("lower", "training", "upper")),
    Op("rrelu_with_noise_backward", "RreluWithNoiseBackwardBackward0", ("grad_output", "self"),
       _rrelu_data_fwd, _rrelu_data_bw, (Save("noise"), Save("self")),
       ("lower", "training", "upper")),
    Op("prelu", "PreluKernelBackward0", ("self", "weight"), _prelu_fwd, _prelu_bw,
       (Save("self"), Save("weight"))),
    Op("prelu_kernel_backward", "PreluKernelBackwardBackward0",
       ("grad_output", "self", "weight"), _prelu_data_fwd, _prelu_data_bw,
       (Save("grad_output"), Save("self"), Save("weight")), n_outputs=2),
)

