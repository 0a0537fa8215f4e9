"""Table entries: sampling an image at grid points (GridSampler2DBackward0,
GridSampler3DBackward0: bilinear / trilinear, nearest or (2-d) bicubic, zeros / border /
reflection padding)
and the affine grid of a spatial transformer (AffineGridGeneratorBackward0).

A grid point's coordinates are in [-1, 1] along each spatial dim, x (the last dim) first. Each
is mapped to a source position, padded, then read from its 2**nd neighbours with the linear
weights PyTorch's CPU kernel uses (``(i + 1 - x)`` and ``(x - i)`` of the floor ``i``); the
backward spreads the output's gradient back over those neighbours, and gives the grid the
weights' slopes times each coordinate's chain of multipliers.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .optable import Op, Save, no_double_backward, register

BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2


def _clip(x: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Clamped to [0, size - 1], with the slope PyTorch gives (0 at and past either end)."""
    top = size - 1
    slope = ((x > 0) & (x < top)).astype(x.dtype)
    return np.clip(x, 0, top), slope


def _reflect(x: np.ndarray, twice_low: int, twice_high: int) -> tuple[np.ndarray, np.ndarray]:
    """Reflected into [low, high] (given doubled), with the slope (+1 or -1)."""
    if twice_low == twice_high:
        return np.zeros_like(x), np.zeros_like(x)
    low = x.dtype.type(twice_low / 2)
    span = x.dtype.type((twice_high - twice_low) / 2)
    rel = x - low
    sign = np.where(rel < 0, -1, 1).astype(x.dtype)
    rel = np.abs(rel)
    extra = np.fmod(rel, span)
    flips = np.floor(rel / span)
    even = np.fmod(flips, 2) == 0
    return (np.where(even, extra + low, span - extra + low).astype(x.dtype),
            np.where(even, sign, -sign).astype(x.dtype))


def _source(coord: np.ndarray, size: int, padding: int, align: bool
            ) -> tuple[np.ndarray, np.ndarray]:
    """A normalized coordinate as a source position along a dim of ``size``, and d(pos)/d(coord)."""
    t = coord.dtype.type
    if align:
        pos = (coord + t(1)) / t(2) * t(size - 1)
        mult = np.full_like(coord, t((size - 1) / 2))
    else:
        pos = ((coord + t(1)) * t(size) - t(1)) / t(2)
        mult = np.full_like(coord, t(size / 2))
    pos, slope = _pad(pos, size, padding, align)
    return pos, mult * slope


def _pad(pos: np.ndarray, size: int, padding: int, align: bool
         ) -> tuple[np.ndarray, np.ndarray]:
    """A source position moved inside by the padding mode (border: clamped; reflection:
    reflected, then clamped), and its slope."""
    if padding == BORDER:
        return _clip(pos, size)
    if padding == REFLECTION:
        pos, slope = _reflect(pos, 0, 2 * (size - 1)) if align else \
            _reflect(pos, -1, 2 * size - 1)
        pos, inner = _clip(pos, size)
        return pos, slope * inner
    return pos, np.ones_like(pos)


def _positions(x_shape: tuple[int, ...], grid: np.ndarray, a: dict[str, Any]
               ) -> tuple[list[np.ndarray], list[np.ndarray], tuple[int, ...]]:
    """Each spatial dim's source positions (outermost dim first) and multipliers."""
    nd = grid.shape[-1]
    spatial = x_shape[2:]
    pos, mult = [], []
    for d in range(nd):
        size = spatial[-1 - d]
        p, m = _source(grid[..., d], size, a["padding_mode"], a["align_corners"])
        pos.append(p)
        mult.append(m)
    return pos[::-1], mult[::-1], spatial


def _corners(pos: list[np.ndarray], spatial: tuple[int, ...]) -> Any:
    """For each of the 2**nd neighbours: its indices (clamped), whether it lies inside, and
    each dim's factor of its weight with that factor's sign."""
    low = [np.floor(p) for p in pos]
    for bits in itertools.product((0, 1), repeat=len(pos)):
        idx, factors, signs = [], [], []
        inside = np.ones(pos[0].shape, bool)
        for b, lo, p, n in zip(bits, low, pos, spatial, strict=True):
            i = lo + b
            # NB: the far neighbour's weight is (x - floor), the near one's (floor + 1 - x)
            factors.append(p - lo if b else (lo + 1) - p)
            signs.append(1 if b else -1)
            inside &= (i >= 0) & (i < n)
            idx.append(np.clip(i, 0, n - 1).astype(np.intp))
        yield idx, inside, factors, signs


