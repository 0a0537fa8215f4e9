"""Tensor methods and ``torch.*`` functions ordinary scripts use now and then: storages
(``untyped_storage``, ``storage``), ``sum_to_size``, ``new_empty_strided``, ``resize_`` /
``resize_as_``, ``frexp`` (FrexpBackward0, ``ops_special_more``), ``heaviside_``, ``apply_`` /
``map_`` / ``map2_``; the window functions (computed in their dtype as PyTorch's); ``rsub``,
``fill``, ``gradient``, ``as_strided_scatter``, ``index_reduce``,
``is_inference_mode_enabled``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes as dt
from . import functional as F
from . import messages as msg
from .autograd import apply, apply_inplace
from .device import CPU, device
from .grad_mode import state as grad_state
from .node import storage_of
from .optable import TABLE
from .pre_write import WATCH as _WATCH
from .pre_write import before_write
from .tensor import Tensor

__all__ = ["UntypedStorage", "TypedStorage", "frexp", "hann_window", "hamming_window",
           "blackman_window", "bartlett_window", "kaiser_window", "rsub", "fill", "gradient",
           "as_strided_scatter", "index_reduce", "is_inference_mode_enabled", "METHODS",
           "FUNCTIONS"]


# -- storages ------------------------------------------------------------------------------------
def _root(t: Tensor) -> np.ndarray:
    """The memory a tensor views (PyTorch's storage): the array owning its data."""
    return storage_of(t._data)


class UntypedStorage:
    """The bytes under a tensor (``Tensor.untyped_storage()``): enough for identity and size
    checks (``data_ptr()``, ``nbytes()``, ``size()``, ``element_size()``)."""

    def __init__(self, array: np.ndarray) -> None:
        self._array = array

    def data_ptr(self) -> int:
        return int(self._array.__array_interface__["data"][0])

    def nbytes(self) -> int:
        return int(self._array.nbytes)

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    @property
    def device(self) -> device:
        return CPU

    @property
    def dtype(self) -> dt.DType:
        return dt.uint8

    def untyped(self) -> UntypedStorage:
        return self

    def tolist(self) -> list[int]:
        return np.ascontiguousarray(self._array).view(np.uint8).reshape(-1).tolist()

    def is_shared(self) -> bool:
        return False

    def __repr__(self) -> str:
        return (" " + "\n ".join(str(b) for b in self.tolist())
                + f"\n[torch.storage.UntypedStorage(device=cpu) of size {self.nbytes()}]")


_TYPED_WARNING = ("TypedStorage is deprecated. It will be removed in the future and "
                  "UntypedStorage will be the only storage class. This should only matter to "
                  "you if you are using storages directly.  To access UntypedStorage directly, "
                  "use tensor.untyped_storage() instead of tensor.storage()")
_warned = [False]


class TypedStorage:
    """``Tensor.storage()``: the elements under a tensor, typed (deprecated: PyTorch warns once
    per process)."""

    def __init__(self, array: np.ndarray, dtype: dt.DType) -> None:
        self._array = array
        self.dtype = dtype

    def data_ptr(self) -> int:
        return int(self._array.__array_interface__["data"][0])

    def nbytes(self) -> int:
        return int(self._array.nbytes)

    def size(self) -> int:
        return int(self._array.size)

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return int(self._array.itemsize)

    @property
    def device(self) -> device:
        return CPU

    def untyped(self) -> UntypedStorage:
        return UntypedStorage(self._array)

    def _untyped_storage(self) -> UntypedStorage:
        return self.untyped()

    def tolist(self) -> list[Any]:
        return np.ascontiguousarray(self._array).reshape(-1).tolist()

    def __getitem__(self, i: Any) -> Any:
        return self.tolist()[i]

    def __repr__(self) -> str:
        return (" " + "\n ".join(str(v) for v in self.tolist())
                + f"\n[torch.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size "
                f"{self.size()}]")


def _untyped_storage(self: Tensor) -> UntypedStorage:
    return UntypedStorage(_root(self))


def warn_typed_storage() -> None:
    """PyTorch's TypedStorage deprecation warning, once per process."""
    if not _warned[0]:
        _warned[0] = True
        msg.warn_user(_TYPED_WARNING, UserWarning)


def _storage(self: Tensor) -> TypedStorage:
    warn_typed_storage()
    return TypedStorage(_root(self), self._dtype)


# -- shapes and memory ---------------------------------------------------------------------------
def _sizes(args: tuple[Any, ...]) -> tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], tuple | list):
        return tuple(int(s) for s in args[0])
    return tuple(int(s) for s in args)


