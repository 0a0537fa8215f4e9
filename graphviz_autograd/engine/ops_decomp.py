"""Table entries: the matrix decompositions of ``torch.linalg`` (``linalg_inv_ex``, ``linalg_det``,
``linalg_slogdet``, ``linalg_solve_ex``, ``linalg_cholesky_ex`` and the older ``cholesky``,
``linalg_svd``, ``linalg_eigh``, ``linalg_qr``, ``linalg_pinv``), each one node as PyTorch makes
it, with the LU factors PyTorch saves (computed as LAPACK's getrf computes them: partial
pivoting, the first largest pivot, 1-based pivot indices)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, no_double_backward, register


def lu_factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The packed LU factors and int32 pivots of each matrix of ``a`` (getrf's)."""
    lu = np.array(a, dtype=a.dtype, copy=True)
    n = a.shape[-1]
    pivots = np.zeros(a.shape[:-1], dtype=np.int32)
    for idx in np.ndindex(*a.shape[:-2]):
        m = lu[idx]
        piv = pivots[idx]
        for k in range(n):
            p = k + int(np.argmax(np.abs(m[k:, k]))) if n else k
            piv[k] = p + 1
            if p != k:
                m[[k, p]] = m[[p, k]]
            if m[k, k] != 0:
                m[k + 1:, k] /= m[k, k]
            m[k + 1:, k + 1:] -= np.outer(m[k + 1:, k], m[k, k + 1:])
    return lu, pivots


def _lu_det(lu: np.ndarray, pivots: np.ndarray) -> np.ndarray:
    n = lu.shape[-1]
    diag = np.diagonal(lu, axis1=-2, axis2=-1)
    swaps = (pivots != np.arange(1, n + 1, dtype=np.int32)).sum(axis=-1)
    sign = np.where(swaps % 2 == 1, -1, 1).astype(lu.dtype)
    return sign * np.prod(diag, axis=-1)


def _mT(x: Any) -> Any:
    return np.swapaxes(x, -1, -2)


def column_major(x: np.ndarray) -> np.ndarray:
    """``x`` laid out as LAPACK gives its results (each matrix column-major), as PyTorch's
    are: the layout decides later strides, views and copies."""
    if x.ndim < 2:
        return x
    # NB: a fresh array: numpy keeps odd strides on dims of size 1, which PyTorch's do not have
    out = _mT(np.empty((*x.shape[:-2], x.shape[-1], x.shape[-2]), dtype=x.dtype))
    out[...] = x
    return out


def _inv_fwd(a: np.ndarray) -> list[np.ndarray]:
    info = np.zeros(a.shape[:-2], dtype=np.int32)
    try:
        inv = (np.linalg.inv(a) if a.shape[-1] else np.array(a, copy=True)).astype(a.dtype)
    except np.linalg.LinAlgError:
        # NB: a singular matrix (inv_ex): the identity solved as getrs does, info the first
        # zero pivot
        lu, piv = lu_factor(a)
        zero = np.diagonal(lu, axis1=-2, axis2=-1) == 0
        info = np.where(zero.any(axis=-1), zero.argmax(axis=-1) + 1, 0).astype(np.int32)
        eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
        inv = lu_solve(lu, piv, eye).astype(a.dtype)
    return [column_major(inv), info]


def _inv_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    g = grads[0]
    inv = c.inverse
    if not D.tensor_mode:
        return (-(_mT(inv) @ (g @ _mT(inv))),)
    from . import functional as F
    # NB: -(inv^T @ (grad @ inv^T)); the inner product first (its compiler's order)
    inner = F.matmul(g, F.transpose(inv, -2, -1))
    return (F.neg(F.matmul(F.transpose(inv, -2, -1), inner)),)


