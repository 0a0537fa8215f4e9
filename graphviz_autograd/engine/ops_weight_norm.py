"""Table entries: the fused weight normalization ``_weight_norm_interface``
(``WeightNormInterfaceBackward0``), ``w = v * (g / ||v||)`` with the norm taken over every dim
but ``dim``, as PyTorch's CPU kernel computes it for the first or the last dim; and ATen's
whole-tensor ``norm(p)`` (``NormBackward0``) that ``norm_except_dim`` uses."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ops_reduce import _norm_bw, _norm_fwd
from .optable import Op, Save, register


def _other_axes(ndim: int, dim: int) -> tuple[int, ...]:
    return tuple(a for a in range(ndim) if a != dim)


def _weight_norm_fwd(v: np.ndarray, g: np.ndarray, *, dim: int) -> list[np.ndarray]:
    axes = _other_axes(v.ndim, dim)
    # NB: the sum of squares accumulated wider, rounded once (PyTorch's kernel accumulates in
    # its opmath type)
    wide = v.astype(np.float64)
    norms = np.sqrt((wide * wide).sum(axis=axes, keepdims=True)).astype(v.dtype)
    return [v * (g / norms), norms]


def _weight_norm_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        return _weight_norm_differentiable_bw(c, grads[0], D)
    grad = grads[0]
    v, g, norms = c.v, c.g, c.result1
    axes = _other_axes(v.ndim, c.attrs["dim"])
    dot = (grad * v).sum(axis=axes, keepdims=True)
    scale = g / norms
    grad_v = scale * grad - (scale * dot / (norms * norms)) * v if c.need(0) else None
    grad_g = dot / norms if c.need(1) else None
    return grad_v, grad_g


def _weight_norm_differentiable_bw(c: Any, grad: Any, D: Any) -> tuple[Any, ...]:
    """PyTorch's differentiable form (under ``create_graph``), op by op: the per-direction sums
    of ``grad * v`` through views, then ``grad_v`` and ``grad_g`` from them."""
    v, g = c.v, c.g
    norms = D.nondiff(c.result1)
    shape = c.shape(0)
    dim = c.attrs["dim"]
    if dim == 0:
        flat: tuple[int, ...] = (shape[0], -1)
        axis = 1
    else:
        flat = (-1, shape[-1])
        axis = 0
    bcast = tuple(n if i == dim else 1 for i, n in enumerate(shape))
    sums = D.view(D.sum_dim(D.view(D.mul(grad, v), shape=flat), dim=(axis,), keepdim=False),
                  shape=bcast)
    grad_v = None
    if c.need(0):
        # NB: the right factor is made first, as PyTorch's
        rest = D.sub(grad, D.mul(v, D.div(sums, D.mul(norms, norms))))
        grad_v = D.mul(D.div(g, norms), rest)
    grad_g = D.div(sums, norms) if c.need(1) else None
    return grad_v, grad_g


register(
    Op("_weight_norm_interface", "WeightNormInterfaceBackward0", ("v", "g"),
       _weight_norm_fwd, _weight_norm_bw,
       (Save("g"), Save("result1"), Save("v")), ("dim",), n_outputs=2, nondiff=(1,)),
    Op("norm_all", "NormBackward0", ("self",), lambda x, p=2.0: _norm_fwd(x, p), _norm_bw,
       (Save("result"), Save("self")), ("p",)),
)
