"""The user-facing ``torch.linalg`` functions (and their older ``torch.*`` names): norms as
PyTorch decomposes them onto ``LinalgVectorNormBackward0`` and ``amax``, and the decompositions
of ``ops_decomp`` with PyTorch's argument checks and messages."""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtypes as dt
from . import functional as F
from . import messages as msg
from .autocast import fp32 as _amp_fp32
from .autocast import state as _amp
from .autograd import apply
from .optable import TABLE
from .tensor import Tensor

__all__ = ["LinAlgError", "inv", "inv_ex", "det", "slogdet", "logdet", "solve", "cholesky",
           "cholesky_ex", "vector_norm", "matrix_norm", "norm", "torch_cholesky", "svd",
           "torch_svd", "svdvals", "eigh", "eigvalsh", "qr", "pinv", "pinverse",
           "solve_triangular"]


class LinAlgError(RuntimeError):
    """PyTorch's ``torch.linalg.LinAlgError`` (a RuntimeError)."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


def _named(name: str, fields: str) -> Any:
    base = namedtuple(name, fields)  # type: ignore[misc]

    def show(self: Any) -> str:
        inner = ",\n".join(f"{k}={v!r}" for k, v in zip(self._fields, self, strict=True))
        return f"torch.return_types.{name}(\n{inner})"
    return type(name, (base,), {"__slots__": (), "__repr__": show, "__str__": show,
                                "__module__": "torch.return_types"})


_SLOGDET = _named("linalg_slogdet", "sign logabsdet")
_SVD = _named("linalg_svd", "U S Vh")
_SVD_OLD = _named("svd", "U S V")
_EIGH = _named("linalg_eigh", "eigenvalues eigenvectors")
_QR = _named("linalg_qr", "Q R")
_SLOGDET_OLD = _named("slogdet", "sign logabsdet")
_INV_EX = _named("linalg_inv_ex", "inverse info")
_CHOLESKY_EX = _named("linalg_cholesky_ex", "L info")


def _square(name: str, a: Tensor, what: str = "A") -> None:
    shape = a._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"{name}: The input tensor {what} must have at least 2 dimensions.")
    if shape[-1] != shape[-2]:
        raise RuntimeError(f"{name}: {what} must be batches of square matrices, but they are "
                           f"{shape[-2]} by {shape[-1]} matrices")


def _floating(name: str, a: Tensor, what: str = "input") -> None:
    if not a._dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as {what}. Got "
                           f"{msg.SCALAR_NAME.get(a._dtype.name, a._dtype.name)}")


def _no_grad_info(info: Tensor) -> Tensor:
    # NB: an integer output: PyTorch gives it no grad_fn
    info._grad_fn = None
    return info


def _singular_pivot(a: np.ndarray) -> list[tuple[tuple[int, ...], int]]:
    """(batch index, 1-based diagonal position) of each singular matrix's first zero pivot."""
    from .ops_decomp import lu_factor
    lu, _ = lu_factor(a.astype(np.float64))
    out = []
    for idx in np.ndindex(*a.shape[:-2]):
        diag = np.diagonal(lu[idx])
        zero = np.flatnonzero(diag == 0)
        if zero.size:
            out.append((idx, int(zero[0]) + 1))
    return out


def _batch_prefix(a: np.ndarray, idx: tuple[int, ...]) -> str:
    if a.ndim == 2:
        return ""
    flat = int(np.ravel_multi_index(idx, a.shape[:-2])) if idx else 0
    return f"(Batch element {flat}): "


# -- inverse, determinants, solve, cholesky ------------------------------------------------------
def inv_ex(A: Tensor, *, check_errors: bool = False) -> Any:
    _square("linalg.inv", A)
    _floating("linalg.inv", A)
    singular = _singular_pivot(A._data)
    if singular and check_errors:
        _raise_singular_inv(A, singular)
    if singular:
        with np.errstate(all="ignore"):
            inverse, info = apply(TABLE["linalg_inv_ex"], (A,))
        return _INV_EX(inverse, _no_grad_info(info))
    inverse, info = apply(TABLE["linalg_inv_ex"], (A,))
    return _INV_EX(inverse, _no_grad_info(info))


