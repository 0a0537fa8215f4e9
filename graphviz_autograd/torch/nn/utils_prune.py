"""``torch.nn.utils.prune``: masks on a module's tensors (``<name>_orig`` parameter,
``<name>_mask`` buffer, a forward pre-hook setting ``<name> = mask * orig``), the pruning
methods and their random draws as PyTorch's."""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from ...engine.tensor import Tensor
from .modules import Module
from .utils import parameters_to_vector


def _torch() -> Any:
    """The ``torch`` namespace (imported late: it imports this module)."""
    from ... import torch
    return torch


__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """A pruning method: ``compute_mask`` gives the mask; as a forward pre-hook it sets
    ``module.<name>`` to ``mask * <name>_orig``."""

    _tensor_name: str
    PRUNING_TYPE: str = ""

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask for ``t``, combined with ``default_mask``."""

    def apply_mask(self, module: Module) -> Tensor:
        assert self._tensor_name is not None, \
            f"Module {module} has to be pruned"  # this gets set in apply()
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, importance_scores: Any = None,
              **kwargs: Any) -> Any:
        old_method = None
        found = 0
        hooks_to_remove = []
        for k, hook in module._forward_pre_hooks.items():
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                old_method = hook
                hooks_to_remove.append(k)
                found += 1
        assert found <= 1, (f"Avoid adding multiple pruning hooks to the same tensor {name} "
                            f"of module {module}. Use a PruningContainer.")
        for k in hooks_to_remove:
            module._forward_pre_hooks.discard(k)
        method: Any = cls(*args, **kwargs)
        method._tensor_name = name
        if old_method is not None:
            if isinstance(old_method, PruningContainer):
                old_method.add_pruning_method(method)
                method = old_method
            else:
                container = PruningContainer(old_method)
                container.add_pruning_method(method)
                method = container

        orig = getattr(module, name)
        if importance_scores is not None:
            assert importance_scores.shape == orig.shape, \
                f"importance_scores should have the same shape as parameter {name} of {module}"
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _torch().ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not isinstance(method, PruningContainer):
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None,
              importance_scores: Tensor | None = None) -> Tensor:
        if importance_scores is not None:
            assert importance_scores.shape == t.shape, \
                "importance_scores should have the same shape as tensor t"
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else _torch().ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Module) -> None:
        assert self._tensor_name is not None, \
            f"Module {module} has to be pruned before pruning can be removed"
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """Pruning methods applied one after the other to one tensor (each on what the ones
    before left)."""

    def __init__(self, *args: Any) -> None:
        self._pruning_methods: tuple[Any, ...] = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: Any) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        slc: Any
        if method.PRUNING_TYPE == "unstructured":
            slc = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of type 'structured' need to have the "
                                     "attribute `dim` defined.")
            n_dims = t.dim()
            dim = method.dim
            if dim < 0:
                dim = n_dims + dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            parts: list[Any] = [slice(None)] * n_dims
            parts[dim] = keep_channel
            slc = tuple(parts)
        elif method.PRUNING_TYPE == "global":
            slc = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """No unit pruned: the mask is all ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, **kwargs: Any) -> Any:
        return super().apply(module, name)


def _validate_pruning_amount_init(amount: Any) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and int(amount) < 0) or (
            not isinstance(amount, numbers.Integral)
            and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _validate_pruning_amount(amount: Any, tensor_size: int) -> None:
    if isinstance(amount, numbers.Integral) and int(amount) > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to "
                         f"prune={tensor_size}")


def _validate_structured_pruning(t: Tensor) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount: Any, tensor_size: int) -> int:
    if isinstance(amount, numbers.Integral):
        return int(amount)
    return round(amount * tensor_size)


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t: Tensor, n: Any, dim: int) -> Tensor:
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return _torch().norm(t, p=n, dim=dims)


def _channel_mask(t: Tensor, dim: int, index: Tensor) -> Tensor:
    mask = _torch().zeros_like(t)
    slc: list[Any] = [slice(None)] * len(t.shape)
    slc[dim] = index
    mask[tuple(slc)] = 1
    return mask


class _Unstructured(BasePruningMethod):
    """The ``amount`` units of highest (or lowest) score pruned, wherever they are."""

    PRUNING_TYPE = "unstructured"
    _largest = True

    def __init__(self, amount: Any) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def _scores(self, t: Tensor) -> Tensor:
        raise NotImplementedError

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone()
        if nparams_toprune != 0:
            topk = _torch().topk(self._scores(t).view(-1), k=nparams_toprune,
                                 largest=self._largest)
            mask.view(-1)[topk.indices] = 0
        return mask


class RandomUnstructured(_Unstructured):
    """``amount`` units drawn at random (the largest of ``rand_like``) pruned."""

    def _scores(self, t: Tensor) -> Tensor:
        return _torch().rand_like(t)

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any) -> Any:  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """The ``amount`` units of smallest absolute value pruned."""

    _largest = False

    def _scores(self, t: Tensor) -> Tensor:
        return _torch().abs(t)

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any,  # type: ignore[override]
              importance_scores: Any = None) -> Any:
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """``amount`` channels along ``dim`` drawn at random pruned."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        prob = _torch().rand(tensor_size)
        threshold = _torch().kthvalue(prob, k=nparams_toprune).values
        mask = _channel_mask(t, self.dim, prob > threshold)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any,  # type: ignore[override]
              dim: int = -1) -> Any:
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """The ``amount`` channels along ``dim`` of smallest ``n``-norm pruned."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, n: Any, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        nparams_tokeep = tensor_size - nparams_toprune
        _validate_pruning_amount(nparams_toprune, tensor_size)
        norm = _compute_norm(t, self.n, self.dim)
        topk = _torch().topk(norm, k=nparams_tokeep, largest=True)
        if nparams_toprune == 0:
            return default_mask
        mask = _channel_mask(t, self.dim, topk.indices)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any, n: Any,  # type: ignore[override]
              dim: int, importance_scores: Any = None) -> Any:
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """The units where ``mask`` is 0 pruned."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        assert default_mask.shape == self.mask.shape
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> Any:  # type: ignore[override]
        return super().apply(module, name, mask=mask)


def identity(module: Module, name: str) -> Module:
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: Any) -> Module:
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount: Any,
                    importance_scores: Any = None) -> Module:
    """Prune the ``amount`` entries of ``module.<name>`` of smallest magnitude.

    >>> from graphviz_autograd import torch
    >>> m = l1_unstructured(torch.nn.Linear(3, 2), "weight", amount=2)
    >>> list(m.state_dict()), int(m.weight_mask.sum())
    (['bias', 'weight_orig', 'weight_mask'], 4)
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: Any, dim: int) -> Module:
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount: Any, n: Any, dim: int,
                  importance_scores: Any = None) -> Module:
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters: Any, pruning_method: Any, importance_scores: Any = None,
                        **kwargs: Any) -> None:
    """Prune the tensors of several modules together, as one vector."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    relevant = parameters_to_vector([importance_scores.get((module, name), getattr(module, name))
                                     for module, name in parameters])
    default_mask = parameters_to_vector([
        getattr(module, name + "_mask") if hasattr(module, name + "_mask")
        else _torch().ones_like(getattr(module, name)) for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        param_mask = final_mask[pointer:pointer + num_param].view_as(param)
        custom_from_mask(module, name, mask=param_mask)
        pointer += num_param


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Module, name: str) -> Module:
    """Make the pruning permanent: ``<name>`` becomes a parameter holding ``mask * orig``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            module._forward_pre_hooks.discard(k)
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module: Module) -> bool:
    """Whether any submodule has a pruning hook."""
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False
