"""Table entries: the less common losses PyTorch computes in one kernel (huber, soft margin,
multi margin, multilabel margin) with their backward kernels, and the pieces its composite
losses are built of (xlogy, ``at::norm`` over dims, log_sigmoid)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .messages import SCALAR_NAME
from .ops_loss import MEAN, NONE, _kernel_dtype, _numel, _reduce
from .ops_reduce import _norm_bw, _norm_fwd
from .optable import Op, Save, register

__all__: list[str] = []


def _norm_factor(x: Any, reduction: int, ct: Any) -> Any:
    """1 / numel for a mean (1 for an empty input: its gradient is empty), else 1."""
    return np.asarray(1.0 / np.size(x) if reduction == MEAN and np.size(x) else 1.0, dtype=ct)


# -- huber ----------------------------------------------------------------------------------------
def _huber_fwd(x: Any, t: Any, reduction: int = MEAN, delta: float = 1.0) -> Any:
    z = np.abs(x - t)
    return _reduce(np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)), reduction)


def _huber_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    kw = {"reduction": c.attrs.get("reduction", MEAN), "delta": c.attrs.get("delta", 1.0)}
    # NB: PyTorch's target gradient is the same formula with self and target swapped
    return (D.huber_loss_backward(g, c.self, c.target, **kw) if c.needs[0] else None,
            D.huber_loss_backward(g, c.target, c.self, **kw) if c.needs[1] else None)


def _huber_data_fwd(g: Any, x: Any, t: Any, reduction: int = MEAN, delta: float = 1.0) -> Any:
    for other in (t, g):
        if other.dtype != x.dtype:
            # NB: PyTorch's kernel takes no mix of dtypes (so a huber loss of a float32 input
            # and a float64 target has no backward)
            raise RuntimeError(f"Found dtype {SCALAR_NAME[str(other.dtype)]} but expected "
                               f"{SCALAR_NAME[str(x.dtype)]}")
    ct = _kernel_dtype(g, x, t)
    g = g.astype(ct, copy=False)
    d = x.astype(ct, copy=False) - t.astype(ct, copy=False)
    norm = _norm_factor(x, reduction, ct)
    edge = norm * g * ct.type(delta)
    out = np.where(d <= -delta, -edge, np.where(d >= delta, edge, norm * d * g))
    return out.astype(x.dtype, copy=False)


def _grad_output_bw(key: str, c: Any, gg: Any, D: Any, *args: Any, **kw: Any) -> Any:
    """PyTorch's ``*_double_backward_grad_output``: the loss's backward of ``gg`` (reduction
    'none'), else the sum of ``gg`` times the backward of ones. ``args``: the target where it
    is an input, ``kw``: the target where it is not, and the loss's options."""
    x, red = c.self, c.attrs.get("reduction", MEAN)
    fn = getattr(D, key)
    if red == NONE:
        return fn(gg, x, *args, reduction=red, **kw)
    return D.sum(D.mul(fn(D.ones_like(c.grad_output), x, *args, reduction=red, **kw), gg))


def _huber_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    x, t, g = c.self, c.target, c.grad_output
    red, delta = c.attrs.get("reduction", MEAN), c.attrs.get("delta", 1.0)

    def double(sign: int) -> Any:
        # NB: PyTorch's huber_loss_double_backward(gg * g): gg * g * (|x - t| < delta) [/ n]
        out = D.mul(D.mul(gg, g), D.lt(D.abs(D.sub(x, t)), delta))
        if red == MEAN:
            out = D.div_scalar(out, other=_numel(c.shape(1)))
        return out if sign > 0 else D.neg(out)
    gg_g = _grad_output_bw("huber_loss_backward", c, gg, D, t, delta=delta) \
        if c.needs[0] else None
    return gg_g, double(1) if c.needs[1] else None, double(-1) if c.needs[2] else None


# -- soft margin ----------------------------------------------------------------------------------
def _soft_margin_fwd(x: Any, target: Any, reduction: int = MEAN) -> Any:
    return _reduce(np.log1p(np.exp(-target * x)), reduction)


