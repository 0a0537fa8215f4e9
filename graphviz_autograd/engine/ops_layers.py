"""Table entries: the adaptive max pool, max unpooling, upsampling (nearest, nearest-exact,
linear, bilinear), pixel shuffles and im2col / col2im, each one node as PyTorch makes it.

Upsampling is linear along each spatial dim: a matrix (output length x input length) per dim
holds each output position's weights, so the forward and the backward are one product each.
The pixel shuffles and im2col / col2im are each other's adjoints: their backward formulas call
each other and so build a graph under ``create_graph``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .ops_conv import _bins, _pad_zeros, _scatter, _windows, max_indices_bw
from .optable import Op, Save, keep_given, register


# -- adaptive max pool ----------------------------------------------------------------------------
def _adaptive_max_fwd(x: np.ndarray, *, output_size: tuple[int, int]
                      ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    h, w = x.shape[-2:]
    rows, cols = _bins(h, output_size[0]), _bins(w, output_size[1])
    y = np.empty((*x.shape[:-2], *output_size), x.dtype)
    idx = np.empty((*x.shape[:-2], *output_size), np.int64)
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            win = x[..., r0:r1, c0:c1].reshape(*x.shape[:-2], -1)
            # NB: the first maximum wins, a NaN counts as one (PyTorch's loop)
            arg = np.where(np.isnan(win).any(-1), np.isnan(win).argmax(-1), win.argmax(-1)) \
                if x.dtype.kind == "f" else win.argmax(-1)
            y[..., i, j] = np.take_along_axis(win, arg[..., None], -1)[..., 0]
            wi, wj = np.divmod(arg, c1 - c0)
            idx[..., i, j] = (r0 + wi) * w + c0 + wj
    return y, {"result1": idx}



# -- max unpool -----------------------------------------------------------------------------------
def _max_unpool_fwd(x: np.ndarray, *, indices: np.ndarray, output_size: tuple[int, int]
                    ) -> np.ndarray:
    plane = output_size[0] * output_size[1]
    rows = x.reshape(-1, x.shape[-1] * x.shape[-2])
    out = np.zeros((rows.shape[0], plane), x.dtype)
    np.put_along_axis(out, indices.reshape(rows.shape), rows, axis=1)
    return out.reshape(*x.shape[:-2], *output_size)


def _max_unpool_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        # NB: PyTorch's formula: the gradient's planes flattened, gathered at the indices
        idx = c.indices
        shape = tuple(g.shape)
        flat = D.view(g, shape=(*shape[:-2], shape[-2] * shape[-1]))
        picked = D.gather(flat, dim=len(shape) - 2, index=idx.reshape(*idx.shape[:-2], -1))
        keep_given(picked, {"@dim": -1}, D)
        return (D.view(picked, shape=tuple(idx.shape)),)
    idx = c.indices
    planes = g.reshape(-1, g.shape[-1] * g.shape[-2])
    picked = np.take_along_axis(planes, idx.reshape(planes.shape[0], -1), axis=1)
    return (picked.reshape(idx.shape).astype(g.dtype, copy=False),)


# -- upsampling -----------------------------------------------------------------------------------
def _scale(n_in: int, n_out: int, scale: float | None, align_corners: bool = False,
           ft: Any = np.float32) -> float:
    """PyTorch's area_pixel_compute_scale, in float32 as its CPU kernels take it (the linear
    and cubic kernels of a float64 input: in float64, ``ft``)."""
    if align_corners:
        return float(ft((n_in - 1) / (n_out - 1))) if n_out > 1 else 0.0
    return float(ft(1.0 / scale)) if scale is not None and scale > 0 \
        else float(ft(n_in) / ft(n_out))


def _nearest_matrix(n_in: int, n_out: int, scale: float | None, exact: bool = False
                    ) -> np.ndarray:
    """Each output position copies one input position: ``floor(dst * scale)`` (PyTorch's
    legacy ``nearest``) or ``floor((dst + 0.5) * scale)`` (``nearest-exact``)."""
    dst = np.arange(n_out)
    if n_out == n_in:
        src = dst
    elif n_out == 2 * n_in and not exact:
        src = dst >> 1
    else:
        s = np.float32(_scale(n_in, n_out, scale))
        at = dst.astype(np.float32) + np.float32(0.5 if exact else 0.0)
        src = np.minimum(np.floor(at * s).astype(np.int64), n_in - 1)
    m = np.zeros((n_out, n_in))
    m[dst, src] = 1.0
    return m


def _linear_matrix(n_in: int, n_out: int, scale: float | None, align_corners: bool,
                   ft: Any = np.float32) -> np.ndarray:
    s = ft(_scale(n_in, n_out, scale, align_corners, ft))
    dst = np.arange(n_out, dtype=ft)
    src = s * dst if align_corners else np.maximum(s * (dst + ft(0.5)) - ft(0.5), ft(0))
    i0 = np.floor(src).astype(np.int64)
    i0 = np.minimum(i0, n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    lam1 = (src - i0).astype(ft)
    m = np.zeros((n_out, n_in))
    np.add.at(m, (np.arange(n_out), i0), (ft(1) - lam1).astype(np.float64))
    np.add.at(m, (np.arange(n_out), i1), lam1.astype(np.float64))
    return m


def _cubic_matrix(n_in: int, n_out: int, scale: float | None, align_corners: bool,
                  ft: Any = np.float32) -> np.ndarray:
    """PyTorch's bicubic weights along one dim (A = -0.75): four taps around the source
    position (not clamped below 0), their indices clamped into the input."""
    s = ft(_scale(n_in, n_out, scale, align_corners, ft))
    dst = np.arange(n_out, dtype=ft)
    src = s * dst if align_corners else s * (dst + ft(0.5)) - ft(0.5)
    i0 = np.floor(src).astype(np.int64)
    t = (src - np.floor(src)).astype(ft)
    a = ft(-0.75)

    def near(x: np.ndarray) -> np.ndarray:
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: np.ndarray) -> np.ndarray:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    weights = (far(t + 1), near(t), near(1 - t), far(2 - t))
    m = np.zeros((n_out, n_in))
    for k, w in enumerate(weights):
        np.add.at(m, (np.arange(n_out), np.clip(i0 - 1 + k, 0, n_in - 1)), w.astype(np.float64))
    return m


def _matrices(shape: tuple[int, ...], a: dict[str, Any], kind: str, dtype: Any
              ) -> list[np.ndarray]:
    out = a["output_size"]
    nd = len(out)
    scales = (a["scales"],) if nd == 1 else (a["scales_h"], a["scales_w"]) if nd == 2 \
        else (a["scales_d"], a["scales_h"], a["scales_w"])
    ins = shape[-nd:]
    ft = np.float64 if dtype == np.float64 else np.float32
    if kind == "cubic":
        return [_cubic_matrix(i, o, s, a["align_corners"], ft)
                for i, o, s in zip(ins, out, scales, strict=True)]
    if kind == "linear":
        return [_linear_matrix(i, o, s, a["align_corners"], ft)
                for i, o, s in zip(ins, out, scales, strict=True)]
    return [_nearest_matrix(i, o, s, kind == "exact")
            for i, o, s in zip(ins, out, scales, strict=True)]


def _apply_matrices(x: np.ndarray, mats: list[np.ndarray], transpose: bool) -> np.ndarray:
    out = x.astype(np.float64)
    for k, m in enumerate(mats):
        axis = x.ndim - len(mats) + k
        out = np.moveaxis(np.tensordot(m.T if transpose else m, out, axes=([1], [axis])), 0,
                          axis)
    return np.ascontiguousarray(out.astype(x.dtype))


def _upsample(key: str, kind: str) -> tuple[Any, Any]:
    def fwd(x: np.ndarray, **a: Any) -> np.ndarray:
        return _apply_matrices(x, _matrices(x.shape, a, kind, x.dtype), False)

    def bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
        if D.tensor_mode:
            # NB: under create_graph, PyTorch's ``*_backward`` node (its input size unsaved)
            a = {k: v for k, v in c.attrs.items() if k != "self_sym_sizes"}
            return (getattr(D, key + "_backward")(g, input_size=tuple(c.shape(0)), **a),)
        return (_apply_matrices(g, _matrices(c.shape(0), c.attrs, kind, g.dtype), True),)
    return fwd, bw


def _upsample_backward(key: str, kind: str) -> tuple[Any, Any]:
    """The gradient of an upsample (its transposed interpolation) and its derivative, the
    upsample of the incoming gradient."""
    def fwd(g: np.ndarray, *, input_size: tuple[int, ...], **a: Any) -> np.ndarray:
        return _apply_matrices(g, _matrices(input_size, a, kind, g.dtype), True)

    def bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
        a = {k: v for k, v in c.attrs.items() if k != "input_size"}
        return (getattr(D, key)(gg, self_sym_sizes=c.attrs["input_size"], **a),)
    return fwd, bw


# -- pixel shuffles -------------------------------------------------------------------------------
def _shuffle(x: np.ndarray, r: int) -> np.ndarray:
    *lead, ch, h, w = x.shape
    c = ch // (r * r)
    y = x.reshape(*lead, c, r, r, h, w)
    n = len(lead)
    y = y.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return np.ascontiguousarray(y.reshape(*lead, c, h * r, w * r))


def _unshuffle(x: np.ndarray, r: int) -> np.ndarray:
    *lead, c, hr, wr = x.shape
    h, w = hr // r, wr // r
    y = x.reshape(*lead, c, h, r, w, r)
    n = len(lead)
    y = y.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return np.ascontiguousarray(y.reshape(*lead, c * r * r, h, w))


# -- im2col / col2im ------------------------------------------------------------------------------
def _unfold_out(size: tuple[int, ...], kernel: tuple[int, ...], dilation: tuple[int, ...],
                padding: tuple[int, ...], stride: tuple[int, ...]) -> tuple[int, ...]:
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, d, p, s in zip(size, kernel, dilation, padding, stride, strict=True))


def _im2col(x: np.ndarray, *, kernel_size: tuple[int, ...], dilation: tuple[int, ...],
            padding: tuple[int, ...], stride: tuple[int, ...], **_: Any) -> np.ndarray:
    out = _unfold_out(x.shape[-2:], kernel_size, dilation, padding, stride)
    win = _windows(_pad_zeros(x, padding, padding), kernel_size, stride, dilation, out)
    lead = x.shape[:-3]
    n = len(lead)
    # (..., C, oh, ow, kh, kw) -> (..., C, kh, kw, oh, ow)
    win = win.transpose(*range(n), n, n + 3, n + 4, n + 1, n + 2)
    return np.ascontiguousarray(win.reshape(*lead, x.shape[-3] * math.prod(kernel_size),
                                            math.prod(out)))


def _col2im(cols: np.ndarray, *, output_size: tuple[int, ...], kernel_size: tuple[int, ...],
            dilation: tuple[int, ...], padding: tuple[int, ...], stride: tuple[int, ...]
            ) -> np.ndarray:
    out = _unfold_out(output_size, kernel_size, dilation, padding, stride)
    lead = cols.shape[:-2]
    n = len(lead)
    c = cols.shape[-2] // math.prod(kernel_size)
    blocks = cols.reshape(*lead, c, *kernel_size, *out)
    blocks = blocks.transpose(*range(n), n, n + 3, n + 4, n + 1, n + 2)
    padded = tuple(s + 2 * p for s, p in zip(output_size, padding, strict=True))
    full = _scatter(blocks, (*lead, c, *padded), stride, dilation)
    inner = tuple(slice(p, p + s) for p, s in zip(padding, output_size, strict=True))
    return np.ascontiguousarray(full[(..., *inner)])  # type: ignore[arg-type]


def _im2col_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    a = c.attrs
    size = (a["self_sym_argsize_minus_2"], a["self_sym_argsize_minus_1"])
    return (D.col2im(g, output_size=size, kernel_size=a["kernel_size"],
                     dilation=a["dilation"], padding=a["padding"], stride=a["stride"]),)


def _col2im_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    a = c.attrs
    shape = g.shape
    return (D.im2col(g, kernel_size=a["kernel_size"], dilation=a["dilation"],
                     padding=a["padding"], stride=a["stride"],
                     self_sym_argsize_minus_1=shape[-1], self_sym_argsize_minus_2=shape[-2]),)


_UPSAMPLES = (
    # (key, node, kind, the attributes besides output_size and self_sym_sizes)
    ("upsample_nearest1d", "UpsampleNearest1DBackward0", "nearest", ("scales",)),
    ("upsample_nearest2d", "UpsampleNearest2DBackward0", "nearest", ("scales_h", "scales_w")),
    ("upsample_nearest_exact1d", "UpsampleNearestExact1DBackward0", "exact", ("scales",)),
    ("upsample_nearest_exact2d", "UpsampleNearestExact2DBackward0", "exact",
     ("scales_h", "scales_w")),
    ("upsample_linear1d", "UpsampleLinear1DBackward0", "linear", ("align_corners", "scales")),
    ("upsample_bilinear2d", "UpsampleBilinear2DBackward0", "linear",
     ("align_corners", "scales_h", "scales_w")),
    ("upsample_bicubic2d", "UpsampleBicubic2DBackward0", "cubic",
     ("align_corners", "scales_h", "scales_w")),
    ("upsample_nearest3d", "UpsampleNearest3DBackward0", "nearest",
     ("scales_d", "scales_h", "scales_w")),
    ("upsample_nearest_exact3d", "UpsampleNearestExact3DBackward0", "exact",
     ("scales_d", "scales_h", "scales_w")),
    ("upsample_trilinear3d", "UpsampleTrilinear3DBackward0", "linear",
     ("align_corners", "scales_d", "scales_h", "scales_w")),
)

register(
    Op("adaptive_max_pool2d", "AdaptiveMaxPool2DBackward0", ("self",), _adaptive_max_fwd,
       max_indices_bw("adaptive_max_pool2d_backward"), (Save("result1"), Save("self")),
       extras=("result1",)),
    Op("max_unpool2d", "MaxUnpool2DBackward0", ("self",), _max_unpool_fwd, _max_unpool_bw,
       (Save("indices"),)),
    *(Op(key, name, ("self",), *_upsample(key, kind),
         attr_names=tuple(sorted((*attrs, "output_size", "self_sym_sizes"))))
      for key, name, kind, attrs in _UPSAMPLES),
    *(Op(key + "_backward", name.replace("Backward0", "BackwardBackward0"), ("grad_output",),
         *_upsample_backward(key, kind), attr_names=tuple(sorted((*attrs, "output_size"))))
      for key, name, kind, attrs in _UPSAMPLES),
    Op("pixel_shuffle", "PixelShuffleBackward0", ("self",),
       lambda x, upscale_factor: _shuffle(x, upscale_factor),
       lambda c, g, D: (D.pixel_unshuffle(g, downscale_factor=c.attrs["upscale_factor"]),),
       attr_names=("upscale_factor",)),
    Op("pixel_unshuffle", "PixelUnshuffleBackward0", ("self",),
       lambda x, downscale_factor: _unshuffle(x, downscale_factor),
       lambda c, g, D: (D.pixel_shuffle(g, upscale_factor=c.attrs["downscale_factor"]),),
       attr_names=("downscale_factor",)),
    Op("im2col", "Im2ColBackward0", ("self",), _im2col, _im2col_bw,
       attr_names=("dilation", "kernel_size", "padding", "self_sym_argsize_minus_1",
                   "self_sym_argsize_minus_2", "stride")),
    Op("col2im", "Col2ImBackward0", ("self",), _col2im, _col2im_bw,
       attr_names=("dilation", "kernel_size", "padding", "stride")),
)
