"""Table entry: the bags of embeddings (embedding_bag: EmbeddingBagBackward0), with the
bookkeeping PyTorch's kernel returns and saves (offset2bag, bag_size, max_indices)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, no_double_backward, register

SUM, MEAN, MAX = range(3)


def _bags(indices: np.ndarray, offsets: np.ndarray, include_last_offset: bool) -> np.ndarray:
    """Each position's bag (PyTorch's offset2bag for the non-fast paths)."""
    n_bags = offsets.size - 1 if include_last_offset else offsets.size
    pos = np.arange(indices.size)
    # NB: in a buffer one longer, as PyTorch's kernel allocates it (what saving it keeps)
    bag = np.empty(indices.size + 1, dtype=np.int64)
    bag[:-1] = np.searchsorted(offsets[:n_bags], pos, side="right") - 1
    return bag[:-1]


def _embedding_bag_fwd(weight: np.ndarray, psw: Any, indices: np.ndarray, offsets: np.ndarray,
                       mode: int, padding_idx: int = -1, include_last_offset: bool = False,
                       weighted: bool = False, **_: Any) -> tuple[np.ndarray, dict[str, Any]]:
    indices, offsets = np.asarray(indices).reshape(-1), np.asarray(offsets).reshape(-1)
    n_bags = offsets.size - 1 if include_last_offset else offsets.size
    bag = _bags(indices, offsets, include_last_offset)
    keep = indices != padding_idx
    dim = weight.shape[1]
    out = np.zeros((n_bags, dim), dtype=weight.dtype)
    size = np.zeros(n_bags, dtype=np.int64)
    np.add.at(size, bag[keep], 1)
    rows = weight[indices]
    if mode == MAX:
        maxi = np.zeros((n_bags, dim), dtype=np.int64)
        seen = np.zeros(n_bags, dtype=bool)
        for i in np.flatnonzero(keep):
            b = bag[i]
            # NB: PyTorch's kernel keeps the first of equal maxima (a strict comparison)
            better = rows[i] > out[b] if seen[b] else np.ones(dim, dtype=bool)
            out[b] = np.where(better, rows[i], out[b])
            maxi[b] = np.where(better, indices[i], maxi[b])
            seen[b] = True
        return out, {"result1": bag, "result2": size, "result3": maxi}
    if psw is not None:
        rows = rows * psw.reshape(-1, 1)
    np.add.at(out, bag[keep], rows[keep])
    if mode == MEAN:
        out = out / np.maximum(size, 1).reshape(-1, 1).astype(out.dtype)
        return out.astype(weight.dtype), {"result1": bag, "result2": size, "result3": size.copy()}
    # NB: PyTorch's fast path (float32 rows, no padding index) keeps no offset2bag
    fast = padding_idx < 0 and weight.dtype == np.float32
    return out, {"result1": np.zeros(0, dtype=np.int64) if fast else bag,
                 "result2": np.zeros(n_bags, dtype=np.int64),
                 "result3": np.zeros(n_bags, dtype=np.int64)}


def _embedding_bag_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("EmbeddingBagBackward0")
    a = c.attrs
    mode, pad = a["mode"], a.get("padding_idx", -1)
    indices = np.asarray(c.indices).reshape(-1)
    offsets = np.asarray(c.offsets).reshape(-1)
    bag = _bags(indices, offsets, a.get("include_last_offset", False))
    keep = indices != pad
    gw = gp = None
    if c.needs[0]:
        n = a["weight_sym_argsize_0"]
        gw = np.zeros((n, g.shape[1]), dtype=g.dtype)
        if mode == MAX:
            maxi = np.asarray(c.result3)
            size = np.asarray(c.result2)
            cols = np.broadcast_to(np.arange(g.shape[1]), maxi.shape)
            full = size > 0
            np.add.at(gw, (maxi[full], cols[full]), g[full])
        else:
            rows = g[bag]
            if mode == MEAN:
                size = np.zeros(g.shape[0], dtype=np.int64)
                np.add.at(size, bag[keep], 1)
                rows = rows / np.maximum(size, 1)[bag].reshape(-1, 1).astype(g.dtype)
            if a.get("weighted", False):
                rows = rows * np.asarray(c.per_sample_weights).reshape(-1, 1)
            if a.get("scale_grad_by_freq", False):
                # NB: PyTorch's CPU kernel scales the rows by counts taken in sorted order
                raise NotImplementedError("embedding_bag with scale_grad_by_freq=True: its "
                                          "gradient is not supported by graphviz_autograd")
            np.add.at(gw, indices[keep], rows[keep])
    if c.needs[1]:
        w = np.asarray(c.weight)
        gp = np.where(keep, np.sum(g[bag] * w[indices], axis=1), 0).astype(g.dtype)
    return gw, gp


register(
    Op("embedding_bag", "EmbeddingBagBackward0", ("weight", "per_sample_weights"),
       _embedding_bag_fwd, _embedding_bag_bw,
       (Save("indices"), Save("offsets"), Save("per_sample_weights"), Save("result1"),
        Save("result2"), Save("result3"), Save("weight", (1,))),
       ("mode", "padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0"),
       extras=("result1", "result2", "result3")),
)
