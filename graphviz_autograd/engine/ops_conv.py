"""Table entries: convolution (ConvolutionBackward0, any number of spatial dims), the padding
ops a convolution's padding mode runs first, and the 2-d pools (max, average, adaptive average).

Forwards run in numpy on sliding windows; backwards scatter the gradient back window position by
window position; under create_graph they make PyTorch's double-backward nodes (``ops_double``)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from .optable import Op, Save, register

_LETTERS = "hwdxyz"       # einsum letters of the spatial dims (at most 6)


def _windows(xp: np.ndarray, kernel: tuple[int, ...], stride: tuple[int, ...],
             dilation: tuple[int, ...], out: tuple[int, ...]) -> np.ndarray:
    """A view of ``xp`` (..., *spatial) as (..., *out, *kernel): each output position's window."""
    nd = len(kernel)
    axes = tuple(range(xp.ndim - nd, xp.ndim))
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True))
    win = np.lib.stride_tricks.sliding_window_view(xp, span, axis=axes)
    lead = (slice(None),) * (xp.ndim - nd)
    pick = tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(out, stride, strict=True))
    return win[lead + pick + tuple(slice(None, None, d) for d in dilation)]


def _scatter(cols: np.ndarray, shape: tuple[int, ...], stride: tuple[int, ...],
             dilation: tuple[int, ...]) -> np.ndarray:
    """The adjoint of ``_windows``: ``cols`` (..., *out, *kernel) summed into zeros of
    ``shape`` (..., *spatial) at the places each window element came from."""
    nd = len(stride)
    out = cols.shape[cols.ndim - 2 * nd:cols.ndim - nd]
    kernel = cols.shape[cols.ndim - nd:]
    acc = np.zeros(shape, cols.dtype)
    lead = (slice(None),) * (len(shape) - nd)
    for pos in itertools.product(*(range(k) for k in kernel)):
        place = tuple(slice(p * d, p * d + (o - 1) * s + 1, s)
                      for p, d, o, s in zip(pos, dilation, out, stride, strict=True))
        acc[lead + place] += cols[(..., *pos)]  # type: ignore[arg-type]
    return acc


def _pad_zeros(x: np.ndarray, before: tuple[int, ...], after: tuple[int, ...],
               value: float = 0.0) -> np.ndarray:
    nd = len(before)
    if not any(before) and not any(after):
        return x
    widths = [(0, 0)] * (x.ndim - nd) + list(zip(before, after, strict=True))
    return np.pad(x, widths, constant_values=value)


def _conv_out(size: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
              padding: tuple[int, ...], dilation: tuple[int, ...]) -> tuple[int, ...]:
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, s, p, d in zip(size, kernel, stride, padding, dilation, strict=True))


# -- convolution ----------------------------------------------------------------------------------
def _subscripts(nd: int) -> tuple[str, str]:
    sp = _LETTERS[:nd]
    ker = sp.upper()
    return sp, ker


