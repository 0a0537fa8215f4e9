"""``torch.normal`` and ``torch.bernoulli`` with tensor parameters, drawn as PyTorch's CPU kernels.

``normal(mean, std)`` fills its output with ``normal_(0, 1)`` (``normal_(0, std)`` for a number
``std``) and then multiplies by ``std`` and adds ``mean``, one rounding each; ``bernoulli(p)``
compares one uniform of p's dtype per element (24 bits for float32, 53 for float64) with ``p``,
in the output's order. The ``torch.distributions`` samplers draw through these.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes as dt
from . import random as rnd
from . import random_math as rm
from .autograd import apply
from .grad_mode import state as grad_state
from .optable import TABLE
from .tensor import Tensor

__all__ = ["normal", "bernoulli", "bernoulli_method", "cauchy_fill", "geometric_fill",
           "log_normal_fill"]


def _size(size: Any) -> tuple[int, ...]:
    if isinstance(size, int):
        return (size,)
    return tuple(int(s) for s in size)


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None,
           dtype: dt.DType | None = None, out: Any = None, **_: Any) -> Tensor:
    """``torch.normal``: its four forms (tensor or number mean and std, or numbers and a size).

    >>> from . import random
    >>> _ = random.manual_seed(0)
    >>> normal(Tensor._make(np.zeros(3, np.float32), dt.float32), 2.0)
    tensor([ 3.0820, -0.5869, -4.3576])
    """
    gen = rnd.resolve(generator)
    t_mean, t_std = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not t_mean and not t_std:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            "(float, float), but expected one of:\n"
                            " * (Tensor mean, Tensor std, *, torch.Generator generator = None, "
                            "Tensor out = None)\n")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        d = dtype or dt.float32
        rnd.check_floating(d, "normal_kernel_cpu")
        arr = np.empty(_size(size), d.np)
        rnd.normal(gen, arr, float(mean), float(std))
        return Tensor._make(arr, d)
    if t_std and np.any(std._data < 0):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not t_std and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    ref = mean if t_mean else std
    d = ref._dtype
    rnd.check_floating(d, "normal_kernel_cpu")
    shapes = [t._data.shape for t in (mean, std) if isinstance(t, Tensor)]
    arr = np.empty(np.broadcast_shapes(*shapes), d.np)
    if t_std:
        rnd.normal(gen, arr, 0.0, 1.0)
        arr = arr * std._data.astype(d.np, copy=False)
    else:
        rnd.normal(gen, arr, 0.0, float(std))
    arr = arr + (mean._data.astype(d.np, copy=False) if t_mean else d.np.type(mean))
    arr = np.ascontiguousarray(arr.astype(d.np, copy=False))
    if not ((t_mean and mean.requires_grad) or (t_std and std.requires_grad)) \
            and not grad_state.dual:
        return Tensor._make(arr, d)
    key = {(True, True): "normal_tensor_tensor", (True, False): "normal_tensor_float",
           (False, True): "normal_float_tensor"}[t_mean, t_std]
    params = {n: t for n, t in (("mean", mean), ("std", std)) if isinstance(t, Tensor)}
    kw = {f"{n}_sym_sizes": tuple(t.shape) for n, t in params.items()}
    return apply(TABLE[key], tuple(params.values()), {"values": arr, **kw}, dtype=d)


def _check_p(pd: np.ndarray) -> None:
    if np.any(~((pd >= 0) & (pd <= 1))):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")


def bernoulli_tensor_fill(g: rnd.Generator, t: Tensor, p: Tensor) -> None:
    """``t.bernoulli_(p)``: one uniform of p's dtype per element of ``t``, drawn in t's memory
    order, below ``p`` broadcast to t's shape."""
    pd = p._data
    _check_p(pd)
    arr = t._data
    order = np.empty_like(arr, dtype=np.int64)          # the draw number of each element
    rnd.fill(order, np.arange(arr.size, dtype=np.int64))
    npd = pd.dtype if pd.dtype == np.float64 else np.dtype(np.float32)
    u = rnd._unit(g, arr.size, npd)
    arr[...] = (u[order] < np.broadcast_to(pd, arr.shape)).astype(arr.dtype)


