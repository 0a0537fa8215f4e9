"""The recurrent layers over a ``PackedSequence``, as PyTorch's C++ runs them on CPU (its packed
layers): the input's product for all steps at once, then the cell step by step on a narrowing
batch, the states of finished sequences sliced off and concatenated back at the end. A
composite of PyTorch's nodes in PyTorch's order (no fused node: PyTorch uses none here)."""

from __future__ import annotations

from typing import Any

from ...engine import dtypes as _dt
from ...engine import functional as _F
from ...engine.factories import zeros
from ...engine.tensor import Tensor
from . import recurrent
from .utils_rnn import PackedSequence

__all__ = ["forward"]


def _slice(hidden: Any, start: int, end: int) -> Any:
    if isinstance(hidden, tuple):
        return _F.narrow(hidden[0], 0, start, end - start), \
            _F.narrow(hidden[1], 0, start, end - start)
    return _F.narrow(hidden, 0, start, end - start)


def _concat(hiddens: list[Any]) -> Any:
    if isinstance(hiddens[0], tuple):
        return _F.cat([h for h, _ in hiddens], 0), _F.cat([c for _, c in hiddens], 0)
    return _F.cat(hiddens, 0)


def _output(hidden: Any) -> Tensor:
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _layer(cell: recurrent.Cell, data: Tensor, sizes: list[int], hidden: Any,
           params: recurrent.Params) -> tuple[Tensor, Any]:
    pre = _F.linear(data, params[0], params[2])  # type: ignore[arg-type]
    outputs: list[Tensor] = []
    finished: list[Any] = []
    offset, last = 0, sizes[0]
    for n in sizes:
        step = _F.narrow(pre, 0, offset, n)
        offset += n
        if last > n:
            finished.append(_slice(hidden, n, last))
            hidden = _slice(hidden, 0, n)
        last = n
        hidden = cell(step, hidden, params)
        outputs.append(_output(hidden))
    finished.append(hidden)
    return _F.cat(outputs, 0), _concat(finished[::-1])


def _reversed_layer(cell: recurrent.Cell, data: Tensor, sizes: list[int], initial: Any,
                    params: recurrent.Params) -> tuple[Tensor, Any]:
    """From the last step back: the batch grows, each sequence joining with its initial
    state."""
    pre = _F.linear(data, params[0], params[2])  # type: ignore[arg-type]
    outputs: list[Tensor] = []
    offset, last = data.size(0), sizes[-1]
    hidden = _slice(initial, 0, sizes[-1])
    for n in sizes[::-1]:
        if n > last:
            hidden = _concat([hidden, _slice(initial, last, n)])
        step = _F.narrow(pre, 0, offset - n, n)
        offset -= n
        last = n
        hidden = cell(step, hidden, params)
        outputs.append(_output(hidden))
    return _F.cat(outputs[::-1], 0), hidden


def _stack(mode: str, data: Tensor, sizes: list[int], hiddens: list[Any],
           params: list[recurrent.Params], num_layers: int, dropout: float, train: bool,
           bidirectional: bool) -> tuple[Tensor, list[Any]]:
    from .functional import dropout as _dropout
    cell = recurrent._cells(mode)
    finals: list[Any] = []
    for layer in range(num_layers):
        if bidirectional:
            k = 2 * layer
            fw, fw_h = _layer(cell, data, sizes, hiddens[k], params[k])
            rv, rv_h = _reversed_layer(cell, data, sizes, hiddens[k + 1], params[k + 1])
            data = _F.cat([fw, rv], -1)
            finals += [fw_h, rv_h]
        else:
            data, final = _layer(cell, data, sizes, hiddens[layer], params[layer])
            finals.append(final)
        if dropout != 0 and train and layer < num_layers - 1:
            data = _dropout(data, dropout, True)
    return data, finals


def _permute(hx: Any, permutation: Tensor | None) -> Any:
    if permutation is None:
        return hx
    if isinstance(hx, tuple):
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)
    return hx.index_select(1, permutation)


def forward(m: Any, input: PackedSequence, hx: Any) -> tuple[PackedSequence, Any]:
    """``m(packed, hx)`` for an RNN, GRU or LSTM module ``m``: the packed output and the final
    states, each sequence's taken at its own last step, in the caller's batch order."""
    data, batch_sizes, sorted_indices, unsorted_indices = input
    sizes = [int(v) for v in batch_sizes._data]
    lstm = m.mode == "LSTM"
    layers = m.num_layers * (2 if m.bidirectional else 1)
    real_hidden = m.proj_size if m.proj_size > 0 else m.hidden_size
    if hx is None:
        h = zeros(layers, sizes[0], real_hidden, dtype=data.dtype)
        hx = (h, zeros(layers, sizes[0], m.hidden_size, dtype=data.dtype)) if lstm else h
    else:
        hx = _permute(hx, sorted_indices)
    if lstm:
        # NB: PyTorch's LSTM checks no packed argument before its C++ runs
        if data._dtype is _dt.float32 and m.proj_size == 0 and data.numel() \
                and all(n == sizes[0] for n in sizes):
            # NB: every sequence as long: PyTorch runs its fused (oneDNN) layers on the data
            # viewed as steps x batch
            steps = data.view(len(sizes), sizes[0], data.size(1))
            out, h, c = recurrent._fused_lstm(steps, hx, m._flat_weights, m.bias, m.num_layers,
                                              m.dropout, m.training, m.bidirectional, False)
            packed = PackedSequence(out.view(-1, out.size(2)), batch_sizes, sorted_indices,
                                    unsorted_indices)
            return packed, _permute((h, c), unsorted_indices)
        hiddens: list[Any] = list(zip(_F.unbind(hx[0], 0), _F.unbind(hx[1], 0), strict=True))
    else:
        m._check(data, [(hx, m.hidden_size, "Expected hidden size")], sizes[0])
        hiddens = list(_F.unbind(hx, 0))
    params = recurrent._gather(m._flat_weights, m.bias, lstm and m.proj_size > 0)
    out, finals = _stack(m.mode, data, sizes, hiddens, params, m.num_layers, m.dropout,
                         m.training, m.bidirectional)
    packed = PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
    if lstm:
        hidden: Any = (_F.stack([h for h, _ in finals], 0), _F.stack([c for _, c in finals], 0))
    else:
        hidden = _F.stack(finals, 0)
    return packed, _permute(hidden, unsorted_indices)
