"""Comparisons in place (``eq_``, ``lt_``, ... : PyTorch's ``EqBackward0/1`` nodes, whose
gradients are zeros), their long names (``greater``, ``less_equal``, ``not_equal``), bitwise ops
and shifts with their in-place forms, predicates (``isneginf``, ``is_nonzero``, ``is_signed``,
...) and a tensor's storage facts (``itemsize``, ``storage_offset``, ``get_device``, its layout;
the memory formats PyTorch names)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as dt
from . import events
from . import functional as F
from . import messages as msg
from .autograd import apply_inplace, check_inplace
from .optable import Op, register
from .pre_write import WATCH as _WATCH
from .pre_write import before_write
from .tensor import Tensor

__all__ = ["METHODS", "COMPARISONS", "bitwise_", "is_nonzero", "storage_offset", "layout",
           "memory_format", "strided", "sparse_coo", "contiguous_format", "channels_last",
           "channels_last_3d", "preserve_format"]

COMPARISONS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
               "gt": np.greater, "ge": np.greater_equal}
# PyTorch's long names of the comparisons
ALIASES = {"greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
           "not_equal": "ne"}


def _zeros_self(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    return (D.zeros_like(g),)


def _zeros_both(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    return (D.zeros_like(g) if c.needs[0] else None,
            D.zeros(c.shape(1), g) if c.needs[1] else None)


def _scalar_forward(fn: Any) -> Any:
    return lambda x, other: fn(x, other).astype(x.dtype)


def _tensor_forward(fn: Any) -> Any:
    return lambda x, y: fn(x, y).astype(x.dtype)


register(*(op for key, fn in COMPARISONS.items() for op in (
    Op(f"{key}_", f"{key.title()}Backward0", ("self",), _scalar_forward(fn), _zeros_self),
    Op(f"{key}_tensor_", f"{key.title()}Backward1", ("self", "other"), _tensor_forward(fn),
       _zeros_both))))


def _compare_(key: str) -> Any:
    """``t.eq_(other)``: the comparison written into ``t`` in its own dtype (1 or 0)."""
    def m(self: Tensor, other: Any) -> Tensor:
        if isinstance(other, Tensor):
            if other._data.shape != self._data.shape:
                check_inplace(self, (other,))
                F._check_output(self._data.shape,
                                F._broadcast_all(self._data.shape, other._data.shape))
            return apply_inplace(F._T[f"{key}_tensor_"], self, (other,))
        return apply_inplace(F._T[f"{key}_"], self, (), {"other": other})
    m.__name__ = key + "_"
    return m


def _compare(key: str) -> Any:
    def m(self: Tensor, other: Any) -> Tensor:
        return getattr(self, key)(other)
    m.__name__ = key
    return m


def _kernel_name(name: str) -> str:
    return name if "shift" in name else f"bitwise_{name}"


def bitwise_(name: str) -> Any:
    """``t.bitwise_and_(other)``, ``t <<= 2``, ...: integer and bool tensors only, which never
    require grad: a plain write that bumps the version."""
    def m(self: Tensor, other: Any) -> Tensor:
        out = F.bitwise(name, self, other)
        if out._dtype is not self._dtype and dt.category(out._dtype) > dt.category(self._dtype):
            raise RuntimeError(
                f"result type {msg.SCALAR_NAME.get(out._dtype.name, out._dtype.name)} can't be "
                "cast to the desired output type "
                f"{msg.SCALAR_NAME.get(self._dtype.name, self._dtype.name)}")
        F._check_output(self._data.shape, out._data.shape)
        _write(self, out._data)
        return self
    m.__name__ = f"bitwise_{name}_"
    return m


def _write(self: Tensor, values: np.ndarray) -> None:
    check_inplace(self)
    if not self._data.flags.writeable:
        raise RuntimeError(msg.OVERLAPPING_WRITE)
    if _WATCH:
        before_write(self)
    self._data[...] = values
    self._vc.v += 1
    if events.listeners and self._vc.saves:
        events.emit("tensor_modified", self, None)


def _bitwise_not_(self: Tensor) -> Tensor:
    if self._dtype.is_floating_point:
        raise NotImplementedError('"bitwise_not_cpu" not implemented for '
                                  f"'{msg.SCALAR_NAME.get(self._dtype.name, self._dtype.name)}'")
    _write(self, np.invert(self._data))
    return self


def _bitwise_not(self: Tensor) -> Tensor:
    if self._dtype.is_floating_point:
        raise NotImplementedError('"bitwise_not_cpu" not implemented for '
                                  f"'{msg.SCALAR_NAME.get(self._dtype.name, self._dtype.name)}'")
    return F.invert(self)


def _shift(name: str) -> Any:
    def m(self: Tensor, other: Any) -> Tensor:
        return F.bitwise(name, self, other)
    m.__name__ = f"bitwise_{name[0]}{'eft' if name[0] == 'l' else 'ight'}_shift"
    return m


def _infinite(sign: int) -> Any:
    def m(self: Tensor) -> Tensor:
        return Tensor._make(np.asarray(np.isinf(self._data) & (np.sign(self._data) == sign)
                                       if self._dtype.is_floating_point
                                       else np.zeros(self._data.shape, np.bool_)), dt.bool_)
    return m


def is_nonzero(self: Tensor) -> bool:
    """``bool()`` of a one-element tensor, PyTorch's errors otherwise."""
    if not isinstance(self, Tensor):
        raise TypeError("is_nonzero(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(self).__name__}")
    n = self._data.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self._data.reshape(-1)[0])


