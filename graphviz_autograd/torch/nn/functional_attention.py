"""``F.scaled_dot_product_attention`` and ``F.multi_head_attention_forward``, with the graphs
PyTorch 2.13's CPU build makes: the fused attention node where its kernel accepts the inputs,
else its composite (matmul, ``_safe_softmax``, dropout, matmul)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ...engine import dtypes as _dt
from ...engine import functional as _F
from ...engine import messages as _msg
from ...engine.autocast import lower as _amp_lower
from ...engine.autocast import state as _amp
from ...engine.autograd import apply as _apply
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward", "baddbmm",
           "safe_softmax"]


def _ctype(t: Tensor) -> str:
    return _msg.CTYPE_NAME.get(t._dtype.name, t._dtype.name)


def safe_softmax(input: Tensor, dim: int) -> Tensor:
    """``torch._safe_softmax``: softmax giving 0 on a slice that is -inf everywhere."""
    d = _F._dim(dim, input._data.ndim)
    return _F.as_given(_apply(_T["safe_softmax"], (input,), {"dim": d}), dim=dim)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,
            alpha: Any = 1) -> Tensor:
    """``torch.baddbmm``: ``beta * input + alpha * batch1 @ batch2`` (BaddbmmBackward0)."""
    if _amp.dtype is not None:
        return _amp_lower(baddbmm, input, batch1, batch2, beta=beta, alpha=alpha)
    if batch1._data.ndim != 3 or batch2._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1._data.ndim != 3
                           else "batch2 must be a 3D tensor")
    b, n, m = batch1._data.shape
    # NB: input is expanded to the product's size before the sizes are checked, as in PyTorch
    _F.check_expand(input._data.shape, (b, n, batch2._data.shape[2]))
    if batch2._data.shape[0] != b or batch2._data.shape[1] != m:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {m}] but got: [{batch2._data.shape[0]}, "
                           f"{batch2._data.shape[1]}].")
    kw = {"alpha": alpha, "beta": beta} if alpha != 1 or beta != 1 else None
    return _apply(_T["baddbmm"], (input, batch1, batch2), kw, dtype=_F.promote(input, batch1,
                                                                              batch2))


# -- scaled dot product attention ------------------------------------------------------------------
def _validate(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None) -> None:
    if not (query._dtype is key._dtype is value._dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {_ctype(query)} key.dtype: {_ctype(key)} and "
                           f"value.dtype: {_ctype(value)} instead.")
    if attn_mask is not None and attn_mask._dtype is not _dt.bool_ \
            and attn_mask._dtype is not query._dtype:
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {_ctype(attn_mask)} and  "
                           f"query.dtype: {_ctype(query)} instead.")
    if min(query._data.ndim, key._data.ndim, value._data.ndim) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, "
                           f"but got query.dim: {query._data.ndim} key.dim: {key._data.ndim} "
                           f"and value.dim: {value._data.ndim} instead.")


def _float_mask(mask: np.ndarray, dtype: _dt.DType) -> Tensor:
    """A boolean mask as the additive one PyTorch makes of it: 0 where True, -inf where False."""
    return Tensor._make(np.where(mask, 0, -np.inf).astype(dtype.np), dtype)


def _last_dim_dense(t: Tensor) -> bool:
    a = t._data
    return a.shape[-1] == 1 or a.strides[-1] == a.itemsize


def _fused(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None,
           dropout_p: float, enable_gqa: bool) -> bool:
    """Whether PyTorch's CPU build runs the fused kernel (its ``_fused_sdp_choice``)."""
    q, k, v = query._data, key._data, value._data
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4 or dropout_p > 0:
        return False
    if not (q.shape[-1] == k.shape[-1] == v.shape[-1]):
        return False
    if not (q.shape[0] == k.shape[0] == v.shape[0]):
        return False
    heads = q.shape[1]
    if not (heads == k.shape[1] == v.shape[1]) and not (
            enable_gqa and k.shape[1] == v.shape[1] and k.shape[1] and heads % k.shape[1] == 0):
        return False
    if attn_mask is not None and (attn_mask._data.ndim not in (2, 4) or attn_mask.requires_grad):
        return False
    if q.shape[2] == 0 or k.shape[2] == 0:
        return False
    return _last_dim_dense(query) and _last_dim_dense(key) and _last_dim_dense(value)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """Attention ``softmax(q @ k.T * scale + mask) @ v``, as PyTorch's CPU build computes it:
    one ScaledDotProductFlashAttentionForCpuBackward0 node for 4-D inputs its fused kernel takes,
    else the composite (the scale's square root on q and k.T, matmul, ``_safe_softmax``,
    dropout, matmul)."""
    if _amp.dtype is not None:
        return _amp_lower(scaled_dot_product_attention, query, key, value, attn_mask, dropout_p,
                          is_causal, scale, enable_gqa)
    _validate(query, key, value, attn_mask)
    if attn_mask is not None and attn_mask._data.ndim < 2:
        # NB: PyTorch's kernel choice reads the mask's size(-2)
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "-2)")
    mask = attn_mask
    if mask is not None and mask._dtype is _dt.bool_:
        mask = _float_mask(mask._data, query._dtype)
    if _fused(query, key, value, attn_mask, dropout_p, enable_gqa):
        kw = {"attn_mask": mask, "dropout_p": float(dropout_p), "is_causal": bool(is_causal),
              "scale": None if scale is None else float(scale)}
        return _apply(_T["scaled_dot_product_flash_attention_for_cpu"], (query, key, value),
                      kw, dtype=query._dtype)[0]
    return _math(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa)


