"""``torch.matrix_exp`` / ``torch.linalg.matrix_exp`` (LinalgMatrixExpBackward0)."""

from __future__ import annotations

from ..engine import messages as _msg
from ..engine.autograd import apply as _apply
from ..engine.optable import TABLE as _T
from ..engine.tensor import Tensor

__all__ = ["matrix_exp"]


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
