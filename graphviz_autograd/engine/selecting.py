"""The user-facing selecting ops: ``index_select``, ``masked_select``, ``take``, ``roll`` and the
scatters ``index_add``, ``masked_scatter``, ``put`` (with their in-place forms), checked with
PyTorch's messages and recorded through the table (``ops_select``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtypes as dt
from . import messages as msg
from .autograd import apply, apply_inplace
from .functional import _check_broadcast, _dim, as_given
from .optable import TABLE
from .tensor import Tensor

__all__ = ["index_select", "masked_select", "take", "roll", "index_add", "masked_scatter", "put"]


def _name(t: Tensor) -> str:
    return msg.SCALAR_NAME.get(t._dtype.name, t._dtype.name)


def _shape_list(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _flat_bounds(index: Tensor, n: int) -> None:
    idx = index._data.reshape(-1)
    bad = idx[(idx < -n) | (idx >= n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of {n} "
                         "elements.")


# -- selecting -----------------------------------------------------------------------------------
def index_select(t: Tensor, dim: int, index: Tensor) -> Tensor:
    if index._dtype not in (dt.int64, dt.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = _dim(dim, t._data.ndim)
    idx = index._data.reshape(-1)
    if t._data.ndim == 0 and idx.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{idx.size} value(s)")
    size = t._data.shape[d] if t._data.ndim else 1
    bad = idx[(idx < 0) | (idx >= size)]
    if bad.size:
        if d == 0:
            raise IndexError("index out of range in self")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(bad[0])} "
                           f"axis_dim={size}")
    return as_given(apply(TABLE["index_select"], (t,), {"dim": d, "index": index}), dim=dim)


def masked_select(t: Tensor, mask: Tensor) -> Tensor:
    if mask._dtype is not dt.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    _check_broadcast(mask, t)
    return apply(TABLE["masked_select"], (t,), {"mask": mask})


def take(t: Tensor, index: Tensor) -> Tensor:
    if index._dtype is not dt.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_name(index)}")
    _flat_bounds(index, t._data.size)
    return apply(TABLE["take"], (t,), {"index": index})


def _int_tuple(v: Any, what: str) -> tuple[int, ...]:
    if isinstance(v, Tensor):
        v = v.tolist()
    seq = v if isinstance(v, list | tuple) else [v]
    for x in seq:
        if isinstance(x, bool) or not isinstance(x, int | np.integer | Tensor):
            raise TypeError(f"roll(): argument '{what}' (position {1 if what == 'shifts' else 2})"
                            f" must be tuple of ints, not {type(x).__name__}")
    return tuple(int(x) for x in seq)


def roll(t: Tensor, shifts: Any, dims: Any = ()) -> Tensor:
    sh = _int_tuple(shifts, "shifts")
    ds = _int_tuple(dims if dims is not None else (), "dims")
    if not sh:
        raise RuntimeError("`shifts` required")
    if (ds or len(sh) != 1) and len(sh) != len(ds):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, "
                           f"dims:{len(ds)}")
    if ds and not t._data.ndim:
        raise IndexError(f"Dimension specified as {ds[0]} but tensor has no dimensions")
    given = ds
    ds = tuple(_dim(d, t._data.ndim) for d in ds)
    return as_given(apply(TABLE["roll"], (t,), {"shifts": sh, "dims": ds}), dims=given)


# -- scattering ----------------------------------------------------------------------------------
def _index_add_args(t: Tensor, dim: int, index: Tensor, source: Tensor,
                    alpha: Any) -> dict[str, Any]:
    if index._dtype not in (dt.int64, dt.int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{_name(index)}")
    if index._data.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: "
                         f"{index._data.ndim} with type: {_name(index)} and size: "
                         f"{_shape_list(index._data.shape)}")
    if source._dtype is not t._dtype:
        raise RuntimeError(f"index_add_(): self ({_name(t)}) and source ({_name(source)}) must "
                           "have the same scalar type")
    d = _dim(dim, t._data.ndim)
    n = index._data.size
    along = source._data.shape[d] if source._data.ndim else 1
    if n != along:
        raise RuntimeError(f"index_add_(): Number of indices ({n}) should be equal to "
                           f"source.size(dim): ({along}), for dim: {d}")
    size = t._data.shape[d] if t._data.ndim else 1
    idx = index._data.reshape(-1)
    bad = idx[(idx < 0) | (idx >= size)]
    if bad.size:
        raise RuntimeError(f"index {int(bad[0])} is out of bounds for dimension {d} with size "
                           f"{size}")
    kw: dict[str, Any] = {"dim": d, "index": index, "source_dim": source._data.ndim}
    if alpha != 1:
        kw["alpha"] = alpha
    return kw


def index_add(t: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Any = 1) -> Tensor:
    kw = _index_add_args(t, dim, index, source, alpha)
    return apply(TABLE["index_add"], (t, source), kw, dtype=t._dtype)


def index_add_(t: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Any = 1) -> Tensor:
    return apply_inplace(TABLE["index_add"], t, (source,),
                         _index_add_args(t, dim, index, source, alpha))


def _masked_scatter_args(t: Tensor, mask: Tensor, source: Tensor) -> dict[str, Any]:
    if mask._dtype is not dt.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_name(mask)}")
    if source._dtype is not t._dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{_name(t)} and {_name(source)}")
    _check_broadcast(t, mask)
    if int(np.count_nonzero(np.broadcast_to(mask._data, np.broadcast_shapes(
            t._data.shape, mask._data.shape)))) > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return {"mask": mask, "source_sym_sizes": tuple(source._data.shape)}


def masked_scatter(t: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    kw = _masked_scatter_args(t, mask, source)
    return apply(TABLE["masked_scatter"], (t, source), kw, dtype=t._dtype)


def masked_scatter_(t: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    kw = _masked_scatter_args(t, mask, source)
    if np.broadcast_shapes(t._data.shape, mask._data.shape) != t._data.shape:
        raise RuntimeError(f"The expanded size of the tensor ({t._data.shape[-1]}) must match "
                           f"the existing size ({mask._data.shape[-1]})")
    return apply_inplace(TABLE["masked_scatter"], t, (source,), kw)


def _put_args(t: Tensor, index: Tensor, source: Tensor, accumulate: bool) -> dict[str, Any]:
    if index._dtype is not dt.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_name(index)}")
    if source._dtype is not t._dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_name(t)} and source.dtype = {_name(source)}")
    if source._data.size != index._data.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source._data.size}, "
                         f"index.numel() = {index._data.size}")
    _flat_bounds(index, t._data.size)
    return {"index": index, "accumulate": bool(accumulate)}


def put(t: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    kw = _put_args(t, index, source, accumulate)
    return apply(TABLE["put"], (t, source), kw, dtype=t._dtype)


def put_(t: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    return apply_inplace(TABLE["put"], t, (source,), _put_args(t, index, source, accumulate))


METHODS: dict[str, Any] = {
    "index_select": index_select, "masked_select": masked_select, "take": take, "roll": roll,
    "index_add": index_add, "index_add_": index_add_, "masked_scatter": masked_scatter,
    "masked_scatter_": masked_scatter_, "put": put, "put_": put_,
}
