"""``torch.nn.functional``'s transposed convolutions (ConvolutionBackward0 with
``transposed=True``), the 1-d pools PyTorch runs as 2-d ones on an unsqueezed input, the adaptive
max pools, upsampling, pixel shuffles, channel dropout and unfold / fold."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ...engine import dtypes as _dt
from ...engine import functional as _F
from ...engine import messages as _msg
from ...engine import random as rnd
from ...engine.autocast import lower as _amp_lower
from ...engine.autocast import state as _amp
from ...engine.autograd import apply as _apply
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor
from . import functional as F
from .functional import _check_conv_params, _expand_param, _ints, _max_pool_with_indices, _sizes

__all__ = ["conv_transpose1d", "conv_transpose2d", "max_pool1d", "avg_pool1d",
           "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d", "max_unpool1d",
           "max_unpool2d", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
           "pixel_shuffle", "pixel_unshuffle", "dropout1d", "dropout2d", "dropout3d", "unfold",
           "fold"]


# -- transposed convolution -----------------------------------------------------------------------
def _check_conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None,
                          stride: tuple[int, ...], padding: tuple[int, ...],
                          output_padding: tuple[int, ...], dilation: tuple[int, ...],
                          groups: int) -> None:
    """PyTorch's checks of a transposed convolution, in their order."""
    w, x = weight._data.shape, input._data.shape
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    _check_conv_params(x, w, stride, padding, dilation, output_padding)
    if w[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{_sizes(w)}] instead")
    if x[1] != w[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {_sizes(w)}, expected "
                           f"input{_sizes(x)} to have {w[0]} channels, but got {x[1]} channels "
                           f"instead")
    if bias is not None and bias._data.shape != (w[1] * groups,):
        raise RuntimeError(f"Given transposed=1, weight of size {_sizes(w)}, expected bias to be "
                           f"1-dimensional with {w[1] * groups} elements, but got bias of size "
                           f"{_sizes(bias._data.shape)} instead")
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._dtype is not input._dtype:
            raise RuntimeError(f"Input type ({input._dtype.legacy}) and {what} type "
                               f"({t._dtype.legacy}) should be the same or input should be a "
                               f"MKLDNN tensor and weight is a dense tensor")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation,
                                                   strict=True)):
        names = ("depth", "height", "width")[-len(stride):]
        text = " ".join(
            f"{what}_{n}: {v}" for what, vals in (("output_padding", output_padding),
                                                 ("stride", stride), ("dilation", dilation))
            for n, v in zip(names, vals, strict=True))
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but "
                           f"got {text}")


def _conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
                    padding: Any, output_padding: Any, groups: int, dilation: Any,
                    dim: int) -> Tensor:
    name = f"conv_transpose{dim}d"
    if input._data.ndim not in (dim + 1, dim + 2):
        raise RuntimeError(f"Expected {dim + 1}D (unbatched) or {dim + 2}D (batched) input to "
                           f"{name}, but got input of size: {_sizes(input._data.shape)}")
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    unbatched = input._data.ndim == dim + 1
    if unbatched:
        input = _F.unsqueeze(input, 0)
    if weight._data.ndim <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    n = weight._data.ndim - 2
    stride_, padding_, output_padding_, dilation_ = (
        _expand_param(what, _ints(v, dim), n) for what, v in
        (("stride", stride), ("padding", padding), ("output_padding", output_padding),
         ("dilation", dilation)))
    _check_conv_transpose(input, weight, bias, stride_, padding_, output_padding_, dilation_,
                          groups)
    kw = {"stride": stride_, "padding": padding_, "dilation": dilation_, "transposed": True,
          "output_padding": output_padding_, "groups": groups,
          "bias_sym_sizes_opt": (bias._data.shape[0],) if bias is not None else (0,)}
    out = _apply(_T["convolution"], (input, weight, bias), kw, dtype=input._dtype)
    return _F.squeeze(out, 0) if unbatched else out


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    if _amp.dtype is not None:
        return _amp_lower(conv_transpose1d, input, weight, bias, stride, padding, output_padding,
                          groups, dilation)
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    if _amp.dtype is not None:
        return _amp_lower(conv_transpose2d, input, weight, bias, stride, padding, output_padding,
                          groups, dilation)
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2)


