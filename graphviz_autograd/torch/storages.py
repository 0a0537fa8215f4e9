"""The legacy typed storage classes (``torch.FloatStorage``, ``torch.LongStorage``, ...): what
``Tensor.storage_type()`` returns; ``isinstance(t.storage(), torch.FloatStorage)`` holds for a
float32 tensor's storage, as in PyTorch."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine import dtypes as dt
from ..engine.misc_more import TypedStorage, warn_typed_storage

__all__ = ["BY_DTYPE", "FloatStorage", "DoubleStorage", "HalfStorage", "LongStorage",
           "IntStorage", "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage", "Storage"]


class _LegacyStorageMeta(type):
    def __instancecheck__(cls, other: Any) -> bool:
        return isinstance(other, TypedStorage) and other.dtype is cls.dtype  # type: ignore[attr-defined]


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """``torch.FloatStorage(n)`` (n elements) or ``torch.FloatStorage(sequence)``."""

    dtype: dt.DType = dt.float32

    def __init__(self, *args: Any) -> None:
        warn_typed_storage()
        if len(args) == 1 and not isinstance(args[0], int):
            array = np.array(list(args[0]), dtype=self.dtype.np)
        else:
            # NB: PyTorch's new storage is uninitialised; the engine's is zero
            array = np.zeros(int(args[0]) if args else 0, dtype=self.dtype.np)
        TypedStorage.__init__(self, array, type(self).dtype)

    def __repr__(self) -> str:
        return TypedStorage.__repr__(self)


def _storage(name: str, d: dt.DType) -> type:
    cls = _LegacyStorageMeta(name, (_LegacyStorage,), {"dtype": d, "__module__": "torch"})
    cls.__qualname__ = name
    return cls


FloatStorage = _storage("FloatStorage", dt.float32)
DoubleStorage = _storage("DoubleStorage", dt.float64)
HalfStorage = _storage("HalfStorage", dt.float16)
LongStorage = _storage("LongStorage", dt.int64)
IntStorage = _storage("IntStorage", dt.int32)
ShortStorage = _storage("ShortStorage", dt.int16)
CharStorage = _storage("CharStorage", dt.int8)
ByteStorage = _storage("ByteStorage", dt.uint8)
BoolStorage = _storage("BoolStorage", dt.bool_)
Storage = FloatStorage

BY_DTYPE: dict[str, type] = {c.dtype.name: c for c in (  # type: ignore[attr-defined]
    FloatStorage, DoubleStorage, HalfStorage, LongStorage, IntStorage, ShortStorage,
    CharStorage, ByteStorage, BoolStorage)}
