"""``torch.nn.utils.stateless.functional_call`` (deprecated, a FutureWarning) and the call
underneath ``torch.func.functional_call``: a module run with some parameters and buffers
swapped for given tensors, put back afterwards."""

from __future__ import annotations

import warnings
from typing import Any

from ...engine.tensor import Tensor
from .modules import Module

__all__ = ["functional_call"]

_MISSING: Any = object()


def _all_named_tensors(module: Module) -> list[tuple[str, Tensor]]:
    """Every parameter and buffer under each of its names (tied ones under all of theirs)."""
    out: list[tuple[str, Tensor]] = []
    for stores in (("_parameters",), ("_buffers",)):
        for mname, m in _named_modules_all(module):
            for store in stores:
                for k, v in m.__dict__[store].items():
                    if v is not None:
                        out.append((f"{mname}.{k}" if mname else k, v))
    return out


def _named_modules_all(module: Module, prefix: str = "") -> list[tuple[str, Module]]:
    out = [(prefix, module)]
    for name, child in module._modules.items():
        if child is not None:
            out.extend(_named_modules_all(child, f"{prefix}.{name}" if prefix else name))
    return out


def _untie(module: Module, given: dict[str, Any]) -> dict[str, Any]:
    """The given tensors spread to every name tied to one of theirs."""
    names_of: dict[int, list[str]] = {}
    for name, t in _all_named_tensors(module):
        names_of.setdefault(id(t), []).append(name)
    out = dict(given)
    for names in names_of.values():
        if len(names) < 2:
            continue
        values = {id(given[n]): given[n] for n in names if n in given}
        if len(values) > 1:
            raise ValueError(f"functional_call got multiple values for keys "
                             f"{sorted(n for n in names if n in given)}, which are tied. "
                             "Consider using tie_weights=False")
        if values:
            value = next(iter(values.values()))
            for n in names:
                out[n] = value
    return out


def _swap(root: Module, name: str, tensor: Any) -> Any:
    *path, leaf = name.split(".")
    module = root
    for part in path:
        module = getattr(module, part)
    params, buffers = module.__dict__["_parameters"], module.__dict__["_buffers"]
    for store in (params, buffers):
        if leaf in store:
            orig = store[leaf]
            if tensor is _MISSING:
                del store[leaf]
            else:
                store[leaf] = tensor
            return orig
    orig = getattr(module, leaf) if hasattr(module, leaf) else _MISSING
    if tensor is not _MISSING:
        setattr(module, leaf, tensor)
    elif leaf in module.__dict__:
        delattr(module, leaf)
    return orig


def _functional_call(module: Module, parameters_and_buffers: dict[str, Any], args: Any = None,
                     kwargs: Any = None, *, tie_weights: bool = True,
                     strict: bool = False) -> Any:
    given = _untie(module, parameters_and_buffers) if tie_weights \
        else dict(parameters_and_buffers)
    if strict:
        valid = {name for name, _ in _all_named_tensors(module)}
        missing = sorted(valid - set(given))
        unexpected = sorted(set(given) - valid)
        errors = []
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               + "\n\t".join(errors))
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    originals: list[tuple[str, Any]] = []
    try:
        for name, tensor in given.items():
            originals.append((name, _swap(module, name, tensor)))
        return module(*args, **(kwargs or {}))
    finally:
        for name, orig in reversed(originals):
            _swap(module, name, orig)


def functional_call(module: Module, parameters_and_buffers: dict[str, Any], args: Any = None,
                    kwargs: Any = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """Run ``module`` with the given tensors in place of its parameters and buffers."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
