"""``torch.histogramdd``: counts (or summed weights) over a grid of bins, one axis per column of
the input's innermost dimension, and each axis's edges. Nothing is differentiable: an input or
weight that requires grad gets PyTorch's ``torch::autograd::NotImplemented`` nodes (one over
the edges, one over the counts), whose edges are the inputs that require grad."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import messages as msg
from .autograd import apply
from .forward_ad import NO_FORWARD, tangent_of
from .grad_mode import state as grad_state
from .ops_pointwise import _not_implemented
from .optable import TABLE, Op, register
from .searching import _linspace
from .tensor import Tensor

__all__ = ["histogramdd", "HistogramDD"]


def _given(*arrays: Any, value: Any) -> Any:
    return value


# NB: PyTorch's nodes lead only to the inputs that require grad: one op per count of them
register(*[Op(f"histogramdd_counts:{n}", "torch::autograd::NotImplemented",
              ("self", "weight")[:n], _given, _not_implemented("_histogramdd_from_bin_cts"))
           for n in (1, 2)],
         *[Op(f"histogramdd_edges:{n}:{k}", "torch::autograd::NotImplemented",
              ("self", "weight")[:n], _given, _not_implemented("_histogramdd_bin_edges"),
              n_outputs=k) for n in (1, 2) for k in (1, 2)])


NO_FORWARD.update({f"histogramdd_edges:{n}:{k}": "aten::_histogramdd_bin_edges"
                   for n in (1, 2) for k in (1, 2)})
NO_FORWARD.update({f"histogramdd_counts:{n}": "aten::_histogramdd_from_bin_cts" for n in (1, 2)})


class HistogramDD(tuple):
    """``torch.return_types.histogramdd(hist, bin_edges)``."""

    __slots__ = ()
    __module__ = "torch.return_types"

    def __new__(cls, hist: Tensor, bin_edges: tuple[Tensor, ...]) -> HistogramDD:
        return super().__new__(cls, (hist, bin_edges))

    @property
    def hist(self) -> Tensor:
        return self[0]

    @property
    def bin_edges(self) -> tuple[Tensor, ...]:
        return self[1]

    def __repr__(self) -> str:
        return (f"torch.return_types.histogramdd(\nhist={self.hist!r},\n"
                f"bin_edges={self.bin_edges!r})")

    __str__ = __repr__


HistogramDD.__name__ = HistogramDD.__qualname__ = "histogramdd"


def _ranges(points: np.ndarray, range: Any, d: int) -> list[tuple[Any, Any]]:
    t = points.dtype.type
    if range is not None:
        if len(range) != 2 * d:
            raise RuntimeError(f"torch.histogramdd: for a {d}-dimensional histogram range "
                               f"should have {2 * d} elements, but got {len(range)}")
        pairs = [(t(range[2 * i]), t(range[2 * i + 1])) for i in builtin_range(d)]
        for i, (low, high) in enumerate(pairs):
            if low > high:
                raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                                   f"{range[2 * i]:g} max {range[2 * i + 1]:g} for dimension {i}")
    elif points.shape[0]:
        pairs = [(points[:, i].min(), points[:, i].max()) for i in builtin_range(d)]
    else:
        pairs = [(t(0), t(1))] * d
    out = []
    for i, (low, high) in enumerate(pairs):
        if not (np.isfinite(low) and np.isfinite(high)):
            raise RuntimeError(f"torch.histogramdd: dimension {i}'s range [{float(low):g}, "
                               f"{float(high):g}] is not finite")
        if low == high:
            low, high = low - t(0.5), high + t(0.5)
        out.append((low, high))
    return out


builtin_range = range


def _edges(points: np.ndarray, bins: Any, range: Any, d: int) -> list[np.ndarray]:
    if isinstance(bins, Tensor) or (isinstance(bins, list | tuple) and bins
                                     and isinstance(bins[0], Tensor)):
        given = [bins] if isinstance(bins, Tensor) else list(bins)
        if len(given) != d:
            raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                               "dimension of the input.")
        for i, b in enumerate(given):
            if b._data.ndim != 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, "
                                   f"but got {b._data.ndim} dimensions in the bins tensor for "
                                   f"dimension {i}")
        return [b._data.astype(points.dtype) for b in given]
    counts = [int(bins)] * d if isinstance(bins, int) else [int(b) for b in bins]
    if len(counts) != d:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    for i, n in enumerate(counts):
        if n <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {n} for "
                               f"dimension {i}")
    return [_linspace(low, high, n + 1)
            for (low, high), n in zip(_ranges(points, range, d), counts, strict=True)]


def histogramdd(input: Tensor, bins: Any = 10, *, range: Any = None, weight: Any = None,
                density: bool = False) -> HistogramDD:
    """A ``D``-dimensional histogram of the rows of ``input`` (``[..., D]``).

    >>> from graphviz_autograd import torch
    >>> torch.histogramdd(torch.tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]), bins=2).hist
    tensor([[0., 1.],
            [1., 1.]])
    """
    if not input._dtype.is_floating_point:
        raise NotImplementedError('"histogramdd" not implemented for '
                                  f"'{msg.SCALAR_NAME.get(input._dtype.name, input._dtype.name)}'")
    if input._data.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    d = input._data.shape[-1]
    points = input._data.reshape(-1, d)
    if weight is not None and tuple(weight.shape) != tuple(input._data.shape[:-1]):
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the "
                           "same shape as the input tensor excluding its innermost dimension, "
                           f"but got input with shape {list(input._data.shape)} and weight with "
                           f"shape {list(weight.shape)}")
    edges = _edges(points, bins, range, d)
    inside = np.ones(points.shape[0], bool)
    index = np.zeros(points.shape[0], np.int64)
    for i, e in enumerate(edges):
        col = points[:, i]
        n = len(e) - 1
        inside &= (col >= e[0]) & (col <= e[-1])
        pos = np.clip(np.searchsorted(e, col, side="right") - 1, 0, max(n - 1, 0))
        index = index * max(n, 1) + pos
    shape = tuple(max(len(e) - 1, 0) for e in edges)
    w = None if weight is None else weight._data.reshape(-1)[inside]
    size = int(np.prod(shape))
    flat = np.bincount(index[inside], weights=w, minlength=size)[:size] if size else np.zeros(0)
    hist = flat.astype(points.dtype).reshape(shape)
    if density:
        # NB: normalised first, then divided by each axis's bin widths, each rounded
        hist = (hist / hist.sum()).astype(points.dtype)
        for i, e in enumerate(edges):
            widths = np.diff(e).reshape([-1 if j == i else 1 for j in builtin_range(d)])
            hist = (hist / widths).astype(points.dtype)
    return _recorded(input, weight, np.ascontiguousarray(hist), edges)


def _tracked(t: Tensor | None) -> bool:
    if t is None:
        return False
    if t.requires_grad and grad_state.enabled:
        return True
    return bool(grad_state.dual) and tangent_of(t) is not None


def _recorded(input: Tensor, weight: Tensor | None, hist: np.ndarray,
              edges: list[np.ndarray]) -> HistogramDD:
    inputs = [t for t in (input, weight) if _tracked(t)]
    if not inputs:
        return HistogramDD(Tensor._make(hist, input._dtype),
                           tuple(Tensor._make(e, input._dtype) for e in edges))
    n = len(inputs)
    if len(edges) == 1:
        edge_out = (apply(TABLE[f"histogramdd_edges:{n}:1"], inputs, {"value": edges[0]},
                          dtype=input._dtype),)
    else:
        edge_out = tuple(apply(TABLE[f"histogramdd_edges:{n}:2"], inputs, {"value": edges},
                               dtype=input._dtype))
    counts = apply(TABLE[f"histogramdd_counts:{n}"], inputs, {"value": hist}, dtype=input._dtype)
    return HistogramDD(counts, edge_out)