def _sum_to_size(self: Tensor, *size: Any) -> Tensor:
    shape = _sizes(size)
    have = tuple(self._data.shape)
    lead = len(have) - len(shape)
    if lead < 0 or any(s != 1 and s != h for s, h in zip(shape, have[lead:], strict=True)):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(have)}}}.")
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape)
                                if s == 1 and have[lead + i] != 1]
    if not dims:
        return self
    out = self.sum(dims, keepdim=True)
    return out.view(shape) if lead else out


def _new_empty_strided(self: Tensor, size: Any, stride: Any, *, dtype: Any = None,
                       layout: Any = None, device: Any = None, pin_memory: bool = False,
                       requires_grad: bool = False) -> Tensor:
    from .creation_extra import empty_strided
    return empty_strided(size, stride, dtype=dtype or self._dtype, requires_grad=requires_grad)


def _no_resize(self: Tensor) -> None:
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")


def _resize_(self: Tensor, *sizes: Any, memory_format: Any = None) -> Tensor:
    _no_resize(self)
    shape = _sizes(sizes)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: "
                           f"{list(shape)}")
    n = math.prod(shape)
    flat = self._data.reshape(-1)
    if n <= flat.size:
        data = np.ascontiguousarray(flat[:n]).reshape(shape)
    else:
        # NB: PyTorch's new memory is uninitialised; the engine's is zero
        data = np.zeros(n, self._data.dtype)
        data[:flat.size] = flat
        data = data.reshape(shape)
    if _WATCH:
        before_write(self)
    self._data = data
    self._vc.v += 1
    return self


def _resize_as_(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    _no_resize(self)
    return _resize_(self, tuple(the_template._data.shape))


# -- elementwise Python functions ----------------------------------------------------------------
def _python_map(name: str, self: Tensor, others: tuple[Tensor, ...], fn: Any) -> Tensor:
    if self.requires_grad and grad_state.enabled:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    arrays = [np.broadcast_to(o._data, self._data.shape) for o in others]
    kind = type(self._data.reshape(-1)[:1].tolist()[0]) if self._data.size else float
    out = self._data
    for i in np.ndindex(out.shape):
        out[i] = kind(fn(out[i].item(), *[a[i].item() for a in arrays]))
    return self


def _apply_(self: Tensor, callable: Any) -> Tensor:
    return _python_map("apply_", self, (), callable)


def _map_(self: Tensor, tensor: Tensor, callable: Any) -> Tensor:
    return _python_map("map_", self, (tensor,), callable)


def _map2_(self: Tensor, x: Tensor, y: Tensor, callable: Any) -> Tensor:
    return _python_map("map2_", self, (x, y), callable)


def _heaviside_(self: Tensor, values: Tensor) -> Tensor:
    if values._dtype is not self._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return apply_inplace(TABLE["heaviside"], self, (values,))


# -- frexp ---------------------------------------------------------------------------------------
class frexp_result(tuple):  # noqa: N801 -- PyTorch's name
    """``torch.return_types.frexp(mantissa, exponent)``."""

    __slots__ = ()
    __module__ = "torch.return_types"

    def __new__(cls, mantissa: Tensor, exponent: Tensor) -> frexp_result:
        return super().__new__(cls, (mantissa, exponent))

    @property
    def mantissa(self) -> Tensor:
        return self[0]

    @property
    def exponent(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return (f"torch.return_types.frexp(\nmantissa={self.mantissa!r},\n"
                f"exponent={self.exponent!r})")


frexp_result.__name__ = frexp_result.__qualname__ = "frexp"


def frexp(input: Tensor) -> frexp_result:
    """Mantissa in [0.5, 1) and int32 exponent (``FrexpBackward0`` on the mantissa)."""
    if not input._dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    op = TABLE["frexp"]
    mantissa = apply(op, (input,), None, dtype=input._dtype)
    fn = mantissa._grad_fn
    slot = fn._saved.get("exponent") if fn is not None and fn._saved else None
    if slot is not None and slot.tensor is not None:
        exponent = slot.tensor
    else:       # NB: no node, or a saved-tensor hook keeps the exponent: computed again
        exponent = Tensor._make(np.frexp(input._data)[1].astype(np.int32), dt.int32)
    return frexp_result(mantissa, exponent)


# -- window functions ----------------------------------------------------------------------------
_CPP_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def _window(name: str, length: int, periodic: bool, dtype: Any, requires_grad: bool,
            fn: Any) -> Tensor:
    d = dtype or dt.float32
    if not d.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{_CPP_NAMES.get(d.name, d.name)}, device=cpu, layout=Strided "
                           "(default), requires_grad=false (default), pinned_memory=false, "
                           "memory_format=(nullopt))")
    if length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={length}")
    if length <= 1:
        data = np.ones(length, d.np)
    else:
        n = length + 1 if periodic else length
        with np.errstate(all="ignore"):
            data = np.asarray(fn(n, d.np), d.np)[:length]
    out = Tensor._make(np.ascontiguousarray(data), d)
    return out.requires_grad_() if requires_grad else out


def _cosine_sum(alpha: float, beta: float) -> Any:
    def fn(n: int, np_dtype: Any) -> Any:
        w = np.arange(n, dtype=np_dtype) * np_dtype.type(2 * math.pi / (n - 1))
        return np.cos(w) * np_dtype.type(-beta) + np_dtype.type(alpha)
    return fn


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: Any = None, layout: Any = None,
                   device: Any = None, pin_memory: bool = False,
                   requires_grad: bool = False) -> Tensor:
    return _window("hamming_window", window_length, periodic, dtype, requires_grad,
                   _cosine_sum(alpha, beta))


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                layout: Any = None, device: Any = None, pin_memory: bool = False,
                requires_grad: bool = False) -> Tensor:
    return _window("hann_window", window_length, periodic, dtype, requires_grad,
                   _cosine_sum(0.5, 0.5))