def lu_solve(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve with getrf's factors as LAPACK's getrs does (row swaps, then the unit lower and
    the upper triangle column by column, skipping zero entries), so a zero pivot gives the
    same infinities and zeros as PyTorch's."""
    x = np.array(b, dtype=np.result_type(lu, b), copy=True)
    n = lu.shape[-1]
    with np.errstate(all="ignore"):
        for idx in np.ndindex(*lu.shape[:-2]):
            m, xs = lu[idx], x[idx]
            for k, p in enumerate(pivots[idx] - 1):
                if p != k:
                    xs[[k, p]] = xs[[p, k]]
            for j in range(xs.shape[-1]):
                col = xs[:, j]
                for k in range(n):
                    if col[k] != 0:
                        col[k + 1:] -= col[k] * m[k + 1:, k]
                for k in range(n - 1, -1, -1):
                    if col[k] != 0:
                        col[k] /= m[k, k]
                        col[:k] -= col[k] * m[:k, k]
    return x


def lu_solve_transposed(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve A^T X = B with getrf's factors as getrs('T') does (U^T, then the unit L^T, each
    entry a running difference, then the row swaps undone in reverse), so a singular matrix
    gives PyTorch's infinities and nans."""
    x = np.array(b, dtype=np.result_type(lu, b), copy=True)
    n = lu.shape[-1]
    with np.errstate(all="ignore"):
        for idx in np.ndindex(*lu.shape[:-2]):
            m, xs = lu[idx], x[idx]
            for j in range(xs.shape[-1]):
                col = xs[:, j]
                for i in range(n):
                    t = col[i]
                    for k in range(i):
                        t -= m[k, i] * col[k]
                    col[i] = t / m[i, i]
                for i in range(n - 1, -1, -1):
                    t = col[i]
                    for k in range(i + 1, n):
                        t -= m[k, i] * col[k]
                    col[i] = t
            for k in range(n - 1, -1, -1):
                p = pivots[idx][k] - 1
                if p != k:
                    xs[[k, p]] = xs[[p, k]]
    return x


def _times_inverse_transpose(c: Any, g: Any) -> np.ndarray:
    """``g * A^-T`` from the saved factors of A^T (PyTorch's solve for the transposed system)."""
    lu, piv = c.LU, c.pivots
    n = lu.shape[-1]
    rhs = np.asarray(g, dtype=lu.dtype)[..., None, None] * np.eye(n, dtype=lu.dtype)
    return lu_solve(lu, piv, rhs)


def _det_fwd(a: np.ndarray) -> tuple[Any, dict[str, Any]]:
    # NB: PyTorch factors the transpose here (the same determinant, no copy)
    lu, piv = lu_factor(_mT(a))
    lu = column_major(lu)
    return _lu_det(lu, piv).astype(a.dtype), {"LU": lu, "pivots": piv}


def _singular(a: np.ndarray) -> bool:
    lu, _ = lu_factor(a)
    return bool(np.any(np.diagonal(lu, axis1=-2, axis2=-1) == 0))


def _tt_solve(a: Any, b: Any) -> Any:
    """``linalg.solve(a, b)`` on tensors, as a formula's node (LinalgSolveExBackward0)."""
    from .autograd import apply
    from .optable import TABLE
    return apply(TABLE["linalg_solve_ex"], (a, b), {"left": True, "vector": False})[0]


def _tt_inverse_transpose_times(a: Any, g: Any) -> Any:
    """``g * A^-T`` (g one number per matrix) as PyTorch's formulas build it: A^T solved for
    the transposed diagonal matrix of g."""
    from . import functional as F
    from .ordering import diag_embed
    n = a._data.shape[-1]
    wide = F.expand(F.unsqueeze(g, -1), (*g._data.shape, n))
    rhs = F.transpose(diag_embed(wide), -2, -1)
    return _tt_solve(F.transpose(a, -2, -1), rhs)


def _det_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        from . import functional as F
        if _singular(c.A._data):
            # NB: PyTorch differentiates a singular matrix's determinant otherwise (an SVD)
            raise no_double_backward("LinalgDetBackward0", " for a singular matrix")
        return (_tt_inverse_transpose_times(c.A, F.mul(g, c.result)),)
    # NB: PyTorch's gradient is zero where the determinant is (a singular matrix)
    det = np.asarray(c.result)
    scale = np.where(det == 0, 0, np.asarray(g) * det)
    with np.errstate(all="ignore"):
        out = _times_inverse_transpose(c, scale)
    return (np.where((det == 0)[..., None, None], 0, out).astype(c.A.dtype),)


def _slogdet_fwd(a: np.ndarray) -> tuple[Any, dict[str, Any]]:
    lu, piv = lu_factor(_mT(a))
    lu = column_major(lu)
    det = _lu_det(lu, piv)
    with np.errstate(divide="ignore"):
        logabs = np.log(np.abs(np.prod(np.diagonal(lu, axis1=-2, axis2=-1), axis=-1)))
    sign = np.sign(det).astype(a.dtype)
    return [sign, logabs.astype(a.dtype)], {"LU": lu, "pivots": piv}


def _slogdet_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    g = grads[1]
    if g is None:
        return (None,)
    if D.tensor_mode:
        return (_tt_inverse_transpose_times(c.A, g),)
    return (_times_inverse_transpose(c, g),)


def _solve_fwd(a: np.ndarray, b: np.ndarray, left: bool = True,
               vector: bool = False) -> tuple[Any, dict[str, Any]]:
    info = np.zeros(a.shape[:-2], dtype=np.int32)
    if not left:
        # NB: X A = B as A^T X^T = B^T (A itself factored): X row-major
        lu, piv = lu_factor(a)
        zero = np.diagonal(lu, axis1=-2, axis2=-1) == 0
        if zero.any():
            # NB: a singular matrix (solve_ex): getrs('T')'s infinities and nans
            info = np.where(zero.any(axis=-1), zero.argmax(axis=-1) + 1, 0).astype(np.int32)
            rhs = _mT(b[..., None, :] if vector else b)
            shape = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
            xt = lu_solve_transposed(np.broadcast_to(lu, shape + lu.shape[-2:]),
                                     np.broadcast_to(piv, shape + piv.shape[-1:]),
                                     np.broadcast_to(rhs, shape + rhs.shape[-2:]))
            x = _mT(column_major(xt.astype(np.result_type(a, b))))
            return [x[..., 0, :] if vector else x, info], {"LU": column_major(lu),
                                                          "pivots": piv}
        x = _mT(column_major(np.linalg.solve(_mT(a), _mT(b)).astype(np.result_type(a, b))))
        return [x, info], {"LU": column_major(lu), "pivots": piv}
    lu, piv = lu_factor(a)
    zero = np.diagonal(lu, axis1=-2, axis2=-1) == 0
    if zero.any():
        # NB: a singular matrix (solve_ex): getrs's infinities and nans, info the first zero
        info = np.where(zero.any(axis=-1), zero.argmax(axis=-1) + 1, 0).astype(np.int32)
        rhs = b[..., None] if vector else b
        shape = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
        x = lu_solve(np.broadcast_to(lu, shape + lu.shape[-2:]),
                     np.broadcast_to(piv, shape + piv.shape[-1:]),
                     np.broadcast_to(rhs, shape + rhs.shape[-2:]))
        x = x[..., 0] if vector else x
    else:
        x = np.linalg.solve(a, b[..., None])[..., 0] if vector else np.linalg.solve(a, b)
    x = column_major(x.astype(np.result_type(a, b)))
    return [x, info], {"LU": column_major(lu), "pivots": piv}


def _solve_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    g = grads[0]
    a, x = c.A, c.result
    vector = c.attrs.get("vector", False)
    if not c.attrs.get("left", True):
        return _solve_right_bw(c, g, a, x, D)
    if D.tensor_mode:
        from . import functional as F
        # NB: B's gradient solves the transposed system (a vector as a column), A's is
        # -gB X^T
        gb = _tt_solve(F.transpose(a, -2, -1), F.unsqueeze(g, -1) if vector else g)
        ga = None
        if c.needs[0]:
            xt = F.transpose(F.unsqueeze(x, -1) if vector else x, -2, -1)
            ga = F.neg(F.matmul(gb, xt))
        if c.needs[1] and vector:
            gb = F.squeeze(gb, -1)
        return ga, (gb if c.needs[1] else None)
    lu = c.LU
    if np.any(np.diagonal(lu, axis1=-2, axis2=-1) == 0):
        # NB: a singular matrix (solve_ex): the transposed solve as getrs gives it
        rhs = g[..., None] if vector else g
        shape = np.broadcast_shapes(lu.shape[:-2], rhs.shape[:-2])
        gb = lu_solve_transposed(np.broadcast_to(lu, shape + lu.shape[-2:]),
                                 np.broadcast_to(c.pivots, shape + lu.shape[-1:]),
                                 np.broadcast_to(rhs, shape + rhs.shape[-2:]))
        gb = gb[..., 0] if vector else gb
    else:
        gb = np.linalg.solve(_mT(a), g[..., None])[..., 0] if vector else np.linalg.solve(_mT(a), g)
    with np.errstate(all="ignore"):
        ga = -(gb[..., :, None] * x[..., None, :]) if vector else -(gb @ _mT(x))
    return (ga if c.needs[0] else None), (gb if c.needs[1] else None)


def _solve_right_bw(c: Any, g: Any, a: Any, x: Any, D: Any) -> tuple[Any, ...]:
    """X A = B: gB = g A^-T (the transposed system, from the right), gA = -X^T gB."""
    if D.tensor_mode:
        from . import functional as F
        from .autograd import apply
        from .optable import TABLE
        gb = apply(TABLE["linalg_solve_ex"], (F.transpose(a, -2, -1), g),
                   {"left": False, "vector": False})[0]
        ga = F.neg(F.matmul(F.transpose(x, -2, -1), gb)) if c.needs[0] else None
        return ga, (gb if c.needs[1] else None)
    lu = c.LU
    vector = c.attrs.get("vector", False)
    gm, xm = (g[..., None, :], x[..., None, :]) if vector else (g, x)
    if np.any(np.diagonal(lu, axis1=-2, axis2=-1) == 0):
        # NB: a singular matrix (solve_ex): A's own solve as getrs gives it
        rhs = _mT(gm)
        shape = np.broadcast_shapes(lu.shape[:-2], rhs.shape[:-2])
        gb = _mT(lu_solve(np.broadcast_to(lu, shape + lu.shape[-2:]),
                          np.broadcast_to(c.pivots, shape + lu.shape[-1:]),
                          np.broadcast_to(rhs, shape + rhs.shape[-2:])))
    else:
        gb = _mT(np.linalg.solve(a, _mT(gm)))
    with np.errstate(all="ignore"):
        ga = -(_mT(xm) @ gb)
    if vector:
        gb = gb[..., 0, :]
    return (ga if c.needs[0] else None), (gb if c.needs[1] else None)


def _cholesky_fwd(a: np.ndarray, upper: bool = False) -> Any:
    try:
        low = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        low = np.full_like(a, np.nan)
    return column_major(_mT(low) if upper else low)


def _cholesky_ex_fwd(a: np.ndarray, upper: bool = False) -> Any:
    return [_cholesky_fwd(a, upper), np.zeros(a.shape[:-2], dtype=np.int32)]


def _cholesky_grad(low: np.ndarray, gl: np.ndarray) -> np.ndarray:
    phi = np.tril(_mT(low) @ gl)
    n = low.shape[-1]
    phi[..., range(n), range(n)] *= 0.5
    inv = np.linalg.inv(low)
    s = _mT(inv) @ phi @ inv
    return 0.5 * (s + _mT(s))


def _tt_solve_triangular(a: Any, b: Any, upper: bool, left: bool, unit: bool = False) -> Any:
    from .autograd import apply
    from .optable import TABLE
    return apply(TABLE["linalg_solve_triangular"], (a, b),
                 {"upper": upper, "left": left, "unitriangular": unit})


def _tt_cholesky_grad(low: Any, g: Any, upper: bool, D: Any) -> Any:
    """PyTorch's cholesky_backward, op by op: tril(L^T gL) symmetrized with its diagonal
    halved, then L^T solved from the left and L from the right."""
    from . import functional as F
    if upper:
        low, g = F.transpose(low, -2, -1), F.transpose(g, -2, -1)
    phi = D.tril(F.matmul(F.transpose(low, -2, -1), g), diagonal=0)
    p = D.mul_scalar(F.add(phi, F.transpose(D.tril(phi, diagonal=-1), -2, -1)), other=0.5)
    x = _tt_solve_triangular(F.transpose(low, -2, -1), p, True, True)
    return _tt_solve_triangular(low, x, False, False)


def _cholesky_bw(name: str, key: str) -> Any:
    def bw(c: Any, grads: Any, D: Any) -> tuple[Any, ...]:
        g = grads[0] if isinstance(grads, list) else grads
        low = getattr(c, key)
        if D.tensor_mode:
            return (_tt_cholesky_grad(low, g, bool(c.attrs.get("upper")), D),)
        if c.attrs.get("upper"):
            return (_cholesky_grad(_mT(low), _mT(g)),)
        return (_cholesky_grad(low, g),)
    return bw


def _svd_fwd(a: np.ndarray, full_matrices: bool = False, **_: Any) -> list[np.ndarray]:
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return [column_major(u.astype(a.dtype)), s.astype(a.dtype), column_major(vh.astype(a.dtype))]


def _svd_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    """The real SVD's gradient (U S Vh = A, the reduced factors)."""
    if D.tensor_mode:
        raise no_double_backward("LinalgSvdBackward0")
    gu, gs, gvh = grads
    k = c.attrs["S_sym_argsize_minus_1"]
    u, s, vh = c.U[..., :, :k], c.S, c.Vh[..., :k, :]
    if gu is not None:
        gu = gu[..., :, :k]
    if gvh is not None:
        gvh = gvh[..., :k, :]
    v = _mT(vh)
    ga = np.zeros(u.shape[:-1] + vh.shape[-1:], dtype=u.dtype)
    if gs is not None:
        ga = ga + (u * gs[..., None, :]) @ vh
    if gu is None and gvh is None:
        return (ga,)
    sq = s[..., None, :] ** 2 - s[..., :, None] ** 2      # s_j^2 - s_i^2
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(sq == 0, 0, 1 / sq)
    inner = np.zeros((*u.shape[:-2], k, k), dtype=u.dtype)
    if gu is not None:
        utgu = _mT(u) @ gu
        inner = inner + (f * (utgu - _mT(utgu))) * s[..., None, :]
        ga = ga + (gu - u @ utgu) / s[..., None, :] @ vh
    if gvh is not None:
        gv = _mT(gvh)
        vtgv = _mT(v) @ gv
        inner = inner + s[..., :, None] * (f * (vtgv - _mT(vtgv)))
        ga = ga + (u / s[..., None, :]) @ _mT(gv - v @ vtgv)
    return (ga + u @ inner @ vh,)


def _eigh_fwd(a: np.ndarray, uplo: str = "L") -> list[np.ndarray]:
    w, v = np.linalg.eigh(a, UPLO="U" if uplo == "U" else "L")
    return [w.astype(a.dtype), column_major(v.astype(a.dtype))]


def _eigh_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("LinalgEighBackward0")
    gl, gv = grads
    w, v = c.eigenvalues, c.eigenvectors
    inner = np.zeros(v.shape, dtype=v.dtype)
    if gv is not None:
        diff = w[..., None, :] - w[..., :, None]          # l_j - l_i
        with np.errstate(divide="ignore", invalid="ignore"):
            inner = np.where(diff == 0, 0, (_mT(v) @ gv) / diff)
    if gl is not None:
        n = w.shape[-1]
        inner[..., range(n), range(n)] += gl
    ga = v @ inner @ _mT(v)
    # NB: PyTorch gives the symmetric part (the input is taken as symmetric)
    return (0.5 * (ga + _mT(ga)),)


def _qr_fwd(a: np.ndarray, mode: str = "reduced") -> list[np.ndarray]:
    if mode == "r":
        r_only = np.asarray(np.linalg.qr(a, mode="r"))
        return [np.empty((0,), a.dtype), column_major(r_only.astype(a.dtype))]
    q, r = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    return [column_major(q.astype(a.dtype)), column_major(r.astype(a.dtype))]


def _copyltu(m: np.ndarray) -> np.ndarray:
    low = np.tril(m, -1)
    return low + _mT(low) + np.tril(np.triu(m))


def _qr_square_bw(q: np.ndarray, r: np.ndarray, gq: np.ndarray, gr: np.ndarray) -> np.ndarray:
    """A = QR with R square (m >= n): gA = (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q."""
    m = r @ _mT(gr) - _mT(gq) @ q
    b = gq + q @ _copyltu(m)
    return _mT(np.linalg.solve(r, _mT(b)))


def _qr_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("LinalgQrBackward0")
    mode = c.attrs.get("mode", "reduced")
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                           "differentiate through linalg.qr.")
    q, r = c.Q, c.R
    m, n = q.shape[-2], r.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    gq = grads[0] if grads[0] is not None else np.zeros_like(q)
    gr = grads[1] if grads[1] is not None else np.zeros_like(r)
    if m >= n:
        return (_qr_square_bw(q, r, gq, gr),)
    # NB: A = [X | Y] with X = Q U square: X by the square rule, Y = Q V
    a_y = q @ r[..., :, m:]
    gx = _qr_square_bw(q, r[..., :, :m], gq + a_y @ _mT(gr[..., :, m:]), gr[..., :, :m])
    return (np.concatenate([gx, q @ gr[..., :, m:]], axis=-1),)


