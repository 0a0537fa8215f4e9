"""``detach_()`` of a saved tensor, as PyTorch: a node that saved it as an input refuses it
when it runs (its history is gone); one that saved it as its output does not; reading
``_saved_<name>`` is not refused (recfuzz's known difference, now closed)."""

from __future__ import annotations

import pytest

from ._support import Recorder, differential

CASES = {
    # an input of a product, detached after: the product's node refuses it
    "input": "b = a * 2\nc = b * b\nb.detach_()\nout = c",
    # the output of exp, saved by its own node, detached after: no refusal
    "output": "b = a.exp()\nout = b.sum()\nb.detach_()",
    # an input of a sum of products, one detached before the backward of another graph
    "two graphs": "b = a * 3\nc = b.sin()\nd = (b * a).sum()\nb.detach_()\nout = c.sum() + d",
    # a leaf's input is no history lost: nothing to refuse
    "leaf": "b = a.detach()\nb.requires_grad_()\nc = b * a\nout = c",
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_saved_tensor_detached_in_place_as_pytorch(case: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        scope = {"torch": torch, "a": a}
        exec(CASES[case], scope)
        rec.note("b requires grad", scope["b"].requires_grad)
        rec.attempt("backward", lambda: scope["out"].sum().backward())
        rec.grad("a", a=a)
    differential(snippet)


def test_reading_a_detached_saved_input_through_its_node_is_not_refused() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        b = a * 2
        c = b * b
        b.detach_()
        rec.attempt("read", lambda: c.grad_fn._saved_self)
    differential(snippet)
