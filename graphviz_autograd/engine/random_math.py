"""The floating-point arithmetic PyTorch's CPU random kernels do, reproduced to the bit with numpy.

PyTorch compiles its CPU kernels once per instruction set and picks one when it starts
(``ATEN_CPU_CAPABILITY``: ``default``, ``avx2``, ``avx512``). The vectorised builds are compiled
with FMA enabled, so the compiler fuses a product feeding a sum (``x * (to - from) + from``) into
one fused multiply-add, rounded once; and float32 ``normal_`` of 16 elements or more runs an AVX2
kernel whose ``log`` and ``sincos`` are the Cephes single-precision algorithms (polynomials in
float32). The ``default`` build rounds each product and calls the C library's ``logf``,
``sinf``, ``cosf``. Double-precision kernels call the C library's ``log``, ``log1p``, ``sin``
and ``cos`` in every build.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
import os
import platform
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["vector_kernels", "fma32", "fma64", "muladd", "cephes_log", "cephes_sincos",
           "libm64", "libm32"]

f32 = np.float32


@functools.cache
def vector_kernels() -> bool:
    """Whether PyTorch on this machine runs its AVX2/AVX512 kernels rather than the default ones.

    As PyTorch decides: ``ATEN_CPU_CAPABILITY`` when set, else an x86-64 CPU with AVX2 and FMA.
    """
    forced = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if forced in ("default", "avx2", "avx512"):
        return forced != "default"
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False            # NB: arm64 (Apple silicon, Graviton) runs the default kernels
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split() for line in f if line.startswith("flags")), None)
    except OSError:
        return True             # NB: an x86-64 machine without /proc: AVX2 since 2013
    return flags is None or ("avx2" in flags and "fma" in flags)


# ------------------------------------------------------------------ fused multiply-add

def fma32(a: np.ndarray, b: object, c: object) -> np.ndarray:
    """``a * b + c`` in float32, rounded once (a hardware FMA).

    The product of two float32 numbers is exact in float64; the float64 sum can round, and
    rounding that sum again to float32 is wrong only where it lands exactly on a float32
    midpoint, where the sum's exact error (TwoSum) says which way to go.
    """
    p = np.asarray(a, np.float64) * np.asarray(b, np.float32).astype(np.float64)
    c64 = np.asarray(c, np.float32).astype(np.float64)
    s = p + c64
    bb = s - p
    err = (p - (s - bb)) + (c64 - bb)
    bits = np.asarray(s).view(np.uint64)
    tie = ((bits & np.uint64((1 << 29) - 1)) == np.uint64(1 << 28)) & (err != 0)
    if tie.any():
        s = np.where(tie, np.nextafter(s, s + err), s)
    return np.asarray(s).astype(np.float32)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = 134217729.0 * a                         # 2**27 + 1: Veltkamp's split
    hi = c - (c - a)
    return hi, a - hi


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def fma64(a: np.ndarray, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` in float64, rounded once (``b`` and ``c`` numbers or arrays that
    broadcast with ``a``).

    Error-free transforms give ``a * b + c`` as ``s + low + err`` exactly (Dekker's product,
    TwoSum); rounding ``s + low`` is the FMA's result unless ``low`` is inexact and ``s + low``
    sits exactly on a tie (or ``low`` is not small beside ``s``): those rare elements are
    computed with exact fractions.
    """
    a, b64, c64 = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                      np.asarray(c, np.float64))
    with np.errstate(all="ignore"):
        p = a * b64
        ah, al = _split(a)
        bh, bl = _split(b64)
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s, t = _two_sum(p, c64)
        low, err2 = _two_sum(t, e)
        r, err3 = _two_sum(s, low)
        # NB: rounding s + low misses the rounding of s + low + err2 only if a tie lies between
        # them: never where low's grid is finer than s's and than r's half-gaps, unless s + low
        # is that tie
        gap = np.nextafter(r, r + err3) - r
        fine = (np.spacing(np.abs(low)) <= np.spacing(np.abs(s))) & (
            4 * np.spacing(np.abs(low)) <= np.spacing(np.abs(r)))
        doubt = (err2 != 0) & (~fine | ((err3 != 0) & (2 * err3 == gap)))
        doubt |= ~np.isfinite(r) | ~np.isfinite(e)
    if doubt.any():
        r = np.array(r, copy=True)
        for i in map(tuple, np.argwhere(doubt)):     # NB: 0-d too (nonzero refuses it)
            r[i] = _exact_fma(float(a[i]), float(b64[i]), float(c64[i]))
    return r


def _exact_fma(a: float, b: float, c: float) -> float:
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    try:
        return float(Fraction(a) * Fraction(b) + Fraction(c))
    except OverflowError:
        return a * b + c


