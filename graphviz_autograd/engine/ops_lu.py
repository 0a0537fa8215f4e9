"""Table entries: the LU family and the older solvers (``linalg_lu_factor_ex``, ``linalg_lu``,
``lu_unpack``, ``linalg_lu_solve``, ``triangular_solve``, ``cholesky_solve``), each one node as
PyTorch makes it; LU factors as LAPACK's getrf gives them (partial pivoting, the first largest
pivot, 1-based int32 pivots), rectangular matrices included."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ops_decomp import column_major
from .optable import Op, Save, no_double_backward, register


def _mT(x: Any) -> Any:
    return np.swapaxes(x, -1, -2)


def getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Packed LU factors, int32 pivots and int32 info (the first zero pivot, 1-based) of each
    matrix of ``a`` (m x n), as getrf computes them."""
    lu = np.array(a, copy=True)
    m, n = a.shape[-2:]
    k = min(m, n)
    pivots = np.zeros((*a.shape[:-2], k), dtype=np.int32)
    info = np.zeros(a.shape[:-2], dtype=np.int32)
    with np.errstate(all="ignore"):
        for idx in np.ndindex(*a.shape[:-2]):
            f, piv = lu[idx], pivots[idx]
            for j in range(k):
                p = j + int(np.argmax(np.abs(f[j:, j])))
                piv[j] = p + 1
                if p != j:
                    f[[j, p]] = f[[p, j]]
                if f[j, j] != 0:
                    f[j + 1:, j] /= f[j, j]
                elif info[idx] == 0:
                    info[idx] = j + 1
                f[j + 1:, j + 1:] -= np.outer(f[j + 1:, j], f[j, j + 1:])
    return lu, pivots, info