def _bernoulli_tensor(p: Tensor, gen: rnd.Generator, out_dtype: dt.DType) -> Tensor:
    pd = p._data
    _check_p(pd)
    npd = pd.dtype if pd.dtype == np.float64 else np.dtype(np.float32)
    u = rnd._unit(gen, pd.size, npd).reshape(pd.shape)
    arr = np.ascontiguousarray((u < pd).astype(out_dtype.np))
    if not p.requires_grad and not grad_state.dual:
        return Tensor._make(arr, out_dtype)
    return apply(TABLE["bernoulli"], (p,), {"values": arr}, dtype=out_dtype)


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None, out: Any = None) -> Tensor:
    """``torch.bernoulli(input)``: ones with the probabilities ``input`` (``p``: a number for all).

    >>> from . import random
    >>> _ = random.manual_seed(0)
    >>> bernoulli(Tensor._make(np.full(4, 0.5, np.float32), dt.float32))
    tensor([1., 0., 1., 1.])
    """
    gen = rnd.resolve(generator)
    if p is None:
        rnd.check_floating(input._dtype, "bernoulli_tensor_cpu_self_")
        return _bernoulli_tensor(input, gen, input._dtype)
    if isinstance(p, Tensor):
        return _bernoulli_tensor(p.expand(input.shape), gen, input._dtype)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    arr = np.empty(input._data.shape, input._dtype.np)
    rnd.fill(arr, rnd.bernoulli(gen, arr.size, float(p)).astype(arr.dtype))
    if not input.requires_grad and not grad_state.dual:
        return Tensor._make(arr, input._dtype)
    return apply(TABLE["bernoulli_p"], (input,), {"values": arr}, dtype=input._dtype)


def bernoulli_method(self: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    return bernoulli(self, p, generator=generator)


def _unit64(gen: rnd.Generator, n: int) -> np.ndarray:
    return rnd._unit(gen, n, np.dtype(np.float64))


def cauchy_fill(g: rnd.Generator, t: Tensor, median: float = 0.0, sigma: float = 1.0) -> None:
    """``cauchy_``: ``median + sigma * tan(pi (u - 0.5))`` in double, one 53-bit uniform each.

    >>> import graphviz_autograd.torch as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.empty(3).cauchy_()
    tensor([10.5977,  0.7648, -0.1283])
    """
    if not t._dtype.is_floating_point:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype "
                           f"must be a floating point but you specified "
                           f"{rnd._INT_RANGES[t._dtype.name][2]}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    u = _unit64(g, t._data.size)
    rnd.fill(t._data, (median + sigma * rm.libm64("tan", np.pi * (u - 0.5))).astype(t._dtype.np))


def geometric_fill(g: rnd.Generator, t: Tensor, p: float) -> None:
    """``geometric_(p)``: ``ceil(log(u) / log1p(-p))`` of one 53-bit uniform each (integer
    dtypes too, bool excepted)."""
    if t._dtype is dt.bool_:
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    u = _unit64(g, t._data.size)
    values = np.ceil(rm.libm64("log", u) / math.log1p(-p))
    rnd.fill(t._data, values.astype(t._dtype.np))


def log_normal_fill(g: rnd.Generator, t: Tensor, mean: float = 1.0, std: float = 2.0) -> None:
    """``log_normal_``: exp of the scalar path's normal draws (the cached sample included)."""
    rnd.check_floating(t._dtype, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    z = rnd._normal_scalar(g, t._data.size, float(mean), float(std))
    rnd.fill(t._data, rm.libm64("exp", z).astype(t._dtype.np))


METHODS: dict[str, Any] = {"bernoulli": bernoulli_method}
