"""Table entries: selecting by index or mask (index_select, masked_select, take, roll) and the
scatters their backward formulas use (index_add, masked_scatter, put), as PyTorch pairs them."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, register


def _along(ndim: int, dim: int, index: Any) -> tuple[Any, ...]:
    """The numpy key that picks ``index`` along ``dim`` (a 0-dim tensor counts as 1-dim)."""
    key: list[Any] = [slice(None)] * max(ndim, 1)
    key[dim] = np.asarray(index).reshape(-1)
    return tuple(key)


def _index_select_fwd(x: np.ndarray, dim: int, index: Any) -> np.ndarray:
    if x.ndim == 0:
        return x.reshape(1)[np.asarray(index).reshape(-1)].reshape(())
    return np.take(x, np.asarray(index).reshape(-1), axis=dim)


def _index_select_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch: grad.new_zeros(self_sizes).index_add_(dim, index, grad)
    dim = c.attrs["dim"]
    return (D.index_add(D.zeros(c.shape(0), like=g), g, dim=dim, index=c.index,
                        source_dim=len(c.shape(0))),)


def _index_add_fwd(x: np.ndarray, src: Any, dim: int, index: Any, alpha: Any = 1,
                   source_dim: int = 0) -> np.ndarray:
    out = x.copy()
    src = np.asarray(src)
    if alpha != 1:
        src = src * np.asarray(alpha, dtype=out.dtype)
    if out.ndim == 0:
        out = out.reshape(1)
        np.add.at(out, np.asarray(index).reshape(-1), src.reshape(-1))
        return out.reshape(())
    key = _along(out.ndim, dim, index)
    np.add.at(out, key, src.reshape(out[key].shape))
    return out


def _index_add_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    gs = None
    if c.needs[1]:
        dim, alpha = c.attrs["dim"], c.attrs.get("alpha", 1)
        gs = D.index_select(g, dim=dim, index=c.index)
        if D.tensor_mode:
            gs = D.expand(gs, size=tuple(c.shape(1))) if c.shape(1) else D.reshape(gs, shape=())
        elif gs.shape != c.shape(1):
            gs = gs.reshape(c.shape(1))
        if alpha != 1:
            gs = D.mul_scalar(gs, other=alpha)
    return (g if c.needs[0] else None, gs)


def _masked_select_fwd(x: np.ndarray, mask: Any) -> np.ndarray:
    shape = np.broadcast_shapes(x.shape, np.shape(mask))
    return np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)]


def _masked_select_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch: zeros_like(self.expand(broadcast shape)).masked_scatter_(mask, grad); the
    # executor then sums the gradient back to self's shape
    mask = c.mask
    shape = np.broadcast_shapes(c.shape(0), tuple(mask.shape))
    return (D.masked_scatter(D.zeros(shape, like=g), g, mask=mask,
                             source_sym_sizes=tuple(g.shape)),)


def _masked_scatter_fwd(x: np.ndarray, src: Any, mask: Any,
                        source_sym_sizes: Any = None) -> np.ndarray:
    shape = np.broadcast_shapes(x.shape, np.shape(mask))
    out = np.array(np.broadcast_to(x, shape), copy=True)
    m = np.broadcast_to(mask, shape)
    n = int(np.count_nonzero(m))
    out[m] = np.asarray(src).reshape(-1)[:n]
    return out


def _masked_scatter_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    mask = c.mask
    gx = D.masked_fill(g, mask=mask, value=0) if c.needs[0] else None
    gs = D.masked_scatter_backward(g, mask=mask, sizes=tuple(c.shape(1))) if c.needs[1] else None
    return gx, gs


def _masked_scatter_data_fwd(g: np.ndarray, mask: Any, sizes: tuple[int, ...]) -> np.ndarray:
    """The source's gradient: the masked part of ``g``, padded with zeros to the source's size."""
    numel = int(np.prod(sizes, dtype=np.int64))
    picked = np.broadcast_to(g, np.broadcast_shapes(g.shape, np.shape(mask)))[
        np.broadcast_to(mask, np.broadcast_shapes(g.shape, np.shape(mask)))]
    if numel > picked.size:
        picked = np.concatenate([picked, np.zeros(numel - picked.size, dtype=g.dtype)])
    return picked.reshape(sizes)


def _masked_scatter_data_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch: zeros_like(grad_output).masked_scatter(mask, grad)
    mask = c.mask
    return (D.masked_scatter(D.zeros(c.shape(0), like=gg), gg, mask=mask,
                             source_sym_sizes=tuple(gg.shape)),)


def _roll_fwd(x: np.ndarray, shifts: tuple[int, ...], dims: tuple[int, ...]) -> np.ndarray:
    if not dims:
        return np.roll(x, shifts[0])
    return np.roll(x, shifts, axis=dims)


def _take_fwd(x: np.ndarray, index: Any) -> np.ndarray:
    return x.reshape(-1)[np.asarray(index)]


def _take_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch: zeros_like(self).put_(index, grad, accumulate=True)
    return (D.put(D.zeros(c.shape(0), like=g), g, index=c.index, accumulate=True),)


def _put_fwd(x: np.ndarray, src: Any, index: Any, accumulate: bool = False) -> np.ndarray:
    out = np.array(x, copy=True, order="C")
    flat = out.reshape(-1)
    idx = np.asarray(index).reshape(-1)
    values = np.asarray(src).reshape(-1)
    if accumulate:
        np.add.at(flat, idx, values)
    else:
        flat[idx] = values
    return out


def _put_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    index = c.index
    gx = None
    if c.needs[0]:
        gx = g if c.attrs.get("accumulate") else D.put(
            g, D.zeros(c.shape(1), like=g), index=index, accumulate=False)
    gs = None
    if c.needs[1]:
        gs = D.take(g, index=index)
        gs = D.reshape(gs, shape=tuple(c.shape(1)))
    return gx, gs


def _embedding_fwd(w: np.ndarray, indices: np.ndarray, padding_idx: int = -1,
                   scale_grad_by_freq: bool = False, sparse: bool = False,
                   weight_sym_argsize_0: int = 0) -> np.ndarray:
    return w[indices]


def _embedding_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    a = c.attrs
    return (D.embedding_dense_backward(g, indices=c.indices,
                                       num_weights=a["weight_sym_argsize_0"],
                                       padding_idx=a["padding_idx"],
                                       scale_grad_by_freq=a["scale_grad_by_freq"]),)


def _embedding_dense_fwd(g: np.ndarray, indices: np.ndarray, num_weights: int, padding_idx: int,
                         scale_grad_by_freq: bool) -> np.ndarray:
    """PyTorch's embedding_dense_backward: each row of ``g`` added to its index's row, but the
    padding index's (divided by how often its index occurs, with ``scale_grad_by_freq``)."""
    idx = indices.reshape(-1)
    rows = g.reshape(idx.size, g.shape[-1])
    if scale_grad_by_freq:
        counts = np.bincount(idx, minlength=num_weights)
        rows = rows / counts[idx][:, None].astype(rows.dtype)
    keep = idx != padding_idx
    out = np.zeros((num_weights, g.shape[-1]), dtype=g.dtype)
    np.add.at(out, idx[keep], rows[keep])
    return out