# -- 1-d pools: PyTorch's 2-d pools on the input unsqueezed at dim -2 -----------------------------
def _one(name: str, what: str, value: Any, message: str) -> int:
    vals = _ints(value, 1)
    if len(vals) != 1:
        raise RuntimeError(message.format(name=name, what=what, n=len(vals)))
    return vals[0]


def _check_1d_input(name: str, input: Tensor) -> None:
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for {name})")


def _pooled_1d(input: Tensor, pool: Any) -> Any:
    out = pool(_F.unsqueeze(input, -2))
    if isinstance(out, tuple):
        return tuple(_F.squeeze(o, -2) for o in out)
    return _F.squeeze(out, -2)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    name = "max_pool1d"
    sized = "{name}() {what} must be an int, list of ints or tuple of ints of size 1 but got " \
        "size {n}"
    k = _one(name, "kernel_size", kernel_size, sized)
    s = k if stride is None or (isinstance(stride, tuple | list) and not stride) \
        else _one(name, "stride", stride, sized)
    p = _one(name, "padding", padding, sized)
    d = _one(name, "dilation", dilation, sized)
    if input.dim() not in (2, 3) or 0 in input._data.shape[-1:]:
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{_sizes(input._data.shape)}")
    for what, v in (("kernel_size", k), ("stride", s), ("dilation", d)):
        if v <= 0:
            raise RuntimeError(f"max_pool1d() {what} must be greater than zero, but got {v}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")
    from ...engine.ops_conv import pool_out
    out = pool_out(input._data.shape[-1], k, s, p, d, ceil_mode)
    if out < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    return _pooled_1d(input, lambda x: F.max_pool2d(x, (1, k), (1, s), (0, p), (1, d),
                                                    ceil_mode, return_indices))


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    name = "avg_pool1d"
    one = "{name}() argument '{what}' should contain one int (got {n})"
    k = _one(name, "kernel_size", kernel_size, one)
    s = k if stride is None or (isinstance(stride, tuple | list) and not stride) \
        else _one(name, "stride", stride, one)
    p = _one(name, "padding", padding, one)
    _check_1d_input(name, input)
    return _pooled_1d(input, lambda x: F.avg_pool2d(x, (1, k), (1, s), (0, p), ceil_mode,
                                                    count_include_pad))


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    name = "adaptive_avg_pool1d"
    o = _one(name, "output_size", output_size,
             "{name}() argument '{what}' should contain one int (got {n})")
    _check_1d_input(name, input)
    return _pooled_1d(input, lambda x: F.adaptive_avg_pool2d(x, (1, o)))


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The largest value in each adaptive window (AdaptiveMaxPool2DBackward0); the indices,
    flat in each input plane, are the node's saved result1."""
    shape = input._data.shape
    if input._data.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{_sizes(shape)}")
    given = list(output_size) if isinstance(output_size, tuple | list) else [output_size] * 2
    size = tuple(int(shape[-2 + i] if s is None else s) for i, s in enumerate(given))
    return _max_pool_with_indices("adaptive_max_pool2d", input, {"output_size": size},
                                  return_indices)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    name = "adaptive_max_pool1d"
    o = _one(name, "output_size", output_size,
             "{name}() argument '{what}' should contain one int (got {n})")
    _check_1d_input(name, input)
    return _pooled_1d(input, lambda x: adaptive_max_pool2d(x, (1, o), return_indices))