def _blackman(n: int, np_dtype: Any) -> Any:
    t = np_dtype.type
    w = np.arange(n, dtype=np_dtype) * t(math.pi / (n - 1))
    return np.cos(w * t(4)) * t(0.08) - np.cos(w * t(2)) * t(0.5) + t(0.42)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    layout: Any = None, device: Any = None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, _blackman)


def _bartlett(n: int, np_dtype: Any) -> Any:
    w = np.arange(n, dtype=np_dtype) * np_dtype.type(2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    w[half:] = -w[half:] + np_dtype.type(2)
    return w


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    layout: Any = None, device: Any = None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, _bartlett)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: Any = None, layout: Any = None, device: Any = None,
                  pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    def fn(n: int, np_dtype: Any) -> Any:
        alpha = (n - 1) / 2.0
        a = np.arange(n, dtype=np.float64)
        arg = beta * np.sqrt(np.abs(1 - ((a - alpha) / alpha) ** 2))
        # NB: computed in float64, PyTorch's in the dtype: float32 may differ by an ulp
        return np.i0(arg) / np.i0(beta)
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, fn)


# -- small functions -----------------------------------------------------------------------------
def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input`` (RsubBackward0 of two tensors, RsubBackward1 of a number)."""
    if isinstance(other, Tensor):
        F._check_broadcast(input, other)
        return apply(TABLE["rsub_tensor"], (input, other), {"alpha": alpha},
                     dtype=F.promote(input, other))
    if alpha != 1:
        dtype = F.promote(input, F.scalar_tensor(other))
        return apply(TABLE["rsub"], (input,), {"other": other, "alpha": alpha}, dtype=dtype)
    return F.rsub(input, other)


def fill(input: Tensor, value: Any) -> Tensor:
    """``torch.fill``: a filled copy (FillBackward0 / FillBackward1)."""
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError("fill only supports 0-dimension value tensor but got tensor "
                               f"with {value._data.ndim} dimensions.")
        return apply(TABLE["fill_out_tensor"], (input, value), None,
                     (input._data, value._data.astype(input._data.dtype)), input._dtype)
    return apply(TABLE["fill_out"], (input,), {"value": value}, dtype=input._dtype)


def _scalar(key: str, t: Tensor, v: Any) -> Tensor:
    """``t * v`` / ``t / v`` as ATen's scalar overloads (MulBackward1, DivBackward1)."""
    dtype = F.promote(t, F.scalar_tensor(v))
    return apply(TABLE[key], (t,), {"other": v}, dtype=F._float(dtype) if key[0] == "d" else dtype)


