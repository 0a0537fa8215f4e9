"""``torch.jit`` as eager code sees it: the checks and decorators model code uses outside
TorchScript (``is_scripting()``, ``@torch.jit.ignore``...), and a clear refusal of compiling.

TorchScript replaces a scripted function's nodes with a fused ``DifferentiableGraphBackward``
after its first run, a graph the engine does not build: ``script`` and ``trace`` say so, and
point to recording the program on real PyTorch instead.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Final, NamedTuple, TypeVar

# NB: ``Final`` is typing's, imported above, as PyTorch exports it here
__all__ = ["is_scripting", "is_tracing", "ignore", "unused", "export", "interface", "Final",
           "Attribute", "annotate", "script", "trace", "trace_module", "script_if_tracing",
           "freeze", "optimize_for_inference", "save", "load", "ScriptModule", "ScriptFunction",
           "TracerWarning", "Error"]

F = TypeVar("F", bound=Callable[..., Any])

_REFUSED = ("torch.jit.{} is not supported by graphviz-autograd's engine: TorchScript replaces "
            "the function's nodes with a fused DifferentiableGraphBackward that the engine does "
            "not build. Run the program on real PyTorch to record it (graphviz-autograd render "
            "--engine torch, %%autograd --engine torch, or record(engine='torch')), or call the "
            "function without scripting it.")


def is_scripting() -> bool:
    """False: the engine runs code eagerly, never as TorchScript."""
    return False


def is_tracing() -> bool:
    """False: nothing is traced."""
    return False


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """``@torch.jit.ignore`` / ``@torch.jit.ignore(drop=True)``: the function itself, as in
    eager PyTorch."""
    if callable(drop):
        return drop
    if drop:
        # NB: PyTorch's text, with its literal "{}"
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", FutureWarning,
                      stacklevel=2)
    return lambda fn: fn


def unused(fn: F) -> F:
    """``@torch.jit.unused``: the function itself, as in eager PyTorch."""
    return fn


def export(fn: F) -> F:
    """``@torch.jit.export``: the method itself, as in eager PyTorch."""
    return fn


def interface(obj: F) -> F:
    """``@torch.jit.interface``: the class itself, as in eager PyTorch."""
    return obj


class Attribute(NamedTuple):
    """``torch.jit.Attribute(value, type)``: in eager code, the pair as given."""

    value: Any
    type: Any


def annotate(the_type: Any, the_value: Any) -> Any:
    """``torch.jit.annotate(type, value)``: the value, as in eager PyTorch."""
    return the_value


def _refuse(name: str) -> Callable[..., Any]:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(_REFUSED.format(name))
    refused.__name__ = name
    refused.__doc__ = f"``torch.jit.{name}``: refused, with the reason and what to do instead."
    return refused


script = _refuse("script")
trace = _refuse("trace")
trace_module = _refuse("trace_module")
script_if_tracing = _refuse("script_if_tracing")
freeze = _refuse("freeze")
optimize_for_inference = _refuse("optimize_for_inference")
save = _refuse("save")
load = _refuse("load")


class ScriptModule:
    """Never made by the engine (``script`` is refused); here for ``isinstance`` checks."""


class ScriptFunction:
    """Never made by the engine (``script`` is refused); here for ``isinstance`` checks."""


class TracerWarning(Warning):
    """PyTorch's warning class for tracing (never raised: nothing is traced)."""


class Error(Exception):
    """PyTorch's ``torch.jit.Error``."""

