"""Table entries: ``linalg_lstsq`` (LinalgLstsqBackward0), least squares as LAPACK's drivers
report it, and the QR pieces ``geqrf`` (GeqrfBackward0, no derivative) and ``ormqr``
(OrmqrBackward0)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ops_decomp import column_major
from .ops_householder import _grads_one as householder_grads
from .ops_householder import householder_product
from .optable import Op, Save, no_double_backward, register


def _mT(x: Any) -> Any:
    return np.swapaxes(x, -1, -2)


# -- least squares -------------------------------------------------------------------------------
def _lstsq_fwd(a: np.ndarray, b: np.ndarray, rcond: float = 0.0, driver: str = "gelsy",
               vector: bool = False) -> list[np.ndarray]:
    m, n = a.shape[-2:]
    rhs = b[..., None] if vector else b
    shape = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
    a = np.broadcast_to(a, shape + a.shape[-2:])
    rhs = np.broadcast_to(rhs, shape + rhs.shape[-2:])
    k = rhs.shape[-1]
    dtype = np.result_type(a, b)
    x = np.zeros((*shape, n, k), dtype=dtype)
    ranks = np.zeros(shape, dtype=np.int64)
    svals = np.zeros((*shape, min(m, n)), dtype=dtype)
    for idx in np.ndindex(*shape):
        mat = a[idx].astype(np.float64)
        s = np.linalg.svd(mat, compute_uv=False) if min(m, n) else np.zeros(0)
        if driver == "gels":
            sol = _gels(mat, rhs[idx].astype(np.float64))
        else:
            sol = np.linalg.lstsq(mat, rhs[idx].astype(np.float64), rcond=rcond)[0]
        x[idx] = sol
        cut = rcond * (s[0] if s.size else 0)
        ranks[idx] = int(np.sum(s > cut))
        svals[idx] = s
    # NB: gels knows no rank: it gives the residuals of any tall problem
    full = driver == "gels" or bool(np.all(ranks == n))
    if m > n and driver != "gelsy" and full:
        res = ((a.astype(np.float64) @ x - rhs) ** 2).sum(axis=-2).astype(dtype)
    else:
        res = np.zeros((0,), dtype=dtype)
    if driver == "gels":
        ranks = np.zeros((0,), dtype=np.int64)
    if driver not in ("gelsd", "gelss"):
        svals = np.zeros((0,), dtype=dtype)
    # NB: LAPACK writes the solution over B's rows: a view of max(m, n) rows, as PyTorch's
    buf = np.zeros((*shape, max(m, n), k), dtype=dtype)
    buf[..., :n, :] = x
    sol = column_major(buf)[..., :n, :]
    return [sol[..., 0] if vector else sol, res, ranks, svals]


def _gels(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """gels: full rank assumed, nothing cut: R^-1 Q^T B from A's QR (tall), Q R^-T B from
    A^T's (wide)."""
    m, n = a.shape
    with np.errstate(all="ignore"):
        if m >= n:
            q, r = np.linalg.qr(a)
            return np.linalg.solve(r, q.T @ b) if n else np.zeros((0, b.shape[-1]))
        q, r = np.linalg.qr(a.T)
        return q @ np.linalg.solve(r.T, b)


def pinv_grad(a: np.ndarray, p: np.ndarray, g: np.ndarray) -> np.ndarray:
    """The gradient of A from that of pinv(A) = P."""
    eye_m = np.eye(a.shape[-2], dtype=a.dtype)
    eye_n = np.eye(a.shape[-1], dtype=a.dtype)
    gt = _mT(g)
    return (-_mT(p) @ g @ _mT(p) + (eye_m - a @ p) @ gt @ p @ _mT(p)
            + _mT(p) @ p @ gt @ (eye_n - p @ a))


def _lstsq_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        return _tt_lstsq_bw(c, grads)
    gx, gres = grads[0], grads[1]
    a, b, x = c.self, c.b, c.solution
    vector = c.attrs.get("vector", False)
    if vector:
        b, x = b[..., None], x[..., None]
        if gx is not None:
            gx = gx[..., None]
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a_b = np.broadcast_to(a, shape + a.shape[-2:])
    b_b = np.broadcast_to(b, shape + b.shape[-2:])
    p = np.linalg.pinv(a_b).astype(a.dtype)
    ga = gb = None
    if gx is not None:
        if c.needs[0]:
            ga = pinv_grad(a_b, p, gx @ _mT(b_b))
        if c.needs[1]:
            gb = _mT(p) @ gx
    if gres is not None and gres.size:
        # NB: the squared residuals' gradient at the optimum (their gradient in X vanishes)
        r = a_b @ x - b_b
        if c.needs[0]:
            part = 2 * (r * gres[..., None, :]) @ _mT(x)
            ga = part if ga is None else ga + part
        if c.needs[1]:
            part = -2 * r * gres[..., None, :]
            gb = part if gb is None else gb + part
    if gb is not None and vector:
        gb = gb[..., 0]
    return (_sum_to(ga, c.shape(0)), _sum_to(gb, c.shape(1)))


