"""In-place ops on an expanded tensor (elements sharing memory) as PyTorch: most refuse it, a
constant fill and ``threshold_`` write it, the indexed fills write it with a deprecation
warning, and a part that overlaps nowhere (an element of it) is writable; in-place dropout is
a ``mul_`` of its input (seed 41355 of the random programs)."""

from __future__ import annotations

import pytest

from ._support import Recorder, differential

EDITS = ["y.relu_()", "torch.nn.functional.threshold_(y, 0.0, 0.5)",
         "torch.nn.functional.threshold(y, 0.0, 0.5, inplace=True)", "y.fill_(1.5)",
         "y.zero_()", "y.masked_fill_(torch.tensor([True, False, True]), 0.0)",
         "y.masked_fill_(torch.tensor([False, True, True]), torch.tensor(2.0))",
         "y.index_fill_(0, torch.tensor([0]), 2.0)", "y.add_(1)", "y.mul_(y)",
         "y[0].add_(1)", "y.__setitem__(0, 1.0)", "y[1:2].mul_(3)",
         "torch.nn.functional.dropout(y, 0.5, True, True)", "y.clamp_(0, 1)",
         "y.__setitem__(torch.tensor([True, False, True]), 1.0)",
         "y.__setitem__(torch.tensor([True, False, True]), torch.tensor([1.0, 2.0]))",
         "y.__setitem__(torch.tensor([0]), torch.tensor(3.0))", "y.__setitem__([0, 1], 4.0)",
         "y.__setitem__(slice(1, None), 6.0)", "y.view(1, 3).expand(2, 3).tril_()",
         "y.view(1, 3).expand(2, 3).triu_(1)"]


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("edit", EDITS)
def test_an_edit_of_an_expanded_tensor_as_pytorch(edit: str, grad: bool) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(0)
        a = torch.tensor(0.7, requires_grad=grad)
        base = a.sort().values if grad else a * 1
        y = base.expand(3)
        rec.attempt("edit", lambda: eval(edit, {"torch": torch, "y": y}))
        rec.note("y", y)
        rec.note("base", base)
        if grad:
            rec.graph("after", base=base, y=y)
            rec.attempt("backward", lambda: y.sum().backward())
            rec.grad("a", a=a)
    differential(snippet)


@pytest.mark.parametrize("p", [0.0, 0.4, 1.0])
def test_in_place_dropout_multiplies_its_input_as_pytorch(p: float) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(3)
        w = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
        h = w * 2
        out = torch.nn.functional.dropout(h, p, True, True)
        rec.note("same tensor", out is h)
        rec.note("version", h._version)
        rec.graph("graph", out=out, h=h)
        drop = torch.nn.Dropout(p, inplace=True)
        g = w + 1
        rec.note("module", drop(g) is g)
        rec.attempt("leaf", lambda: torch.nn.functional.dropout(w, p, True, True))
        rec.attempt("backward", lambda: (out.sum() + g.sum()).backward())
        rec.grad("w", w=w)
    differential(snippet)
