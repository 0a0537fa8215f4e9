"""The user-facing ``aminmax``, ``narrow_copy``, ``scatter_reduce`` (with its in-place form)
and ``scatter(..., reduce=)``."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from . import messages as msg
from .autograd import apply, apply_inplace
from .functional import _dim, as_given
from .optable import TABLE
from .tensor import Tensor

__all__ = ["aminmax", "narrow_copy", "scatter_reduce", "scatter_reduce_", "scatter_with_reduce"]

_AminmaxBase = namedtuple("aminmax", "min max")  # type: ignore[name-match]


class _Aminmax(_AminmaxBase):
    __slots__ = ()
    __module__ = "torch.return_types"

    def __repr__(self) -> str:
        return f"torch.return_types.aminmax(\nmin={self.min!r},\nmax={self.max!r})"

    __str__ = __repr__


def aminmax(t: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """The minimum and the maximum in one node (AminmaxBackward0).

    >>> import graphviz_autograd.torch as torch
    >>> torch.aminmax(torch.tensor([[1.0, 5.0], [3.0, -2.0]]), dim=1)
    torch.return_types.aminmax(
    min=tensor([ 1., -2.]),
    max=tensor([5., 3.]))
    """
    shape = t._data.shape
    if dim is None:
        if t._data.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        kw: dict[str, Any] = {"dim": None, "keepdim": keepdim}
    else:
        d = _dim(dim, t._data.ndim)
        if t._data.size == 0 and shape and shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dim} to have non-zero size.")
        kw = {"dim": d if shape else None, "keepdim": keepdim}
    lo, hi = apply(TABLE["aminmax"], (t,), kw, dtype=t._dtype)
    if dim is not None:
        as_given(lo, dim=dim)
    return _Aminmax(lo, hi)


def narrow_copy(t: Tensor, dim: int, start: int, length: int) -> Tensor:
    if t._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, t._data.ndim)
    size = t._data.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    s = start + size if start < 0 else start
    if length < 0 or s + length > size:
        raise RuntimeError(f"start ({s}) + length ({length}) exceeds dimension size ({size}).")
    out = apply(TABLE["narrow_copy"], (t,), {"dim": d, "start": s, "length": length},
                dtype=t._dtype)
    return as_given(out, dim=dim, start=start)


# NB: "max" and "min" run forward as amax and amin (their backward refuses them)
_REDUCES = ("sum", "prod", "mean", "amax", "amin", "max", "min")


def _reduce_args(t: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str,
                 include_self: bool) -> dict[str, Any]:
    from .scattering import _scatter_args
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    kw = _scatter_args(t, dim, index, src)
    return {**kw, "reduce": reduce, "include_self": include_self}


def scatter_reduce(t: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """``src`` reduced into ``t`` at ``index`` along ``dim`` (ScatterReduceBackward0).

    >>> import graphviz_autograd.torch as torch
    >>> torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 4.0, 2.0]),
    ...                               "amax", include_self=False)
    tensor([4., 0., 2.])
    """
    kw = _reduce_args(t, dim, index, src, reduce, include_self)
    return as_given(apply(TABLE["scatter_reduce"], (t, src), kw, dtype=t._dtype), dim=dim)


def scatter_reduce_(t: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    kw = _reduce_args(t, dim, index, src, reduce, include_self)
    return as_given(apply_inplace(TABLE["scatter_reduce"], t, (src,), kw), dim=dim)


def scatter_with_reduce(t: Tensor, dim: int, index: Tensor, v: Any, reduce: str,
                        inplace: bool) -> Tensor:
    """``scatter(dim, index, src or value, reduce='add' | 'multiply')``: no derivative in
    PyTorch (a NotImplemented node over the inputs that require grad)."""
    from .scattering import _scatter_args
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    src = v if isinstance(v, Tensor) else None
    if src is not None:
        msg.warn_user("The reduce argument of torch.scatter with Tensor src is deprecated and "
                      "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                      "instead for more reduction options.", UserWarning)
    kw = _scatter_args(t, dim, index, src)
    kw["reduce"] = reduce
    value = src._data if src is not None else np.asarray(v)
    op = TABLE["scatter_reduce_legacy"]
    if inplace:
        return apply_inplace(op, t, (src,) if src is not None else (), kw,
                             arrays=(t._data, value))
    graph = [x for x in (t, src) if x is not None and (x._rg or x._grad_fn is not None)]
    return apply(op, graph, kw, arrays=(t._data, value), dtype=t._dtype)


METHODS: dict[str, Any] = {
    "aminmax": aminmax, "narrow_copy": narrow_copy, "scatter_reduce": scatter_reduce,
    "scatter_reduce_": scatter_reduce_,
}
