"""More of ``torch.nn.functional``: circular padding (slices and copies, as PyTorch builds
it), the fractional max pools (FractionalMaxPool2DBackward0 / 3DBackward0, their windows drawn
from ``torch.rand``), ``linear_cross_entropy`` (PyTorch 2.13's reference path) and ``conv_tbc``
(ConvTbcBackward0)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...engine import functional as _F
from ...engine.autograd import apply as _apply
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor
from . import functional as F
from .functional import _max_pool_with_indices
from .functional_more import _sizes, _tuple

__all__ = ["pad_circular", "fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices",
           "linear_cross_entropy", "conv_tbc"]


# -- circular padding -----------------------------------------------------------------------------
def pad_circular(input: Tensor, pads: tuple[int, ...]) -> Tensor:
    """F.pad's ``circular`` mode as PyTorch builds it: a new tensor, the input's (cropped) slice
    copied into its middle, then each padded dim's left and right bands copied from the far
    side of the result, dim by dim (so CopySlices over SliceBackward0 nodes)."""
    in_shape = input._data.shape
    ndim = len(pads) // 2
    nonpadded = len(in_shape) - ndim
    if nonpadded not in (1, 2):
        raise RuntimeError(f"Invalid padding size, expected 1 or 2 non-padded dimensions, which "
                           f"would be equivalent to padding of length {(len(in_shape) - 1) * 2} "
                           f"or {(len(in_shape) - 2) * 2} respectively but got {len(pads)}")
    out_shape = list(in_shape)
    for i in range(ndim):
        pad_l, pad_r = pads[2 * (ndim - i - 1)], pads[2 * (ndim - i - 1) + 1]
        size = in_shape[nonpadded + i]
        out_shape[nonpadded + i] = size + pad_l + pad_r
        if pad_l > size or pad_r > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[nonpadded + i] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = Tensor._make(np.zeros(out_shape, input._dtype.np), input._dtype)
    out_slice, in_slice = out, input
    for i in range(ndim):
        dim = ndim - i + nonpadded - 1
        pad_l, pad_r = pads[2 * i], pads[2 * i + 1]
        out_slice = _F.slice_(out_slice, dim, max(pad_l, 0), out_shape[dim] - max(pad_r, 0))
        in_slice = _F.slice_(in_slice, dim, max(-pad_l, 0), in_shape[dim] - max(-pad_r, 0))
    out_slice.copy_(in_slice)
    for i in range(ndim):
        dim = ndim - i + nonpadded - 1
        pad_l, pad_r = pads[2 * i], pads[2 * i + 1]
        if pad_l > 0:
            end = out_shape[dim] - max(pad_r, 0)
            _F.slice_(out, dim, 0, pad_l).copy_(_F.slice_(out, dim, end - pad_l, end))
        if pad_r > 0:
            start = max(pad_l, 0)
            _F.slice_(out, dim, out_shape[dim] - pad_r, out_shape[dim]).copy_(
                _F.slice_(out, dim, start, start + pad_r))
    return out


# -- fractional max pools -------------------------------------------------------------------------
def _fractional(input: Tensor, kernel_size: Any, output_size: Any, output_ratio: Any,
                return_indices: bool, random_samples: Tensor | None, nd: int) -> Any:
    from ...engine.factories import rand
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if len(output_ratio) > nd:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple "
                             f"of Ints.")
        ratio = _tuple(output_ratio, nd)
        output_size = [int(input.size(-nd + d) * ratio[d]) for d in range(nd)]
    if random_samples is None:
        n_batch = 1 if input.dim() == nd + 1 else input.size(0)
        random_samples = rand(n_batch, input.size(-nd - 1), nd, dtype=input._dtype)
    kernel = tuple(int(k) for k in _tuple(kernel_size, nd))
    size = tuple(int(o) for o in _tuple(output_size, nd))
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{_sizes(input._data.shape)}")
    names = ("time", "height", "width")[-nd:]
    # NB: PyTorch's 3-d kernel wants the windows to end strictly inside, its 2-d one not
    where = f"{name}_out()" if nd == 3 else f"{name}()"
    for d in range(nd):
        n = input._data.shape[-nd + d]
        if size[d] + kernel[d] - 1 > n - (nd == 3):
            raise RuntimeError(f"{where}: pool {names[d]} {kernel[d]} too large relative to "
                               f"input {names[d]} {n}")
    kw = {"kernel_size": kernel, "output_size": size,
          "samples": random_samples._data.astype(input._dtype.np, copy=False)}
    return _max_pool_with_indices(name, input, kw, return_indices)


def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None,
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:
    """Max pooling over windows at pseudo-random starts (FractionalMaxPool2DBackward0); the
    starts drawn from ``torch.rand(N, C, 2)`` unless given."""
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples, 2)


def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None,
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples, 3)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> Any:
    return _fractional(input, kernel_size, output_size, output_ratio, True, _random_samples, 2)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> Any:
    return _fractional(input, kernel_size, output_size, output_ratio, True, _random_samples, 3)


# -- linear cross entropy -------------------------------------------------------------------------
def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *,
                         linear_bias: Tensor | None = None, weight: Tensor | None = None,
                         reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options: Any = None) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target)``, PyTorch's reference
    path (a weight of more than two dims scores each class at several positions). The chunked
    path (``options``) is not supported."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    shape, wshape = tuple(input._data.shape), tuple(linear_weight._data.shape)
    batches, in_features = shape[:-1], shape[-1]
    if in_features != wshape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions "
                           f"(in_features), got {in_features} and {wshape[-1]}, respectively")
    classes, out_features = wshape[0], wshape[1:-1]
    if linear_bias is not None and tuple(linear_bias._data.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got "
                           f"{tuple(linear_bias._data.shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {wshape} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape "
                           f"{shape}")
    logits_shape = (*batches, classes, *out_features)
    if tuple(target._data.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if options is not None:
        raise NotImplementedError("linear_cross_entropy(options=...) (the chunked path) is not "
                                  "supported by graphviz_autograd")
    if out_features:
        rows = math.prod(out_features, start=classes)
        linear_weight = linear_weight.reshape(rows, in_features)
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    logits = F.linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction,
                           ignore_index=-100 if ignore_index is None else ignore_index,
                           label_smoothing=label_smoothing)


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """A 1-d convolution over time of a (time, batch, channel) input (ConvTbcBackward0)."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    x, w = input._data.shape, weight._data.shape
    if x[2] != w[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if bias._data.shape[0] != w[2]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    t_out = x[0] + 2 * pad - w[0] + 1
    if t_out < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {t_out}: "
                           f"[{t_out}, {x[1]}, {w[2]}]")
    return _apply(_T["conv_tbc"], (input, weight, bias), {"pad": int(pad)}, dtype=input._dtype)
