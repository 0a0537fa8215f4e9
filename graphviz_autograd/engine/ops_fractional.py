"""Table entries: fractional max pooling (FractionalMaxPool2DBackward0,
FractionalMaxPool3DBackward0): windows of ``kernel_size`` at pseudo-random starts, one
sequence of starts per (sample, channel) and dim, drawn from PyTorch's ``random_samples`` by
its ``generate_intervals``; the largest value of each window, its flat index in the plane (or
volume) saved as ``result1``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, no_double_backward, register


def _intervals(samples: np.ndarray, size: int, out: int, pool: int) -> np.ndarray:
    """Each window's start along one dim, for every (sample, channel): PyTorch's
    ``generate_intervals`` in the input's dtype (samples: (N, C))."""
    t = samples.dtype.type
    seq = np.zeros((*samples.shape, out), np.int64)
    if out > 1:
        alpha = t(size - pool) / t(out - 1)
        i = np.arange(out - 1, dtype=samples.dtype)
        first = (samples * alpha).astype(np.int32).astype(np.int64)
        seq[..., :-1] = ((i + samples[..., None]) * alpha).astype(np.int32) - first[..., None]
    if out > 0:
        seq[..., -1] = size - pool
    return seq


def _fractional_fwd(x: np.ndarray, *, kernel_size: tuple[int, ...],
                    output_size: tuple[int, ...], samples: np.ndarray
                    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    nd = len(kernel_size)
    batched = x.ndim == nd + 2
    xb = x if batched else x[None]
    n, c = xb.shape[:2]
    spatial = xb.shape[2:]
    # NB: the samples run x (the innermost dim) first, as PyTorch's kernels read them
    starts = [_intervals(samples[..., nd - 1 - d], spatial[d], output_size[d], kernel_size[d])
              for d in range(nd)]
    flat = np.zeros((n, c, *output_size, *kernel_size), np.int64)
    for d in range(nd):
        shape = [n, c] + [1] * (2 * nd)
        shape[2 + d] = output_size[d]
        pos = starts[d].reshape(shape)
        offs = [1] * (2 + 2 * nd)
        offs[2 + nd + d] = kernel_size[d]
        flat = flat * spatial[d] + pos + np.arange(kernel_size[d]).reshape(offs)
    plane = xb.reshape(n, c, -1)
    win = np.take_along_axis(plane, flat.reshape(n, c, -1), -1).reshape(flat.shape)
    win = win.reshape(*win.shape[:2 + nd], -1)
    idx_win = flat.reshape(win.shape)
    # NB: the first maximum of each window wins, a NaN counts as one (PyTorch's loop)
    arg = np.where(np.isnan(win).any(-1), np.isnan(win).argmax(-1), win.argmax(-1)) \
        if x.dtype.kind == "f" else win.argmax(-1)
    values = np.take_along_axis(win, arg[..., None], -1)[..., 0]
    index = np.take_along_axis(idx_win, arg[..., None], -1)[..., 0]
    if not batched:
        values, index = values[0], index[0]
    return np.ascontiguousarray(values, dtype=x.dtype), {"result1": index}


def _fractional_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    nd = len(c.attrs["kernel_size"])
    if D.tensor_mode:
        raise no_double_backward(f"FractionalMaxPool{nd}DBackward0")
    shape = c.shape(0)
    volume = int(np.prod(shape[-nd:]))
    per = int(np.prod(g.shape[-nd:]))
    idx = np.asarray(c.result1).reshape(-1, per)
    flat = (idx + np.arange(idx.shape[0])[:, None] * volume).ravel()
    gx = np.bincount(flat, g.ravel(), idx.shape[0] * volume)
    return (gx.reshape(shape).astype(g.dtype, copy=False),)


register(
    Op("fractional_max_pool2d", "FractionalMaxPool2DBackward0", ("self",), _fractional_fwd,
       _fractional_bw, (Save("result1"), Save("self")), ("kernel_size", "output_size"),
       extras=("result1",)),
    Op("fractional_max_pool3d", "FractionalMaxPool3DBackward0", ("self",), _fractional_fwd,
       _fractional_bw, (Save("result1"), Save("self")), ("kernel_size", "output_size"),
       extras=("result1",)),
)
