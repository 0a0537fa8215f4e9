"""``torch.testing.make_tensor``: a tensor of a shape and dtype filled from ``[low, high)``, with
PyTorch's defaults, clamping, errors and draws (``uniform_`` / ``randint`` on the global
generator, so the values are PyTorch's for the same seed)."""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..engine import dtypes as _dt
from ..engine.tensor import Tensor

__all__ = ["make_tensor"]


def _limits(dtype: Any, low: Any, high: Any, lowest: float, highest: float, default_low: float,
            default_high: float, floating: bool) -> tuple[Any, Any]:
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and floating:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                      "complex types is deprecated since 2.1 and will be removed in 2.3. Use "
                      "`torch.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    return (low, high) if floating else (math.ceil(low), math.ceil(high))


def make_tensor(*shape: Any, dtype: Any, device: Any, low: float | None = None,
                high: float | None = None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: Any = None) -> Tensor:
    """A tensor of ``shape`` and ``dtype`` with values drawn uniformly from ``[low, high)``.

    >>> import graphviz_autograd.torch as torch
    >>> _ = torch.manual_seed(0)
    >>> make_tensor((3,), dtype=torch.float32, device="cpu", low=-1, high=1)
    tensor([-0.0075,  0.5364, -0.8230])
    """
    from . import empty, finfo, iinfo, randint

    if len(shape) == 1 and isinstance(shape[0], tuple | list):
        shape = tuple(shape[0])
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    d = dtype
    integral = not d.is_floating_point
    if requires_grad and integral:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if d is _dt.bool_:
        lo, hi = _limits(dtype, low, high, 0, 2, 0, 2, False)
        result = randint(lo, hi, shape, device=device, dtype=dtype)
    elif integral:
        info = iinfo(dtype)
        top = info.max + (1 if d is not _dt.int64 else 0)
        lo, hi = _limits(dtype, low, high, info.min, top, -9, 10, False)
        result = randint(lo, hi, shape, device=device, dtype=dtype)
    else:
        fi = finfo(dtype)
        lo, hi = _limits(dtype, low, high, fi.min, fi.max, -9, 9, True)
        result = empty(shape, device=device, dtype=dtype)
        if hi - lo >= fi.max:
            result.uniform_(lo / 2, hi / 2).mul_(2)
        else:
            result.uniform_(lo, hi)
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if integral else finfo(dtype).tiny
    if not integral:
        result.requires_grad = requires_grad
    return result
