"""When a node runs, PyTorch unpacks every value it saved, before its formula and in the order
of its generated code (saved inputs by name, then saved outputs by name): a freed or modified
value raises even where the formula does not read it, and the first one in that order is the one
the error names. Also: the views ``unbind``/``split`` return, once their base changed in place,
and ``create_graph`` graphs that reach the forward graph through a formula's ``self``. Each
snippet is checked against real PyTorch 2.13."""

from __future__ import annotations

from typing import Any

import pytest

from ._support import Recorder, differential, outcome

pytestmark = pytest.mark.torch


def test_a_modified_value_the_formula_does_not_read_still_raises() -> None:
    """``gather``'s formula reads only the index and the input's shape; its saved ``self``,
    modified in place, still fails the backward (it used to run, with a stale graph)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([0.3, -0.76, 1.55], requires_grad=True)
        h = a * 3
        out = h.gather(0, torch.tensor([0, 0])).sum()
        rec.attempt("edit", lambda: h.sigmoid_())
        rec.attempt("backward", lambda: out.backward())
        rec.graph("after", out=out, a=a)
        rec.grad("after", a=a)

    record = differential(snippet)
    assert "modified by an inplace operation" in outcome(record, "backward")["outcome"]["message"]


@pytest.mark.parametrize("case", ["maximum", "logsumexp", "mul"])
def test_the_first_value_unpacked_is_the_one_the_error_names(case: str) -> None:
    """Two saved values modified: PyTorch names ``other`` before ``self`` (inputs by name), and
    an input before ``result``."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([[1.2, 0.6], [-0.5, 0.3]], requires_grad=True)
        h = a + 1
        if case == "maximum":
            out = torch.maximum(h, h.t()).sum()
            rec.attempt("edit", lambda: h.relu_())
        elif case == "logsumexp":
            r = h.logsumexp(0)
            out = r.sum()
            rec.attempt("edit result", lambda: r.neg_())
            rec.attempt("edit self", lambda: h.mul_(2))
        else:
            b = a * 2
            out = (h * b).sum()
            rec.attempt("edit self", lambda: h.mul_(2))
            rec.attempt("edit other", lambda: b.mul_(2))
        rec.attempt("backward", lambda: out.backward())

    differential(snippet)


@pytest.mark.parametrize("make", ["x.unbind(0)[1]", "x.split(1)[0]", "x.chunk(3)[2]",
                                  "x.split([1, 2])[1]", "x.split(2)[1].expand(2, 1)",
                                  "x.unbind(0)[0].unsqueeze(0).t()"])
def test_a_multi_output_view_whose_base_changed_raises_on_use(make: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        view = eval(make, {"x": x})
        with torch.no_grad():
            x.add_(1)
        rec.attempt("grad_fn", lambda: view.grad_fn)
        rec.attempt("use", lambda: (view * 2).sum().backward())
        plain = torch.tensor([1.0, 2.0, 3.0])
        other = eval(make, {"x": plain})
        plain.add_(1)
        rec.attempt("without grad", lambda: other.grad_fn)
        y = torch.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1
        rec.attempt("edit the view itself", lambda: eval(make, {"x": y}).add_(1))

    differential(snippet)


@pytest.mark.parametrize("act", ["F.leaky_relu(h, 0.2)", "F.hardtanh(h)", "F.elu(h)",
                                 "F.softplus(h)", "F.gelu(h)", "h.relu()"])
def test_a_gradient_penalty_frees_the_forward_graph_as_pytorch(act: str) -> None:
    """The gradient penalty pattern (``create_graph=True``, then a backward of the gradient's
    norm): PyTorch's double-backward nodes take the activation's input, so the penalty's
    backward reaches and frees the forward graph; a later backward of the loss then fails."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        w = torch.tensor([[0.5, -1.0], [1.5, 0.25]], requires_grad=True)
        x = torch.tensor([[0.3, -0.7], [1.1, 0.2]], requires_grad=True)
        h = x @ w
        loss = eval(act, {"F": F, "h": h}).sum()
        g, = torch.autograd.grad(loss, [x], create_graph=True)
        rec.note("gradient requires grad", g.requires_grad)
        rec.attempt("penalty backward", lambda: ((g.norm() - 1) ** 2).backward())
        rec.graph("after penalty", loss=loss, w=w, x=x)
        rec.grad("after penalty", w=w, x=x)
        rec.attempt("loss backward", lambda: loss.backward())

    differential(snippet)


@pytest.mark.parametrize("expr", ["x.amax()", "x.amax(-1)", "x.amax((0, 1))", "x.amax(0)",
                                  "x.logsumexp(1)", "x.norm(p=float('inf'))",
                                  "F.mse_loss(x, x)", "x[:, [0, 0]].flatten()"])
def test_empty_and_indexed_inputs_as_pytorch(expr: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.ones(2, 0, requires_grad=True) if "[:" not in expr else \
            torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        box: list[Any] = []
        if rec.attempt("value", lambda: box.append(eval(expr, {"x": x, "F": torch.nn.functional}))
                       or box[-1]):
            rec.graph("graph", out=box[0], x=x)

    differential(snippet)


@pytest.mark.parametrize("op", ["exp_", "sigmoid_", "relu_"])
@pytest.mark.parametrize("held", [True, False])
def test_the_output_of_an_in_place_op_on_a_view_names_its_producer_as_pytorch(
        op: str, held: bool) -> None:
    """The saved output of an in-place op on a view: PyTorch's error names the view's grad_fn of
    that moment (``AsStrided``) while something holds it (a graph built on ``v`` before the base
    changed), else the op that saved it."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = a * 1
        v = b[0]
        getattr(v, op)()
        if held:
            out = (v * 2).sum()
            rec.attempt("edit the base", lambda: b.mul_(2))
        else:
            rec.attempt("edit the base", lambda: b.mul_(2))
            out = (v * 2).sum()        # NB: v's grad_fn of the edit's moment is gone
        rec.attempt("backward", lambda: out.backward())

    differential(snippet)


@pytest.mark.parametrize("op", ["zero_()", "fill_(2.0)", "fill_(torch.tensor(3.0))", "add_(1)",
                                "normal_()"])
@pytest.mark.parametrize("grad", [True, False])
def test_writing_to_an_expanded_view_as_pytorch(op: str, grad: bool) -> None:
    """A constant fill of an expanded view writes its base (its elements share memory); other
    in-place ops raise; with a graph, the view's ``CopySlices`` raises in the backward."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=grad)
        b = a * 1
        e = b[1:].expand(2, 2)
        if not rec.attempt("write", lambda: eval("e." + op, {"e": e, "torch": torch})):
            return
        if "normal" not in op:
            rec.note("base", b)
        rec.note("version", e._version)
        if grad:
            rec.graph("graph", e=e, b=b, a=a)
            rec.attempt("backward", lambda: (e * 2).sum().backward())
            rec.grad("after", a=a)

    differential(snippet)


def test_an_expanded_view_whose_base_changed_sums_its_gradient() -> None:
    """Its regenerated ``AsStridedBackward0`` sums the gradients of the elements that share
    memory (it used to fail writing to numpy's read-only broadcast)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 1
        e = b.expand(2, 3)
        t = b[1:].expand(3, 2).t()
        b.mul_(2)
        rec.graph("views", e=e, t=t, a=a)
        weights = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        rec.attempt("backward e", lambda: (e * weights).sum().backward(retain_graph=True))
        rec.grad("after e", a=a)
        rec.attempt("backward t", lambda: (t * weights).sum().backward())
        rec.grad("after t", a=a)

    differential(snippet)
