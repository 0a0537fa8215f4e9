"""``torch.nn.functional``'s distances and its less common losses (huber, kl_div, the margin
losses, poisson and gaussian nll), each one node where PyTorch has one kernel, else decomposed
into the nodes PyTorch's composite makes, in its order."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ...engine import dtypes as _dt
from ...engine import functional as _F
from ...engine import messages as _msg
from ...engine.autocast import fp32 as _amp_fp32
from ...engine.autocast import state as _amp
from ...engine.autograd import apply as _apply
from ...engine.factories import full_like, zeros_like
from ...engine.grad_mode import no_grad
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor

__all__ = ["huber_loss", "kl_div", "cosine_similarity", "pairwise_distance", "logsigmoid",
           "soft_margin_loss", "margin_ranking_loss", "hinge_embedding_loss",
           "cosine_embedding_loss", "triplet_margin_loss", "multilabel_soft_margin_loss",
           "poisson_nll_loss", "gaussian_nll_loss", "multi_margin_loss",
           "multilabel_margin_loss"]

_REDUCTION = {"none": 0, "mean": 1, "sum": 2}
_NONE, _MEAN, _SUM = 0, 1, 2


def _enum(reduction: str, size_average: Any = None, reduce: Any = None) -> int:
    from .functional import _reduction
    return _reduction(reduction, size_average, reduce)


def _legacy_string(reduction: str, size_average: Any, reduce: Any) -> str:
    from .functional import legacy_reduction
    return legacy_reduction(size_average, reduce) if size_average is not None \
        or reduce is not None else reduction


def _apply_reduction(loss: Tensor, red: int) -> Tensor:
    """PyTorch's apply_loss_reduction: mean(), sum() or the loss itself."""
    return _F.mean(loss) if red == _MEAN else _F.sum(loss) if red == _SUM else loss


def _with_scalar(key: str, t: Tensor, value: float) -> Tensor:
    """C++'s ``Tensor + Scalar`` (``-``): AddBackward1 / SubBackward1, no wrapped number."""
    return _apply(_T[key], (t,), {"other": value}, dtype=t._dtype)


def _scalar_minus(value: float, t: Tensor) -> Tensor:
    """C++'s ``Scalar - Tensor``: a tensor like ``t`` filled with ``value``, minus ``t`` in place
    (SubBackward0 with no edge for the filled tensor)."""
    out = full_like(t, value)
    return out.sub_(t)


def _floating_kernel(name: str, *ts: Tensor) -> _dt.DType:
    dtype = _F.promote(*ts)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                  f"'{_msg.SCALAR_NAME.get(dtype.name, dtype.name)}'")
    return dtype


# -- huber, soft margin ---------------------------------------------------------------------------
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """One HuberLossBackward0 (with ``weight``: the unreduced loss times it, then reduced)."""
    if _amp.dtype is not None:
        return _amp_fp32(huber_loss, input, target, reduction, delta, weight)
    from .functional import _broadcast_pair
    input, target = _broadcast_pair(input, target)
    if weight is None:
        red = _enum(reduction)
    else:
        if weight._data.shape != input._data.shape:
            raise ValueError("Weights and input must have the same size.")
        red = _NONE
    _floating_kernel("huber", input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    loss = _apply(_T["huber_loss"], (input, target), {"reduction": red, "delta": float(delta)},
                  dtype=input._dtype)
    if weight is None:
        return loss
    return weighted_reduction(_F.mul(loss, weight), weight, reduction, by_weights=False)


def weighted_reduction(loss: Tensor, weight: Tensor, reduction: str, by_weights: bool) -> Tensor:
    """A loss already times its weights, reduced as PyTorch's weighted composites reduce it: a
    mean over the elements, or (``by_weights``: mse and l1) divided by the weights' sum."""
    if reduction == "none":
        return loss
    if reduction == "sum":
        return _F.sum(loss)
    if reduction == "mean":
        return _F.div(_F.sum(loss), _F.sum(weight)) if by_weights else _F.mean(loss)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def _not_differentiable(fn: str, arg: str, t: Tensor | None) -> None:
    from ...engine.grad_mode import is_grad_enabled
    if t is not None and t.requires_grad and is_grad_enabled():
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument "
                           f"'{arg}'. This input cannot have requires_grad True.")


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None,
                     reduce: Any = None, reduction: str = "mean") -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(soft_margin_loss, input, target, size_average, reduce, reduction)
    red = _enum(reduction, size_average, reduce)
    _not_differentiable("soft_margin_loss", "target", target)
    if input._data.shape != target._data.shape:
        text = _msg.size_mismatch(input._data.shape, target._data.shape)
        if text is not None:
            raise RuntimeError(text)
    return _apply(_T["soft_margin_loss"], (input,), {"target": target, "reduction": red},
                  dtype=input._dtype)