def _soft_margin_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    return (D.soft_margin_loss_backward(g, c.self, target=c.target,
                                        reduction=c.attrs.get("reduction", MEAN)),)


def _soft_margin_data_fwd(g: Any, x: Any, target: Any, reduction: int = MEAN) -> Any:
    ct = _kernel_dtype(g, x, target)
    dtype = x.dtype
    x, t, g = (a.astype(ct, copy=False) for a in (x, target, g))
    z = np.exp(-t * x)
    out = -t * z / (1 + z) * _norm_factor(x, reduction, ct) * g
    return out.astype(dtype, copy=False)


def _soft_margin_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    x, t, g = c.self, c.target, c.grad_output
    red = c.attrs.get("reduction", MEAN)
    gg_g = _grad_output_bw("soft_margin_loss_backward", c, gg, D, target=t) if c.needs[0] else None
    gx = None
    if c.needs[1]:
        # NB: PyTorch's soft_margin_loss_double_backward(gg * g), op by op:
        # z = exp(x * -t); gg * g * (t * t) * z / ((z + 1) * (z + 1)) [/ n]
        v = D.mul(gg, g)
        z = D.exp(D.mul(x, D.neg(t)))
        z1 = D.add_scalar(z, other=1)
        gx = D.div(D.mul(D.mul(v, D.mul(t, t)), z), D.mul(z1, z1))
        if red == MEAN:
            gx = D.div_scalar(gx, other=_numel(c.shape(1)))
    return gg_g, gx


# -- multi margin and multilabel margin (no double backward in PyTorch) --------------------------
def _multi_margin_parts(x: np.ndarray, target: np.ndarray, p: int, margin: float,
                        weight: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the per-sample, per-class hinge z = margin - x[y] + x[j] on 2-d x, the mask of the
    terms that count, the per-sample weight of the target class)."""
    x2 = x.reshape(1, -1) if x.ndim <= 1 else x
    t = target.reshape(-1).astype(np.int64)
    rows = np.arange(x2.shape[0])
    z = margin - x2[rows, t][:, None] + x2
    on = z > 0
    on[rows, t] = False
    w = np.ones(len(t), x.dtype) if weight is None else weight.astype(x.dtype)[t]
    return z, on, w


def _multi_margin_fwd(x: np.ndarray, target: np.ndarray, p: int = 1, margin: float = 1.0,
                      weight: Any = None, reduction: int = MEAN) -> Any:
    z, on, w = _multi_margin_parts(x, target, p, margin, weight)
    h = np.where(on, z if p == 1 else z * z, 0) * w[:, None]
    per = (np.sum(h, axis=1) / z.shape[1]).astype(x.dtype)
    if reduction == NONE:
        return per.reshape(target.shape) if x.ndim > 1 else per.reshape(())
    return np.asarray(np.mean(per) if reduction == MEAN else np.sum(per), x.dtype)


def _multi_margin_data_fwd(g: np.ndarray, x: np.ndarray, target: np.ndarray, p: int = 1,
                           margin: float = 1.0, weight: Any = None, reduction: int = MEAN
                           ) -> Any:
    z, on, w = _multi_margin_parts(x, target, p, margin, weight)
    n, dim = z.shape
    scale = (1.0 / n if reduction == MEAN else 1.0) / dim
    gi = np.where(on, 1.0 if p == 1 else 2 * z, 0) * (w * scale)[:, None]
    gi = gi * (g.reshape(-1, 1) if reduction == NONE else g)
    rows = np.arange(n)
    gi[rows, target.reshape(-1).astype(np.int64)] = -np.sum(gi, axis=1)
    return gi.reshape(x.shape).astype(x.dtype)


def _not_differentiable(key: str, c: Any, g: Any, D: Any, kw: dict[str, Any]) -> Any:
    """The gradient ``key`` (a backward kernel PyTorch has no derivative for): under
    create_graph a ``NotImplemented`` node over the inputs that require grad."""
    if not D.tensor_mode:
        return getattr(D, key)(g, c.self, **kw)
    from . import autograd
    from .optable import TABLE
    x = c.self
    graph = [t for t in (g, x) if t._rg or t._grad_fn is not None]
    arrays = {k: (v._data if hasattr(v, "_data") else v) for k, v in kw.items()}
    return autograd.apply(TABLE[key], graph, arrays,
                          arrays=(g._data, x._data), dtype=x._dtype)


def _multi_margin_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    weight = c.weight if c.node._saved.get("weight") is not None else None
    kw = {"target": c.target, "p": c.attrs.get("p", 1), "margin": c.attrs.get("margin", 1.0),
          "weight": weight, "reduction": c.attrs.get("reduction", MEAN)}
    return (_not_differentiable("multi_margin_loss_backward", c, g, D, kw),)


def _is_target(target: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """1 where a class is among the sample's targets (those before its first -1)."""
    t2 = target.reshape(-1, shape[-1] if shape else 1)
    out = np.zeros(t2.shape, bool)
    for i, row in enumerate(t2):
        for j in row:
            if j < 0:
                break
            out[i, j] = True
    return out


