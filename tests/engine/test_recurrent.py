"""``nn.Embedding`` and the recurrent cells (``RNNCell``, ``LSTMCell``, ``GRUCell``), checked
against real PyTorch 2.13: their graphs node for node (PyTorch's cells are C++ op sequences with
in-place edits of their gates), the saved buffers before and after a backward, the gradients,
and the classic failure of a hidden state carried across steps without ``detach()``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ._support import Recorder, differential, fixed_parameters

pytestmark = pytest.mark.torch

CELLS = ["RNNCell(3, 2)", "RNNCell(3, 2, nonlinearity='relu')", "RNNCell(3, 2, bias=False)",
         "LSTMCell(3, 2)", "LSTMCell(3, 2, bias=False)", "GRUCell(3, 2)",
         "GRUCell(3, 2, bias=False)"]


def _cell_snippet(spec: str, detach: bool, batched: bool = True) -> Any:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        cell = eval(f"torch.nn.{spec}", {"torch": torch})
        fixed_parameters(torch, cell)
        rec.note("repr", repr(cell))
        rec.note("parameters", [(name, list(p.shape)) for name, p in cell.named_parameters()])
        lstm = "LSTM" in spec
        xs = [torch.tensor(np.sin(np.arange(12) * (k + 1)).reshape(4, 3).tolist())
              for k in range(3)]
        if not batched:
            xs = [x[0] for x in xs]
        state: Any = None
        for step, x in enumerate(xs):
            state = cell(x, state)
            h = state[0] if lstm else state
            rec.graph(f"step {step}", h=h, **({"c": state[1]} if lstm else {}))
            loss = (h * h).sum()
            rec.attempt(f"backward {step}", lambda loss=loss: loss.backward())
            rec.graph(f"after backward {step}", h=h)
            rec.grad(f"grads {step}", **dict(cell.named_parameters()))
            if detach:
                state = (state[0].detach(), state[1].detach()) if lstm else state.detach()
    return snippet


@pytest.mark.parametrize("spec", CELLS)
@pytest.mark.parametrize("detach", [False, True])
def test_a_cell_loop_as_pytorch(spec: str, detach: bool) -> None:
    """Without ``detach()`` the second backward reaches the first step's freed buffers."""
    record = differential(_cell_snippet(spec, detach))
    failed = [label for label, value in record if label.startswith("backward")
              and "error_type" in value["outcome"]]
    assert bool(failed) is not detach


@pytest.mark.parametrize("spec", ["RNNCell(3, 2)", "LSTMCell(3, 2)", "GRUCell(3, 2)"])
def test_an_unbatched_cell_as_pytorch(spec: str) -> None:
    differential(_cell_snippet(spec, detach=True, batched=False))


@pytest.mark.parametrize("call", [
    "torch.nn.RNNCell(3, 2)(torch.ones(2, 2, 3))",
    "torch.nn.GRUCell(3, 2)(torch.ones(3), torch.ones(1, 1, 2))",
    "torch.nn.RNNCell(3, 2, nonlinearity='sigmoid')(torch.ones(1, 3))",
    "repr(torch.nn.RNNCell(3, 2, nonlinearity='relu', bias=False))",
    "torch.nn.LSTMCell(3, 2)(torch.ones(3))[1].shape"])
def test_a_cell_refuses_bad_input_as_pytorch(call: str) -> None:
    def snippet(rec: Recorder) -> None:
        rec.attempt("call", lambda: eval(call, {"torch": rec.torch}) and None)
    differential(snippet)


def _embedding_snippet(kwargs: str) -> Any:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        emb = eval(f"torch.nn.Embedding(5, 3{kwargs})", {"torch": torch})
        rec.note("repr", repr(emb))
        rec.note("padding_idx", emb.padding_idx)
        fixed_parameters(torch, emb)
        idx = torch.tensor([[0, 2, 4], [2, 1, 2]])
        out = emb(idx)
        rec.graph("forward", out=out)
        loss = (out * out).sum()
        rec.attempt("backward", lambda: loss.backward())
        rec.graph("after backward", out=out)
        rec.grad("grad", weight=emb.weight)
        rec.note("version", emb.weight._version)
    return snippet


@pytest.mark.parametrize("kwargs", ["", ", padding_idx=1", ", padding_idx=-1",
                                    ", scale_grad_by_freq=True", ", max_norm=0.5",
                                    ", padding_idx=2, scale_grad_by_freq=True"])
def test_an_embedding_as_pytorch(kwargs: str) -> None:
    differential(_embedding_snippet(kwargs))


