"""``t[key]`` and ``t[key] = value`` as PyTorch decomposes them: basic indexing into view ops
(select, slice, unsqueeze), advanced indexing into ``index`` / ``index_put_``, and assignment
through a view into ``copy_`` (which gives the base a ``CopySlices`` node)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as dt
from . import messages as msg
from .autograd import apply, apply_inplace, check_inplace
from .functional import as_tensor_arg, check_expand, select, slice_, unsqueeze
from .optable import TABLE
from .tensor import Tensor


def _is_advanced(k: Any) -> bool:
    if isinstance(k, Tensor):
        return not (k._data.ndim == 0 and not k._dtype.is_floating_point
                    and k._dtype is not dt.bool_)
    return isinstance(k, list | np.ndarray | bool)


def _scalar_bool(k: Any) -> bool:
    """``True``, ``False`` or a 0-d bool tensor: PyTorch adds a dim of size 1 and masks it."""
    return isinstance(k, bool) or (isinstance(k, Tensor) and k._dtype is dt.bool_
                                   and k._data.ndim == 0)


def _as_index_tensor(k: Any) -> Tensor:
    if isinstance(k, Tensor):
        if k._dtype.is_floating_point:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return k
    arr = np.asarray(k)
    if arr.dtype.kind == "f":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if arr.dtype.kind != "b":
        arr = arr.astype(np.int64)
    return Tensor._make(arr, dt.from_numpy(arr.dtype))


def _expand_key(t: Tensor, key: Any) -> tuple[Any, ...]:
    if not isinstance(key, tuple):
        key = (key,)
    used = 0
    for k in key:
        if k is None or k is Ellipsis or _scalar_bool(k):
            continue
        if isinstance(k, Tensor) and k._dtype is dt.bool_:
            used += k._data.ndim
        elif isinstance(k, np.ndarray) and k.dtype == np.bool_:
            used += k.ndim
        else:
            used += 1
    if used > t._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t._data.ndim}")
    out: list[Any] = []
    for k in key:
        if k is Ellipsis:
            out += [slice(None)] * (t._data.ndim - used)
            used = t._data.ndim
        else:
            out.append(k)
    return tuple(out)


def _basic(t: Tensor, key: tuple[Any, ...], single: bool) -> tuple[Tensor, list[Any]]:
    """Apply ints, slices and None as views; return the result and the advanced parts, each at
    the dimension of the result it applies to (None elsewhere)."""
    out, dim, orig = t, 0, 0          # dim in the result, orig in the tensor indexed
    adv: list[Any] = []
    for k in key:
        if k is None:
            out = unsqueeze(out, dim)
            adv.append(None)
            dim += 1
        elif _scalar_bool(k):
            out = unsqueeze(out, dim)
            adv.append(Tensor._make(np.array([bool(k)]), dt.bool_))
            dim += 1
        elif isinstance(k, slice):
            size = out._data.shape[dim]
            s, e, st = k.indices(size)
            if single or not (s == 0 and e == size and st == 1):
                out = slice_(out, dim, k.start, k.stop, 1 if k.step is None else k.step)
            adv.append(None)
            dim += 1
            orig += 1
        elif _is_advanced(k):
            it = _as_index_tensor(k)
            adv.append(it)
            n = it._data.ndim if it._dtype is dt.bool_ else 1
            dim += n
            orig += n
        else:
            out = select(out, dim, _integer(k), shown_dim=orig)
            orig += 1
    return out, adv


def _integer(k: Any) -> int:
    """An index that selects: an int (or anything with ``__index__``, a 0-d integer tensor)."""
    if isinstance(k, str):
        raise TypeError("new(): invalid data type 'str'")
    try:
        return k.__index__()
    except (AttributeError, TypeError):
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                         f"Variables are valid indices (got {type(k).__name__})") from None


def getitem(t: Tensor, key: Any) -> Tensor:
    if t._data.ndim == 0 and key is not None and key is not Ellipsis and not (
            isinstance(key, tuple) and all(k is None or k is Ellipsis or _scalar_bool(k)
                                           for k in key)) and not _is_advanced(key):
        if isinstance(key, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        if isinstance(key, tuple):
            raise IndexError("too many indices for tensor of dimension 0")
        raise IndexError(msg.ZERO_DIM_INDEX)
    full = _expand_key(t, key)
    out, adv = _basic(t, full, single=isinstance(key, slice))
    if not any(a is not None for a in adv):
        if out is t:
            return apply(TABLE["alias"], (t,))
        return out
    while adv and adv[-1] is None:
        adv.pop()
    _check_bounds(out, adv)
    return apply(TABLE["index"], (out,), {"indices": tuple(adv)})


def _check_bounds(t: Tensor, adv: list[Any]) -> None:
    shapes = [(int(a._data.sum()),) if a._dtype is dt.bool_ else a._data.shape
              for a in adv if a is not None]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        listed = ", ".join("[" + ",".join(map(str, s)) + "]" for s in shapes)
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         f"shapes {listed}") from None
    dim = 0
    for a in adv:
        if a is None:
            dim += 1
            continue
        if a._dtype is dt.bool_:
            if a._data.shape != t._data.shape[dim:dim + a._data.ndim]:
                raise IndexError(f"The shape of the mask [{', '.join(map(str, a._data.shape))}] "
                                 f"at index {dim} does not match the shape of the indexed tensor "
                                 f"[{', '.join(map(str, t._data.shape))}] at index {dim}")
            dim += a._data.ndim
            continue
        size = t._data.shape[dim]
        if a._data.size and (a._data.max() >= size or a._data.min() < -size):
            bad = int(a._data.max() if a._data.max() >= size else a._data.min())
            raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
        dim += 1


def setitem(t: Tensor, key: Any, value: Any) -> None:
    if t._data.ndim == 0 and isinstance(key, int) and not isinstance(key, bool):
        raise IndexError(msg.ZERO_DIM_INDEX)
    full = _expand_key(t, key)
    if not any(_is_advanced(k) for k in full):
        target, _ = _basic(t, full, single=isinstance(key, slice))
        if isinstance(value, Tensor) and value._data.shape != target._data.shape:
            # NB: the value is expanded to the part assigned (an error in expand's words)
            check_expand(value._data.shape, target._data.shape)
        if target is t:
            copy_(t, value)
            return
        check_inplace(target)
        copy_(target, value)
        return
    check_inplace(t)
    view, adv = _basic(t, full, single=False)
    while adv and adv[-1] is None:
        adv.pop()
    v = as_tensor_arg(value)
    if v._dtype is not view._dtype:
        v = Tensor._make(v._data.astype(view._dtype.np), view._dtype) if not v.requires_grad \
            else v
    target_shape = view._data[tuple(slice(None) if a is None else a._data for a in adv)].shape
    vals = v._data if v._data.shape == target_shape else np.broadcast_to(v._data, target_shape)
    apply_inplace(TABLE["index_put"], view, (v,), {"indices": tuple(adv), "accumulate": False},
                  arrays=(view._data, vals))


def copy_(t: Tensor, src: Any) -> Tensor:
    s = as_tensor_arg(src)
    if s._data.shape != t._data.shape:
        check_inplace(t, (s,))
        text = msg.size_mismatch(t._data.shape, s._data.shape)
        if text is not None:
            raise RuntimeError(text)
    return apply_inplace(TABLE["copy"], t, (s,))