def _edges(t: Tensor, d: int, dx: Any, edge_order: int) -> tuple[Tensor, Tensor]:
    def sl(start: int, end: Any) -> Tensor:
        return F.slice_(t, d, start, end)

    if edge_order == 1:
        # NB: right operands first, as PyTorch's compiled C++ evaluates them
        right = sl(0, 1)
        prepend = _scalar("div_scalar", F.sub(sl(1, 2), right), dx)
        right = sl(-2, -1)
        append = _scalar("div_scalar", F.sub(sl(-1, None), right), dx)
        return prepend, append
    c = _scalar("mul_scalar", sl(2, 3), 0.5)
    b = _scalar("mul_scalar", sl(1, 2), 2)
    prepend = F.sub(F.add(_scalar("mul_scalar", sl(0, 1), -1.5), b), c)
    prepend = _scalar("div_scalar", prepend, dx)
    c = _scalar("mul_scalar", sl(-1, None), 1.5)
    b = _scalar("mul_scalar", sl(-2, -1), 2)
    append = F.add(F.sub(_scalar("mul_scalar", sl(-3, -2), 0.5), b), c)
    return prepend, _scalar("div_scalar", append, dx)


def _gradient_coordinates(t: Tensor, d: int, coords: Tensor, edge_order: int) -> Tensor:
    """One dim of ``torch.gradient`` at unevenly spaced coordinates: PyTorch's weights of the
    neighbours (second order inside), its one-sided edges."""
    def sl(start: int, end: Any) -> Tensor:
        return F.slice_(t, d, start, end)

    shape = [1] * t.dim()
    shape[d] = -1
    dx = coords.diff()
    dx1, dx2 = F.slice_(dx, 0, 0, -1), F.slice_(dx, 0, 1, None)
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * sl(0, -2) + b * sl(1, -1) + c * sl(2, None)
    if edge_order == 1:
        prepend = (sl(1, 2) - sl(0, 1)) / dx[0]
        append = (sl(-1, None) - sl(-2, -1)) / dx[-1]
    else:
        h0, h1 = dx[0], dx[1]
        prepend = (-(2.0 * h0 + h1) / (h0 * (h0 + h1)) * sl(0, 1)
                   + (h0 + h1) / (h0 * h1) * sl(1, 2) + (-h0) / (h1 * (h0 + h1)) * sl(2, 3))
        hl, hm = dx[-1], dx[-2]
        append = (hl / (hm * (hl + hm)) * sl(-3, -2) + (-(hl + hm)) / (hl * hm) * sl(-2, -1)
                  + (2 * hl + hm) / (hl * (hl + hm)) * sl(-1, None))
    return F.cat([prepend, center, append], d)


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None,
             edge_order: int = 1) -> tuple[Tensor, ...]:
    """Central differences inside, one-sided at the edges (``edge_order`` 1 or 2), along each
    dim, node for node as PyTorch's composite (slices, subtractions, divisions by the spacing,
    a cat); the spacing as numbers, or as coordinates (tensors) per dim."""
    n = input.dim()
    dims = list(range(n)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [F._dim(d, n) for d in dims]
    if isinstance(spacing, list | tuple):
        steps = list(spacing)
        if len(steps) != len(dims) and dim is None:
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or "
                               "a list of length equal to 'self.dim() = "
                               f"{n}', since dim argument was not given, but got a list of "
                               f"length {len(steps)}")
        if len(steps) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or "
                               f"it's spacing and dim arguments to have the same length, but got "
                               f"a spacing argument of length {len(steps)} and a dim argument "
                               f"of length {len(dims)}.")
    else:
        steps = [spacing] * len(dims)
    coords = any(isinstance(s, Tensor) for s in steps)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input._data.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    out = []
    for d, dx in zip(dims, steps, strict=True):
        if coords:
            out.append(_gradient_coordinates(input, d, dx, edge_order))
            continue
        dx = float(dx) if isinstance(dx, int) and not isinstance(dx, bool) else dx
        right = F.slice_(input, d, 0, -2)
        center = _scalar("div_scalar", F.sub(F.slice_(input, d, 2, None), right), dx)
        prepend, append = _edges(input, d, dx, edge_order)
        out.append(F.cat([prepend, _scalar("div_scalar", center, 2), append], d))
    return tuple(out)


