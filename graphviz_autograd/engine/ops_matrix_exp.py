"""Table entry: the matrix exponential ``linalg_matrix_exp`` (``LinalgMatrixExpBackward0``),
by scaling and squaring of a degree-13 Pade approximant; its gradient is the upper-right block
of the exponential of ``[[A^H, grad], [0, A^H]]``, as PyTorch's formula."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, no_double_backward, register

_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def expm(a: np.ndarray) -> np.ndarray:
    """``exp(a)`` of each matrix of a batch (float64 inside, the input's dtype out)."""
    x = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)
    n = x.shape[-1]
    out = np.empty_like(x)
    flat, res = x.reshape(-1, n, n), out.reshape(-1, n, n)
    eye = np.eye(n, dtype=x.dtype)
    b = _PADE13
    for i, m in enumerate(flat):
        norm = np.abs(m).sum(axis=0).max() if n else 0.0
        s = max(0, int(np.ceil(np.log2(norm / _THETA13)))) if norm > _THETA13 else 0
        m = m / (2.0 ** s)
        m2 = m @ m
        m4 = m2 @ m2
        m6 = m4 @ m2
        u = m @ (m6 @ (b[13] * m6 + b[11] * m4 + b[9] * m2)
                 + b[7] * m6 + b[5] * m4 + b[3] * m2 + b[1] * eye)
        v = (m6 @ (b[12] * m6 + b[10] * m4 + b[8] * m2)
             + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * eye)
        r = np.linalg.solve(v - u, v + u)
        for _ in range(s):
            r = r @ r
        res[i] = r
    return out.astype(a.dtype)


def _matrix_exp_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("LinalgMatrixExpBackward0")
    a = c.self
    n = a.shape[-1]
    ah = np.conj(np.swapaxes(a, -1, -2))
    meta = np.zeros((*a.shape[:-2], 2 * n, 2 * n), dtype=a.dtype)
    meta[..., :n, :n] = ah
    meta[..., n:, n:] = ah
    meta[..., :n, n:] = g
    return (expm(meta)[..., :n, n:],)


register(
    Op("linalg_matrix_exp", "LinalgMatrixExpBackward0", ("self",), expm, _matrix_exp_bw,
       (Save("self"),)),
)