# -- kl_div ---------------------------------------------------------------------------------------
_KL_MEAN = ("reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.")


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """As PyTorch: ``xlogy(t, t) - t * input`` (``exp(t) * (t - input)`` for a log target),
    reduced; 'batchmean' is the sum divided by the batch size."""
    if _amp.dtype is not None:
        return _amp_fp32(kl_div, input, target, size_average, reduce, reduction, log_target)
    if size_average is not None or reduce is not None:
        red = _enum(reduction, size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(_KL_MEAN, UserWarning, stacklevel=2)
        red = _enum("sum" if reduction == "batchmean" else reduction)
    # NB: C++ computes a binary operator's right operand first
    if log_target:
        diff = _F.sub(target, input)
        out = _F.mul(target.exp(), diff)
    else:
        prod = _F.mul(target, input)
        out = _F.sub(_F.xlogy(target, target), prod)
    out = _apply_reduction(out, red)
    if reduction == "batchmean" and input._data.ndim != 0:
        out = _F.div(out, input._data.shape[0])
    return out


# -- distances ------------------------------------------------------------------------------------
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """As at::cosine_similarity: each input over its norm (a clone of the norm, clamped in
    place without grad), their product summed over ``dim``."""
    dtype = _F.promote(x1, x2)
    if not dtype.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_msg.SCALAR_NAME.get(dtype.name, dtype.name)}")
    if not x1._dtype.is_floating_point:
        x1 = _F.to_dtype(x1, dtype)
    if not x2._dtype.is_floating_point:
        x2 = _F.to_dtype(x2, dtype)
    if x1._data.shape != x2._data.shape:
        _F._check_broadcast(x1, x2)
        shape = np.broadcast_shapes(x1._data.shape, x2._data.shape)
        x1, x2 = _F.expand(x1, shape), _F.expand(x2, shape)
    n1 = _F.clone(x1.norm(2, dim, keepdim=True))
    n2 = _F.clone(x2.norm(2, dim, keepdim=True))
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    q2 = _F.div(x2, n2)                     # NB: C++'s right operand first
    return _F.sum(_F.mul(_F.div(x1, n1), q2), dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """As at::pairwise_distance: ``norm(x1 - x2 + eps, p, last dim)`` (NormBackward1)."""
    last = max(x1._data.ndim, x2._data.ndim) - 1
    diff = _with_scalar("add_scalar", _F.sub(x1, x2), eps)
    return _norm_p(diff, p, last, keepdim)


def _norm_p(t: Tensor, p: float, dim: int, keepdim: bool) -> Tensor:
    """at::norm(t, p, dim, keepdim): NormBackward1."""
    ndim = max(t._data.ndim, 1)
    d = _F._dim(dim, ndim)
    return _apply(_T["norm_p"], (t,), {"p": float(p), "dim": (d,), "keepdim": bool(keepdim)},
                  dtype=t._dtype)


def logsigmoid(input: Tensor) -> Tensor:
    out = _apply(_T["log_sigmoid"], (input,), dtype=input._dtype)
    return out


# -- the margin losses ----------------------------------------------------------------------------
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(margin_ranking_loss, input1, input2, target, margin, size_average, reduce,
                         reduction)
    red = _enum(reduction, size_average, reduce)
    if not (input1._data.ndim == input2._data.ndim == target._data.ndim):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    out = _with_scalar("add_scalar", _F.mul(_F.neg(target), _F.sub(input1, input2)), margin)
    return _apply_reduction(out.clamp_min_(0), red)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(hinge_embedding_loss, input, target, margin, size_average, reduce,
                         reduction)
    red = _enum(reduction, size_average, reduce)
    zeros = zeros_like(input)
    margin_clamp = _scalar_minus(margin, input).clamp_min_(0)
    out_margin = _F.where(_F.compare(np.not_equal, target, 1), margin_clamp, zeros)
    out_self = _F.where(_F.compare(np.not_equal, target, -1), input, zeros)
    return _apply_reduction(_F.add(out_margin, out_self), red)


_EPSILON = 1e-12


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(cosine_embedding_loss, input1, input2, target, margin, size_average,
                         reduce, reduction)
    red = _enum(reduction, size_average, reduce)
    tdim = target._data.ndim
    if tdim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if tdim == 1 else 1
    if input1._data.ndim != want or input2._data.ndim != want:
        raise RuntimeError(f"{tdim}D target tensor expects {want}D input tensors, but found "
                           f"inputs with sizes {_sizes(input1)} and {_sizes(input2)}.")
    prod_sum = _F.sum(_F.mul(input1, input2), tdim)
    mag1 = _with_scalar("add_scalar", _F.sum(_F.mul(input1, input1), tdim), _EPSILON)
    mag2 = _with_scalar("add_scalar", _F.sum(_F.mul(input2, input2), tdim), _EPSILON)
    denom = _F.mul(mag1, mag2).sqrt_()
    cos = _F.div(prod_sum, denom)
    zeros = zeros_like(cos)
    pos = _scalar_minus(1, cos)
    neg = _with_scalar("sub_scalar", cos, margin).clamp_min_(0)
    out_pos = _F.where(_F.compare(np.equal, target, 1), pos, zeros)
    out_neg = _F.where(_F.compare(np.equal, target, -1), neg, zeros)
    return _apply_reduction(_F.add(out_pos, out_neg), red)


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(map(str, t._data.shape)) + "]"


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(triplet_margin_loss, anchor, positive, negative, margin, p, eps, swap,
                         size_average, reduce, reduction)
    red = _enum(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor._data.ndim, positive._data.ndim, negative._data.ndim)
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {dims[0]}D, positive "
                           f"{dims[1]}D, and negative {dims[2]}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_swap = pairwise_distance(positive, negative, p, eps)
        dist_neg = _apply(_T["minimum"], (dist_neg, dist_swap),
                          dtype=_F.promote(dist_neg, dist_swap))
    out = _F.sub(_with_scalar("add_scalar", dist_pos, margin), dist_neg).clamp_min(0)
    return _apply_reduction(out, red)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: Any = None, reduce: Any = None,
                                reduction: str = "mean") -> Tensor:
    reduction = _legacy_string(reduction, size_average, reduce)
    loss = _F.neg(_F.add(_F.mul(target, logsigmoid(input)),
                         _F.mul(_F.rsub(target, 1), logsigmoid(_F.neg(input)))))
    if weight is not None:
        loss = _F.mul(loss, weight)
    class_dim = input._data.ndim - 1
    loss = _F.div(_F.sum(loss, class_dim), input._data.shape[class_dim])
    if reduction == "none":
        return loss
    if reduction == "mean":
        return _F.mean(loss)
    if reduction == "sum":
        return _F.sum(loss)
    raise ValueError(reduction + " is not valid")


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average: Any = None,
                      reduce: Any = None, reduction: str = "mean") -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(multi_margin_loss, input, target, p, margin, weight, size_average, reduce,
                         reduction)
    red = _enum(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight._data.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    _not_differentiable("multi_margin_loss", "weight", weight)
    x = input._data
    nframe = 1 if x.ndim <= 1 else x.shape[0]
    dim = 1 if x.ndim == 0 else x.shape[-1]
    if not (x.ndim <= 2 and dim > 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {_sizes(input)}")
    t = target._data
    if not (t.ndim <= 1 and t.size == nframe):
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{nframe}], but got {_sizes(target)}. Input has shape "
                           f"{_sizes(input)}.")
    if weight is not None and weight._data.size != dim:
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got "
                           f"{_sizes(weight)}")
    if t.size and (t.min() < 0 or t.max() >= dim):
        raise RuntimeError("target out of range")
    return _apply(_T["multi_margin_loss"], (input,),
                  {"target": target, "p": int(p), "margin": float(margin), "weight": weight,
                   "reduction": red}, dtype=input._dtype)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None,
                           reduce: Any = None, reduction: str = "mean") -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(multilabel_margin_loss, input, target, size_average, reduce, reduction)
    red = _enum(reduction, size_average, reduce)
    x, t = input._data, target._data
    dim = 1 if x.ndim == 0 else x.shape[-1]
    if not ((x.ndim <= 1 and t.ndim <= 1 and t.size == dim)
            or (x.ndim == 2 and x.shape[0] and x.shape[1] and t.shape == x.shape)):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {_sizes(input)}" if x.ndim > 2 or not x.size else
                           f"inconsistent target size: {_sizes(target)} for input of size: "
                           f"{_sizes(input)}")
    if t.size and (t.min() < -1 or t.max() >= dim):
        raise RuntimeError("argument #2 'target' is out of range")
    return _apply(_T["multilabel_margin_loss"], (input,), {"target": target, "reduction": red},
                  dtype=input._dtype)


