"""The lazy layers (``LazyLinear``, ``LazyConv1d/2d/3d``, ``LazyConvTranspose1d/2d/3d``,
``LazyBatchNorm1d/2d/3d``, ``LazyInstanceNorm1d/2d/3d``): their
parameters are ``UninitializedParameter`` until the first call, which reads the input's size,
materialises them, initialises them as the plain layer would (the same draws after the same
seed) and turns the module into that plain layer, as PyTorch's ``cls_to_become``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine import dtypes as dt
from ...engine.tensor import Tensor, _init
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d
from .modules import BatchNorm1d, BatchNorm2d, Linear
from .modules_more import ConvTranspose3d
from .norm import BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .parameter import Parameter

__all__ = ["UninitializedParameter", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "UninitializedBuffer", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]

_UNINITIALIZED = ("Can't access the shape of an uninitialized parameter or buffer. This error "
                  "usually happens in `load_state_dict` when trying to load an uninitialized "
                  "parameter into an initialized one. Call `forward` to initialize the "
                  "parameters before accessing their attributes.")


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet; ``materialize(shape)`` gives it one and makes
    it a ``Parameter``."""

    __slots__ = ()

    def __new__(cls, requires_grad: bool = True, device: Any = None,
                dtype: Any = None) -> UninitializedParameter:
        kind = dtype or dt.float32
        p = super().__new__(cls, Tensor._make(np.zeros(0, kind.np), kind), requires_grad)
        return p  # type: ignore[return-value]

    def __init__(self, requires_grad: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        pass

    @property
    def shape(self) -> Any:
        raise RuntimeError(_UNINITIALIZED)

    def size(self, dim: int | None = None) -> Any:
        raise RuntimeError(_UNINITIALIZED)

    def numel(self) -> int:
        raise RuntimeError(_UNINITIALIZED)

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__

    def materialize(self, shape: tuple[int, ...]) -> None:
        self._data = np.empty(shape, self._data.dtype)
        self.__class__ = Parameter  # type: ignore[assignment]


class _LazyMixin:
    """The first call materialises the parameters (``_materialize``), initialises them, and
    the module becomes ``cls_to_become``."""

    cls_to_become: type = object

    def reset_parameters(self) -> None:
        # NB: a no-op until materialised (the plain layer's own runs after)
        pass

    def _materialize(self, input: Tensor) -> None:
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._materialize(args[0])
        self.__class__ = self.cls_to_become
        self.reset_parameters()
        return self(*args, **kwargs)


class LazyLinear(_LazyMixin, Linear):
    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(0, 0, False)
        self.out_features = out_features
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            # NB: Linear keeps a missing bias as a plain None attribute, which would shadow it
            self.__dict__.pop("bias", None)
            self.bias = UninitializedParameter(dtype=dtype)

    def _materialize(self, input: Tensor) -> None:
        self.in_features = input.size(-1)
        self.weight.materialize((self.out_features, self.in_features))
        if self.bias is not None:
            self.bias.materialize((self.out_features,))


class _LazyConvMixin(_LazyMixin):
    _dim = 0
    _transposed = False
    in_channels: int
    out_channels: int
    groups: int
    kernel_size: tuple[int, ...]
    weight: Any
    bias: Any

    def _setup(self, out_channels: int, bias: bool, dtype: Any) -> None:
        self.out_channels = out_channels
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def _materialize(self, input: Tensor) -> None:
        n = self._dim
        if input.dim() not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: "
                               f"{input.shape!r}")
        self.in_channels = input.size(1 if input.dim() == n + 2 else 0)
        if self.in_channels % self.groups:
            raise ValueError("in_channels must be divisible by groups")
        shape = (self.in_channels, self.out_channels // self.groups) if self._transposed else \
            (self.out_channels, self.in_channels // self.groups)
        self.weight.materialize((*shape, *self.kernel_size))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))


def _lazy_conv(name: str, base: type, dim: int, transposed: bool) -> type:
    def init(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1,
             padding: Any = 0, *rest: Any, **kw: Any) -> None:
        names: tuple[str, ...]
        if transposed:
            names = ("output_padding", "groups", "bias", "dilation", "padding_mode", "device",
                     "dtype")
        else:
            names = ("dilation", "groups", "bias", "padding_mode", "device", "dtype")
        given = dict(zip(names, rest, strict=False))
        given.update(kw)
        bias, dtype = given.pop("bias", True), given.get("dtype")
        init_base: Any = base.__init__  # type: ignore[misc]
        init_base(self, 0, 0, kernel_size, stride, padding, bias=False, **given)
        self._setup(out_channels, bias, dtype)

    return type(name, (_LazyConvMixin, base), {"__init__": init, "cls_to_become": base,
                                                "_dim": dim, "_transposed": transposed,
                                                "__module__": __name__})


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d, 1, False)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d, 2, False)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d, 3, False)
LazyConvTranspose1d = _lazy_conv("LazyConvTranspose1d", ConvTranspose1d, 1, True)
LazyConvTranspose2d = _lazy_conv("LazyConvTranspose2d", ConvTranspose2d, 2, True)
LazyConvTranspose3d = _lazy_conv("LazyConvTranspose3d", ConvTranspose3d, 3, True)


# -- lazy norms -----------------------------------------------------------------------------------
class UninitializedBuffer(Tensor):
    """A buffer whose shape is not known yet; ``materialize(shape)`` makes it a Tensor."""

    __slots__ = ()

    def __new__(cls, requires_grad: bool = False, device: Any = None,
                dtype: Any = None) -> UninitializedBuffer:
        kind = dtype or dt.float32
        b = object.__new__(cls)
        _init(b, np.zeros(0, kind.np), kind)
        return b

    def __init__(self, requires_grad: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        pass

    @property
    def shape(self) -> Any:
        raise RuntimeError(_UNINITIALIZED)

    def size(self, dim: int | None = None) -> Any:
        raise RuntimeError(_UNINITIALIZED)

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"

    __str__ = __repr__

    def materialize(self, shape: tuple[int, ...]) -> None:
        self._data = np.empty(shape, self._data.dtype)
        self.__class__ = Tensor  # type: ignore[assignment]


class _LazyNormMixin(_LazyMixin):
    affine: bool
    track_running_stats: bool
    num_features: int
    weight: Any
    bias: Any
    running_mean: Any
    running_var: Any

    def _materialize(self, input: Tensor) -> None:
        self.num_features = input.size(1)
        if self.affine:
            self.weight.materialize((self.num_features,))
            self.bias.materialize((self.num_features,))
        if self.track_running_stats:
            self.running_mean.materialize((self.num_features,))
            self.running_var.materialize((self.num_features,))


def _lazy_norm(name: str, base: type, affine: bool, stats: bool) -> type:
    def init(self: Any, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = affine,
             track_running_stats: bool = stats, device: Any = None, dtype: Any = None) -> None:
        init_base: Any = base.__init__  # type: ignore[misc]
        init_base(self, 0, eps, momentum, False, False, device, dtype)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = Tensor._make(np.zeros((), np.int64), dt.int64)

    return type(name, (_LazyNormMixin, base), {"__init__": init, "cls_to_become": base,
                                                "__module__": __name__})


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", BatchNorm1d, True, True)
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", BatchNorm2d, True, True)
LazyBatchNorm3d = _lazy_norm("LazyBatchNorm3d", BatchNorm3d, True, True)
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", InstanceNorm1d, True, True)
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", InstanceNorm2d, True, True)
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", InstanceNorm3d, True, True)
