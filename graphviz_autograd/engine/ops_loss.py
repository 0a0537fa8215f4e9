"""Table entries: softmax, log_softmax and the losses (mse, nll, bce, bce-with-logits,
smooth l1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .dtypes import from_numpy, result_type
from .optable import Op, Save, register

NONE, MEAN, SUM = 0, 1, 2        # PyTorch's reduction enum, shown as _saved_reduction


def _reduce(loss: Any, reduction: int) -> Any:
    if reduction == MEAN:
        return np.mean(loss) if np.size(loss) else np.array(np.nan, np.result_type(loss))
    if reduction == SUM:
        return np.sum(loss)
    return loss


def _contiguous(r: np.ndarray) -> np.ndarray:
    """PyTorch's softmax result is contiguous whatever its input's layout (a transposed one)."""
    return r if r.flags.c_contiguous else np.ascontiguousarray(r)


def _log_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    m = np.max(x, axis=dim, keepdims=True)
    shifted = x - m
    return _contiguous(shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True)))


def _softmax(x: np.ndarray, dim: int) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=dim, keepdims=True))
    return _contiguous(e / np.sum(e, axis=dim, keepdims=True))


def _log_softmax_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    return (D.log_softmax_backward_data(g, c.result, dim=c.attrs["dim"]),)


def _softmax_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    return (D.softmax_backward_data(g, c.result, dim=c.attrs["dim"]),)


def _softmax_data_fwd(g: Any, out: Any, dim: int) -> Any:
    return out * (g - np.sum(g * out, axis=dim, keepdims=True))


def _softmax_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    g, out, dim = c.grad_output, c.output, c.attrs["dim"]
    gg_g = D.softmax_backward_data(gg, out, dim=dim) if c.needs[0] else None
    gg_o = None
    if c.needs[1]:
        s = D.sum_dim(D.mul(g, out), dim=(dim,), keepdim=True)
        t = D.sum_dim(D.mul(gg, out), dim=(dim,), keepdim=True)
        gg_o = D.sub(D.sub(D.mul(gg, g), D.mul(gg, s)), D.mul(g, t))
    return gg_g, gg_o


def _log_softmax_data_fwd(g: Any, out: Any, dim: int) -> Any:
    return g - np.exp(out) * np.sum(g, axis=dim, keepdims=True)


def _log_softmax_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    out, dim = c.output, c.attrs["dim"]
    e = D.exp(out)
    gg_g = D.sub(gg, D.sum_dim(D.mul(gg, e), dim=(dim,), keepdim=True)) if c.needs[0] else None
    gg_o = None
    if c.needs[1]:
        total = D.sum_dim(c.grad_output, dim=(dim,), keepdim=True)
        gg_o = D.neg(D.mul(D.mul(gg, e), total))
    return gg_g, gg_o


def _numel(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _mse_fwd(x: Any, t: Any, reduction: int = MEAN) -> Any:
    d = x - t
    return _reduce(d * d, reduction)


def _mse_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    red = c.attrs.get("reduction", MEAN)
    # NB: PyTorch's target gradient is the same formula with self and target swapped
    return (D.mse_loss_backward(g, c.self, c.target, reduction=red) if c.needs[0] else None,
            D.mse_loss_backward(g, c.target, c.self, reduction=red) if c.needs[1] else None)


def _kernel_dtype(g: Any, x: Any, t: Any) -> Any:
    """The numpy dtype a loss's ``*_backward`` kernel computes in, as PyTorch's: the common
    dtype of the three (a 0-d gradient ranks below the others); it gives self's dtype."""
    return result_type([from_numpy(a.dtype) for a in (x, t, g) if a.ndim],
                       [from_numpy(a.dtype) for a in (x, t, g) if not a.ndim], []).np


def _mse_data_fwd(g: Any, x: Any, t: Any, reduction: int) -> Any:
    ct = _kernel_dtype(g, x, t)
    # NB: an empty input's gradient is empty (no division by its size of 0)
    k = np.asarray(2.0 / np.size(x) if reduction == MEAN and np.size(x) else 2.0, dtype=ct)
    out = k * (x.astype(ct, copy=False) - t.astype(ct, copy=False)) * g.astype(ct, copy=False)
    return out.astype(x.dtype, copy=False)