def storage_offset(self: Tensor) -> int:
    """Where a view starts in its base's memory, in elements (0 for a tensor of its own)."""
    base = self._base
    if base is None or self._data.size == 0:
        return 0
    start = self._data.__array_interface__["data"][0]
    origin = base._data.__array_interface__["data"][0]
    return (start - origin) // self._data.itemsize


def _cast(d: dt.DType) -> Any:
    def conv(self: Tensor, memory_format: Any = None) -> Tensor:
        return F.to_dtype(self, d)
    return conv


class layout:  # noqa: N801 -- PyTorch's name
    """``torch.strided`` (every engine tensor's) and ``torch.sparse_coo``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


class memory_format:  # noqa: N801 -- PyTorch's name
    """``torch.contiguous_format`` and friends: accepted where PyTorch takes them; the engine
    lays every tensor out row-major."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


strided, sparse_coo = layout("strided"), layout("sparse_coo")
contiguous_format, channels_last, channels_last_3d, preserve_format = (
    memory_format(n) for n in ("contiguous_format", "channels_last", "channels_last_3d",
                               "preserve_format"))


# the channels-last formats: their rank and their dims from outermost to innermost in memory
_LAYOUTS = {"channels_last": (4, (0, 2, 3, 1)), "channels_last_3d": (5, (0, 2, 3, 4, 1))}


def _layout_of(fmt: Any) -> tuple[int, tuple[int, ...]] | None:
    return _LAYOUTS.get(fmt.name) if isinstance(fmt, memory_format) else None


def _dense_in(t: Tensor, perm: tuple[int, ...]) -> bool:
    """Whether ``t`` lies in memory densely in the order ``perm`` (size-1 dims aside)."""
    expected = 1
    for d in reversed(perm):
        n = t._data.shape[d]
        if n != 1:
            if t._data.strides[d] != expected * t._data.itemsize:
                return False
            expected *= n
    return True


def _check_rank(t: Tensor, fmt: Any, rank: int) -> None:
    if t._data.ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")


def _relaid(t: Tensor, perm: tuple[int, ...]) -> Tensor:
    """A clone (CloneBackward0) laid out in the order ``perm``."""
    out = F.clone(t, contiguous=True)
    # NB: CloneBackward0 saves nothing, so its output's array can still be swapped
    out._data = np.ascontiguousarray(out._data.transpose(perm)).transpose(np.argsort(perm))
    return out


def _is_contiguous(self: Tensor, memory_format: Any = None) -> bool:
    layout_ = _layout_of(memory_format)
    if layout_ is None:
        return bool(self._data.flags.c_contiguous)
    return self._data.ndim == layout_[0] and _dense_in(self, layout_[1])


