"""Sets and searches: ``unique`` (PyTorch's ``Unique2Backward0`` / ``UniqueDimBackward0`` /
``UniqueConsecutiveBackward0`` nodes, whose backward is not implemented, as in PyTorch),
``unique_consecutive``, ``searchsorted``, ``bucketize``, ``isin``, ``unravel_index``, ``histc``
and ``histogram``."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from . import dtypes as dt
from . import functional as F
from . import messages as msg
from .optable import Op, register
from .tensor import Tensor

__all__ = ["METHODS", "unique", "unique_consecutive", "searchsorted", "bucketize", "isin",
           "unravel_index", "histc", "histogram"]


def _not_implemented(name: str) -> Any:
    def backward(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
    return backward


def _picked(x: np.ndarray, index: np.ndarray) -> np.ndarray:
    return index


# NB: the values are computed before the node (numpy's unique); the forward only hands them on
register(
    Op("unique", "Unique2Backward0", ("self",), lambda x, values: values,
       _not_implemented("_unique2")),
    Op("unique_dim", "UniqueDimBackward0", ("self",), lambda x, values: values,
       _not_implemented("unique_dim")),
    Op("unique_consecutive", "UniqueConsecutiveBackward0", ("self",), lambda x, values: values,
       _not_implemented("unique_consecutive")),
)


def _long(a: Any) -> Tensor:
    return Tensor._make(np.asarray(a, dtype=np.int64), dt.int64)


def _node(key: str, t: Tensor, values: np.ndarray) -> Tensor:
    return F.apply(F._T[key], (t,), {"values": values}, dtype=t._dtype)


def _result(values: Tensor, inverse: Any, counts: Any, return_inverse: bool,
            return_counts: bool) -> Any:
    if not return_inverse and not return_counts:
        return values
    out: list[Tensor] = [values]
    if return_inverse:
        out.append(_long(inverse))
    if return_counts:
        out.append(_long(counts))
    return tuple(out)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct values (sorted; every NaN distinct), or the distinct slices along ``dim``.

    >>> from graphviz_autograd import torch
    >>> torch.unique(torch.tensor([3, 1, 3]), return_counts=True)
    (tensor([1, 3]), tensor([1, 2]))
    """
    arr = input._data
    if dim is None:
        values, inverse, found = np.unique(arr.reshape(-1), return_inverse=True,
                                           return_counts=True, equal_nan=False)
        return _result(_node("unique", input, values), inverse.reshape(arr.shape), found,
                       return_inverse, return_counts)
    d = F._dim(dim, arr.ndim)
    moved = np.moveaxis(arr, d, 0)
    rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
    order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(rows.shape[0])
    ordered = rows[order]
    starts = np.ones(len(order), dtype=bool)
    if len(order) > 1:
        starts[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    group = np.cumsum(starts) - 1
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = group
    counts: Any = np.bincount(group, minlength=int(starts.sum())) if len(order) else []
    values = np.moveaxis(moved[order[starts]], 0, d)
    return _result(_node("unique_dim", input, np.ascontiguousarray(values)), inverse, counts,
                   return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """Each run of equal values (or slices along ``dim``) kept once.

    >>> from graphviz_autograd import torch
    >>> torch.unique_consecutive(torch.tensor([1, 1, 2, 1]))
    tensor([1, 2, 1])
    """
    arr = input._data
    if dim is None:
        flat = arr.reshape(-1)
        rows, axis, shape = flat.reshape(-1, 1), 0, arr.shape
    else:
        axis = F._dim(dim, arr.ndim)
        moved = np.moveaxis(arr, axis, 0)
        rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
        shape = (moved.shape[0],)
    starts = np.ones(rows.shape[0], dtype=bool)
    if rows.shape[0] > 1:
        starts[1:] = np.any(rows[1:] != rows[:-1], axis=1)
    group = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), rows.shape[0]))
    if dim is None:
        values = flat[starts]
    else:
        values = np.ascontiguousarray(np.moveaxis(np.moveaxis(arr, axis, 0)[starts], 0, axis))
    return _result(_node("unique_consecutive", input, values), group.reshape(shape), counts,
                   return_inverse, return_counts)


