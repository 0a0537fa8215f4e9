"""``torch.autograd``: ``backward``, ``grad``, custom ``Function``s, ``functional`` (jacobian,
hessian, ...), the legacy ``Variable``, and anomaly mode."""

from __future__ import annotations

import warnings
from typing import Any

from ...engine import anomaly
from ...engine import messages as msg
from ...engine.executor import backward, grad
from ...engine.function import Function, FunctionCtx, once_differentiable
from ...engine.grad_mode import enable_grad, no_grad, set_grad_enabled
from ...engine.node import Node
from ...engine.tensor import Tensor
from . import function, functional, graph, profiler

__all__ = ["backward", "grad", "Variable", "set_detect_anomaly", "detect_anomaly",
           "no_grad", "enable_grad", "set_grad_enabled", "Node", "Function", "FunctionCtx",
           "once_differentiable", "function", "functional", "graph", "profiler"]


class _VariableMeta(type):
    def __instancecheck__(cls, other: Any) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """The pre-0.4 wrapper: in PyTorch 2.13 it returns a plain Tensor, detached from any graph.

    >>> from graphviz_autograd import torch
    >>> a = Variable(torch.ones(2), requires_grad=True)
    >>> a.is_leaf, a.requires_grad
    (True, True)
    """

    def __new__(cls, data: Any = None, requires_grad: bool = False,  # type: ignore[misc]
                volatile: bool = False) -> Tensor:
        if data is None:
            from ...engine.factories import tensor
            return tensor([])
        if not isinstance(data, Tensor):
            raise TypeError("Variable data has to be a tensor, but got "
                            f"{type(data).__name__}")
        if volatile:
            warnings.warn(msg.VOLATILE, UserWarning, stacklevel=2)
        out = data.detach()
        if requires_grad:
            if not data._dtype.is_floating_point:
                raise RuntimeError(msg.INT_REQUIRES_GRAD)
            out.requires_grad_(True)
        return out


class set_detect_anomaly:  # noqa: N801 -- PyTorch's name
    """Anomaly mode on or off from now on (and back as it was when used as a context)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = anomaly.state.enabled, anomaly.state.check_nan
        anomaly.set_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        anomaly.set_enabled(self.prev, self.prev_check_nan)


class detect_anomaly:  # noqa: N801
    """Anomaly mode on inside the context."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = anomaly.state.enabled, anomaly.state.check_nan
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        anomaly.set_enabled(True, self.check_nan)

    def __exit__(self, *exc: object) -> None:
        anomaly.set_enabled(self.prev, self.prev_check_nan)
