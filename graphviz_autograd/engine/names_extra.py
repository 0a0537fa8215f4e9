"""Smaller names scripts use: ``angle`` of real values (AngleBackward0), ``absolute`` /
``absolute_`` as methods, the deprecated ``torch.qr`` (LinalgQrBackward0, warned once), the
removed ``solve`` / ``eig`` / ``symeig`` / ``matrix_rank`` with PyTorch's explanations, the
device predicates a CPU tensor answers False (``is_xpu``, ``is_mps``, ...), ``dim_order``,
``const_data_ptr``, ``empty_permuted``."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from . import dtypes as dt
from . import functional as F
from .autograd import apply, apply_inplace
from .optable import TABLE, Op, Save, register
from .tensor import Tensor

__all__ = ["angle", "qr", "empty_permuted", "METHODS", "FUNCTIONS"]


def _angle(x: np.ndarray) -> np.ndarray:
    pi = x.dtype.type(math.pi)
    return np.where(x < 0, pi, np.where(np.isnan(x), x, x.dtype.type(0)))


# NB: PyTorch saves self for the complex formula; of real values the gradient is zero
register(Op("angle", "AngleBackward0", ("self",), _angle, lambda c, g, D: (D.zeros_like(g),),
            (Save("self"),), exact=True))


def angle(input: Tensor) -> Tensor:
    """0 for a non-negative real value, pi for a negative one (NaN stays NaN)."""
    dtype = input._dtype if input._dtype.is_floating_point else dt.float32
    return apply(TABLE["angle"], (input,), None, (input._data.astype(dtype.np, copy=False),),
                 dtype)


def _absolute_(self: Tensor) -> Tensor:
    F.no_bool(self, "abs")
    return apply_inplace(TABLE["abs"], self)


# -- qr and the removed functions ----------------------------------------------------------------
_QR_WARNING = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
    "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
    "Q, R = torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if "
    "some else 'complete') (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
    "BatchLinearAlgebra.cpp:2505.)")
_qr_warned = [False]


def qr(input: Tensor, some: bool = True) -> Any:
    """``torch.linalg.qr(input, 'reduced' if some else 'complete')``, returned as
    ``torch.return_types.qr``; PyTorch warns once per process that it is deprecated."""
    from ..torch import linalg
    if not _qr_warned[0]:
        _qr_warned[0] = True
        warnings.warn(_QR_WARNING, UserWarning, stacklevel=2)
    out = linalg.qr(input, "reduced" if some else "complete")
    return _QR(out[0], out[1])


class _QR(tuple):
    __slots__ = ()
    __module__ = "torch.return_types"

    def __new__(cls, Q: Tensor, R: Tensor) -> _QR:
        return super().__new__(cls, (Q, R))

    @property
    def Q(self) -> Tensor:
        return self[0]

    @property
    def R(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.qr(\nQ={self.Q!r},\nR={self.R!r})"


_QR.__name__ = _QR.__qualname__ = "qr"

_REMOVED = "This function was deprecated since version 1.9 and is now removed."
_REMOVED_HINTS = {
    "solve": (" `torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` "
              "has its arguments reversed and does not return the LU factorization.\n\nTo get the "
              "LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or "
              "`torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:\n"
              "X = torch.linalg.solve(A, B)"),
    "eig": (" `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather "
            "than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
            "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, "
            "eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
            "torch.linalg.eig(A)"),
    "symeig": (" The default behavior has changed from using the upper triangular portion of the "
               "matrix by default to using the lower triangular portion.\n\nL, _ = torch.symeig("
               "A, upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' "
               "if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) should "
               "be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"),
    "matrix_rank": ("\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter "
                    "'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'."),
}


def _removed(name: str) -> RuntimeError:
    return RuntimeError(_REMOVED + _REMOVED_HINTS[name])


def solve(input: Tensor, A: Tensor, *, out: Any = None) -> Any:
    raise _removed("solve")


def eig(input: Tensor, eigenvectors: bool = False, *, out: Any = None) -> Any:
    raise _removed("eig")


def symeig(input: Tensor, eigenvectors: bool = False, upper: bool = True, *,
           out: Any = None) -> Any:
    raise _removed("symeig")


def matrix_rank(input: Tensor, tol: Any = None, symmetric: bool = False, *,
                out: Any = None) -> Any:
    raise _removed("matrix_rank")


def _solve(self: Tensor, other: Tensor) -> Any:
    raise _removed("solve")


def _eig(self: Tensor, eigenvectors: bool = False) -> Any:
    raise _removed("eig")


def _symeig(self: Tensor, eigenvectors: bool = False, upper: bool = True) -> Any:
    raise _removed("symeig")


for _f in (_solve, _eig, _symeig):
    _f.__qualname__ = "Tensor." + _f.__name__[1:]


# -- layout and devices --------------------------------------------------------------------------
def _dim_order(self: Tensor, *, ambiguity_check: Any = False) -> tuple[int, ...]:
    """The dims from outermost to innermost in memory (by stride, ties in dim order)."""
    strides = self.stride()
    return tuple(sorted(range(len(strides)), key=lambda d: -strides[d]))


def empty_permuted(size: Any, physical_layout: Any, *, dtype: Any = None, layout: Any = None,
                   device: Any = None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:
    """A tensor of ``size`` laid out in memory in the dim order ``physical_layout`` (zeros: the
    engine's new memory is zero where PyTorch's is uninitialised)."""
    d = dtype or dt.float32
    size = tuple(int(s) for s in size)
    order = tuple(int(p) for p in physical_layout)
    data = np.zeros(tuple(size[p] for p in order), d.np).transpose(np.argsort(order))
    return Tensor._make(data, d, requires_grad)


def _false(self: Tensor) -> bool:
    return False


METHODS: dict[str, Any] = {
    "angle": angle, "absolute": lambda s: F.unary("abs", s, False), "absolute_": _absolute_,
    "qr": qr, "dim_order": _dim_order, "const_data_ptr": lambda s: s.data_ptr(),
    "is_distributed": _false,
    **{name: property(_false) for name in (
        "is_xpu", "is_mps", "is_ipu", "is_xla", "is_mtia", "is_maia", "is_vulkan", "is_mkldnn",
        "is_nested", "is_sparse_csr")},
    "solve": _solve, "eig": _eig, "symeig": _symeig,
}
FUNCTIONS: dict[str, Any] = {
    "angle": angle, "qr": qr, "empty_permuted": empty_permuted,
    "is_distributed": lambda input: False,
    "solve": solve, "eig": eig, "symeig": symeig, "matrix_rank": matrix_rank,
}
