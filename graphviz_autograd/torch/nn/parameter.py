"""``nn.Parameter``: a leaf tensor that a Module registers as one of its parameters."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine import dtypes as dt
from ...engine import messages as msg
from ...engine.tensor import Tensor, _init


class Parameter(Tensor):
    """A Tensor that is a module parameter (requires grad by default).

    >>> from graphviz_autograd import torch
    >>> p = torch.nn.Parameter(torch.ones(2))
    >>> p.is_leaf, p.requires_grad
    (True, True)
    """

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = Tensor._make(np.zeros(0, dtype=np.float32), dt.float32)
        if requires_grad and not data._dtype.is_floating_point:
            raise RuntimeError(msg.INT_REQUIRES_GRAD)
        p = object.__new__(cls)
        _init(p, data._data, data._dtype)
        p._vc = data._vc
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__          # NB: Tensor's __str__ is its own __repr__, not this one

    def __reduce_ex__(self, proto: Any) -> Any:
        return (Parameter, (Tensor._make(self._data.copy(), self._dtype), self._rg))
