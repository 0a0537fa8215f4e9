"""Table entries: the double-backward nodes of the layer ops, the nodes a layer's backward makes
under ``create_graph=True`` (``ConvolutionBackwardBackward0``, ...), as PyTorch's.

Their own backwards (a third derivative) run on arrays only: PyTorch builds a graph of many
nodes there (per-group convolutions, slices, transposes and a concatenation), which they do not
copy; ``create_graph`` through them raises ``no_double_backward``."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import ops_conv as cv
from .ops_conv import ArrayCtx, conv_fwd, conv_grads
from .ops_norm import batch_norm_grads, layer_norm_grads
from .optable import NP, Op, Save, no_double_backward, register


# -- convolution ----------------------------------------------------------------------------------
def _conv_backward_fwd(g: np.ndarray, x: np.ndarray, w: np.ndarray, *,
                       output_mask: tuple[bool, ...] = (True, True, True), **a: Any
                       ) -> list[np.ndarray]:
    """The convolution's three gradients (input, weight, bias); zeros where not asked for."""
    gx, gw, gb = conv_grads(g, x, w, a, output_mask)
    return [np.zeros_like(x) if gx is None else gx, np.zeros_like(w) if gw is None else gw,
            np.zeros(g.shape[1], g.dtype) if gb is None else gb]


def _conv_backward_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    """The gradients are bilinear: (grad_output, weight) -> input's, (grad_output, input) ->
    weight's, so each factor's gradient is the other map applied to the incoming gradients."""
    if D.tensor_mode:
        raise no_double_backward("ConvolutionBackwardBackward0")
    ggx, ggw, ggb = grads
    g, x, w, a = c.grad_output, c.input, c.weight, c.attrs
    go = gi = gw = None
    if c.need(0):
        parts = []
        if ggx is not None:
            parts.append(conv_fwd(ggx, w, None, **a))
        if ggw is not None:
            parts.append(conv_fwd(x, ggw, None, **a))
        if ggb is not None:
            parts.append(np.broadcast_to(ggb.reshape(-1, *(1,) * (g.ndim - 2)), g.shape))
        go = np.zeros_like(g) if not parts else sum(parts[1:], parts[0])
        go = np.ascontiguousarray(go, dtype=g.dtype)
    if c.need(1) and ggw is not None:
        gi = conv_grads(g, x, ggw, a, (True, False, False))[0]
    if c.need(2) and ggx is not None:
        gw = conv_grads(g, ggx, w, a, (False, True, False))[1]
    return go, gi, gw


# -- padding and pools ---------------------------------------------------------------------------
# Each first-order backward is linear in the gradient: its double-backward node's gradient by
# grad_output is the layer's forward on the incoming gradient; by self zeros, as PyTorch's.
def _pad_backward(key: str, name: str) -> Op:
    mode = cv.reflect if key.startswith("reflection") else cv.replicate

    def fwd(g: np.ndarray, x: np.ndarray, *, padding: tuple[int, ...]) -> np.ndarray:
        return mode[1](ArrayCtx(x.shape, {"padding": padding}), g, NP)[0]

    def bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
        return (getattr(D, key)(gg, padding=c.attrs["padding"]) if c.need(0) else None,
                D.zeros(c.shape(1), gg) if c.need(1) else None)
    return Op(f"{key}_backward", name, ("grad_output", "self"), fwd, bw, (), ("padding",))


_AVG = ("ceil_mode", "count_include_pad", "divisor_override", "kernel_size", "padding", "stride")


def _avg_backward_fwd(g: np.ndarray, x: np.ndarray, **a: Any) -> np.ndarray:
    return cv.avg_pool_bw(ArrayCtx(x.shape, a), g, NP)[0]


def _avg_backward_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    return (D.avg_pool2d(gg, **{k: c.attrs[k] for k in _AVG}) if c.need(0) else None,
            D.zeros(c.shape(1), gg) if c.need(1) else None)


def _adaptive_backward_fwd(g: np.ndarray, x: np.ndarray, **_: Any) -> np.ndarray:
    return cv.adaptive_avg_bw(ArrayCtx(x.shape, {}), g, NP)[0]


def _adaptive_backward_bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
    size = (c.attrs["grad_output_sym_argsize_minus_2"], c.attrs["grad_output_sym_argsize_minus_1"])
    return (D.adaptive_avg_pool2d(gg, output_size=size) if c.need(0) else None,
            D.zeros(c.shape(1), gg) if c.need(1) else None)