def _mse_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    red = c.attrs.get("reduction", MEAN)
    x, t, g = c.self, c.target, c.grad_output
    k = 2.0 / _numel(c.shape(1)) if red == MEAN and _numel(c.shape(1)) else 2.0
    d = D.mul_scalar(D.mul(gg, g), other=k)
    gg_g = None
    if c.needs[0]:
        gg_g = D.mul_scalar(D.mul(gg, D.sub(x, t)), other=k)
        if red != NONE:
            gg_g = D.sum(gg_g)
    return gg_g, d if c.needs[1] else None, D.neg(d) if c.needs[2] else None


def _nll_parts(x: np.ndarray, target: np.ndarray, weight: Any, ignore_index: int
               ) -> tuple[tuple[Any, ...], np.ndarray]:
    """(index of the picked log-probabilities, per-sample weights with ignored ones zeroed)."""
    t = target.astype(np.int64)
    valid = t != ignore_index
    safe = np.where(valid, t, 0)
    w = np.ones(t.shape, dtype=x.dtype) if weight is None else weight[safe].astype(x.dtype)
    w = w * valid
    if x.ndim == 1:
        return (safe,), w
    n = x.shape[0]
    if x.ndim == 2:
        return (np.arange(n), safe), w
    rest = np.indices(t.shape[1:])
    key = (np.arange(n).reshape((n,) + (1,) * (t.ndim - 1)), safe, *rest)
    return key, w


def _nll_fwd(x: np.ndarray, target: np.ndarray, weight: Any = None, reduction: int = MEAN,
             ignore_index: int = -100) -> Any:
    key, w = _nll_parts(x, target, weight, ignore_index)
    picked = x[key] if x.ndim != 1 else x[key[0]]
    losses = -w * picked
    total = np.asarray(np.sum(w), dtype=x.dtype)
    if reduction == MEAN:
        # NB: every target ignored: 0 / 0, nan without a warning, as PyTorch
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.sum(losses) / total
    elif reduction == SUM:
        out = np.sum(losses)
    else:
        out = losses
    return np.asarray(out, dtype=x.dtype), {"total_weight": total}


def _nll_bw(c: Any, g: Any, D: Any, key: str = "nll_loss_backward") -> tuple[Any, ...]:
    weight = c.weight if c.node._saved.get("weight") is not None else None
    return (getattr(D, key)(g, c.self, target=c.target, weight=weight,
                                reduction=c.attrs.get("reduction", MEAN),
                                ignore_index=c.attrs.get("ignore_index", -100),
                                total_weight=float(c.total_weight)),)


def _nll_data_fwd(g: Any, x: np.ndarray, target: np.ndarray, weight: Any = None,
                  reduction: int = MEAN, ignore_index: int = -100, total_weight: float = 1.0
                  ) -> Any:
    key, w = _nll_parts(x, target, weight, ignore_index)
    coef = -w * g
    if reduction == MEAN:
        with np.errstate(invalid="ignore", divide="ignore"):
            coef = coef / np.asarray(total_weight, dtype=x.dtype)
        # NB: PyTorch writes no gradient for an ignored target (0, also when every one is)
        coef = np.where(np.asarray(target) != ignore_index, coef, 0).astype(x.dtype, copy=False)
    out = np.zeros_like(x)
    out[key if x.ndim != 1 else key[0]] = coef
    return out


def _nll_data_bw(c: Any, gg: Any, D: Any, key: str = "nll_loss") -> tuple[Any, ...]:
    # NB: PyTorch: nll_loss of the incoming gradient for grad_output, zeros for self
    weight = c.weight if c.node._saved.get("weight") is not None else None
    gg_g = getattr(D, key)(gg, target=c.target, weight=weight,
                           reduction=c.attrs.get("reduction", MEAN),
                           ignore_index=c.attrs.get("ignore_index", -100)) if c.needs[0] else None
    return gg_g, D.zeros_like(gg) if c.needs[1] else None


