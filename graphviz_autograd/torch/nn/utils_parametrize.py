"""``torch.nn.utils.parametrize``: a tensor of a module computed by modules from an
``original`` (``module.parametrizations.<name>.original``), through a property injected in a
``Parametrized<Class>`` subclass, as PyTorch lays it out (the same state_dict keys, reprs and
errors)."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator, Sequence
from typing import Any

from ...engine.grad_mode import no_grad
from ...engine.pre_write import WATCH as _WATCH
from ...engine.pre_write import before_write
from ...engine.tensor import Tensor
from .modules import Module, ModuleDict, ModuleList
from .parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Within the block, each parametrized tensor is computed once and reused."""
    global _cache_enabled, _cache
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, x: Tensor) -> None:
    if isinstance(x, Parameter):
        module.register_parameter(name, x)
    else:
        module.register_buffer(name, x)


def _set_data(dest: Tensor, src: Tensor) -> None:
    """PyTorch's ``dest.set_(src)``: ``dest`` keeps its object and takes ``src``'s values."""
    if _WATCH:
        before_write(dest)
    dest.data = src.detach()
    dest._vc.v += 1


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to ``original`` (or to
    ``original0``, ``original1``, ... when a ``right_inverse`` returned several)."""

    original: Tensor
    unsafe: bool

    def __init__(self, modules: Sequence[Module], original: Tensor,
                 unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    with contextlib.suppress(NotImplementedError):
                        new = module.right_inverse(new)
        if not isinstance(new, Tensor) and not isinstance(new, Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if isinstance(new, Tensor):
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            with no_grad():
                if new is not original:
                    _set_data(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors (list, tuple...). Got element {i} of the "
                                     f"sequence with type {type(originali).__name__}.")
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            hint = ", unless `unsafe` flag is enabled"
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError("A parametrization must return a tensor. Got "
                                 f"{type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of "
                                 f"the tensor{hint}.\nunparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {z.dtype}")
            if z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of "
                                 f"the tensor{hint}.\nunparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {z.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Set ``original`` so that the parametrized tensor becomes ``value``."""
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set_data(self.original, value)
            else:
                if not isinstance(value, Sequence):
                    raise ValueError("'right_inverse' must return a sequence of tensors. "
                                     f"Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError("'right_inverse' must return a sequence of tensors of "
                                     f"length {self.ntensors}. Got a sequence of length "
                                     f"{len(value)}.")
                for i, tensor in enumerate(value):
                    _set_data(getattr(self, f"original{i}"), tensor)

    def __repr__(self) -> str:
        return type(self).__name__ + super().__repr__()[len("ModuleList"):]

    def forward(self) -> Any:
        mods = list(self)
        if self.is_tensor:
            x = mods[0](self.original)
        else:
            x = mods[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for m in mods[1:]:
            x = m(x)
        return x


def _getstate(self: Any) -> Any:
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/saving_"
                       "loading_models.html#saving-loading-a-general-checkpoint-for-"
                       "inference-and-or-resuming-training")


def _deepcopy(self: Any, memo: dict[int, Any]) -> Any:
    """A copy made from the instance's dict (``__getstate__`` refuses)."""
    obj = memo.get(id(self))
    if obj is not None:
        return obj
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def _inject_new_class(module: Module) -> None:
    cls = module.__class__
    body: dict[str, Any] = {"__getstate__": _getstate}
    if not hasattr(cls, "__deepcopy__"):
        body["__deepcopy__"] = _deepcopy
    param_cls = type(f"Parametrized{cls.__name__}", (cls,), body)
    param_cls.__module__ = __name__
    module.__class__ = param_cls


def _inject_property(module: Module, tensor_name: str) -> None:
    def get_cached_parametrization(parametrization: ParametrizationList) -> Tensor:
        key = (id(module), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def get_parametrized(self: Any) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            return get_cached_parametrization(parametrization)
        return parametrization()

    def set_original(self: Any, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` the output of ``parametrization`` (appended to the ones
    already there); the tensor moves to ``module.parametrizations.<tensor_name>.original``.

    >>> from graphviz_autograd import torch
    >>> class Double(torch.nn.Module):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> m = register_parametrization(torch.nn.Linear(2, 2), "weight", Double())
    >>> type(m).__name__, list(m.state_dict())
    ('ParametrizedLinear', ['bias', 'parametrizations.weight.original'])
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(x).__name__}.")
            hint = ", unless the `unsafe` flag is enabled"
            if x.dtype != y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of "
                                 f"the tensor{hint}.\nmodule.{tensor_name}.dtype: {y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {x.dtype}")
            if x.shape != y.shape:
                raise ValueError("Registering a parametrization may not change the shape of "
                                 f"the tensor{hint}.\nmodule.{tensor_name}.shape: {y.shape}\n"
                                 f"parametrization(module.{tensor_name}).shape: {x.shape}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    z = parametrization.right_inverse(x)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(z, Tensor):
                        raise ValueError(f"parametrization.right_inverse must return a "
                                         f"tensor. Got: {type(z).__name__}")
                    if z.dtype != y.dtype:
                        raise ValueError("The tensor returned by parametrization.right_"
                                         "inverse must have the same dtype as module."
                                         f"{tensor_name}, unless the `unsafe` flag is "
                                         f"enabled.\nmodule.{tensor_name}.dtype: {y.dtype}\n"
                                         f"returned dtype: {z.dtype}")
                    if z.shape != y.shape:
                        raise ValueError("The tensor returned by parametrization.right_"
                                         "inverse must have the same shape as module."
                                         f"{tensor_name}, unless the `unsafe` flag is "
                                         f"enabled.\nmodule.{tensor_name}.shape: {y.shape}\n"
                                         f"returned shape: {z.shape}")
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, when given)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Undo the parametrizations of ``tensor_name``: it becomes a parameter (or buffer) again,
    holding its parametrized value (``leave_parametrized``) or its original one."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            with no_grad():
                _set_data(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a "
                             "tensor that is parametrized in terms of a sequence of tensors.")
        t = getattr(module, tensor_name)
        original = Parameter(t.detach(), t.requires_grad) if t.requires_grad else t
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before ``register_parametrization`` subclassed it."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Copy the parametrizations (and their originals) of ``from_module`` to ``to_module``."""
    if is_parametrized(from_module):
        names = [tensor_name] if tensor_name is not None else list(from_module.parametrizations)
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name)))
            for p in from_module.parametrizations[name]:
                register_parametrization(to_module, name, p)
            with no_grad():
                src = from_module.parametrizations[name]
                dst = to_module.parametrizations[name]
                if src.is_tensor:
                    _set_data(dst.original, src.original)
                else:
                    for i in range(src.ntensors):
                        _set_data(getattr(dst, f"original{i}"), getattr(src, f"original{i}"))
    return to_module