def _contiguous(self: Tensor, memory_format: Any = None) -> Tensor:
    """``contiguous()``, or laid out channels last (a CloneBackward0 unless already so)."""
    layout_ = None if memory_format is None else _layout_of(memory_format)
    if layout_ is None:
        return F.contiguous(self)
    _check_rank(self, memory_format, layout_[0])
    return self if _dense_in(self, layout_[1]) else _relaid(self, layout_[1])


def _clone(self: Tensor, memory_format: Any = None) -> Tensor:
    """``clone()`` keeps the layout; ``contiguous_format`` or a channels-last format sets it."""
    if memory_format is None or memory_format is preserve_format:
        return F.clone(self)
    layout_ = _layout_of(memory_format)
    if layout_ is None:
        return F.clone(self, contiguous=True)
    _check_rank(self, memory_format, layout_[0])
    return _relaid(self, layout_[1])


METHODS: dict[str, Any] = {
    "is_contiguous": _is_contiguous, "contiguous": _contiguous, "clone": _clone,
    **{f"{k}_": _compare_(k) for k in COMPARISONS},
    **{a: _compare(k) for a, k in ALIASES.items()},
    **{f"{a}_": _compare_(k) for a, k in ALIASES.items()},
    **{f"bitwise_{k}_": bitwise_(k) for k in ("and", "or", "xor")},
    **{f"__i{k}__": bitwise_(k) for k in ("and", "or", "xor", "lshift", "rshift")},
    "bitwise_not": _bitwise_not, "bitwise_not_": _bitwise_not_,
    "bitwise_left_shift": _shift("lshift"), "bitwise_right_shift": _shift("rshift"),
    "bitwise_left_shift_": bitwise_("lshift"), "bitwise_right_shift_": bitwise_("rshift"),
    "isneginf": _infinite(-1), "isposinf": _infinite(1),
    "isreal": lambda s: Tensor._make(np.ones(s._data.shape, np.bool_), dt.bool_),
    "is_nonzero": is_nonzero,
    "is_same_size": lambda s, o: s._data.shape == o._data.shape,
    "is_signed": lambda s: s._dtype.is_signed,
    "is_complex": lambda s: False, "is_conj": lambda s: False, "is_neg": lambda s: False,
    "allclose": lambda s, o, rtol=1e-05, atol=1e-08, equal_nan=False: allclose(
        s, o, rtol, atol, equal_nan),
    "equal": lambda s, o: equal(s, o),
    "isclose": lambda s, o, rtol=1e-05, atol=1e-08, equal_nan=False: isclose(
        s, o, rtol, atol, equal_nan),
    "ndimension": lambda s: s._data.ndim, "storage_offset": storage_offset,
    "get_device": lambda s: -1,
    "itemsize": property(lambda s: s._dtype.itemsize),
    "is_cpu": property(lambda s: True), "is_sparse": property(lambda s: False),
    "is_quantized": property(lambda s: False), "is_meta": property(lambda s: False),
    "layout": property(lambda s: strided),
    "byte": _cast(dt.uint8), "char": _cast(dt.int8), "short": _cast(dt.int16),
}


def _same_dtype(a: Tensor, b: Tensor) -> None:
    if a._dtype is not b._dtype:
        raise RuntimeError(f"{msg.SCALAR_NAME.get(b._dtype.name, b._dtype.name)} did not match "
                           f"{msg.SCALAR_NAME.get(a._dtype.name, a._dtype.name)}")


def isclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """``|a - b| <= atol + rtol * |b|`` elementwise (equal values, infinities included, are
    close), both of one dtype."""
    _same_dtype(b, a)
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    F._broadcast_all(a._data.shape, b._data.shape)
    with np.errstate(all="ignore"):
        out = np.isclose(a._data, b._data, rtol, atol, equal_nan)
    return Tensor._make(np.asarray(out), dt.bool_)


def allclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    return bool(isclose(a, b, rtol, atol, equal_nan)._data.all())


def equal(a: Tensor, b: Tensor) -> bool:
    """Same shape and same values (after promotion to a common dtype)."""
    return a._data.shape == b._data.shape and bool(np.array_equal(a._data, b._data))