@pytest.mark.parametrize("call", ["F.embedding(torch.tensor([5]), w)",
                                  "F.embedding(torch.tensor([-1]), w)",
                                  "F.embedding(torch.tensor([0.5]), w)",
                                  "F.embedding(torch.tensor(1), w)",
                                  "torch.nn.Embedding(5, 3, padding_idx=7)",
                                  "torch.nn.Embedding.from_pretrained(w).weight.requires_grad",
                                  "torch.nn.Embedding.from_pretrained(w, freeze=False, "
                                  "padding_idx=0).weight.requires_grad",
                                  "repr(torch.nn.Embedding(4, 2, max_norm=1.0, norm_type=1.0))"])
def test_embedding_arguments_as_pytorch(call: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        w = torch.tensor(np.arange(15.0).reshape(5, 3).tolist(), requires_grad=True)
        scope = {"torch": torch, "F": torch.nn.functional, "w": w}
        rec.attempt("call", lambda: eval(call, scope))
    differential(snippet)


# -- the sequence layers: nn.RNN, nn.GRU, nn.LSTM ---------------------------------------------
LAYERS = ["RNN(3, 2)", "RNN(3, 2, nonlinearity='relu', bias=False)", "GRU(3, 2)",
          "RNN(3, 2, num_layers=2)", "GRU(3, 2, bidirectional=True)",
          "GRU(3, 2, batch_first=True, num_layers=2, bidirectional=True)",
          "LSTM(3, 2)", "LSTM(3, 2, num_layers=2)", "LSTM(3, 2, bidirectional=True)",
          "LSTM(3, 2, batch_first=True, bias=False)", "LSTM(3, 3, proj_size=2)",
          "LSTM(3, 2, batch_first=True, num_layers=2, bidirectional=True)"]


def _layer_snippet(spec: str, dtype: str, detach: bool, batched: bool = True,
                   given_state: bool = False) -> Any:
    """Three chunks of a sequence through one layer, its state carried from chunk to chunk."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        layer = eval(f"torch.nn.{spec}", {"torch": torch}).to(getattr(torch, dtype))
        fixed_parameters(torch, layer)
        rec.note("repr", repr(layer))
        rec.note("parameters", [(name, list(p.shape)) for name, p in layer.named_parameters()])
        lstm = "LSTM" in spec
        state: Any = None
        if given_state:
            layers = layer.num_layers * (2 if layer.bidirectional else 1)
            batch = 4 if layer.batch_first else 2
            h0 = torch.full((layers, batch, layer.proj_size or layer.hidden_size), 0.25,
                            dtype=getattr(torch, dtype), requires_grad=True)
            state = (h0, torch.full((layers, batch, layer.hidden_size), -0.5,
                                    dtype=getattr(torch, dtype))) if lstm else h0
            if not batched:
                state = tuple(s[:, 0] for s in state) if lstm else state[:, 0]
        for step in range(3):
            x = torch.tensor(np.sin(np.arange(24) * (step + 1)).reshape(4, 2, 3).tolist(),
                             dtype=getattr(torch, dtype))
            if not batched:
                x = x[:, 0]
            out, state = layer(x, state)
            rec.graph(f"step {step}", out=out, **({"h": state[0], "c": state[1]} if lstm
                                                  else {"h": state}))
            loss = (out * out).sum() + (state[0] if lstm else state).sum()
            rec.attempt(f"backward {step}", lambda loss=loss: loss.backward())
            rec.graph(f"after backward {step}", out=out)
            rec.grad(f"grads {step}", **dict(layer.named_parameters()))
            if detach:
                state = tuple(s.detach() for s in state) if lstm else state.detach()
    return snippet


@pytest.mark.parametrize("spec", LAYERS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_sequence_layer_loop_as_pytorch(spec: str, dtype: str) -> None:
    """Graphs node for node (a float32 LSTM is one fused MkldnnRnnLayerBackward0 node a layer
    and direction, as on PyTorch's CPU build; a float64 one is made of plain ops), saved
    buffers, gradients; the state carried without ``detach()`` fails the second backward."""
    record = differential(_layer_snippet(spec, dtype, detach=False))
    failed = [label for label, value in record if label.startswith("backward")
              and "error_type" in value["outcome"]]
    assert failed == ["backward 1", "backward 2"]


@pytest.mark.parametrize("spec", ["RNN(3, 2, batch_first=True)", "GRU(3, 2)",
                                  "LSTM(3, 2, batch_first=True)", "LSTM(3, 3, proj_size=1)"])
@pytest.mark.parametrize("batched", [True, False])
def test_a_detached_layer_loop_with_a_given_state_as_pytorch(spec: str, batched: bool) -> None:
    record = differential(_layer_snippet(spec, "float32", detach=True, batched=batched,
                                         given_state=True))
    assert not any("error_type" in value["outcome"] for label, value in record
                   if label.startswith("backward"))


@pytest.mark.parametrize("call", [
    "torch.nn.RNN(3, 2)(torch.ones(2, 3, 3, 1))",
    "torch.nn.GRU(3, 2)(torch.ones(2, 3, 4))",
    "torch.nn.LSTM(3, 2)(torch.ones(2, 3, 3, dtype=torch.float64))",
    "torch.nn.RNN(3, 2)(torch.ones(2, 1, 3), torch.ones(1, 2, 2))",
    "torch.nn.RNN(3, 2)(torch.ones(2, 3), torch.ones(1, 1, 2))",
    "torch.nn.LSTM(3, 2)(torch.ones(2, 1, 3), (torch.ones(1, 1, 2), torch.ones(1, 2)))",
    "torch.nn.LSTM(3, 2)(torch.ones(2, 1, 3), (torch.ones(1, 1, 2), torch.ones(1, 1, 3)))",
    "torch.nn.RNN(3, 2)(torch.ones(0, 1, 3))",
    "torch.nn.RNN(3, 2, nonlinearity='gelu')",
    "torch.nn.GRU(3, 2, proj_size=1)",
    "torch.nn.LSTM(3, 2, proj_size=2)",
    "torch.nn.LSTM(3, 0)",
    "torch.nn.LSTM(3, 2, dropout=1.5)",
    "torch.nn.LSTM(3, 2, dropout=0.5)",
    "repr(torch.nn.LSTM(3, 4, 2, batch_first=True, dropout=0.25, bidirectional=True))",
    "[list(w.shape) for ws in torch.nn.GRU(3, 2, 2, bidirectional=True).all_weights "
    "for w in ws]",
    "torch.nn.LSTM(3, 2, 2, dropout=1.0)(torch.ones(2, 1, 3))[0].grad_fn.next_functions",
    "torch.nn.GRU(3, 2, 2, dropout=1.0)(torch.ones(2, 1, 3))[0].grad_fn.next_functions",
    "torch.nn.LSTM(3, 2, 2, dropout=1.0).eval()(torch.ones(2, 1, 3))[0].grad_fn.name()",
    "torch.nn.RNN(3, 2, batch_first=True)(torch.ones(2, 4, 3))[0]._version"])
def test_a_sequence_layer_checks_its_arguments_as_pytorch(call: str) -> None:
    def snippet(rec: Recorder) -> None:
        rec.attempt("call", lambda: eval(call, {"torch": rec.torch}))
    differential(snippet)


def test_create_graph_through_a_fused_lstm_layer_says_it_is_not_supported() -> None:
    import graphviz_autograd.torch as torch
    lstm = torch.nn.LSTM(3, 2)
    out, _ = lstm(torch.ones(2, 1, 3, requires_grad=True))
    assert out.grad_fn.name() == "MkldnnRnnLayerBackward0"
    with pytest.raises(NotImplementedError, match="float64 LSTM"):
        torch.autograd.grad(out.sum(), lstm.weight_ih_l0, create_graph=True)
    double = torch.nn.LSTM(3, 2).double()
    out, _ = double(torch.ones(2, 1, 3, dtype=torch.float64, requires_grad=True))
    grad, = torch.autograd.grad(out.sum(), double.weight_ih_l0, create_graph=True)
    assert grad.grad_fn is not None


@pytest.mark.parametrize("shape", [(2, 1, 3, 2), (40, 3, 5, 7), (3, 2, 3, 64), (17, 33, 256, 64),
                                   (5, 4, 300, 255), (1, 128, 1, 1)])
def test_a_fused_lstm_layer_saves_pytorchs_workspace(shape: tuple[int, int, int, int]) -> None:
    """Its ``_saved_result3``: oneDNN's workspace, as many bytes as PyTorch's (what a snapshot
    counts as the layer's memory)."""
    import torch

    import graphviz_autograd.torch as ours
    seq, batch, size, hidden = shape
    sizes = []
    for module in (torch, ours):
        out, _ = module.nn.LSTM(size, hidden, bidirectional=True)(module.ones(seq, batch, size))
        layer = out.grad_fn.next_functions[0][0]
        sizes.append((layer.name(), tuple(layer._saved_result3.shape),
                      str(layer._saved_result3.dtype)))
    assert sizes[0] == sizes[1]
