"""Table entries for attention: ``_safe_softmax`` (SafeSoftmaxBackward0), ``baddbmm``
(BaddbmmBackward0) and the fused attention PyTorch's CPU build runs
``scaled_dot_product_attention`` through (ScaledDotProductFlashAttentionForCpuBackward0)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .optable import Op, Save, register


# -- safe softmax --------------------------------------------------------------------------------
def _safe_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    """Softmax along ``dim``, 0 (not NaN) along a slice that is -inf everywhere."""
    top = np.max(x, axis=dim, keepdims=True)
    dead = top == -np.inf
    e = np.exp(x - np.where(dead, 0, top))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = e / np.sum(e, axis=dim, keepdims=True)
    return np.where(dead, 0, out).astype(x.dtype, copy=False)


def _safe_softmax_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: softmax's own backward: the masked slices' outputs are 0, so are their gradients
    return (D.softmax_backward_data(g, c.result, dim=c.attrs["dim"]),)


# -- baddbmm -------------------------------------------------------------------------------------
def _baddbmm_fwd(x: np.ndarray, b1: np.ndarray, b2: np.ndarray, beta: Any = 1,
                 alpha: Any = 1) -> np.ndarray:
    prod = np.matmul(b1, b2)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:
        return np.broadcast_to(prod, prod.shape).copy()
    return prod + (x if beta == 1 else beta * x)


def _scaled(x: Any, k: Any, D: Any) -> Any:
    return x if k == 1 else D.mul_scalar(x, other=k)


def _baddbmm_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    alpha, beta = c.attrs.get("alpha", 1), c.attrs.get("beta", 1)
    g1 = _scaled(D.bmm(g, D.transpose(c.batch2, dim0=1, dim1=2)), alpha, D) \
        if c.need(1) else None
    g2 = _scaled(D.bmm(D.transpose(c.batch1, dim0=1, dim1=2), g), alpha, D) \
        if c.need(2) else None
    g0 = None
    if c.need(0):
        # NB: beta == 0 still gives self a gradient: grad * 0
        g0 = D.sum_to(_scaled(g, beta, D), c.shape(0))
    return g0, g1, g2


# -- fused scaled dot product attention ----------------------------------------------------------
def _probabilities(q: np.ndarray, k: np.ndarray, attn_mask: Any, is_causal: bool,
                   scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The attention probabilities (float64; rows masked everywhere are 0), the logsumexp of
    each row's scaled scores (0 on a row masked everywhere, as PyTorch's kernel writes it) and
    the keys repeated to the query's heads."""
    heads = q.shape[1]
    kk = k.astype(np.float64)
    if k.shape[1] != heads:
        # NB: grouped-query attention: query head h reads key head h // (heads / key heads)
        kk = np.repeat(kk, heads // k.shape[1], axis=1)
    scores = np.matmul(q.astype(np.float64), np.swapaxes(kk, -1, -2)) * scale
    if attn_mask is not None:
        scores = scores + attn_mask.astype(np.float64)
    if is_causal:
        seen = np.tril(np.ones(scores.shape[-2:], dtype=bool))
        scores = np.where(seen, scores, -np.inf)
    top = np.max(scores, axis=-1, keepdims=True)
    dead = top == -np.inf
    e = np.exp(scores - np.where(dead, 0, top))
    total = np.sum(e, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(dead, 0, e / total)
        lse = np.where(dead, 0, top + np.log(total))[..., 0]
    return p, lse, kk


def _scale(q: np.ndarray, scale: Any) -> float:
    return 1 / math.sqrt(q.shape[-1]) if scale is None else float(scale)


def _repeated(v: np.ndarray, heads: int) -> np.ndarray:
    wide = v.astype(np.float64)
    return wide if v.shape[1] == heads else np.repeat(wide, heads // v.shape[1], axis=1)


def _grouped(g: np.ndarray, kv_heads: int) -> np.ndarray:
    """A gradient over the query's heads summed back to the key's ``kv_heads`` heads."""
    b, heads, *rest = g.shape
    if heads == kv_heads:
        return g
    return g.reshape(b, kv_heads, heads // kv_heads, *rest).sum(axis=2)


def _flash_fwd(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, attn_mask: Any = None,
               dropout_p: float = 0.0, is_causal: bool = False, scale: Any = None
               ) -> list[np.ndarray]:
    p, lse, _ = _probabilities(q, k, attn_mask, is_causal, _scale(q, scale))
    # NB: the output laid out in memory as the query is (PyTorch's kernel makes it empty_like
    # the query): a reshape of it may then be a view, as in PyTorch
    out = np.empty_like(q)
    out[...] = np.matmul(p, _repeated(v, q.shape[1]))
    # NB: PyTorch's kernel writes the logsumexp as (batch, length, heads), viewed transposed
    lse_t = np.ascontiguousarray(np.swapaxes(lse, 1, 2)).astype(q.dtype)
    return [out, np.swapaxes(lse_t, 1, 2)]


def _flash_grads(g: Any, q: Any, k: Any, v: Any, out: Any, attn_mask: Any = None,
                 is_causal: bool = False, scale: Any = None,
                 needs: tuple[bool, ...] = (True, True, True)) -> list[Any]:
    """The gradients of query, key and value (arrays)."""
    scale = _scale(q, scale)
    # NB: the probabilities recomputed in float64 (PyTorch's kernel recomputes them from the
    # saved logsumexp in the inputs' dtype: float32 results differ in the last bits)
    p, _, kk = _probabilities(q, k, attn_mask, is_causal, scale)
    heads = q.shape[1]
    g64 = g.astype(np.float64)
    dp = np.matmul(g64, np.swapaxes(_repeated(v, heads), -1, -2))
    ds = p * (dp - np.sum(g64 * out.astype(np.float64), axis=-1, keepdims=True))
    gq = np.matmul(ds, kk) * scale if needs[0] else None
    gk = _grouped(np.matmul(np.swapaxes(ds, -1, -2), q.astype(np.float64)) * scale,
                  k.shape[1]) if needs[1] else None
    gv = _grouped(np.matmul(np.swapaxes(p, -1, -2), g64), v.shape[1]) if needs[2] else None
    return [None if x is None else x.astype(q.dtype) for x in (gq, gk, gv)]


def _flash_backward_fwd(*arrays: Any, attn_mask: Any = None, is_causal: bool = False,
                        scale: Any = None) -> list[Any]:
    g, q, k, v, out = arrays[-5:]
    return _flash_grads(g, q, k, v, out, attn_mask, is_causal, scale)


def _flash_backward_bw(c: Any, grads: Any, D: Any) -> tuple[Any, ...]:
    raise RuntimeError("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward"
                       " is not implemented")


def _flash_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    q, k, v, out = c.query, c.key, c.value, c.output
    g = grads[0]
    if g is None:
        return None, None, None
    saved = c.node._saved
    mask = c.attn_mask if saved.get("attn_mask") is not None else None
    attrs = c.attrs
    kw = {"attn_mask": mask, "is_causal": attrs.get("is_causal", False),
          "scale": attrs.get("scale")}
    needs = (c.need(0), c.need(1), c.need(2))
    if not D.tensor_mode:
        return tuple(_flash_grads(g, q, k, v, out, needs=needs, **kw))
    # NB: PyTorch has no derivative for this backward: under create_graph its gradients come
    # from a NotImplemented node over the values that require grad, which raises when run
    from . import autograd
    from .optable import TABLE
    values = (g, q, k, v, out)
    graph = [t for t in values if t._rg or t._grad_fn is not None]
    arrays = [t._data for t in values]
    if mask is not None and hasattr(mask, "_data"):
        kw["attn_mask"] = mask._data
    res = autograd.apply(TABLE["flash_attention_backward"], graph,
                         arrays=[*[t._data for t in graph], *arrays], dtype=q._dtype,
                         kw=kw)
    return tuple(r if n else None for r, n in zip(res, needs, strict=True))


register(
    Op("safe_softmax", "SafeSoftmaxBackward0", ("self",), _safe_softmax, _safe_softmax_bw,
       (Save("result"),), ("dim",)),
    Op("baddbmm", "BaddbmmBackward0", ("self", "batch1", "batch2"), _baddbmm_fwd, _baddbmm_bw,
       (Save("batch1", (2,)), Save("batch2", (1,))), ("alpha", "beta")),
    Op("scaled_dot_product_flash_attention_for_cpu",
       "ScaledDotProductFlashAttentionForCpuBackward0", ("query", "key", "value"),
       _flash_fwd, _flash_bw,
       (Save("attn_mask"), Save("key"), Save("logsumexp"), Save("output"), Save("query"),
        Save("value")),
       ("dropout_p", "is_causal", "scale"), n_outputs=2, result_names=("output", "logsumexp"),
       nondiff=(1,)),
    Op("flash_attention_backward", "torch::autograd::NotImplemented", ("*tensors",),
       _flash_backward_fwd, _flash_backward_bw, n_outputs=3),
)