def _max_backward(name: str) -> tuple[Any, Any]:
    def fwd(g: np.ndarray, x: np.ndarray, *, indices: np.ndarray) -> np.ndarray:
        return cv.max_indices_bw("")(ArrayCtx(x.shape, {}, result1=indices), g, NP)[0]

    def bw(c: Any, gg: Any, D: Any) -> tuple[Any, ...]:
        if D.tensor_mode:
            raise no_double_backward(name)
        idx = c.indices
        lead = idx.shape[:-2]
        go = np.take_along_axis(gg.reshape(*lead, -1), idx.reshape(*lead, -1), -1)
        return (go.reshape(idx.shape) if c.need(0) else None,
                np.zeros(c.shape(1), gg.dtype) if c.need(1) else None)
    return fwd, bw


_max2d = _max_backward("MaxPool2DWithIndicesBackwardBackward0")
_max_adaptive = _max_backward("AdaptiveMaxPool2DBackwardBackward0")

# -- layer and batch norm ------------------------------------------------------------------------
def _normalized_double(g: Any, x_hat: Any, r: Any, w: Any, gg_x: Any, gg_w: Any,
                       axes: tuple[int, ...], count: int) -> tuple[Any, Any, Any]:
    """The second derivatives of ``gx = r (g_hat - m(g_hat) - x_hat m(g_hat x_hat))`` (``m`` the
    mean over ``axes``, ``g_hat = g w``, the statistics taken from ``x``), weighted by the
    incoming ``gg_x`` (of gx) and ``gg_w`` (of the weight's gradient, broadcast): by g, by x and
    the per-element factor whose sum over the batch is the weight's."""
    def s(v: Any) -> Any:
        return v.sum(axis=axes, keepdims=True)
    c = x_hat / r                                   # x - mean
    g_hat = g * w
    go = gg_w * x_hat
    gx = gg_w * g * r
    gx = gx - s(gx) / count
    wf = 0
    if gg_x is not None:
        proj = gg_x - s(gg_x) / count - x_hat * s(gg_x * x_hat) / count
        go = go + w * r * proj
        wf = r * proj * g
        k1 = s(gg_x * g_hat) - s(gg_x) * s(g_hat) / count
        alpha, beta = s(gg_x * c), s(g_hat * c) / count
        explicit = -r ** 3 * (beta * gg_x + alpha * g_hat / count)
        gx = gx + explicit - s(explicit) / count - r ** 3 / count * c * (k1 - 3 * r ** 2 * alpha
                                                                         * beta)
    gamma = s(gg_w * g * c)
    gx = gx - r ** 3 / count * c * gamma
    return go, gx, wf


def _ln_backward_fwd(g: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray,
                     weight: Any, bias: Any, *, normalized_shape: tuple[int, ...],
                     output_mask: tuple[bool, ...] = (True, True, True)) -> list[np.ndarray]:
    gx, gw, gb = layer_norm_grads(g, x, mean, rstd, weight, normalized_shape, output_mask)
    wshape = normalized_shape
    return [np.zeros_like(x) if gx is None else gx,
            np.zeros(wshape, x.dtype) if gw is None else gw,
            np.zeros(wshape, x.dtype) if gb is None else gb]


def _ln_backward_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("NativeLayerNormBackwardBackward0")
    ggx, ggw, ggb = grads
    g, x, mean, rstd = c.grad_out, c.input, c.mean, c.rstd
    weight = c.weight if c.node._in_meta[4] is not None else None
    n_norm = len(c.attrs["normalized_shape"])
    axes = tuple(range(x.ndim - n_norm, x.ndim))
    count = max(int(np.prod(x.shape[x.ndim - n_norm:])), 1)
    w = 1.0 if weight is None else weight
    go, gx, wf = _normalized_double(g, (x - mean) * rstd, rstd, w, ggx,
                                    0.0 if ggw is None else ggw, axes, count)
    if ggb is not None:
        go = go + ggb
    batch = tuple(range(x.ndim - n_norm))
    gw = np.sum(wf, axis=batch) if ggx is not None and weight is not None else None
    return (np.broadcast_to(go, g.shape).astype(g.dtype) if c.need(0) else None,
            gx.astype(x.dtype) if c.need(1) else None, None, None,
            gw if c.need(4) else None, None)


def _bn_backward_fwd(g: np.ndarray, x: np.ndarray, weight: Any, save_mean: np.ndarray,
                     save_invstd: np.ndarray, *, running_mean: Any, running_var: Any,
                     train: bool, eps: float, output_mask: tuple[bool, ...] = (True, True, True)
                     ) -> list[np.ndarray]:
    mean, invstd = (save_mean, save_invstd) if train else (running_mean, running_var)
    gx, gw, gb = batch_norm_grads(g, x, weight, mean, invstd, train, eps, output_mask)
    ch = (x.shape[1],)
    return [np.zeros_like(x) if gx is None else gx,
            np.zeros(ch, x.dtype) if gw is None else gw,
            np.zeros(ch, x.dtype) if gb is None else gb]