def unpack(lu: np.ndarray, pivots: np.ndarray, m: int | None = None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P, L, U of packed factors: A = P L U (L unit lower m x k, U upper k x n)."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    up = np.triu(lu[..., :k, :])
    perm = np.broadcast_to(np.arange(m), (*pivots.shape[:-1], m)).copy()
    for idx in np.ndindex(*pivots.shape[:-1]):
        row = perm[idx]
        for j, p in enumerate(pivots[idx][:k] - 1):
            row[j], row[p] = row[p], row[j]
    p_mat = np.zeros((*perm.shape, m), dtype=lu.dtype)
    np.put_along_axis(p_mat, perm[..., None], 1, axis=-1)
    # NB: row perm[i] of A is row i of L U: P[perm[i], i] = 1
    return np.ascontiguousarray(_mT(p_mat)), low, up


def _solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return np.linalg.solve(np.broadcast_to(a, shape + a.shape[-2:]),
                           np.broadcast_to(b, shape + b.shape[-2:]))


def lu_grad(p: np.ndarray, low: np.ndarray, up: np.ndarray, gl: Any, gu: Any) -> np.ndarray:
    """The gradient of A = P L U given those of L and U (None: zero), square, wide or tall."""
    m, n = low.shape[-2], up.shape[-1]
    k = min(m, n)
    gl = np.zeros_like(low) if gl is None else gl
    gu = np.zeros_like(up) if gu is None else gu
    if m == n:
        return _square_grad(p, low, up, gl, gu)
    if m < n:
        # NB: U = [U1 U2]: U2 = L^-1 P^T A2 moves L's gradient by -L^-H gU2 U2^H
        u1, u2, gu2 = up[..., :, :k], up[..., :, k:], gu[..., :, k:]
        gl_eff = gl - _solve(_mT(low), gu2 @ _mT(u2))
        g1 = _square_grad(p, low, u1, gl_eff, gu[..., :, :k])
        g2 = p @ _solve(_mT(low), gu2)
        return np.concatenate([g1, g2], axis=-1)
    # NB: L = [L1; L2]: L2 = (P^T A)_2 U^-1 moves U's gradient by -L2^H gL2 U^-H
    l1, l2, gl2 = low[..., :k, :], low[..., k:, :], gl[..., k:, :]
    bottom = _mT(_solve(up, _mT(gl2)))            # gL2 U^-H
    gu_eff = gu - _mT(l2) @ bottom
    top = _square_grad(np.eye(k, dtype=low.dtype), l1, up, gl[..., :k, :], gu_eff)
    return p @ np.concatenate([top, bottom], axis=-2)


def _square_grad(p: Any, low: Any, up: Any, gl: Any, gu: Any) -> np.ndarray:
    phi = np.tril(_mT(low) @ gl, -1) + np.triu(gu @ _mT(up))
    y = _solve(_mT(low), phi)                      # L^-H phi
    return p @ _mT(_solve(up, _mT(y)))             # ... U^-H


# -- lu_factor_ex, lu, lu_unpack -----------------------------------------------------------------
def _lu_factor_fwd(a: np.ndarray, pivot: bool = True) -> list[np.ndarray]:
    lu, piv, info = getrf(a)
    return [column_major(lu), piv, info]


def _tt_square_lu_grad(p: Any, low: Any, up: Any, gl: Any, gu: Any, D: Any) -> Any:
    """The square formula on tensors (create_graph), as PyTorch builds it:
    P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T by two triangular solves."""
    from . import functional as F
    from .ops_decomp import _tt_solve_triangular
    ga = None
    if gl is not None:
        ga = D.tril(F.matmul(F.transpose(low, -2, -1), gl), diagonal=-1)
    if gu is not None:
        part = D.triu(F.matmul(gu, F.transpose(up, -2, -1)), diagonal=0)
        ga = part if ga is None else F.add(ga, part)
    ga = _tt_solve_triangular(F.transpose(up, -2, -1), ga, False, False)
    ga = _tt_solve_triangular(F.transpose(low, -2, -1), ga, True, True, True)
    # NB: P carries no graph (an integer permutation in PyTorch's eyes)
    return F.matmul(D.nondiff(p), ga)


def _lu_factor_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    g = grads[0]
    if D.tensor_mode:
        from . import functional as F
        from .autograd import apply
        from .optable import TABLE
        m, n = c.shape(0)[-2:]
        if m != n:
            raise no_double_backward("LinalgLuFactorExBackward0", " for a non-square matrix")
        lu_t = c.LU
        p, low, up = apply(TABLE["lu_unpack"], (lu_t,),
                           {"pivots": c.pivots._data, "LU_data_sym_argsize_minus_1": n,
                            "LU_data_sym_argsize_minus_2": m})
        return (_tt_square_lu_grad(p, low, up, F.narrow(g, -1, 0, n), F.narrow(g, -2, 0, n), D),)
    lu = c.LU
    p, low, up = unpack(lu, c.pivots)
    k = min(lu.shape[-2:])
    return (lu_grad(p, low, up, np.tril(g[..., :, :k], -1), np.triu(g[..., :k, :])),)


def _lu_fwd(a: np.ndarray, pivot: bool = True) -> list[np.ndarray]:
    lu, piv, _ = getrf(a)
    return list(unpack(lu, piv))


def _lu_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        m, n = c.shape(0)[-2:]
        if m != n:
            raise no_double_backward("LinalgLuBackward0", " for a non-square matrix")
        return (_tt_square_lu_grad(c.P, c.L, c.U, grads[1], grads[2], D),)
    return (lu_grad(c.P, c.L, c.U, grads[1], grads[2]),)


def _lu_unpack_fwd(lu: np.ndarray, pivots: Any = None, **_: Any) -> list[np.ndarray]:
    return list(unpack(lu, np.asarray(pivots)))


def _lu_unpack_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    if not c.attrs.get("unpack_data", True):
        # NB: PyTorch's L and U are then empty, and its formula takes their triangles
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    m, n = c.attrs["LU_data_sym_argsize_minus_2"], c.attrs["LU_data_sym_argsize_minus_1"]
    k = min(m, n)
    gl, gu = grads[1], grads[2]
    if D.tensor_mode:
        return (_tt_lu_unpack_grad(m, n, gl, gu, D),)
    shape = (gl if gl is not None else gu).shape[:-2]
    out = np.zeros((*shape, m, n), dtype=(gl if gl is not None else gu).dtype)
    if gl is not None:
        out[..., :, :k] += np.tril(gl, -1)
    if gu is not None:
        out[..., :k, :] += np.triu(gu)
    return (out,)


def _tt_lu_unpack_grad(m: int, n: int, gl: Any, gu: Any, D: Any) -> Any:
    """The formula on tensors (create_graph), as PyTorch builds it: L's strict lower triangle
    and U's upper one, the rest of a wide U (tall L) concatenated, zeros where none flows."""
    from . import dtypes as dt
    from . import functional as F
    from .tensor import Tensor
    k = min(m, n)
    tl = D.tril(gl if m <= n or gu is None else F.narrow(gl, -2, 0, k), diagonal=-1) \
        if gl is not None else None
    tu = D.triu(gu if m >= n or gl is None else F.narrow(gu, -1, 0, k), diagonal=0) \
        if gu is not None else None
    if m == n or (m < n and gl is None) or (m > n and gu is None):
        return tu if tl is None else (tl if tu is None else F.add(tl, tu))
    dim = -1 if m < n else -2
    like = gl if gl is not None else gu
    if m < n:
        rest = F.narrow(gu, -1, k, n - k) if gu is not None else None
    else:
        rest = F.narrow(gl, -2, k, m - k) if gl is not None else None
    if rest is None:
        shape = (*like.shape[:-2], m, n - k) if m < n else (*like.shape[:-2], m - k, n)
        rest = Tensor._make(np.zeros(shape, dtype=like._data.dtype),
                            dt.from_numpy(like._data.dtype))
    head: Any = tu if tl is None else (tl if tu is None else F.add(tl, tu))
    return F.cat([head, rest], dim)


# -- solves --------------------------------------------------------------------------------------
def lu_solve_arrays(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, left: bool = True,
                    adjoint: bool = False) -> np.ndarray:
    """X with A X = B (A^H X = B with ``adjoint``; X A = B, X A^H = B with ``left=False``)
    where A = P L U are ``lu``'s factors."""
    p, low, up = unpack(lu, pivots)
    if not left:
        return _mT(lu_solve_arrays(lu, pivots, _mT(b), True, not adjoint))
    if adjoint:
        return p @ _solve(_mT(low), _solve(_mT(up), b))
    return _solve(up, _solve(low, _mT(p) @ b))


def _lu_solve_fwd(lu: np.ndarray, b: np.ndarray, pivots: Any = None, left: bool = True,
                  adjoint: bool = False) -> np.ndarray:
    x = lu_solve_arrays(lu, np.asarray(pivots), b, left, adjoint).astype(np.result_type(lu, b))
    # NB: from the right, the transposed system's column-major solution: row-major
    return column_major(x) if left else _mT(column_major(_mT(x)))


def _unbatch(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``g`` summed over the batch dims broadcasting added to an input of ``shape``."""
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    axes = tuple(i for i, s in enumerate(shape[:-2]) if s == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


def _lu_solve_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    left, adjoint = c.attrs.get("left", True), c.attrs.get("adjoint", False)
    if D.tensor_mode:
        return _tt_lu_solve_bw(c, g, left, adjoint, D)
    lu, piv, x = c.LU, c.pivots, c.result
    gb = lu_solve_arrays(lu, piv, g, left, not adjoint)
    glu = None
    if c.needs[0]:
        # NB: A's gradient for each form, then carried onto the packed factors
        if left:
            ga = -(x @ _mT(gb)) if adjoint else -(gb @ _mT(x))
        else:
            ga = -(_mT(gb) @ x) if adjoint else -(_mT(x) @ gb)
        p, low, up = unpack(lu, piv)
        pga = _mT(p) @ ga
        glu = np.tril(pga @ _mT(up), -1) + np.triu(_mT(low) @ pga)
        glu = _unbatch(glu, c.shape(0))
    return glu, (_unbatch(gb, c.shape(1)) if c.needs[1] else None)


def _tt_lu_solve_bw(c: Any, g: Any, left: bool, adjoint: bool, D: Any) -> tuple[Any, ...]:
    """The formula on tensors (create_graph), as PyTorch builds it where ``left != adjoint``:
    B's gradient by the adjoint solve; the factors' gR = U^-T (-gX X^T) and
    gL = tril(L^-T gR U^T, -1), packed as gL + triu(gR)."""
    from . import functional as F
    from .autograd import apply
    from .ops_decomp import _tt_solve_triangular
    from .optable import TABLE
    if left == adjoint:
        raise no_double_backward("LinalgLuSolveBackward0", " with left == adjoint")
    lu_t, piv, x = c.LU, c.pivots, c.result
    gb = apply(TABLE["linalg_lu_solve"], (lu_t, g),
               {"pivots": piv, "adjoint": not adjoint, "left": left})
    glu = None
    if c.needs[0]:
        n = c.shape(0)[-1]
        _, low, up = apply(TABLE["lu_unpack"], (lu_t,),
                           {"pivots": piv._data, "LU_data_sym_argsize_minus_1": n,
                            "LU_data_sym_argsize_minus_2": n})
        prod = F.neg(F.matmul(g, F.transpose(x, -2, -1)) if left
                     else F.matmul(F.transpose(g, -2, -1), x))
        gr = _tt_solve_triangular(F.transpose(up, -2, -1), prod, False, True)
        rhs = F.matmul(gr, F.transpose(up, -2, -1))
        gl = D.tril(_tt_solve_triangular(F.transpose(low, -2, -1), rhs, True, True, True),
                    diagonal=-1)
        glu = F.add(gl, D.triu(gr, diagonal=0))
    if (c.needs[1] and tuple(gb.shape) != c.shape(1)) or (
            glu is not None and tuple(glu.shape) != c.shape(0)):
        raise no_double_backward("LinalgLuSolveBackward0", " for a batch broadcast")
    return glu, (gb if c.needs[1] else None)


def _tri(a: np.ndarray, upper: bool, unit: bool) -> np.ndarray:
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        n = a.shape[-1]
        t[..., range(n), range(n)] = 1
    return t


def _triangular_solve_fwd(b: np.ndarray, a: np.ndarray, upper: bool = True,
                          transpose: bool = False, unitriangular: bool = False
                          ) -> list[np.ndarray]:
    t = _tri(a, upper, unitriangular)
    x = _solve(_mT(t) if transpose else t, b)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    clone = np.broadcast_to(a, shape + a.shape[-2:])
    dtype = np.result_type(a, b)
    return [column_major(x.astype(dtype)), column_major(clone.astype(dtype))]


def _triangular_solve_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    gx, gm = grads
    a, x = c.A, c.solution
    upper, transpose = c.attrs.get("upper", True), c.attrs.get("transpose", False)
    unit = c.attrs.get("unitriangular", False)
    k = 1 if unit else 0
    if D.tensor_mode:
        return _tt_triangular_solve_bw(c, gx, gm, a, x, (upper, transpose, unit), D)
    gb = ga = None
    if gx is not None:
        t = _tri(a, upper, unit)
        gb = _solve(t if transpose else _mT(t), gx)
        if c.needs[1]:
            full = -(x @ _mT(gb)) if transpose else -(gb @ _mT(x))
            ga = np.triu(full, k) if upper else np.tril(full, -k)
    if gm is not None and c.needs[1]:
        # NB: the copy's gradient passes whole, both triangles
        ga = gm if ga is None else ga + gm
    if gb is None:
        gb = np.zeros(np.broadcast_shapes(c.shape(0), x.shape), dtype=x.dtype)
    return (_unbatch(gb, c.shape(0)) if c.needs[0] else None,
            None if ga is None else _unbatch(ga, c.shape(1)))


def _tt_triangular_solve_bw(c: Any, gx: Any, gm: Any, a: Any, x: Any,
                            flags: tuple[bool, bool, bool], D: Any) -> tuple[Any, ...]:
    """The formula on tensors (create_graph): B's gradient by the transposed triangular
    solve, A's -gB X^T (-X gB^T transposed) kept to A's triangle, plus the copy's gradient."""
    from . import functional as F
    upper, transpose, unit = flags
    k = 1 if unit else 0
    if gx is None:
        if c.shape(0) != tuple(gm.shape) and c.needs[0]:
            raise no_double_backward("TriangularSolveBackward0", " for a batch broadcast")
        gb = D.zeros_like(x) if c.needs[0] else None
        return gb, (gm if c.needs[1] else None)
    gb = D.triangular_solve(gx, a, upper=upper, transpose=not transpose, unitriangular=unit)[0]
    ga = None
    if c.needs[1]:
        full = F.neg(F.matmul(x, F.transpose(gb, -2, -1)) if transpose
                     else F.matmul(gb, F.transpose(x, -2, -1)))
        ga = D.triu(full, diagonal=k) if upper else D.tril(full, diagonal=-k)
        if gm is not None:
            ga = F.add(ga, gm)
    if (c.needs[0] and tuple(gb.shape) != c.shape(0)) or (
            ga is not None and tuple(ga.shape) != c.shape(1)):
        raise no_double_backward("TriangularSolveBackward0", " for a batch broadcast")
    return (gb if c.needs[0] else None), ga


def _cholesky_solve_fwd(b: np.ndarray, factor: np.ndarray, upper: bool = False) -> np.ndarray:
    a = _mT(factor) @ factor if upper else factor @ _mT(factor)
    return column_major(_solve(a, b).astype(np.result_type(b, factor)))


def _cholesky_solve_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    factor, x = c.input2, c.result
    upper = c.attrs.get("upper", False)
    if D.tensor_mode:
        return _tt_cholesky_solve_bw(c, g, factor, x, upper, D)
    gb = _cholesky_solve_fwd(g, factor, upper)
    gf = None
    if c.needs[1]:
        common = gb @ _mT(x)
        common = common + _mT(common)
        gf = -(factor @ common) if upper else -(common @ factor)
        gf = _unbatch(gf, c.shape(1))
    return (_unbatch(gb, c.shape(0)) if c.needs[0] else None), gf


def _tt_cholesky_solve_bw(c: Any, g: Any, factor: Any, x: Any, upper: bool,
                          D: Any) -> tuple[Any, ...]:
    """The formula on tensors (create_graph): gB = cholesky_solve(g, L); the factor's
    gradient -(C + C^T) L (-L (C + C^T) for an upper one), C = gB X^T."""
    from . import functional as F
    gb = D.cholesky_solve(g, factor, upper=upper)
    gf = None
    if c.needs[1]:
        common = F.matmul(gb, F.transpose(x, -2, -1))
        common = F.add(common, F.transpose(common, -2, -1))
        gf = F.neg(F.matmul(factor, common) if upper else F.matmul(common, factor))
    if (c.needs[0] and tuple(gb.shape) != c.shape(0)) or (
            gf is not None and tuple(gf.shape) != c.shape(1)):
        raise no_double_backward("CholeskySolveBackward0", " for a batch broadcast")
    return (gb if c.needs[0] else None), gf


register(
    Op("linalg_lu_factor_ex", "LinalgLuFactorExBackward0", ("A",), _lu_factor_fwd,
       _lu_factor_bw, (Save("LU", output=0), Save("pivots", output=1)), ("pivot",),
       n_outputs=3),
    Op("linalg_lu", "LinalgLuBackward0", ("A",), _lu_fwd, _lu_bw,
       (Save("L", output=1), Save("P", output=0), Save("U", output=2)), ("pivot",),
       n_outputs=3, nondiff=(0,)),
    Op("lu_unpack", "LuUnpackBackward0", ("LU_data",), _lu_unpack_fwd, _lu_unpack_bw, (),
       ("LU_data_sym_argsize_minus_1", "LU_data_sym_argsize_minus_2"), n_outputs=3),
    Op("linalg_lu_solve", "LinalgLuSolveBackward0", ("LU", "B"), _lu_solve_fwd, _lu_solve_bw,
       (Save("LU"), Save("pivots"), Save("result")), ("adjoint", "left")),
    Op("triangular_solve", "TriangularSolveBackward0", ("self", "A"), _triangular_solve_fwd,
       _triangular_solve_bw, (Save("A"), Save("self"), Save("solution", output=0)),
       ("transpose", "unitriangular", "upper"), n_outputs=2),
    Op("cholesky_solve", "CholeskySolveBackward0", ("self", "input2"), _cholesky_solve_fwd,
       _cholesky_solve_bw, (Save("input2"), Save("result"), Save("self")), ("upper",)),
)
