"""Tensor creation: ``tensor``, ``ones``, ``zeros``, ``eye``, ``rand``, ``arange``, ``full``, ..."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import dtypes as dt
from . import messages as msg
from . import random as rnd
from .tensor import Tensor, _unwrap_nested

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "eye", "rand",
           "randn", "randint", "randperm", "arange", "linspace", "zeros_like", "ones_like",
           "full_like", "empty_like", "rand_like", "randn_like"]


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
        msg.warn_user(msg.COPY_CONSTRUCT, UserWarning)
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
    # NB: index(), not int(): a float size is refused (the caller's guard names it)
    out = tuple(s if type(s) is int else operator.index(s) for s in size)
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


def _size_given(name: str, size: tuple[Any, ...], kw: dict[str, Any]) -> tuple[Any, ...]:
    """The size, by position or as ``size=``; PyTorch's error when there is none."""
    if size:
        return size
    if "size" in kw:
        return (kw["size"],)
    raise TypeError(f'{name}() missing 1 required positional arguments: "size"')


def zeros(*size: Any, dtype: dt.DType | None = None, device: Any = None,
          requires_grad: bool = False, **kw: Any) -> Tensor:
    return _make(np.zeros, _size_given("zeros", size, kw), dtype, requires_grad, zeros=True)


def ones(*size: Any, dtype: dt.DType | None = None, device: Any = None,
         requires_grad: bool = False, **kw: Any) -> Tensor:
    return _make(np.ones, _size_given("ones", size, kw), dtype, requires_grad)


def empty(*size: Any, dtype: dt.DType | None = None, device: Any = None,
          requires_grad: bool = False, **kw: Any) -> Tensor:
    return _make(np.zeros, _size_given("empty", size, kw), dtype, requires_grad)


def full(size: Any, fill_value: Any, dtype: dt.DType | None = None, device: Any = None,
         requires_grad: bool = False, **_: Any) -> Tensor:
    d = dtype or (dt.float32 if isinstance(fill_value, float) else dt.scalar_dtype(fill_value))
    return _leaf(np.full(checked_size((size,)), fill_value, dtype=d.np), d, requires_grad)


def eye(n: int, m: int | None = None, dtype: dt.DType | None = None, device: Any = None,
        requires_grad: bool = False, **_: Any) -> Tensor:
    d = dtype or dt.float32
    return _leaf(np.eye(n, m, dtype=d.np), d, requires_grad)


def _uniform_into(arr: np.ndarray, gen: rnd.Generator) -> np.ndarray:
    rnd.fill(arr, rnd.uniform(gen, arr.size, arr.dtype))
    return arr


def _normal_into(arr: np.ndarray, gen: rnd.Generator) -> np.ndarray:
    rnd.normal(gen, arr)
    return arr


# PyTorch's error for ``rand()`` / ``randn()`` with no size
_NO_SIZE = ("{}() received an invalid combination of arguments - got (), but expected one of:\n"
            " * (tuple of ints size, *, torch.Generator generator, Tensor out = None, "
            "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
            "bool pin_memory = False, bool requires_grad = False)\n"
            " * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, "
            "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
            "bool requires_grad = False)\n")


def _random(draw: Any, kernel: str, size: tuple[Any, ...], dtype: dt.DType | None,
            requires_grad: bool, generator: Any) -> Tensor:
    """A new leaf that ``draw`` fills from ``generator`` (the default one for None)."""
    if size == ():
        raise TypeError(_NO_SIZE.format("rand" if kernel == "check_uniform_bounds" else "randn"))
    d = dtype or dt.float32
    rnd.check_floating(d, kernel)
    gen = rnd.resolve(generator)
    shape = checked_size(size if isinstance(size, tuple) else (size,))
    return _leaf(draw(np.empty(shape, d.np), gen), d, requires_grad)


def rand(*size: Any, generator: Any = None, dtype: dt.DType | None = None, device: Any = None,
         requires_grad: bool = False, **kw: Any) -> Tensor:
    """Uniform on [0, 1): PyTorch's numbers for the same seed.

    >>> _ = rnd.manual_seed(0)
    >>> rand(3)
    tensor([0.4963, 0.7682, 0.0885])
    """
    return _random(_uniform_into, "check_uniform_bounds",
                   (kw["size"],) if "size" in kw else size, dtype, requires_grad, generator)


