"""``torch.nn.functional``'s bags of embeddings (``embedding_bag``: EmbeddingBagBackward0)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine import dtypes as _dt
from ...engine.autograd import apply as _apply
from ...engine.autograd import wrap as _wrap
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor

__all__ = ["embedding_bag"]

_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """The sums, means or maxima of bags of rows of ``weight`` (EmbeddingBagBackward0)."""
    from .functional import _embedding_renorm_
    psw = per_sample_weights
    if psw is not None and tuple(input._data.shape) != tuple(psw._data.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({psw.shape}) is not None, "
                         f"then it must have the same shape as the input ({input.shape})")
    if weight._data.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight._data.ndim}")
    if input._data.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {_type_name(offsets)}")
        rows, length = input._data.shape
        offsets = _wrap(np.arange(0, rows * length, length, dtype=input._data.dtype))
        input = _wrap(input._data.reshape(-1))
        if psw is not None:
            psw = psw.reshape(-1)
    elif input._data.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets._data.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input._data.ndim}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    n = weight._data.shape[0]
    idx = input._data
    if max_norm is not None:
        _embedding_renorm_(weight, idx, float(max_norm), float(norm_type))
    if psw is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < n, "padding_idx must be within the number of embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -n, "padding_idx must be within the number of embeddings"
            padding_idx = n + padding_idx
    else:
        padding_idx = -1
    if input._dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError("expected scalar type Long but found "
                           f"{input._dtype.name.capitalize()}")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    if sparse:
        raise NotImplementedError("sparse gradients are not supported by this engine")
    kw = {"indices": input, "offsets": offsets, "mode": _MODES[mode], "padding_idx": padding_idx,
          "scale_grad_by_freq": bool(scale_grad_by_freq), "sparse": False,
          "weight_sym_argsize_0": n, "include_last_offset": include_last_offset,
          "weighted": psw is not None}
    return _apply(_T["embedding_bag"], (weight, psw), kw, dtype=weight._dtype)




def _type_name(v: Any) -> str:
    return "<class 'torch.Tensor'>" if isinstance(v, Tensor) else str(type(v))