def _tt_lstsq_bw(c: Any, grads: list[Any]) -> tuple[Any, ...]:
    """The formula on tensors (create_graph), as PyTorch builds it: A's pseudo-inverse, B's
    gradient pinv(A)^T gX, A's the pseudo-inverse's backward of gX B^T."""
    from . import functional as F
    from .autograd import apply
    from .optable import TABLE
    gx, gres = grads[0], grads[1]
    a, b = c.self, c.b
    if (gres is not None and gres._data.size) or c.attrs.get("vector", False) \
            or a.shape[:-2] != b.shape[:-2]:
        raise no_double_backward("LinalgLstsqBackward0", " for residuals, vectors or batches")
    if gx is None:
        return None, None
    m, n = a.shape[-2:]
    rtol = float(np.finfo(a._data.dtype).eps) * max(m, n)
    pinv = apply(TABLE["linalg_pinv"], (a,), {"rtol": rtol})
    ga = gb = None
    if c.needs[0]:
        ga = _tt_pinv_grad(F.matmul(gx, F.transpose(b, -2, -1)), pinv, a)
    if c.needs[1]:
        gb = F.matmul(F.transpose(pinv, -2, -1), gx)
    return ga, gb


def _tt_pinv_grad(g: Any, p: Any, a: Any) -> Any:
    """PyTorch's pseudo-inverse backward, product by product (the smaller products first),
    each sum laid out as PyTorch's TensorIterator lays it."""
    from . import functional as F
    from .einsum import _iterator_layout

    def t(x: Any) -> Any:
        return F.transpose(x, -2, -1)

    def add(x: Any, y: Any) -> Any:
        return _iterator_layout(F.add(x, y), (x, y))

    def sub(x: Any, y: Any) -> Any:
        return _iterator_layout(F.sub(x, y), (x, y))
    mm = F.matmul
    m, n = a.shape[-2:]
    ph, gh = t(p), t(g)
    # NB: the terms made right to left, as PyTorch's compiler evaluates the sum's operands
    if m <= n:
        k = mm(gh, p)
        kph = mm(k, ph)
        php = mm(ph, p)             # NB: a method's object before its argument
        t4 = mm(php, sub(gh, mm(k, a)))
        t3 = mm(mm(a, p), kph)
        t1 = F.neg(t(mm(p, k)))
        return add(sub(add(t1, kph), t3), t4)
    k = mm(p, gh)
    phk = mm(ph, k)
    t4 = mm(mm(phk, p), a)
    t2 = mm(mm(sub(gh, mm(a, k)), p), ph)
    t1 = F.neg(t(mm(k, p)))
    return sub(add(add(t1, t2), phk), t4)


def _sum_to(g: Any, shape: tuple[int, ...]) -> Any:
    if g is None:
        return None
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return (g.sum(axis=axes, keepdims=True) if axes else g).astype(g.dtype)


# -- geqrf, ormqr ------------------------------------------------------------------------------
def _geqrf_fwd(a: np.ndarray) -> list[np.ndarray]:
    m, n = a.shape[-2:]
    packed = np.empty(a.shape, dtype=a.dtype)
    tau = np.zeros((*a.shape[:-2], min(m, n)), dtype=a.dtype)
    for idx in np.ndindex(*a.shape[:-2]):
        if min(m, n):
            # NB: numpy's raw mode is LAPACK's geqrf: the reflectors below R, and their scales
            h, t = np.linalg.qr(a[idx].astype(np.float64), mode="raw")
            packed[idx], tau[idx] = h.T, t
        else:
            packed[idx] = a[idx]
    return [column_major(packed), tau]


def _geqrf_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def _full_q(v: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """The m x m product of the reflectors (v padded with zero columns to m)."""
    return np.asarray(householder_product(_padded(v), tau))


def _padded(v: np.ndarray) -> np.ndarray:
    m, n = v.shape[-2:]
    wide = np.zeros((*v.shape[:-1], m), dtype=v.dtype)
    wide[..., :, :min(m, n)] = v[..., :, :m]
    return wide


def _ormqr_fwd(v: np.ndarray, tau: np.ndarray, other: np.ndarray, left: bool = True,
               transpose: bool = False) -> np.ndarray:
    q = _full_q(v, tau)
    if transpose:
        q = _mT(q)
    return column_major(q @ other if left else other @ q)


def _ormqr_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("OrmqrBackward0")
    v, tau, other = c.self, c.input2, c.input3
    left, transpose = c.attrs.get("left", True), c.attrs.get("transpose", False)
    q = _full_q(v, tau)
    qq = _mT(q) if transpose else q
    gother = (_mT(qq) @ g if left else g @ _mT(qq)) if c.needs[2] else None
    gv = gtau = None
    if c.needs[0] or c.needs[1]:
        # NB: the gradient of the product used (Q or Q^T), then through the reflectors
        gqq = g @ _mT(other) if left else _mT(other) @ g
        gq = _mT(gqq) if transpose else gqq
        m, n = v.shape[-2:]
        wide = _padded(v)
        gwide = np.zeros(wide.shape, dtype=np.float64)
        gtau = np.zeros(tau.shape, dtype=np.float64)
        for idx in np.ndindex(*v.shape[:-2]):
            gwide[idx], gtau[idx] = householder_grads(wide[idx].astype(np.float64),
                                                      tau[idx].astype(np.float64), gq[idx])
        gv = np.zeros_like(v)
        gv[..., :, :min(m, n)] = gwide[..., :, :min(m, n)]
        gtau = gtau.astype(tau.dtype)
    return ((gv if c.needs[0] else None), (gtau if c.needs[1] else None), gother)


register(
    Op("linalg_lstsq", "LinalgLstsqBackward0", ("self", "b"), _lstsq_fwd, _lstsq_bw,
       (Save("b"), Save("self"), Save("solution", output=0)), n_outputs=4),
    Op("geqrf", "GeqrfBackward0", ("self",), _geqrf_fwd, _geqrf_bw, n_outputs=2),
    Op("ormqr", "OrmqrBackward0", ("self", "input2", "input3"), _ormqr_fwd, _ormqr_bw,
       (Save("input2"), Save("input3"), Save("result"), Save("self")), ("left", "transpose")),
)
