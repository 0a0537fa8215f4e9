"""``torch.linalg``: the engine's linear algebra under PyTorch's names.

>>> import graphviz_autograd.torch as torch
>>> a = torch.tensor([[2.0, 0.0], [0.0, 4.0]], requires_grad=True)
>>> torch.linalg.inv(a).grad_fn.name()
'LinalgInvExBackward0'
"""

from __future__ import annotations

from ..engine.functional import matmul
from ..engine.linalg import (
    LinAlgError,
    cholesky,
    cholesky_ex,
    det,
    eigh,
    eigvalsh,
    inv,
    inv_ex,
    matrix_norm,
    norm,
    pinv,
    qr,
    slogdet,
    solve,
    solve_triangular,
    svd,
    svdvals,
    vector_norm,
)
from ..engine.linalg_more import (
    cond,
    ldl_factor,
    ldl_factor_ex,
    ldl_solve,
    lstsq,
    lu,
    lu_factor,
    lu_factor_ex,
    lu_solve,
    matrix_rank,
    solve_ex,
    tensorinv,
    tensorsolve,
    vander,
)
from ..engine.ordering import diagonal as _diagonal
from ..engine.products import linalg_cross as cross
from ..engine.products import matrix_power, multi_dot, vecdot
from ..engine.tensor import Tensor

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh",
           "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor",
           "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor",
           "lu_factor_ex", "lu_solve",
           "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot",
           "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd",
           "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm"]


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return _diagonal(A, offset, dim1, dim2)


from .matrix_exp import (  # noqa: E402 -- torch.linalg.matrix_exp, householder_product
    householder_product,
    matrix_exp,
)