def _gather(x: np.ndarray, idx: list[np.ndarray]) -> np.ndarray:
    """x[n, :, idx...] for every grid point: (N, C, *grid points)."""
    n = np.arange(x.shape[0]).reshape((-1,) + (1,) * (idx[0].ndim - 1))
    where: tuple[Any, ...] = (n, slice(None), *idx)
    vals = x[where]          # (N, *points, C)
    return np.moveaxis(vals, -1, 1)


_A = -0.75          # the cubic convolution's parameter, as PyTorch's


def _cubic(t: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The four taps' weights at fraction ``t`` and their derivatives in ``t``."""
    a = t.dtype.type(_A)

    def near(u: np.ndarray) -> np.ndarray:
        return ((a + 2) * u - (a + 3)) * u * u + 1

    def far(u: np.ndarray) -> np.ndarray:
        return ((a * u - 5 * a) * u + 8 * a) * u - 4 * a

    def near_d(u: np.ndarray) -> np.ndarray:
        return (3 * (a + 2) * u - 2 * (a + 3)) * u

    def far_d(u: np.ndarray) -> np.ndarray:
        return (3 * a * u - 10 * a) * u + 8 * a
    one, two = t.dtype.type(1), t.dtype.type(2)
    return ([far(t + one), near(t), near(one - t), far(two - t)],
            [far_d(t + one), near_d(t), -near_d(one - t), -far_d(two - t)])


def _bicubic_taps(x_shape: tuple[int, ...], grid: np.ndarray, a: dict[str, Any]) -> Any:
    """The 16 taps around each point: indices (padded, clamped), whether inside, the x and y
    weights and their derivatives, and the coordinates' multipliers (the padding of each tap
    is not differentiated, as PyTorch's kernel)."""
    h, w = x_shape[-2:]
    ix, mx = _source(grid[..., 0], w, ZEROS, a["align_corners"])
    iy, my = _source(grid[..., 1], h, ZEROS, a["align_corners"])
    fx, fy = np.floor(ix), np.floor(iy)
    (cx, dcx), (cy, dcy) = _cubic(ix - fx), _cubic(iy - fy)
    for i in range(4):
        px = _pad(fx + (i - 1), w, a["padding_mode"], a["align_corners"])[0]
        for j in range(4):
            py = _pad(fy + (j - 1), h, a["padding_mode"], a["align_corners"])[0]
            inside = (px >= 0) & (px < w) & (py >= 0) & (py < h)
            idx = [np.clip(py, 0, h - 1).astype(np.intp), np.clip(px, 0, w - 1).astype(np.intp)]
            yield idx, inside, (cx[i], cy[j]), (dcx[i], dcy[j]), (mx, my)


def _grid_fwd(x: np.ndarray, grid: np.ndarray, *, interpolation_mode: int, padding_mode: int,
              align_corners: bool) -> np.ndarray:
    a = {"padding_mode": padding_mode, "align_corners": align_corners}
    if interpolation_mode == BICUBIC:
        out = np.zeros((x.shape[0], x.shape[1], *grid.shape[1:-1]), x.dtype)
        for idx, inside, (wx, wy), _, _ in _bicubic_taps(x.shape, grid, a):
            out += _gather(x, idx) * (wx * wy * inside)[:, None]
        return out
    pos, _, spatial = _positions(x.shape, grid, a)
    if interpolation_mode == NEAREST:
        idx = [np.rint(p) for p in pos]
        inside = np.logical_and.reduce([(i >= 0) & (i < n) for i, n in zip(idx, spatial,
                                                                           strict=True)])
        clipped = [np.clip(i, 0, n - 1).astype(np.intp) for i, n in zip(idx, spatial,
                                                                           strict=True)]
        out = _gather(x, clipped) * inside[:, None]
        return np.ascontiguousarray(out, dtype=x.dtype)
    out = np.zeros((x.shape[0], x.shape[1], *grid.shape[1:-1]), x.dtype)
    for idx, inside, factors, _ in _corners(pos, spatial):
        weight = np.multiply.reduce(factors) * inside
        out += _gather(x, idx) * weight[:, None]
    return out


def _scatter_into(shape: tuple[int, ...], idx: list[np.ndarray], vals: np.ndarray,
                  acc: np.ndarray) -> None:
    """acc (N * C * volume,) += vals (N, C, *points) at the points' source positions."""
    n, c = shape[:2]
    flat = np.ravel_multi_index(tuple(idx), shape[2:])          # (N, *points)
    volume = int(np.prod(shape[2:]))
    base = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * volume
    where = base.reshape(n, c, *(1,) * (flat.ndim - 1)) + flat[:, None]
    acc += np.bincount(where.ravel(), vals.ravel(), acc.size)


def _grid_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward(c.node.name())
    x, grid, a = c.input, c.grid, c.attrs
    acc = np.zeros(x.size, np.float64)
    ggrid = np.zeros(grid.shape, x.dtype)
    if a["interpolation_mode"] == BICUBIC:
        for idx, inside, (wx, wy), (dx, dy), (mx, my) in _bicubic_taps(x.shape, grid, a):
            if c.need(0):
                _scatter_into(x.shape, idx, g * (wx * wy * inside)[:, None], acc)
            if c.need(1):
                seen = (_gather(x, idx) * g).sum(axis=1) * inside
                ggrid[..., 0] += seen * dx * wy * mx
                ggrid[..., 1] += seen * wx * dy * my
        gx = acc.reshape(x.shape).astype(x.dtype) if c.need(0) else None
        return gx, (ggrid if c.need(1) else None)
    pos, mult, spatial = _positions(x.shape, grid, a)
    if a["interpolation_mode"] == NEAREST:
        if c.need(0):
            idx = [np.rint(p) for p in pos]
            inside = np.logical_and.reduce([(i >= 0) & (i < n) for i, n in zip(idx, spatial,
                                                                               strict=True)])
            clipped = [np.clip(i, 0, n - 1).astype(np.intp) for i, n in zip(idx, spatial,
                                                                               strict=True)]
            _scatter_into(x.shape, clipped, g * inside[:, None], acc)
    else:
        nd = len(pos)
        slopes = [np.zeros(grid.shape[:-1], x.dtype) for _ in range(nd)]
        for idx, inside, factors, signs in _corners(pos, spatial):
            if c.need(0):
                weight = np.multiply.reduce(factors) * inside
                _scatter_into(x.shape, idx, g * weight[:, None], acc)
            if c.need(1):
                seen = (_gather(x, idx) * g).sum(axis=1) * inside
                for d in range(nd):
                    rest = [f for e, f in enumerate(factors) if e != d]
                    w = np.multiply.reduce(rest) if rest else 1
                    slopes[d] += signs[d] * seen * w
        for d in range(nd):
            # NB: grid's last dim runs x (the innermost spatial dim) first
            ggrid[..., nd - 1 - d] = slopes[d] * mult[d]
    gx = acc.reshape(x.shape).astype(x.dtype) if c.need(0) else None
    return gx, (ggrid if c.need(1) else None)


def _base_grid(size: tuple[int, ...], align: bool, dtype: np.dtype) -> np.ndarray:
    """(N, *spatial, nd + 1): each point's normalized coordinates, x first, then a 1."""
    spatial = size[2:]
    axes = []
    for n in spatial:
        if n <= 1:
            steps = np.zeros(n)
        else:
            steps = np.linspace(-1.0, 1.0, n).astype(dtype)
            if not align:
                steps = steps * dtype.type((n - 1) / n)
        axes.append(steps.astype(dtype))
    mesh = np.meshgrid(*axes, indexing="ij")
    cols = [m for m in mesh[::-1]] + [np.ones(spatial, dtype)]
    base = np.stack(cols, -1).astype(dtype)
    return np.broadcast_to(base, (size[0], *base.shape))


def _affine_fwd(theta: np.ndarray, *, size: tuple[int, ...], align_corners: bool) -> np.ndarray:
    base = _base_grid(size, align_corners, theta.dtype)
    points = int(np.prod(size[2:]))
    flat = base.reshape(size[0], points, base.shape[-1])
    out = np.matmul(flat, np.swapaxes(theta, 1, 2))
    return np.ascontiguousarray(out.reshape(size[0], *size[2:], len(size) - 2), theta.dtype)


def _affine_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: the base grid (points x (nd + 1)), transposed, times the gradient viewed as (N,
    # points, nd): PyTorch's view, bmm and transpose, differentiable under create_graph
    size, align = c.attrs["size"], c.attrs["align_corners"]
    points = int(np.prod(size[2:]))
    nd = len(size) - 2
    dtype = np.dtype(c.dtype(0).np)
    base = _base_grid(size, align, dtype).reshape(size[0], points, nd + 1)
    flat = D.view(g, shape=(size[0], points, nd))
    prod = D.bmm(D.nondiff(np.ascontiguousarray(np.swapaxes(base, 1, 2))), flat)
    return (D.transpose(prod, dim0=1, dim1=2),)


register(
    Op("grid_sampler_2d", "GridSampler2DBackward0", ("input", "grid"), _grid_fwd, _grid_bw,
       (Save("grid"), Save("input")), ("align_corners", "interpolation_mode", "padding_mode")),
    Op("grid_sampler_3d", "GridSampler3DBackward0", ("input", "grid"), _grid_fwd, _grid_bw,
       (Save("grid"), Save("input")), ("align_corners", "interpolation_mode", "padding_mode")),
    Op("affine_grid_generator", "AffineGridGeneratorBackward0", ("theta",), _affine_fwd,
       _affine_bw, (), ("align_corners", "size")),
)