def muladd(x: np.ndarray, b: float, c: float, fused: bool) -> np.ndarray:
    """``x * b + c`` in ``x``'s dtype (float32 or float64), fused where ``fused``."""
    if x.dtype == np.float32:
        if fused:
            return fma32(x, b, c)
        return x * f32(b) + f32(c)
    if fused:
        return fma64(x, b, c)
    return x * np.float64(b) + np.float64(c)


# ------------------------------------------------------------------ Cephes, in float32

# NB: the coefficients of Cephes' single-precision logf (Moshier), on the mantissa reduced to
# [sqrt(1/2), sqrt(2)) - 1; log(2) split in two parts for the exponent
_LOG_P = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
          1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
          3.3333331174e-1)
_LOG_Q1, _LOG_Q2 = -2.12194440e-4, 0.693359375
# NB: Cephes' sinf/cosf: pi/4 in three parts (extended-precision reduction), the polynomials
_DP = (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8)
_SIN_P = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)
_COS_P = (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)
_FOUR_OVER_PI = 1.27323954473516


def cephes_log(x: np.ndarray) -> np.ndarray:
    """Natural log of positive float32 ``x`` as PyTorch's AVX2 ``normal_`` computes it.

    The compiler fuses each product feeding a sum into an FMA: the polynomial's Horner steps,
    the exponent's two terms and the ``- z/2``.
    """
    bits = x.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 126).astype(f32)
    m = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(f32)   # in [0.5, 1)
    small = m < f32(0.707106781186547524)
    x = (m - f32(1)) + np.where(small, m, f32(0))
    e = e - np.where(small, f32(1), f32(0))
    z = x * x
    y = np.full_like(x, f32(_LOG_P[0]))
    for p in _LOG_P[1:]:
        y = fma32(y, x, p)
    y = fma32(y * x, z, e * f32(_LOG_Q1))
    y = fma32(-z, f32(0.5), y)
    return fma32(e, f32(_LOG_Q2), x + y)


def cephes_sincos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sin x, cos x)`` of float32 ``x`` as PyTorch's AVX2 ``normal_`` computes them."""
    negative = x < 0
    x = np.abs(x)
    j = (x * f32(_FOUR_OVER_PI)).astype(np.int32)
    j = (j + 1) & ~1                               # NB: the octant, made even
    y = j.astype(f32)
    for dp in _DP:
        x = fma32(y, dp, x)
    sin_negative = negative ^ ((j & 4) != 0)
    cos_negative = ((j - 2) & 4) == 0
    first = (j & 2) == 0                           # NB: sin from the sine polynomial
    z = x * x
    yc = fma32(np.full_like(z, f32(_COS_P[0])), z, _COS_P[1])
    yc = fma32(yc, z, _COS_P[2])
    yc = fma32(yc * z, z, -(z * f32(0.5))) + f32(1)
    ys = fma32(np.full_like(z, f32(_SIN_P[0])), z, _SIN_P[1])
    ys = fma32(ys, z, _SIN_P[2])
    ys = fma32(ys * z, x, x)
    s = np.where(first, ys, yc)
    c = np.where(first, yc, ys)
    return np.where(sin_negative, -s, s), np.where(cos_negative, -c, c)


# ------------------------------------------------------------------ the C library

def libm64(name: str, x: np.ndarray) -> np.ndarray:
    """The C library's double-precision ``name`` (``log``, ``log1p``, ``sin``, ``cos``) of ``x``.

    Python's ``math`` calls the same C functions PyTorch's kernels call; numpy's own loops
    differ from them in the last bit for a few inputs in a thousand.
    """
    fn = getattr(math, name)
    if x.size == 0:
        return np.zeros(x.shape)
    return np.frompyfunc(fn, 1, 1)(x).astype(np.float64)


@functools.cache
def _libm() -> ctypes.CDLL | None:
    path = ctypes.util.find_library("m") or ("libm.so.6" if os.name == "posix" else None)
    if path is None:
        return None
    try:
        return ctypes.CDLL(path)
    except OSError:
        return None


@functools.cache
def _libm32(name: str) -> Callable[[float], float] | None:
    lib = _libm()
    fn = getattr(lib, name + "f", None) if lib is not None else None
    if fn is None:
        return None
    fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
    return fn


def libm32(name: str, x: np.ndarray) -> np.ndarray:
    """The C library's single-precision ``name`` (``logf``, ``sinf``, ``cosf``) of float32 ``x``.

    One call an element (about 0.4 µs): only the default kernels need it. Without a loadable C
    library, the double-precision result rounded, which differs in the last bit for about one
    input in a hundred.
    """
    fn = _libm32(name)
    if fn is None or x.size == 0:
        return getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    return np.frompyfunc(fn, 1, 1)(x).astype(np.float32)
