"""PyTorch's recurrent layers as its C++ runs them on CPU (``RNN.cpp``), op by op, so each makes
PyTorch's nodes in PyTorch's order: the cells, and the layer stacks behind ``torch.rnn_tanh``,
``torch.rnn_relu``, ``torch.gru`` and ``torch.lstm`` (a float32 LSTM runs as one fused node a
layer and direction, as PyTorch's oneDNN path does)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ...engine import dtypes as _dt
from ...engine import functional as _F
from ...engine.autograd import apply as _apply
from ...engine.factories import zeros_like
from ...engine.optable import TABLE as _T
from ...engine.tensor import Tensor

__all__ = ["rnn_cell", "lstm_cell", "gru_cell", "rnn_tanh", "rnn_relu", "gru", "lstm"]

Params = Sequence[Tensor | None]        # w_ih, w_hh, b_ih, b_hh, w_hr (None: absent)


# -- the cells: ``pre`` is the input's product, when the layer made it for every step at once --
def rnn_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None,
             b_hh: Tensor | None, nonlinearity: str = "tanh", pre: Tensor | None = None
             ) -> Tensor:
    """``nonlinearity(linear(hx, w_hh, b_hh).add_(linear(input, w_ih, b_ih)))``: the hidden
    product first (C++ evaluates the object of ``.add_`` before its argument)."""
    gates = _F.linear(hx, w_hh, b_hh)
    gates.add_(pre if pre is not None else _F.linear(input, w_ih, b_ih))
    return gates.tanh() if nonlinearity == "tanh" else gates.relu()


def lstm_cell(input: Tensor, hx: tuple[Tensor, Tensor], w_ih: Tensor, w_hh: Tensor,
              b_ih: Tensor | None, b_hh: Tensor | None, pre: Tensor | None = None,
              w_hr: Tensor | None = None) -> tuple[Tensor, Tensor]:
    h, c = hx
    gates = _F.linear(h, w_hh, b_hh)
    gates.add_(pre if pre is not None else _F.linear(input, w_ih, b_ih))
    i, f, g, o = _F.unsafe_chunk(gates, 4, 1)
    i, f, g, o = i.sigmoid_(), f.sigmoid_(), g.tanh_(), o.sigmoid_()
    cy = f * c
    cy.add_(i * g)
    t = cy.tanh()                     # NB: outgate * cy.tanh(): the right operand first
    hy = o * t
    return (_F.matmul(hy, w_hr.t()) if w_hr is not None else hy), cy


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None,
             b_hh: Tensor | None, pre: Tensor | None = None) -> Tensor:
    ig = _F.unsafe_chunk(pre if pre is not None else _F.linear(input, w_ih, b_ih), 3, 1)
    hg = _F.unsafe_chunk(_F.linear(hx, w_hh, b_hh), 3, 1)
    reset = hg[0].add_(ig[0]).sigmoid_()
    update = hg[1].add_(ig[1]).sigmoid_()
    new = ig[2].add(hg[2].mul_(reset)).tanh_()
    return (hx - new).mul_(update).add_(new)


Cell = Callable[[Tensor, Any, Params], Any]     # (the step's input product, hidden, params)


def _cells(mode: str) -> Cell:
    if mode == "LSTM":
        return lambda x, h, p: lstm_cell(x, h, p[0], p[1], p[2], p[3], pre=x,  # type: ignore
                                         w_hr=p[4])
    if mode == "GRU":
        return lambda x, h, p: gru_cell(x, h, p[0], p[1], p[2], p[3], pre=x)  # type: ignore
    nonlinearity = "tanh" if mode == "RNN_TANH" else "relu"
    return lambda x, h, p: rnn_cell(x, h, p[0], p[1], p[2], p[3],  # type: ignore[arg-type]
                                    nonlinearity, pre=x)


# -- the layers ------------------------------------------------------------------------------------
def _run(cell: Cell, steps: Sequence[Tensor], hidden: Any, params: Params
         ) -> tuple[list[Tensor], Any]:
    outputs = []
    for x in steps:
        hidden = cell(x, hidden, params)
        outputs.append(hidden[0] if isinstance(hidden, tuple) else hidden)
    if not outputs:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    return outputs, hidden


def _layer(cell: Cell, input: Tensor, hidden: Any, params: Params) -> tuple[Tensor, Any]:
    """One direction over the whole sequence: the input's product for every step at once
    (PyTorch's CPU path), then the cell step by step, the outputs stacked."""
    steps = _F.unbind(_F.linear(input, params[0], params[2]), 0)  # type: ignore[arg-type]
    outputs, hidden = _run(cell, steps, hidden, params)
    return _F.stack(outputs, 0), hidden


def _bidirectional(cell: Cell, input: Tensor, hidden: tuple[Any, Any],
                   params: tuple[Params, Params]) -> tuple[Tensor, tuple[Any, Any]]:
    fw_out, fw_hidden = _layer(cell, input, hidden[0], params[0])
    steps = _F.unbind(_F.linear(input, params[1][0], params[1][2]), 0)  # type: ignore[arg-type]
    outputs, rev_hidden = _run(cell, steps[::-1], hidden[1], params[1])
    rev_out = _F.stack(outputs[::-1], 0)
    return _F.cat([fw_out, rev_out], fw_out.dim() - 1), (fw_hidden, rev_hidden)


def _stack_layers(mode: str, input: Tensor, hiddens: list[Any], params: list[Params],
                  num_layers: int, dropout: float, train: bool, bidirectional: bool
                  ) -> tuple[Tensor, list[Any]]:
    from .functional import dropout as _dropout
    cell = _cells(mode)
    finals: list[Any] = []
    for layer in range(num_layers):
        if bidirectional:
            k = 2 * layer
            input, pair = _bidirectional(cell, input, (hiddens[k], hiddens[k + 1]),
                                         (params[k], params[k + 1]))
            finals += pair
        else:
            input, final = _layer(cell, input, hiddens[layer], params[layer])
            finals.append(final)
        if dropout != 0 and train and layer < num_layers - 1:
            input = _dropout(input, dropout, True)
    return input, finals


def _gather(flat: Sequence[Tensor], has_biases: bool, has_projections: bool = False
            ) -> list[Params]:
    stride = (4 if has_biases else 2) + (1 if has_projections else 0)
    out: list[Params] = []
    for k in range(0, len(flat), stride):
        w = list(flat[k:k + stride])
        biases = w[2:4] if has_biases else [None, None]
        out.append([w[0], w[1], *biases, w[-1] if has_projections else None])
    return out


def _one_hidden(mode: str) -> Callable[..., tuple[Tensor, Tensor]]:
    def run(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool,
            num_layers: int, dropout: float, train: bool, bidirectional: bool,
            batch_first: bool) -> tuple[Tensor, Tensor]:
        x = input.transpose(0, 1) if batch_first else input
        out, finals = _stack_layers(mode, x, list(_F.unbind(hx, 0)), _gather(params, has_biases),
                                    num_layers, dropout, train, bidirectional)
        hy = _F.stack(finals, 0)
        if batch_first:
            out = _F.transpose_inplace(out, 0, 1)
        return out, hy
    run.__name__ = mode.lower()
    return run


rnn_tanh = _one_hidden("RNN_TANH")
rnn_relu = _one_hidden("RNN_RELU")
gru = _one_hidden("GRU")


_warned: list[bool] = []        # NB: PyTorch warns once a process


def lstm(input: Tensor, hx: Sequence[Tensor], params: Sequence[Tensor], has_biases: bool,
         num_layers: int, dropout: float, train: bool, bidirectional: bool, batch_first: bool
         ) -> tuple[Tensor, Tensor, Tensor]:
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    projections = hx[0].shape[2] != hx[1].shape[2]
    if input._dtype is _dt.float32 and input.numel() and projections and not _warned:
        _warned.append(True)
        warnings.warn("LSTM with projections is not supported with oneDNN. Using default "
                      "implementation.", stacklevel=4)
    if input._dtype is _dt.float32 and input.numel() and not projections:
        return _fused_lstm(input, hx, params, has_biases, num_layers, dropout, train,
                           bidirectional, batch_first)
    x = input.transpose(0, 1) if batch_first else input
    hiddens = list(zip(_F.unbind(hx[0], 0), _F.unbind(hx[1], 0), strict=True))
    out, finals = _stack_layers("LSTM", x, hiddens, _gather(params, has_biases, projections),
                                num_layers, dropout, train, bidirectional)
    hy = _F.stack([h for h, _ in finals], 0)
    cy = _F.stack([c for _, c in finals], 0)
    return (out.transpose(0, 1) if batch_first else out), hy, cy


def _fused_lstm(input: Tensor, hx: Sequence[Tensor], params: Sequence[Tensor], has_biases: bool,
                num_layers: int, dropout: float, train: bool, bidirectional: bool,
                batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:
    """PyTorch's oneDNN path (float32): one MkldnnRnnLayerBackward0 node a layer and direction,
    which saves its input, weights, states, outputs and a workspace."""
    from .functional import dropout as _dropout
    x = _F.contiguous(input.transpose(0, 1) if batch_first else input)
    h, c = _F.contiguous(hx[0]), _F.contiguous(hx[1])
    directions = 2 if bidirectional else 1
    stride = 4 if has_biases else 2
    hidden_size = h.shape[2]
    hy: list[Tensor] = []
    cy: list[Tensor] = []
    attrs = {"batch_sizes": (), "mode": 2, "hidden_size": hidden_size, "num_layers": num_layers,
             "has_biases": has_biases, "bidirectional": bidirectional,
             "batch_first": batch_first, "train": train}
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            k = layer * directions + direction
            w = params[k * stride:(k + 1) * stride]
            # NB: without biases PyTorch passes zeros of the weights' shapes in their place
            b_ih, b_hh = (w[2], w[3]) if has_biases else (zeros_like(w[0]), zeros_like(w[1]))
            layer_h, layer_c = h[k], c[k]
            out, h_k, c_k = _apply(_T["mkldnn_rnn_layer"],
                                   (x, w[0], w[1], b_ih, b_hh, layer_h, layer_c),
                                   {"reverse": direction > 0, **attrs})
            outputs.append(out)
            hy.append(h_k)
            cy.append(c_k)
        x = outputs[0] if directions == 1 else _F.cat(outputs, -1)
        if dropout != 0 and train and layer < num_layers - 1:
            x = _dropout(x, dropout, True)
    return (x.transpose(0, 1) if batch_first else x), _F.stack(hy, 0), _F.stack(cy, 0)
