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

register(
    Op("convolution_backward", "ConvolutionBackwardBackward0",
       ("grad_output", "input", "weight"), _conv_backward_fwd, _conv_backward_bw,
       (Save("grad_output"), Save("input"), Save("weight")),
       ("dilation", "groups", "output_padding", "padding", "stride", "transposed"),
       n_outputs=3),
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