# -- max unpool -----------------------------------------------------------------------------------
def _unpool_output_size(input: Tensor, kernel: tuple[int, ...], stride: tuple[int, ...],
                        padding: tuple[int, ...], output_size: Any) -> list[int]:
    n = len(kernel)
    default = [(input._data.shape[-n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        return default
    size = list(output_size)
    if len(size) == n + 2:
        size = size[2:]
    if len(size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, "
                         f"but it has a length of '{len(size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} '
                             f"and {hi})")
    return [int(s) for s in size]


def _max_unpool(input: Tensor, indices: Tensor, size: list[int]) -> Tensor:
    """PyTorch's max_unpool2d: each value written at its index in a zero plane of ``size``."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a "
                           f"tensor with {input.dim()} dimensions.")
    if indices._dtype is not _dt.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{_msg.SCALAR_NAME.get(indices._dtype.name, indices._dtype.name)}")
    if indices._data.shape != input._data.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({_sizes(input._data.shape)}) but got indices tensor with shape: "
                           f"{_sizes(indices._data.shape)}")
    idx = indices._data
    bad = idx[(idx < 0) | (idx >= size[0] * size[1])]
    if bad.size:
        raise RuntimeError(f"Found an invalid max index: {int(bad.flat[0])} (output volumes are "
                           f"of size {size[0]}x{size[1]})")
    return _apply(_T["max_unpool2d"], (input,),
                  {"indices": indices, "output_size": (size[0], size[1])}, dtype=input._dtype)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    kernel = _ints(kernel_size, 2)
    strides = _ints(stride, 2) if stride is not None else kernel
    size = _unpool_output_size(input, kernel, strides, _ints(padding, 2), output_size)
    return _max_unpool(input, indices, size)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    kernel = _ints(kernel_size, 1)
    strides = _ints(stride, 1) if stride is not None else kernel
    size = _unpool_output_size(input, kernel, strides, _ints(padding, 1), output_size)
    out = _max_unpool(_F.unsqueeze(input, -1), _F.unsqueeze(indices, -1), [*size, 1])
    return _F.squeeze(out, -1)


# -- upsampling -----------------------------------------------------------------------------------
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None,
                mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """Modes ``nearest`` and ``nearest-exact`` (3-d, 4-d and 5-d inputs), ``linear`` (3-d),
    ``bilinear`` and ``bicubic`` (4-d), ``trilinear`` (5-d), ``area`` (an adaptive average
    pool): one Upsample*Backward0 node."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    spatial = list(input._data.shape[2:])
    scales: list[Any] | None
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, tuple | list):
            if len(size) != dim:
                raise ValueError(f"Input and output must have the same number of spatial "
                                 f"dimensions, but got input with spatial dimensions of {spatial} "
                                 f"and output size of {size}. Please provide input tensor in (N, "
                                 f"C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                                 f"format.")
            out = [int(s) for s in size]
        else:
            out = [int(size)] * dim
        scales = None
    elif scale_factor is not None:
        if isinstance(scale_factor, tuple | list):
            if len(scale_factor) != dim:
                raise ValueError(f"Input and scale_factor must have the same number of spatial "
                                 f"dimensions, but got input with spatial dimensions of {spatial} "
                                 f"and scale_factor of shape {scale_factor}. Please provide input "
                                 f"tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                                 f"(s1, s2, ...,sK) format.")
            scales = [float(f) for f in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        out = [math.floor(n * f) for n, f in zip(spatial, scales, strict=True)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        scales = None
    if antialias:
        if not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
            raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                             "modes and requires a 4-D tensor as input")
        raise NotImplementedError("F.interpolate with antialias=True is not supported by "
                                  "graphviz_autograd")
    if mode == "area":
        # NB: PyTorch's area mode is the adaptive average pool to the output size
        if input.dim() == 3:
            return adaptive_avg_pool1d(input, out[0])
        if input.dim() == 4:
            return F.adaptive_avg_pool2d(input, tuple(out))
        if input.dim() == 5:
            return F.adaptive_avg_pool3d(input, tuple(out))
    kw: dict[str, Any] = {"output_size": tuple(out),
                          "self_sym_sizes": tuple(input._data.shape)}
    kinds = {("nearest", 3): "upsample_nearest1d", ("nearest", 4): "upsample_nearest2d",
             ("nearest-exact", 3): "upsample_nearest_exact1d",
             ("nearest-exact", 4): "upsample_nearest_exact2d",
             ("linear", 3): "upsample_linear1d", ("bilinear", 4): "upsample_bilinear2d",
             ("bicubic", 4): "upsample_bicubic2d", ("nearest", 5): "upsample_nearest3d",
             ("nearest-exact", 5): "upsample_nearest_exact3d",
             ("trilinear", 5): "upsample_trilinear3d"}
    key = kinds.get((mode, input.dim()), "")
    if mode in ("linear", "bilinear", "trilinear") and not key and input.dim() in (3, 4, 5):
        wants = {"linear": 3, "bilinear": 4, "trilinear": 5}[mode]
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {wants}D "
                                  f"input")
    if not key:
        # NB: the forms PyTorch has and this engine has not
        if (mode, input.dim()) == ("lanczos", 4):
            raise NotImplementedError(f"F.interpolate with mode={mode!r} on a {input.dim()}-d "
                                      f"input is not supported by graphviz_autograd")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.dim()}D) for the modes: {_MODES} (got {mode})")
    if "linear" in mode or mode == "bicubic":
        kw["align_corners"] = bool(align_corners)
    if input.dim() == 3:
        kw["scales"] = scales[0] if scales else None
    elif input.dim() == 5:
        kw["scales_d"], kw["scales_h"], kw["scales_w"] = scales if scales else (None,) * 3
    else:
        kw["scales_h"], kw["scales_w"] = scales if scales else (None, None)
    return _apply(_T[key], (input,), kw, dtype=input._dtype)


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", UserWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", UserWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", UserWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- pixel shuffles -------------------------------------------------------------------------------
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    shape = input._data.shape
    if len(shape) < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {len(shape)} dimension(s)")
    r = int(upscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)="
                           f"{shape[-3]} is not divisible by {r * r}")
    return _apply(_T["pixel_shuffle"], (input,), {"upscale_factor": r}, dtype=input._dtype)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    shape = input._data.shape
    if len(shape) < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {len(shape)} dimension(s)")
    r = int(downscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    for what, i in (("height", -2), ("width", -1)):
        if shape[i] % r:
            raise RuntimeError(f"pixel_unshuffle expects {what} to be divisible by "
                               f"downscale_factor, but input.size({i})={shape[i]} is not "
                               f"divisible by {r}")
    return _apply(_T["pixel_unshuffle"], (input,), {"downscale_factor": r}, dtype=input._dtype)


# -- channel dropout ------------------------------------------------------------------------------
def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool = False) -> Tensor:
    """PyTorch's feature_dropout: one mask value per (sample, channel), drawn as ``dropout``
    draws its mask, broadcast over the other dims; ``inplace``: the input times the mask in
    place (``mul_``)."""
    if not training or p == 0 or input._data.size == 0:
        return input
    npd = input._dtype.np
    if p == 1:
        zero = Tensor._make(np.zeros((), npd), input._dtype)
        return input.mul_(zero) if inplace else _F.mul(input, zero)
    noise = np.empty((*input._data.shape[:2], *(1,) * (input.dim() - 2)), npd)
    rnd.fill(noise, rnd.bernoulli(rnd.default_generator, noise.size, 1 - p))
    wide = np.dtype(np.float32) if npd == np.float16 else npd
    noise = (noise.astype(wide) / np.asarray(1 - p, wide)).astype(npd)
    mask = Tensor._make(noise, input._dtype)
    return input.mul_(mask) if inplace else _F.mul(input, mask)


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an optional "
                           "batch dimension (i.e. 2D or 3D inputs).")
    if input.dim() == 3:
        return _feature_dropout(input, p, training, inplace)
    # NB: an unbatched input is not written in place here (PyTorch's unsqueeze_ then mul_)
    return _F.squeeze(_feature_dropout(_F.unsqueeze(input, 0), p, training), 0)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    _check_p(p)
    n = input.dim()
    if n not in (3, 4):
        warnings.warn(f"dropout2d: Received a {n}-D input to dropout2d, which is deprecated and "
                      "will result in an error in a future release. To retain the behavior and "
                      "silence this warning, please use dropout instead. Note that dropout2d "
                      "exists to provide channel-wise dropout on inputs with 2 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. "
                      "3D or 4D inputs).", UserWarning, stacklevel=2)
    if n == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change in "
                      "a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout "
                      "behavior, please switch to using dropout1d instead.", UserWarning,
                      stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    _check_p(p)
    n = input.dim()
    if n not in (4, 5):
        warnings.warn(f"dropout3d: Received a {n}-D input to dropout3d, which is deprecated and "
                      "will result in an error in a future release. To retain the behavior and "
                      "silence this warning, please use dropout instead. Note that dropout3d "
                      "exists to provide channel-wise dropout on inputs with 3 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. "
                      "4D or 5D inputs).", UserWarning, stacklevel=2)
    if n == 5:
        return _feature_dropout(input, p, training, inplace)
    return _F.squeeze(_feature_dropout(_F.unsqueeze(input, 0), p, training), 0)