def _triangular_solve(a: np.ndarray, b: np.ndarray, upper: bool, left: bool,
                      unitriangular: bool) -> np.ndarray:
    tri = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        n = a.shape[-1]
        tri = tri.copy()
        tri[..., range(n), range(n)] = 1
    if left:
        return np.linalg.solve(tri, b) if tri.ndim == b.ndim else \
            np.linalg.solve(np.broadcast_to(tri, b.shape[:-2] + tri.shape[-2:]), b)
    # NB: X A = B, so A^T X^T = B^T
    return _mT(_triangular_solve(_mT(a), _mT(b), not upper, True, unitriangular))


def _solve_triangular_fwd(a: np.ndarray, b: np.ndarray, upper: bool = False, left: bool = True,
                          unitriangular: bool = False) -> np.ndarray:
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, shape + a.shape[-2:])
    b = np.broadcast_to(b, shape + b.shape[-2:])
    x = _triangular_solve(a, b, upper, left, unitriangular)
    return column_major(x.astype(np.result_type(a, b)))


def _solve_triangular_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    a, x = c.self, c.result
    upper, left = c.attrs["upper"], c.attrs["left"]
    unit = c.attrs["unitriangular"]
    if D.tensor_mode:
        from . import functional as F
        gbt = _tt_solve_triangular(F.transpose(a, -2, -1), g, not upper, left, unit)
        gat = None
        if c.needs[0]:
            xt = F.transpose(x, -2, -1)
            gat = F.neg(F.matmul(gbt, xt) if left else F.matmul(xt, gbt))
            k = 1 if unit else 0
            gat = D.triu(gat, diagonal=k) if upper else D.tril(gat, diagonal=-k)
        return gat, (gbt if c.needs[1] else None)
    # NB: B's gradient solves the transposed system; A's is -gB X^T (left) or -X^T gB
    # (right), kept to A's triangle
    gb = _triangular_solve(_mT(np.broadcast_to(a, x.shape[:-2] + a.shape[-2:])), g,
                           not upper, left, unit)
    ga = None
    if c.needs[0]:
        full = -(gb @ _mT(x)) if left else -(_mT(x) @ gb)
        k = 1 if unit else 0
        ga = np.triu(full, k) if upper else np.tril(full, -k)
    return ga, (gb if c.needs[1] else None)


