"""Tensor creation: ``tensor``, ``ones``, ``zeros``, ``eye``, ``rand``, ``arange``, ``full``, ..."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import dtypes as dt
from . import messages as msg
from .random import generator
from .tensor import Tensor, _unwrap_nested

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "eye", "rand",
           "randn", "randint", "arange", "linspace", "zeros_like", "ones_like", "full_like",
           "empty_like", "rand_like", "randn_like"]


def _leaf(arr: np.ndarray, dtype: dt.DType, requires_grad: bool) -> Tensor:
    if requires_grad and not dtype.is_floating_point:
        raise RuntimeError(msg.INT_REQUIRES_GRAD)
    return Tensor._make(arr, dtype, bool(requires_grad))


def _infer(data: Any) -> dt.DType:
    arr = np.asarray(data)
    # NB: numpy arrays and numpy scalars keep their dtype; Python numbers get PyTorch's defaults
    exact = isinstance(data, np.ndarray | np.generic)
    if arr.dtype.kind == "f":
        return dt.from_numpy(arr.dtype) if exact else dt.float32
    if arr.dtype.kind == "b":
        return dt.bool_
    if arr.dtype.kind in "iu":
        return dt.from_numpy(arr.dtype) if exact else dt.int64
    if arr.dtype.kind in "OUS":
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    return dt.float32


def tensor(data: Any, dtype: dt.DType | None = None, device: Any = None,
           requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new leaf holding a copy of ``data``.

    >>> tensor([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    if isinstance(data, Tensor):
        warnings.warn(msg.COPY_CONSTRUCT, UserWarning, stacklevel=2)
        d = dtype if dtype is not None else data._dtype
        return _leaf(np.array(data._data, dtype=d.np), d, requires_grad)
    raw = _unwrap_nested(data)
    try:
        d = dtype if dtype is not None else _infer(raw)
        arr = np.array(raw, dtype=d.np)
    except (TypeError, ValueError):
        _check_data(data)           # PyTorch's error for it, where it is one of the usual
        raise
    return _leaf(arr, d, requires_grad)


def _check_data(data: Any) -> None:
    """Raise PyTorch's error for data ``tensor()`` cannot take: ragged lists, text, None."""
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    shape = []
    x = data
    while isinstance(x, (list, tuple, str)):
        if isinstance(x, str):
            raise ValueError("too many dimensions 'str'")
        shape.append(len(x))
        if not x:
            break
        x = x[0]

    def check(x: Any, dim: int) -> None:
        if dim < len(shape):
            if not isinstance(x, (list, tuple)):
                raise TypeError("not a sequence")
            if len(x) != shape[dim]:
                raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} "
                                 f"(got {len(x)})")
            for y in x:
                check(y, dim + 1)
        elif isinstance(x, str):
            raise TypeError("new(): invalid data type 'str'")
        elif x is None or not isinstance(x, (int, float, complex, Tensor, np.generic)):
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")
    check(data, 0)


def as_tensor(data: Any, dtype: dt.DType | None = None, device: Any = None) -> Tensor:
    if isinstance(data, Tensor) and (dtype is None or dtype is data._dtype):
        return data
    return tensor(data, dtype)


def from_numpy(arr: np.ndarray) -> Tensor:
    return Tensor._make(arr, dt.from_numpy(arr.dtype))


def checked_size(size: tuple[Any, ...], zeros: bool = False) -> tuple[int, ...]:
    """A size given as ``(2, 3)`` or ``2, 3``, with PyTorch's error for a negative one."""
    if len(size) == 1 and isinstance(size[0], tuple | list):
        size = tuple(size[0])
    out = tuple(int(s) for s in size)
    bad = next((n for n in out if n < 0), None)
    if bad is not None:
        if zeros:
            raise RuntimeError("zeros: Dimension size must be non-negative.")
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: "
                           f"[{', '.join(map(str, out))}]")
    return out


