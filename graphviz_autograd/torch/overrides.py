"""``torch.overrides``: the ``__torch_function__`` protocol's helpers that library code calls
before it does its work. The engine's own tensors do not override anything, so only objects of
other classes defining ``__torch_function__`` count, and ``handle_torch_function`` hands the
call to theirs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..engine.tensor import Tensor
from .autograd.gradcheck_more import is_tensor_like

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function", "is_tensor_like", "is_tensor_method_or_property",
           "get_ignored_functions"]


def _overrides(obj: Any) -> bool:
    return not isinstance(obj, Tensor) and hasattr(type(obj), "__torch_function__")


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether any argument's class defines ``__torch_function__`` (the engine's tensors do not).

    >>> import graphviz_autograd.torch as torch
    >>> has_torch_function((torch.ones(2),))
    False
    """
    return any(_overrides(a) for a in relevant_args)


def has_torch_function_unary(obj: Any) -> bool:
    return _overrides(obj)


def has_torch_function_variadic(*args: Any) -> bool:
    return has_torch_function(args)


def handle_torch_function(public_api: Callable[..., Any], relevant_args: Iterable[Any],
                          *args: Any, **kwargs: Any) -> Any:
    """Call the first overriding ``__torch_function__`` that does not return NotImplemented."""
    overloaded = [a for a in relevant_args if _overrides(a)]
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    func_name = f"{public_api.__module__}.{public_api.__name__}"
    raise TypeError(f"no implementation found for '{func_name}' on types that implement "
                    f"__torch_function__: {[type(a) for a in overloaded]}")


def is_tensor_method_or_property(func: Callable[..., Any]) -> bool:
    """Whether ``func`` is bound on the Tensor class (``Tensor.add``), not a ``torch.*``
    function."""
    name = getattr(func, "__name__", None)
    return name is not None and getattr(Tensor, name, None) is func


def get_ignored_functions() -> set[Callable[..., Any]]:
    return set()