def _bce_fwd(x: Any, t: Any, weight: Any = None, reduction: int = MEAN) -> Any:
    lx = np.maximum(np.log(x), -100)
    l1x = np.maximum(np.log1p(-x), -100)
    loss = -(t * lx + (1 - t) * l1x)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _bce_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x, t = c.self, c.target
    red = c.attrs.get("reduction", MEAN)
    weight = c.weight if c.node._saved.get("weight") is not None else None
    gx = D.binary_cross_entropy_backward(g, x, t, weight=weight, reduction=red) \
        if c.needs[0] else None
    gt = None
    if c.needs[1]:
        # NB: PyTorch's -logit(x) * grad (* weight, / numel), op by op
        gt = D.mul(D.neg(D.logit(x)), g)
        if weight is not None:
            gt = D.mul(gt, weight)
        if red == MEAN:
            gt = D.div_scalar(gt, other=_numel(c.shape(0)))
    return gx, gt


_BCE_EPS = 1e-12


def _bce_data_fwd(g: Any, x: Any, t: Any, weight: Any = None, reduction: int = MEAN) -> Any:
    w = 1 if weight is None else weight
    n = np.size(x) if reduction == MEAN else 1
    return (g * w * (x - t) / np.maximum((1 - x) * x, _BCE_EPS) / n).astype(x.dtype)


def _bce_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    """PyTorch's three double-backward formulas of binary_cross_entropy_backward."""
    g, x, t = c.grad_output, c.self, c.target
    red = c.attrs.get("reduction", MEAN)
    weight = c.weight if c.node._saved.get("weight") is not None else None
    n = _numel(c.shape(1))

    def weighted(v: Any) -> Any:
        return v if weight is None else D.mul(v, weight)
    gg_g = gx = gt = None
    if c.needs[0]:
        ratio = D.div(D.sub(x, t), D.mul(D.add_scalar(x, other=_BCE_EPS),
                                         D.add_scalar(D.rsub(x, other=1), other=_BCE_EPS)))
        gg_g = weighted(D.mul(ratio, gg))
        if red == MEAN:
            gg_g = D.div_scalar(D.sum(gg_g), other=n)
        elif red == SUM:
            gg_g = D.sum(gg_g)
    if c.needs[1]:
        top = D.add(D.sub(D.mul(x, x), D.mul_scalar(D.mul(x, t), other=2)), t)
        bottom = D.mul(D.pow(D.add_scalar(x, other=_BCE_EPS), exponent=2),
                       D.pow(D.add_scalar(D.rsub(x, other=1), other=_BCE_EPS), exponent=2))
        gx = weighted(D.mul(D.div(top, bottom), D.mul(gg, g)))
        if red == MEAN:
            gx = D.div_scalar(gx, other=n)
    if c.needs[2]:
        denom = D.clamp_min(D.mul(D.rsub(x, other=1), x), min=_BCE_EPS)
        gt = D.div(weighted(D.neg(D.mul(gg, g))), denom)
        if red == MEAN:
            gt = D.div_scalar(gt, other=n)
    return gg_g, gx, gt