def _multilabel_fwd(x: np.ndarray, target: np.ndarray, reduction: int = MEAN) -> Any:
    x2 = x.reshape(-1, x.shape[-1] if x.ndim else 1)
    is_t = _is_target(target, x.shape)
    per = np.zeros(x2.shape[0], x.dtype)
    t2 = target.reshape(x2.shape)
    for i in range(x2.shape[0]):
        for j in t2[i]:
            if j < 0:
                break
            z = 1 - x2[i, j] + x2[i]
            per[i] += np.sum(np.where(~is_t[i] & (z > 0), z, 0))
    per = (per / x2.shape[1]).astype(x.dtype)
    extras = {"is_target": is_t.reshape(x.shape).astype(x.dtype)}
    if reduction == NONE:
        return (per if x.ndim == 2 else per.reshape(())), extras
    return np.asarray(np.mean(per) if reduction == MEAN else np.sum(per), x.dtype), extras


def _multilabel_data_fwd(g: np.ndarray, x: np.ndarray, target: np.ndarray,
                         is_target: np.ndarray, reduction: int = MEAN) -> Any:
    x2 = x.reshape(-1, x.shape[-1] if x.ndim else 1)
    t2 = target.reshape(x2.shape)
    is_t = is_target.reshape(x2.shape) != 0
    n, dim = x2.shape
    scale = (1.0 / n if reduction == MEAN else 1.0) / dim
    gi = np.zeros(x2.shape, np.float64)
    for i in range(n):
        for j in t2[i]:
            if j < 0:
                break
            on = ~is_t[i] & (1 - x2[i, j] + x2[i] > 0)
            gi[i] += on * scale
            gi[i, j] -= np.sum(on) * scale
    gi = gi * (g.reshape(-1, 1) if reduction == NONE else g)
    return gi.reshape(x.shape).astype(x.dtype)


def _multilabel_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    kw = {"target": c.target, "is_target": c.is_target,
          "reduction": c.attrs.get("reduction", MEAN)}
    return (_not_differentiable("multilabel_margin_loss_backward", c, g, D, kw),)


def _no_derivative(name: str) -> Any:
    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return bw


# -- pieces of the composite losses --------------------------------------------------------------
def _xlogy_fwd(x: Any, y: Any) -> Any:
    with np.errstate(all="ignore"):
        out = np.where(x == 0, np.zeros((), np.result_type(x, y)), x * np.log(y))
    return np.where(np.isnan(y), y, out)


def _xlogy_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x, y = c.self, c.other
    gx = gy = None
    # NB: PyTorch: xlogy(grad, other) zeroed where self == 0 and other <= 0; grad * self / other
    # (its generated code computes other's first)
    if c.needs[1]:
        gy = D.div(D.mul(g, x), y)
    if c.needs[0]:
        gx = D.masked_fill(D.xlogy(g, y), mask=D.logical_and(D.eq(x, 0), D.le(y, 0)), value=0)
    return gx, gy