def _pinv_fwd(a: np.ndarray, rtol: float = 0.0) -> np.ndarray:
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    cutoff = rtol * (s.max(axis=-1, keepdims=True) if s.shape[-1] else 0)
    with np.errstate(divide="ignore"):
        inv_s = np.where(s > cutoff, 1 / s, 0)
    return ((_mT(vh) * inv_s[..., None, :]) @ _mT(u)).astype(a.dtype)


def _pinv_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("LinalgPinvBackward0")
    a, p = c.self, c.result
    eye_m = np.eye(a.shape[-2], dtype=a.dtype)
    eye_n = np.eye(a.shape[-1], dtype=a.dtype)
    gt = _mT(g)
    return (-_mT(p) @ g @ _mT(p) + (eye_m - a @ p) @ gt @ p @ _mT(p)
            + _mT(p) @ p @ gt @ (eye_n - p @ a),)


register(
    Op("linalg_inv_ex", "LinalgInvExBackward0", ("A",), _inv_fwd, _inv_bw,
       (Save("inverse", output=0),), n_outputs=2),
    Op("linalg_det", "LinalgDetBackward0", ("A",), _det_fwd, _det_bw,
       (Save("A"), Save("LU"), Save("pivots"), Save("result")), extras=("LU", "pivots")),
    Op("linalg_slogdet", "LinalgSlogdetBackward0", ("A",), _slogdet_fwd, _slogdet_bw,
       (Save("A"), Save("LU"), Save("pivots"), Save("sign", output=0)), n_outputs=2,
       extras=("LU", "pivots")),
    Op("linalg_solve_ex", "LinalgSolveExBackward0", ("A", "B"), _solve_fwd, _solve_bw,
       (Save("A"), Save("LU"), Save("pivots"), Save("result")), ("left",), n_outputs=2,
       extras=("LU", "pivots")),
    Op("linalg_cholesky_ex", "LinalgCholeskyExBackward0", ("self",), _cholesky_ex_fwd,
       _cholesky_bw("LinalgCholeskyExBackward0", "L"), (Save("L", output=0),), ("upper",),
       n_outputs=2),
    Op("cholesky", "CholeskyBackward0", ("self",), _cholesky_fwd,
       _cholesky_bw("CholeskyBackward0", "result"), (Save("result"),), ("upper",)),
    Op("linalg_svd", "LinalgSvdBackward0", ("A",), _svd_fwd, _svd_bw,
       (Save("S", output=1), Save("U", output=0), Save("Vh", output=2)),
       ("S_sym_argsize_minus_1", "full_matrices"), n_outputs=3),
    Op("linalg_eigh", "LinalgEighBackward0", ("A",), _eigh_fwd, _eigh_bw,
       (Save("eigenvalues", output=0), Save("eigenvectors", output=1)), n_outputs=2),
    Op("linalg_qr", "LinalgQrBackward0", ("A",), _qr_fwd, _qr_bw,
       (Save("Q", output=0), Save("R", output=1)), ("mode",), n_outputs=2),
    Op("linalg_solve_triangular", "LinalgSolveTriangularBackward0", ("self", "B"),
       _solve_triangular_fwd, _solve_triangular_bw, (Save("result"), Save("self")),
       ("left", "unitriangular", "upper")),
    Op("linalg_pinv", "LinalgPinvBackward0", ("self",), _pinv_fwd, _pinv_bw,
       (Save("result"), Save("self"))),
)