def _bce_logits_fwd(x: Any, t: Any, weight: Any = None, pos_weight: Any = None,
                    reduction: int = MEAN) -> Any:
    soft = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)
    if pos_weight is None:
        loss = (1 - t) * x + soft
    else:
        lw = 1 + (pos_weight - 1) * t
        loss = (1 - t) * x + lw * soft
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _bce_logits_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x, t = c.self, c.target
    red = c.attrs.get("reduction", MEAN)
    saved = c.node._saved
    if D.tensor_mode:
        weight = c.weight if saved.get("weight") is not None else None
        pos = c.pos_weight if saved.get("pos_weight") is not None else None
        if c.needs[1] and (weight is not None or pos is not None):
            raise NotImplementedError("create_graph through the target of a weighted "
                                      "binary_cross_entropy_with_logits is not supported by "
                                      "this engine")
        # NB: PyTorch's formulas, op by op: (sigmoid(x) - t) * g (with pos_weight:
        # ((pw * t + 1 - t) * sigmoid(x) - pw * t) * g), * weight, and -x * g, / numel for mean
        n = _numel(np.broadcast_shapes(c.shape(0), c.shape(1)))
        gx = None
        if c.needs[0]:
            if pos is None:
                gx = D.sub(D.sigmoid(x), t)
            else:
                pt = D.mul(pos, t)
                gx = D.sub(D.mul(D.sub(D.add_scalar(pt, other=1), t), D.sigmoid(x)), pt)
            gx = D.mul(gx, g)
            if weight is not None:
                gx = D.mul(gx, weight)
            if red == MEAN:
                gx = D.div_scalar(gx, other=n)
        gt = D.mul(D.neg(x), g) if c.needs[1] else None
        if red == MEAN and gt is not None:
            gt = D.div_scalar(gt, other=n)
        return gx, gt
    w = c.weight if saved.get("weight") is not None else 1
    pw = c.pos_weight if saved.get("pos_weight") is not None else None
    n = _numel(np.broadcast_shapes(c.shape(0), c.shape(1))) if red == MEAN else 1
    sig = 1 / (1 + np.exp(-x))
    if pw is None:
        gx, gt = (sig - t) * g * w / n, -x * g * w / n
    else:
        lw = 1 + (pw - 1) * t
        soft = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)
        gx = (lw * sig - pw * t) * g * w / n
        gt = (-x + (pw - 1) * soft) * g * w / n
    return (gx if c.needs[0] else None, gt if c.needs[1] else None)


def _smooth_l1_fwd(x: Any, t: Any, reduction: int = MEAN, beta: float = 1.0) -> Any:
    d = np.abs(x - t)
    loss = np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta) if beta > 0 else d
    return _reduce(loss, reduction)


def _smooth_l1_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    x, t = c.self, c.target
    kw = {"reduction": c.attrs.get("reduction", MEAN), "beta": c.attrs.get("beta", 1.0)}
    # NB: PyTorch's target gradient is the same formula with self and target swapped
    return (D.smooth_l1_loss_backward(g, x, t, **kw) if c.needs[0] else None,
            D.smooth_l1_loss_backward(g, t, x, **kw) if c.needs[1] else None)


def _smooth_l1_data_fwd(g: Any, x: Any, t: Any, reduction: int = MEAN, beta: float = 1.0) -> Any:
    # NB: PyTorch's kernel, op by op: +-norm * g outside (-beta, beta), norm * d * g / beta in
    ct = _kernel_dtype(g, x, t)
    g = g.astype(ct, copy=False)
    d = x.astype(ct, copy=False) - t.astype(ct, copy=False)
    norm = np.asarray(1.0 / np.size(x) if reduction == MEAN and np.size(x) else 1.0, dtype=ct)
    edge = norm * g
    out = np.where(d <= -beta, -edge, np.where(d >= beta, edge, norm * d * g / ct.type(beta)))
    return out.astype(x.dtype, copy=False)


def _smooth_l1_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    x, t, g = c.self, c.target, c.grad_output
    red, beta = c.attrs.get("reduction", MEAN), c.attrs.get("beta", 1.0)
    gg_g = gx = None
    if c.needs[0]:
        if red == NONE:
            gg_g = D.smooth_l1_loss_backward(gg, x, t, reduction=red, beta=beta)
        else:
            gg_g = D.sum(D.mul(D.smooth_l1_loss_backward(D.ones_like(g), x, t, reduction=red,
                                                         beta=beta), gg))
    if c.needs[1] or c.needs[2]:
        # NB: PyTorch's smooth_l1_loss_double_backward: gg * g where |x - t| < beta, / beta
        v = D.mul(gg, g)
        if beta == 0:
            gx = D.zeros_like(v)
        else:
            inside = D.lt(D.abs(D.sub(x, t)), beta)
            gx = D.div_scalar(D.mul(v, D.where(D.ones_like(v), D.zeros_like(v),
                                               condition=inside)), other=beta)
            if red == MEAN:
                gx = D.div_scalar(gx, other=_numel(c.shape(1)))
    return (gg_g, gx if c.needs[1] else None,
            D.neg(gx) if c.needs[2] and gx is not None else None)


