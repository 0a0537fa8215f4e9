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
from ..engine.ordering import diagonal as _diagonal
from ..engine.products import linalg_cross as cross
from ..engine.products import matrix_power, multi_dot, vecdot
from ..engine.tensor import Tensor

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cross", "det", "diagonal", "eigh",
           "eigvalsh", "inv", "inv_ex", "matmul", "matrix_norm", "matrix_power", "multi_dot",
           "norm", "pinv", "qr", "slogdet", "solve", "solve_triangular", "svd", "svdvals",
           "vecdot", "vector_norm"]


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return _diagonal(A, offset, dim1, dim2)


from .matrix_exp import (  # noqa: E402, F401 -- torch.linalg.matrix_exp, householder_product
    householder_product,
    matrix_exp,
)
