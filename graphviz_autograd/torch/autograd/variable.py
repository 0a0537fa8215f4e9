"""``torch.autograd.variable``: the legacy ``Variable`` (a plain tensor since PyTorch 0.4)."""

from __future__ import annotations

import warnings
from typing import Any

from ...engine import messages as msg
from ...engine.tensor import Tensor

__all__ = ["Variable"]


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