def _math(query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None, dropout_p: float,
          is_causal: bool, scale: float | None, enable_gqa: bool) -> Tensor:
    from . import functional as F

    negative = scale is not None and scale < 0
    base = (abs(scale) if negative else scale) if scale is not None \
        else 1 / math.sqrt(query._data.shape[-1])
    factor = math.sqrt(base)
    q = _apply(_T["mul_scalar"], (query,), {"other": -factor if negative else factor},
               dtype=query._dtype)
    if is_causal:
        if mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                               "set when is_causal=True")
        shape = (query._data.shape[-2], key._data.shape[-2])
        mask = _float_mask(np.tril(np.ones(shape, dtype=bool)), query._dtype)
    if enable_gqa and query._data.ndim >= 3 and key._data.shape[-3] != query._data.shape[-3]:
        raise NotImplementedError("graphviz_autograd: scaled_dot_product_attention with "
                                  "enable_gqa=True off the fused kernel (4-D inputs, no "
                                  "dropout) is not supported")
    k_t = _apply(_T["mul_scalar"], (_F.transpose(key, -2, -1),), {"other": factor},
                 dtype=key._dtype)
    attn = _F.matmul(q, k_t)
    if mask is not None:
        attn = _F.add(attn, mask)
    attn = safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = F.dropout(attn, dropout_p, True)
    return _F.matmul(attn, value)


# -- multi-head attention ------------------------------------------------------------------------
def _none_or_dtype(input: Tensor | None) -> Any:
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type: Any, other_name: str,
                    target_type: Any, check_other: bool = True) -> Tensor | None:
    """A boolean mask as an additive float one of ``target_type`` (-inf where True)."""
    if mask is None:
        return None
    is_float = mask._dtype.is_floating_point
    if mask._dtype is not _dt.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=3)
    if not is_float:
        return Tensor._make(np.where(mask._data, -np.inf, 0).astype(target_type.np), target_type)
    return mask


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor,
                     key_padding_mask: Tensor | None, attn_mask: Tensor | None,
                     num_heads: int) -> bool:
    qd, kd, vd = query.dim(), key.dim(), value.dim()
    if qd == 3:
        if kd != 3 or vd != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {kd}-D and {vd}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.dim()}-D tensor instead")
        return True
    if qd == 2:
        if kd != 2 or vd != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {kd}-D and {vd}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 1-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.dim()}-D tensor "
                                     "instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                     f"{attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                         f"{qd}-D query tensor")


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor,
                          b: Tensor | None = None) -> list[Tensor]:
    from .functional import linear

    e = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            proj = proj.view(*proj.shape[:-1], 3, e).unsqueeze(0).transpose(0, -2) \
                .squeeze(-2).contiguous()
            return [proj[0], proj[1], proj[2]]
        w_q, w_kv = w.split([e, e * 2])
        b_q = b_kv = None
        if b is not None:
            b_q, b_kv = b.split([e, e * 2])
        q_proj = linear(q, w_q, b_q)
        kv = linear(k, w_kv, b_kv)
        kv = kv.view(*kv.shape[:-1], 2, e).unsqueeze(0).transpose(0, -2).squeeze(-2) \
            .contiguous()
        return [q_proj, kv[0], kv[1]]
    w_q, w_k, w_v = w.chunk(3)
    b_q = b_k = b_v = None
    if b is not None:
        b_q, b_k, b_v = b.chunk(3)
    return [linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)]


def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
        bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
        out_proj_bias: Tensor | None, training: bool = True,
        key_padding_mask: Tensor | None = None, need_weights: bool = True,
        attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
        q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
        v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
        static_v: Tensor | None = None, average_attn_weights: bool = True,
        is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
    """PyTorch's multi-head attention, step for step: the in-projection, the heads as a batch,
    then ``scaled_dot_product_attention`` (``need_weights=False``) or bmm, softmax, dropout,
    bmm (the weights returned), and the out-projection."""
    from . import functional as F

    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight "
                                     "is None")
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q = F.linear(query, q_proj_weight, b_q)  # type: ignore[arg-type]
        k = F.linear(key, k_proj_weight, b_k)  # type: ignore[arg-type]
        v = F.linear(value, v_proj_weight, b_v)  # type: ignore[arg-type]
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _F.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _F.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None \
        else _static(static_k, "static_k", bsz * num_heads, head_dim)
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None \
        else _static(static_v, "static_v", bsz * num_heads, head_dim)
    if add_zero_attn:
        zeros = Tensor._make(np.zeros((bsz * num_heads, 1, head_dim), k._dtype.np), k._dtype)
        k = _F.cat([k, zeros], dim=1)
        v = _F.cat([v, Tensor._make(np.zeros((bsz * num_heads, 1, head_dim), v._dtype.np),
                                    v._dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    src_len = k.size(1)
    if key_padding_mask is not None:
        for i, size in enumerate((bsz, src_len)):
            if key_padding_mask.shape[i] != size:
                raise AssertionError(f"Expected key_padded_mask.shape[{i}] to be {size}, but "
                                     f"got {key_padding_mask.shape[i]}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len) \
            .expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        e = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(e))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = _F.bmm(q_scaled, k.transpose(-2, -1))
        weights = F.softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        out = _F.bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = F.linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None


def _static(t: Tensor, name: str, batch_heads: int, head_dim: int) -> Tensor:
    if t.size(0) != batch_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch_heads}, but got {t.size(0)}")
    if t.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.size(2)}")
    return t
