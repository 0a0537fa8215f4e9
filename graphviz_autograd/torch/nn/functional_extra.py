"""``torch.nn.functional``'s bags of embeddings (``embedding_bag``: EmbeddingBagBackward0), the
3-d pools (``max_pool3d``, ``avg_pool3d``, ``adaptive_avg_pool3d``) and the triplet loss with a
distance function of one's own (a composite, as PyTorch's), and the CTC loss
(CtcLossBackward0)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine import dtypes as _dt
from ...engine.autocast import fp32 as _amp_fp32
from ...engine.autocast import state as _amp
from ...engine.autograd import apply as _apply
from ...engine.autograd import wrap as _wrap
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor

__all__ = ["embedding_bag", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d",
           "triplet_margin_with_distance_loss", "ctc_loss"]

_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """The sums, means or maxima of bags of rows of ``weight`` (EmbeddingBagBackward0).

    >>> import graphviz_autograd.torch as torch
    >>> w = torch.arange(6.0).view(3, 2)
    >>> embedding_bag(torch.tensor([0, 2, 1]), w, torch.tensor([0, 2]), mode="sum")
    tensor([[4., 6.],
            [2., 3.]])
    """
    from .functional import _embedding_renorm_
    psw = per_sample_weights
    if psw is not None and tuple(input._data.shape) != tuple(psw._data.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({psw.shape}) is not None, "
                         f"then it must have the same shape as the input ({input.shape})")
    if weight._data.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight._data.ndim}")
    if input._data.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {_type_name(offsets)}")
        rows, length = input._data.shape
        offsets = _wrap(np.arange(0, rows * length, length, dtype=input._data.dtype))
        input = _wrap(input._data.reshape(-1))
        if psw is not None:
            psw = psw.reshape(-1)
    elif input._data.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets._data.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input._data.ndim}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    n = weight._data.shape[0]
    idx = input._data
    if max_norm is not None:
        _embedding_renorm_(weight, idx, float(max_norm), float(norm_type))
    if psw is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < n, "padding_idx must be within the number of embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -n, "padding_idx must be within the number of embeddings"
            padding_idx = n + padding_idx
    else:
        padding_idx = -1
    if input._dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError("expected scalar type Long but found "
                           f"{input._dtype.name.capitalize()}")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    if sparse:
        raise NotImplementedError("sparse gradients are not supported by this engine")
    kw = {"indices": input, "offsets": offsets, "mode": _MODES[mode], "padding_idx": padding_idx,
          "scale_grad_by_freq": bool(scale_grad_by_freq), "sparse": False,
          "weight_sym_argsize_0": n, "include_last_offset": include_last_offset,
          "weighted": psw is not None}
    return _apply(_T["embedding_bag"], (weight, psw), kw, dtype=weight._dtype)




def _type_name(v: Any) -> str:
    return "<class 'torch.Tensor'>" if isinstance(v, Tensor) else str(type(v))


# -- 3-d pools ---------------------------------------------------------------------------------
def _triple(name: str, what: str, value: Any, default: tuple[int, ...] | None = None
            ) -> tuple[int, ...]:
    if value is None or (isinstance(value, tuple | list) and not value and default is not None):
        return default or ()
    out = tuple(int(v) for v in value) if isinstance(value, tuple | list) else (int(value),)
    if len(out) == 1:
        out = out * 3
    if len(out) != 3:
        omitted = "omitted, " if what == "stride" else ""
        # NB: PyTorch's words differ by pool and argument
        verb = "must be" if name == "avg_pool3d" else \
            "must be either" if what == "dilation" else "must either be"
        raise RuntimeError(f"{name}: {what} {verb} {omitted}a single int, or a tuple of three "
                           f"ints")
    return out


def _check_pool3d(input: Tensor, kernel: tuple[int, ...], stride: tuple[int, ...],
                  padding: tuple[int, ...], dilation: tuple[int, ...], ceil_mode: bool,
                  average: bool = False) -> None:
    from ...engine.ops_conv import pool_out
    from .functional import _check_half_kernel, _check_positive
    shape = input._data.shape
    if any(s == 0 for s in stride or kernel):
        raise RuntimeError("stride should not be zero")
    _check_positive(kernel, stride or kernel, dilation, ("T", "H", "W"))
    if input._data.ndim not in (4, 5) or 0 in shape[-4:]:
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    _check_half_kernel(kernel, padding, dilation)
    if average and any(n < k for n, k in zip(shape[-3:], kernel, strict=True)):
        t, h, w = shape[-3:]
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: "
                           f"{kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
    out = [pool_out(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
           zip(shape[-3:], kernel, stride or kernel, padding, dilation, strict=True)]
    if any(o < 1 for o in out):
        c = shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{'x'.join(map(str, shape[-3:]))}). "
                           f"Calculated output size: ({c}x{'x'.join(map(str, out))}). Output "
                           f"size is too small")


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maxima of 3-d windows (MaxPool3DWithIndicesBackward0)."""
    if _amp.dtype is not None:
        return _amp_fp32(max_pool3d, input, kernel_size, stride, padding, dilation, ceil_mode,
                         return_indices)
    name = "max_pool3d"
    kernel = _triple(name, "kernel_size", kernel_size)
    strides = _triple(name, "stride", stride, ())
    pads = _triple(name, "padding", padding)
    dil = _triple(name, "dilation", dilation)
    _check_pool3d(input, kernel, strides, pads, dil, ceil_mode)
    kw = {"kernel_size": kernel, "stride": strides, "padding": pads, "dilation": dil,
          "ceil_mode": bool(ceil_mode)}
    from .functional import _max_pool_with_indices
    return _max_pool_with_indices("max_pool3d_with_indices", input, kw, return_indices)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The means of 3-d windows (AvgPool3DBackward0)."""
    if _amp.dtype is not None:
        return _amp_fp32(avg_pool3d, input, kernel_size, stride, padding, ceil_mode,
                         count_include_pad, divisor_override)
    name = "avg_pool3d"
    kernel = _triple(name, "kernel_size", kernel_size)
    strides = _triple(name, "stride", stride, ())
    pads = _triple(name, "padding", padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool3d(input, kernel, strides, pads, (1, 1, 1), ceil_mode, average=True)
    return _apply(_T["avg_pool3d"], (input,),
                  {"kernel_size": kernel, "stride": strides, "padding": pads,
                   "ceil_mode": bool(ceil_mode), "count_include_pad": bool(count_include_pad),
                   "divisor_override": divisor_override}, dtype=input._dtype)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """The means of 3-d windows that cover the input in ``output_size`` cells
    (AdaptiveAvgPool3DBackward0)."""
    if _amp.dtype is not None:
        return _amp_fp32(adaptive_avg_pool3d, input, output_size)
    from ...engine import functional as _F
    shape = input._data.shape
    if input._data.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"[{', '.join(map(str, shape))}]")
    given = list(output_size) if isinstance(output_size, tuple | list) else [output_size] * 3
    size = tuple(int(shape[-3 + i] if s is None else s) for i, s in enumerate(given))
    if size == (1, 1, 1):
        # NB: PyTorch takes a global average as a mean over the last three dims
        return _F.mean(input, (-1, -2, -3), keepdim=True)
    return _apply(_T["adaptive_avg_pool3d"], (input,), {"output_size": size},
                  dtype=input._dtype)


# -- triplet loss with a distance function -----------------------------------------------------
def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Any = None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean") -> Tensor:
    """``max(margin + d(a, p) - d(a, n), 0)``, reduced, built of the distance's own nodes."""
    from ...engine import functional as _F
    from .functional import pairwise_distance
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a_dim}D, positive "
                           f"{p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_swap = distance_function(positive, negative)
        dist_neg = _F.binary("minimum", dist_neg, dist_swap)
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss


