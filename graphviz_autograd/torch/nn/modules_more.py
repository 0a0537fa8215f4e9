"""``nn.Bilinear``, the alpha dropouts, ``LocalResponseNorm``, the power-average pools
(``LPPool1d/2d/3d``), ``ChannelShuffle``, ``AdaptiveMaxPool3d``, ``MaxUnpool3d``,
``ConvTranspose3d``, ``CircularPad1d/2d/3d``, ``FractionalMaxPool2d/3d``,
``LinearCrossEntropyLoss``, ``SyncBatchNorm`` (one process), ``DataParallel`` (no GPU) and the
deprecated ``NLLLoss2d`` and ``Container``: their arguments, initialisation and repr as
PyTorch's, the work in ``functional``."""

from __future__ import annotations

import math
import warnings
from typing import Any

from ...engine.factories import zeros
from ...engine.grad_mode import no_grad
from ...engine.tensor import Tensor
from . import functional as F
from . import init
from .conv import AdaptiveMaxPool2d, MaxUnpool2d, _ConvTransposeNd
from .layers import _DropoutNd, _PadNd
from .modules import Linear, Module, NLLLoss, _BatchNorm, _WeightedLoss
from .norm import _InstanceNorm
from .parameter import Parameter

__all__ = ["Bilinear", "AlphaDropout", "FeatureAlphaDropout", "LocalResponseNorm", "LPPool1d",
           "LPPool2d", "LPPool3d", "ChannelShuffle", "AdaptiveMaxPool3d", "MaxUnpool3d",
           "ConvTranspose3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
           "FractionalMaxPool2d", "FractionalMaxPool3d", "NLLLoss2d", "Container",
           "LinearCrossEntropyLoss", "SyncBatchNorm", "DataParallel"]


class Bilinear(Module):
    """``y = x1^T A x2 + b``; the weight (out, in1, in2) and bias uniform in +-1/sqrt(in1)."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = Parameter(zeros(out_features, in1_features, in2_features, dtype=dtype))
        if bias:
            self.bias: Parameter | None = Parameter(zeros(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class AlphaDropout(_DropoutNd):
    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)


class LocalResponseNorm(Module):
    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
                 ) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class _LPPoolNd(Module):
    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool2d(_LPPoolNd):
    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool3d(_LPPoolNd):
    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class ChannelShuffle(Module):
    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class MaxUnpool3d(MaxUnpool2d):
    _dim = 3

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class ConvTranspose3d(_ConvTransposeNd):
    _dim = 3

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (self._dim + 1, self._dim + 2):
            raise ValueError(f"expected {self._dim + 1}D or {self._dim + 2}D input (got "
                             f"{input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    _dim = 1


class CircularPad2d(_CircularPadNd):
    _dim = 2


class CircularPad3d(_CircularPadNd):
    _dim = 3


class _FractionalMaxPoolNd(Module):
    _dim = 2

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Tensor | None = None) -> None:
        super().__init__()
        n = self._dim
        self.kernel_size = F._ints(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = F._ints(output_size, n) if output_size is not None else None
        self.output_ratio = (tuple(output_ratio) if isinstance(output_ratio, tuple | list)
                             else (output_ratio,) * n) if output_ratio is not None else None
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             f"ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        pool = F.fractional_max_pool2d if self._dim == 2 else F.fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio,
                    self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _dim = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _dim = 3


class NLLLoss2d(NLLLoss):
    """PyTorch's deprecated alias of ``NLLLoss`` (it warns once made)."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> None:
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see https://pytorch.org/docs/main/nn.html"
                      "#torch.nn.NLLLoss for more details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class Container(Module):
    """PyTorch's deprecated module holding the modules given by keyword."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now "
                      "implemented in `nn.Module`. Subclass that instead.", FutureWarning,
                      stacklevel=2)
        for key, value in kwargs.items():
            self.add_module(key, value)


class LinearCrossEntropyLoss(_WeightedLoss):
    """A linear layer to class scores and the cross entropy with the target in one module (its
    weight kept 2-d, reshaped per call); ``options`` (the chunked path) is not supported."""

    def __init__(self, in_features: int, num_classes: int, *,
                 out_features: tuple[int, ...] = (), bias: bool = False, device: Any = None,
                 dtype: Any = None, reduction: str = "mean", weight: Tensor | None = None,
                 ignore_index: int | None = None, label_smoothing: float = 0.0,
                 options: Any = None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes, self.out_features = num_classes, out_features
        self.ignore_index: Any = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias,
                             dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        lin: Any = self.linear
        weight = lin.weight.reshape((self.num_classes, *self.out_features, lin.in_features))
        bias = lin.bias.reshape((self.num_classes, *self.out_features)) \
            if lin.bias is not None else None
        return F.linear_cross_entropy(input, weight, target, linear_bias=bias,
                                      weight=self.weight, reduction=self.reduction,
                                      ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self) -> str:
        lin: Any = self.linear
        return (f"in_features={lin.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={lin.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")


class SyncBatchNorm(_BatchNorm):
    """Batch norm synchronised across processes; with no process group initialised (as here,
    and in a single PyTorch process) it normalises as ``BatchNorm``, as PyTorch's does."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 process_group: Any = None, device: Any = None, dtype: Any = None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with every batch norm (not instance norm) in it replaced by a
        SyncBatchNorm holding the same parameters and statistics."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            bn: Any = module
            out = cls(bn.num_features, bn.eps, bn.momentum, bn.affine, bn.track_running_stats,
                      process_group)
            if bn.affine:
                with no_grad():
                    out.weight = bn.weight
                    out.bias = bn.bias
            out.running_mean = bn.running_mean
            out.running_var = bn.running_var
            out.num_batches_tracked = bn.num_batches_tracked
            out.training = bn.training
            if hasattr(bn, "qconfig"):
                out.qconfig = bn.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


class DataParallel(Module):
    """Replicates a module over the GPUs; with none (as here, and PyTorch on a CPU-only
    machine) it holds the module as ``module`` and calls it."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None,
                 dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list[Any] = []
        self.dim = dim

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)