def _make(fill: Any, size: tuple[Any, ...], dtype: dt.DType | None, requires_grad: bool,
          zeros: bool = False) -> Tensor:
    d = dtype or dt.float32
    return _leaf(fill(checked_size(size, zeros), d.np), d, requires_grad)


def zeros(*size: Any, dtype: dt.DType | None = None, device: Any = None,
          requires_grad: bool = False, **_: Any) -> Tensor:
    return _make(np.zeros, size, dtype, requires_grad, zeros=True)


def ones(*size: Any, dtype: dt.DType | None = None, device: Any = None,
         requires_grad: bool = False, **_: Any) -> Tensor:
    return _make(np.ones, size, dtype, requires_grad)


def empty(*size: Any, dtype: dt.DType | None = None, device: Any = None,
          requires_grad: bool = False, **_: Any) -> Tensor:
    return _make(np.zeros, size, dtype, requires_grad)


def full(size: Any, fill_value: Any, dtype: dt.DType | None = None, device: Any = None,
         requires_grad: bool = False, **_: Any) -> Tensor:
    d = dtype or (dt.float32 if isinstance(fill_value, float) else dt.scalar_dtype(fill_value))
    return _leaf(np.full(checked_size((size,)), fill_value, dtype=d.np), d, requires_grad)


def eye(n: int, m: int | None = None, dtype: dt.DType | None = None, device: Any = None,
        requires_grad: bool = False, **_: Any) -> Tensor:
    d = dtype or dt.float32
    return _leaf(np.eye(n, m, dtype=d.np), d, requires_grad)


def rand(*size: Any, dtype: dt.DType | None = None, device: Any = None,
         requires_grad: bool = False, generator_: Any = None, **_: Any) -> Tensor:
    return _make(lambda s, d: np.asarray(generator().random(s)).astype(d), size, dtype,
                 requires_grad)


def randn(*size: Any, dtype: dt.DType | None = None, device: Any = None,
          requires_grad: bool = False, **_: Any) -> Tensor:
    return _make(lambda s, d: np.asarray(generator().standard_normal(s)).astype(d), size, dtype,
                 requires_grad)


def randint(low: int, high: int | None = None, size: Any = (), dtype: dt.DType | None = None,
            **_: Any) -> Tensor:
    if high is None:
        low, high = 0, low
    d = dtype or dt.int64
    return _leaf(generator().integers(low, high, checked_size((size,))).astype(d.np), d, False)


def arange(start: Any, end: Any = None, step: Any = 1, dtype: dt.DType | None = None,
           device: Any = None, requires_grad: bool = False) -> Tensor:
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    floating = any(isinstance(v, float) for v in (start, end, step))
    d = dtype or (dt.float32 if floating else dt.int64)
    return _leaf(np.arange(start, end, step).astype(d.np), d, requires_grad)


def linspace(start: float, end: float, steps: int, dtype: dt.DType | None = None,
             requires_grad: bool = False, **_: Any) -> Tensor:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = dtype or dt.float32
    return _leaf(np.linspace(start, end, steps).astype(d.np), d, requires_grad)


def _like(fill: Any) -> Any:
    def like(t: Tensor, dtype: dt.DType | None = None, requires_grad: bool = False,
             **_: Any) -> Tensor:
        d = dtype or t._dtype
        return _leaf(fill(t._data.shape, d.np), d, requires_grad)
    return like


zeros_like = _like(np.zeros)
ones_like = _like(np.ones)
empty_like = zeros_like
rand_like = _like(lambda s, d: np.asarray(generator().random(s)).astype(d))
randn_like = _like(lambda s, d: np.asarray(generator().standard_normal(s)).astype(d))


def full_like(t: Tensor, fill_value: Any, dtype: dt.DType | None = None,
              requires_grad: bool = False, **_: Any) -> Tensor:
    d = dtype or t._dtype
    return _leaf(np.full(t._data.shape, fill_value, dtype=d.np), d, requires_grad)
