"""PyTorch's deprecated functions scripts still call: ``torch.frobenius_norm`` and
``torch.nuclear_norm`` (each warns once per process, as PyTorch's TORCH_WARN_ONCE), and
``torch.set_default_tensor_type`` (warns every call)."""

from __future__ import annotations

import warnings
from typing import Any

from ..engine import dtypes as dt
from ..engine import functional as F
from ..engine.autograd import apply
from ..engine.optable import TABLE
from ..engine.tensor import Tensor

__all__ = ["frobenius_norm", "nuclear_norm", "set_default_tensor_type"]

_WARNED_ONCE: set[str] = set()


def _deprecated_norm(name: str, instead: str) -> None:
    if name not in _WARNED_ONCE:
        _WARNED_ONCE.add(name)
        warnings.warn(f"at::{name} is deprecated and it is just left for JIT compatibility. It "
                      "will be removed in a future PyTorch release. Please use "
                      f"`{instead}` instead", UserWarning, stacklevel=3)


def frobenius_norm(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """``at::norm(input, 2, dim, keepdim)`` (NormBackward1)."""
    _deprecated_norm("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    n = max(input._data.ndim, 1)
    kw = {"p": 2.0, "dim": tuple(F._dim(d, n) for d in dims), "keepdim": bool(keepdim)}
    return apply(TABLE["norm_p"], (input,), kw, dtype=input._dtype)


def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """``linalg.matrix_norm(input, 'nuc', dim, keepdim)``."""
    from . import linalg
    _deprecated_norm("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    return linalg.matrix_norm(input, "nuc", dim=(-2, -1) if dim is None else tuple(dim),
                              keepdim=keepdim)


def set_default_tensor_type(t: Any) -> None:
    """Deprecated in PyTorch (it warns); the engine's default dtype stays float32."""
    from . import set_default_dtype
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                  UserWarning, stacklevel=2)
    name = str(t if isinstance(t, str) else getattr(t, "__name__", t))
    if name.split(".")[-1] != "FloatTensor":
        set_default_dtype(dt.float64 if "Double" in name else dt.float16)