def _bound(seq: np.ndarray, values: np.ndarray, right: bool) -> np.ndarray:
    """PyTorch's binary search, row by row: move right while ``!(mid >= value)`` (``!(mid >
    value)`` for the right side), so NaNs fall where PyTorch's comparisons put them."""
    n = seq.shape[1]
    start = np.zeros(values.shape, dtype=np.int64)
    end = np.full(values.shape, n, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        while True:
            active = start < end
            if not active.any():
                return start
            mid = (start + end) >> 1
            mid_val = np.take_along_axis(seq, np.minimum(mid, max(n - 1, 0)), axis=1) if n \
                else np.zeros(values.shape, seq.dtype)
            go_right = ~(mid_val > values) if right else ~(mid_val >= values)
            start = np.where(active & go_right, mid + 1, start)
            end = np.where(active & ~go_right, mid, end)


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: Any = None) -> Tensor:
    """Where each value would go in the last dim of ``sorted_sequence`` to keep it sorted.

    >>> from graphviz_autograd import torch
    >>> torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([3, 4]))
    tensor([1, 2])
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if (side == "left") == right and right:
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               f"got side of {side} while right was {right}")
        right = side == "right"
    seq = sorted_sequence._data
    scalar = not isinstance(input, Tensor)
    values = np.asarray(input) if scalar else input._data
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data, axis=-1)
    if seq.ndim > 1 and seq.shape[:-1] != values.shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor "
                           "must match, but we got boundaries tensor "
                           f"[{', '.join(map(str, seq.shape))}] and input value tensor "
                           f"[{', '.join(map(str, values.shape))}]")
    if seq.ndim <= 1:
        out = _bound(seq.reshape(1, -1), values.reshape(1, -1), right).reshape(values.shape)
    else:
        out = _bound(seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1]),
                     right).reshape(values.shape)
    d = dt.int32 if out_int32 else dt.int64
    return Tensor._make(np.asarray(out, dtype=d.np), d)


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False,
              right: bool = False) -> Tensor:
    """The bucket of each value among 1-D ``boundaries`` (``searchsorted`` the other way round).

    >>> from graphviz_autograd import torch
    >>> torch.bucketize(torch.tensor([3, 6]), torch.tensor([1, 3, 5]))
    tensor([1, 3])
    """
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got "
                           f"dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:
    """Whether each element is among ``test_elements`` (either may be a number).

    >>> from graphviz_autograd import torch
    >>> torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 5]))
    tensor([False,  True, False])
    """
    a = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    b = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return Tensor._make(np.asarray(np.isin(a, b, invert=invert)), dt.bool_)


def unravel_index(indices: Tensor, shape: Any) -> tuple[Tensor, ...]:
    """Flat indices as one index tensor per dim of ``shape`` (negative ones from the end).

    >>> from graphviz_autograd import torch
    >>> torch.unravel_index(torch.tensor([4, 5]), (2, 3))
    (tensor([1, 1]), tensor([1, 2]))
    """
    if not isinstance(indices, Tensor):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices._dtype.is_floating_point or indices._dtype is dt.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices._dtype}")
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(n < 0 for n in dims):
        raise ValueError("'shape' cannot have negative values, but got "
                         f"{tuple(dims)}")
    rest = indices._data.astype(np.int64)
    out = []
    # NB: no range check: PyTorch's arithmetic wraps an index out of range, as floor division
    for n in reversed(dims):
        out.append(rest % n if n else rest)
        rest = rest // n if n else rest
    return tuple(_long(a) for a in reversed(out))


def _bounds(arr: np.ndarray, low: float, high: float) -> tuple[Any, Any]:
    if low == high and arr.size:
        low, high = arr.min(), arr.max()
    if low == high:
        low, high = low - 1, high + 1
    return arr.dtype.type(low), arr.dtype.type(high)


def _check_float(t: Tensor) -> None:
    if not t._dtype.is_floating_point:
        raise NotImplementedError('"histogram_cpu" not implemented for '
                                  f"'{msg.SCALAR_NAME.get(t._dtype.name, t._dtype.name)}'")


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """Counts in ``bins`` equal bins over [min, max] (the data's range when both are 0);
    values outside are left out.

    >>> from graphviz_autograd import torch
    >>> torch.histc(torch.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    _check_float(input)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    arr = input._data.reshape(-1)
    low, high = _bounds(arr, min, max)
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{float(low):g}, {float(high):g}] is not "
                           "finite")
    inside = arr[(arr >= low) & (arr <= high)]
    pos = ((inside - low) * arr.dtype.type(bins) / (high - low)).astype(np.int64)
    pos[inside == high] = bins - 1
    counts = np.bincount(np.clip(pos, 0, bins - 1), minlength=bins).astype(arr.dtype)
    return Tensor._make(counts, input._dtype)