def as_strided_scatter(input: Tensor, src: Tensor, size: Any, stride: Any,
                       storage_offset: Any = None) -> Tensor:
    """A copy of ``input`` with ``src`` written where ``input.as_strided(size, stride,
    storage_offset)`` would look (AsStridedScatterBackward0)."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if tuple(src._data.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._data.shape)}, slice size = {list(size)}")
    kw = {"size": size, "stride": stride, "storage_offset": storage_offset}
    return apply(TABLE["as_strided_scatter"], (input, src), kw,
                 (input._data, src._data.astype(input._data.dtype)), input._dtype)


_BETA_WARNED = [False]


def _index_reduce_args(name: str, self: Tensor, dim: int, index: Tensor, source: Tensor,
                       reduce: str, include_self: bool) -> dict[str, Any]:
    if not _BETA_WARNED[0]:
        # NB: PyTorch warns once per process
        _BETA_WARNED[0] = True
        msg.warn_user("index_reduce() is in beta and the API may change at any time.",
                      UserWarning)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"{name}(): Expected reduce to be one of prod, mean, amax or amin but "
                           f"got {reduce}.")
    d = F._dim(dim, max(self._data.ndim, 1))
    if index._data.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{index._data.ndim} with type: {index._dtype.legacy[6:-6]} and size: "
                         f"{list(index._data.shape)}")
    if index._dtype not in (dt.int64, dt.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{index._dtype.legacy[6:-6]}")
    size = source._data.shape[d] if source._data.ndim else 1
    if index._data.size != size:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index._data.size}) should be "
                           f"equal to source.size(dim): ({size}), for dim: {dim}")
    n = self._data.shape[d] if self._data.ndim else 1
    if index._data.size and (index._data.max() >= n or index._data.min() < -n):
        raise IndexError("index out of range in self")
    return {"dim": d, "index": index, "reduce": reduce, "include_self": bool(include_self)}


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """``source`` reduced into a copy of ``input`` at ``index`` along ``dim``
    (IndexReduceBackward0)."""
    kw = _index_reduce_args("index_reduce", input, dim, index, source, reduce, include_self)
    return apply(TABLE["index_reduce"], (input, source), kw, dtype=input._dtype)


def _index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    kw = _index_reduce_args("index_reduce_", self, dim, index, source, reduce, include_self)
    return apply_inplace(TABLE["index_reduce"], self, (source,), kw)


def is_inference_mode_enabled() -> bool:
    return bool(grad_state.inference)


METHODS: dict[str, Any] = {
    "untyped_storage": _untyped_storage, "storage": _storage, "sum_to_size": _sum_to_size,
    "new_empty_strided": _new_empty_strided, "resize_": _resize_, "resize_as_": _resize_as_,
    "apply_": _apply_, "map_": _map_, "map2_": _map2_, "heaviside_": _heaviside_,
    "frexp": frexp, "as_strided_scatter": as_strided_scatter, "index_reduce": index_reduce,
    "index_reduce_": _index_reduce_,
}

FUNCTIONS: dict[str, Any] = {
    "frexp": frexp, "hann_window": hann_window, "hamming_window": hamming_window,
    "blackman_window": blackman_window, "bartlett_window": bartlett_window,
    "kaiser_window": kaiser_window, "rsub": rsub, "fill": fill,
    "is_inference_mode_enabled": is_inference_mode_enabled, "gradient": gradient,
    "as_strided_scatter": as_strided_scatter, "index_reduce": index_reduce,
    "UntypedStorage": UntypedStorage, "TypedStorage": TypedStorage,
}
