"""More creation functions: ``logspace``, ``tril_indices`` / ``triu_indices``, ``scalar_tensor``,
``asarray``, ``randint_like``, ``empty_strided``, the deprecated ``range``, ``vander`` (PyTorch's
decomposition, node for node), ``poisson`` (PyTorch's samples for a seed) and ``Tensor.new``."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import dtypes as dt
from . import functional as F
from . import messages as msg
from . import random as rnd
from .factories import _leaf, checked_size, tensor, zeros
from .optable import Op, register
from .tensor import Size, Tensor

__all__ = ["logspace", "tril_indices", "triu_indices", "scalar_tensor", "asarray",
           "randint_like", "empty_strided", "range_", "vander", "poisson", "METHODS"]

_RANGE_DEPRECATED = ("torch.range is deprecated and will be removed in a future release because "
                     "its behavior is inconsistent with Python's range builtin. Instead, use "
                     "torch.arange, which produces values in [start, end).")
_ASARRAY_GRAD = ("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad "
                 "instead of False. Pass requires_grad=False explicitly to get the old behavior "
                 "and silence this warning.")


def _number(v: Any) -> Any:
    return v.item() if isinstance(v, Tensor) else v


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *,
             dtype: dt.DType | None = None, requires_grad: bool = False,
             **_: Any) -> Tensor:
    """``base ** linspace(start, end, steps)``, computed as PyTorch's kernel does: the bounds in
    the output's type, the step in double from their difference in that type, the first half
    of the exponents from ``start``, the rest from ``end``, each power in double (the base in
    float for integer outputs).

    >>> logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = dtype or dt.float32
    start, end = _number(start), _number(end)
    s: Any
    e: Any
    if d.is_floating_point:
        s, e = d.np.type(start), d.np.type(end)
        b = float(base)
    else:
        s, e = int(start), int(end)
        b = float(np.float32(base))
    if steps == 1:
        out = [math.pow(float(base), float(start))]
    else:
        step = float(e - s) / (steps - 1) if steps > 1 else 0.0
        half = steps // 2
        out = [math.pow(b, float(s) + step * i) if i < half
               else math.pow(b, float(e) - step * (steps - i - 1)) for i in range(steps)]
    arr = np.array(out, dtype=np.float64)
    with np.errstate(all="ignore"):        # NB: out of the dtype's range: inf, as PyTorch
        if d is dt.float16:
            arr = arr.astype(np.float32)
        arr = arr.astype(d.np)
    return _leaf(arr, d, requires_grad)


def _triangle_indices(name: str, lower: bool, row: int, col: int, offset: int,
                      dtype: dt.DType | None) -> Tensor:
    d = dtype or dt.int64
    if d.is_floating_point or d is dt.bool_:
        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{msg.SCALAR_NAME.get(d.name, d.name)}'")
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    rows, cols = np.indices((row, col)).reshape(2, -1)
    keep = cols - rows <= offset if lower else cols - rows >= offset
    return Tensor._make(np.stack([rows[keep], cols[keep]]).astype(d.np), d)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: dt.DType | None = None,
                 **_: Any) -> Tensor:
    """The row and column indices of a ``row`` x ``col`` matrix's lower triangle.

    >>> tril_indices(2, 2)
    tensor([[0, 1, 1],
            [0, 0, 1]])
    """
    return _triangle_indices("tril_indices", True, row, col, offset, dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: dt.DType | None = None,
                 **_: Any) -> Tensor:
    return _triangle_indices("triu_indices", False, row, col, offset, dtype)


def scalar_tensor(s: Any, *, dtype: dt.DType | None = None, requires_grad: bool = False,
                  **_: Any) -> Tensor:
    """A 0-d tensor of ``s`` (float32 unless told).

    >>> scalar_tensor(3)
    tensor(3.)
    """
    d = dtype or dt.float32
    return _leaf(np.array(_number(s), dtype=d.np), d, requires_grad)


