"""Table entry: packing a padded batch of sequences step by step
(``_pack_padded_sequence``: PackPaddedSequenceBackward0, which keeps the batch sizes as
``result1``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, no_double_backward, register


def _pack_fwd(x: np.ndarray, *, batch_sizes: tuple[int, ...], batch_first: bool,
              input_sym_sizes: tuple[int, ...]) -> tuple[np.ndarray, dict[str, Any]]:
    steps = np.swapaxes(x, 0, 1) if batch_first else x
    data = np.concatenate([steps[t, :n] for t, n in enumerate(batch_sizes)], 0)
    return data, {"result1": np.asarray(batch_sizes, dtype=np.int64)}


def _pack_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("PackPaddedSequenceBackward0")
    a = c.attrs
    sizes = tuple(a["input_sym_sizes"])
    if a["batch_first"]:
        sizes = (sizes[1], sizes[0], *sizes[2:])
    g = np.asarray(g)
    grad = np.zeros(sizes, dtype=g.dtype)
    at = 0
    for t, n in enumerate(a["batch_sizes"]):
        grad[t, :n] = g[at:at + n]
        at += n
    return (np.swapaxes(grad, 0, 1).copy() if a["batch_first"] else grad,)


register(
    Op("pack_padded_sequence", "PackPaddedSequenceBackward0", ("input",), _pack_fwd, _pack_bw,
       (Save("result1"),), ("batch_first", "input_sym_sizes"), extras=("result1",)),
)
