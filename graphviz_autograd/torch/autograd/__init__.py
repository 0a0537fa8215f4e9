"""``torch.autograd``: ``backward``, ``grad``, custom ``Function``s, ``functional`` (jacobian,
hessian, ...), ``gradcheck`` / ``gradgradcheck``, the legacy ``Variable``, and anomaly mode."""

from __future__ import annotations

from typing import Any, NoReturn

from ...engine.executor import backward, grad
from ...engine.function import Function, FunctionCtx, once_differentiable
from ...engine.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from ...engine.node import Node
from . import anomaly_mode, forward_ad, function, functional, grad_mode, graph, profiler
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .grad_mode import is_multithreading_enabled, set_multithreading_enabled
from .gradcheck import gradcheck, gradgradcheck
from .gradcheck_more import is_tensor_like
from .profiler import ProfilerActivity, kineto_available
from .variable import Variable

__all__ = ["backward", "grad", "Variable", "set_detect_anomaly", "detect_anomaly",
           "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "Node", "Function",
           "FunctionCtx", "once_differentiable", "function", "functional", "graph", "grad_mode",
           "anomaly_mode", "gradcheck", "gradgradcheck", "is_tensor_like", "variable",
           "set_multithreading_enabled", "is_multithreading_enabled", "is_view_replay_enabled",
           "forward_ad", "profiler", "ProfilerActivity", "kineto_available"]


def is_view_replay_enabled() -> bool:
    """Whether views are replayed in backward (off, PyTorch's default; the engine never does)."""
    return False


# NB: as in PyTorch, the attribute is this function; the module of the same name stays importable
def variable(*args: Any, **kwargs: Any) -> NoReturn:
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) "
                       "instead")
