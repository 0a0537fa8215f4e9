"""Gradients no step uses (kind ``never_stepped``): a training loop whose parameters get a
gradient at every backward and never change. The loop's code tells why: ``zero_grad()``
between the backward and the step, no step, or a step whose optimizer holds other
parameters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, here, run_script, torch_of


def _model(torch: Any) -> tuple[Any, Any, Any]:
    torch.manual_seed(0)
    return torch.nn.Linear(4, 8), torch.nn.Linear(8, 1), torch.nn.functional.mse_loss


def _batch(torch: Any) -> tuple[Any, Any]:
    return torch.randn(16, 4), torch.randn(16, 1)


def _loop(torch: Any, how: str, steps: int = 4) -> int:
    """A small regression loop, written ``how``; the line of its backward."""
    return _LOOPS[how](torch, steps)


def _cleared_after(torch: Any, steps: int) -> int:
    backbone, head, mse = _model(torch)
    opt = torch.optim.SGD([*backbone.parameters(), *head.parameters()], lr=0.1)
    for _ in range(steps):
        x, y = _batch(torch)
        loss = mse(head(torch.relu(backbone(x))), y)
        loss.backward()
        opt.zero_grad()
        opt.step()
    return here() - 3


def _stepped_first(torch: Any, steps: int) -> int:
    """``zero_grad()``, ``step()``, then the loss and its backward: each step comes before
    the backward, and the next pass clears what the backward made before stepping."""
    backbone, head, mse = _model(torch)
    opt = torch.optim.SGD([*backbone.parameters(), *head.parameters()], lr=0.1)
    for _ in range(steps):
        opt.zero_grad()
        opt.step()
        x, y = _batch(torch)
        loss = mse(head(torch.relu(backbone(x))), y)
        loss.backward()
    return here() - 1


def _no_step(torch: Any, steps: int) -> int:
    backbone, head, mse = _model(torch)
    opt = torch.optim.SGD([*backbone.parameters(), *head.parameters()], lr=0.1)
    for _ in range(steps):
        opt.zero_grad()
        x, y = _batch(torch)
        loss = mse(head(torch.relu(backbone(x))), y)
        loss.backward()
    return here() - 1


def _stepped(torch: Any, steps: int, params: str = "all", made_again: bool = False) -> int:
    backbone, head, mse = _model(torch)
    opt = torch.optim.SGD(head.parameters() if params == "head" else
                          [*backbone.parameters(), *head.parameters()], lr=0.1)
    if made_again:
        backbone, head, mse = _model(torch)
    for _ in range(steps):
        x, y = _batch(torch)
        loss = mse(head(torch.relu(backbone(x))), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return here() - 3


def _accumulated(torch: Any, steps: int, every: int) -> int:
    backbone, head, mse = _model(torch)
    opt = torch.optim.SGD([*backbone.parameters(), *head.parameters()], lr=0.1)
    for i in range(steps):
        x, y = _batch(torch)
        loss = mse(head(torch.relu(backbone(x))), y)
        loss.backward()
        if (i + 1) % every == 0:
            opt.step()
            opt.zero_grad()
    return here() - 5


_LOOPS = {"cleared after": _cleared_after, "stepped first": _stepped_first,
          "no step": _no_step, "stepped": _stepped,
          "head only": lambda t, n: _stepped(t, n, params="head"),
          "made again": lambda t, n: _stepped(t, n, made_again=True),
          "accumulated": lambda t, n: _accumulated(t, n, every=2),
          "accumulated, window not over": lambda t, n: _accumulated(t, n, every=8)}


@ON_BOTH_ENGINES
def test_zero_grad_between_the_backward_and_the_step_is_told(engine: str) -> None:
    with record(engine=engine) as rec:
        line = _loop(torch_of(engine), "cleared after")
    (d,) = diagnose(rec)
    assert d.kind == "never_stepped" and d.backward == 4
    assert d.built_by["labels"] == ["backbone.weight", "backbone.bias", "head.weight",
                                    "head.bias"]
    assert d.summary.startswith(
        f"`opt.zero_grad()` at line {line + 1} clears the gradients that line {line} "
        f"(`loss.backward()`) just made, before `opt.step()` at line {line + 2} uses them")
    assert "did not change over 4 backwards" in d.summary
    assert fix_keys(d) == ["zero_grad"]
    assert d.fixes[0].detail.startswith(f"Move line {line + 1} (`opt.zero_grad()`) to the start")


@ON_BOTH_ENGINES
def test_a_step_before_the_backward_is_told_to_come_after_it(engine: str) -> None:
    """The pass's ``zero_grad()`` runs between the last pass's backward and this pass's step
    (not an optimizer that holds none of the parameters)."""
    with record(engine=engine) as rec:
        line = _loop(torch_of(engine), "stepped first")
    (d,) = diagnose(rec)
    assert d.kind == "never_stepped"
    assert d.summary.startswith(
        f"`opt.zero_grad()` at line {line - 4} clears the gradients that line {line} "
        f"(`loss.backward()`) made, before `opt.step()` at line {line - 3} uses them")
    assert "The step runs before the backward in each pass" in d.summary
    assert "does not hold" not in d.summary
    assert fix_keys(d) == ["step"]
    assert d.fixes[0].detail.startswith(f"Move line {line - 3} (`opt.step()`) after line {line}")


@ON_BOTH_ENGINES
def test_a_loop_with_no_step_is_told_to_step(engine: str) -> None:
    with record(engine=engine) as rec:
        line = _loop(torch_of(engine), "no step")
    (d,) = diagnose(rec)
    assert d.kind == "never_stepped"
    assert "never calls `opt.step()`" in d.summary
    assert fix_keys(d) == ["step"] and d.fixes[0].title == "Call `opt.step()` after the backward"
    assert d.fixes[0].detail.startswith(f"Right after line {line} (`loss.backward()`)")


@ON_BOTH_ENGINES
def test_parameters_the_optimizer_does_not_hold_are_named_by_their_module(engine: str
                                                                         ) -> None:
    with record(engine=engine) as rec:
        _loop(torch_of(engine), "head only")
    (d,) = diagnose(rec)
    assert d.built_by["labels"] == ["backbone.weight", "backbone.bias"]
    assert "changed `head.weight`, `head.bias`: its optimizer does not hold them" in d.summary
    assert fix_keys(d) == ["optimizer", "freeze"]
    assert "opt.add_param_group({'params': backbone.parameters()})" in d.fixes[0].detail
    assert d.fixes[1].detail.startswith("`backbone.requires_grad_(False)`")


@ON_BOTH_ENGINES
def test_a_teacher_run_with_a_graph_is_told_to_be_frozen(engine: str) -> None:
    """Distillation with the teacher's forward building a graph: a module named as one kept
    fixed is to be frozen (or its line run under ``no_grad``), not given to the optimizer."""
    t = torch_of(engine)
    t.manual_seed(0)
    teacher, student = t.nn.Linear(4, 3), t.nn.Linear(4, 3)
    opt = t.optim.SGD(student.parameters(), lr=0.1)
    with record(engine=engine) as rec:
        for _ in range(4):
            x = t.randn(8, 4)
            t_logits = teacher(x)
            line = here()
            loss = t.nn.functional.mse_loss(student(x), t_logits.softmax(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
    (d,) = diagnose(rec)
    assert d.built_by["labels"] == ["teacher.weight", "teacher.bias"]
    assert fix_keys(d) == ["freeze"]
    assert d.fixes[0].detail.startswith(
        f"`teacher.requires_grad_(False)`, or line {line - 1} (`t_logits = teacher(x)`) under "
        "`with torch.no_grad():`")


@ON_BOTH_ENGINES
def test_an_optimizer_made_before_the_model_was_made_again_is_told(engine: str) -> None:
    with record(engine=engine) as rec:
        _loop(torch_of(engine), "made again")
    (d,) = diagnose(rec)
    assert "changed none of them: its optimizer does not hold them" in d.summary
    assert fix_keys(d) == ["optimizer"]


@ON_BOTH_ENGINES
@pytest.mark.parametrize("how", ["stepped", "accumulated", "accumulated, window not over"])
def test_a_loop_whose_steps_use_the_gradients_is_not_told(engine: str, how: str) -> None:
    with record(engine=engine) as rec:
        _loop(torch_of(engine), how)
    assert diagnose(rec) == []


@ON_BOTH_ENGINES
def test_two_backwards_are_too_few_to_judge(engine: str) -> None:
    with record(engine=engine) as rec:
        _loop(torch_of(engine), "cleared after", steps=2)
    assert diagnose(rec) == []


@ON_BOTH_ENGINES
def test_gradients_only_looked_at_are_not_judged(engine: str) -> None:
    """Gradients computed to be read (a saliency map per batch), with no optimizer."""
    torch = torch_of(engine)
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    with record(engine=engine) as rec:
        for _ in range(4):
            model(torch.randn(16, 4)).sum().backward()
            print(float(model.weight.grad.abs().max()))
            model.weight.grad = None
    assert diagnose(rec) == []


@ON_BOTH_ENGINES
@pytest.mark.parametrize("frozen", [False, True])
def test_a_mean_teacher_given_gradients_is_told_to_be_frozen(engine: str, frozen: bool
                                                             ) -> None:
    """A teacher updated as a moving average of the student, whose output the loss reads with
    gradients on: its gradients only grow, and nothing reads them. Not a step that uses a sum
    of gradients."""
    torch = torch_of(engine)
    torch.manual_seed(0)
    F = torch.nn.functional
    student, teacher = torch.nn.Linear(4, 3), torch.nn.Linear(4, 3)
    if frozen:
        teacher.requires_grad_(False)
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    with record(engine=engine) as rec:
        for _ in range(4):
            x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
            opt.zero_grad()
            out = student(x)
            loss = F.cross_entropy(out, y) + F.mse_loss(out, teacher(x))
            loss.backward()
            opt.step()
            with torch.no_grad():
                for pt, ps in zip(teacher.parameters(), student.parameters(), strict=True):
                    pt.mul_(0.99).add_(0.01 * ps)
    if frozen:
        assert diagnose(rec) == []
        return
    (d,) = diagnose(rec)
    assert d.kind == "stale_grad" and d.built_by["labels"] == ["teacher.weight", "teacher.bias"]
    assert "`teacher` is changed in place by an update of its own" in d.summary
    assert "uses the sum" not in d.summary
    assert fix_keys(d) == ["freeze"]
    assert d.fixes[0].detail.startswith("`teacher.requires_grad_(False)` once")


NEW_HEAD = """\
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(12, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model[2] = torch.nn.Linear(32, 3)
x, y = torch.randn(64, 12), torch.randint(0, 3, (64,))
for step in range(4):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@ON_BOTH_ENGINES
def test_a_head_replaced_after_the_optimizer_is_told_to_make_it_after(
        engine: str, tmp_path: Path) -> None:
    """``model[2] = nn.Linear(...)`` after the optimizer was made: its parameters are never
    stepped. The replacement and the optimizer's line are named, the module as code
    (``model[2]``, not ``model.2``), and the moved line trains the new head."""
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "head.py", NEW_HEAD)
    (d,) = diagnose(rec)
    assert d.kind == "never_stepped"
    assert ("Line 4 (`model[2] = torch.nn.Linear(32, 3)`) replaced `model[2]` after line 3 "
            "(`opt = torch.optim.SGD(model.parameters(), lr=0.1)`) made the optimizer") \
        in d.summary
    assert fix_keys(d) == ["optimizer", "optimizer", "freeze"]
    assert d.fixes[0].detail.startswith("Move line 3 (`opt = torch.optim.SGD(")
    assert "`opt.add_param_group({'params': model[2].parameters()})`" in d.fixes[1].detail
    assert d.fixes[2].detail.startswith("`model[2].requires_grad_(False)`")
    lines = NEW_HEAD.splitlines()
    moved = "\n".join([lines[0], lines[1], lines[3], lines[2], *lines[4:]]) + "\n"
    with record(engine=engine) as again:
        scope = run_script(torch, tmp_path / "moved.py", moved)
    assert diagnose(again) == []
    assert scope["model"][2].weight.grad is not None


TWO_OPTIMIZERS = """\
torch.manual_seed(0)
enc, dec = torch.nn.Sequential(torch.nn.Linear(20, 8), torch.nn.ReLU()), torch.nn.Linear(8, 20)
opt_enc = torch.optim.SGD(enc.parameters(), lr=0.05)
opt_dec = torch.optim.SGD(dec.parameters(), lr=0.05)
x = torch.randn(64, 20)
for step in range(4):
    loss = torch.nn.functional.mse_loss(dec(enc(x)), x)
    opt_enc.zero_grad()
    opt_enc.zero_grad()
    loss.backward()
    opt_enc.step()
    opt_dec.step()
"""


@ON_BOTH_ENGINES
def test_the_optimizer_never_cleared_is_named(engine: str, tmp_path: Path) -> None:
    """Two optimizers, one cleared twice and the other never: the stale gradients' fix names
    the one to clear and the duplicated line; put in, nothing is told."""
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "ae.py", TWO_OPTIMIZERS)
    (d,) = diagnose(rec)
    assert d.kind == "stale_grad"
    assert d.fixes[0].detail == (
        "`opt_dec.zero_grad()` before each backward (the loop steps `opt_dec` and never "
        "clears it): line 9 (`opt_enc.zero_grad()`) clears `opt_enc` a second time, where "
        "`opt_dec.zero_grad()` was likely meant, so each step uses its own batch's gradient.")
    fixed = TWO_OPTIMIZERS.replace("    opt_enc.zero_grad()\n    opt_enc.zero_grad()\n",
                                   "    opt_enc.zero_grad()\n    opt_dec.zero_grad()\n")
    with record(engine=engine) as again:
        run_script(torch, tmp_path / "fixed.py", fixed)
    assert diagnose(again) == []