# -- poisson and gaussian nll ---------------------------------------------------------------------
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(poisson_nll_loss, input, target, log_input, full, size_average, eps,
                         reduce, reduction)
    reduction = _legacy_string(reduction, size_average, reduce)
    if reduction not in _REDUCTION:
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        prod = _F.mul(target, input)        # NB: C++'s right operand first
        loss = _F.sub(input.exp(), prod)
    else:
        loss = _F.sub(input, _F.mul(target, _with_scalar("add_scalar", input, eps).log()))
    if full:
        # NB: t * log(t) - t + 0.5 * log(2 * pi * t), zero where t <= 1, added in place
        with np.errstate(all="ignore"):       # NB: 0 * log(0) is nan, masked below
            stirling = _F.add(_F.sub(_F.mul(target, target.log()), target),
                              _F.mul(_F.mul(target, 2 * math.pi).log(), 0.5))
        loss = loss.add_(stirling.masked_fill(_F.compare(np.less_equal, target, 1), 0))
    return _apply_reduction(loss, _REDUCTION[reduction])


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Any, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    if isinstance(var, float | int) and not isinstance(var, bool):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _F.wrap(np.ones_like(input._data))
    elif bool(np.any(var._data < 0)):
        raise ValueError("var has negative entry/entries")
    if var._data.shape != input._data.shape:
        if input._data.shape[:-1] == var._data.shape:
            var = _F.unsqueeze(var, -1)
        elif not (input._data.ndim == var._data.ndim and sum(
                y for x, y in zip(input._data.shape, var._data.shape, strict=True)
                if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTION:
        raise ValueError(reduction + " is not valid")
    var = _F.clone(var)
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, _REDUCTION[reduction])
