"""Table entries: the three-way product under ``bilinear`` (TrilinearBackward0), pairwise
distances (PdistBackward0), channel shuffling (ChannelShuffleBackward0), the 3-d adaptive max
pool (AdaptiveMaxPool3DBackward0), 3-d max unpooling (MaxUnpool3DBackward0),
``native_dropout`` (NativeDropoutBackward0) and ``conv_tbc`` (ConvTbcBackward0)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .ops_conv import _bins
from .ops_pointwise import _not_implemented
from .optable import Op, Save, no_double_backward, register

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


# -- _trilinear -----------------------------------------------------------------------------------
def _trilinear_fwd(i1: np.ndarray, i2: np.ndarray, i3: np.ndarray, *,
                   expand1: tuple[int, ...], expand2: tuple[int, ...], expand3: tuple[int, ...],
                   sumdim: tuple[int, ...], unroll_dim: int = 1) -> np.ndarray:
    """Each input unsqueezed at its ``expand`` dims, the three multiplied (broadcast) and
    summed over ``sumdim``."""
    total = i1.ndim + len(expand1)

    def subs(x: np.ndarray, expand: tuple[int, ...]) -> tuple[np.ndarray, str]:
        dims = [d for d in range(total) if d not in expand]
        # NB: a dim of size 1 against a longer one broadcasts (a letter of its own, summed away)
        return x, "".join(_LETTERS[d] for d in dims)
    ops = [subs(i1, expand1), subs(i2, expand2), subs(i3, expand3)]
    sizes = [1] * total
    for x, s in ops:
        for n, ch in zip(x.shape, s, strict=True):
            sizes[_LETTERS.index(ch)] = max(sizes[_LETTERS.index(ch)], n)
    arrays = [np.broadcast_to(x, tuple(sizes[_LETTERS.index(ch)] for ch in s)) for x, s in ops]
    out = "".join(_LETTERS[d] for d in range(total) if d not in sumdim)
    res = np.einsum(f"{ops[0][1]},{ops[1][1]},{ops[2][1]}->{out}", *arrays, optimize=True)
    return np.ascontiguousarray(res, dtype=np.result_type(i1, i2, i3))


def _trilinear_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    a = c.attrs
    e1, e2, e3, s = a["expand1"], a["expand2"], a["expand3"], a["sumdim"]
    g1 = g2 = g3 = None
    # NB: each input's gradient is the product of the gradient with the other two, its expand
    # dims summed away (PyTorch's _trilinear_backward, one _trilinear each)
    if c.need(0):
        g1 = D.trilinear(g, c.i2, c.i3, expand1=s, expand2=e2, expand3=e3, sumdim=e1)
    if c.need(1):
        g2 = D.trilinear(c.i1, g, c.i3, expand1=e1, expand2=s, expand3=e3, sumdim=e2)
    if c.need(2):
        g3 = D.trilinear(c.i1, c.i2, g, expand1=e1, expand2=e2, expand3=s, sumdim=e3)
    return g1, g2, g3


# -- pdist ----------------------------------------------------------------------------------------
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, 1)


def _pdist_fwd(x: np.ndarray, *, p: float) -> np.ndarray:
    i, j = _pairs(x.shape[0])
    diff = np.abs(x[i] - x[j])
    if p == 0:
        out = (diff != 0).sum(-1).astype(x.dtype)
    elif p == 1:
        out = diff.sum(-1)
    elif p == 2:
        out = np.sqrt((diff * diff).sum(-1))
    elif np.isinf(p):
        out = diff.max(-1) if diff.shape[-1] else np.zeros(len(i), x.dtype)
    else:
        out = np.power(np.power(diff, p).sum(-1), 1 / p)
    return np.ascontiguousarray(out, dtype=x.dtype)


def _pdist_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("PdistBackward0")
    x, dist, p = c.self, c.result, c.attrs["p"]
    n = x.shape[0]
    i, j = _pairs(n)
    diff = x[i] - x[j]
    d = dist[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            w = np.zeros_like(diff)
        elif p == 1:
            w = np.sign(diff)
        elif p == 2:
            w = np.where(d == 0, 0, diff / d)
        elif np.isinf(p):
            w = np.sign(diff) * (np.abs(diff) == d)
        elif p < 1:
            w = np.where((d == 0) | (diff == 0), 0,
                         np.sign(diff) * np.power(np.abs(diff), p - 1) / np.power(d, p - 1))
        else:
            w = np.where(d == 0, 0,
                         np.sign(diff) * np.power(np.abs(diff), p - 1) / np.power(d, p - 1))
    share = w * g[:, None]
    gx = np.zeros(x.shape, np.float64)
    np.add.at(gx, i, share)
    np.add.at(gx, j, -share)
    return (gx.astype(x.dtype),)


# -- channel shuffle ------------------------------------------------------------------------------
def _shuffle(x: np.ndarray, groups: int) -> np.ndarray:
    n, ch = x.shape[:2]
    rest = x.shape[2:]
    y = x.reshape(n, groups, ch // groups, *rest).swapaxes(1, 2)
    return np.ascontiguousarray(y.reshape(x.shape))


# -- 3-d adaptive max pool and max unpool ---------------------------------------------------------
def _adaptive_max3_fwd(x: np.ndarray, *, output_size: tuple[int, ...]
                       ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    spatial = x.shape[-3:]
    bins = [_bins(n, o) for n, o in zip(spatial, output_size, strict=True)]
    y = np.empty((*x.shape[:-3], *output_size), x.dtype)
    idx = np.empty((*x.shape[:-3], *output_size), np.int64)
    for cell in itertools.product(*(range(o) for o in output_size)):
        at: tuple[Any, ...] = (..., *cell)
        (a0, a1), (b0, b1), (c0, c1) = (bins[k][cell[k]] for k in range(3))
        win = x[..., a0:a1, b0:b1, c0:c1].reshape(*x.shape[:-3], -1)
        # NB: the first maximum wins, a NaN counts as one (PyTorch's loop)
        arg = np.where(np.isnan(win).any(-1), np.isnan(win).argmax(-1), win.argmax(-1)) \
            if x.dtype.kind == "f" else win.argmax(-1)
        y[at] = np.take_along_axis(win, arg[..., None], -1)[..., 0]
        wi, rest = np.divmod(arg, (b1 - b0) * (c1 - c0))
        wj, wk = np.divmod(rest, c1 - c0)
        idx[at] = ((a0 + wi) * spatial[1] + b0 + wj) * spatial[2] + c0 + wk
    return y, {"result1": idx}


def _volume_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    """Each output's gradient added at the flat position (within its volume) of its index."""
    if D.tensor_mode:
        raise no_double_backward("AdaptiveMaxPool3DBackward0")
    shape = c.shape(0)
    volume = int(np.prod(shape[-3:]))
    per = int(np.prod(g.shape[-3:]))
    idx = np.asarray(c.result1).reshape(-1, per)
    flat = (idx + np.arange(idx.shape[0])[:, None] * volume).ravel()
    gx = np.bincount(flat, g.ravel(), idx.shape[0] * volume)
    return (gx.reshape(shape).astype(g.dtype, copy=False),)


