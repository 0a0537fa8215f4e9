"""``nn.Buffer``: a tensor marked to be registered as a module's buffer when assigned to one
(``persistent`` says whether ``state_dict`` keeps it); the tensor itself stays a Tensor, as in
PyTorch, and ``isinstance(t, nn.Buffer)`` reads the mark."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine import dtypes as dt
from ...engine.tensor import Tensor

__all__ = ["Buffer"]


class _BufferMeta(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and bool(getattr(instance, "_is_buffer", False))


class Buffer(Tensor, metaclass=_BufferMeta):
    """>>> from graphviz_autograd import torch
    >>> b = torch.nn.Buffer(torch.ones(2), persistent=False)
    >>> isinstance(b, torch.nn.Buffer), b.persistent
    (True, False)
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Any:
        if data is None:
            data = Tensor._make(np.zeros(0, np.float32), dt.float32)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent  # type: ignore[attr-defined]
        t._is_buffer = True  # type: ignore[attr-defined]
        return t
