"""``torch.nn.init``: in-place initialisers (each one in-place op, as PyTorch counts versions)."""

from __future__ import annotations

import math
import warnings
from typing import Any

from ...engine.grad_mode import no_grad
from ...engine.tensor import Tensor

__all__ = ["uniform_", "normal_", "zeros_", "ones_", "constant_", "kaiming_uniform_",
           "xavier_uniform_", "xavier_normal_", "calculate_gain"]


def _fans(t: Tensor) -> tuple[int, int]:
    shape = t._data.shape
    if len(shape) < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    field = 1
    for s in shape[2:]:
        field *= s
    return shape[1] * field, shape[0] * field


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    return {"relu": math.sqrt(2.0), "tanh": 5.0 / 3, "selu": 0.75}.get(nonlinearity, 1.0)


def uniform_(t: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    with no_grad():
        return t.uniform_(a, b, generator=generator)


def normal_(t: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    with no_grad():
        return t.normal_(mean, std, generator=generator)


def constant_(t: Tensor, val: float) -> Tensor:
    with no_grad():
        return t.fill_(val)


def zeros_(t: Tensor) -> Tensor:
    with no_grad():
        return t.zero_()


def ones_(t: Tensor) -> Tensor:
    return constant_(t, 1.0)


def kaiming_uniform_(t: Tensor, a: float = 0.0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    if 0 in t._data.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return t
    fan_in, fan_out = _fans(t)
    fan = fan_in if mode == "fan_in" else fan_out
    # NB: PyTorch's order of operations, so the bound rounds as PyTorch's does
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(t, -bound, bound, generator)


def xavier_uniform_(t: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _fans(t)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(t, -bound, bound, generator)


def xavier_normal_(t: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _fans(t)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(t, 0.0, std, generator)