def conv_fwd(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, *, stride: tuple[int, ...],
              padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
              transposed: bool = False, output_padding: tuple[int, ...] = (0,),
              **_: Any) -> np.ndarray:
    nd = w.ndim - 2
    padding = padding * nd if len(padding) == 1 else padding
    if transposed:
        return _conv_t_fwd(x, w, b, stride, padding, dilation, groups, output_padding)
    out = _conv_out(x.shape[2:], w.shape[2:], stride, padding, dilation)
    cols = _windows(_pad_zeros(x, padding, padding), w.shape[2:], stride, dilation, out)
    n, c = x.shape[:2]
    cols = cols.reshape(n, groups, c // groups, *cols.shape[2:])
    wg = w.reshape(groups, w.shape[0] // groups, *w.shape[1:])
    sp, ker = _subscripts(nd)
    y = np.einsum(f"ngc{sp}{ker},goc{ker}->ngo{sp}", cols, wg, optimize=True)
    y = y.reshape(n, w.shape[0], *out)
    if b is not None:
        y = y + b.reshape(-1, *(1,) * nd)
    # NB: contiguous, as PyTorch's output (einsum may give a transposed layout; a later view
    # or reshape node depends on it)
    return np.ascontiguousarray(y, dtype=np.result_type(x, w))


def _conv_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    need = c.needs
    if D.tensor_mode:
        # NB: one ConvolutionBackwardBackward0 node gives the three gradients, as PyTorch's
        outs = D.convolution_backward(g, c.input, c.weight, output_mask=need,
                                      **{k: c.attrs[k] for k in DOUBLE_ATTRS})
        return tuple(o if n else None for o, n in zip(outs, need, strict=True))
    return conv_grads(g, c.input, c.weight, c.attrs, need)


# the convolution's arguments its double-backward node keeps
DOUBLE_ATTRS = ("dilation", "groups", "output_padding", "padding", "stride", "transposed")


def conv_grads(g: np.ndarray, x: np.ndarray, w: np.ndarray, a: dict[str, Any],
               need: tuple[bool, ...]) -> tuple[Any, ...]:
    """The gradients of a convolution (``a``: its arguments) by its input, weight and bias,
    given its output's gradient ``g``; None where ``need`` says no."""
    stride, dilation, groups = a["stride"], a["dilation"], a["groups"]
    nd = w.ndim - 2
    padding = a["padding"] * nd if len(a["padding"]) == 1 else a["padding"]
    if a["transposed"]:
        return _conv_t_bw(need, g, x, w, stride, padding, dilation, groups)
    n, ch = x.shape[:2]
    out = g.shape[2:]
    gg = g.reshape(n, groups, w.shape[0] // groups, *out)
    wg = w.reshape(groups, w.shape[0] // groups, *w.shape[1:])
    sp, ker = _subscripts(nd)
    gx = gw = gb = None
    if need[0]:
        cols = np.einsum(f"ngo{sp},goc{ker}->ngc{sp}{ker}", gg, wg, optimize=True)
        padded = tuple(s + 2 * p for s, p in zip(x.shape[2:], padding, strict=True))
        full = _scatter(cols.reshape(n, ch, *cols.shape[3:]), (n, ch, *padded), stride, dilation)
        inner = tuple(slice(p, p + s) for p, s in zip(padding, x.shape[2:], strict=True))
        gx = full[(..., *inner)]  # type: ignore[arg-type]
        gx = np.ascontiguousarray(gx, dtype=x.dtype)
    if need[1]:
        cols = _windows(_pad_zeros(x, padding, padding), w.shape[2:], stride, dilation, out)
        cols = cols.reshape(n, groups, ch // groups, *cols.shape[2:])
        gw = np.einsum(f"ngo{sp},ngc{sp}{ker}->goc{ker}", gg, cols, optimize=True)
        gw = gw.reshape(w.shape).astype(w.dtype, copy=False)
    if need[2]:
        gb = g.sum(axis=(0, *range(2, g.ndim))).astype(g.dtype, copy=False)
    return gx, gw, gb


def _conv_t_fwd(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: tuple[int, ...],
                padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                output_padding: tuple[int, ...]) -> np.ndarray:
    """The transposed convolution: each input element spreads its kernel-weighted copy over
    the output (the adjoint of the convolution's windows), the padding then cut off each side."""
    nd = w.ndim - 2
    n, ch = x.shape[:2]
    kernel = w.shape[2:]
    xg = x.reshape(n, groups, ch // groups, *x.shape[2:])
    wg = w.reshape(groups, ch // groups, *w.shape[1:])
    sp, ker = _subscripts(nd)
    cols = np.einsum(f"ngc{sp},gco{ker}->ngo{sp}{ker}", xg, wg, optimize=True)
    cols = cols.reshape(n, groups * w.shape[1], *cols.shape[3:])
    full = tuple((i - 1) * s + d * (k - 1) + 1 + op for i, s, d, k, op in
                 zip(x.shape[2:], stride, dilation, kernel, output_padding * nd
                     if len(output_padding) == 1 else output_padding, strict=True))
    acc = _scatter(cols, (n, cols.shape[1], *full), stride, dilation)
    crop = tuple(slice(p, f - p) for p, f in zip(padding, full, strict=True))
    y = acc[(..., *crop)]  # type: ignore[arg-type]
    if b is not None:
        y = y + b.reshape(-1, *(1,) * nd)
    return np.ascontiguousarray(y, dtype=np.result_type(x, w))


def _conv_t_bw(need: tuple[bool, ...], g: np.ndarray, x: np.ndarray, w: np.ndarray,
               stride: tuple[int, ...], padding: tuple[int, ...], dilation: tuple[int, ...],
               groups: int
               ) -> tuple[Any, ...]:
    """A transposed convolution's gradients: the output's gradient, padded back, read through
    the same windows a convolution of it would read."""
    nd = w.ndim - 2
    n, ch = x.shape[:2]
    cols = _windows(_pad_zeros(g, padding, padding), w.shape[2:], stride, dilation, x.shape[2:])
    cols = cols.reshape(n, groups, w.shape[1], *cols.shape[2:])
    wg = w.reshape(groups, ch // groups, *w.shape[1:])
    sp, ker = _subscripts(nd)
    gx = gw = gb = None
    if need[0]:
        gx = np.einsum(f"ngo{sp}{ker},gco{ker}->ngc{sp}", cols, wg, optimize=True)
        gx = np.ascontiguousarray(gx.reshape(x.shape), dtype=x.dtype)
    if need[1]:
        xg = x.reshape(n, groups, ch // groups, *x.shape[2:])
        gw = np.einsum(f"ngc{sp},ngo{sp}{ker}->gco{ker}", xg, cols, optimize=True)
        gw = gw.reshape(w.shape).astype(w.dtype, copy=False)
    if need[2]:
        gb = g.sum(axis=(0, *range(2, g.ndim))).astype(g.dtype, copy=False)
    return gx, gw, gb


# -- under create_graph ---------------------------------------------------------------------------
class ArrayCtx:
    """A backward formula's context on bare arrays (an input's shape, the attributes, saved
    values by name): a double-backward node's forward runs the first-order formula on it."""

    def __init__(self, shape: tuple[int, ...], attrs: dict[str, Any], **saved: Any) -> None:
        self.attrs, self.needs = attrs, (True,)
        self._shape = shape
        self.__dict__.update(saved)

    def shape(self, i: int = 0) -> tuple[int, ...]:
        return self._shape

    def need(self, i: int) -> bool:
        return True


def twice(double_key: str, bw: Callable[..., tuple[Any, ...]],
          attrs: Callable[[Any, Any], dict[str, Any]] = lambda c, g: c.attrs
          ) -> Callable[..., tuple[Any, ...]]:
    """A one-input layer's backward ``bw`` (on arrays); under create_graph, one node of the
    table op ``double_key`` on (grad_output, self), as PyTorch's ``*BackwardBackward0``."""
    def backward(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        if D.tensor_mode:
            return (getattr(D, double_key)(g, c.self, **attrs(c, g)),)
        return bw(c, g, D)
    return backward


# -- padding --------------------------------------------------------------------------------------
def _pad_widths(x: np.ndarray, pad: tuple[int, ...]) -> list[tuple[int, int]]:
    """PyTorch's pad list (last dim first, before/after pairs) as numpy's widths."""
    pairs = [(pad[i], pad[i + 1]) for i in range(0, len(pad), 2)][::-1]
    return [(0, 0)] * (x.ndim - len(pairs)) + pairs


def _index_pad(shape: tuple[int, ...], pad: tuple[int, ...], mode: Literal["reflect", "edge"]
               ) -> np.ndarray:
    """For each element of the padded plane, the flat index of the input element it copies."""
    nd = len(pad) // 2
    plane = np.arange(math.prod(shape[-nd:])).reshape(shape[-nd:])
    return np.pad(plane, _pad_widths(plane, pad), mode=mode)


def _mode_pad(mode: Literal["reflect", "edge"]
              ) -> tuple[Callable[..., np.ndarray], Callable[..., tuple[Any, ...]]]:
    def fwd(x: np.ndarray, *, padding: tuple[int, ...]) -> np.ndarray:
        return np.pad(x, _pad_widths(x, padding), mode=mode)

    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        shape = c.shape(0)
        nd = len(c.attrs["padding"]) // 2
        idx = _index_pad(shape, c.attrs["padding"], mode).ravel()
        size = math.prod(shape[-nd:])
        planes = g.reshape(-1, idx.size)
        gx = np.stack([np.bincount(idx, p, size) for p in planes])
        return (gx.reshape(shape).astype(g.dtype, copy=False),)
    return fwd, bw


def _constant_pad_fwd(x: np.ndarray, *, pad: tuple[int, ...], value: float = 0.0) -> np.ndarray:
    widths = _pad_widths(x, pad)
    if any(a < 0 or b < 0 for a, b in widths):
        # NB: a negative pad crops that side (the backward's opposite pad does)
        x = x[tuple(slice(max(-a, 0), n - max(-b, 0)) for n, (a, b) in zip(x.shape, widths,
                                                                            strict=True))]
        widths = [(max(a, 0), max(b, 0)) for a, b in widths]
    return np.pad(x, widths, constant_values=value)


def _constant_pad_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: the opposite pad crops what was padded (under create_graph a ConstantPadNdBackward0
    # of its own, as PyTorch's)
    return (D.constant_pad_nd(g, pad=tuple(-p for p in c.attrs["pad"]), value=0.0),)


# -- pools ----------------------------------------------------------------------------------------
def pool_out(size: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    """A pool's output length, as PyTorch's pooling_output_shape."""
    span = d * (k - 1) + 1
    out = (size + 2 * p - span + ((s - 1) if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1        # NB: the last window must start inside the input or its left padding
    return out


def _pool_geometry(x: np.ndarray, kernel: tuple[int, ...], stride: tuple[int, ...],
                   padding: tuple[int, ...], dilation: tuple[int, ...], ceil_mode: bool
                   ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The output size, and the padding after each spatial dim so every window fits."""
    stride = stride or kernel
    out = tuple(pool_out(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
                zip(x.shape[-2:], kernel, stride, padding, dilation, strict=True))
    after = tuple(max(p, (o - 1) * s + d * (k - 1) + 1 - n - p)
                  for n, k, s, p, d, o in zip(x.shape[-2:], kernel, stride, padding, dilation,
                                              out, strict=True))
    return out, after, stride


def _max_pool_fwd(x: np.ndarray, *, kernel_size: tuple[int, ...], stride: tuple[int, ...],
                  padding: tuple[int, ...], dilation: tuple[int, ...], ceil_mode: bool
                  ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    out, after, stride = _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode)
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    cols = _windows(_pad_zeros(x, padding, after, lowest), kernel_size, stride, dilation, out)
    flat = cols.reshape(*cols.shape[:-2], -1)
    # NB: the first maximum of each window wins, as PyTorch's loop keeps it (a NaN counts as one)
    arg = np.where(np.isnan(flat).any(-1), np.isnan(flat).argmax(-1), flat.argmax(-1)) \
        if x.dtype.kind == "f" else flat.argmax(-1)
    values = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
    ki, kj = np.divmod(arg, kernel_size[1])
    rows = np.arange(out[0])[:, None] * stride[0] - padding[0] + ki * dilation[0]
    cols_ = np.arange(out[1])[None, :] * stride[1] - padding[1] + kj * dilation[1]
    return np.ascontiguousarray(values, dtype=x.dtype), \
        {"result1": (rows * x.shape[-1] + cols_).astype(np.int64)}


def max_indices_bw(double_key: str) -> Any:
    """The backward of a 2-d max pool: each output's gradient added at the input position its
    saved index (``result1``, within its plane) names; under create_graph, the node of
    ``double_key``."""
    def backward(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        if D.tensor_mode:
            return (getattr(D, double_key)(g, c.self, indices=c.result1),)
        shape = c.shape(0)
        plane = shape[-1] * shape[-2]
        idx = c.result1.reshape(-1, g.shape[-1] * g.shape[-2])
        flat = (idx + np.arange(idx.shape[0])[:, None] * plane).ravel()
        gx = np.bincount(flat, g.ravel(), idx.shape[0] * plane)
        return (gx.reshape(shape).astype(g.dtype, copy=False),)
    return backward


def _avg_divisors(shape: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
                  padding: tuple[int, ...], out: tuple[int, ...], count_include_pad: bool,
                  divisor_override: int | None) -> np.ndarray:
    """Each output position's divisor, as PyTorch's avg_pool2d kernel counts it."""
    if divisor_override:
        return np.full(out, float(divisor_override))
    sizes = []
    for n, k, s, p, o in zip(shape[-2:], kernel, stride, padding, out, strict=True):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        # NB: with the padding counted, the window clipped to the padded input only
        sizes.append(end - start if count_include_pad
                     else np.minimum(end, n) - np.maximum(start, 0))
    return np.outer(sizes[0], sizes[1]).astype(np.float64)


def _avg_pool_fwd(x: np.ndarray, *, kernel_size: tuple[int, ...], stride: tuple[int, ...],
                  padding: tuple[int, ...], ceil_mode: bool, count_include_pad: bool,
                  divisor_override: int | None) -> np.ndarray:
    out, after, stride = _pool_geometry(x, kernel_size, stride, padding, (1, 1), ceil_mode)
    cols = _windows(_pad_zeros(x, padding, after), kernel_size, stride, (1, 1), out)
    div = _avg_divisors(x.shape, kernel_size, stride, padding, out, count_include_pad,
                        divisor_override)
    return np.ascontiguousarray(cols.sum(axis=(-2, -1)) / div, dtype=x.dtype)


def avg_pool_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    a = c.attrs
    shape = c.shape(0)
    kernel, padding = a["kernel_size"], a["padding"]
    x = np.empty(shape, g.dtype)
    out, after, stride = _pool_geometry(x, kernel, a["stride"], padding, (1, 1), a["ceil_mode"])
    div = _avg_divisors(shape, kernel, stride, padding, out, a["count_include_pad"],
                        a["divisor_override"])
    share = (g / div)[..., None, None] * np.ones(kernel, g.dtype)
    padded = (*shape[:-2], *(n + p + q for n, p, q in zip(shape[-2:], padding, after,
                                                            strict=True)))
    full = _scatter(share, padded, stride, (1, 1))
    gx = full[..., padding[0]:padding[0] + shape[-2], padding[1]:padding[1] + shape[-1]]
    return (np.ascontiguousarray(gx, dtype=g.dtype),)


def _bins(n: int, o: int) -> list[tuple[int, int]]:
    """Adaptive pooling's windows along one dim: [floor(i n / o), ceil((i + 1) n / o))."""
    return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]


def _adaptive_avg_fwd(x: np.ndarray, *, output_size: tuple[int, int]) -> np.ndarray:
    rows, cols = _bins(x.shape[-2], output_size[0]), _bins(x.shape[-1], output_size[1])
    y = np.empty((*x.shape[:-2], *output_size), x.dtype)
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            y[..., i, j] = x[..., r0:r1, c0:c1].mean(axis=(-2, -1))
    return y


def adaptive_avg_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    shape = c.shape(0)
    gx = np.zeros(shape, g.dtype)
    rows, cols = _bins(shape[-2], g.shape[-2]), _bins(shape[-1], g.shape[-1])
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            gx[..., r0:r1, c0:c1] += (g[..., i, j] / ((r1 - r0) * (c1 - c0)))[..., None, None]
    return (gx,)


reflect = _mode_pad("reflect")
replicate = _mode_pad("edge")


def _pad_op(key: str, name: str, mode: tuple[Any, Any]) -> Op:
    return Op(key, name, ("self",), mode[0], twice(f"{key}_backward", mode[1]), (Save("self"),),
              ("padding",))


def _adaptive_size(c: Any, g: Any) -> dict[str, Any]:
    return {"grad_output_sym_argsize_minus_1": g.shape[-1],
            "grad_output_sym_argsize_minus_2": g.shape[-2]}

register(
    Op("convolution", "ConvolutionBackward0", ("input", "weight", "bias"), conv_fwd, _conv_bw,
       (Save("input"), Save("weight")),
       ("bias_sym_sizes_opt", "dilation", "groups", "output_padding", "padding", "stride",
        "transposed")),
    _pad_op("reflection_pad1d", "ReflectionPad1DBackward0", reflect),
    _pad_op("reflection_pad2d", "ReflectionPad2DBackward0", reflect),
    _pad_op("replication_pad1d", "ReplicationPad1DBackward0", replicate),
    _pad_op("replication_pad2d", "ReplicationPad2DBackward0", replicate),
    _pad_op("reflection_pad3d", "ReflectionPad3DBackward0", reflect),
    _pad_op("replication_pad3d", "ReplicationPad3DBackward0", replicate),
    Op("constant_pad_nd", "ConstantPadNdBackward0", ("self",), _constant_pad_fwd,
       _constant_pad_bw, (), ("pad",)),
    Op("max_pool2d_with_indices", "MaxPool2DWithIndicesBackward0", ("self",), _max_pool_fwd,
       max_indices_bw("max_pool2d_with_indices_backward"), (Save("result1"), Save("self")),
       ("ceil_mode", "dilation", "kernel_size", "padding", "stride"), extras=("result1",)),
    Op("avg_pool2d", "AvgPool2DBackward0", ("self",), _avg_pool_fwd,
       twice("avg_pool2d_backward", avg_pool_bw),
       (Save("self"),),
       ("ceil_mode", "count_include_pad", "divisor_override", "kernel_size", "padding",
        "stride")),
    Op("adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", ("self",), _adaptive_avg_fwd,
       twice("adaptive_avg_pool2d_backward", adaptive_avg_bw, _adaptive_size),
       (Save("self"),)),
)
