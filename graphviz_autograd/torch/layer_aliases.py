"""The layer functions PyTorch also exposes at the top level (``torch.conv2d``,
``torch.layer_norm``, ``torch.kl_div``, ...), with the positional forms of their aten
signatures: a loss's ``reduction`` is a number (0 none, 1 mean, 2 sum; none when not given, as
PyTorch's bindings take it), a dropout's ``train`` is required, ``torch.embedding`` takes the
weight first. Each runs ``torch.nn.functional``'s code, so the graph is the same."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..engine.optable import TABLE
from ..engine.tensor import Tensor
from .nn import functional as F
from .nn.functional_layers import _feature_dropout
from .nn.functional_more import _alpha_dropout
from .nn.functional_sampling import affine_grid_generator, grid_sampler

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d",
           "adaptive_avg_pool1d", "adaptive_max_pool1d", "max_pool1d_with_indices", "dropout",
           "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout", "feature_dropout_",
           "feature_alpha_dropout", "feature_alpha_dropout_", "layer_norm", "group_norm",
           "batch_norm", "instance_norm", "rms_norm", "embedding", "pixel_shuffle",
           "pixel_unshuffle", "kl_div", "binary_cross_entropy_with_logits",
           "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
           "poisson_nll_loss", "triplet_margin_loss", "ctc_loss", "rrelu", "rrelu_",
           "constant_pad_nd", "bilinear", "pdist", "channel_shuffle", "grid_sampler",
           "affine_grid_generator", "native_layer_norm", "native_batch_norm",
           "native_group_norm", "native_dropout", "conv_tbc",
           "native_channel_shuffle", "embedding_bag", "convolution", "grid_sampler_2d",
           "grid_sampler_3d"]

_REDUCTIONS = ("none", "mean", "sum")

conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d = F.conv_transpose1d, F.conv_transpose2d
conv_transpose3d = F.conv_transpose3d
avg_pool1d, adaptive_avg_pool1d = F.avg_pool1d, F.adaptive_avg_pool1d
pixel_shuffle, pixel_unshuffle = F.pixel_shuffle, F.pixel_unshuffle
bilinear, pdist, channel_shuffle = F.bilinear, F.pdist, F.channel_shuffle
rms_norm, conv_tbc, native_channel_shuffle = F.rms_norm, F.conv_tbc, F.native_channel_shuffle


def _stride(stride: Any) -> Any:
    return None if stride is None or (isinstance(stride, tuple | list) and not stride) \
        else stride


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    return F.max_pool1d(input, kernel_size, _stride(stride),
                        padding, dilation, ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False) -> Any:
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode, True)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    return F.max_pool2d(input, kernel_size, _stride(stride),
                        padding, dilation, ceil_mode)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    return F.max_pool3d(input, kernel_size, _stride(stride),
                        padding, dilation, ceil_mode)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> Any:
    """The pooled values and their indices (the aten op returns both)."""
    return F.adaptive_max_pool1d(input, output_size, True)


# -- dropouts: aten's check of p is a RuntimeError ----------------------------------------------
def _check(p: float) -> None:
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    _check(p)
    return F.dropout(input, p, train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    _check(p)
    return F.dropout(input, p, train, inplace=True)


def _feature(input: Tensor, p: float, train: bool, inplace: bool) -> Tensor:
    _check(p)
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _feature_dropout(input, p, train, inplace)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return _feature(input, p, train, False)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return _feature(input, p, train, True)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    _check(p)
    return _alpha_dropout(input, p, train, False, feature=False)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    _check(p)
    return _alpha_dropout(input, p, train, True, feature=False)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    _check(p)
    return _alpha_dropout(input, p, train, False, feature=True)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    _check(p)
    return _alpha_dropout(input, p, train, True, feature=True)


# -- normalizations -------------------------------------------------------------------------------
def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5, cudnn_enable: bool = True
               ) -> Tensor:
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5, cudnn_enabled: bool = True
               ) -> Tensor:
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                  running_mean: Tensor | None, running_var: Tensor | None,
                  use_input_stats: bool, momentum: float, eps: float, cudnn_enabled: bool
                  ) -> Tensor:
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The weight first; a negative ``padding_idx`` is none."""
    return F.embedding(indices, weight, padding_idx if padding_idx >= 0 else None,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    return F.rrelu(input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False, generator: Any = None) -> Tensor:
    return F.rrelu_(input, lower, upper, training)


def constant_pad_nd(input: Tensor, pad: Any, value: float = 0) -> Tensor:
    return F.pad(input, pad, "constant", value)


# -- losses: reduction as a number, none by default ----------------------------------------------
def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False
           ) -> Tensor:
    with warnings.catch_warnings():
        # NB: aten's mean is the elementwise one, without F's warning about 'batchmean'
        warnings.simplefilter("ignore")
        return F.kl_div(input, target, reduction=_REDUCTIONS[reduction], log_target=log_target)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = 0
                                     ) -> Tensor:
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_REDUCTIONS[reduction],
                                              pos_weight=pos_weight)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_REDUCTIONS[reduction])


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0
                         ) -> Tensor:
    return F.hinge_embedding_loss(input, target, margin, reduction=_REDUCTIONS[reduction])


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_REDUCTIONS[reduction])


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_REDUCTIONS[reduction])


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False, reduction: int = 0
                        ) -> Tensor:
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_REDUCTIONS[reduction])


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: int = 0, zero_infinity: bool = False) -> Tensor:
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _REDUCTIONS[reduction], zero_infinity)


