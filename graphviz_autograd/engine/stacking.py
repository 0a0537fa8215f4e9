"""The user-facing shape composites PyTorch builds from other ops: ``movedim`` (a permute),
``broadcast_to`` / ``broadcast_tensors`` / ``meshgrid`` (expands), ``unflatten`` (a view),
``atleast_*d``, ``hstack`` / ``vstack`` / ``dstack`` / ``column_stack`` (views then a cat),
``tile`` (a repeat) and ``tensor_split`` / ``hsplit`` / ``vsplit`` / ``dsplit`` (slices), node for
node as PyTorch decomposes them."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import messages as msg
from .autograd import apply
from .functional import (
    _broadcast_all,
    _dim,
    _shape_args,
    cat,
    expand,
    permute,
    repeat,
    reshape,
    slice_,
    transpose,
    unsqueeze,
    view,
)
from .optable import TABLE
from .tensor import Tensor

__all__ = ["movedim", "broadcast_to", "broadcast_tensors", "meshgrid", "unflatten",
           "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack",
           "column_stack", "tile", "tensor_split", "hsplit", "vsplit", "dsplit"]


def _dims(v: Any) -> tuple[int, ...]:
    return (v,) if isinstance(v, int) else tuple(v)


def movedim(t: Tensor, source: Any, destination: Any) -> Tensor:
    n = t._data.ndim
    src, dst = _dims(source), _dims(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source "
                           f"({list(src)} dims) should contain the same number of dims as "
                           f"destination ({list(dst)} dims)")
    src = tuple(_dim(d, n) for d in src)
    dst = tuple(_dim(d, n) for d in dst)
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(_dims(source))})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(_dims(destination))})")
    if n == 0:
        return apply(TABLE["alias"], (t,))     # NB: PyTorch's AliasBackward0
    order = [-1] * n
    for s, d in zip(src, dst, strict=True):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    return permute(t, tuple(d if d != -1 else next(rest) for d in order))


def swapdims(t: Tensor, dim0: int, dim1: int) -> Tensor:
    return transpose(t, dim0, dim1)


def broadcast_to(t: Tensor, *size: Any) -> Tensor:
    return expand(t, *size)


def broadcast_tensors(*tensors: Any) -> tuple[Tensor, ...]:
    ts = list(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], list | tuple) \
        else list(tensors)
    shape = _broadcast_all(*[x._data.shape for x in ts]) if ts else ()
    # NB: a tensor already of the broadcast shape comes back as it is (no node)
    return tuple(x if x._data.shape == shape else expand(x, shape) for x in ts)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    ts = list(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], list | tuple) \
        else list(tensors)
    if indexing is None:
        msg.warn_user("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f"{indexing}")
    if not ts:
        raise RuntimeError("torch.meshgrid expects a non-empty TensorList")
    for x in ts:
        if x._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {x}")
    order = list(range(len(ts)))
    if indexing == "xy" and len(ts) >= 2:
        order[0], order[1] = 1, 0           # NB: the first two dims swapped, as numpy's
    shape = tuple(ts[i]._data.size for i in order)
    out = []
    for i, x in enumerate(ts):
        at = order.index(i)
        view_shape = tuple(-1 if k == at else 1 for k in range(len(ts)))
        out.append(expand(view(x, view_shape), shape))
    return tuple(out)


def unflatten(t: Tensor, dim: int, sizes: Any) -> Tensor:
    d = _dim(dim, t._data.ndim)
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = t._data.shape[d]
    known = int(np.prod([s for s in sizes if s != -1], dtype=np.int64))
    if -1 not in sizes and known != n:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({n}) in the input tensor")
    shape = t._data.shape[:d] + sizes + t._data.shape[d + 1:]
    return view(t, shape)


def _many(fn: Any, tensors: tuple[Any, ...]) -> Any:
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        return tuple(fn(x) for x in tensors[0])
    if len(tensors) == 1:
        return fn(tensors[0])
    return tuple(fn(x) for x in tensors)


def _atleast_1d(t: Tensor) -> Tensor:
    return reshape(t, (1,)) if t._data.ndim == 0 else t


def _atleast_2d(t: Tensor) -> Tensor:
    if t._data.ndim == 0:
        return reshape(t, (1, 1))
    return unsqueeze(t, 0) if t._data.ndim == 1 else t


def _atleast_3d(t: Tensor) -> Tensor:
    n = t._data.ndim
    if n == 0:
        return reshape(t, (1, 1, 1))
    if n == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if n == 2 else t


def atleast_1d(*tensors: Any) -> Any:
    return _many(_atleast_1d, tensors)


def atleast_2d(*tensors: Any) -> Any:
    return _many(_atleast_2d, tensors)


def atleast_3d(*tensors: Any) -> Any:
    return _many(_atleast_3d, tensors)


def _stack_check(name: str, tensors: Sequence[Tensor]) -> list[Tensor]:
    ts = list(tensors)
    if not ts:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return ts


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    ts = [_atleast_1d(x) for x in _stack_check("hstack", tensors)]
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    return cat([_atleast_2d(x) for x in _stack_check("vstack", tensors)], 0)


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    return cat([_atleast_3d(x) for x in _stack_check("dstack", tensors)], 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    ts = _stack_check("column_stack", tensors)
    return cat([reshape(x, (x._data.size, 1)) if x._data.ndim <= 1 else x for x in ts], 1)


def tile(t: Tensor, *dims: Any) -> Tensor:
    reps = _shape_args(dims)
    # NB: fewer repeats than dims: ones in front, as PyTorch (then a repeat, even of ones)
    reps = (1,) * (t._data.ndim - len(reps)) + tuple(reps)
    return repeat(t, reps)


def tensor_split(t: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    if t._data.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = _dim(dim, t._data.ndim)
    n = t._data.shape[d]
    spec = indices_or_sections
    if isinstance(spec, Tensor):
        spec = spec.tolist()
    if isinstance(spec, int):
        if spec <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {spec}")
        small, extra = divmod(n, spec)
        bounds, start = [], 0
        for i in range(spec):
            size = small + (1 if i < extra else 0)
            bounds.append((start, start + size))
            start += size
    else:
        cuts = [0, *[int(i) for i in spec], n]
        bounds = list(itertools.pairwise(cuts))
    return tuple(slice_(t, d, s, e) for s, e in bounds)


def _split_along(name: str, dim: int, need: int) -> Any:
    def f(t: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
        if t._data.ndim < need:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, "
                               f"but got a tensor with {t._data.ndim} dimensions!")
        d = dim if t._data.ndim > 1 or name != "hsplit" else 0
        if isinstance(indices_or_sections, int):
            size = t._data.shape[d]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but "
                                   f"the size of the dimension {size} is not divisible by the "
                                   f"split_size {indices_or_sections}!")
        return tensor_split(t, indices_or_sections, d)
    f.__name__ = name
    return f


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)


METHODS: dict[str, Any] = {
    "movedim": movedim, "moveaxis": movedim, "swapdims": swapdims,
    "broadcast_to": broadcast_to, "unflatten": unflatten, "tile": tile,
    "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
}
