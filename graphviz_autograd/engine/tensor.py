"""The Tensor: a numpy array plus PyTorch's autograd metadata (grad_fn, version counter, views)."""

from __future__ import annotations

import itertools
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as dt
from . import messages as msg
from .device import CPU, device
from .grad_mode import state as grad_state

if TYPE_CHECKING:
    from .node import AccumulateGrad, Node

__all__ = ["Tensor", "Size", "VersionCounter", "LeafData", "new_uid"]

new_uid = itertools.count(1).__next__    # stable ids: one creation counter for tensors and nodes


class Size(tuple[int, ...]):
    """``torch.Size``: a tuple of ints that prints as PyTorch prints it."""

    def __repr__(self) -> str:
        return msg.shape_text(tuple(self))

    __str__ = __repr__

    def numel(self) -> int:
        return int(np.prod(self, dtype=np.int64))

    def __add__(self, other: Any) -> Size:
        return Size(tuple(self) + tuple(other))


_new = object.__new__


class LeafData:
    """Set for good once a leaf's ``.data`` changes shape or dtype while its accumulator lives:
    that accumulator still expects the old ones, so from then on every gradient is checked
    (an op marked ``exact`` is trusted only while this is unset)."""

    changed = False


class VersionCounter:
    """Shared by a tensor, its views and its ``detach()``: bumped by every in-place op.
    ``saves`` counts the saved tensors that use it and are not released yet: an in-place op
    on a tensor no node needs any more is not an event."""

    __slots__ = ("v", "saves")

    def __init__(self) -> None:
        self.v = 0
        self.saves = 0


# NB: how many tensors with a history were detached in place (``detach_``), ever: while none
# was, a node's saved inputs need no check for it when it runs
DETACHED_INPLACE = [0]