def _bn_backward_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("NativeBatchNormBackwardBackward0")
    ggx, ggw, ggb = grads
    g, x, train, eps = c.grad_out, c.input, c.attrs["train"], c.attrs["eps"]
    weight = c.weight if c.node._in_meta[2] is not None else None
    shape = (1, -1) + (1,) * (x.ndim - 2)
    axes = (0, *range(2, x.ndim))
    if train:
        mean, r = c.save_mean.reshape(shape), c.save_invstd.reshape(shape)
    else:
        mean = c.running_mean.reshape(shape)  # NB: saved in evaluation
        r = (1 / np.sqrt(c.running_var.astype(np.float64) + eps)).astype(x.dtype).reshape(shape)
    w = 1.0 if weight is None else weight.reshape(shape)
    gw_b = 0.0 if ggw is None else ggw.reshape(shape)
    x_hat = (x - mean) * r
    if train:
        count = max(x.size // max(x.shape[1], 1), 1)
        go, gx, wf = _normalized_double(g, x_hat, r, w, ggx, gw_b, axes, count)
    else:
        go, gx = gw_b * x_hat, gw_b * g * r
        wf = 0 if ggx is None else r * ggx * g
        if ggx is not None:
            go = go + w * r * ggx
    if ggb is not None:
        go = go + ggb.reshape(shape)
    gw = np.sum(wf, axis=axes) if ggx is not None and weight is not None else None
    return (np.broadcast_to(go, g.shape).astype(g.dtype) if c.need(0) else None,
            np.broadcast_to(gx, x.shape).astype(x.dtype) if c.need(1) else None,
            gw if c.need(2) else None, None, None)


register(
    Op("convolution_backward", "ConvolutionBackwardBackward0",
       ("grad_output", "input", "weight"), _conv_backward_fwd, _conv_backward_bw,
       (Save("grad_output"), Save("input"), Save("weight")),
       ("dilation", "groups", "output_padding", "padding", "stride", "transposed"),
       n_outputs=3),
    Op("native_layer_norm_backward", "NativeLayerNormBackwardBackward0",
       ("grad_out", "input", "mean", "rstd", "weight", "bias"), _ln_backward_fwd,
       _ln_backward_bw, (Save("grad_out"), Save("input"), Save("mean"), Save("rstd"),
                         Save("weight")), ("normalized_shape",), n_outputs=3),
    Op("native_batch_norm_backward", "NativeBatchNormBackwardBackward0",
       ("grad_out", "input", "weight", "save_mean", "save_invstd"), _bn_backward_fwd,
       _bn_backward_bw, (Save("grad_out"), Save("input"), Save("running_mean"),
                         Save("running_var"), Save("save_invstd"), Save("save_mean"),
                         Save("weight")), ("eps", "train"), n_outputs=3),
    _pad_backward("reflection_pad1d", "ReflectionPad1DBackwardBackward0"),
    _pad_backward("reflection_pad2d", "ReflectionPad2DBackwardBackward0"),
    _pad_backward("reflection_pad3d", "ReflectionPad3DBackwardBackward0"),
    _pad_backward("replication_pad1d", "ReplicationPad1DBackwardBackward0"),
    _pad_backward("replication_pad2d", "ReplicationPad2DBackwardBackward0"),
    _pad_backward("replication_pad3d", "ReplicationPad3DBackwardBackward0"),
    Op("avg_pool2d_backward", "AvgPool2DBackwardBackward0", ("grad_output", "self"),
       _avg_backward_fwd, _avg_backward_bw, (), _AVG),
    Op("adaptive_avg_pool2d_backward", "AdaptiveAvgPool2DBackwardBackward0",
       ("grad_output", "self"), _adaptive_backward_fwd, _adaptive_backward_bw, (),
       ("grad_output_sym_argsize_minus_1", "grad_output_sym_argsize_minus_2")),
    Op("max_pool2d_with_indices_backward", "MaxPool2DWithIndicesBackwardBackward0",
       ("grad_output", "self"), _max2d[0], _max2d[1], (Save("indices"),)),
    Op("adaptive_max_pool2d_backward", "AdaptiveMaxPool2DBackwardBackward0",
       ("grad_output", "self"), _max_adaptive[0], _max_adaptive[1], (Save("indices"),)),
)
