"""Conjugation and the complex views, as PyTorch gives them for real tensors (the engine has
no complex dtype): ``conj``, ``conj_physical``, ``resolve_conj``, ``resolve_neg`` and ``real``
return the tensor itself (no node); ``conj_physical_`` writes in place (ConjPhysicalBackward1);
``imag`` raises PyTorch's error; ``adjoint`` / ``H`` / ``mH`` / ``mT`` are transposes
(TransposeBackward0), each the tensor itself on a 0-d tensor, with PyTorch's warning."""

from __future__ import annotations

import warnings
from typing import Any

from . import functional as F
from .autograd import apply_inplace
from .optable import TABLE, Op, register
from .tensor import Tensor

__all__ = ["adjoint", "conj", "conj_physical", "conj_physical_", "imag", "real", "resolve_conj",
           "resolve_neg", "METHODS", "FUNCTIONS"]

register(Op("conj_physical_", "ConjPhysicalBackward1", ("self",), lambda x: x,
            lambda c, g, D: (g,), exact=True))

_SOURCE = " (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:"
_ZERO_D = {
    "H": "Tensor.H is deprecated on 0-D tensors. Consider using x.conj()." + _SOURCE + "4335.)",
    "mH": "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj()." + _SOURCE + "4382.)",
    "mT": "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases."
          + _SOURCE + "4373.)",
    "adjoint": "adjoint() is deprecated on 0-D tensors. Consider using x.conj()." + _SOURCE
               + "4390.)",
}


def _identity(input: Tensor) -> Tensor:
    return input


conj = conj_physical = resolve_conj = resolve_neg = real = _identity


def conj_physical_(input: Tensor) -> Tensor:
    """In place, the identity on real values: a version bump and ConjPhysicalBackward1."""
    return apply_inplace(TABLE["conj_physical_"], input)


def imag(input: Tensor) -> Tensor:
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _transposed(name: str, input: Tensor, error: str) -> Tensor:
    n = input._data.ndim
    if n == 0:
        warnings.warn(_ZERO_D[name], UserWarning, stacklevel=3)
        return input
    if n < 2 or (name == "H" and n != 2):
        raise RuntimeError(error.format(n=n))
    return F.transpose(input, -2, -1)


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims: for real values, their transpose."""
    return _transposed("adjoint", input, "tensor.adjoint() is only supported on matrices or "
                       "batches of matrices. Got {n}-D tensor.")


def _matrix_property(name: str) -> Any:
    error = (f"tensor.{name} is only supported on matrices or batches of matrices. "
             "Got {n}-D tensor.")

    def get(self: Tensor) -> Tensor:
        return _transposed(name, self, error)
    return property(get)


def _h(self: Tensor) -> Tensor:
    n = self._data.ndim
    error = "tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor."
    if n > 2:
        error += " For batches of matrices, consider using tensor.mH"
    return _transposed("H", self, error)


METHODS: dict[str, Any] = {
    "conj": conj, "conj_physical": conj_physical, "conj_physical_": conj_physical_,
    "resolve_conj": resolve_conj, "resolve_neg": resolve_neg, "adjoint": adjoint,
    "real": property(real), "imag": property(imag),
    "H": property(_h), "mH": _matrix_property("mH"), "mT": _matrix_property("mT"),
}
FUNCTIONS: dict[str, Any] = {
    "conj": conj, "conj_physical": conj_physical, "conj_physical_": conj_physical_,
    "resolve_conj": resolve_conj, "resolve_neg": resolve_neg, "adjoint": adjoint,
    "real": real, "imag": imag,
}