def _raise_singular_inv(A: Tensor, singular: list[tuple[tuple[int, ...], int]]) -> None:
    idx, k = singular[0]
    raise LinAlgError(f"linalg.inv: {_batch_prefix(A._data, idx)}The diagonal element {k} is "
                      "zero, the inversion could not be completed because the input matrix is "
                      "singular.")


def inv(A: Tensor) -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(inv, A)
    _square("linalg.inv", A)
    _floating("linalg.inv", A)
    singular = _singular_pivot(A._data)
    if singular:
        _raise_singular_inv(A, singular)
    return inv_ex(A).inverse


def det(A: Tensor) -> Tensor:
    _square("linalg.det", A)
    _floating("linalg.det", A)
    return apply(TABLE["linalg_det"], (A,))


def _slogdet(name: str, A: Tensor) -> tuple[Tensor, Tensor]:
    _square(name, A)
    _floating(name, A)
    sign, logabsdet = apply(TABLE["linalg_slogdet"], (A,))
    return sign, logabsdet


def slogdet(A: Tensor) -> Any:
    return _SLOGDET(*_slogdet("linalg.slogdet", A))


def torch_slogdet(A: Tensor) -> Any:
    return _SLOGDET_OLD(*_slogdet("linalg.slogdet", A))


def logdet(A: Tensor) -> Tensor:
    """PyTorch's logdet: slogdet's log|det|, nan where the determinant is negative."""
    sign, logabsdet = _slogdet("logdet", A)
    cond = Tensor._make(np.asarray(sign._data == -1), dt.bool_)
    nan = Tensor._make(np.array(math.nan, dtype=A._data.dtype), A._dtype)
    return F.where(cond, nan, logabsdet)


def solve(A: Tensor, B: Tensor, *, left: bool = True, _ex: bool = False) -> Any:
    _square("linalg.solve", A)
    _floating("linalg.solve", A)
    sa, sb = A._data.shape, B._data.shape
    vector = len(sb) == 1 or (left and len(sb) == len(sa) - 1 and sb == sa[:-1])
    rows, cols = (sb[-1], 1) if vector else (sb[-2], sb[-1])
    if (rows if left else cols) != sa[-1] or (vector and not left and sa[-1] != 1):
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({sa[-2]}x{sa[-1]} and "
                           f"{rows}x{cols})")
    if not _ex and _singular_pivot(A._data):
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is "
                          "singular.")
    out, info = apply(TABLE["linalg_solve_ex"], (A, B), {"left": left, "vector": vector},
                      dtype=F.promote(A, B))
    _no_grad_info(info)
    # NB: ``_ex``: solve_ex's two outputs
    return (out, info) if _ex else out


def _positive_definite(name: str, A: Tensor) -> None:
    for idx in np.ndindex(*A._data.shape[:-2]):
        m = A._data[idx].astype(np.float64)
        for k in range(1, m.shape[-1] + 1):
            if np.linalg.det(m[:k, :k]) <= 0:
                raise LinAlgError(f"{name}: {_batch_prefix(A._data, idx)}The factorization could "
                                  "not be completed because the input is not positive-definite "
                                  f"(the leading minor of order {k} is not positive-definite).")


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> Any:
    _square("linalg.cholesky", A)
    _floating("linalg.cholesky", A)
    if check_errors:
        _positive_definite("linalg.cholesky", A)
    low, info = apply(TABLE["linalg_cholesky_ex"], (A,), {"upper": upper})
    return _CHOLESKY_EX(low, _no_grad_info(info))


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    _square("linalg.cholesky", A)
    _floating("linalg.cholesky", A)
    _positive_definite("linalg.cholesky", A)
    return cholesky_ex(A, upper=upper).L


_CHOLESKY_WARNED = False


