"""``torch.autograd.function``: custom Functions and their context."""

from ...engine.function import BackwardCFunction, Function, FunctionCtx, once_differentiable

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]
