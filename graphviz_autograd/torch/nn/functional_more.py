"""More of ``torch.nn.functional``: ``bilinear`` (views around one TrilinearBackward0),
``pdist`` (PdistBackward0), ``channel_shuffle`` (ChannelShuffleBackward0), the 3-d adaptive max
pool, max unpooling and transposed convolution, the ``*_with_indices`` pools, and the
composites PyTorch writes in Python or C++ from other ops (``local_response_norm``,
``lp_pool1d/2d/3d``, ``alpha_dropout``, ``feature_alpha_dropout``, ``gumbel_softmax``), node for
node as PyTorch builds them."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ...engine import dtypes as _dt
from ...engine import functional as _F
from ...engine import random as rnd
from ...engine.autocast import lower as _amp_lower
from ...engine.autocast import state as _amp
from ...engine.autograd import apply as _apply
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor
from . import functional as F
from .functional import _max_pool_with_indices
from .functional_layers import _conv_transpose, _unpool_output_size

__all__ = ["bilinear", "pdist", "channel_shuffle", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices", "max_unpool3d",
           "conv_transpose3d", "local_response_norm", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "alpha_dropout", "feature_alpha_dropout", "gumbel_softmax", "native_channel_shuffle"]


def _sizes(shape: Any) -> str:
    return f"[{', '.join(map(str, shape))}]"


# -- bilinear -------------------------------------------------------------------------------------
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None
             ) -> Tensor:
    """``y = x1^T A x2 + b``: both inputs flattened to rows, one ``_trilinear`` with the weight,
    the result viewed back, the bias added (PyTorch's graph).

    >>> from graphviz_autograd import torch
    >>> w = torch.ones(1, 2, 2, requires_grad=True)
    >>> y = torch.nn.functional.bilinear(torch.ones(3, 2), torch.ones(3, 2), w)
    >>> y.grad_fn.name(), y.grad_fn.next_functions[0][0].name(), y.shape
    ('ViewBackward0', 'TrilinearBackward0', torch.Size([3, 1]))
    """
    s1, s2, w = input1._data.shape, input2._data.shape, weight._data.shape
    if len(s1) != len(s2):
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {len(s1)} and "
                           f"{len(s2)}")
    for i in range(len(s1) - 1):
        if s1[i] != s2[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {s1[i]} and {s2[i]}")
    if s1[-1] != w[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {s1[-1]} "
                           f"but expected {w[1]}")
    if s2[-1] != w[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {s2[-1]} "
                           f"but expected {w[2]}")
    if bias is not None and bias._data.shape[0] != w[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias._data.shape[0]} but expected {w[0]}")
    if not (input1._dtype is input2._dtype is weight._dtype):
        names = [t._dtype.name for t in (input1, input2, weight)]
        names = ["float" if n == "float32" else "double" if n == "float64" else n
                 for n in names]
        raise RuntimeError(f"All tensors must have the same dtype, got input1: {names[0]}, "
                           f"input2: {names[1]}, weight: {names[2]}")
    out_size = (*s1[:-1], w[0])
    flat1 = input1.reshape(-1, s1[-1])
    flat2 = input2.reshape(-1, s2[-1])
    out = _apply(_T["trilinear"], (flat1, weight, flat2),
                 {"expand1": (1, 3), "expand2": (0,), "expand3": (1, 2), "sumdim": (2, 3)},
                 dtype=input1._dtype)
    out = out.reshape(*out_size)
    return out + bias if bias is not None else out


# -- pdist, channel shuffle -----------------------------------------------------------------------
def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distance of every pair of rows i < j (PdistBackward0)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input._dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return _apply(_T["pdist"], (input,), {"p": float(p)}, dtype=input._dtype)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """The channels split into ``groups`` and interleaved (ChannelShuffleBackward0)."""
    return _shuffle("channel_shuffle", input, groups)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """channel_shuffle's kernel itself: no derivative (a NotImplemented node), as PyTorch."""
    return _shuffle("native_channel_shuffle", input, groups)


def _shuffle(key: str, input: Tensor, groups: int) -> Tensor:
    shape = input._data.shape
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {_sizes(shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {shape[1]} "
                           f"channels and {groups} groups.")
    return _apply(_T[key], (input,), {"groups": int(groups)}, dtype=input._dtype)


# -- 3-d adaptive max pool, unpool, transposed convolution ----------------------------------------
def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The largest value in each adaptive 3-d window (AdaptiveMaxPool3DBackward0); the indices,
    flat in each input volume, are the node's saved result1."""
    shape = input._data.shape
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: "
                           f"{_sizes(shape)}")
    given = list(output_size) if isinstance(output_size, tuple | list) else [output_size] * 3
    if len(given) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    size = tuple(int(shape[-3 + i] if s is None else s) for i, s in enumerate(given))
    return _max_pool_with_indices("adaptive_max_pool3d", input, {"output_size": size},
                                  return_indices)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return F.adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return F.adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return adaptive_max_pool3d(input, output_size, True)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return F.max_pool1d(input, kernel_size, stride, padding,
                        dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return F.max_pool2d(input, kernel_size, stride, padding,
                        dilation, ceil_mode, True)


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return F.max_pool3d(input, kernel_size, stride, padding,
                        dilation, ceil_mode, True)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """Each value written at its index in a zero volume (MaxUnpool3DBackward0)."""
    from .functional import _ints
    kernel = _ints(kernel_size, 3)
    strides = _ints(stride, 3) if stride is not None else kernel
    size = _unpool_output_size(input, kernel, strides, _ints(padding, 3), output_size)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a "
                           f"tensor with {input.dim()} dimensions.")
    if indices._dtype is not _dt.int64:
        raise RuntimeError("elements in indices should be type int64")
    if indices._data.shape != input._data.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({_sizes(input._data.shape)}) but got indices tensor with shape: "
                           f"{_sizes(indices._data.shape)}")
    idx = indices._data
    bad = idx[(idx < 0) | (idx >= size[0] * size[1] * size[2])]
    if bad.size:
        raise RuntimeError(f"Found an invalid max index: {int(bad.flat[0])} (output volumes are "
                           f"of size {size[0]}x{size[1]}x{size[2]})")
    return _apply(_T["max_unpool3d"], (input,),
                  {"indices": indices, "output_size": tuple(size)}, dtype=input._dtype)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    if _amp.dtype is not None:
        return _amp_lower(conv_transpose3d, input, weight, bias, stride, padding, output_padding,
                          groups, dilation)
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 3)