# -- the native norms: the output and the statistics the backward uses --------------------------
def _with_stats(out: Tensor, key: str, forward: Any) -> tuple[Tensor, Tensor, Tensor]:
    """The output of a norm, and the two statistics its node saved (``result1``,
    ``result2``), not differentiable, as PyTorch returns them; where no node was made, the
    forward's."""
    fn = out._grad_fn
    if fn is not None and fn.name() == TABLE[key].name:
        saved: Any = fn._saved
        stats = [Tensor._make(saved[k].unpack(fn, False), out._dtype)
                 for k in ("result1", "result2")]
        return out, stats[0], stats[1]
    res = forward()
    return out, Tensor._make(res[1], out._dtype), Tensor._make(res[2], out._dtype)


def native_layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None,
                      bias: Tensor | None, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(output, mean, rstd): the statistics over the normalized dims, kept as size-1 dims."""
    out = F.layer_norm(input, normalized_shape, weight, bias, eps)
    shape = tuple(int(n) for n in normalized_shape)
    return _with_stats(out, "native_layer_norm", lambda: TABLE["native_layer_norm"].forward(
        input._data, None if weight is None else weight._data,
        None if bias is None else bias._data, normalized_shape=shape, eps=eps))


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                      running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                      momentum: float, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(output, save_mean, save_invstd): the batch statistics in training, empty in
    evaluation; the running statistics updated in training."""
    from ..engine.autograd import apply
    out = apply(TABLE["native_batch_norm"], (input, weight, bias),
                {"running_mean": running_mean, "running_var": running_var,
                 "training": bool(training), "momentum": momentum, "eps": eps},
                dtype=input._dtype)
    return out[0], out[1].detach(), out[2].detach()


def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int,
                      C: int, HxW: int, group: int, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(output, mean, rstd) per (sample, group); all three outputs of the node, as PyTorch's."""
    from ..engine.autograd import apply
    out = apply(TABLE["native_group_norm"], (input, weight, bias),
                {"N": N, "C": C, "HxW": HxW, "group": group, "eps": eps}, dtype=input._dtype)
    return out[0], out[1], out[2]


def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:
    """(output, mask): the mask drawn as ``dropout`` draws it (all true outside training), the
    output the input times mask / (1 - p) (NativeDropoutBackward0, whatever ``train``)."""
    from ..engine import dtypes as dt
    from ..engine import random as rnd
    from ..engine.autograd import apply
    if train is None or train:
        mask = np.empty(input._data.shape, np.bool_)
        rnd.fill(mask, rnd.bernoulli(rnd.default_generator, mask.size, 1 - p))
    else:
        mask = np.ones(input._data.shape, np.bool_)
    op = TABLE["native_dropout"]
    kw = {"p": float(p), "train": train, "mask": mask}
    out = apply(op, (input,), kw, dtype=input._dtype)
    return out, Tensor._make(mask, dt.bool_)


def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor,
                  scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(output, offset2bag, bag_size, max_indices), the weight first and the mode a number
    (0 sum, 1 mean, 2 max), as aten's embedding_bag."""
    from ..engine import dtypes as dt
    out = F.embedding_bag(indices, weight, offsets, scale_grad_by_freq=scale_grad_by_freq,
                          mode=("sum", "mean", "max")[mode], sparse=sparse,
                          per_sample_weights=per_sample_weights,
                          include_last_offset=include_last_offset,
                          padding_idx=padding_idx if padding_idx is None or padding_idx >= 0
                          else None)
    fn = out._grad_fn
    if fn is not None and fn.name() == TABLE["embedding_bag"].name:
        saved: Any = fn._saved
        extras = [saved[k].unpack(fn, False) for k in ("result1", "result2", "result3")]
    else:
        n = weight.size(0)
        pad = -1 if padding_idx is None else padding_idx % n
        res = TABLE["embedding_bag"].forward(
            weight._data, None if per_sample_weights is None else per_sample_weights._data,
            indices=indices._data, offsets=offsets._data, mode=mode, padding_idx=pad,
            scale_grad_by_freq=bool(scale_grad_by_freq), sparse=False, weight_sym_argsize_0=n,
            include_last_offset=include_last_offset, weighted=per_sample_weights is not None)
        extras = [res[1][k] for k in ("result1", "result2", "result3")]
    a, b, c = (Tensor._make(np.asarray(e, np.int64), dt.int64) for e in extras)
    return out, a, b, c


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
                dilation: Any, transposed: bool, output_padding: Any, groups: int) -> Tensor:
    """aten's convolution: a (transposed) convolution of as many dims as the weight has past
    two (ConvolutionBackward0)."""
    n = weight.dim() - 2
    if transposed:
        conv_t = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation)
    conv = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    return conv(input, weight, bias, stride, padding, dilation, groups)


def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)