register(
    Op("log_softmax", "LogSoftmaxBackward0", ("self",), _log_softmax, _log_softmax_bw,
       (Save("result"),), ("dim",)),
    Op("softmax", "SoftmaxBackward0", ("self",), _softmax, _softmax_bw, (Save("result"),),
       ("dim",)),
    Op("softmax_backward_data", "SoftmaxBackwardDataBackward0", ("grad_output", "output"),
       _softmax_data_fwd, _softmax_data_bw, (Save("grad_output", (1,)), Save("output")),
       ("dim",)),
    Op("log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0", ("grad_output", "output"),
       _log_softmax_data_fwd, _log_softmax_data_bw, (Save("grad_output", (1,)), Save("output")),
       ("dim",)),
    Op("mse_loss_backward", "MseLossBackwardBackward0", ("grad_output", "self", "target"),
       _mse_data_fwd, _mse_data_bw, (Save("grad_output"), Save("self"), Save("target")),
       ("reduction",), dtype_of=1),
    Op("mse_loss", "MseLossBackward0", ("self", "target"), _mse_fwd, _mse_bw,
       (Save("self"), Save("target")), ("reduction",)),
    Op("nll_loss_backward", "NllLossBackwardBackward0", ("grad_output", "self"), _nll_data_fwd,
       _nll_data_bw, (Save("target"), Save("weight")), ("ignore_index", "reduction")),
    Op("nll_loss", "NllLossBackward0", ("self",), _nll_fwd, _nll_bw,
       (Save("self"), Save("target"), Save("total_weight"), Save("weight")),
       ("ignore_index", "reduction"), extras=("total_weight",)),
    # NB: PyTorch's kernels for (N, C, H, W) inputs: the same formulas, nodes of their own
    Op("nll_loss2d_backward", "NllLoss2DBackwardBackward0", ("grad_output", "self"),
       _nll_data_fwd, lambda c, gg, D: _nll_data_bw(c, gg, D, "nll_loss2d"),
       (Save("target"), Save("weight")), ("ignore_index", "reduction")),
    Op("nll_loss2d", "NllLoss2DBackward0", ("self",), _nll_fwd,
       lambda c, g, D: _nll_bw(c, g, D, "nll_loss2d_backward"),
       (Save("self"), Save("target"), Save("total_weight"), Save("weight")),
       ("ignore_index", "reduction"), extras=("total_weight",)),
    Op("binary_cross_entropy_backward", "BinaryCrossEntropyBackwardBackward0",
       ("grad_output", "self", "target"), _bce_data_fwd, _bce_data_bw,
       (Save("grad_output"), Save("self"), Save("target"), Save("weight")), ("reduction",)),
    Op("binary_cross_entropy", "BinaryCrossEntropyBackward0", ("self", "target"), _bce_fwd,
       _bce_bw, (Save("self"), Save("target"), Save("weight")), ("reduction",)),
    Op("binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
       ("self", "target"), _bce_logits_fwd, _bce_logits_bw,
       (Save("pos_weight"), Save("self"), Save("target"), Save("weight")), ("reduction",)),
    Op("smooth_l1_loss_backward", "SmoothL1LossBackwardBackward0",
       ("grad_output", "self", "target"), _smooth_l1_data_fwd, _smooth_l1_data_bw,
       (Save("grad_output"), Save("self"), Save("target")), ("beta", "reduction"), dtype_of=1),
    Op("smooth_l1_loss", "SmoothL1LossBackward0", ("self", "target"), _smooth_l1_fwd,
       _smooth_l1_bw, (Save("self"), Save("target")), ("beta", "reduction")),
)
