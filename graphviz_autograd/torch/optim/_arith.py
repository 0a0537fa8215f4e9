"""The rounding of PyTorch's CPU kernels that numpy's plain arithmetic does not reproduce:
the fused multiply-add of ``add(..., alpha=...)`` and ``lerp``, and the order in which the
float norm adds its squares."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["_fma", "_fma_add", "_lerp_fma", "_sumsq", "_addcmul", "_addcdiv"]


def _c(value: float, like: np.ndarray) -> Any:
    return np.asarray(value, like.dtype)


def _fma(x: np.ndarray, w: Any, y: np.ndarray) -> np.ndarray:
    """``x + w * y`` with one rounding, as PyTorch's CPU kernels fuse it (``add`` with an
    ``alpha``, ``addcmul``, ``lerp``); ``w`` is a number (taken in ``x``'s dtype, as PyTorch
    takes a scalar) or an array. For float32, float64 arithmetic reproduces it exactly; for
    float64, an error-free product and sum (Dekker, Knuth) give the correctly rounded result
    but in rare double-rounding cases."""
    a = np.asarray(w, x.dtype)
    if x.dtype == np.float32:
        return (x.astype(np.float64) + a.astype(np.float64) * y.astype(np.float64)
                ).astype(np.float32)
    if x.dtype != np.float64:
        return x + a * y
    b = y
    prod = a * b
    split = 134217729.0                     # 2**27 + 1
    ca, cb = split * a, split * b
    ahi, bhi = ca - (ca - a), cb - (cb - b)
    alo, blo = a - ahi, b - bhi
    perr = ((ahi * bhi - prod) + ahi * blo + alo * bhi) + alo * blo
    total = x + prod
    back = total - x
    serr = (x - (total - back)) + (prod - back)
    with np.errstate(invalid="ignore", over="ignore"):
        out = total + (serr + perr)
    # NB: where the terms are not finite the plain sum is already the answer
    return np.where(np.isfinite(out), out, x + prod)


def _addcmul(x: np.ndarray, value: float, a: np.ndarray, b: np.ndarray) -> None:
    """``x.addcmul_(a, b, value=value)``: PyTorch fuses ``(value * a) * b`` into the sum."""
    x[...] = _fma(x, _c(value, a) * a, b)


def _addcdiv(x: np.ndarray, value: float, a: np.ndarray, b: np.ndarray) -> None:
    """``x.addcdiv_(a, b, value=value)``: ``x + (value * a) / b``, each step rounded."""
    x += _c(value, a) * a / b


def _fma_add(x: np.ndarray, w: float, y: np.ndarray) -> None:
    """``x.add_(y, alpha=w)`` (see ``_fma``)."""
    x[...] = _fma(x, w, y)


def _lerp_fma(x: np.ndarray, end: np.ndarray, w: float) -> None:
    """``x.lerp_(end, w)`` with PyTorch's two-sided formula and fused multiply-add."""
    if w < 0.5:
        _fma_add(x, w, end - x)
    else:
        diff = end - x
        x[...] = end
        _fma_add(x, -(1 - w), diff)


def _sumsq(x: np.ndarray, axis: int | None = None) -> np.ndarray:
    """The sum of squares as PyTorch's CPU norm adds it: running lanes (a 32-byte vector's
    worth: eight floats, four doubles) along the reduced axis, then the lanes and the remainder
    in order. (Short rows along the last dimension PyTorch adds otherwise, which this matches
    to an ulp or so.)"""
    sq = np.moveaxis(x * x, -1 if axis is None else axis, -1)
    if axis is None:
        sq = sq.reshape(-1)
    width = max(1, 32 // sq.dtype.itemsize)
    n = sq.shape[-1]
    m = n // width * width
    lanes = np.zeros((*sq.shape[:-1], width), sq.dtype)
    for i in range(0, m, width):
        lanes += sq[..., i:i + width]
    total = np.zeros(sq.shape[:-1], sq.dtype)
    for j in range(width):
        total += lanes[..., j]
    for j in range(m, n):
        total += sq[..., j]
    return total if axis is None else np.expand_dims(total, axis)