# -- unfold / fold --------------------------------------------------------------------------------
def _pairs(*values: Any) -> list[tuple[int, ...]]:
    return [_ints(v, 2) for v in values]


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:
    """Sliding blocks as columns (Im2ColBackward0); (N, C, H, W) or (C, H, W) input."""
    kernel, dil, pad, st = _pairs(kernel_size, dilation, padding, stride)
    shape = input._data.shape
    if len(shape) not in (3, 4):
        if len(shape) < 3:
            _F._dim(2, len(shape))      # NB: PyTorch reads dim 2 first: its IndexError
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{_sizes(shape)}")
    out = [(n + 2 * p - d * (k - 1) - 1) // s + 1
           for n, k, d, p, s in zip(shape[-2:], kernel, dil, pad, st, strict=True)]
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given input with spatial size ({shape[-2]}, {shape[-1]}), "
                           f"kernel_size=({kernel[0]}, {kernel[1]}), dilation=({dil[0]}, "
                           f"{dil[1]}), padding=({pad[0]}, {pad[1]}), calculated shape of the "
                           f"array of sliding blocks as ({out[0]}, {out[1]}), but its components "
                           f"must be at least one.")
    return _apply(_T["im2col"], (input,),
                  {"kernel_size": kernel, "dilation": dil, "padding": pad, "stride": st,
                   "self_sym_argsize_minus_1": shape[-1], "self_sym_argsize_minus_2": shape[-2]},
                  dtype=input._dtype)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    """Columns summed back into an image (Col2ImBackward0): (N, C * kh * kw, L) or unbatched."""
    size, kernel, dil, pad, st = _pairs(output_size, kernel_size, dilation, padding, stride)
    shape = input._data.shape
    if len(shape) not in (2, 3):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{_sizes(shape)}")
    blocks = kernel[0] * kernel[1]
    if shape[-2] % blocks:
        raise RuntimeError(f"Expected size of input's dimension {len(shape) - 2} to be divisible "
                           f"by the product of kernel_size, but got input.size({len(shape) - 2})="
                           f"{shape[-2]} and kernel_size=({kernel[0]}, {kernel[1]}).")
    out = [(n + 2 * p - d * (k - 1) - 1) // s + 1
           for n, k, d, p, s in zip(size, kernel, dil, pad, st, strict=True)]
    if out[0] * out[1] != shape[-1]:
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, "
                           f"{kernel[1]}), dilation=({dil[0]}, {dil[1]}), padding=({pad[0]}, "
                           f"{pad[1]}), stride=({st[0]}, {st[1]}), expected size of input's "
                           f"dimension {len(shape) - 1} to match the calculated number of sliding "
                           f"blocks {out[0]} * {out[1]} = {out[0] * out[1]}, but got input.size("
                           f"{len(shape) - 1})={shape[-1]}.")
    return _apply(_T["col2im"], (input,),
                  {"output_size": size, "kernel_size": kernel, "dilation": dil, "padding": pad,
                   "stride": st}, dtype=input._dtype)
