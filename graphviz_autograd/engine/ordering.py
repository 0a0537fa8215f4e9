"""The user-facing ordering ops (``sort``, ``argsort``, ``msort``, ``topk``, ``kthvalue``,
``mode``, ``amin``), cumulative ops (``cumprod``, ``cummax``, ``cummin``, ``logcumsumexp``,
``diff``), triangles and diagonals (``triu``, ``tril``, ``diagonal``, ``diag``, ``diag_embed``,
``trace``) and ``index_fill``, checked with PyTorch's messages and recorded through the table
(``ops_order``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as dt
from . import messages as msg
from .autocast import fp32 as _amp_fp32
from .autocast import state as _amp
from .autograd import apply, apply_inplace, check_inplace, wrap
from .functional import _dim, as_given, given_dims, narrow, reduce_dims, sub
from .ops_order import argsort as _np_argsort
from .optable import TABLE
from .tensor import Tensor
from .torch_types import RETURN_TYPES

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "mode", "amin", "cumprod", "cummax",
           "cummin", "logcumsumexp", "diff", "triu", "tril", "diagonal", "diag", "diag_embed",
           "trace", "index_fill"]


def _scalar_name(t: Tensor) -> str:
    return msg.SCALAR_NAME.get(t._dtype.name, t._dtype.name)


def _values_indices(key: str, t: Tensor, kw: dict[str, Any], **given: Any) -> Any:
    """``torch.return_types.<name>(values, indices)`` of a table op whose node saves the
    indices it returns (the very tensor, as PyTorch's saved output)."""
    op = TABLE[key]
    values = as_given(apply(op, (t,), kw, dtype=t._dtype), **given)
    fn = values._grad_fn
    slot = fn._saved.get("indices") if fn is not None and fn._saved else None
    if slot is not None and slot.tensor is not None:
        idx = slot.tensor
    else:       # NB: no node, or a saved-tensor hook keeps the indices: computed again
        plain = {k: v for k, v in kw.items() if not k.startswith("@")}    # NB: not as_given's
        idx = wrap(op.forward(t._data, **plain)[1]["indices"])
    return RETURN_TYPES[key.split("_")[0]](values, idx)


def _size(t: Tensor, d: int) -> int:
    return t._data.shape[d] if t._data.ndim else 1


# -- ordering --------------------------------------------------------------------------------------
def sort(t: Tensor, dim: int = -1, descending: bool = False, *, stable: bool | None = None
         ) -> Any:
    d = _dim(dim, t._data.ndim)
    key = "sort" if stable is None else "sort_stable"
    return _values_indices(key, t, {"dim": d, "descending": bool(descending),
                                    "stable": bool(stable)}, dim=dim)


def argsort(t: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False
            ) -> Tensor:
    d = _dim(dim, t._data.ndim)
    x = t._data.reshape(1) if t._data.ndim == 0 else t._data
    idx = _np_argsort(x, d, descending).astype(np.int64)
    return wrap(idx.reshape(t._data.shape))


def msort(t: Tensor) -> Tensor:
    return sort(t, 0).values


def topk(t: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    d = _dim(dim, t._data.ndim)
    if not 0 <= k <= _size(t, d):
        raise RuntimeError("selected index k out of range")
    return _values_indices("topk", t, {"k": int(k), "dim": d, "largest": bool(largest),
                                       "sorted": bool(sorted)}, dim=dim)


def kthvalue(t: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    d = _dim(dim, t._data.ndim)
    if not 1 <= k <= _size(t, d):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return _values_indices("kthvalue", t, {"k": int(k), "dim": d, "keepdim": bool(keepdim)},
                           dim=dim)


def mode(t: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    d = _dim(dim, t._data.ndim)
    if t._data.ndim and t._data.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return _values_indices("mode", t, {"dim": d, "keepdim": bool(keepdim)}, dim=dim)


def amin(t: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    dims = reduce_dims(dim, t._data.ndim)
    shape = t._data.shape
    if t._data.size == 0:
        if not dims:
            raise RuntimeError("amin(): Expected reduction dim to be specified for input.numel() "
                               "== 0. Specify the reduction dim with the 'dim' argument.")
        given = (dim,) if isinstance(dim, int) else tuple(dim)
        for raw, d in zip(given, dims, strict=True):
            if shape and shape[d] == 0:
                raise IndexError(f"amin(): Expected reduction dim {raw} to have non-zero size.")
    return as_given(apply(TABLE["amin"], (t,), {"dim": dims, "keepdim": keepdim}),
                    dim=given_dims(dim))


# -- cumulative ops --------------------------------------------------------------------------------
def cumprod(t: Tensor, dim: int, dtype: Any = None) -> Tensor:
    if dtype is not None:
        t = t.to(dtype)
    out = t._dtype if t._dtype.is_floating_point else dt.int64
    return as_given(apply(TABLE["cumprod"], (t,), {"dim": _dim(dim, t._data.ndim)}, dtype=out),
                    dim=dim)


def cumprod_(t: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return apply_inplace(TABLE["cumprod"], t, (), {"dim": _dim(dim, t._data.ndim)})


def cumsum_(t: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return apply_inplace(TABLE["cumsum"], t, (), {"dim": _dim(dim, t._data.ndim)})


def _cummaxmin(key: str) -> Any:
    def f(t: Tensor, dim: int) -> Any:
        return _values_indices(key, t, {"dim": _dim(dim, t._data.ndim)}, dim=dim)
    f.__name__ = key
    return f


cummax = _cummaxmin("cummax")
cummin = _cummaxmin("cummin")


def logcumsumexp(t: Tensor, dim: int) -> Tensor:
    if not t._dtype.is_floating_point:
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for '
                                  f"'{_scalar_name(t)}'")
    return as_given(apply(TABLE["logcumsumexp"], (t,), {"dim": _dim(dim, t._data.ndim)},
                          dtype=t._dtype), dim=dim)


def diff(t: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    from .functional import cat
    if t._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if prepend is not None or append is not None:
        t = cat([x for x in (prepend, t, append) if x is not None], dim)
    if n == 0:
        # NB: PyTorch copies the input into a new tensor (CopyBackwards)
        from .indexing import copy_
        return copy_(Tensor._make(np.empty_like(t._data), t._dtype), t)
    d = _dim(dim, t._data.ndim)
    length = t._data.shape[d] - 1
    out = t
    for _ in range(min(n, t._data.shape[d])):
        if t._dtype is dt.bool_:
            a, b = narrow(out, dim, 1, length), narrow(out, dim, 0, length)
            out = Tensor._make(np.logical_xor(a._data, b._data), dt.bool_)
        else:
            # NB: PyTorch's C++ makes the second operand's slice first (its argument order)
            before = narrow(out, dim, 0, length)
            out = sub(narrow(out, dim, 1, length), before)
        length -= 1
    return out


# -- triangles and diagonals -----------------------------------------------------------------------
def _triangle(key: str, inplace: bool) -> Any:
    def f(t: Tensor, diagonal: int = 0) -> Tensor:
        if inplace:
            check_inplace(t)            # NB: PyTorch's autograd checks come first
        if t._data.ndim < 2:
            raise RuntimeError(f"{key}: input tensor must have at least 2 dimensions")
        if inplace:
            return apply_inplace(TABLE[key], t, (), {"diagonal": int(diagonal)})
        return apply(TABLE[key], (t,), {"diagonal": int(diagonal)}, dtype=t._dtype)
    f.__name__ = key + ("_" if inplace else "")
    return f


triu, tril = _triangle("triu", False), _triangle("tril", False)
triu_, tril_ = _triangle("triu", True), _triangle("tril", True)


def _diagonal_dims(t: Tensor, dim1: int, dim2: int) -> tuple[int, int]:
    d1, d2 = _dim(dim1, t._data.ndim), _dim(dim2, t._data.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(t: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    d1, d2 = _diagonal_dims(t, dim1, dim2)
    return as_given(apply(TABLE["diagonal"], (t,), {"offset": int(offset), "dim1": d1,
                                                    "dim2": d2}), dim1=dim1, dim2=dim2)


def diag_embed(t: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    n = t._data.ndim + 1
    d1, d2 = _dim(dim1, n), _dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return as_given(apply(TABLE["diag_embed"], (t,), {"offset": int(offset), "dim1": d1,
                                                      "dim2": d2}, dtype=t._dtype),
                    dim1=dim1, dim2=dim2)


def diag(t: Tensor, diagonal: int = 0) -> Tensor:
    if t._data.ndim == 1:
        return diag_embed(t, diagonal)
    if t._data.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {t._data.ndim}D")
    return apply(TABLE["diagonal_copy"], (t,), {"offset": int(diagonal), "dim1": 0, "dim2": 1},
                 dtype=t._dtype)


def trace(t: Tensor) -> Tensor:
    if _amp.dtype is not None:
        return _amp_fp32(trace, t)
    if t._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {t._data.ndim}")
    out = t._dtype if t._dtype.is_floating_point else dt.int64
    return apply(TABLE["trace"], (t,), dtype=out)


# -- index_fill ------------------------------------------------------------------------------------
def _index_fill_args(t: Tensor, dim: int, index: Tensor, value: Any) -> dict[str, Any]:
    if index._dtype is not dt.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index._data.ndim > 1:
        raise IndexError("Index has to be a vector/scalar")
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    d = _dim(dim, t._data.ndim)
    size = _size(t, d)
    idx = index._data.reshape(-1)
    bad = idx[(idx < -size) | (idx >= size)]
    if bad.size:
        raise IndexError(f"index {int(bad[0])} is out of bounds for dimension {d} with size "
                         f"{size}")
    return {"dim": d, "index": Tensor._make(idx % max(size, 1), dt.int64)
            if (idx < 0).any() else index}


def index_fill(t: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    kw = _index_fill_args(t, dim, index, value)
    if isinstance(value, Tensor):
        return as_given(apply(TABLE["index_fill_tensor"], (t, value), kw, dtype=t._dtype),
                        dim=dim)
    return as_given(apply(TABLE["index_fill"], (t,), {**kw, "value": value}, dtype=t._dtype),
                    dim=dim)


def index_fill_(t: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    check_inplace(t, (value,) if isinstance(value, Tensor) else ())
    kw = _index_fill_args(t, dim, index, value)
    if isinstance(value, Tensor):
        return as_given(apply_inplace(TABLE["index_fill_tensor"], t, (value,), kw), dim=dim)
    return as_given(apply_inplace(TABLE["index_fill"], t, (), {**kw, "value": value}), dim=dim)


def _sort_method(self: Tensor, dim: int = -1, descending: bool = False, *,
                 stable: bool | None = None) -> Any:
    return sort(self, dim, descending, stable=stable)


METHODS: dict[str, Any] = {
    "sort": _sort_method, "argsort": argsort, "msort": msort, "topk": topk,
    "kthvalue": kthvalue, "mode": mode, "amin": amin, "cumprod": cumprod, "cumprod_": cumprod_,
    "cumsum_": cumsum_, "cummax": cummax,
    "cummin": cummin, "logcumsumexp": logcumsumexp, "diff": diff, "triu": triu, "tril": tril,
    "triu_": triu_, "tril_": tril_, "diagonal": diagonal, "diag": diag,
    "diag_embed": diag_embed, "trace": trace, "index_fill": index_fill,
    "index_fill_": index_fill_,
}
