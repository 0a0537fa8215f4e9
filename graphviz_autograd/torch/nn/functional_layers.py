"""``torch.nn.functional``'s transposed convolutions (ConvolutionBackward0 with
``transposed=True``), the 1-d pools PyTorch runs as 2-d ones on an unsqueezed input, the adaptive
max pools, upsampling, pixel shuffles, channel dropout and unfold / fold."""

from __future__ import annotations

from typing import Any

from ...engine import functional as _F
from ...engine.autograd import apply as _apply
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor
from .functional import _expand_param, _ints, _sizes

__all__ = ["conv_transpose1d", "conv_transpose2d"]


# -- transposed convolution -----------------------------------------------------------------------
def _check_conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None,
                          stride: tuple[int, ...], padding: tuple[int, ...],
                          output_padding: tuple[int, ...], dilation: tuple[int, ...],
                          groups: int) -> None:
    """PyTorch's checks of a transposed convolution, in their order."""
    w, x = weight._data.shape, input._data.shape
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if len(w) != len(x):
        raise RuntimeError(f"Expected {len(w)}-dimensional input for {len(w)}-dimensional weight "
                           f"{_sizes(w)}, but got {len(x)}-dimensional input of size "
                           f"{_sizes(x)} instead")
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
        names = ("height", "width") if len(stride) == 2 else ("width",)
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
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2)
