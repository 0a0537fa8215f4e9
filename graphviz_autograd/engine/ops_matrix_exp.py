"""Table entry: the matrix exponential ``linalg_matrix_exp`` (``LinalgMatrixExpBackward0``), by
PyTorch's scheme (a Taylor polynomial of degree 1, 2, 4, 8, 12 or 18 picked by the 1-norm, with
scaling and squaring beyond); its gradient is the upper-right block of the exponential of
``[[A^H, grad], [0, A^H]]``, as PyTorch's formula, node for node under ``create_graph``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, no_double_backward, register

# NB: the 1-norm bounds under which each degree is exact to the dtype's precision
_THETA = {
    np.dtype(np.float32): (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                           5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00),
    np.dtype(np.float64): (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                           4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00),
}
_DEGREES = (1, 2, 4, 8, 12, 18)


def _taylor(a: np.ndarray, degree: int) -> np.ndarray:
    eye = np.eye(a.shape[-1], dtype=a.dtype)
    out = eye + a / degree
    for k in range(degree - 1, 0, -1):
        out = eye + (a @ out) / k
    return out


def expm(a: np.ndarray) -> np.ndarray:
    """``exp(a)`` of each matrix of a batch (float64 inside, the input's dtype out)."""
    x = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)
    real = np.dtype(np.float32) if a.dtype in (np.float32, np.complex64) else np.dtype(np.float64)
    thetas = _THETA[real]
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape[:-2]):
        m = x[idx]
        norm = float(np.abs(m).sum(axis=0).max()) if m.size else 0.0
        for degree, theta in zip(_DEGREES, thetas, strict=True):
            if norm <= theta:
                out[idx] = _taylor(m, degree)
                break
        else:
            s = max(0, int(np.ceil(np.log2(norm / thetas[-1]))))
            e = _taylor(m / 2.0 ** s, 18)
            for _ in range(s):
                e = e @ e
            out[idx] = e
    return out.astype(a.dtype)


def _matrix_exp_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        return (_tt_matrix_exp_bw(c.self, g),)
    a = c.self
    n = a.shape[-1]
    ah = np.conj(np.swapaxes(a, -1, -2))
    meta = np.zeros((*a.shape[:-2], 2 * n, 2 * n), dtype=a.dtype)
    meta[..., :n, :n] = ah
    meta[..., n:, n:] = ah
    meta[..., :n, n:] = g
    return (expm(meta)[..., :n, n:],)


def _tt_matrix_exp_bw(a: Any, g: Any) -> Any:
    """The formula on tensors (create_graph), as PyTorch builds it: A^T twice and the gradient
    copied into the blocks of a zero matrix, its exponential, the upper right block."""
    from . import dtypes as dt
    from . import functional as F
    from .autograd import apply
    from .optable import TABLE
    from .tensor import Tensor
    if np.iscomplexobj(a._data):
        raise no_double_backward("LinalgMatrixExpBackward0", " for a complex matrix")
    n = a.shape[-1]
    at = F.transpose(a, -2, -1)
    shape = (*a.shape[:-2], 2 * n, 2 * n)
    big = Tensor._make(np.zeros(shape, dtype=g._data.dtype), dt.from_numpy(g._data.dtype))
    F.narrow(F.narrow(big, -2, 0, n), -1, 0, n).copy_(at)
    F.narrow(F.narrow(big, -2, n, n), -1, n, n).copy_(at)
    F.narrow(F.narrow(big, -2, 0, n), -1, n, n).copy_(g)
    out = apply(TABLE["linalg_matrix_exp"], (big,))
    return F.narrow(F.narrow(out, -2, 0, n), -1, n, n)


register(
    Op("linalg_matrix_exp", "LinalgMatrixExpBackward0", ("self",), expm, _matrix_exp_bw,
       (Save("self"),)),
)