def asarray(obj: Any, *, dtype: dt.DType | None = None, device: Any = None,
            copy: bool | None = None, requires_grad: Any = None) -> Tensor:
    """``obj`` as a tensor, sharing a tensor's memory unless a copy or another dtype is asked.

    >>> asarray([1, 2])
    tensor([1, 2])
    """
    if isinstance(obj, Tensor):
        if requires_grad is None and obj.requires_grad:
            msg.warn_user(_ASARRAY_GRAD, UserWarning)
        out = obj if dtype is None or dtype is obj._dtype else F.to_dtype(obj, dtype)
        if copy and out is obj:
            out = F.clone(obj)
        if requires_grad is False and out.requires_grad:
            out = out.detach()
        elif requires_grad and not out.requires_grad:
            out = out.detach().requires_grad_(True)
        return out
    if isinstance(obj, np.ndarray) and not copy and (dtype is None or dtype.np == obj.dtype):
        return _leaf(obj, dt.from_numpy(obj.dtype), bool(requires_grad))
    return tensor(obj, dtype=dtype, requires_grad=bool(requires_grad))


def randint_like(input: Tensor, low: int = 0, high: Any = None, *,
                 dtype: dt.DType | None = None, requires_grad: bool = False,
                 generator: Any = None, **_: Any) -> Tensor:
    """Integers in [low, high) in ``input``'s shape and dtype (``randint_like(t, high)`` too).

    >>> randint_like(zeros(3), 1).tolist()
    [0.0, 0.0, 0.0]
    """
    if high is None:
        low, high = 0, low
    d = dtype or input._dtype
    arr = np.empty(input._data.shape, d.np)
    rnd.fill(arr, rnd.random_from_to(rnd.resolve(generator), arr.size, d, int(low), int(high)))
    return _leaf(arr, d, requires_grad)


def empty_strided(size: Any, stride: Any, *, dtype: dt.DType | None = None,
                  requires_grad: bool = False, **_: Any) -> Tensor:
    """A tensor of ``size`` laid out with ``stride`` (elements); its values are zeros here.

    >>> empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    d = dtype or dt.float32
    shape, strides = checked_size((tuple(size),)), tuple(int(s) for s in stride)
    if len(shape) != len(strides):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality "
                           f"of strides ({len(strides)})")
    span = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) if all(shape) else 0
    buf = np.zeros(max(span, 1), d.np)
    arr = np.lib.stride_tricks.as_strided(buf, shape, tuple(s * d.itemsize for s in strides))
    return _leaf(arr, d, requires_grad)


def range_(start: Any = 0, end: Any = None, step: Any = 1, *, dtype: dt.DType | None = None,
           requires_grad: bool = False, **_: Any) -> Tensor:
    """``torch.range``: deprecated; ``end`` included, float32 unless told.

    >>> import warnings; warnings.simplefilter("ignore")
    >>> range_(0, 2)
    tensor([0., 1., 2.])
    """
    msg.warn_user(_RANGE_DEPRECATED, UserWarning)
    if end is None:
        start, end = 0, start
    start, end, step = _number(start), _number(end), _number(step)
    d = dtype or dt.float32
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = math.floor((end - start) / step) + 1
    arr = start + np.arange(n, dtype=np.float64) * step
    return _leaf(arr.astype(d.np), d, requires_grad)


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of 1-D ``x``: columns ``x ** (N-1), ..., x, 1`` (increasing: the
    other way round), built as PyTorch builds it: ones in column 0, ``x`` copied into the
    others, their ``cumprod`` copied back over them, then a flip.

    >>> vander(tensor([1.0, 2.0]))
    tensor([[1., 1.],
            [2., 1.]])
    """
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    d = dt.result_type([x._dtype, dt.int64], [], [])
    result = zeros(x._data.shape[0], n, dtype=d)
    if n:
        result[:, :1].fill_(1)
    if n > 1:
        # NB: PyTorch's cumprod reads the slice it then writes: its saved input is modified, so
        # a backward through vander raises (PyTorch's too)
        result[:, 1:].copy_(x.unsqueeze(1))
        result[:, 1:].copy_(result[:, 1:].cumprod(1))
    if not increasing:
        result = result.flip(1)
    return result


