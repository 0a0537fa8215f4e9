"""``autograd.grad(..., is_grads_batched=True)``: a batch of vector-Jacobian products, one per
row of the given gradients, with PyTorch's checks and errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import messages as msg
from .tensor import Tensor

__all__ = ["batched_vjps", "first_row_shape"]


def first_row_shape(g: Tensor) -> tuple[int, ...]:
    """The shape of ``g[0]``, with the error indexing it gives."""
    shape = g._data.shape
    if not shape:
        raise IndexError(msg.ZERO_DIM_INDEX)
    if shape[0] == 0:
        raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
    return shape[1:]


def batched_vjps(info: Any, made: list[Tensor | None], run: Callable[..., list[Any]]
                 ) -> list[Any]:
    """``is_grads_batched``: one vector-Jacobian product per row of the gradients, stacked.

    NB: PyTorch vmaps one run of the engine; here the rows run one after the other (``run``, the
    executor's, keeping the graph for the next one), so a ``create_graph`` result is a
    ``StackBackward0`` of them."""
    given = [g for g in made if g is not None]
    if not given:
        raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for an input but the "
                         "input is of type <class 'NoneType'>. We cannot vmap over non-Tensor "
                         "arguments, please use None as the respective in_dim")
    for g in given:
        if g._data.ndim == 0:
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, "
                             "but that input is a Tensor of dimensionality 0 so expected in_dim "
                             "to satisfy 0 <= in_dim < 0.")
    sizes = [g._data.shape[0] for g in given]
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    rows = []
    for b in range(sizes[0]):
        row = [None if g is None else g[b] if info.create_graph
               else Tensor._make(g._data[b], g._dtype) for g in made]
        rows.append(run(info, row, accumulate=False,
                        keep=True if b < sizes[0] - 1 else None))
    out: list[Any] = []
    for col in zip(*rows, strict=True):
        if col[0] is None:
            out.append(None)
        elif info.create_graph:
            from .functional import stack
            out.append(stack(list(col)))
        else:
            out.append(Tensor._make(np.stack([c._data for c in col]), col[0]._dtype))
    return out
