"""``torch.matrix_exp`` / ``torch.linalg.matrix_exp`` (LinalgMatrixExpBackward0) and
``torch.linalg.householder_product`` / ``torch.orgqr`` (LinalgHouseholderProductBackward0): the
maps of ``nn.utils.parametrizations.orthogonal``."""

from __future__ import annotations

from ..engine import messages as _msg
from ..engine.autograd import apply as _apply
from ..engine.optable import TABLE as _T
from ..engine.tensor import Tensor

__all__ = ["matrix_exp", "householder_product", "orgqr"]


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential of each square matrix of ``A``.

    >>> from graphviz_autograd import torch
    >>> torch.matrix_exp(torch.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 "
                           "dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they "
                           f"are {A.shape[-2]} by {A.shape[-1]} matrices")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        name = _msg.SCALAR_NAME.get(A.dtype.name, A.dtype.name)
        raise RuntimeError("linalg.matrix_exp: Expected a floating point or complex tensor as "
                           f"input. Got {name}")
    return _apply(_T["linalg_matrix_exp"], (A,), dtype=A.dtype)


def householder_product(input: Tensor, tau: Tensor) -> Tensor:
    """The first columns of the product of the Householder reflectors stored in ``input``
    below its diagonal, with factors ``tau`` (LAPACK's orgqr)."""
    name = "torch.linalg.householder_product"
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if input.shape[-2] < input.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if input.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if input.dim() - tau.dim() != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.dim()} and input.ndim is equal to "
                           f"{input.dim()}")
    if input.dtype.is_complex:
        raise NotImplementedError(f"{name} of complex matrices is not supported by "
                                  "graphviz_autograd")
    return _apply(_T["linalg_householder_product"], (input, tau), dtype=input.dtype)


orgqr = householder_product
