"""Table entries: the scatters of a value and of rows (scatter with a number: ScatterBackward1;
index_copy: IndexCopyBackward0), beside the tensor scatters of ``ops_reduce`` / ``ops_shape``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, register


def _scatter_value_fwd(x: np.ndarray, dim: int, index: Any, value: Any) -> np.ndarray:
    out = x.copy()
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    out[tuple(grid)] = np.asarray(value, dtype=x.dtype)
    return out


def _scatter_value_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch: grad.scatter(dim, index, 0)
    return (D.scatter_value(g, dim=c.attrs["dim"], index=c.index, value=0),)


def _index_copy_fwd(x: np.ndarray, src: np.ndarray, dim: int, index: Any,
                    source_dim: int = 0) -> np.ndarray:
    out = x.copy()
    if out.ndim == 0:
        return np.asarray(src, dtype=out.dtype).reshape(()).copy()
    key: list[Any] = [slice(None)] * out.ndim
    key[dim] = np.asarray(index).reshape(-1)
    out[tuple(key)] = np.asarray(src).reshape(out[tuple(key)].shape)
    return out


def _index_copy_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    dim, index = c.attrs["dim"], c.index
    gx = D.index_fill(g, dim=dim, index=index, value=0) if c.needs[0] else None
    gs = None
    if c.needs[1]:
        # NB: PyTorch: grad.index_select(dim, index), expanded to the source's shape
        gs = D.index_select(g, dim=dim, index=index)
        if D.tensor_mode:
            gs = D.expand(gs, size=tuple(c.shape(1))) if c.shape(1) else D.reshape(gs, shape=())
        elif gs.shape != c.shape(1):
            gs = gs.reshape(c.shape(1))
    return gx, gs


register(
    Op("scatter_value", "ScatterBackward1", ("self",), _scatter_value_fwd, _scatter_value_bw,
       (Save("index"),), ("dim",), lift_0d=True),
    Op("index_copy", "IndexCopyBackward0", ("self", "source"), _index_copy_fwd, _index_copy_bw,
       (Save("index"), Save("source", (1,))), ("dim", "source_dim")),
)
