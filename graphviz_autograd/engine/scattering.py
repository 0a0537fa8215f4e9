"""The user-facing scatters along a dim (``scatter``, ``scatter_add``, ``index_copy``, with their
in-place forms) and the composites ``take_along_dim`` and ``repeat_interleave``, decomposed as
PyTorch decomposes them (expand then gather; unsqueeze, expand, clone, view)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as dt
from . import messages as msg
from .autograd import apply, apply_inplace, check_inplace, wrap
from .functional import _dim, as_given, clone, expand, flatten, gather, unsqueeze, view
from .optable import TABLE
from .selecting import index_select
from .tensor import Tensor

__all__ = ["scatter", "scatter_", "scatter_add", "scatter_add_", "index_copy", "index_copy_",
           "take_along_dim", "repeat_interleave"]


def _name(t: Tensor) -> str:
    return msg.SCALAR_NAME.get(t._dtype.name, t._dtype.name)


def _shape(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _scatter_args(t: Tensor, dim: int, index: Tensor, src: Tensor | None
                  ) -> dict[str, Any]:
    if index._dtype not in (dt.int64, dt.int32):
        # NB: PyTorch names scatter in these two messages for scatter_add too
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if src is not None and src._dtype is not t._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    d = _dim(dim, t._data.ndim)
    shape, ishape = t._data.shape or (1,), index._data.shape
    if len(ishape or (1,)) != len(shape) and not (t._data.ndim <= 1 and index._data.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if index._data.ndim and t._data.ndim:
        sshape = src._data.shape if src is not None else None
        for k, n in enumerate(ishape):
            if (k != d and n > shape[k]) or (sshape is not None and n > sshape[k]):
                text = (f"Expected index {_shape(ishape)} to be no larger than self "
                        f"{_shape(t._data.shape)} apart from dimension {d}")
                if sshape is not None:
                    text += f" and to be no larger size than src {_shape(sshape)}"
                raise RuntimeError(text)
    idx = index._data
    bad = idx[(idx < 0) | (idx >= shape[d])]
    if bad.size:
        raise RuntimeError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} with "
                           f"size {shape[d]}")
    return {"dim": d, "index": index}


def _scatter_src(src: Any, value: Any) -> Any:
    if src is None:
        return value
    return src


def scatter(t: Tensor, dim: int, index: Tensor, src: Any = None, value: Any = None, *,
            reduce: str | None = None) -> Tensor:
    v = _scatter_src(src, value)
    if reduce is not None:
        from .reducing_extra import scatter_with_reduce
        return as_given(scatter_with_reduce(t, dim, index, v, reduce, False), dim=dim)
    if isinstance(v, Tensor):
        kw = _scatter_args(t, dim, index, v)
        return as_given(apply(TABLE["scatter"], (t, v), kw, dtype=t._dtype), dim=dim)
    kw = _scatter_args(t, dim, index, None)
    return as_given(apply(TABLE["scatter_value"], (t,), {**kw, "value": v}, dtype=t._dtype),
                    dim=dim)


def scatter_(t: Tensor, dim: int, index: Tensor, src: Any = None, value: Any = None, *,
             reduce: str | None = None) -> Tensor:
    v = _scatter_src(src, value)
    check_inplace(t, (v,) if isinstance(v, Tensor) else ())
    if reduce is not None:
        from .reducing_extra import scatter_with_reduce
        return as_given(scatter_with_reduce(t, dim, index, v, reduce, True), dim=dim)
    if isinstance(v, Tensor):
        kw = _scatter_args(t, dim, index, v)
        return as_given(apply_inplace(TABLE["scatter"], t, (v,), kw), dim=dim)
    kw = _scatter_args(t, dim, index, None)
    return as_given(apply_inplace(TABLE["scatter_value"], t, (), {**kw, "value": v}), dim=dim)


def scatter_add(t: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    kw = _scatter_args(t, dim, index, src)
    return as_given(apply(TABLE["scatter_add"], (t, src), kw, dtype=t._dtype), dim=dim)


def scatter_add_(t: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    check_inplace(t, (src,))
    kw = _scatter_args(t, dim, index, src)
    return as_given(apply_inplace(TABLE["scatter_add"], t, (src,), kw), dim=dim)


def _index_copy_args(t: Tensor, dim: int, index: Tensor, source: Tensor) -> dict[str, Any]:
    if index._dtype is not dt.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{_name(index)}")
    if index._data.ndim > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got "
                         f"{index._data.ndim})")
    if source._dtype is not t._dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {_name(t)} and (source) {_name(source)}")
    d = _dim(dim, t._data.ndim)
    n = index._data.size
    along = source._data.shape[d] if source._data.ndim else 1
    if n != along:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to "
                         f"source.size(dim) ({along})")
    size = t._data.shape[d] if t._data.ndim else 1
    idx = index._data.reshape(-1)
    bad = idx[(idx < 0) | (idx >= size)]
    if bad.size:
        raise IndexError(f"index_copy_(): index {int(bad[0])} is out of bounds for dimension "
                         f"{d} with size {size}")
    return {"dim": d, "index": index, "source_dim": source._data.ndim}


def index_copy(t: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    kw = _index_copy_args(t, dim, index, source)
    return as_given(apply(TABLE["index_copy"], (t, source), kw, dtype=t._dtype), dim=dim)


def index_copy_(t: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    check_inplace(t, (source,))
    kw = _index_copy_args(t, dim, index, source)
    return as_given(apply_inplace(TABLE["index_copy"], t, (source,), kw), dim=dim)


def take_along_dim(t: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    if indices._dtype is not dt.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_name(indices)}")
    if dim is None:
        # NB: PyTorch: self.view(-1).gather(0, indices.view(-1))
        # (views: an input that cannot be viewed so, as a broadcast one, raises there)
        return gather(view(t, (-1,)), 0, view(indices, (-1,)))
    if t._data.ndim != indices._data.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {t._data.ndim} dimensions for "
                           f"input, and {indices._data.ndim} dimensions for indices")
    d = _dim(dim, t._data.ndim)
    sizes = list(t._data.shape)
    sizes[d] = indices._data.shape[d]
    full = list(np.broadcast_shapes(tuple(sizes), indices._data.shape))
    idx = wrap(np.ascontiguousarray(np.broadcast_to(indices._data, tuple(full))))
    full[d] = t._data.shape[d] if t._data.ndim else 1
    # NB: PyTorch broadcasts the input with expand, a node even where the shape is kept
    return gather(expand(t, tuple(full)), d, idx)


def repeat_interleave(t: Tensor, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    if repeats is None:
        # NB: torch.repeat_interleave(repeats): each position repeated its own number of times
        counts = t._data.reshape(-1)
        return wrap(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
    x = flatten(t) if dim is None else t
    d = 0 if dim is None else _dim(dim, t._data.ndim)
    n = x._data.shape[d] if x._data.ndim else 1
    if isinstance(repeats, Tensor):
        reps = repeats._data.reshape(-1)
        if repeats._data.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if reps.size == 1:
            reps = np.repeat(reps, n)
        elif reps.size != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {reps.size} and input.size({d}) = {n}")
        if (reps < 0).any():
            raise RuntimeError("repeats can not be negative")
        index = wrap(np.repeat(np.arange(n, dtype=np.int64), reps))
        return index_select(x, d, index)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(x._data.shape)
    wide = unsqueeze(x, d + 1)
    size = list(wide._data.shape)
    size[d + 1] = repeats
    out = clone(expand(wide, tuple(size)), contiguous=True)
    shape[d] *= repeats
    return view(out, tuple(shape))


METHODS: dict[str, Any] = {
    "scatter": scatter, "scatter_": scatter_, "scatter_add": scatter_add,
    "scatter_add_": scatter_add_, "index_copy": index_copy, "index_copy_": index_copy_,
    "take_along_dim": take_along_dim, "repeat_interleave": repeat_interleave,
}
