"""``torch.nn``'s recurrent modules: the sequence layers RNN, LSTM and GRU (their arguments
checked as PyTorch checks them; the work in ``recurrent``) and the single-step cells."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from ...engine.factories import zeros
from ...engine.tensor import Tensor
from . import init, recurrent, recurrent_packed, utils_rnn
from .modules import Module
from .parameter import Parameter

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _uniform_by_hidden(m: Any) -> None:
    """PyTorch's initialisation of recurrent layers and cells: every parameter uniform in
    +-1/sqrt(hidden_size), in registration order."""
    stdv = 1.0 / math.sqrt(m.hidden_size) if m.hidden_size > 0 else 0
    for weight in m.parameters():
        init.uniform_(weight, -stdv, stdv)


class RNNBase(Module):
    """The parameters of a stack of recurrent layers, named and ordered as PyTorch's
    (``weight_ih_l0``, ``weight_hh_l0``, ``bias_ih_l0``, ``bias_hh_l0``, then ``_reverse``)."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 \
                or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        for arg, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                 ("input_size", input_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{arg} should be of type {kind.__name__}, got: "
                                f"{type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                shapes: list[tuple[str, tuple[int, ...]]] = [
                    ("weight_ih", (gate_size, layer_input)),
                          ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for stem, shape in shapes:
                    name = f"{stem}_l{layer}{suffix}"
                    setattr(self, name, Parameter(zeros(*shape, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list[Parameter | None]:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op, as in PyTorch off the GPU."""

    def reset_parameters(self) -> None:
        _uniform_by_hidden(self)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- PyTorch's checks of the forward's arguments ----------------------------------------------
    def _batched(self, name: str, input: Tensor, hx: Any, pair: bool = False
                 ) -> tuple[Tensor, Any, bool]:
        """The input as 3-D (an unbatched 2-D input gets its batch dim), and the states."""
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                             + ("tensor instead" if name == "RNN" else "instead"))
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        if hx is None or pair:
            return input, hx, batched
        want = 3 if batched else 2
        if hx.dim() != want:
            raise RuntimeError(f"For {'batched 3' if batched else 'unbatched 2'}-D input, hx "
                               f"should also be {want}-D but got {hx.dim()}-D tensor")
        return input, hx if batched else hx.unsqueeze(1), batched

    def _zeros(self, input: Tensor, size: int) -> Tensor:
        batch = input.size(0) if self.batch_first else input.size(1)
        layers = self.num_layers * (2 if self.bidirectional else 1)
        return zeros(layers, batch, size, dtype=input.dtype)

    def _check(self, input: Tensor, states: list[tuple[Tensor, int, str]],
               batch: int | None = None) -> None:
        """PyTorch's checks of the input and states (``batch``: a packed input's largest batch;
        its data is 2-D)."""
        weight = self._flat_weights[0]
        assert weight is not None
        if input.dtype is not weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight.dtype}). Convert input: input.to({weight.dtype}), or "
                             f"convert model: model.to({input.dtype})")
        if batch is not None and input.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {input.dim()}")
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")
        if batch is None:
            batch = input.size(0) if self.batch_first else input.size(1)
        layers = self.num_layers * (2 if self.bidirectional else 1)
        for state, size, text in states:
            expected = (layers, batch, size)
            if tuple(state.shape) != expected:
                raise RuntimeError(f"{text} {expected}, got {list(state.shape)}")

    def _args(self) -> tuple[Any, ...]:
        return (self._flat_weights, self.bias, self.num_layers, self.dropout, self.training,
                self.bidirectional, self.batch_first)


class RNN(RNNBase):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args,
                         **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:
        if isinstance(input, utils_rnn.PackedSequence):
            return recurrent_packed.forward(self, input, hx)
        return _one_hidden(self, "RNN", input, hx)


class GRU(RNNBase):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:
        if isinstance(input, utils_rnn.PackedSequence):
            return recurrent_packed.forward(self, input, hx)
        return _one_hidden(self, "GRU", input, hx)


def _one_hidden(m: RNNBase, name: str, input: Tensor, hx: Tensor | None
                ) -> tuple[Tensor, Tensor]:
    input, hx, batched = m._batched(name, input, hx)
    if hx is None:
        hx = m._zeros(input, m.hidden_size)
    m._check(input, [(hx, m.hidden_size, "Expected hidden size")])
    run = {"RNN_TANH": recurrent.rnn_tanh, "RNN_RELU": recurrent.rnn_relu,
           "GRU": recurrent.gru}[m.mode]
    output, hidden = run(input, hx, *m._args())
    if not batched:
        return output.squeeze(0 if m.batch_first else 1), hidden.squeeze(1)
    return output, hidden


class LSTM(RNNBase):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input: Any, hx: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Any, tuple[Tensor, Tensor]]:
        if isinstance(input, utils_rnn.PackedSequence):
            return recurrent_packed.forward(self, input, hx)
        input, _, batched = self._batched("LSTM", input, hx, pair=True)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            hx = (self._zeros(input, real_hidden), self._zeros(input, self.hidden_size))
        else:
            want = 3 if batched else 2
            if hx[0].dim() != want or hx[1].dim() != want:
                raise RuntimeError(f"For {'batched 3' if batched else 'unbatched 2'}-D input, "
                                   f"hx and cx should also be {want}-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self._check(input, [(hx[0], real_hidden, "Expected hidden[0] size"),
                            (hx[1], self.hidden_size, "Expected hidden[1] size")])
        output, h, c = recurrent.lstm(input, hx, *self._args())
        if not batched:
            return output.squeeze(0 if self.batch_first else 1), (h.squeeze(1), c.squeeze(1))
        return output, (h, c)


class RNNCellBase(Module):
    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(zeros(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(zeros(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(zeros(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(zeros(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _uniform_by_hidden(self)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    def _batched(self, input: Tensor, hx: Any) -> tuple[Tensor, Any, bool]:
        """The input and state as 2-D (an unbatched 1-D input gets a batch dim of 1)."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             f"instead")
        states = tuple(hx) if isinstance(hx, (tuple, list)) else (hx,)
        for h in states:
            if h is not None and h.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {h.dim()}D "
                                 f"instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zero = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (zero, zero) if isinstance(self, LSTMCell) else zero
        elif not batched:
            # NB: PyTorch's LSTMCell takes the first two states of an unbatched input's
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if isinstance(self, LSTMCell) \
                else hx.unsqueeze(0)
        return input, hx, batched


class RNNCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, batched = self._batched(input, hx)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        out = recurrent.rnn_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                                 self.bias_hh, self.nonlinearity)
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Tensor, Tensor]:
        input, hx, batched = self._batched(input, hx)
        if len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        h, c = recurrent.lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                           self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, batched = self._batched(input, hx)
        out = recurrent.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                                 self.bias_hh)
        return out if batched else out.squeeze(0)