def _embedding_dense_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    """PyTorch's embedding_dense_double_backward: the rows picked again (the frequency scaling
    is the first backward's), the padding index's zeroed."""
    indices, padding_idx = c.indices, c.attrs["padding_idx"]
    flat = D.reshape(indices, shape=(-1,))
    out = D.index_select(gg, dim=0, index=flat)
    if padding_idx >= 0:
        out = D.masked_fill(out, mask=D.reshape(D.eq(indices, padding_idx), shape=(-1, 1)),
                            value=0)
    return (D.view(out, shape=(*tuple(indices.shape), -1)),)


register(
    Op("embedding", "EmbeddingBackward0", ("weight",), _embedding_fwd, _embedding_bw,
       (Save("indices"),), ("padding_idx", "scale_grad_by_freq", "sparse",
                            "weight_sym_argsize_0")),
    Op("embedding_dense_backward", "EmbeddingDenseBackwardBackward0", ("grad_output",),
       _embedding_dense_fwd, _embedding_dense_bw, (Save("indices"),), ("padding_idx",)),
    Op("index_select", "IndexSelectBackward0", ("self",), _index_select_fwd, _index_select_bw,
       (Save("index"),), ("dim",)),
    Op("index_add", "IndexAddBackward0", ("self", "source"), _index_add_fwd, _index_add_bw,
       (Save("index", (1,)), Save("source", (1,))), ("alpha", "dim", "source_dim")),
    Op("masked_select", "MaskedSelectBackward0", ("self",), _masked_select_fwd,
       _masked_select_bw, (Save("mask"), Save("self"))),
    Op("masked_scatter", "MaskedScatterBackward0", ("self", "source"), _masked_scatter_fwd,
       _masked_scatter_bw, (Save("mask"),), ("source_sym_sizes",)),
    Op("masked_scatter_backward", "MaskedScatterBackwardBackward0", ("grad_output",),
       _masked_scatter_data_fwd, _masked_scatter_data_bw, (Save("mask"),)),
    Op("roll", "RollBackward0", ("self",), _roll_fwd,
       lambda c, g, D: (D.roll(g, shifts=tuple(-s for s in c.attrs["shifts"]),
                               dims=c.attrs["dims"]),), (), ("dims", "shifts")),
    Op("take", "TakeBackward0", ("self",), _take_fwd, _take_bw, (Save("index"), Save("self"))),
    Op("put", "PutBackward0", ("self", "source"), _put_fwd, _put_bw,
       (Save("index"), Save("source", (1,))), ("accumulate",)),
)
