"""``torch.func``: ``functional_call`` and ``stack_module_state`` (the transforms, ``vmap`` and
``grad``, are not part of the engine)."""

from __future__ import annotations

from typing import Any

from ..engine.functional import stack
from ..engine.tensor import Tensor
from .nn.modules import Module
from .nn.utils_stateless import _functional_call

__all__ = ["functional_call", "stack_module_state"]


def functional_call(module: Module, parameter_and_buffer_dicts: Any, args: Any = None,
                    kwargs: Any = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """Run ``module`` with the tensors of one dict, or of several (no key in two), in place
    of its parameters and buffers.

    >>> from graphviz_autograd import torch
    >>> m = torch.nn.Linear(2, 1)
    >>> functional_call(m, {"weight": torch.ones(1, 2), "bias": torch.zeros(1)},
    ...                 (torch.tensor([[1.0, 2.0]]),))
    tensor([[3.]])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, tuple | list):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        all_keys = [k for d in parameter_and_buffer_dicts for k in d]
        seen: set[str] = set()
        repeated = []
        for k in all_keys:
            if k in seen and k not in repeated:
                repeated.append(k)
            seen.add(k)
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        merged = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    return _functional_call(module, merged, args, kwargs, tie_weights=tie_weights,
                            strict=strict)


def _stacked_leaf(tensors: tuple[Tensor, ...], name: str) -> Tensor:
    all_rg = all(t.requires_grad for t in tensors)
    if not all_rg and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(list(tensors))
    if all_rg:
        result = result.detach().requires_grad_()
    return result


def stack_module_state(models: Any) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """The parameters and buffers of like models stacked along a new first dim (the
    parameters as new leaves)."""
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers
