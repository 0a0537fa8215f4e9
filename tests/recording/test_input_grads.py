"""A loss backwarded for an input's gradient (an adversarial example made from ``x.grad``), then
backwarded again inside a later loss (``(loss + adv_loss).backward()``): the first backward is
there for the gradient, so the fixes ask for that gradient alone keeping the graph (both lines
rewritten), or keep the graph; not "keep `loss.item()`", not a detach that stops training on
the clean loss. Each rewrite is run in place of the user's lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, rewritten, run_script, torch_of

BACKWARD_TWICE = "Trying to backward through the graph a second time"

ADVERSARIAL = """\
F = torch.nn.functional

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 10)
y = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
x.requires_grad_(True)
loss = F.cross_entropy(model(x), y)
loss.backward()
x_adv = x + 0.1 * x.grad.sign()
adv_loss = F.cross_entropy(model(x_adv), y)
opt.zero_grad()
(loss + adv_loss).backward()
grads = [p.grad.clone() for p in model.parameters()]
"""


@ON_BOTH_ENGINES
@pytest.mark.parametrize("cleared", [True, False])
def test_a_gradient_asked_of_an_input_keeps_the_graph_for_the_loss_again(
        engine: str, cleared: bool, tmp_path: Path) -> None:
    torch = torch_of(engine)
    text = ADVERSARIAL if cleared else ADVERSARIAL.replace("opt.zero_grad()\n", "")
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        run_script(torch, tmp_path / "attack.py", text)
    (d,) = diagnose(rec)
    assert d.kind == "freed" and d.backward == 2 and d.freed_by == [1]
    assert ("Backward #1 ran through `loss` for `x.grad`, which line 11 (`x_adv = x + 0.1 * "
            "x.grad.sign()`) reads to build this backward's loss") in d.summary
    assert fix_keys(d) == ["grad_input", "retain_graph"]
    assert d.fixes[0].detail.startswith(
        "`(x_grad,) = torch.autograd.grad(loss, x, retain_graph=True)` at line 10, and "
        "`x_adv = x + 0.1 * x_grad.sign()` at line 11")
    added = "Backward #1's gradients in the parameters then add to this backward's"
    assert (added in d.fixes[1].detail) is not cleared

    # NB: each fix runs, and both give the parameters the gradients of the summed loss alone
    # (where no zero_grad() clears them, retaining adds backward #1's: the note says so)
    fixed = run_script(torch, tmp_path / "fixed.py", rewritten(text, d.fixes[0].detail))
    retained = run_script(torch, tmp_path / "retained.py",
                          text.replace("loss.backward()\n", "loss.backward(retain_graph=True)\n",
                                       1))
    for a, b in zip(fixed["grads"], retained["grads"], strict=True):
        assert torch.allclose(a, b) is cleared
    assert torch.equal(fixed["x_adv"], retained["x_adv"])


@ON_BOTH_ENGINES
def test_a_parameter_gradient_read_between_is_not_an_input_query(engine: str,
                                                                tmp_path: Path) -> None:
    """A parameter's ``.grad`` read between (a logged norm) is not a gradient asked of an
    input: the loss kept is told as before."""
    torch = torch_of(engine)
    text = ADVERSARIAL.replace("x.requires_grad_(True)\n", "").replace(
        "x_adv = x + 0.1 * x.grad.sign()", "x_adv = x + 0.1 * model[0].weight.grad.sum()")
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        run_script(torch, tmp_path / "norm.py", text)
    (d,) = diagnose(rec)
    assert "grad_input" not in fix_keys(d) and "for `" not in d.summary
