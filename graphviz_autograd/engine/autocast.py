"""CPU autocast's casts: the state of the autocast region, and the policies PyTorch applies to
the ops of its lists (lower precision: matrix products and convolutions; float32: losses).

An op of a list starts with ``if state.dtype is not None: return lower(op, ...)`` (one check
outside autocast). ``lower``/``fp32`` cast the op's floating tensor arguments with ``to``
(a ``ToCopyBackward0`` node each) and run the op with autocast off, as PyTorch runs an
autocast op's kernel with its autocast key excluded. Within one region (outermost enter to
exit), float32 leaves requiring grad are cast once: the casts are cached, as PyTorch's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import dtypes as dt
from .tensor import Tensor

__all__ = ["state", "lower", "fp32", "promote", "clear_cache"]


class _State:
    __slots__ = ("dtype", "depth", "cache", "cache_enabled")

    def __init__(self) -> None:
        self.dtype: dt.DType | None = None     # the lower precision dtype while a region is on
        self.depth = 0                          # nesting of regions, enabled or not
        self.cache: dict[int, tuple[Tensor, Tensor]] = {}
        self.cache_enabled = True


state = _State()


def clear_cache() -> None:
    state.cache.clear()


def _eligible(t: Any) -> bool:
    return isinstance(t, Tensor) and t._dtype.is_floating_point and t._dtype is not dt.float64


def _cast(t: Any, to: dt.DType, low: dt.DType | None) -> Any:
    from .functional import to_dtype
    if not _eligible(t) or t._dtype is to:
        return t
    # NB: only float32 leaves (not views) requiring grad, cast to the region's dtype, are cached
    cache = (to is low and t._dtype is dt.float32 and t._rg and t._grad_fn is None
             and t._base is None and state.cache_enabled)
    if cache:
        hit = state.cache.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
    out = to_dtype(t, to)
    if cache:
        state.cache[id(t)] = (t, out)       # NB: the source is kept alive: its id stays its own
    return out


def _cast_all(v: Any, to: dt.DType, low: dt.DType | None) -> Any:
    if isinstance(v, list | tuple) and any(isinstance(x, Tensor) for x in v):
        return type(v)(_cast(x, to, low) for x in v)
    return _cast(v, to, low)


def _run(fn: Callable[..., Any], to: dt.DType, args: tuple[Any, ...], kw: dict[str, Any]) -> Any:
    low = state.dtype
    args = tuple(_cast_all(a, to, low) for a in args)
    kw = {k: _cast_all(v, to, low) for k, v in kw.items()}
    state.dtype = None
    try:
        return fn(*args, **kw)
    finally:
        state.dtype = low


def lower(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """``fn`` on its floating arguments cast to the region's dtype (float16 or bfloat16)."""
    assert state.dtype is not None
    return _run(fn, state.dtype, args, kw)


def fp32(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """``fn`` on its float16/bfloat16 arguments cast to float32."""
    return _run(fn, dt.float32, args, kw)



def promote(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """``fn`` on its floating arguments cast to their widest dtype (``cat``, ``stack``)."""
    widest: dt.DType | None = None
    for a in (*args, *kw.values()):
        for x in (a if isinstance(a, list | tuple) else (a,)):
            if _eligible(x):
                d = x._dtype
                widest = d if widest is None or d is widest else dt.float32
    return _run(fn, widest if widest is not None else dt.float32, args, kw)