def torch_cholesky(A: Tensor, upper: bool = False) -> Tensor:
    """The deprecated ``torch.cholesky`` (its own node, CholeskyBackward0)."""
    global _CHOLESKY_WARNED
    if not _CHOLESKY_WARNED:
        _CHOLESKY_WARNED = True
        msg.warn_user(
            "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed "
            "in a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
            "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be "
            "replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
            "equivalent results for all valid (symmetric positive definite) inputs.",
            UserWarning)
    _square("cholesky", A)
    _positive_definite("cholesky", A)
    return apply(TABLE["cholesky"], (A,), {"upper": upper})


_UNSET: Any = object()


def solve_triangular(A: Tensor, B: Tensor, *, upper: Any = _UNSET, left: bool = True,
                     unitriangular: bool = False) -> Tensor:
    if upper is _UNSET:
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: '
                        '"upper"')
    for what, t in (("A", A), ("B", B)):
        if t._data.ndim < 2:
            raise RuntimeError(f"linalg.solve_triangular: The input tensor {what} must have at "
                               "least 2 dimensions.")
    _square("linalg.solve_triangular", A)
    sa, sb = A._data.shape, B._data.shape
    rows = sb[-2] if left else sb[-1]
    if rows != sa[-1]:
        eq, shown = ("AX = B", f"{sb[-2]}x{sb[-1]}") if left else ("XA = B", f"{sb[-2]}x{sb[-1]}")
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation {eq} ({sa[-2]}x{sa[-1]} and {shown})")
    return apply(TABLE["linalg_solve_triangular"], (A, B),
                 {"upper": bool(upper), "left": left, "unitriangular": unitriangular},
                 dtype=F.promote(A, B))


# -- svd, eigh, qr, pinv ------------------------------------------------------------------------
def _matrix(name: str, A: Tensor) -> None:
    if A._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    _floating(name, A)


def _svd_parts(A: Tensor, full_matrices: bool) -> list[Tensor]:
    _matrix("linalg.svd", A)
    k = min(A._data.shape[-2:])
    return apply(TABLE["linalg_svd"], (A,), {"full_matrices": full_matrices,
                                             "S_sym_argsize_minus_1": k})


def svd(A: Tensor, full_matrices: bool = True, *, driver: Any = None) -> Any:
    """NB: the singular vectors' signs are numpy's LAPACK's, which may differ from PyTorch's."""
    return _SVD(*_svd_parts(A, full_matrices))


def torch_svd(A: Tensor, some: bool = True, compute_uv: bool = True) -> Any:
    if not compute_uv:
        raise NotImplementedError("torch.svd(compute_uv=False) is not supported by this engine")
    u, s, vh = _svd_parts(A, not some)
    return _SVD_OLD(u, s, F.transpose(vh, -2, -1))


def svdvals(A: Tensor, *, driver: Any = None) -> Tensor:
    return _svd_parts(A, False)[1]


def _check_uplo(name: str, UPLO: str) -> None:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"{name}: Expected UPLO to be 'L' or 'U', but got {UPLO}")


def eigh(A: Tensor, UPLO: str = "L") -> Any:
    """NB: the eigenvectors' signs are numpy's LAPACK's, which may differ from PyTorch's."""
    _square("linalg.eigh", A)
    _floating("linalg.eigh", A)
    _check_uplo("linalg.eigh", UPLO)
    return _EIGH(*apply(TABLE["linalg_eigh"], (A,), {"uplo": UPLO}))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    _square("linalg.eigh", A)
    _floating("linalg.eigvalsh", A)
    _check_uplo("linalg.eigvalsh", UPLO)
    return apply(TABLE["linalg_eigh"], (A,), {"uplo": UPLO})[0]


def qr(A: Tensor, mode: str = "reduced") -> Any:
    _matrix("linalg.qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    return _QR(*apply(TABLE["linalg_qr"], (A,), {"mode": mode}))


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:
    _matrix("linalg.pinv", A)
    if atol is not None or hermitian:
        raise NotImplementedError("linalg.pinv(atol=, hermitian=) is not supported by this "
                                  "engine")
    if rtol is None:
        rtol = float(np.finfo(A._data.dtype).eps) * max(A._data.shape[-2:])
    out = apply(TABLE["linalg_pinv"], (A,), {"rtol": rtol})
    return out


def pinverse(A: Tensor, rcond: float = 1e-15) -> Tensor:
    return pinv(A, rtol=rcond)


# -- norms ---------------------------------------------------------------------------------------
def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    _floating("linalg.vector_norm", x)
    dims = F.reduce_dims(dim, x._data.ndim)
    shape = x._data.shape
    if isinstance(ord, float | int) and math.isinf(ord) and x._data.size == 0 and (
            not dims or any(shape[d] == 0 for d in dims)):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor "
                           "because the operation does not have an identity")
    # NB: dtype= computes in that dtype within the one node (no conversion node)
    out = apply(TABLE["norm"], (x,), {"ord": ord, "dim": dims, "keepdim": keepdim},
                dtype=x._dtype if dtype is None else dtype)
    return F.as_given(out, dim=F.given_dims(dim))


def matrix_norm(A: Tensor, ord: Any = "fro", dim: Sequence[int] = (-2, -1),
                keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    _floating("linalg.matrix_norm", A)
    if ord == "fro":
        n = A._data.ndim
        # NB: PyTorch passes the dims on normalized
        return vector_norm(A, 2, tuple(F._dim(d, n) for d in dim), keepdim, dtype=dtype)
    if ord in ("nuc", 2, -2):
        n = A._data.ndim
        d0, d1 = F._dim(dim[0], n), F._dim(dim[1], n)
        # NB: the two dims moved last (a permute even where they are there), then the
        # singular values summed, or their largest or smallest
        rest = [d for d in range(n) if d not in (d0, d1)]
        moved = F.permute(A if dtype is None else F.to_dtype(A, dtype), (*rest, d0, d1))
        values = svdvals(moved)
        if ord == "nuc":
            out = F.sum(values, -1, keepdim=keepdim)
        else:
            key = "amax" if ord == 2 else "amin"
            out = F.as_given(apply(TABLE[key], (values,), {"dim": (values._data.ndim - 1,),
                                                          "keepdim": keepdim},
                                   dtype=values._dtype), dim=(-1,))
        if keepdim:
            # NB: the two dims back in place: one more unit dim, then the inverse permute
            back = np.argsort((*rest, d0, d1))
            out = F.permute(F.unsqueeze(out, -1), tuple(int(i) for i in back))
        return out
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    n = A._data.ndim
    d0, d1 = F._dim(dim[0], n), F._dim(dim[1], n)
    if ord in (math.inf, -math.inf):
        d0, d1 = d1, d0
    # NB: the sum of absolute values over one dim, then the largest (smallest) over the other
    summed = vector_norm(A, 1.0, (d0,), keepdim, dtype=dtype)
    if not keepdim and d1 > d0:
        d1 -= 1
    return apply(TABLE["amax" if ord > 0 else "amin"], (summed,),
                 {"dim": (d1,), "keepdim": keepdim}, dtype=summed._dtype)


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
         dtype: Any = None) -> Tensor:
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        return vector_norm(A, 2.0 if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2.0, None, keepdim, dtype=dtype)
    if A._data.ndim == 2 or isinstance(ord, str):
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    if A._data.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A._data.ndim}D.")
    return vector_norm(A, ord, None, keepdim, dtype=dtype)


def _method(fn: Any) -> Any:
    def m(self: Tensor, *args: Any, **kw: Any) -> Any:
        return fn(self, *args, **kw)
    m.__name__ = fn.__name__
    return m


METHODS = {"inverse": _method(inv), "det": _method(det), "logdet": _method(logdet),
           "slogdet": _method(torch_slogdet), "cholesky": _method(torch_cholesky),
           "svd": _method(torch_svd), "pinverse": _method(pinverse)}