# PoissonBackward0: its gradient is zeros
register(Op("poisson", "PoissonBackward0", ("self",), lambda x, values: values,
            lambda c, g, D: (D.zeros_like(g),)))


class _Uniforms:
    """The generator's 53-bit uniforms (one ``random64()`` each), drawn in bulk and handed out
    one by one; ``close`` leaves the generator as if it had drawn only those handed out."""

    def __init__(self, gen: rnd.Generator, n: int) -> None:
        self.gen, self.start = gen, (gen._bits.state, gen._fresh)
        self.chunk, self.used, self.drawn = max(n, 16), 0, 0
        self.values: Iterator[float] = iter(())

    def __call__(self) -> float:
        value: float | None = next(self.values, None)
        if value is None:
            self.values = iter(rnd._unit(self.gen, self.chunk, np.dtype(np.float64)).tolist())
            self.drawn += self.chunk
            value = next(self.values)
        self.used += 1
        return float(value)

    def close(self) -> None:
        if self.drawn != self.used:
            self.gen._bits.state, self.gen._fresh = self.start
            if self.used:
                self.gen.random64(self.used)


def _poisson_one(uniform: _Uniforms, lam: float) -> int:
    """One draw of PyTorch's ``sample_poisson``: Hoermann's transformed rejection from 10 up,
    a product of uniforms below (every uniform 53 bits of one ``random64()``)."""

    if lam >= 10:
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uniform() - 0.5
            v = uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -lam + k * loglam - math.lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    enlam, x, prod = math.exp(-lam), 0, 1.0
    while True:
        prod *= uniform()
        if prod > enlam:
            x += 1
        else:
            return x


def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """A Poisson draw per rate, PyTorch's for the same seed (one element at a time, in index
    order); a PoissonBackward0 node whose gradient is zeros.

    >>> from graphviz_autograd import torch
    >>> _ = torch.manual_seed(0)
    >>> poisson(torch.tensor([0.0, 4.0]))
    tensor([0., 7.])
    """
    if not input._dtype.is_floating_point:
        raise NotImplementedError('"poisson_cpu" not implemented for '
                                  f"'{msg.SCALAR_NAME.get(input._dtype.name, input._dtype.name)}'")
    gen = rnd.resolve(generator)
    # NB: drawn in the index order of the new contiguous output, whatever the input's layout
    rates = input._data.reshape(-1).tolist()
    if any(r < 0 or r != r for r in rates):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    uniform = _Uniforms(gen, 2 * len(rates))
    try:
        draws = [_poisson_one(uniform, float(r)) for r in rates]
    finally:
        uniform.close()
    values = np.array(draws, dtype=np.float64).astype(input._dtype.np).reshape(
        input._data.shape)
    return F.apply(F._T["poisson"], (input,), {"values": values}, dtype=input._dtype)


def _options(d: dt.DType) -> str:
    return (f"TensorOptions(dtype={msg.CTYPE_NAME.get(d.name, d.name)}, device=cpu, "
            "layout=Strided, requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _new(self: Tensor, *args: Any, dtype: Any = None, requires_grad: bool = False,
         **_: Any) -> Tensor:
    """``t.new(2, 3)`` (a size: zeros here), ``t.new([1, 2])`` (data), ``t.new()`` (empty),
    all of ``t``'s dtype."""
    d = dtype or self._dtype
    if not args:
        return _leaf(np.zeros(0, d.np), d, requires_grad)
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other._dtype is not self._dtype:
            raise TypeError(f"expected {_options(self._dtype)} (got {_options(other._dtype)})")
        return other.detach()
    if len(args) == 1 and isinstance(args[0], float | bool):
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    if len(args) == 1 and not isinstance(args[0], int | Size):
        return _leaf(np.array(args[0], dtype=d.np), d, requires_grad)
    return _leaf(np.zeros(checked_size(args), d.np), d, requires_grad)


METHODS: dict[str, Any] = {"new": _new}