# -- connectionist temporal classification ------------------------------------------------------
def _lengths(value: Any) -> tuple[int, ...]:
    if isinstance(value, Tensor):
        return tuple(int(v) for v in value._data.reshape(-1))
    return tuple(int(v) for v in value)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The negative log likelihood of each target under all its alignments (CtcLossBackward0);
    ``mean`` divides each by its target length before the mean, as PyTorch does."""
    if _amp.dtype is not None:
        return _amp_fp32(ctc_loss, log_probs, targets, input_lengths, target_lengths, blank,
                         reduction, zero_infinity)
    from ...engine import functional as _F
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_probs._data.ndim != 3:
        raise NotImplementedError("F.ctc_loss on unbatched (2-d) log_probs is not supported by "
                                  "graphviz_autograd")
    il, tl = _lengths(input_lengths), _lengths(target_lengths)
    steps, batch = log_probs._data.shape[:2]
    where = "(while checking arguments for ctc_loss_allocate_outputs)"
    if len(il) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if targets._data.ndim == 2 and targets._data.shape[0] != batch:
        raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got size "
                           f"{targets._data.shape[0]} for argument #2 'targets' {where}")
    for n in il:
        if n > steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got "
                               f"value {n} {where}")
    res = _apply(_T["ctc_loss"], (log_probs,),
                 {"targets": targets, "input_lengths": il, "target_lengths": tl,
                  "blank": int(blank), "zero_infinity": bool(zero_infinity)},
                 dtype=log_probs._dtype)
    if zero_infinity:
        inf = _wrap(np.asarray(res._data == np.inf))
        res = _F.where(inf, _wrap(np.zeros((), dtype=res._data.dtype)), res)
    if reduction == "mean":
        lengths = _wrap(np.maximum(np.asarray(tl, dtype=res._data.dtype), 1))
        return _F.div(res, lengths).mean()
    if reduction == "sum":
        return res.sum()
    return res
