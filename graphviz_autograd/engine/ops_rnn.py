"""Table entry: the fused LSTM layer PyTorch runs a float32 ``nn.LSTM`` through on CPU
(``mkldnn_rnn_layer``: one node per layer and direction, MkldnnRnnLayerBackward0)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .optable import Op, Save, no_double_backward, register


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _steps(n: int, reverse: bool) -> range:
    return range(n - 1, -1, -1) if reverse else range(n)


def _gates(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: np.ndarray,
           b_hh: np.ndarray, hx: np.ndarray, cx: np.ndarray, reverse: bool, has_biases: bool
           ) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """The layer run step by step: per step (i, f, g, o, c_prev, c, h_prev), and the last h, c."""
    hidden = w_hh.shape[1]
    xw = x @ w_ih.T
    if has_biases:
        xw += b_ih + b_hh
    h, c = hx, cx
    steps: list[Any] = [None] * x.shape[0]
    for t in _steps(x.shape[0], reverse):
        z = xw[t] + h @ w_hh.T
        i = _sigmoid(z[:, :hidden])
        f = _sigmoid(z[:, hidden:2 * hidden])
        g = np.tanh(z[:, 2 * hidden:3 * hidden])
        o = _sigmoid(z[:, 3 * hidden:])
        c_new = f * c + i * g
        h_new = o * np.tanh(c_new)
        steps[t] = (i, f, g, o, c, c_new, h)
        h, c = h_new, c_new
    return steps, h, c


def _good_ld(dim: int) -> int:
    """oneDNN's padded row length (floats): a whole cache line, and one more where the row
    would be a multiple of 256 (rows that far apart alias in the cache)."""
    ld = -(-dim // 16) * 16
    return ld + 16 if ld % 256 == 0 else ld


def workspace_bytes(seq_len: int, batch: int, input_size: int, hidden: int) -> int:
    """The scratch memory PyTorch's fused layer keeps for its backward (its ``_saved_result3``,
    bytes): oneDNN's workspace for one layer and direction, its regions each starting on a
    4096-byte page (matched to PyTorch 2.13 on 1,564 layers of random shapes)."""
    page = 4096
    steps, states = seq_len * batch, 2 * (seq_len + 1) * batch
    wide = _good_ld(max(input_size, hidden))
    regions = (steps * _good_ld(4 * hidden),        # the gates
               steps * _good_ld(hidden),            # the outputs
               states * wide,                       # the states (layer and iteration)
               states * hidden,                     # the cell states
               states * wide, states * wide,        # their gradients
               states * hidden)
    end = 0
    for floats in regions:
        end = -(-end // page) * page + floats * 4
    return -(-end // page) * page


def _layer_fwd(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: np.ndarray,
               b_hh: np.ndarray, hx: np.ndarray, cx: np.ndarray, *, reverse: bool,
               has_biases: bool, **_: Any) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
    steps, hy, cy = _gates(x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse, has_biases)
    out = np.stack([s[3] * np.tanh(s[5]) for s in steps]).astype(x.dtype, copy=False)
    seq_len, batch, size = x.shape
    space = np.zeros(workspace_bytes(seq_len, batch, size, w_hh.shape[1]), np.uint8)
    return [out, hy.astype(x.dtype, copy=False), cy.astype(x.dtype, copy=False)], \
        {"result3": space}


def _layer_bw(c: Any, grads: list[Any], D: Any) -> tuple[Any, ...]:
    if D.tensor_mode:
        raise no_double_backward("MkldnnRnnLayerBackward0", ": use a float64 LSTM, whose "
                                 "graph is made of plain ops")
    x, w_ih, w_hh = c.input, c.weight0, c.weight1
    hx, cx = c.hx_, c.cx_
    reverse, has_biases = c.attrs["reverse"], c.attrs["has_biases"]
    steps, _, _ = _gates(x, w_ih, w_hh, c.weight2, c.weight3, hx, cx, reverse, has_biases)
    out_g, h_g, c_g = (g if g is not None else np.zeros(shape, x.dtype)
                       for g, shape in zip(grads, (c.node._meta[k][0] for k in range(3)),
                                           strict=True))
    dh, dc = h_g, c_g
    dz = np.empty((*x.shape[:2], w_hh.shape[0]), x.dtype)
    hidden = w_hh.shape[1]
    for t in reversed(_steps(x.shape[0], reverse)):
        i, f, g, o, c_prev, c_now, _ = steps[t]
        dh = dh + out_g[t]
        tc = np.tanh(c_now)
        dc = dc + dh * o * (1 - tc * tc)
        z = dz[t]
        z[:, :hidden] = dc * g * i * (1 - i)
        z[:, hidden:2 * hidden] = dc * c_prev * f * (1 - f)
        z[:, 2 * hidden:3 * hidden] = dc * i * (1 - g * g)
        z[:, 3 * hidden:] = dh * tc * o * (1 - o)
        dh = z @ w_hh
        dc = dc * f
    flat = dz.reshape(-1, dz.shape[-1])
    h_prev = np.stack([s[6] for s in steps]).reshape(-1, hidden)
    db = flat.sum(0)
    return (dz @ w_ih if c.need(0) else None,
            flat.T @ x.reshape(-1, x.shape[-1]) if c.need(1) else None,
            flat.T @ h_prev if c.need(2) else None,
            db if c.need(3) else None, db.copy() if c.need(4) else None,
            dh if c.need(5) else None, dc if c.need(6) else None)


register(
    Op("mkldnn_rnn_layer", "MkldnnRnnLayerBackward0",
       ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"), _layer_fwd,
       _layer_bw,
       # NB: in the order PyTorch lists them (by name)
       tuple(Save(name) for name in ("cx_", "hx_", "input", "result0", "result1", "result2",
                                     "result3", "weight0", "weight1", "weight2", "weight3")),
       ("batch_first", "batch_sizes", "bidirectional", "has_biases", "hidden_size", "mode",
        "num_layers", "reverse", "train"),
       extras=("result3",), n_outputs=3),
)
