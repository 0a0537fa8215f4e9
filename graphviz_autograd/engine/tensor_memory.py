"""Tensor methods about memory and storage that ordinary scripts call: ``pin_memory`` /
``is_pinned``, ``share_memory_`` / ``is_shared``, ``as_subclass`` (AliasBackward0),
``storage_type``, ``nonzero_static``, ``set_`` / ``is_set_to``, the deprecated non-in-place
``resize`` / ``resize_as`` (ResizeBackward, a custom function as PyTorch's); and
``torch.frombuffer``, ``torch.get_device``."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from . import dtypes as dt
from . import functional as F
from .autograd import apply, check_inplace
from .function import Function
from .optable import TABLE
from .pre_write import WATCH as _WATCH
from .pre_write import before_write
from .tensor import Tensor

__all__ = ["frombuffer", "get_device", "nonzero_static", "METHODS", "FUNCTIONS"]

_NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def _pin_memory(self: Tensor, device: Any = None) -> Tensor:
    raise RuntimeError(_NO_ACCELERATOR)


def _is_pinned(self: Tensor, device: Any = None) -> bool:
    return False


def _share_memory_(self: Tensor) -> Tensor:
    # NB: the engine runs in one process: the memory is marked shared, nothing moves
    self.__dict__["_shared"] = True
    return self


def _is_shared(self: Tensor) -> bool:
    base = self._base if self._base is not None else self
    return bool(base.__dict__.get("_shared", False) or self.__dict__.get("_shared", False))


def _as_subclass(self: Tensor, cls: type) -> Tensor:
    """The tensor as an instance of ``cls`` (a subclass of Tensor): an alias (AliasBackward0)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass(): argument 'cls' must be a type, not {type(cls).__name__}")
    out = apply(TABLE["alias"], (self,))
    out.__class__ = cls
    return out


def _storage_type(self: Tensor) -> type:
    from ..torch import storages
    from .misc_more import warn_typed_storage
    warn_typed_storage()
    return storages.BY_DTYPE[self._dtype.name]


def nonzero_static(input: Tensor, *, size: Any, fill_value: int = -1) -> Tensor:
    """The indices of the first ``size`` nonzero elements, padded with ``fill_value`` rows."""
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = np.argwhere(input._data).astype(np.int64)[:size]
    out = np.full((size, input._data.ndim), fill_value, np.int64)
    out[:len(found)] = found
    return Tensor._make(out, dt.int64)


def _nonzero_static(self: Tensor, *, size: Any, fill_value: int = -1) -> Tensor:
    return nonzero_static(self, size=size, fill_value=fill_value)


def _cpp(d: dt.DType) -> str:
    from .misc_more import _CPP_NAMES
    return {"float32": "float", "float64": "double", "float16": "c10::Half"}.get(
        d.name, _CPP_NAMES.get(d.name, d.name))


# -- set_ ----------------------------------------------------------------------------------------
def _set_(self: Tensor, source: Any = None, storage_offset: int = 0, size: Any = None,
          stride: Any = None) -> Tensor:
    """``self`` now views ``source``'s memory (a tensor, or a storage with offset, size and
    stride); with no source, an empty tensor. Its own version counter is bumped, not the
    source's."""
    check_inplace(self)
    if source is None:
        data = np.empty((0,), self._data.dtype)
    elif isinstance(source, Tensor):
        if source._dtype is not self._dtype:
            raise RuntimeError(f"Could not set tensor of type {_cpp(source._dtype)} to a "
                               f"tensor of type {_cpp(self._dtype)}")
        data = source._data
    else:
        flat = np.asarray(source._array).reshape(-1).view(self._data.dtype)
        shape = tuple(int(s) for s in (size if size is not None else (flat.size,)))
        if stride is None:
            stride = tuple(int(math.prod(shape[i + 1:])) for i in range(len(shape)))
        item = flat.itemsize
        data = np.lib.stride_tricks.as_strided(
            flat[int(storage_offset):], shape, tuple(int(s) * item for s in stride))
    if _WATCH:
        before_write(self)
    self._data = data
    self.__dict__["_set_to"] = data
    self._vc.v += 1
    return self


def _is_set_to(self: Tensor, tensor: Tensor) -> bool:
    a, b = self._data, tensor._data
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
            and a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype)


# -- the deprecated non-in-place resize ----------------------------------------------------------
class Resize(Function):
    """PyTorch's ``Resize`` function: a reshape that keeps the number of elements."""

    @staticmethod
    def forward(ctx: Any, tensor: Tensor, sizes: tuple[int, ...]) -> Tensor:
        ctx.sizes = sizes
        ctx.numel = math.prod(sizes)
        ctx.input_sizes = tuple(tensor.shape)
        if tensor.numel() != ctx.numel:
            shown = "x".join(map(str, sizes))
            have = "x".join(map(str, tensor.shape))
            raise RuntimeError(
                f"requested resize to {shown} ({ctx.numel} elements in total), but the given "
                f"tensor has a size of {have} ({tensor.numel()} elements). autograd's resize can "
                "only change the shape of a given tensor, while preserving the number of "
                "elements. ")
        return F.view(tensor.contiguous(), sizes)

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor, None]:
        return grad_output.contiguous().view(ctx.input_sizes), None


Resize.__qualname__ = "Resize"


def _resize(self: Tensor, *sizes: Any) -> Tensor:
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    shape = sizes[0] if len(sizes) == 1 and isinstance(sizes[0], tuple | list) else sizes
    return Resize.apply(self, tuple(int(s) for s in shape))


def _resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return Resize.apply(self, tuple(tensor.shape))


# -- torch.frombuffer ----------------------------------------------------------------------------
_warned_unwritable = [False]


def frombuffer(buffer: Any, *, dtype: dt.DType, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:
    """A 1-D tensor over an object of the buffer protocol (``bytearray``, ``array.array``,
    ``memoryview``), sharing its memory."""
    view = memoryview(buffer)
    length = view.nbytes
    item = np.dtype(dtype.np).itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % item:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({item})")
        count = (length - offset) // item
    elif offset + count * item > length:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    data = np.frombuffer(view.cast("B"), dtype.np, count, offset)
    if not data.flags.writeable:
        if not _warned_unwritable[0]:
            _warned_unwritable[0] = True
            warnings.warn(
                "The given buffer is not writable, and PyTorch does not support non-writable "
                "tensors. This means you can write to the underlying (supposedly non-writable) "
                "buffer using the tensor. You may want to copy the buffer to protect its data or "
                "make it writable before converting it to a tensor. This type of warning will be "
                "suppressed for the rest of this program. (Triggered internally at "
                "/__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:1556.)", UserWarning,
                stacklevel=2)
        # NB: numpy keeps a read-only buffer read-only: the engine's tensor is a copy of it
        data = data.copy()
    return Tensor._make(data, dtype, requires_grad)


def get_device(input: Tensor) -> int:
    """``-1``: the engine's tensors are all on the CPU."""
    return -1


METHODS: dict[str, Any] = {
    "pin_memory": _pin_memory, "is_pinned": _is_pinned, "share_memory_": _share_memory_,
    "is_shared": _is_shared, "as_subclass": _as_subclass, "storage_type": _storage_type,
    "nonzero_static": _nonzero_static, "set_": _set_, "is_set_to": _is_set_to,
    "resize": _resize, "resize_as": _resize_as,
}
FUNCTIONS: dict[str, Any] = {"frombuffer": frombuffer, "get_device": get_device,
                             "nonzero_static": nonzero_static}
