"""``torch._standard_gamma`` and ``torch._sample_dirichlet``: PyTorch's CPU samplers, to the bit.

Each element runs Marsaglia and Tsang's acceptance-rejection method on the generator's scalar
draws (a 53-bit uniform, a Box-Muller normal that keeps its second sample), in the output's
order, with PyTorch's mix of float and double arithmetic: for float32 the concentration's
boost and ``d = alpha - 1/3`` are float operations, the rest is double. A Dirichlet sample
normalises double-precision gamma draws.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import random as rnd
from .grad_mode import is_grad_enabled
from .tensor import Tensor

__all__ = ["standard_gamma", "sample_dirichlet"]

_THIRD32 = np.float32(1.0) / np.float32(3.0)       # the float literal 1.0f / 3.0f
_C0331 = float(np.float32(0.0331))


def _uniform(gen: rnd.Generator) -> float:
    return float(rnd._unit(gen, 1, np.dtype(np.float64))[0])


def _normal(gen: rnd.Generator) -> float:
    return float(rnd._normal_scalar(gen, 1, 0.0, 1.0)[0])


def _sample_gamma(gen: rnd.Generator, alpha: Any, single: bool) -> float:
    """One draw of Gamma(alpha, 1); ``single``: alpha is a float32 (its own arithmetic)."""
    scale = 1.0
    if alpha < 1:
        if alpha == 0:
            return 0.0
        inv = float(np.float32(1.0) / alpha) if single else 1.0 / float(alpha)
        scale *= math.pow(1 - _uniform(gen), inv)
        alpha = alpha + (np.float32(1.0) if single else 1.0)
    d = float(alpha - _THIRD32) if single else float(alpha) - float(_THIRD32)
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = _normal(gen)
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1 - _uniform(gen)
        xx = x * x
        if u < 1.0 - _C0331 * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _no_reparameterised_grad(t: Tensor, name: str) -> None:
    if t.requires_grad and is_grad_enabled():
        raise NotImplementedError(f"{name} of a tensor that requires grad (a reparameterised "
                                  "gamma or Dirichlet sample) is not supported by "
                                  "graphviz_autograd: draw with sample(), not rsample()")


def standard_gamma(alpha: Tensor, generator: Any = None) -> Tensor:
    """``torch._standard_gamma``: one Gamma(alpha, 1) draw per element."""
    _no_reparameterised_grad(alpha, "_standard_gamma")
    gen = rnd.resolve(generator)
    npd = alpha._data.dtype
    single = npd != np.float64
    tiny = np.finfo(npd).tiny
    flat = np.ascontiguousarray(alpha._data).reshape(-1).astype(np.float32 if single else
                                                               np.float64)
    out = np.empty(flat.size, npd)
    for i, a in enumerate(flat):
        out[i] = max(npd.type(_sample_gamma(gen, a if single else float(a), single)), tiny)
    return Tensor._make(out.reshape(alpha._data.shape), alpha._dtype)


def sample_dirichlet(alpha: Tensor, generator: Any = None) -> Tensor:
    """``torch._sample_dirichlet``: gamma draws in double, each row divided by its sum."""
    _no_reparameterised_grad(alpha, "_sample_dirichlet")
    gen = rnd.resolve(generator)
    npd = alpha._data.dtype
    flat = np.ascontiguousarray(alpha._data).reshape(-1).astype(np.float64)
    gamma: np.ndarray = np.array(
        [max(_sample_gamma(gen, float(a), False), np.finfo(np.float64).tiny) for a in flat]
    ).reshape(alpha._data.shape)
    total = np.zeros(gamma.shape[:-1])
    for k in range(int(alpha._data.shape[-1])):  # NB: summed in order, as the kernel does
        total = total + gamma[..., k]
    ratio = (gamma / total[..., None]).astype(npd)
    top = np.nextafter(npd.type(1.0), npd.type(0.0))
    out = np.minimum(top, np.maximum(np.finfo(npd).tiny, ratio))
    return Tensor._make(np.ascontiguousarray(out), alpha._dtype)
