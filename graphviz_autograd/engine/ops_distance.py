"""Table entries: cross products and distances (``linalg_cross``, ``vdot``, ``dist``, ``cdist``
and the matrix-product form of the euclidean one, ``_euclidean_dist``)."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np

from .ops_reduce import _norm_bw
from .optable import Op, Save, keep_given, no_double_backward, register


def _cross_fwd(a: Any, b: Any, dim: int) -> Any:
    return np.cross(a, b, axisa=dim, axisb=dim, axisc=dim)


def _cross_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    dim = c.attrs["dim"]
    # NB: other's first, as PyTorch's generated code
    gb = keep_given(D.linalg_cross(g, c.self, dim=dim), c.attrs, D) if c.needs[1] else None
    ga = keep_given(D.linalg_cross(c.other, g, dim=dim), c.attrs, D) if c.needs[0] else None
    return ga, gb


def _vdot_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    gb = D.mul(g, c.self) if c.needs[1] else None
    return (D.mul(g, c.other) if c.needs[0] else None), gb


def _p_norm(d: np.ndarray, p: float, axis: Any) -> Any:
    a = np.abs(d)
    if p == 0:
        return (a != 0).sum(axis=axis).astype(d.dtype)
    if math.isinf(p):
        if a.size == 0:
            return np.zeros(np.sum(a, axis=axis).shape, d.dtype)
        return a.max(axis=axis) if p > 0 else a.min(axis=axis)
    if p == 1:
        return a.sum(axis=axis)
    if p == 2:
        return np.sqrt((a * a).sum(axis=axis))
    return (a ** p).sum(axis=axis) ** (1 / p)


def _dist_fwd(a: Any, b: Any, p: Any = 2) -> Any:
    with np.errstate(all="ignore"):
        return np.asarray(_p_norm(np.subtract(a, b), float(p), None), dtype=np.result_type(a, b))


def _dist_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    p = float(c.attrs["p"])
    if p == 0:
        # NB: PyTorch's formula gives no gradient for p=0, and its engine refuses that
        raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor in "
                           "C++) for argument #0 'self'")
    if p == -math.inf:
        # NB: as the inf norm's, the gradient shared by the elements at the minimum
        p = math.inf
    if D.tensor_mode:
        from . import functional as F

        def norm_grad() -> Any:
            # NB: PyTorch's norm_backward of self - other, the difference taken anew per input
            diff = F.sub(c.self, c.other)
            ctx = SimpleNamespace(self=diff, result=c.result, attrs={"ord": p},
                                  shape=lambda i=0: diff._data.shape)
            return _norm_bw(ctx, g, D)[0]
        # NB: other's first, as PyTorch's generated code
        gb = F.neg(norm_grad()) if c.needs[1] else None
        return (norm_grad() if c.needs[0] else None), gb
    diff = np.subtract(c.self, c.other)
    ctx = SimpleNamespace(self=diff, result=c.result, attrs={"ord": p},
                          shape=lambda i=0: diff.shape)
    (gd,) = _norm_bw(ctx, g, D)
    return (gd if c.needs[0] else None), (-gd if c.needs[1] else None)


def _cdist_fwd(x1: Any, x2: Any, p: float = 2.0, **_: Any) -> Any:
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    with np.errstate(all="ignore"):
        return np.asarray(_p_norm(diff, float(p), -1), dtype=np.result_type(x1, x2))


def _cdist_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("CdistBackward0")
    p = float(c.attrs["p"])
    x1, x2, r = c.x1, c.x2, c.result
    d = x1[..., :, None, :] - x2[..., None, :, :]
    rr = r[..., None]
    with np.errstate(all="ignore"):
        if p == 0:
            w = np.zeros_like(d)
        elif p == 1:
            w = np.sign(d)
        elif math.isinf(p):
            w = np.sign(d) * (np.abs(d) == rr)
        elif p == 2:
            w = np.where(rr == 0, 0, d / rr)
        elif p < 2:
            w = np.where(rr == 0, 0, np.sign(d) * np.abs(d) ** (p - 1) / rr ** (p - 1))
        else:
            w = np.where(rr == 0, 0, d * np.abs(d) ** (p - 2) / rr ** (p - 1))
    gw = g[..., None] * w
    return (gw.sum(axis=-2) if c.needs[0] else None,
            -gw.sum(axis=-3) if c.needs[1] else None)


def _euclidean_fwd(x1: Any, x2: Any) -> Any:
    # NB: PyTorch's matrix-product form: |x1|^2 - 2 x1.x2 + |x2|^2, clamped at 0
    sq1 = (x1 * x1).sum(axis=-1)[..., :, None]
    sq2 = (x2 * x2).sum(axis=-1)[..., None, :]
    prod = np.matmul(x1, np.swapaxes(x2, -1, -2))
    return np.sqrt(np.clip(sq1 - 2 * prod + sq2, 0, None))


def _euclidean_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("EuclideanDistBackward0")
    x1, x2, r = c.x1, c.x2, c.result
    with np.errstate(all="ignore"):
        w = np.where(r == 0, 0, g / r)
    g1 = (x1 * w.sum(axis=-1)[..., None] - np.matmul(w, x2)) if c.needs[0] else None
    g2 = (x2 * w.sum(axis=-2)[..., None] - np.matmul(np.swapaxes(w, -1, -2), x1)) \
        if c.needs[1] else None
    return g1, g2


register(
    Op("linalg_cross", "LinalgCrossBackward0", ("self", "other"), _cross_fwd, _cross_bw,
       (Save("other", (0,)), Save("self", (1,))), ("dim",)),
    Op("vdot", "VdotBackward0", ("self", "other"), np.dot, _vdot_bw,
       (Save("other", (0,)), Save("self", (1,)))),
    Op("dist", "DistBackward0", ("self", "other"), _dist_fwd, _dist_bw,
       (Save("other"), Save("result"), Save("self")), ("p",)),
    Op("cdist", "CdistBackward0", ("x1", "x2"), _cdist_fwd, _cdist_bw,
       (Save("result"), Save("x1"), Save("x2")), ("p",)),
    Op("euclidean_dist", "EuclideanDistBackward0", ("x1", "x2"), _euclidean_fwd, _euclidean_bw,
       (Save("result"), Save("x1"), Save("x2"))),
)
