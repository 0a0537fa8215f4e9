"""``torch.nn.utils.spectral_norm`` and ``weight_norm`` (the hook-based forms, and their
``remove_*``), with the ATen functions the weight norm is made of (``_weight_norm``,
``_weight_norm_interface``, ``norm_except_dim``)."""

from __future__ import annotations

import warnings
from typing import Any

from ...engine import functional as _F
from ...engine.autograd import apply as _apply
from ...engine.grad_mode import no_grad
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor
from .parameter import Parameter

__all__ = ["spectral_norm", "remove_spectral_norm", "weight_norm", "remove_weight_norm",
           "SpectralNorm", "WeightNorm", "norm_except_dim", "_weight_norm",
           "_weight_norm_interface", "normalize_into"]


# -- ATen's pieces of the weight norm ------------------------------------------------------------
def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def _weight_norm_interface(v: Tensor, g: Tensor, dim: int = 0) -> tuple[Tensor, Tensor]:
    """The fused kernel: ``(v * (g / norms), norms)`` (WeightNormInterfaceBackward0)."""
    d = _wrap_dim(dim, v.dim())
    out = _apply(_T["_weight_norm_interface"], (v.contiguous(), g.contiguous()), {"dim": d},
                 dtype=v.dtype)
    return out[0], out[1]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The norm over every dim but ``dim`` (``dim=-1``: over all), shaped to broadcast
    against ``v``; PyTorch's composite: views around ``norm`` (NormBackward0/1)."""
    if dim == -1:
        return _apply(_T["norm_all"], (v,), {"p": pow}, dtype=v.dtype)
    last = v.dim() - 1
    if dim == 0:
        flat = v.contiguous().view(v.size(0), -1)
        norms = _apply(_T["norm_p"], (flat,), {"p": pow, "dim": (1,), "keepdim": False},
                       dtype=v.dtype)
        return norms.view(v.size(0), *([1] * last))
    if dim == last:
        flat = v.contiguous().view(-1, v.size(last))
        norms = _apply(_T["norm_p"], (flat,), {"p": pow, "dim": (0,), "keepdim": False},
                       dtype=v.dtype)
        return norms.view(*([1] * last), v.size(last))
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``v * (g / ||v||)``: the fused node for the first or last dim, else PyTorch's
    composite ``v * (g / norm_except_dim(v, 2, dim))``."""
    if dim == 0 or dim == v.dim() - 1:
        return _weight_norm_interface(v, g, dim)[0]
    return v * (g / norm_except_dim(v, 2, dim))


def normalize_into(x: Tensor, out: Tensor, eps: float, dim: int = 0) -> Tensor:
    """``F.normalize(x, dim=dim, eps=eps, out=out)`` outside the graph: ``out`` keeps its
    object and takes the values (one version bump, as ``div(out=)``)."""
    denom = x.norm(2, dim, keepdim=True).clamp_min(eps).expand_as(x)
    with no_grad():
        out.copy_(_F.div(x, denom))
    return out


def _normalized(x: Tensor, eps: float, dim: int = 0) -> Tensor:
    denom = x.norm(2, dim, keepdim=True).clamp_min(eps).expand_as(x)
    return _F.div(x, denom)


# -- spectral norm -------------------------------------------------------------------------------
class SpectralNorm:
    """The forward pre-hook of ``spectral_norm``: sets ``module.<name>`` to
    ``<name>_orig / sigma``, sigma estimated by power iteration (in training only)."""

    _version: int = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim())
                                                        if d != self.dim])
        return weight_mat.reshape(weight_mat.size(0), -1)

    def compute_weight(self, module: Any, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    # NB: in place into the buffers (PyTorch's ``out=``), v first
                    v = normalize_into(_F.mv(weight_mat.t(), u), v, self.eps)
                    u = normalize_into(_F.mv(weight_mat, v), u, self.eps)
                u = u.clone()
                v = v.clone()
        sigma = _F.dot(u, _F.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Any) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Any, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module,
                                                       do_power_iteration=module.training))

    @staticmethod
    def apply(module: Any, name: str, n_power_iterations: int, dim: int,
              eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = _normalized(weight.new_empty(h).normal_(0, 1), fn.eps)
            v = _normalized(weight.new_empty(w).normal_(0, 1), fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def _is_conv_transpose(module: Any) -> bool:
    from .conv import _ConvTransposeNd
    return isinstance(module, _ConvTransposeNd)


def spectral_norm(module: Any, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Any:
    """Reparametrize ``module.<name>`` as ``<name>_orig / sigma`` (buffers ``<name>_u``,
    ``<name>_v``; a forward pre-hook recomputes it), returns the module.

    >>> from graphviz_autograd import torch
    >>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3))
    >>> sorted(m.state_dict())
    ['bias', 'weight_orig', 'weight_u', 'weight_v']
    """
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def _remove_hook(module: Any, kind: type[SpectralNorm] | type[WeightNorm], name: str,
                 what: str) -> None:
    table = module._forward_pre_hooks
    for key, hook in list(table.items()):
        if isinstance(hook, kind) and hook.name == name:
            hook.remove(module)
            table.discard(key)
            return
    raise ValueError(f"{what} of '{name}' not found in {module}")


def remove_spectral_norm(module: Any, name: str = "weight") -> Any:
    """Undo ``spectral_norm``: ``<name>`` becomes a parameter again (its last value)."""
    _remove_hook(module, SpectralNorm, name, "spectral_norm")
    return module


# -- weight norm ---------------------------------------------------------------------------------
class WeightNorm:
    """The forward pre-hook of ``weight_norm``: ``module.<name> = _weight_norm(<name>_v,
    <name>_g, dim)``."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Any) -> Tensor:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Any, name: str, dim: int | None) -> WeightNorm:
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=2)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Any) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Any, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Any, name: str = "weight", dim: int | None = 0) -> Any:
    """Reparametrize ``module.<name>`` as ``<name>_g * <name>_v / ||<name>_v||`` (deprecated
    in PyTorch: a FutureWarning), returns the module."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Any, name: str = "weight") -> Any:
    """Undo ``weight_norm``: ``<name>`` becomes a parameter again (its last value)."""
    _remove_hook(module, WeightNorm, name, "weight_norm")
    return module
