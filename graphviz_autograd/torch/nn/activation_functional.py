"""``torch.nn.functional``'s activations beyond relu/tanh/sigmoid/softmax (elu, selu, celu,
relu6, hardtanh, leaky_relu, threshold, hardswish, hardsigmoid, mish, softsign,
softmin, tanhshrink, glu, hardshrink, softshrink, prelu) and their in-place forms, made of the
nodes PyTorch makes (``ops_activation``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ...engine import functional as _F
from ...engine import random as _rnd
from ...engine.autocast import lower as _amp_lower
from ...engine.autocast import state as _amp
from ...engine.autograd import apply as _apply
from ...engine.autograd import apply_inplace as _apply_inplace
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor

__all__ = ["elu", "elu_", "selu", "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_",
           "hardtanh", "hardtanh_", "relu6", "threshold", "threshold_",
           "hardswish", "hardsigmoid", "mish", "silu", "softsign", "softmin", "tanhshrink",
           "glu", "hardshrink", "softshrink", "prelu", "rrelu", "rrelu_"]

# SELU's constants, as PyTorch keeps them (its node shows them)
SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805


def _unary(key: str, t: Tensor, **kw: Any) -> Tensor:
    return _apply(_T[key], (t,), kw or None, dtype=t._dtype)


def _inplace(key: str, t: Tensor, **kw: Any) -> Tensor:
    return _F._quiet(_apply_inplace)(_T[key], t, (), kw or None)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return elu_(input, alpha) if inplace else _unary("elu", input, alpha=alpha)


def elu_(input: Tensor, alpha: float = 1) -> Tensor:
    """In place: PyTorch's node then saves the result (``EluBackward1``)."""
    return _inplace("elu_", input, alpha=alpha)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """elu with SELU's alpha and scale: PyTorch's node is ``EluBackward0``."""
    if inplace:
        return selu_(input)
    return _unary("elu", input, alpha=SELU_ALPHA, scale=SELU_SCALE, input_scale=1)


def selu_(input: Tensor) -> Tensor:
    return _inplace("elu_", input, alpha=SELU_ALPHA, scale=SELU_SCALE, input_scale=1)


def _check_celu(alpha: float) -> None:
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        return celu_(input, alpha)
    _check_celu(alpha)
    return _unary("celu", input, alpha=alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    _check_celu(alpha)
    return _inplace("celu_", input, alpha=alpha)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if inplace:
        return leaky_relu_(input, negative_slope)
    return _unary("leaky_relu", input, negative_slope=negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In place: PyTorch's node then saves the result (``LeakyReluBackward1``)."""
    return _inplace("leaky_relu_", input, negative_slope=negative_slope)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    if inplace:
        return hardtanh_(input, min_val, max_val)
    return _unary("hardtanh", input, min_val=min_val, max_val=max_val)


def hardtanh_(input: Tensor, min_val: float = -1, max_val: float = 1) -> Tensor:
    # NB: the same node as hardtanh; it saves a copy of the input from before the write
    return _inplace("hardtanh", input, min_val=min_val, max_val=max_val)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """hardtanh between the integers 0 and 6 (PyTorch's node: ``HardtanhBackward0``)."""
    return hardtanh_(input, 0, 6) if inplace else _unary("hardtanh", input, min_val=0, max_val=6)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    if inplace:
        return threshold_(input, threshold, value)
    return _unary("threshold", input, threshold=threshold, value=value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _inplace("threshold_", input, threshold=threshold, value=value)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _inplace("hardswish", input) if inplace else _unary("hardswish", input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return _inplace("hardsigmoid", input) if inplace else _unary("hardsigmoid", input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _inplace("mish", input) if inplace else _unary("mish", input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _inplace("silu", input) if inplace else _unary("silu", input)


def softsign(input: Tensor) -> Tensor:
    """``input / (input.abs() + 1)``, as PyTorch composes it."""
    return _F.div(input, _F.add(_F.unary("abs", input, floating=False), 1))


def softmin(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``softmax(-input)``."""
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the call "
                      "to include dim=X as an argument.", UserWarning, stacklevel=_stacklevel)
        dim = 0 if input.dim() in (0, 1, 3) else 1
    return _F.softmax(_F.neg(input), int(dim), dtype)


def tanhshrink(input: Tensor) -> Tensor:
    """``input - input.tanh()``, as PyTorch composes it."""
    return _F.sub(input, _F.unary("tanh", input))


def glu(input: Tensor, dim: int = -1) -> Tensor:
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _F._dim(dim, input.dim())
    size = input._data.shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    return _F.as_given(_unary("glu", input, dim=d), dim=dim)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _unary("hardshrink", input, lambd=lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, 3.40282e+38] for input dtype Float, but "
                           f"found {lambd:g}")
    return _unary("softshrink", input, lambd=lambd)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """PyTorch's ``_prelu_kernel`` on the weight viewed along the channel dim (dim 1)."""
    if _amp.dtype is not None:
        return _amp_lower(prelu, input, weight)
    if input._dtype is not weight._dtype:
        from ...engine.messages import SCALAR_NAME as N
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{N[input._dtype.name]} and {N[weight._dtype.name]}")
    n = weight._data.size
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    channels = input._data.shape[1] if input.dim() >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {n} and channel size = {channels}.")
    if input.dim() != 1:
        # NB: a view of the weight with the input's dims, the channels on dim 1
        shape = [1] * input.dim()
        if shape:
            shape[1] = n
        weight = _F.reshape(weight, tuple(shape))
    dtype = _F.promote(input, weight)
    return _apply(_T["prelu"], (input, weight), dtype=dtype)


def _rrelu_noise(input: Tensor, lower: float, upper: float, training: bool,
                 generator: Any) -> Tensor:
    """The slopes of the negative elements (PyTorch's noise buffer): in training one
    ``uniform(lower, upper)`` double per element <= 0, in memory order, 1 elsewhere; in
    evaluation PyTorch leaves the buffer unwritten (zeros here)."""
    x = input._data
    noise = np.zeros(x.shape, x.dtype)
    if training:
        flat = np.ascontiguousarray(x).reshape(-1)
        neg = flat <= 0
        k = int(neg.sum())
        # NB: uniform_real_distribution<double>: 53 bits of a draw, u * (upper - lower) + lower
        # unfused, the bounds first cast to the input's dtype
        u = _rnd._unit(_rnd.resolve(generator), k, np.dtype(np.float64))
        lo, hi = float(x.dtype.type(lower)), float(x.dtype.type(upper))
        out = np.ones(flat.shape, x.dtype)
        out[neg] = (u * (hi - lo) + lo).astype(x.dtype)
        noise = out.reshape(x.shape)
    return Tensor._make(noise, input._dtype)


def _check_rrelu(lower: float, upper: float) -> None:
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Leaky relu with a random slope per negative element in training (PyTorch's CPU draws),
    the mean slope in evaluation: ``RreluWithNoiseBackward0``."""
    if inplace:
        return rrelu_(input, lower, upper, training)
    _check_rrelu(lower, upper)
    noise = _rrelu_noise(input, lower, upper, training, None)
    return _apply(_T["rrelu_with_noise"], (input,), {"noise": noise, "lower": lower,
                                                    "upper": upper, "training": training},
                  dtype=input._dtype)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    _check_rrelu(lower, upper)
    noise = _rrelu_noise(input, lower, upper, training, None)
    return _apply_inplace(_T["rrelu_with_noise_"], input, (), {
        "noise": noise, "lower": lower, "upper": upper, "training": training})
