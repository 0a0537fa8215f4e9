"""Facts about dtypes and shapes: ``finfo``, ``iinfo``, ``promote_types``, ``result_type``,
``can_cast`` and ``broadcast_shapes``, as PyTorch gives and prints them."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from ..engine import dtypes as _dt
from ..engine import functional as _F
from ..engine.tensor import Size, Tensor

__all__ = ["finfo", "iinfo", "promote_types", "result_type", "can_cast", "broadcast_shapes"]


def _check_dtype(fn: str, arg: str, pos: int, d: Any) -> None:
    if not isinstance(d, _dt.DType):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be torch.dtype, not "
                        f"{type(d).__name__}")


class finfo:  # noqa: N801 -- PyTorch's name
    """``torch.finfo(dtype=float32)``: a floating dtype's limits.

    >>> finfo(_dt.float16)
    finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)
    """  # noqa: E501 -- a doctest's output line

    def __init__(self, type: Any = None) -> None:
        d = _dt.float32 if type is None else type
        if not isinstance(d, _dt.DType) or not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo "
                            "to handle 'torch.finfo'")
        info = np.finfo(d.np) if d.np.kind == "f" else ml_dtypes.finfo(d.np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = d.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))


class iinfo:  # noqa: N801 -- PyTorch's name
    """``torch.iinfo(dtype)``: an integer dtype's limits.

    >>> iinfo(_dt.int16)
    iinfo(min=-32768, max=32767, dtype=int16)
    """

    def __init__(self, type: Any) -> None:
        if isinstance(type, _dt.DType) and type is _dt.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if not isinstance(type, _dt.DType) or type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(type.np)  # type: ignore[type-var]
        self.bits, self.max, self.min = int(info.bits), int(info.max), int(info.min)
        self.dtype = type.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))


def promote_types(type1: Any, type2: Any) -> _dt.DType:
    """The smallest dtype both fit in (``uint8`` and ``int8``: ``int16``).

    >>> promote_types(_dt.int32, _dt.float16)
    torch.float16
    """
    _check_dtype("promote_types", "type1", 1, type1)
    _check_dtype("promote_types", "type2", 2, type2)
    return _dt.result_type([type1, type2], [], [])


def result_type(tensor: Any, other: Any) -> _dt.DType:
    """The dtype an op on ``tensor`` and ``other`` (tensors or numbers) gives.

    >>> result_type(Tensor._make(np.array([1], np.int8), _dt.int8), 1000)
    torch.int8
    """
    for v in (tensor, other):
        if not isinstance(v, Tensor | bool | int | float):
            names = ", ".join(_arg_name(x) for x in (tensor, other))
            marked = ", ".join(f"!{_arg_name(x, True)}!" for x in (tensor, other))
            raise TypeError(f"result_type() received an invalid combination of arguments - got "
                            f"({names}), but expected one of:\n"
                            " * (Tensor tensor, Tensor other)\n"
                            f"      didn't match because some of the arguments have invalid "
                            f"types: ({marked})\n"
                            " * (Number scalar, Tensor tensor)\n"
                            f"      didn't match because some of the arguments have invalid "
                            f"types: ({marked})\n"
                            " * (Tensor tensor, Number other)\n"
                            f"      didn't match because some of the arguments have invalid "
                            f"types: ({marked})\n"
                            " * (Number scalar1, Number scalar2)\n"
                            f"      didn't match because some of the arguments have invalid "
                            f"types: ({marked})\n")
    return _F.promote(_F.as_tensor_arg(tensor), _F.as_tensor_arg(other))


def _arg_name(x: Any, detail: bool = False) -> str:
    if isinstance(x, Tensor):
        return "Tensor"
    if detail and isinstance(x, list | tuple) and x:
        return f"{type(x).__name__} of [{', '.join(sorted({type(v).__name__ for v in x}))}]"
    return type(x).__name__


def can_cast(from_: Any, to: Any) -> bool:
    """Whether a cast keeps the kind: no float to integer, nothing but bool to bool.

    >>> can_cast(_dt.float64, _dt.int32)
    False
    """
    _check_dtype("can_cast", "from_", 1, from_)
    _check_dtype("can_cast", "to", 2, to)
    return _dt.category(from_) <= _dt.category(to)


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape tensors of these shapes broadcast to.

    >>> broadcast_shapes((2, 1), (3,))
    torch.Size([2, 3])
    """
    given = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    for s in given:
        if any(n < 0 for n in s):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
    ndim = max((len(s) for s in given), default=0)
    out = [1] * ndim
    for i, s in enumerate(given):
        for k in range(1, len(s) + 1):
            n = s[-k]
            if n == 1 or n == out[-k]:
                continue
            if out[-k] == 1:
                out[-k] = n
                continue
            raise RuntimeError(f"Attempting to broadcast a dimension of length {n} at -{k}! "
                               f"Mismatching argument at index {i} had {s}; but expected shape "
                               f"should be broadcastable to {out}")
    return Size(out)
