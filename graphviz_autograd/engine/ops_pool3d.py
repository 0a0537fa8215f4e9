"""Table entries: the 3-d pools (max: MaxPool3DWithIndicesBackward0, average:
AvgPool3DBackward0, adaptive average: AdaptiveAvgPool3DBackward0), on the window helpers of
``ops_conv``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ops_conv import _pad_zeros, _scatter, _windows, pool_out
from .optable import Op, Save, no_double_backward, register

ND = 3


def _geometry(shape: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
              padding: tuple[int, ...], dilation: tuple[int, ...], ceil_mode: bool
              ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The output size, and the padding after each spatial dim so every window fits."""
    stride = stride or kernel
    spatial = shape[-ND:]
    out = tuple(pool_out(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
                zip(spatial, kernel, stride, padding, dilation, strict=True))
    after = tuple(max(p, (o - 1) * s + d * (k - 1) + 1 - n - p)
                  for n, k, s, p, d, o in zip(spatial, kernel, stride, padding, dilation, out,
                                              strict=True))
    return out, after, stride


def _max_pool_fwd(x: np.ndarray, *, kernel_size: tuple[int, ...], stride: tuple[int, ...],
                  padding: tuple[int, ...], dilation: tuple[int, ...], ceil_mode: bool
                  ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    out, after, stride = _geometry(x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    cols = _windows(_pad_zeros(x, padding, after, lowest), kernel_size, stride, dilation, out)
    flat = cols.reshape(*cols.shape[:-ND], -1)
    # NB: the first maximum of each window wins, as PyTorch's loop keeps it (a NaN counts as one)
    arg = np.where(np.isnan(flat).any(-1), np.isnan(flat).argmax(-1), flat.argmax(-1)) \
        if x.dtype.kind == "f" else flat.argmax(-1)
    values = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
    offsets = np.unravel_index(arg, kernel_size)
    index = np.zeros(arg.shape, np.int64)
    for axis in range(ND):
        place = [1] * ND
        place[axis] = out[axis]
        start = (np.arange(out[axis]) * stride[axis] - padding[axis]).reshape(place)
        index = index * x.shape[-ND + axis] + start + offsets[axis] * dilation[axis]
    return np.ascontiguousarray(values, dtype=x.dtype), {"result1": index}


def _max_pool_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("MaxPool3DWithIndicesBackward0")
    shape = c.shape(0)
    volume = int(np.prod(shape[-ND:]))
    per = int(np.prod(g.shape[-ND:]))
    idx = np.asarray(c.result1).reshape(-1, per)
    flat = (idx + np.arange(idx.shape[0])[:, None] * volume).ravel()
    gx = np.bincount(flat, g.ravel(), idx.shape[0] * volume)
    return (gx.reshape(shape).astype(g.dtype, copy=False),)


def _divisors(shape: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
              padding: tuple[int, ...], out: tuple[int, ...], count_include_pad: bool,
              divisor_override: int | None) -> np.ndarray:
    """Each output position's divisor, as PyTorch's avg_pool3d kernel counts it."""
    if divisor_override:
        return np.full(out, float(divisor_override))
    sizes = []
    for n, k, s, p, o in zip(shape[-ND:], kernel, stride, padding, out, strict=True):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        # NB: with the padding counted, the window clipped to the padded input only
        sizes.append(end - start if count_include_pad
                     else np.minimum(end, n) - np.maximum(start, 0))
    grid = np.ix_(*sizes)
    return (grid[0] * grid[1] * grid[2]).astype(np.float64)


def _avg_pool_fwd(x: np.ndarray, *, kernel_size: tuple[int, ...], stride: tuple[int, ...],
                  padding: tuple[int, ...], ceil_mode: bool, count_include_pad: bool,
                  divisor_override: int | None) -> np.ndarray:
    ones = (1,) * ND
    out, after, stride = _geometry(x.shape, kernel_size, stride, padding, ones, ceil_mode)
    cols = _windows(_pad_zeros(x, padding, after), kernel_size, stride, ones, out)
    div = _divisors(x.shape, kernel_size, stride, padding, out, count_include_pad,
                    divisor_override)
    return np.ascontiguousarray(cols.sum(axis=(-3, -2, -1)) / div, dtype=x.dtype)


def _avg_pool_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("AvgPool3DBackward0")
    a = c.attrs
    shape = c.shape(0)
    kernel, padding, ones = a["kernel_size"], a["padding"], (1,) * ND
    out, after, stride = _geometry(shape, kernel, a["stride"], padding, ones, a["ceil_mode"])
    div = _divisors(shape, kernel, stride, padding, out, a["count_include_pad"],
                    a["divisor_override"])
    share = (g / div)[..., None, None, None] * np.ones(kernel, g.dtype)
    padded = (*shape[:-ND], *(n + p + q for n, p, q in zip(shape[-ND:], padding, after,
                                                             strict=True)))
    full = _scatter(share, padded, stride, ones)
    inner: tuple[Any, ...] = (..., *(slice(p, p + n)
                                     for p, n in zip(padding, shape[-ND:], strict=True)))
    gx = full[inner]
    return (np.ascontiguousarray(gx, dtype=g.dtype),)


def _bins(n: int, o: int) -> list[tuple[int, int]]:
    """Adaptive pooling's windows along one dim: [floor(i n / o), ceil((i + 1) n / o))."""
    return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]


def _cells(shape: tuple[int, ...], size: tuple[int, ...]) -> Any:
    bins = [_bins(n, o) for n, o in zip(shape[-ND:], size, strict=True)]
    for i, (a0, a1) in enumerate(bins[0]):
        for j, (b0, b1) in enumerate(bins[1]):
            for k, (c0, c1) in enumerate(bins[2]):
                yield (i, j, k), (slice(a0, a1), slice(b0, b1), slice(c0, c1)), \
                    (a1 - a0) * (b1 - b0) * (c1 - c0)


def _adaptive_avg_fwd(x: np.ndarray, *, output_size: tuple[int, ...]) -> np.ndarray:
    y = np.empty((*x.shape[:-ND], *output_size), x.dtype)
    for at, window, _ in _cells(x.shape, output_size):
        y[(..., *at)] = x[(..., *window)].mean(axis=(-3, -2, -1))
    return y


def _adaptive_avg_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("AdaptiveAvgPool3DBackward0")
    shape = c.shape(0)
    gx = np.zeros(shape, g.dtype)
    for at, window, count in _cells(shape, g.shape[-ND:]):
        gx[(..., *window)] += (g[(..., *at)] / count)[..., None, None, None]
    return (gx,)


register(
    Op("max_pool3d_with_indices", "MaxPool3DWithIndicesBackward0", ("self",), _max_pool_fwd,
       _max_pool_bw, (Save("result1"), Save("self")),
       ("ceil_mode", "dilation", "kernel_size", "padding", "stride"), extras=("result1",)),
    Op("avg_pool3d", "AvgPool3DBackward0", ("self",), _avg_pool_fwd, _avg_pool_bw,
       (Save("self"),),
       ("ceil_mode", "count_include_pad", "divisor_override", "kernel_size", "padding",
        "stride")),
    Op("adaptive_avg_pool3d", "AdaptiveAvgPool3DBackward0", ("self",), _adaptive_avg_fwd,
       _adaptive_avg_bw, (Save("self"),)),
)
