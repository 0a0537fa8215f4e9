"""``torch.multinomial`` and ``Tensor.exponential_``, drawn as PyTorch's CPU kernels draw them.

Without replacement (or for one sample) PyTorch divides the weights by exponential draws and
takes the largest (argmax, or topk for several): ``exponential_`` is ``-1/lambd * log1p(-u)`` of
one 53-bit uniform per element, in row-major order. With replacement each row's cumulative sum
is normalised and each sample is a binary search of one 53-bit uniform in it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes as dt
from . import random as rnd
from . import random_math as rm
from .tensor import Tensor

__all__ = ["multinomial", "exponential_"]


def _exponential(gen: rnd.Generator, n: int, lambd: float) -> np.ndarray:
    u = rnd._unit(gen, n, np.dtype(np.float64))
    return (-1.0 / lambd) * rm.libm64("log1p", -u)


def exponential_(t: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    rnd.check_floating(t._dtype, "exponential")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    from .functional import wrap
    drawn = _exponential(rnd.resolve(generator), t._data.size, float(lambd))
    values = np.empty_like(t._data)
    rnd.fill(values, drawn.astype(t._data.dtype))    # NB: in t's memory order, as the kernel
    from . import indexing
    from .grad_mode import is_grad_enabled, no_grad
    if t.requires_grad and is_grad_enabled():
        from .autograd import apply_inplace, check_inplace
        from .optable import TABLE
        check_inplace(t)
        return apply_inplace(TABLE["exponential_"], t, (), {"values": values})
    with no_grad():
        indexing.copy_(t, wrap(values))
    return t


def multinomial(t: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Any = None, out: Any = None) -> Tensor:
    """Indices drawn with the weights of each row of ``t``, as PyTorch draws them.

    >>> import graphviz_autograd.torch as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.multinomial(torch.tensor([0.1, 0.0, 0.9]), 4, replacement=True)
    tensor([2, 2, 2, 2])
    """
    p = t._data
    if not t._dtype.is_floating_point:
        name = t._dtype.legacy[len("torch."):-len("Tensor")]
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{name}")
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    n = int(num_samples)
    if not replacement and n > p.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    gen = rnd.resolve(generator)
    rows = p.reshape(-1, p.shape[-1])
    if not replacement or n == 1:
        if not (np.all(rows >= 0) and np.all(rows < math.inf)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if np.any(rows.sum(axis=1) == 0):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        q = _exponential(gen, rows.size, 1.0).astype(p.dtype).reshape(rows.shape)
        keys = rows / q
        if n == 1:
            picked = np.argmax(keys, axis=1)[:, None]
        else:
            # NB: topk's order: largest first, the earlier index first among equals
            picked = np.argsort(-keys, axis=1, kind="stable")[:, :n]
    else:
        picked = np.empty((rows.shape[0], n), dtype=np.int64)
        acc: Any = np.float64 if p.dtype == np.float64 else np.float32
        cast: np.ndarray = rows.astype(acc)
        for i, row in enumerate(cast):
            if np.any(row < 0) or np.any(np.isnan(row)):
                raise RuntimeError("invalid multinomial distribution (encountering probability "
                                   "entry < 0)")
            if np.any(np.isinf(row)):
                raise RuntimeError("invalid multinomial distribution (encountering probability "
                                   "entry = infinity or NaN)")
            cum = np.cumsum(row, dtype=acc)
            total = cum[-1]
            if not total > 0:
                raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
            cum = (cum / total).astype(acc)
            cum[-1] = 1
            u = rnd._unit(gen, n, np.dtype(np.float64))
            # NB: PyTorch's binary search: the first bucket whose cumulative value is >= u
            picked[i] = np.searchsorted(cum.astype(np.float64), u, side="left")
    result = picked.reshape(*p.shape[:-1], n).astype(np.int64)
    return Tensor._make(np.ascontiguousarray(result), dt.int64)


METHODS: dict[str, Any] = {"multinomial": multinomial, "exponential_": exponential_}
