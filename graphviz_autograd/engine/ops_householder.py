"""Table entry: ``linalg_householder_product`` (``LinalgHouseholderProductBackward0``), the
first columns of ``H_1 ... H_k`` with ``H_i = I - tau_i v_i v_i^T`` (``v_i``: 1 at ``i``, column
``i`` of the input below it); real matrices."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, no_double_backward, register


def _reflector(a: np.ndarray, i: int) -> np.ndarray:
    v = np.zeros(a.shape[0], dtype=np.float64)
    v[i] = 1.0
    v[i + 1:] = a[i + 1:, i]
    return v


def _one(a: np.ndarray, tau: np.ndarray) -> np.ndarray:
    n, k = a.shape
    q = np.eye(n, k, dtype=np.float64)
    for i in reversed(range(tau.shape[0])):
        v = _reflector(a, i)
        q -= tau[i] * np.outer(v, v @ q)
    return q


def householder_product(a: np.ndarray, tau: np.ndarray) -> np.ndarray:
    n, k = a.shape[-2:]
    flat_a = a.astype(np.float64).reshape(-1, n, k)
    flat_t = tau.astype(np.float64).reshape(len(flat_a), -1)
    out = np.stack([_one(x, t) for x, t in zip(flat_a, flat_t, strict=True)])
    out = out.reshape(a.shape).astype(a.dtype)
    # NB: column-major matrices, as LAPACK's (and PyTorch's) result
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(out, -1, -2)), -1, -2)


def _grads_one(a: np.ndarray, tau: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Reverse mode through ``Q = H_1 (H_2 (... H_k E))``: with ``X_i = H_{i+1} ... H_k E``
    and ``G_i`` the gradient reaching ``H_i X_i``, ``dH_i = G_i X_i^T``."""
    n, k = a.shape
    m = tau.shape[0]
    xs = [np.eye(n, k, dtype=np.float64)]
    for i in reversed(range(1, m)):
        v = _reflector(a, i)
        xs.append(xs[-1] - tau[i] * np.outer(v, v @ xs[-1]))
    xs.reverse()        # xs[i] = X_i, the product right of H_i
    ga = np.zeros((n, k), dtype=np.float64)
    gt = np.zeros(m, dtype=np.float64)
    gi = g.astype(np.float64)
    for i in range(m):
        v = _reflector(a, i)
        gh = gi @ xs[i].T
        gt[i] = -(v @ gh @ v)
        gv = -tau[i] * (gh @ v + gh.T @ v)
        ga[i + 1:, i] = gv[i + 1:]
        gi = gi - tau[i] * np.outer(v, v @ gi)
    return ga, gt


def _householder_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("LinalgHouseholderProductBackward0")
    a, tau = c.input, c.tau
    n, k = a.shape[-2:]
    flat_a = a.astype(np.float64).reshape(-1, n, k)
    flat_t = tau.astype(np.float64).reshape(len(flat_a), -1)
    flat_g = np.broadcast_to(g, a.shape).reshape(-1, n, k)
    pairs = [_grads_one(x, t, gg) for x, t, gg in zip(flat_a, flat_t, flat_g, strict=True)]
    ga = np.stack([p[0] for p in pairs]).reshape(a.shape).astype(a.dtype)
    gt = np.stack([p[1] for p in pairs]).reshape(tau.shape).astype(tau.dtype)
    return (ga if c.need(0) else None, gt if c.need(1) else None)


register(
    Op("linalg_householder_product", "LinalgHouseholderProductBackward0", ("input", "tau"),
       householder_product, _householder_bw, (Save("input"), Save("result"), Save("tau"))),
)
