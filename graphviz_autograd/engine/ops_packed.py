"""Table entry: packing a padded batch of sequences step by step
(``_pack_padded_sequence``: PackPaddedSequenceBackward0, which keeps the batch sizes as
``result1``; its backward under ``create_graph`` is PyTorch's composite of copies)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, register


def _pack_fwd(x: np.ndarray, *, batch_sizes: tuple[int, ...], batch_first: bool,
              input_sym_sizes: tuple[int, ...]) -> tuple[np.ndarray, dict[str, Any]]:
    steps = np.swapaxes(x, 0, 1) if batch_first else x
    data = np.concatenate([steps[t, :n] for t, n in enumerate(batch_sizes)], 0)
    return data, {"result1": np.asarray(batch_sizes, dtype=np.int64)}


def _pack_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    a = c.attrs
    sizes = tuple(a["input_sym_sizes"])
    if a["batch_first"]:
        sizes = (sizes[1], sizes[0], *sizes[2:])
    if D.tensor_mode:
        return (_pack_bw_graph(g, sizes, a["batch_sizes"], a["batch_first"]),)
    g = np.asarray(g)
    grad = np.zeros(sizes, dtype=g.dtype)
    at = 0
    for t, n in enumerate(a["batch_sizes"]):
        grad[t, :n] = g[at:at + n]
        at += n
    return (np.swapaxes(grad, 0, 1).copy() if a["batch_first"] else grad,)


def _pack_bw_graph(g: Any, sizes: tuple[int, ...], batch_sizes: tuple[int, ...],
                   batch_first: bool) -> Any:
    """PyTorch's ``_pack_padded_sequence_backward`` under ``create_graph``: zeros, each step's
    rows copied in (a CopySlices each, from a slice of the gradient), transposed back."""
    from . import functional as F
    from .factories import zeros
    grad = zeros(*sizes, dtype=g.dtype)
    at = 0
    for t, n in enumerate(batch_sizes):
        F.slice_(grad.select(0, t), 0, 0, n).copy_(F.slice_(g, 0, at, at + n))
        at += n
    return grad.transpose(0, 1) if batch_first else grad


register(
    Op("pack_padded_sequence", "PackPaddedSequenceBackward0", ("input",), _pack_fwd, _pack_bw,
       (Save("result1"),), ("batch_first", "input_sym_sizes"), extras=("result1",)),
)
