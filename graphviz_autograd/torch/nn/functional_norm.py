"""``torch.nn.functional``'s group, instance and RMS normalization: one NativeGroupNormBackward0
node, and the compositions PyTorch builds for the other two (instance norm as a batch norm of
the input viewed as one batch of N * C channels; RMS norm out of pow, mean, add, rsqrt, mul)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine import dtypes as _dt
from ...engine import functional as _F
from ...engine import messages as _msg
from ...engine.autograd import apply as _apply
from ...engine.grad_mode import no_grad
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor
from .functional import _check_norm_dtypes, _sizes, batch_norm

__all__ = ["group_norm", "instance_norm", "rms_norm"]


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalization over groups of channels per sample (NativeGroupNormBackward0)."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    shape = input._data.shape
    n, c = shape[0], shape[1]
    rest = int(np.prod(shape[2:], dtype=np.int64))
    # NB: PyTorch checks the batch size as batch norm's with the groups as channels
    if n * c // num_groups * rest == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{[n * c // num_groups, num_groups, *shape[2:]]}")
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {_sizes(shape)} and num_groups={num_groups}")
    for what, p in (("weight", weight), ("bias", bias)):
        if p is not None and (p._data.ndim != 1 or p._data.size != c):
            raise RuntimeError(f"Expected {what} to be a vector of size equal to the number of "
                               f"channels in input, but got {what} of shape "
                               f"{_sizes(p._data.shape)} and input of shape {_sizes(shape)}")
    _floating(input, "GroupNormKernelImpl")
    _check_norm_dtypes(input, (weight, bias))
    out = _apply(_T["native_group_norm"], (_F.contiguous(input), weight, bias),
                 {"N": n, "C": c, "HxW": rest, "group": num_groups, "eps": eps},
                 dtype=input._dtype)
    return out[0]


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """As PyTorch: the input viewed as (1, N * C, *), the per-channel tensors repeated N times,
    one batch norm, the output viewed back; the running statistics then take the mean of the
    N updated copies (in place)."""
    shape = input._data.shape
    if use_input_stats:
        if int(np.prod(shape[2:], dtype=np.int64)) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {input.size()}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    n, c = shape[0], shape[1]

    def repeated(t: Tensor | None) -> Tensor | None:
        return None if t is None else _F.repeat(t, n)

    flat = _F.view(_F.contiguous(input), (1, n * c, *shape[2:]))
    mean_n, var_n = repeated(running_mean), repeated(running_var)
    out = batch_norm(flat, mean_n, var_n, repeated(weight), repeated(bias), use_input_stats,
                     momentum, eps)
    with no_grad():
        for stat, copies in ((running_mean, mean_n), (running_var, var_n)):
            if stat is not None and copies is not None and use_input_stats:
                stat.copy_(_F.mean(_F.view(copies, (n, c)), 0))
    return _F.view(out, shape)


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """``input * rsqrt(mean(input ** 2) + eps)`` over the last dims (last first), then times
    ``weight``; ``eps`` by default the input dtype's machine epsilon."""
    if not isinstance(normalized_shape, tuple | list):
        raise TypeError(f"rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    norm = tuple(int(s) for s in normalized_shape)
    if not norm:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if weight is not None and weight._data.shape != norm:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {_sizes(weight._data.shape)} and normalized_shape = "
                           f"{_sizes(norm)}")
    shape = input._data.shape
    if len(shape) < len(norm):
        raise ValueError(f"Input tensor must have at least {len(norm)} dimensions, but got "
                         f"{len(shape)}")
    if shape[len(shape) - len(norm):] != norm:
        raise RuntimeError(f"Given normalized_shape={_sizes(norm)}, expected input with shape "
                           f"[*{_sizes(norm)[1:]}, but got input of size{_sizes(shape)}")
    _floating(input, "rms_norm")
    if weight is not None and weight._dtype is not input._dtype:
        names = {"float32": "float", "float64": "double", "float16": "c10::Half"}
        # NB: once per process, as PyTorch's TORCH_WARN_ONCE
        _msg.warn_once(f"Mismatch dtype between input and weight: input dtype = "
                       f"{names.get(input._dtype.name)}, weight dtype = "
                       f"{names.get(weight._dtype.name)}, Cannot dispatch to fused "
                       "implementation.")
    # NB: half precision computes in float32 (a to_copy each way), as PyTorch's opmath type
    wide = _dt.float32 if input._dtype is _dt.float16 else input._dtype
    up = _F.to_dtype(input, wide)
    if eps is None:
        eps = float(np.finfo(wide.np).eps)
    dims = tuple(input.dim() - 1 - i for i in range(len(norm)))
    mean = _F.mean(_F.pow(up, 2), dims, keepdim=True)
    scale = _apply(_T["add_scalar"], (mean,), {"other": eps}, dtype=mean._dtype).rsqrt()
    out = _F.to_dtype(_F.mul(up, scale), input._dtype)
    return _F.mul(out, weight) if weight is not None else out


def _floating(input: Tensor, kernel: str) -> None:
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_msg.SCALAR_NAME.get(input._dtype.name, input._dtype.name)}'")
