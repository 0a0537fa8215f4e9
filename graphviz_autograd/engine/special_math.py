"""Numpy kernels of the special functions numpy lacks (erf, erfinv, lgamma, digamma, polygamma),
computed in float64 and given back in the input's dtype."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import random_math as rm

__all__ = ["erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma", "fma"]


def _elementwise(fn: Any) -> Any:
    ufunc = np.frompyfunc(fn, 1, 1)

    def f(x: Any) -> Any:
        x = np.asarray(x)
        return np.asarray(ufunc(x.astype(np.float64))).astype(x.dtype)
    return f


def _lgamma(v: float) -> float:
    try:
        return math.lgamma(v)
    except ValueError:      # NB: a pole (0, -1, -2, ...): PyTorch gives inf
        return math.inf


erf = _elementwise(math.erf)
erfc = _elementwise(math.erfc)
lgamma = _elementwise(_lgamma)


def erfinv(y: Any) -> Any:
    """The inverse of erf: a rational first guess refined by Newton steps on erf."""
    y = np.asarray(y)
    v = y.astype(np.float64)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - v) * (1.0 + v))
        # NB: Giles' single-precision approximation as the start
        small = w < 5.0
        ws = w - 2.5
        ps = 2.81022636e-08
        for k in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
            ps = k + ps * ws
        wl = np.sqrt(w) - 3.0
        pl = -0.000200214257
        for k in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                  -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):
            pl = k + pl * wl
        x = np.where(small, ps, pl) * v
        for _ in range(3):
            err = erf(x) - v
            x = x - err / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
        x = np.where(v == 1.0, np.inf, np.where(v == -1.0, -np.inf, x))
        x = np.where(np.abs(v) > 1.0, np.nan, x)
    return x.astype(y.dtype)


def digamma(x: Any) -> Any:
    """psi(x): the reflection formula below 0, the recurrence up to 6, then the asymptotic
    series; -inf at 0 and nan at the negative integers, as PyTorch."""
    x = np.asarray(x)
    v = x.astype(np.float64)
    with np.errstate(all="ignore"):
        neg = v < 0
        z = np.where(neg, 1.0 - v, v)
        acc = np.zeros_like(z)
        for _ in range(6):
            low = z < 6.0
            acc = acc - np.where(low, 1.0 / z, 0.0)
            z = np.where(low, z + 1.0, z)
        r = 1.0 / (z * z)
        series = r * (1 / 12 - r * (1 / 120 - r * (1 / 252 - r * (1 / 240 - r * (1 / 132)))))
        out = acc + np.log(z) - 0.5 / z - series
        out = np.where(neg, out - np.pi / np.tan(np.pi * v), out)
        out = np.where(v == 0, -np.inf, out)
        out = np.where(neg & (v == np.floor(v)), np.nan, out)
    return out.astype(x.dtype)


# B_2k / (2k)! for the asymptotic series of the polygamma functions
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def polygamma(n: int, x: Any) -> Any:
    """The n-th derivative of digamma (n >= 1): the recurrence up to 20, then the asymptotic
    series."""
    if n == 0:
        return digamma(x)
    x = np.asarray(x)
    v = x.astype(np.float64)
    sign = -1.0 if n % 2 == 0 else 1.0          # (-1) ** (n + 1)
    fact = math.factorial(n)
    with np.errstate(all="ignore"):
        z = v.copy()
        acc = np.zeros_like(z)
        for _ in range(64):
            low = z < 20.0
            if not np.any(low):
                break
            acc = acc + np.where(low, 1.0 / z ** (n + 1), 0.0)
            z = np.where(low, z + 1.0, z)
        tail = math.factorial(n - 1) / z ** n + fact / (2 * z ** (n + 1))
        for k, b in enumerate(_BERNOULLI, 1):
            tail = tail + b / math.factorial(2 * k) * math.factorial(2 * k + n - 1) \
                / z ** (2 * k + n)
        out = sign * (fact * acc + tail)
        out = np.where((v <= 0) & (v == np.floor(v)), np.inf if n % 2 else -np.inf, out)
    return out.astype(x.dtype)


def fma(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` rounded once, as a fused multiply-add (``random_math``'s, which the
    random draws use too), in the arrays' float dtype."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dtype = np.result_type(a, b, c)
    if dtype == np.float32:
        return rm.fma32(a, b, c)
    if dtype == np.float64:
        return rm.fma64(a, b, c)
    return a * b + c