def randn(*size: Any, generator: Any = None, dtype: dt.DType | None = None, device: Any = None,
          requires_grad: bool = False, **kw: Any) -> Tensor:
    """Standard normal: PyTorch's numbers for the same seed.

    >>> _ = rnd.manual_seed(0)
    >>> randn(3)
    tensor([ 1.5410, -0.2934, -2.1788])
    """
    return _random(_normal_into, "normal_kernel_cpu",
                   (kw["size"],) if "size" in kw else size, dtype, requires_grad, generator)


def randint(*args: Any, size: Any = None, generator: Any = None, dtype: dt.DType | None = None,
            device: Any = None, requires_grad: bool = False, **kw: Any) -> Tensor:
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high)."""
    given = list(args)
    if size is None and given:
        size = given.pop()
    if "high" in kw:
        low, high = kw.get("low", given[0] if given else 0), kw["high"]
    elif len(given) == 2:
        low, high = given
    elif len(given) == 1:
        low, high = kw.get("low", 0), given[0]
    else:
        raise TypeError("randint() missing required arguments 'high' and 'size'")
    d = dtype or dt.int64
    arr = np.empty(checked_size((size,)), d.np)
    rnd.fill(arr, rnd.random_from_to(rnd.resolve(generator), arr.size, d, int(low), int(high)))
    return _leaf(arr, d, requires_grad)


def randperm(n: int, *, generator: Any = None, dtype: dt.DType | None = None, device: Any = None,
             requires_grad: bool = False, **_: Any) -> Tensor:
    """A random permutation of ``range(n)``, PyTorch's for the same seed."""
    d = dtype or dt.int64
    checked_size((n,))
    return _leaf(rnd.randperm(rnd.resolve(generator), int(n)).astype(d.np), d, requires_grad)


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
    if d in (dt.float32, dt.float64) and steps > 1:
        return _leaf(_linspace_kernel(float(start), float(end), steps, d.np.type), d,
                     requires_grad)
    return _leaf(np.linspace(start, end, steps).astype(d.np), d, requires_grad)


def _linspace_kernel(start: float, end: float, steps: int, t: Any) -> np.ndarray:
    """PyTorch's CPU linspace: the step in the dtype, the first half counted up from ``start``
    and the rest down from ``end``, each point one fused multiply-add (a single rounding: exact
    in float64 for float32, in long double for float64 where long double is wider)."""
    lo, hi = t(start), t(end)
    step = (hi - lo) / t(steps - 1)
    wide: Any = np.float64 if t is np.float32 else np.longdouble
    i: np.ndarray = np.arange(steps, dtype=wide)
    up = i * wide(step) + wide(lo)
    down = (steps - 1 - i) * -wide(step) + wide(hi)
    return np.where(i < steps // 2, up, down).astype(t)


def _like(fill: Any) -> Any:
    def like(t: Tensor, dtype: dt.DType | None = None, requires_grad: bool = False,
             **_: Any) -> Tensor:
        d = dtype or t._dtype
        return _leaf(fill(t._data.shape, d.np), d, requires_grad)
    return like


zeros_like = _like(np.zeros)
ones_like = _like(np.ones)
empty_like = zeros_like


def _random_like(draw: Any, kernel: str) -> Any:
    def like(t: Tensor, dtype: dt.DType | None = None, requires_grad: bool = False,
             generator: Any = None, **_: Any) -> Tensor:
        d = dtype or t._dtype
        rnd.check_floating(d, kernel)
        # NB: laid out as ``t`` (PyTorch's empty_like keeps its strides), so the values are
        # drawn in t's memory order, and a strided layout takes normal_'s scalar path
        arr = np.empty_like(t._data, dtype=d.np)
        return _leaf(draw(arr, rnd.resolve(generator)), d, requires_grad)
    return like


rand_like = _random_like(_uniform_into, "check_uniform_bounds")
randn_like = _random_like(_normal_into, "normal_kernel_cpu")


def full_like(t: Tensor, fill_value: Any, dtype: dt.DType | None = None,
              requires_grad: bool = False, **_: Any) -> Tensor:
    d = dtype or t._dtype
    return _leaf(np.full(t._data.shape, fill_value, dtype=d.np), d, requires_grad)
