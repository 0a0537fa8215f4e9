"""Data types of the engine: PyTorch's dtype objects over numpy dtypes, and type promotion."""

from __future__ import annotations

import ml_dtypes
import numpy as np

__all__ = ["DType", "float32", "float64", "float16", "bfloat16", "int64", "int32", "int16",
           "int8", "uint8", "uint16", "uint32", "uint64", "bool_", "from_numpy", "default_float",
           "result_type"]


class DType:
    """A dtype as PyTorch shows it (``torch.float32``), backed by a numpy dtype."""

    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "legacy", "_rank")

    def __init__(self, name: str, np_dtype: type, legacy: str, rank: int) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        # NB: ml_dtypes' bfloat16 is numpy kind "V" (a user dtype), a float all the same
        self.is_floating_point = self.np.kind == "f" or np_dtype is ml_dtypes.bfloat16
        self.is_signed = self.np.kind in "if" or self.is_floating_point
        self.itemsize = self.np.itemsize
        self.legacy = legacy            # "torch.FloatTensor", used in version-error messages
        self._rank = rank               # position in the promotion lattice

    def __repr__(self) -> str:
        return "torch." + self.name

    __str__ = __repr__

    def __reduce__(self) -> str:
        return self.name

    @property
    def is_complex(self) -> bool:
        return False

    def to_real(self) -> DType:
        return self


bool_ = DType("bool", np.bool_, "torch.BoolTensor", 0)
uint8 = DType("uint8", np.uint8, "torch.ByteTensor", 1)
int8 = DType("int8", np.int8, "torch.CharTensor", 2)
int16 = DType("int16", np.int16, "torch.ShortTensor", 3)
int32 = DType("int32", np.int32, "torch.IntTensor", 4)
int64 = DType("int64", np.int64, "torch.LongTensor", 5)
float16 = DType("float16", np.float16, "torch.HalfTensor", 6)
# NB: same rank as float16; the two promote to float32 (see _promote)
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, "torch.BFloat16Tensor", 6)
float32 = DType("float32", np.float32, "torch.FloatTensor", 7)
float64 = DType("float64", np.float64, "torch.DoubleTensor", 8)
# NB: PyTorch's "shell" unsigned dtypes: storage and conversion, no promotion with other integers
uint16 = DType("uint16", np.uint16, "torch.UInt16Tensor", 9)
uint32 = DType("uint32", np.uint32, "torch.UInt32Tensor", 10)
uint64 = DType("uint64", np.uint64, "torch.UInt64Tensor", 11)
_SHELL = 9                              # the first shell dtype's rank

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, uint16, uint32, uint64,
       bfloat16)
_BY_NP = {d.np: d for d in ALL}
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2}


def default_float() -> DType:
    return float32


def from_numpy(np_dtype: np.dtype) -> DType:
    """The engine dtype of a numpy dtype (unsigned and odd widths map to the nearest)."""
    try:
        return _BY_NP[np_dtype]
    except KeyError:
        kind = np_dtype.kind
        if kind == "f":
            return float64
        if kind == "b":
            return bool_
        return int64


def category(d: DType) -> int:
    return _CATEGORY[d.np.kind]


def _promote(a: DType, b: DType) -> DType:
    if a is b:
        return a
    if a._rank >= _SHELL or b._rank >= _SHELL:
        return _promote_shell(a, b)
    if category(a) != category(b):
        return a if category(a) > category(b) else b
    if {a, b} == {uint8, int8}:         # NB: neither holds the other's range
        return int16
    if {a, b} == {float16, bfloat16}:   # NB: neither holds the other's range or precision
        return float32
    return a if a._rank >= b._rank else b


def _promote_shell(a: DType, b: DType) -> DType:
    """Only a floating dtype promotes with uint16/32/64, as in PyTorch."""
    if a.is_floating_point or b.is_floating_point:
        return a if a.is_floating_point else b
    from .messages import SCALAR_NAME
    raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted "
                       f"to promote {SCALAR_NAME[a.name]} and {SCALAR_NAME[b.name]}")


def scalar_dtype(value: object) -> DType:
    """The dtype PyTorch wraps a Python scalar in (``2`` -> int64, ``2.5`` -> float64)."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    return float64


def result_type(dims: list[DType], zero_dims: list[DType], scalars: list[DType]) -> DType:
    """PyTorch's promotion: dimensioned tensors > 0-dim tensors > Python scalars.

    A lower-priority group only wins when its category (bool < int < float) is higher, and a
    Python float then gives the default float dtype, a Python int gives int64.
    """
    out: DType | None = None
    for d in dims:
        out = d if out is None else _promote(out, d)
    zd: DType | None = None
    for d in zero_dims:
        zd = d if zd is None else _promote(zd, d)
    if zd is not None and (out is None or category(zd) > category(out)):
        out = zd
    sc: DType | None = None
    for d in scalars:
        sc = d if sc is None else _promote(sc, d)
    if sc is not None:
        if out is None:
            out = float32 if sc is float64 else sc
        elif category(sc) > category(out):
            out = float32 if category(sc) == 2 else int64
    assert out is not None
    return out