# -- local response norm, power-average pools ------------------------------------------------------
def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """``input / (k + alpha * mean of squares over size neighbouring channels) ** beta``, the
    mean an average pool over the zero-padded channel dim, as PyTorch writes it."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality{' ' * 26}input (got {dim} "
                         f"dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = F.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = F.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def _lp_finish(out: Tensor, window: int, norm_type: float) -> Tensor:
    return (out.sign() * F.relu(out.abs())).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window: ``(sum x**p) ** (1/p)``, an average pool of powers scaled."""
    if stride is not None:
        out = F.avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = F.avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, kernel_size, norm_type)


def _tuple(value: Any, n: int) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, tuple | list) else (value,) * n


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    kw, kh = _tuple(kernel_size, 2)
    if stride is not None:
        out = F.avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = F.avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, kw * kh, norm_type)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    kd, kw, kh = _tuple(kernel_size, 3)
    if stride is not None:
        out = F.avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = F.avg_pool3d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, kd * kw * kh, norm_type)


# -- alpha dropout, gumbel softmax ----------------------------------------------------------------
_SELU_ALPHA = 1.7580993408473766


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool
                   ) -> Tensor:
    """PyTorch's alpha dropout: a bernoulli(1 - p) mask ``m`` (one per channel for the feature
    form), ``input * (a m) + b`` with ``b = (m - 1) alpha' a + alpha' a p``, so a SELU
    network's mean and variance stay put."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 0 or not training or input._data.size == 0:
        return input
    npd = input._dtype.np
    if p == 1:
        zero = Tensor._make(np.zeros((), npd), input._dtype)
        return input.mul_(zero) if inplace else _F.mul(input, zero)
    shape = (*input._data.shape[:2], *(1,) * (input.dim() - 2)) if feature \
        else input._data.shape
    noise = np.empty(shape, npd)
    rnd.fill(noise, rnd.bernoulli(rnd.default_generator, noise.size, 1 - p))
    wide = np.dtype(np.float32) if npd == np.float16 else npd
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    m: Any = noise.astype(wide)
    b = ((m + wide.type(-1)) * wide.type(_SELU_ALPHA * a) + wide.type(_SELU_ALPHA * a * p))
    scaled = Tensor._make((m * wide.type(a)).astype(npd), input._dtype)
    shift = Tensor._make(b.astype(npd), input._dtype)
    out = input.mul_(scaled) if inplace else _F.mul(input, scaled)
    return out.add_(shift)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    return _alpha_dropout(input, p, training, inplace, feature=True)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """A softmax of the logits plus Gumbel noise, over ``tau``; ``hard``: the one-hot argmax,
    with the soft sample's gradient (straight through), as PyTorch writes it."""
    from ... import torch as _torch
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", UserWarning,
                      stacklevel=2)
    gumbels = -_torch.empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = _torch.zeros_like(logits).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft
