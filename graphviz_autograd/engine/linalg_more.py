"""More of ``torch.linalg`` and its older ``torch.*`` names: least squares, the LU family,
``solve_ex``, ``cholesky_solve``, ``triangular_solve``, ``matrix_rank``, ``cond``,
``tensorinv``, ``tensorsolve``, ``vander``, LDL^T, ``geqrf`` and ``ormqr``, with PyTorch's
argument checks and messages; composites decomposed into the nodes PyTorch makes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes as dt
from . import functional as F
from . import messages as msg
from .autograd import apply
from .linalg import LinAlgError, _batch_prefix, _floating, _named, _no_grad_info, _square, svdvals
from .optable import TABLE
from .ordering import cumprod
from .tensor import Tensor

__all__ = ["lstsq", "torch_lstsq", "lu_factor", "lu_factor_ex", "lu", "lu_solve",
           "lu_unpack", "torch_lu", "solve_ex", "cholesky_solve", "triangular_solve",
           "matrix_rank", "cond", "tensorinv", "tensorsolve", "vander", "torch_lu_solve",
           "ldl_factor", "ldl_factor_ex", "ldl_solve",
           "geqrf", "ormqr"]

_LSTSQ = _named("linalg_lstsq", "solution residuals rank singular_values")
_LU_FACTOR = _named("linalg_lu_factor", "LU pivots")
_LU_FACTOR_EX = _named("linalg_lu_factor_ex", "LU pivots info")
_LU = _named("linalg_lu", "P L U")
_LU_UNPACK = _named("lu_unpack", "P L U")
_SOLVE_EX = _named("linalg_solve_ex", "result info")
_TRIANGULAR = _named("triangular_solve", "solution cloned_coefficient")


def _at_least_2d(name: str, a: Tensor, what: str = "A") -> None:
    if a._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {what} must have at least 2 dimensions.")


# -- least squares -------------------------------------------------------------------------------
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> Any:
    """NB: every driver's values from an SVD solve: the rank of a nearly rank-deficient matrix
    may differ from gelsy's column-pivoted QR."""
    if A._data.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B._data.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if A._dtype is not B._dtype:
        raise RuntimeError("torch.linalg.lstsq: Expected input and other to have the same dtype, "
                           f"but got input's dtype {_scalar(A)} and other's dtype {_scalar(B)}")
    _floating("linalg.lstsq", A)
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of "
                           "(gels, gelsy, gelsd, gelss)")
    sa, sb = A._data.shape, B._data.shape
    if not 0 <= len(sa) - len(sb) <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1")
    vector = B._data.ndim == A._data.ndim - 1
    _broadcast_batches(sa[:-2], sb[:-1] if vector else sb[:-2])
    if (sb[-1] if vector else sb[-2]) != sa[-2]:
        what = "other.size(-1)" if vector else "other.size(-2)"
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match {what}")
    if rcond is None:
        rcond = float(np.finfo(A._data.dtype).eps) * max(sa[-2:])
    outs = apply(TABLE["linalg_lstsq"], (A, B), {"rcond": rcond, "driver": driver,
                                                 "vector": vector})
    solution, residuals, rank, singular = outs
    return _LSTSQ(solution, residuals, _no_grad_info(rank), _no_grad_info(singular))


def _broadcast_batches(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    for i, (x, y) in enumerate(zip(pa, pb, strict=True)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")


def _scalar(t: Tensor) -> str:
    from . import messages as msg
    return msg.SCALAR_NAME.get(t._dtype.name, t._dtype.name)


def torch_lstsq(*args: Any, **kwargs: Any) -> Any:
    """``torch.lstsq``: removed (PyTorch keeps the name only to say so)."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is "
        "deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed "
        "arguments and does not return the QR decomposition in the returned tuple (although it "
        "returns other information about the problem).\n\nTo get the QR decomposition consider "
        "using `torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored the residuals "
        "of the solution in the last m - n columns of the returned value whenever m > n. In "
        "torch.linalg.lstsq, the residuals are in the field 'residuals' of the returned named "
        "tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution"
        "[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution")


# -- LU ------------------------------------------------------------------------------------------
def _lu_checks(name: str, A: Tensor, pivot: bool) -> None:
    if A._data.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(A._data.shape)} instead")
    if not A._dtype.is_floating_point:
        from . import messages as msg
        raise NotImplementedError(f'"lu_cpu" not implemented for '
                                  f"'{msg.SCALAR_NAME.get(A._dtype.name, A._dtype.name)}'")
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:
    _lu_checks("linalg.lu_factor", A, pivot)
    lu_, piv, info = apply(TABLE["linalg_lu_factor_ex"], (A,), {"pivot": pivot})
    if check_errors:
        _raise_zero_pivot("torch.linalg.lu_factor_ex", A, info)
    return _LU_FACTOR_EX(lu_, _no_grad_info(piv), _no_grad_info(info))


def _raise_zero_pivot(name: str, A: Tensor, info: Tensor) -> None:
    for idx in np.ndindex(*info._data.shape):
        k = int(info._data[idx])
        if k:
            raise RuntimeError(f"{name}: {_batch_prefix(A._data, idx)}U[{k},{k}] is zero and "
                              "using it on lu_solve would result in a division by zero. If you "
                              "still want to perform the factorization, consider calling "
                              "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def lu_factor(A: Tensor, *, pivot: bool = True) -> Any:
    lu_, piv, info = lu_factor_ex(A, pivot=pivot)
    _raise_zero_pivot("torch.linalg.lu_factor", A, info)
    return _LU_FACTOR(lu_, piv)


def lu(A: Tensor, *, pivot: bool = True) -> Any:
    _lu_checks("linalg.lu", A, pivot)
    p, low, up = apply(TABLE["linalg_lu"], (A,), {"pivot": pivot})
    return _LU(_no_grad_info(p), low, up)


_LU_WARNED = False


def torch_lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:
    """The deprecated ``torch.lu``: ``linalg.lu_factor_ex``'s outputs as a plain tuple."""
    global _LU_WARNED
    if not _LU_WARNED:
        _LU_WARNED = True
        msg.warn_user(
            "torch.lu is deprecated in favor of torch.linalg.lu_factor / "
            "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\n"
            "LU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
            "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
            "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be "
            "replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)",
            UserWarning)
    out = lu_factor_ex(A, pivot=pivot)
    return tuple(out) if get_infos else (out[0], out[1])


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,
              unpack_pivots: bool = True) -> Any:
    m, n = LU_data._data.shape[-2:]
    p, low, up = apply(TABLE["lu_unpack"], (LU_data,),
                       {"pivots": LU_pivots._data, "LU_data_sym_argsize_minus_1": n,
                        "LU_data_sym_argsize_minus_2": m, "unpack_data": unpack_data})
    if not unpack_data:
        empty = np.zeros((0,), dtype=LU_data._data.dtype)
        low._data, up._data = empty, empty.copy()
    if not unpack_pivots:
        p = Tensor._make(np.zeros((0,), dtype=LU_data._data.dtype), LU_data._dtype)
    return _LU_UNPACK(_no_grad_info(p), low, up)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,
             adjoint: bool = False) -> Tensor:
    _at_least_2d("linalg.lu_solve", LU, "LU")
    _at_least_2d("linalg.lu_solve", B, "B")
    _square("linalg.lu_solve", LU, "LU")
    sa, sb = LU._data.shape, B._data.shape
    if (sb[-2] if left else sb[-1]) != sa[-1]:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({sa[-2]}x{sa[-1]} and "
                           f"{sb[-2]}x{sb[-1]})")
    return apply(TABLE["linalg_lu_solve"], (LU, B),
                 {"pivots": pivots, "adjoint": adjoint, "left": left}, dtype=F.promote(LU, B))


# -- solves --------------------------------------------------------------------------------------
def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> Any:
    from .linalg import solve
    from .ops_lu import getrf
    _square("linalg.solve", A)
    _floating("linalg.solve", A)
    if check_errors and getrf(A._data)[2].any():
        raise LinAlgError("torch.linalg.solve_ex: The solver failed because the input matrix is "
                          "singular.")
    out, info = solve(A, B, left=left, _ex=True)
    return _SOLVE_EX(out, info)


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:
    if B._data.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B._data.ndim} "
                           "dimensions instead")
    if L._data.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L._data.ndim} "
                           "dimensions instead")
    sl, sb = L._data.shape, B._data.shape
    if sl[-1] != sl[-2] or sb[-2] != sl[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{sl[-2]} by {sl[-1]} but each b matrix is {sb[-2]} by {sb[-1]}")
    return apply(TABLE["cholesky_solve"], (B, L), {"upper": upper}, dtype=F.promote(B, L))


_TRIANGULAR_WARNED = False


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> Any:
    global _TRIANGULAR_WARNED
    if not _TRIANGULAR_WARNED:
        _TRIANGULAR_WARNED = True
        msg.warn_user(
            "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"
            "and will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular "
            "has its arguments reversed and does not return a copy of one of the inputs.\n"
            "X = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
            "X = torch.linalg.solve_triangular(A, B).", UserWarning)
    if b._data.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b._data.ndim} "
                           "dimensions instead")
    if A._data.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {A._data.ndim} "
                           "dimensions instead")
    sa, sb = A._data.shape, b._data.shape
    if sa[-1] != sa[-2] or sb[-2] != sa[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{sa[-2]} by {sa[-1]} but each b matrix is {sb[-2]} by {sb[-1]}")
    sol, clone = apply(TABLE["triangular_solve"], (b, A),
                       {"upper": upper, "transpose": transpose, "unitriangular": unitriangular},
                       dtype=F.promote(b, A))
    return _TRIANGULAR(sol, clone)


# -- rank, condition number ----------------------------------------------------------------------
def matrix_rank(A: Tensor, tol: Any = None, hermitian: bool = False, *, atol: Any = None,
                rtol: Any = None) -> Tensor:
    if A._data.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 "
                           "dimensions.")
    if A._dtype not in (dt.float32, dt.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    a = A._data.astype(np.float64)
    if hermitian:
        _square("linalg.eigh", A)
        s = np.abs(np.linalg.eigvalsh(a))
    else:
        s = np.linalg.svd(a, compute_uv=False)
    if rtol is None:
        rtol = 0.0 if atol is not None and _positive(atol) else \
            float(np.finfo(A._data.dtype).eps) * max(A._data.shape[-2:])
    atol_v = np.asarray(_value(atol) if atol is not None else 0.0, dtype=np.float64)
    rtol_v = np.asarray(_value(rtol), dtype=np.float64)
    smax = s.max(axis=-1) if s.shape[-1] else np.zeros(s.shape[:-1])
    cut = np.maximum(atol_v, rtol_v * smax)
    s = s.astype(A._data.dtype)
    rank = (s > cut[..., None].astype(A._data.dtype)).sum(axis=-1).astype(np.int64)
    return Tensor._make(np.asarray(rank), dt.int64)


def _value(v: Any) -> Any:
    return v._data if isinstance(v, Tensor) else v


def _positive(atol: Any) -> bool:
    return bool(np.all(np.asarray(_value(atol)) > 0)) if isinstance(atol, Tensor) else atol > 0


def cond(A: Tensor, p: Any = None) -> Tensor:
    """The condition number in the ``p`` norm: the extreme singular values' ratio (None, 2,
    -2), the nuclear norms' product, or the norms of A and of its inverse multiplied (an
    infinite inverse where A is singular)."""
    if A._data.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in (None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    _floating("linalg.cond", A)
    if p in (None, 2, -2):
        s = svdvals(A)
        k = s._data.shape[-1]
        first, last = F.narrow(s, -1, 0, 1), F.narrow(s, -1, k - 1, 1)
        ratio = F.div(first, last) if p != -2 else F.div(last, first)
        return F.squeeze(ratio, -1)
    shape = A._data.shape
    if shape[-1] != shape[-2]:
        shown = {math.inf: "inf", -math.inf: "-inf"}.get(p, str(p))
        raise RuntimeError(f"linalg.cond(ord={shown}): A must be batches of square matrices, "
                           f"but they are {shape[-2]} by {shape[-1]} matrices")
    if p == "nuc":
        s = svdvals(A)
        return F.mul(F.sum(s, -1), F.sum(s.reciprocal(), -1))
    from .linalg import inv_ex, matrix_norm
    from .pointwise_extra import nan_to_num
    inverse, info = inv_ex(A)
    mask = Tensor._make(np.asarray(info._data > 0)[..., None, None], dt.bool_)
    # NB: in place, as PyTorch: the inverse's node then refuses its backward
    inverse.masked_fill_(mask, math.inf)
    out = F.mul(matrix_norm(A, p), matrix_norm(inverse, p))
    return nan_to_num(out, math.inf, math.inf)


# -- geqrf, ormqr -------------------------------------------------------------------------------
def geqrf(input: Tensor) -> Any:
    if input._data.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"geqrf_cpu" not implemented for \'{_scalar(input)}\'')
    a, tau = apply(TABLE["geqrf"], (input,))
    return _GEQRF(a, tau)


_GEQRF = _named("geqrf", "a tau")


def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True,
          transpose: bool = False) -> Tensor:
    name = "torch.ormqr"
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if other._data.ndim < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    si, so = input._data.shape, other._data.shape
    d = -2 if left else -1
    if so[d] != si[-2]:
        raise RuntimeError(f"{name}: other.shape[{d}] must be equal to input.shape[-2]")
    if tau._data.shape[-1] != min(so[d], si[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{d}], "
                           "input.shape[-1])")
    if input._dtype is not other._dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but input "
                           f"has dtype{_scalar(input)} and other has dtype {_scalar(other)}")
    return apply(TABLE["ormqr"], (input, tau, other), {"left": left, "transpose": transpose})


# -- LDL^T (no derivative in PyTorch) ----------------------------------------------------------
_LDL = _named("linalg_ldl_factor", "LD pivots")
_LDL_EX = _named("linalg_ldl_factor_ex", "LD pivots info")


def _graph(*ts: Tensor) -> list[Tensor]:
    # NB: PyTorch's NotImplemented node has an edge for each input that requires grad only
    return [t for t in ts if t._rg or t._grad_fn is not None]


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False) -> Any:
    _square("torch.linalg.ldl_factor_ex", A)
    _floating("torch.linalg.ldl_factor_ex", A)
    ld, piv, info = apply(TABLE["linalg_ldl_factor_ex"], _graph(A), arrays=(A._data,))
    if check_errors:
        _ldl_error("torch.linalg.ldl_factor_ex", info)
    return _LDL_EX(ld, _no_grad_info(piv), _no_grad_info(info))


def _ldl_error(name: str, info: Tensor) -> None:
    bad = info._data[info._data != 0]
    if bad.size:
        raise RuntimeError('false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/'
                           'native/BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. '
                           f"{name}: Unknown error code: {int(bad[0])}.")


def ldl_factor(A: Tensor, *, hermitian: bool = False) -> Any:
    ld, piv, info = ldl_factor_ex(A, hermitian=hermitian)
    _ldl_error("torch.linalg.ldl_factor", info)
    return _LDL(ld, piv)


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:
    if B._data.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "-2)")
    sa, sb = LD._data.shape, B._data.shape
    if sa[-1] != sb[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix "
                           f"is {sa[-2]} by {sa[-1]} but each b matrix is {sb[-2]} by {sb[-1]}")
    if LD._dtype is not B._dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_scalar(B)} and A of type {_scalar(LD)} instead.")
    return apply(TABLE["linalg_ldl_solve"], _graph(LD, B),
                 arrays=(LD._data, pivots._data.astype(np.int32), B._data))


# -- tensor inverses and solves, Vandermonde -----------------------------------------------------
def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    from .linalg import inv
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = A._data.shape
    rows, cols = int(np.prod(shape[:ind])), int(np.prod(shape[ind:]))
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return F.reshape(inv(F.reshape(A, (rows, cols))), (*shape[ind:], *shape[:ind]))


def tensorsolve(A: Tensor, B: Tensor, dims: Any = None) -> Tensor:
    from .linalg import solve
    from .stacking import movedim
    if dims is not None:
        nd = A._data.ndim
        src = [d % nd for d in dims]
        A = movedim(A, src, list(range(nd - len(src), nd)))
    shape = A._data.shape
    nb = B._data.ndim
    rows, cols = int(B._data.size), int(np.prod(shape[nb:]))
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:])"
                           f" == prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    flat_b = B if B._data.ndim == 1 else F.reshape(B, (rows,))
    out = solve(F.reshape(A, (rows, cols)), flat_b)
    return F.reshape(out, shape[nb:])


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    shape = x._data.shape
    n = (shape[-1] if shape else 1) if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if not shape:
        raise RuntimeError("N must be greater than 1.")
    ones = Tensor._make(np.ones((*shape, 1), dtype=x._data.dtype), x._dtype)
    powers = cumprod(F.expand(F.unsqueeze(x, -1), (*shape, n - 1)), -1)
    return F.cat([ones, powers], -1)


def torch_lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """The deprecated ``torch.lu_solve``: ``linalg.lu_solve`` with the arguments reordered."""
    global _LU_SOLVE_WARNED
    if not _LU_SOLVE_WARNED:
        _LU_SOLVE_WARNED = True
        msg.warn_user(
            "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in "
            "a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments "
            "reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
            "X = torch.linalg.lu_solve(LU, pivots, B)", UserWarning)
    return lu_solve(LU_data, LU_pivots, b)


_LU_SOLVE_WARNED = False


def _matrix_exp_method(self: Tensor) -> Tensor:
    """``Tensor.matrix_exp`` (``torch.matrix_exp``'s checks, then its node)."""
    _square("linalg.matrix_exp", self)
    _floating("linalg.matrix_exp", self)
    return apply(TABLE["linalg_matrix_exp"], (self,))


def _orgqr_method(self: Tensor, tau: Tensor) -> Tensor:
    """``Tensor.orgqr`` (``torch.linalg.householder_product``'s checks, then its node)."""
    name = "torch.linalg.householder_product"
    sa, st = self._data.shape, tau._data.shape
    if len(sa) < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if sa[-2] < sa[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if sa[-1] < st[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if len(st) != len(sa) - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {len(st)} and input.ndim is equal to "
                           f"{len(sa)}")
    if st[:-1] != sa[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(st[:-1])}")
    if tau._dtype is not self._dtype:
        raise RuntimeError(f"{name}: tau dtype {_scalar(tau)} does not match input dtype "
                           f"{_scalar(self)}")
    return apply(TABLE["linalg_householder_product"], (self, tau), dtype=self._dtype)


_matrix_exp_method.__name__ = "matrix_exp"
_orgqr_method.__name__ = "orgqr"


def _method(fn: Any) -> Any:
    def m(self: Tensor, *args: Any, **kw: Any) -> Any:
        return fn(self, *args, **kw)
    m.__name__ = fn.__name__
    return m


METHODS = {"matrix_exp": _matrix_exp_method, "orgqr": _orgqr_method,
           "cholesky_solve": _method(cholesky_solve),
           "triangular_solve": _method(triangular_solve), "lu": _method(torch_lu),
           "lu_solve": _method(torch_lu_solve), "lstsq": _method(torch_lstsq),
           "geqrf": _method(geqrf),
           "ormqr": _method(ormqr)}