class Tensor:
    """A tensor of the engine. Construct with ``torch.tensor(...)``; ``Tensor(data)`` is the
    legacy float32 constructor, as in PyTorch.

    >>> from graphviz_autograd import torch
    >>> a = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> (a * a).sum().grad_fn.name()
    'SumBackward0'
    """

    # NB: the fields every op touches are slots; the rarely set ones are class defaults that an
    # instance overrides in its __dict__, so creating a tensor stays cheap.
    __slots__ = ("_data", "_dtype", "_rg", "_grad_fn", "_output_nr", "_vc", "_grad", "_base",
                 "_wrapped", "_uid", "__weakref__", "__dict__")

    _data: np.ndarray
    _dtype: dt.DType
    _rg: bool
    _grad_fn: Node | None
    _output_nr: int
    _vc: VersionCounter
    _grad: Tensor | None
    _base: Tensor | None
    _wrapped: bool
    _uid: int
    _view_fn: Callable[[np.ndarray], np.ndarray] | None = None
    _view_version: int = 0
    _acc: weakref.ref[AccumulateGrad] | None = None
    _hooks: list[Any] | None = None
    _retains_grad: bool = False
    _post_acc_hooks: list[Any] | None = None
    _creation: tuple[Any, ...] | None = None     # a view made in no_grad, or by unbind/split
    _inference = False                           # made inside inference_mode()
    _fw_grad: Tensor | bool | None = None        # the tangent at the dual level (forward_ad)

    if TYPE_CHECKING:
        # the ops are bound onto the class by tensor_methods; to the type checker they are Any
        def __getattr__(self, name: str) -> Any: ...
        def __getitem__(self, key: Any) -> Any: ...
        def __setitem__(self, key: Any, value: Any) -> None: ...
        def __add__(self, other: Any) -> Any: ...
        def __radd__(self, other: Any) -> Any: ...
        def __sub__(self, other: Any) -> Any: ...
        def __rsub__(self, other: Any) -> Any: ...
        def __mul__(self, other: Any) -> Any: ...
        def __rmul__(self, other: Any) -> Any: ...
        def __truediv__(self, other: Any) -> Any: ...
        def __matmul__(self, other: Any) -> Any: ...
        def __pow__(self, other: Any) -> Any: ...
        def __neg__(self) -> Any: ...

    def __init__(self, *args: Any) -> None:
        if len(args) == 1 and not isinstance(args[0], int):
            data = np.array(_unwrap_nested(args[0]), dtype=np.float32)
        else:
            shape = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args
            data = np.zeros(tuple(int(s) for s in shape), dtype=np.float32)
        _init(self, data, dt.float32)

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def _make(cls, data: np.ndarray, dtype: dt.DType, requires_grad: bool = False) -> Tensor:
        # NB: _init's assignments, inlined: every op's output is made here (the hot path)
        t = object.__new__(cls)
        t._data = data
        t._dtype = dtype
        t._rg = requires_grad
        t._grad_fn = None
        t._output_nr = 0
        t._vc = vc = _new(VersionCounter)     # NB: VersionCounter() without its __init__ call
        vc.v = vc.saves = 0
        t._grad = None
        t._base = None
        t._wrapped = False
        t._uid = new_uid()
        if grad_state.inference:
            t._inference = True
        return t

    # -- metadata --------------------------------------------------------------------------------
    @property
    def dtype(self) -> dt.DType:
        return self._dtype

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    ndim = property(dim)

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return int(self._data.shape[0])

    @property
    def device(self) -> device:
        return CPU

    @property
    def is_cuda(self) -> bool:
        return False

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return int(self._data.nbytes)

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        if dtype is None:
            return self._dtype.legacy
        if isinstance(dtype, str):
            found = [d for d in dt.ALL if d.legacy == dtype]
            if not found:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = found[0]
        elif not isinstance(dtype, dt.DType):
            dtype = getattr(dtype, "_dtype", dtype)     # torch.DoubleTensor and friends
        return self.to(dtype)

    def is_contiguous(self) -> bool:
        return bool(self._data.flags.c_contiguous)

    def stride(self, dim: int | None = None) -> Any:
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[_wrap_dim(dim, self._data.ndim)]

    def data_ptr(self) -> int:
        return int(self._data.__array_interface__["data"][0])

    # -- autograd metadata -----------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._rg or self._grad_fn is not None

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        # NB: the attribute's errors are not requires_grad_()'s (PyTorch's texts differ)
        if self._grad_fn is not None:
            raise RuntimeError(msg.NONLEAF_REQUIRES_GRAD if not value else
                               msg.NONLEAF_REQUIRES_GRAD_SHORT)
        if value and not self._dtype.is_floating_point:
            raise RuntimeError(msg.INT_REQUIRES_GRAD_SET)
        if value and self._inference and not grad_state.inference:
            raise RuntimeError(msg.INFERENCE_REQUIRES_GRAD)
        self._rg = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(msg.NONLEAF_REQUIRES_GRAD)
            return self
        if requires_grad and not self._dtype.is_floating_point:
            raise RuntimeError(msg.INT_REQUIRES_GRAD_)
        if requires_grad and self._inference and not grad_state.inference:
            raise RuntimeError(msg.INFERENCE_REQUIRES_GRAD)
        self._rg = bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def grad_fn(self) -> Node | None:
        if self._base is not None and self._view_version != self._vc.v:
            from .autograd import regenerate_view_grad_fn
            regenerate_view_grad_fn(self)
        return self._grad_fn

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def _version(self) -> int:
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc.v

    @property
    def _is_view_flag(self) -> bool:
        return self._base is not None

    def is_inference(self) -> bool:
        return self._inference

    def _is_view(self) -> bool:
        return self._base is not None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def grad(self) -> Tensor | None:
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(msg.NONLEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    "attempting to assign a gradient of size "
                    f"'[{', '.join(map(str, value.shape))}]' to a tensor of size "
                    f"'[{', '.join(map(str, self.shape))}]'. Please ensure that the gradient "
                    "and the tensor are the same size")
            if value._dtype is not self._dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{msg.CTYPE_NAME.get(value._dtype.name, value._dtype.name)}' to a tensor "
                    f"with grad_dtype '{msg.SCALAR_NAME.get(self._dtype.name, self._dtype.name)}'"
                    ". The gradient must match the tensor's grad_dtype (defaults to the tensor's "
                    "dtype). You can set the tensor's grad_dtype attribute with a specific dtype, "
                    "or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes "
                    "of a tensor and its gradient may break downstream systems that assume they "
                    "match.")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def data(self) -> Tensor:
        """A new tensor on the same memory, outside autograd, with its own version counter."""
        return Tensor._make(self._data, self._dtype)

    @data.setter
    def data(self, value: Tensor) -> None:
        if self.requires_grad and not value._dtype.is_floating_point:
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        acc = self._acc() if self._acc is not None else None
        if acc is not None and (value._data.shape != self._data.shape
                                or value._dtype is not self._dtype):
            LeafData.changed = True
            if value._dtype is not self._dtype:
                # NB: as PyTorch, a new dtype gets a new accumulator: graphs made before keep
                # the old one (still accumulating into this leaf), new graphs reach the new one
                self._acc = None
        self._data = value._data
        self._dtype = value._dtype

    def detach(self) -> Tensor:
        t = Tensor._make(self._data, self._dtype)
        t._vc = self._vc                 # NB: detach shares the version counter, .data does not
        return t

    def detach_(self) -> Tensor:
        if self._base is not None:
            raise RuntimeError(msg.DETACH_VIEW)
        if self._grad_fn is not None:
            DETACHED_INPLACE[0] += 1
        self._grad_fn = None
        self._rg = False
        self._base = None
        return self

    def retain_grad(self) -> None:
        from .autograd import retain_grad
        retain_grad(self)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Any:
        from .autograd import register_tensor_hook
        return register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> Any:
        from .autograd import register_post_accumulate_hook
        return register_post_accumulate_hook(self, hook)

    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        from .executor import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # -- conversion ----------------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        if self.requires_grad and grad_state.enabled:     # NB: PyTorch allows it under no_grad
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self._data.dtype.kind == "V":        # NB: bfloat16: numpy has no such dtype
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self._data

    def tolist(self) -> Any:
        if self._data.dtype.kind == "V":        # NB: bfloat16: Python floats, as PyTorch's
            return self._data.astype(np.float32).tolist()
        return self._data.tolist()

    def item(self) -> Any:
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def __float__(self) -> float:
        if self.requires_grad and grad_state.enabled:  # NB: PyTorch is quiet under no_grad
            msg.warn_once(msg.FLOAT_OF_GRAD, UserWarning, stacklevel=3)
        if self._data.size != 1:
            raise ValueError(msg.ONE_ELEMENT)         # NB: (after the warning, as PyTorch)
        return float(self.item())

    def __int__(self) -> int:
        if self._data.size != 1:
            raise ValueError(msg.ONE_ELEMENT)
        return int(self.item())          # NB: unlike float(), PyTorch's int() gives no warning

    @property
    def volatile(self) -> bool:
        warnings.warn(msg.VOLATILE_ATTR, UserWarning, stacklevel=2)
        return False

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._data if dtype is None else self._data.astype(dtype)

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        if self._data.shape[0] and (self._rg or self._grad_fn is not None):
            # NB: PyTorch iterates over unbind(0): one UnbindBackward0 for all the rows
            from .functional import unbind
            return iter(unbind(self, 0))
        return (self[i] for i in range(self._data.shape[0]))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        from .printing import tensor_repr
        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __reduce_ex__(self, proto: Any) -> Any:
        return (_rebuild, (self._data.copy(), self._dtype.name, self._rg))

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                               "the deepcopy protocol at the moment.  If you were attempting to "
                               "deepcopy a module, this may be because of a torch.nn.utils."
                               "weight_norm usage, see https://github.com/pytorch/pytorch/pull/"
                               "103001")
        t = type(self).__new__(type(self))
        _init(t, self._data.copy(), self._dtype)
        t._rg = self._rg
        memo[id(self)] = t
        return t


def _rebuild(data: np.ndarray, dtype_name: str, rg: bool) -> Tensor:
    if dtype_name == "bfloat16":        # NB: a loaded bfloat16 tensor needs bfloat16's kernels
        from .bfloat16 import install
        install()
    return Tensor._make(data, getattr(dt, dtype_name if dtype_name != "bool" else "bool_"), rg)


def _init(t: Tensor, data: np.ndarray, dtype: dt.DType) -> None:
    t._data = data
    t._dtype = dtype
    t._rg = False
    t._grad_fn = None
    t._output_nr = 0
    t._vc = VersionCounter()
    t._grad = None
    t._base = None
    t._wrapped = False
    t._uid = new_uid()


def _unwrap_nested(data: Any, top: bool = True) -> Any:
    """Data for numpy: a tensor's array; inside a list, a tensor is a number to PyTorch."""
    if isinstance(data, Tensor):
        if top:
            return data._data
        if data.requires_grad:
            # NB: PyTorch reads it as a number, as float() does, with float()'s warning
            msg.warn_user_once(msg.FLOAT_OF_GRAD)
        if data._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data._data.reshape(()).item()
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(x, False) for x in data]
    return data


def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def grad_enabled() -> bool:
    return grad_state.enabled