def _norm_p_fwd(x: Any, p: Any = 2.0, dim: Any = None, keepdim: bool = False) -> Any:
    return _norm_fwd(x, p, dim, keepdim)


def _log_sigmoid_fwd(x: Any) -> Any:
    buffer = np.exp(-np.abs(x))
    return np.minimum(x, 0) - np.log1p(buffer), {"buffer": buffer}


def _log_sigmoid_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    return (D.log_sigmoid_backward(g, c.self, buffer=c.buffer),)


def _log_sigmoid_data_fwd(g: Any, x: Any, buffer: Any) -> Any:
    neg = x < 0
    z = buffer
    return (g * (np.where(neg, 1, 0) - np.where(neg, 1, -1) * (z / (1 + z)))).astype(x.dtype)


def _log_sigmoid_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    x = c.self
    gg_g = D.log_sigmoid_backward(gg, x, buffer=c.buffer) if c.needs[0] else None
    gx = None
    if c.needs[1]:
        # NB: PyTorch's log_sigmoid_double_backward(gg * g): z = sigmoid(x); v * (z - 1) * z
        z = D.sigmoid(x)
        gx = D.mul(D.mul(D.mul(gg, c.grad_output), D.sub_scalar(z, other=1)), z)
    return gg_g, gx


register(
    Op("huber_loss_backward", "HuberLossBackwardBackward0", ("grad_output", "self", "target"),
       _huber_data_fwd, _huber_data_bw, (Save("grad_output"), Save("self"), Save("target")),
       ("delta", "reduction"), dtype_of=1),
    Op("huber_loss", "HuberLossBackward0", ("self", "target"), _huber_fwd, _huber_bw,
       (Save("self"), Save("target")), ("delta", "reduction")),
    Op("soft_margin_loss_backward", "SoftMarginLossBackwardBackward0", ("grad_output", "self"),
       _soft_margin_data_fwd, _soft_margin_data_bw,
       (Save("grad_output"), Save("self"), Save("target")), ("reduction",), dtype_of=1),
    Op("soft_margin_loss", "SoftMarginLossBackward0", ("self",), _soft_margin_fwd,
       _soft_margin_bw, (Save("self"), Save("target")), ("reduction",)),
    Op("multi_margin_loss_backward", "torch::autograd::NotImplemented", ("*tensors",),
       _multi_margin_data_fwd, _no_derivative("multi_margin_loss_backward")),
    Op("multi_margin_loss", "MultiMarginLossBackward0", ("self",), _multi_margin_fwd,
       _multi_margin_bw, (Save("self"), Save("target"), Save("weight")),
       ("margin", "p", "reduction")),
    Op("multilabel_margin_loss_backward", "torch::autograd::NotImplemented", ("*tensors",),
       _multilabel_data_fwd, _no_derivative("multilabel_margin_loss_backward")),
    Op("multilabel_margin_loss", "MultilabelMarginLossBackward0", ("self",), _multilabel_fwd,
       _multilabel_bw, (Save("is_target"), Save("self"), Save("target")), ("reduction",),
       extras=("is_target",)),
    Op("xlogy", "XlogyBackward0", ("self", "other"), _xlogy_fwd, _xlogy_bw,
       (Save("other"), Save("self"))),
    Op("norm_p", "NormBackward1", ("self",), _norm_p_fwd, _norm_bw,
       (Save("result"), Save("self")), ("dim", "keepdim", "p"), lift_0d=True),
    Op("log_sigmoid_backward", "LogSigmoidBackwardBackward0", ("grad_output", "self"),
       _log_sigmoid_data_fwd, _log_sigmoid_data_bw,
       (Save("buffer"), Save("grad_output"), Save("self"))),
    Op("log_sigmoid", "LogSigmoidBackward0", ("self",), _log_sigmoid_fwd, _log_sigmoid_bw,
       (Save("buffer"), Save("self")), extras=("buffer",)),
)
