"""Table entries: ``linalg_ldl_factor_ex`` and ``linalg_ldl_solve``, which PyTorch does not
differentiate (a ``NotImplemented`` node): the Bunch-Kaufman LDL^T factors as LAPACK's sytrf
computes them (its pivots: positive for a 1x1 block, both entries of a 2x2 block negative),
and sytrs's solve with them."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ops_decomp import column_major
from .ops_pointwise import _not_implemented
from .optable import Op, register

_ALPHA = (1 + np.sqrt(17.0)) / 8       # Bunch-Kaufman's growth bound


def sytf2(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The lower LDL^T factors, pivots and info of one symmetric matrix (its lower triangle)."""
    a = np.array(a, copy=True)
    n = a.shape[0]
    piv = np.zeros(n, dtype=np.int32)
    info, k = 0, 0
    with np.errstate(all="ignore"):
        while k < n:
            kstep, kp = 1, k
            absakk = abs(a[k, k])
            imax, colmax = k, 0.0
            if k < n - 1:
                imax = k + 1 + int(np.argmax(np.abs(a[k + 1:, k])))
                colmax = abs(a[imax, k])
            if max(absakk, colmax) == 0:
                info = info or k + 1
            else:
                if absakk < _ALPHA * colmax:
                    rowmax = float(np.max(np.abs(a[imax, k:imax])))
                    if imax < n - 1:
                        rowmax = max(rowmax, float(np.max(np.abs(a[imax + 1:, imax]))))
                    if absakk >= _ALPHA * colmax * (colmax / rowmax):
                        kp = k
                    elif abs(a[imax, imax]) >= _ALPHA * rowmax:
                        kp = imax
                    else:
                        kp, kstep = imax, 2
                _interchange(a, k, k + kstep - 1, kp, kstep)
                _update(a, k, kstep)
            if kstep == 1:
                piv[k] = kp + 1
            else:
                piv[k] = piv[k + 1] = -(kp + 1)
            k += kstep
    return np.tril(a), piv, info


def _interchange(a: np.ndarray, k: int, kk: int, kp: int, kstep: int) -> None:
    if kp == kk:
        return
    if kp < a.shape[0] - 1:
        a[kp + 1:, [kk, kp]] = a[kp + 1:, [kp, kk]]
    seg = a[kk + 1:kp, kk].copy()
    a[kk + 1:kp, kk] = a[kp, kk + 1:kp]
    a[kp, kk + 1:kp] = seg
    a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
    if kstep == 2:
        a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]


def _update(a: np.ndarray, k: int, kstep: int) -> None:
    n = a.shape[0]
    if kstep == 1:
        if k < n - 1:
            d11 = 1 / a[k, k]
            col = a[k + 1:, k].copy()
            a[k + 1:, k + 1:] -= np.tril(d11 * np.outer(col, col))
            a[k + 1:, k] *= d11
        return
    if k < n - 2:
        d21 = a[k + 1, k]
        d11 = a[k + 1, k + 1] / d21
        d22 = a[k, k] / d21
        d21 = (1 / (d11 * d22 - 1)) / d21
        for j in range(k + 2, n):
            wk = d21 * (d11 * a[j, k] - a[j, k + 1])
            wkp1 = d21 * (d22 * a[j, k + 1] - a[j, k])
            a[j:, j] -= a[j:, k] * wk + a[j:, k + 1] * wkp1
            a[j, k] = wk
            a[j, k + 1] = wkp1


def _ldl_factor_fwd(a: np.ndarray, **_: Any) -> list[np.ndarray]:
    ld = np.empty_like(a)
    piv = np.zeros(a.shape[:-1], dtype=np.int32)
    info = np.zeros(a.shape[:-2], dtype=np.int32)
    for idx in np.ndindex(*a.shape[:-2]):
        ld[idx], piv[idx], info[idx] = sytf2(a[idx])
    return [column_major(ld), piv, info]


def sytrs(ld: np.ndarray, piv: np.ndarray, b: np.ndarray) -> np.ndarray:
    """X with A X = B, A = P L D L^T P^T given by ``sytf2``'s factors (one matrix)."""
    x = np.array(b, copy=True)
    n = ld.shape[0]
    k = 0
    while k < n:                          # L D solved, swaps forward
        if piv[k] > 0:
            kp = piv[k] - 1
            x[[k, kp]] = x[[kp, k]]
            x[k + 1:] -= np.outer(ld[k + 1:, k], x[k])
            x[k] /= ld[k, k]
            k += 1
            continue
        kp = -piv[k] - 1
        x[[k + 1, kp]] = x[[kp, k + 1]]
        x[k + 2:] -= np.outer(ld[k + 2:, k], x[k]) + np.outer(ld[k + 2:, k + 1], x[k + 1])
        akm1k = ld[k + 1, k]
        akm1, ak = ld[k, k] / akm1k, ld[k + 1, k + 1] / akm1k
        denom = akm1 * ak - 1
        bkm1, bk = x[k] / akm1k, x[k + 1] / akm1k
        x[k], x[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
        k += 2
    k = n - 1
    while k >= 0:                         # L^T solved, swaps backward
        if piv[k] > 0:
            x[k] -= ld[k + 1:, k] @ x[k + 1:]
            kp = piv[k] - 1
            x[[k, kp]] = x[[kp, k]]
            k -= 1
            continue
        x[k] -= ld[k + 1:, k] @ x[k + 1:]
        x[k - 1] -= ld[k + 1:, k - 1] @ x[k + 1:]
        kp = -piv[k] - 1
        x[[k, kp]] = x[[kp, k]]
        k -= 2
    return x


def _ldl_solve_fwd(ld: np.ndarray, piv: np.ndarray, b: np.ndarray, **_: Any) -> np.ndarray:
    shape = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    ld = np.broadcast_to(ld, shape + ld.shape[-2:])
    piv = np.broadcast_to(piv, shape + piv.shape[-1:])
    b = np.broadcast_to(b, shape + b.shape[-2:])
    x = np.empty(b.shape, dtype=b.dtype)
    with np.errstate(all="ignore"):
        for idx in np.ndindex(*shape):
            x[idx] = sytrs(ld[idx], piv[idx], b[idx])
    return column_major(x)


register(
    Op("linalg_ldl_factor_ex", "torch::autograd::NotImplemented", ("*tensors",),
       _ldl_factor_fwd, _not_implemented("linalg_ldl_factor_ex"), n_outputs=3),
    Op("linalg_ldl_solve", "torch::autograd::NotImplemented", ("*tensors",), _ldl_solve_fwd,
       _not_implemented("linalg_ldl_solve")),
)