def _max_unpool3_fwd(x: np.ndarray, *, indices: np.ndarray, output_size: tuple[int, ...]
                     ) -> np.ndarray:
    volume = int(np.prod(output_size))
    rows = x.reshape(-1, int(np.prod(x.shape[-3:])))
    out = np.zeros((rows.shape[0], volume), x.dtype)
    np.put_along_axis(out, indices.reshape(rows.shape), rows, axis=1)
    return out.reshape(*x.shape[:-3], *output_size)


def _max_unpool3_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("MaxUnpool3DBackward0")
    idx = c.indices
    planes = g.reshape(-1, int(np.prod(g.shape[-3:])))
    picked = np.take_along_axis(planes, idx.reshape(planes.shape[0], -1), axis=1)
    return (picked.reshape(idx.shape).astype(g.dtype, copy=False),)


# -- native dropout -------------------------------------------------------------------------------
def _dropout_scale(p: float) -> float:
    return 0.0 if p == 1 else 1.0 / (1.0 - p)


def _native_dropout_fwd(x: np.ndarray, *, p: float, train: Any, mask: np.ndarray
                        ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The input times the mask times 1 / (1 - p) (in training, ``train`` None included; a
    copy otherwise)."""
    if train is not None and not train:
        return x.copy(), {"result1": mask}
    out = (x * mask.astype(x.dtype)) * x.dtype.type(_dropout_scale(p))
    return np.ascontiguousarray(out, dtype=x.dtype), {"result1": mask}


def _native_dropout_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: PyTorch's native_dropout_backward: the gradient times (mask times the scale), one
    # MulBackward0 under create_graph
    mask = c.result1
    mask = np.asarray(mask._data if hasattr(mask, "_data") else mask)
    # NB: PyTorch's scale is 1 unless ``train`` was given true (None trains, scales by 1 back)
    train = c.attrs["train"]
    scale = _dropout_scale(c.attrs["p"]) if train else 1.0
    scaled = mask.astype(np.dtype(c.dtype(0).np)) * np.dtype(c.dtype(0).np).type(scale)
    return (D.mul(g, D.nondiff(scaled)),)


# -- conv_tbc -------------------------------------------------------------------------------------
def _tbc_windows(x: np.ndarray, pad: int, kw: int) -> np.ndarray:
    """(T_out, B, kw, C): each output time's window over the time-padded input."""
    # NB: a negative pad crops the input's time instead
    xp = np.pad(x, ((pad, pad), (0, 0), (0, 0))) if pad >= 0 else x[-pad:x.shape[0] + pad]
    t_out = xp.shape[0] - kw + 1
    return np.stack([xp[k:k + t_out] for k in range(kw)], axis=2)


def _conv_tbc_fwd(x: np.ndarray, w: np.ndarray, b: np.ndarray, *, pad: int) -> np.ndarray:
    """A 1-d convolution over time of a (time, batch, channel) input, weight (kw, in, out)."""
    cols = _tbc_windows(x, pad, w.shape[0])
    out = np.einsum("tbkc,kco->tbo", cols, w, optimize=True) + b
    return np.ascontiguousarray(out, dtype=np.result_type(x, w))


def _conv_tbc_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("ConvTbcBackward0")
    x, w, pad = c.self, c.weight, c.attrs["pad"]
    kw = w.shape[0]
    gx = gw = gb = None
    if c.need(0):
        full = np.zeros((x.shape[0] + 2 * pad, *x.shape[1:]), np.float64)
        for k in range(kw):
            full[k:k + g.shape[0]] += np.einsum("tbo,co->tbc", g, w[k], optimize=True)
        if pad >= 0:
            gx = full[pad:pad + x.shape[0]].astype(x.dtype)
        else:
            gx = np.zeros(x.shape, x.dtype)
            gx[-pad:x.shape[0] + pad] = full
    if c.need(1):
        cols = _tbc_windows(x, pad, kw)
        gw = np.einsum("tbkc,tbo->kco", cols, g, optimize=True).astype(w.dtype)
    if c.need(2):
        gb = g.sum(axis=(0, 1)).astype(g.dtype)
    return gx, gw, gb


register(
    Op("conv_tbc", "ConvTbcBackward0", ("self", "weight", "bias"), _conv_tbc_fwd, _conv_tbc_bw,
       (Save("bias"), Save("self"), Save("weight")), ("pad",)),
    Op("native_dropout", "NativeDropoutBackward0", ("input",), _native_dropout_fwd,
       _native_dropout_bw, (Save("result1"),), ("p",), extras=("result1",)),
    Op("trilinear", "TrilinearBackward0", ("i1", "i2", "i3"), _trilinear_fwd, _trilinear_bw,
       (Save("i1", (1, 2)), Save("i2", (0, 2)), Save("i3", (0, 1))),
       ("expand1", "expand2", "expand3", "sumdim")),
    Op("pdist", "PdistBackward0", ("self",), _pdist_fwd, _pdist_bw,
       (Save("result"), Save("self")), ("p",)),
    # NB: native_channel_shuffle has no derivative in PyTorch: a NotImplemented node
    Op("native_channel_shuffle", "torch::autograd::NotImplemented", ("*tensors",),
       lambda x, groups: _shuffle(x, groups), _not_implemented("native_channel_shuffle")),
    Op("channel_shuffle", "ChannelShuffleBackward0", ("self",),
       lambda x, groups: _shuffle(x, groups),
       lambda c, g, D: (D.channel_shuffle(g, groups=c.shape(0)[1] // c.attrs["groups"]),),
       attr_names=("groups",)),
    Op("adaptive_max_pool3d", "AdaptiveMaxPool3DBackward0", ("self",), _adaptive_max3_fwd,
       _volume_bw, (Save("result1"), Save("self")), extras=("result1",)),
    Op("max_unpool3d", "MaxUnpool3DBackward0", ("self",), _max_unpool3_fwd, _max_unpool3_bw,
       (Save("indices"),)),
)
