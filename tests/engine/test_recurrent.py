"""``nn.Embedding`` and the recurrent cells (``RNNCell``, ``LSTMCell``, ``GRUCell``), checked
against real PyTorch 2.13: their graphs node for node (PyTorch's cells are C++ op sequences with
in-place edits of their gates), the saved buffers before and after a backward, the gradients,
and the classic failure of a hidden state carried across steps without ``detach()``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ._support import Recorder, differential

pytestmark = pytest.mark.torch

CELLS = ["RNNCell(3, 2)", "RNNCell(3, 2, nonlinearity='relu')", "RNNCell(3, 2, bias=False)",
         "LSTMCell(3, 2)", "LSTMCell(3, 2, bias=False)", "GRUCell(3, 2)",
         "GRUCell(3, 2, bias=False)"]


def _fixed(torch: Any, module: Any) -> None:
    """The same parameters on both engines (their random numbers differ)."""
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            n = int(np.prod(p.shape))
            values = np.cos(np.arange(n) * 0.7 + i).reshape(tuple(p.shape)) * 0.5
            p.copy_(torch.tensor(values.tolist(), dtype=p.dtype))


def _cell_snippet(spec: str, detach: bool, batched: bool = True) -> Any:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        cell = eval(f"torch.nn.{spec}", {"torch": torch})
        _fixed(torch, cell)
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
        _fixed(torch, emb)
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
