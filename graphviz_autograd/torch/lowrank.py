"""``torch.svd_lowrank`` and ``torch.pca_lowrank``: randomized low-rank SVD (Halko et al.,
2009, algorithms 4.4 and 5.1) composed of the engine's ops in PyTorch's order, drawing its test
matrix from the default generator as PyTorch does, so a seed gives PyTorch's values and graph."""

from __future__ import annotations

from ..engine import dtypes as dt
from ..engine.tensor import Tensor

__all__ = ["svd_lowrank", "pca_lowrank", "get_approximate_basis"]


def _floating(A: Tensor) -> dt.DType:
    return A.dtype if A.dtype in (dt.float16, dt.float32, dt.float64) else dt.float32


def _minus(X: Tensor, M: Tensor | None, R: Tensor) -> Tensor:
    return X if M is None else X - M.matmul(R)


def get_approximate_basis(A: Tensor, q: int, niter: int | None = 2,
                          M: Tensor | None = None) -> Tensor:
    """``q`` orthonormal columns ``Q`` with ``Q Q^H (A - M)`` close to ``A - M``."""
    from .. import torch
    niter = 2 if niter is None else niter
    R = torch.randn(A.shape[-1], q, dtype=_floating(A))
    Q = torch.linalg.qr(_minus(A.matmul(R), M, R)).Q
    for _ in range(niter):
        Q = torch.linalg.qr(_minus(A.mH.matmul(Q), None if M is None else M.mH, Q)).Q
        Q = torch.linalg.qr(_minus(A.matmul(Q), M, Q)).Q
    return Q


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2,
                M: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """``(U, S, V)`` with ``A - M ≈ U diag(S) V^H``, of rank ``q``.

    >>> import graphviz_autograd.torch as torch
    >>> _ = torch.manual_seed(0)
    >>> U, S, V = torch.svd_lowrank(torch.eye(4)[:, :3], q=2)
    >>> [round(s, 4) for s in S.tolist()]
    [1.0, 1.0]
    """
    from .. import torch
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:
        A = A.mH
        if M is not None:
            M = M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    U, S, Vh = torch.linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True,
                niter: int = 2) -> tuple[Tensor, Tensor, Tensor]:
    """Principal components of the rows of ``A`` (centred by default): ``(U, S, V)``."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return svd_lowrank(A - C, q, niter=niter, M=None)


