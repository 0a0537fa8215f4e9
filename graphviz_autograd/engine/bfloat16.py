"""Half-precision kernels (bfloat16 and float16): the table's numpy forwards and backwards
computing in float32 and rounding once, as PyTorch's CPU kernels do, installed on first use.

ml_dtypes' bfloat16 arrays (and numpy's float16 ones) round each numpy operation, but numpy
accumulates sums (and softmax, norms, fused products) in the half type, where PyTorch
accumulates in float32 and rounds the op's result once.
A float32 program never reaches this module: ``install()`` wraps the table's callables once, the
first time a program names ``torch.bfloat16``/``torch.float16``/``torch.half``, calls
``.bfloat16()``/``.half()``, loads a bfloat16 tensor or enters an autocast region, so the common
path gains no check (a program that used half precision pays one Python call per op from then
on).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import dtypes as dt

__all__ = ["install", "installed", "to_bfloat16", "to_half"]

_BF16 = dt.bfloat16.np
_F32 = np.dtype(np.float32)
_STATE = {"installed": False}


def installed() -> bool:
    return _STATE["installed"]


_F16 = np.dtype(np.float16)
_LOW = (_BF16, _F16)


def _is_bf16(a: Any) -> bool:
    return isinstance(a, np.ndarray) and (a.dtype == _BF16 or a.dtype == _F16)


def _up(a: Any) -> Any:
    return a.astype(_F32) if _is_bf16(a) else a


def _up_all(v: Any) -> Any:
    if isinstance(v, tuple | list) and any(_is_bf16(x) for x in v):
        return type(v)(_up(x) for x in v)
    return _up(v)


def _down(out: Any, low: Any = _BF16) -> Any:
    """float32 results (and results of tuples, extras dicts) rounded to ``low``."""
    if isinstance(out, np.ndarray | np.generic):
        return out.astype(low) if out.dtype == _F32 else out
    if isinstance(out, tuple | list):
        return type(out)(_down(o, low) for o in out)
    if isinstance(out, dict):
        return {k: _down(v, low) for k, v in out.items()}
    return out


def _all_bf16(args: Any) -> Any:
    """The low dtype when some argument is a bfloat16 (float16) array and every floating one
    is (else the promoted dtype is wider and the op keeps its float32 result: False); None
    when none is."""
    seen: Any = None
    for a in args:
        if isinstance(a, tuple | list):
            inner = _all_bf16(a)
            if inner is False or (inner is not None and seen is not None and inner != seen):
                return False
            seen = seen if inner is None else inner
        elif isinstance(a, np.ndarray):
            d = a.dtype
            if d in _LOW:
                if seen is not None and d != seen:
                    return False
                seen = d
            elif d.kind == "f" and a.ndim:
                return False
    return seen


def _rounded(v: Any, low: Any) -> Any:
    """A Python float or 0-d float array operand as PyTorch casts it to the common dtype."""
    if isinstance(v, float) or (isinstance(v, np.ndarray) and v.ndim == 0
                                and v.dtype.kind == "f"):
        return float(np.float32(v).astype(low))
    return v


# NB: PyTorch's mul and div with a scalar compute with the scalar in float32, other binary
# ops (and pow's exponent) take it rounded to bfloat16 first, as they take every operand
_OPMATH_SCALAR = frozenset({"mul", "mul_scalar", "div", "div_scalar"})
_ROUNDS_SCALAR = frozenset({"rsub", "add_scalar", "sub_scalar", "rsub_tensor"})


def _forward(fwd: Callable[..., Any], key: str) -> Callable[..., Any]:
    rounds = (type(fwd) is np.ufunc or key in _ROUNDS_SCALAR) and key not in _OPMATH_SCALAR
    rounds_kw = key not in _OPMATH_SCALAR

    def forward(*args: Any, **kw: Any) -> Any:
        low = _all_bf16(args)
        if low is None and not any(_is_bf16(v) for v in kw.values()):
            return fwd(*args, **kw)
        hit = low is not None and low is not False
        if hit and rounds:
            args = tuple(_rounded(a, low) for a in args)
        if hit and rounds_kw:
            for name in ("exponent", "other"):      # NB: pow's exponent, rsub's scalar
                if name in kw:
                    kw = {**kw, name: _rounded(kw[name], low)}
        out = fwd(*[_up_all(a) for a in args], **{k: _up_all(v) for k, v in kw.items()})
        # NB: an output dtype asked for (``to``, ``sum(dtype=...)``) is the forward's own
        return _down(out, low) if hit and kw.get("dtype") is None else out
    forward.__wrapped__ = fwd         # type: ignore[attr-defined]
    return forward


def _backward(bwd: Callable[..., Any]) -> Callable[..., Any]:
    def backward(ctx: Any, grad: Any, D: Any) -> Any:
        if not _is_bf16(grad):
            return bwd(ctx, grad, D)
        out = bwd(ctx, grad.astype(_F32), D)
        # NB: each gradient rounded to its input's dtype (a float32 input keeps float32)
        res = []
        for i, g in enumerate(out):
            d = ctx.dtype(i) if i < len(ctx.node._in_meta) else None
            res.append(_down(g, d.np) if d is not None and d.np in _LOW else g)
        return tuple(res)
    backward.__wrapped__ = bwd        # type: ignore[attr-defined]
    return backward


def _upcast_getter(get: Callable[[Any], Any]) -> property:
    def upcast(ctx: Any) -> Any:
        v = get(ctx)
        return v if ctx.tensor_mode else _up_all(v)
    return property(upcast)


def install() -> None:
    """Wrap every table op's forward, backward and saved values' getters (once)."""
    if _STATE["installed"]:
        return
    _STATE["installed"] = True
    from .optable import TABLE
    for op in TABLE.values():
        # NB: ufuncs too: numpy has no promotion of bfloat16 with float16; views are left
        # alone: they compute nothing, and their output must share the input's memory
        if not op.view:
            op.forward = _forward(op.forward, op.key)
        op.backward = _backward(op.backward)
        for name in op.saved_names():
            setattr(op.ctx, name, _upcast_getter(getattr(op.ctx, name).fget))


def to_bfloat16(t: Any, memory_format: Any = None) -> Any:
    """``Tensor.bfloat16()`` (a program may reach bfloat16 without naming ``torch.bfloat16``)."""
    from .functional import to_dtype
    install()
    return to_dtype(t, dt.bfloat16)


def to_half(t: Any, memory_format: Any = None) -> Any:
    """``Tensor.half()``."""
    from .functional import to_dtype
    install()
    return to_dtype(t, dt.float16)
