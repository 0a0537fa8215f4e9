"""``torch._standard_gamma``, ``torch._sample_dirichlet`` and ``torch.binomial``: PyTorch's CPU
rejection samplers, to the bit.

Each element runs Marsaglia and Tsang's acceptance-rejection method on the generator's scalar
draws (a 53-bit uniform, a Box-Muller normal that keeps its second sample), in the output's
order, with PyTorch's mix of float and double arithmetic: for float32 the concentration's
boost and ``d = alpha - 1/3`` are float operations, the rest is double. A Dirichlet sample
normalises double-precision gamma draws. A binomial draw counts geometric jumps below a mean of
10 and runs BTRS from 10 on (on the smaller of p and 1 - p).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import random as rnd
from . import special_math as sm
from .grad_mode import is_grad_enabled
from .tensor import Tensor

__all__ = ["standard_gamma", "standard_gamma_grad", "sample_dirichlet", "binomial"]

_THIRD32 = np.float32(1.0) / np.float32(3.0)       # the float literal 1.0f / 3.0f
_C0331 = float(np.float32(0.0331))


_MASK53 = (1 << 53) - 1


def _uniform(gen: rnd.Generator) -> float:
    """One ``uniform_real_distribution<double>`` draw: 53 bits of ``random64()``.

    NB: on Python ints, one scalar draw at a time (the rejection loops take a few per
    element, and numpy's per-call cost would dominate); the same bits as ``random._unit``.
    """
    gen._fresh = False
    bits = gen._bits
    hi, lo = int(bits.random_raw()), int(bits.random_raw())
    return (((hi << 32) | lo) & _MASK53) * 2.0 ** -53


def _normal(gen: rnd.Generator) -> float:
    """One ``normal_distribution<double>`` draw: the kept Box-Muller sample if there is one,
    else a new pair (its sine kept), as ``random._normal_scalar`` draws."""
    if gen._normal is not None:
        value, gen._normal = gen._normal, None
        return value
    u1 = _uniform(gen)
    u2 = _uniform(gen)
    r = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    gen._normal = r * math.sin(theta)
    return r * math.cos(theta)


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
    """``torch._standard_gamma``: one Gamma(alpha, 1) draw per element (StandardGammaBackward0
    where alpha requires grad: the reparameterised gradient of ``standard_gamma_grad``).

    >>> import graphviz_autograd.torch as torch
    >>> _ = torch.manual_seed(0)
    >>> torch._standard_gamma(torch.tensor([0.5, 2.0, 9.0]))
    tensor([7.8936e-04, 6.3154e-01, 9.1474e+00])
    """
    gen = rnd.resolve(generator)
    npd = alpha._data.dtype
    single = npd != np.float64
    tiny = np.finfo(npd).tiny
    flat = np.ascontiguousarray(alpha._data).reshape(-1).astype(np.float32 if single else
                                                               np.float64)
    out = np.empty(flat.size, npd)
    for i, a in enumerate(flat):
        out[i] = max(npd.type(_sample_gamma(gen, a if single else float(a), single)), tiny)
    values = out.reshape(alpha._data.shape)
    if alpha.requires_grad and is_grad_enabled():
        from .autograd import apply
        from .optable import TABLE
        return apply(TABLE["standard_gamma"], (alpha,), {"values": values}, dtype=alpha._dtype)
    return Tensor._make(values, alpha._dtype)


# the bivariate rational approximation's coefficients (rows: 1, u, u^2 of u = log(x / alpha))
_COEF = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343,
          1, 0.32668115, 0.10406089, 0.0014179084),
         (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
          0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
         (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
          0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07))


def _gamma_grad_one(alpha: float, x: float) -> float:
    """d x / d alpha of a Gamma(alpha, 1) sample ``x`` (implicit reparameterisation), in
    double: a Taylor series of the cdf for small x, Rice's saddle-point expansion for large
    alpha, else a rational approximation in log(x / alpha) and log(alpha) (PyTorch's three)."""
    if x < 0.8:
        numer, denom = 1.0, alpha
        series1, series2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            series1 += numer / denom
            series2 += numer / (denom * denom)
        pow_x_alpha = math.pow(x, alpha)
        pdf = math.pow(x, alpha - 1) * math.exp(-x)
        cdf = pow_x_alpha * series1
        digamma = float(sm.digamma(np.array(alpha)))
        result = -((math.log(x) - digamma) * cdf - pow_x_alpha * series2) / pdf
        return 0.0 if math.isnan(result) else result
    if alpha > 8.0:
        if 0.9 * alpha <= x <= 1.1 * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
                       + alpha * (107 + 3600 * x))
            return numer_1 * numer_2 / (1244160 * (alpha * alpha) * (alpha * alpha))
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = math.pow(x - alpha - alpha * math.log(x / alpha), -1.5)
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = (math.log(x / alpha) * term23
                 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x)))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * (x * term1) / denom
    u, v = math.log(x / alpha), math.log(alpha)
    c = [_COEF[0][i] + u * (_COEF[1][i] + u * _COEF[2][i]) for i in range(8)]
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    return math.exp(p / q)


def standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``torch._standard_gamma_grad`` on arrays: each element in double, then alpha's dtype."""
    a, b = np.broadcast_arrays(alpha.astype(np.float64), x.astype(np.float64))
    out = np.array([_gamma_grad_one(float(p), float(q)) for p, q in zip(a.flat, b.flat)])
    return out.reshape(a.shape).astype(alpha.dtype)


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


_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k: float) -> float:
    """log(k!) less its Stirling approximation: tabulated to 9, a series beyond."""
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_inversion(gen: rnd.Generator, count: Any, prob: Any) -> Any:
    """Geometric jumps until they pass ``count``; ``count`` and ``prob`` are the kernel's
    scalar type (numpy float32 for float32: its own log1p and arithmetic)."""
    geom_sum, num_geom = 0.0, count * 0
    logprob = float(np.log1p(-prob))
    while True:
        geom_sum += math.ceil(math.log(_uniform(gen)) / logprob)
        if geom_sum > count:
            return num_geom
        num_geom = num_geom + 1


def _btrs(gen: rnd.Generator, count: Any, prob: Any) -> Any:
    """Hormann's BTRS: transformed rejection with a squeeze (count * prob of 10 or more)."""
    stddev = float(np.sqrt(count * prob * (1 - prob)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob / (1 - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = float(np.floor((count + 1) * prob))
    while True:
        u = _uniform(gen) - 0.5
        v = _uniform(gen)
        us = 0.5 - abs(u)
        k = type(count)(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (r * (float(count) - m + 1)))
                 + float(count + 1) * math.log((float(count) - m + 1)
                                               / float(count - k + 1))
                 + (float(k) + 0.5) * math.log(r * float(count - k + 1) / float(k + 1))
                 + _stirling_tail(m) + _stirling_tail(float(count) - m)
                 - _stirling_tail(float(k)) - _stirling_tail(float(count - k)))
        if v <= bound:
            return k


def _sample_binomial(gen: rnd.Generator, count: Any, prob: Any) -> Any:
    if count <= 0.0 or prob <= 0.0:
        return count * 0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if count * prob >= 10.0:
            return _btrs(gen, count, prob)
        return _binomial_inversion(gen, count, prob)
    if prob > 0.5:
        q = 1 - prob
        if count * q >= 10.0:
            return count - _btrs(gen, count, q)
        return count - _binomial_inversion(gen, count, q)
    return math.nan


def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    """``torch.binomial(count, prob)``: one draw per element (of the broadcast shape).

    >>> import graphviz_autograd.torch as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.binomial(torch.tensor([10.0, 100.0]), torch.tensor([0.3, 0.5]))
    tensor([ 6., 48.])
    """
    if not count._dtype.is_floating_point:
        name = count._dtype.legacy[len("torch."):-len("Tensor")]
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {name}")
    gen = rnd.resolve(generator)
    c, p = np.broadcast_arrays(count._data, prob._data)
    npd = count._data.dtype
    values = np.empty(c.shape, npd)
    for idx in np.ndindex(*c.shape):
        values[idx] = _sample_binomial(gen, npd.type(c[idx]), npd.type(p[idx]))
    if (count.requires_grad or prob.requires_grad) and is_grad_enabled():
        from .autograd import apply
        from .optable import TABLE
        return apply(TABLE["binomial"], (count, prob), {"values": values}, dtype=count._dtype)
    return Tensor._make(values, count._dtype)