def _histogram_range(arr: np.ndarray, given: Any) -> tuple[Any, Any]:
    """The outer edges: ``range``, else the data's; widened by 0.5 each way where equal."""
    if given is not None:
        low, high = arr.dtype.type(given[0]), arr.dtype.type(given[1])
        if low > high:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                               f"{given[0]:g} max {given[1]:g} for dimension 0")
    elif arr.size:
        low, high = arr.min(), arr.max()
    else:
        low, high = arr.dtype.type(0), arr.dtype.type(0)
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension 0's range [{float(low):g}, "
                           f"{float(high):g}] is not finite")
    if low == high:
        low, high = low - arr.dtype.type(0.5), high + arr.dtype.type(0.5)
    return low, high


def _linspace(low: Any, high: Any, steps: int) -> np.ndarray:
    """PyTorch's scalar ``linspace`` kernel in the bounds' type: the first half from ``low``, the
    rest back from ``high``, each a fused multiply-add (one rounding, as its compiled loop)."""
    t = type(low)
    step = (high - low) / t(steps - 1)
    half = steps // 2
    # NB: a float32 product by a small integer and a float32 sum are exact in double
    return np.array([float(low) + float(step) * i if i < half
                     else float(high) - float(step) * (steps - i - 1) for i in range(steps)]
                    ).astype(t)


_HistogramBase = namedtuple("histogram", "hist bin_edges")  # type: ignore[name-match]


class Histogram(_HistogramBase):
    __slots__ = ()
    __module__ = "torch.return_types"

    def __repr__(self) -> str:
        return f"torch.return_types.histogram(\nhist={self.hist!r},\nbin_edges={self.bin_edges!r})"

    __str__ = __repr__


def histogram(input: Tensor, bins: Any = 100, *, range: Any = None, weight: Any = None,
              density: bool = False) -> Any:
    """Counts (or summed weights) per bin, and the bin edges.

    >>> from graphviz_autograd import torch
    >>> torch.histogram(torch.tensor([1.0, 2.0, 1.0]), bins=2).hist
    tensor([2., 1.])
    """
    _check_float(input)
    arr = input._data.reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins._data.astype(arr.dtype)
    else:
        low, high = _histogram_range(arr, range)
        edges = _linspace(low, high, bins + 1)
    n = len(edges) - 1
    inside = (arr >= edges[0]) & (arr <= edges[-1])
    pos = np.searchsorted(edges, arr[inside], side="right") - 1
    pos = np.clip(pos, 0, n - 1)
    w = None if weight is None else weight._data.reshape(-1)[inside]
    hist = np.bincount(pos, weights=w, minlength=n).astype(arr.dtype)
    if density:
        # NB: two divisions, each rounded, as PyTorch's
        hist = (hist / hist.sum()).astype(arr.dtype) / np.diff(edges)
    return Histogram(Tensor._make(hist, input._dtype), Tensor._make(edges, input._dtype))


METHODS: dict[str, Any] = {
    "unique": unique, "unique_consecutive": unique_consecutive, "histc": histc,
    "histogram": histogram,
}
