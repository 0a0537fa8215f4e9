"""``torch.func.functional_call`` (a module run with its parameters and buffers swapped for given
tensors) and ``torch.func.stack_module_state`` (the states of like modules, stacked)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ...engine import functional as F
from ...engine.tensor import Tensor

__all__ = ["functional_call", "stack_module_state"]

_ABSENT = object()


def _tensors(module: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every parameter and buffer under its qualified name, shared ones under each name."""
    for store in ("_parameters", "_buffers"):
        for k, v in module.__dict__.get(store, {}).items():
            if v is not None:
                yield prefix + k, v
    for k, sub in module.__dict__.get("_modules", {}).items():
        if sub is not None:
            yield from _tensors(sub, f"{prefix}{k}.")


def _merge(dicts: Any) -> dict[str, Any]:
    if isinstance(dicts, dict):
        return dict(dicts)
    if not isinstance(dicts, list | tuple):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(dicts)}")
    if not all(isinstance(d, dict) for d in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    seen: dict[str, int] = {}
    for d in dicts:
        for k in d:
            seen[k] = seen.get(k, 0) + 1
    repeated = [k for k, n in seen.items() if n > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional "
                         "call is ambiguous")
    return {k: v for d in dicts for k, v in d.items()}


def _tie(module: Any, given: dict[str, Any]) -> dict[str, Any]:
    """``given`` with each tied name (one tensor under several names) filled from its twin."""
    groups: dict[int, list[str]] = {}
    for name, t in _tensors(module):
        groups.setdefault(id(t), []).append(name)
    out = dict(given)
    for names in groups.values():
        if len(names) < 2:
            continue
        there = [n for n in names if n in given]
        if not there:
            continue
        first = given[there[0]]
        if any(given[n] is not first for n in there[1:]):
            raise ValueError(f"functional_call got multiple values for keys {sorted(there)}, "
                             "which are tied. Consider using tie_weights=False")
        for n in names:
            out.setdefault(n, first)
    return out


def _check_strict(module: Any, given: dict[str, Any]) -> None:
    names = {n for n, _ in _tensors(module)}
    unexpected = sorted(set(given) - names)
    missing = sorted(names - set(given))
    lines = []
    if unexpected:
        lines.append("\tUnexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
    if missing:
        lines.append("\tMissing key(s): " + ", ".join(repr(k) for k in missing) + ".")
    if lines:
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n"
                           + "\n".join(lines))


def _swap(module: Any, name: str, value: Any) -> tuple[Any, str, str, Any]:
    """Put ``value`` at ``name``; what undoes it: (owner, store, attribute, old value)."""
    *path, attr = name.split(".")
    owner = module
    for p in path:
        owner = getattr(owner, p)
    for store in ("_parameters", "_buffers"):
        table = owner.__dict__.get(store)
        if table is not None and attr in table:
            old = table[attr]
            table[attr] = value
            return owner, store, attr, old
    old = owner.__dict__.get(attr, _ABSENT)
    object.__setattr__(owner, attr, value)
    return owner, "", attr, old


def _restore(owner: Any, store: str, attr: str, old: Any) -> None:
    if store:
        owner.__dict__[store][attr] = old
    elif old is _ABSENT:
        object.__delattr__(owner, attr)
    else:
        object.__setattr__(owner, attr, old)


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None,
                    kwargs: dict[str, Any] | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``torch.func.functional_call``: ``module(*args, **kwargs)`` with the named parameters and
    buffers replaced by the given tensors for the call.

    >>> import graphviz_autograd.torch as torch
    >>> lin = torch.nn.Linear(2, 1)
    >>> functional_call(lin, {"weight": torch.ones(1, 2), "bias": torch.zeros(1)},
    ...                 (torch.tensor([1.0, 2.0]),))
    tensor([3.])
    """
    given = _merge(parameter_and_buffer_dicts)
    if tie_weights:
        given = _tie(module, given)
    if strict:
        _check_strict(module, given)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    undo = []
    try:
        for name, value in given.items():
            undo.append(_swap(module, name, value))
        return module(*args, **(kwargs or {}))
    finally:
        for entry in reversed(undo):
            _restore(*entry)


def stack_module_state(models: Sequence[Any]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """``torch.func.stack_module_state``: each parameter (as new leaves) and buffer of
    ``models`` stacked along a new first dimension.

    >>> import graphviz_autograd.torch as torch
    >>> params, buffers = stack_module_state([torch.nn.Linear(3, 2) for _ in range(4)])
    >>> params["weight"].shape, params["weight"].is_leaf
    (torch.Size([4, 2, 3]), True)
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    per = [dict(m.named_parameters()) for m in models]
    params = {}
    for name, p in per[0].items():
        stacked = F.stack([d[name] for d in per]).detach()
        params[name] = stacked.requires_grad_(p.requires_grad)
    bufs = [dict(m.named_buffers()) for m in models]
    buffers = {name: F.stack([d[name] for d in bufs]) for name in bufs[0]}
    return params, buffers
