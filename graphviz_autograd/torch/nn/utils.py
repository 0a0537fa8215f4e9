"""``torch.nn.utils``: gradient clipping and flattening parameters to one vector."""

from __future__ import annotations

import types
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from ...engine import dtypes as dt
from ...engine import functional as _F
from ...engine.grad_mode import no_grad
from ...engine.tensor import Tensor
from . import utils_parametrizations as parametrizations
from . import utils_parametrize as parametrize
from . import utils_rnn as rnn
from .utils_spectral import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_", "parameters_to_vector", "vector_to_parameters", "rnn",
           "parametrize", "parametrizations", "prune", "stateless",
           "spectral_norm", "remove_spectral_norm", "weight_norm", "remove_weight_norm",
           "clip_grad", "convert_parameters", "fusion", "init", "memory_format",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "skip_init", "convert_conv2d_weight_memory_format",
           "convert_conv3d_weight_memory_format"]


def _listed(parameters: Any) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _vector_norm(a: np.ndarray, p: float) -> np.ndarray:
    """``torch.linalg.vector_norm(a, p)`` in ``a``'s dtype."""
    x = np.abs(a.reshape(-1))
    if p == np.inf:
        return x.max()
    if p == -np.inf:
        return x.min()
    if p == 0:
        return np.asarray(np.count_nonzero(x), a.dtype)
    if p == 1:
        return x.sum(dtype=a.dtype)
    if p == 2:
        return np.sqrt((x * x).sum(dtype=a.dtype))
    return ((x ** np.asarray(p, a.dtype)).sum(dtype=a.dtype)
            ** np.asarray(1 / p, a.dtype))


def get_total_norm(tensors: Any, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: Any = None) -> Tensor:
    """The norm of the tensors' norms (each taken in its own dtype)."""
    ts = _listed(tensors)
    p = float(norm_type)
    if not ts:
        return Tensor._make(np.array(0.0, np.float32), dt.float32)
    norms = [_vector_norm(t._data, p) for t in ts]
    total = _vector_norm(np.array(norms, dtype=np.result_type(*norms)), p)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {p} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and "
                           "scale the gradients by the non-finite norm anyway, set "
                           "`error_if_nonfinite=False`")
    total = np.asarray(total)
    return Tensor._make(total, dt.from_numpy(total.dtype))


def clip_grads_with_norm_(parameters: Any, max_norm: float, total_norm: Tensor,
                          foreach: Any = None) -> None:
    """Scale the gradients by ``min(1, max_norm / (total_norm + 1e-6))``, in place."""
    grads = [p._grad for p in _listed(parameters) if p._grad is not None]
    if not grads:
        return
    t = total_norm._data
    # NB: PyTorch's ``number / tensor`` is ``tensor.reciprocal() * number``
    coef = np.minimum(np.reciprocal(t + np.asarray(1e-6, t.dtype)) * np.asarray(
        float(max_norm), t.dtype), np.asarray(1.0, t.dtype))
    coef_t = Tensor._make(np.asarray(coef), total_norm._dtype)
    with no_grad():
        for g in grads:
            g.mul_(coef_t)


def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: Any = None) -> Tensor:
    """Scale all gradients together so that their total norm is at most ``max_norm``;
    returns the total norm before clipping (no graph is built).

    >>> from graphviz_autograd import torch
    >>> w = torch.zeros(2, requires_grad=True)
    >>> w.grad = torch.tensor([3.0, 4.0])
    >>> clip_grad_norm_([w], 1.0), w.grad
    (tensor(5.), tensor([0.6000, 0.8000]))
    """
    if isinstance(parameters, Tensor):
        params = [parameters]
    else:
        generator = isinstance(parameters, types.GeneratorType)
        params = list(parameters)
        if generator and not params:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will "
                          "occur.", UserWarning, stacklevel=2)
    grads = [p._grad for p in params if p._grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    clip_grads_with_norm_(params, max_norm, total)
    return total


def clip_grad_norm(parameters: Any, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: Any = None) -> Tensor:
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)


def clip_grad_value_(parameters: Any, clip_value: float, foreach: Any = None) -> None:
    """Clamp each gradient into ``[-clip_value, clip_value]``, in place."""
    v = float(clip_value)
    with no_grad():
        for p in _listed(parameters):
            if p._grad is not None:
                p._grad.clamp_(min=-v, max=v)


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated (a graph: ``ViewBackward0`` per parameter,
    then ``CatBackward0``)."""
    return _F.cat([p.view(-1) for p in parameters], 0)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters' data."""
    if not isinstance(vec, Tensor):
        kind = type(vec)
        name = kind.__qualname__ if kind.__module__ == "builtins" \
            else f"{kind.__module__}.{kind.__qualname__}"
        raise TypeError(f"expected torch.Tensor, but got: {name}")
    at = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[at:at + n].view_as(p).data
        at += n


from . import utils_clip_grad as clip_grad  # noqa: E402 -- the submodules over the names above
from . import utils_convert_parameters as convert_parameters  # noqa: E402
from . import utils_fusion as fusion  # noqa: E402
from . import utils_init as init  # noqa: E402
from . import utils_memory_format as memory_format  # noqa: E402
from . import utils_prune as prune  # noqa: E402 -- it builds on parameters_to_vector
from . import utils_stateless as stateless  # noqa: E402
from .utils_fusion import (  # noqa: E402
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .utils_init import skip_init  # noqa: E402
from .utils_memory_format import (  # noqa: E402
    convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format,
)
