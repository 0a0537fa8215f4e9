"""A loss with no graph, or a graph that stops at a new leaf: the line where a value left the
graph is found back from the backward's line, through the lines before it (under ``with
torch.no_grad():``; ``.detach()``, ``.numpy()``, ``.item()``; a tensor made anew of the values),
and rewritten where it can be in torch operations. A loss made anew with
``requires_grad=True`` runs and trains nothing: told too. Each rewrite is run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, rewritten, run_script, torch_of

NO_GRAD = "does not require grad"

START = """\
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
"""

UNDER_NO_GRAD = START + """\
with torch.no_grad():
    out = model(x)
loss = ((out - y) ** 2).mean()
loss.backward()
"""

THROUGH_NUMPY = START + """\
import numpy as np
out = model(x)
clipped = torch.from_numpy(np.clip(out.detach().numpy(), -1, 1))
loss = ((clipped - y) ** 2).mean()
loss.backward()
"""

AS_A_NUMBER = START + """\
out = model(x)
err = ((out - y) ** 2).mean().item()
loss = torch.tensor(err{})
loss.backward()
"""


def _trains(scope: dict[str, object]) -> bool:
    model = scope["model"]
    return all(p.grad is not None and bool(p.grad.abs().sum() > 0)   # type: ignore[attr-defined]
               for p in model.parameters())                           # type: ignore[attr-defined]


@ON_BOTH_ENGINES
def test_a_value_built_under_no_grad_is_named_with_its_block(engine: str,
                                                             tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "nograd.py", UNDER_NO_GRAD)
    (d,) = diagnose(rec)
    assert d.kind == "other"
    assert ("Line 5 (`out = model(x)`) runs under line 4: `with torch.no_grad():`, which "
            "records no graph: `out` has none, and `loss` is computed from it.") in d.summary
    assert "It was computed with gradients off" not in d.summary
    assert fix_keys(d) == ["grad_enabled"]
    assert d.fixes[0].title == "Build `out` outside `with torch.no_grad():`"
    fixed = run_script(torch, tmp_path / "fixed.py",
                       UNDER_NO_GRAD.replace("with torch.no_grad():\n    ", ""))
    assert _trains(fixed)


@ON_BOTH_ENGINES
def test_a_round_trip_through_numpy_is_written_in_torch(engine: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "numpy.py", THROUGH_NUMPY)
    (d,) = diagnose(rec)
    assert ("takes the values out of the graph (`.detach()`, `.numpy()`, "
            "`torch.from_numpy()`): `clipped` has none") in d.summary
    assert d.fixes[0].detail.startswith("`clipped = torch.clamp(out, -1, 1)` at line 6")
    fixed = run_script(torch, tmp_path / "fixed.py", rewritten(THROUGH_NUMPY,
                                                                d.fixes[0].detail))
    assert _trains(fixed)


@ON_BOTH_ENGINES
def test_a_loss_kept_as_a_number_then_made_a_tensor_again_is_told_both_lines(
        engine: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    text = AS_A_NUMBER.format("")
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "number.py", text)
    (d,) = diagnose(rec)
    assert ("Line 5 (`err = ((out - y) ** 2).mean().item()`) takes the values out of the graph "
            "(`.item()`): `err` has none, and `loss` is computed from it; line 6 (`loss = "
            "torch.tensor(err)`) makes a new tensor of its values") in d.summary
    assert d.fixes[0].detail.startswith(
        "`err = ((out - y) ** 2).mean()` at line 5, and `loss = err` at line 6")
    fixed = run_script(torch, tmp_path / "fixed.py", rewritten(text, d.fixes[0].detail))
    assert _trains(fixed)


@ON_BOTH_ENGINES
def test_a_loss_made_a_new_leaf_runs_and_is_told_it_trains_nothing(engine: str,
                                                                   tmp_path: Path) -> None:
    torch = torch_of(engine)
    text = AS_A_NUMBER.format(", requires_grad=True")
    with record(engine=engine) as rec:
        plain = run_script(torch, tmp_path / "leaf.py", text)
    assert not _trains(plain)
    (d,) = diagnose(rec)
    assert d.kind == "leaf_loss" and d.backward == 1
    assert d.summary.startswith(
        "Backward #1 at line 7 (`loss.backward()`) starts at a leaf: line 6 (`loss = "
        "torch.tensor(err, requires_grad=True)`) makes a new tensor of `err`, which line 5")
    assert fix_keys(d) == ["grad_enabled"]
    assert d.fixes[0].detail.startswith(
        "`err = ((out - y) ** 2).mean()` at line 5, and `loss = err` at line 6")
    fixed = run_script(torch, tmp_path / "fixed.py", rewritten(text, d.fixes[0].detail))
    assert _trains(fixed)


@ON_BOTH_ENGINES
def test_a_loss_made_a_new_leaf_of_its_own_number_on_one_line_is_told(engine: str,
                                                                      tmp_path: Path) -> None:
    """``loss = torch.tensor(crit(out, y).item(), requires_grad=True)``: the value leaves the
    graph and comes back as a new leaf on one line, told once; the line rewritten trains."""
    torch = torch_of(engine)
    text = START + """\
out = model(x)
loss = torch.tensor(((out - y) ** 2).mean().item(), requires_grad=True)
loss.backward()
"""
    with record(engine=engine) as rec:
        plain = run_script(torch, tmp_path / "leaf.py", text)
    assert not _trains(plain)
    (d,) = diagnose(rec)
    assert d.kind == "leaf_loss"
    assert d.summary.startswith(
        "Backward #1 at line 6 (`loss.backward()`) starts at a leaf: line 5 (`loss = "
        "torch.tensor(((out - y) ** 2).mean().item(), requires_grad=True)`) takes a value out "
        "of the graph and makes a new tensor of it (`.item()`, `torch.tensor()`).")
    assert d.fixes[0].detail.startswith("`loss = ((out - y) ** 2).mean()` at line 5: ")
    fixed = run_script(torch, tmp_path / "fixed.py", rewritten(text, d.fixes[0].detail))
    assert _trains(fixed)


WHOLE_STEP = START + """\
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    with torch.no_grad():
        out = model(x)
        loss = ((out - y) ** 2).mean()
        big = (out.abs() > 1).float().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@ON_BOTH_ENGINES
def test_a_forward_under_no_grad_with_its_loss_is_moved_out_whole(engine: str,
                                                                  tmp_path: Path) -> None:
    """The model's call and the loss both under ``torch.no_grad()``, with a metric: both lines
    the loss needs are to move out, before the block (the metric, which reads ``out``, stays
    under it); moved, the step trains and nothing is told."""
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "step.py", WHOLE_STEP)
    (d,) = diagnose(rec)
    assert d.fixes[0].detail.startswith(
        "Move lines 7 and 8 (`loss` and what it is computed from there) out of that block, in "
        "their order, before it (dedented)")
    lines = WHOLE_STEP.splitlines()
    moved = "\n".join([*lines[:5], "    " + lines[6].strip(), "    " + lines[7].strip(),
                       lines[5], *lines[8:]]) + "\n"
    with record(engine=engine) as again:
        scope = run_script(torch, tmp_path / "moved.py", moved)
    assert diagnose(again) == [] and _trains(scope)


@ON_BOTH_ENGINES
def test_a_tensor_made_of_a_list_of_losses_is_stacked(engine: str, tmp_path: Path) -> None:
    """``torch.tensor([loss_a, loss_b])`` copies the values: the rewrite is ``torch.stack``
    (dropping ``torch.tensor`` would leave a list), and it trains."""
    torch = torch_of(engine)
    text = START + """\
w = torch.tensor([1.0, 0.5])
out = model(x)
losses = torch.tensor([((out - y) ** 2).mean(), (out - y).abs().mean()])
loss = (w * losses).sum()
loss.backward()
"""
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "losses.py", text)
    (d,) = diagnose(rec)
    assert d.fixes[0].detail.startswith(
        "`losses = torch.stack([((out - y) ** 2).mean(), (out - y).abs().mean()])` at line 6")
    fixed = run_script(torch, tmp_path / "fixed.py", rewritten(text, d.fixes[0].detail))
    assert _trains(fixed)


DECORATED = """\
class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(10, 16)

    @torch.no_grad()
    def forward(self, x):
        return self.net(x)


torch.manual_seed(0)
enc, head = Encoder(), torch.nn.Linear(16, 2)
opt = torch.optim.Adam(list(enc.parameters()) + list(head.parameters()), lr=1e-2)
x, y = torch.randn(64, 10), torch.randint(0, 2, (64,))
for step in range(3):
    loss = torch.nn.functional.cross_entropy(head(enc(x)), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@ON_BOTH_ENGINES
def test_a_module_whose_forward_is_decorated_no_grad_is_named_with_the_decorator(
        engine: str, tmp_path: Path) -> None:
    """The encoder's parameters get no gradient: its ``forward`` is decorated
    ``@torch.no_grad()``. The decorator is named, and dropped, the encoder trains."""
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "enc.py", DECORATED)
    (d,) = diagnose(rec)
    assert d.kind == "unreached"
    assert ("`net` is called at line 8 (`return self.net(x)`), under line 6: "
            "`@torch.no_grad()`, which records no graph.") in d.summary
    assert d.fixes[0].title == "Drop `@torch.no_grad()`"
    with record(engine=engine) as again:
        scope = run_script(torch, tmp_path / "fixed.py",
                           DECORATED.replace("    @torch.no_grad()\n", ""))
    assert diagnose(again) == [] and scope["enc"].net.weight.grad is not None


@ON_BOTH_ENGINES
def test_a_backward_from_a_leaf_made_on_purpose_is_not_told(engine: str) -> None:
    """``x.backward()`` of a leaf made as such (a teaching example) reads no cut."""
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        x = torch.tensor(2.0, requires_grad=True)
        x.backward()
    assert diagnose(rec) == []



@ON_BOTH_ENGINES
def test_an_assignment_in_one_of_two_branches_is_not_named(engine: str,
                                                          tmp_path: Path) -> None:
    """``small`` assigned in an ``if`` and in its ``else``: which one ran is not known from the
    file, so neither is named (the general fixes)."""
    torch = torch_of(engine)
    text = START + """\
out = model(x)
if x.sum() > 100:
    small = out.clamp(-1, 1)
else:
    small = out.detach()
loss = ((small - y) ** 2).mean()
loss.backward()
"""
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "branches.py", text)
    (d,) = diagnose(rec)
    assert fix_keys(d) == ["grad_enabled", "requires_grad"]
    assert "Line 8" not in d.summary


IN_A_LOSS_FUNCTION = """\
import numpy as np


def mse(pred, target):
{body}


torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
loss = mse(model(x), y)
loss.backward()
"""


@ON_BOTH_ENGINES
@pytest.mark.parametrize(("body", "summary", "fix"), [
    ("    err = ((pred.detach() - target) ** 2).mean()\n    return err",
     "Line 5 (`err = ((pred.detach() - target) ** 2).mean()`) takes the values out of the "
     "graph (`.detach()`): `err` has none, and `loss` is computed from it.",
     "`err = ((pred - target) ** 2).mean()` at line 5"),
    ("    return torch.tensor(np.mean((pred.detach().numpy() - target.numpy()) ** 2))",
     "Line 5 (`return torch.tensor(np.mean((pred.detach().numpy() - target.numpy()) ** 2))`) "
     "takes the values out of the graph (`.detach()`, `.numpy()`, `torch.tensor()`): `loss` "
     "has none.",
     "`return torch.mean((pred - target) ** 2)` at line 5"),
    ("    with torch.no_grad():\n        err = (pred - target) ** 2\n    return err.mean()",
     "Line 6 (`err = (pred - target) ** 2`) runs under line 5: `with torch.no_grad():`, which "
     "records no graph: `err` has none, and `loss` is computed from it.", None),
], ids=["detach", "numpy", "no_grad"])
def test_a_cut_in_the_loss_function_the_loop_calls_is_found(
        engine: str, tmp_path: Path, body: str, summary: str,
        fix: str | None) -> None:
    """The walk back from ``loss.backward()`` follows ``loss = mse(...)`` into ``mse`` (a
    function of the same file, with one ``return``)."""
    torch = torch_of(engine)
    text = IN_A_LOSS_FUNCTION.format(body=body)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "lossfn.py", text)
    (d,) = diagnose(rec)
    assert summary in d.summary
    assert d.summary.endswith(
        f"That line is in `mse`, which line {text.count(chr(10)) - 1} (`loss = mse(model(x), "
        "y)`) calls.")
    assert fix_keys(d) == ["grad_enabled"]
    if fix is None:
        fixed_text = text.replace("    with torch.no_grad():\n        err", "    err")
    else:
        assert d.fixes[0].detail.startswith(fix)
        fixed_text = rewritten(text, d.fixes[0].detail)
    assert _trains(run_script(torch, tmp_path / "fixed.py", fixed_text))


@ON_BOTH_ENGINES
def test_a_loss_function_with_two_returns_is_not_followed(engine: str,
                                                          tmp_path: Path) -> None:
    """Which ``return`` gave the loss is not known from the file: the general fixes."""
    torch = torch_of(engine)
    text = IN_A_LOSS_FUNCTION.format(
        body="    if pred.shape != target.shape:\n        return pred.sum()\n"
             "    return ((pred.detach() - target) ** 2).mean()")
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "lossfn.py", text)
    (d,) = diagnose(rec)
    assert fix_keys(d) == ["grad_enabled", "requires_grad"]
    assert "That line is in" not in d.summary


FROZEN = """\
torch.manual_seed(0)
backbone = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU())
head = torch.nn.Linear(16, 2)
model = torch.nn.Sequential(backbone, head)
for p in model.parameters():
    p.requires_grad = False
opt = torch.optim.SGD({trained}.parameters(), lr=0.1)
x, y = torch.randn(4, 8), torch.tensor([0, 1, 0, 1])
loss = torch.nn.functional.cross_entropy(model(x), y)
loss.backward()
opt.step()
"""


@ON_BOTH_ENGINES
def test_a_head_frozen_with_the_rest_of_the_model_is_named_with_its_optimizer(
        engine: str, tmp_path: Path) -> None:
    """A loop freezes every parameter of ``model``, ``head``'s too, which the optimizer is
    made to train: the loop and the optimizer's line are named, and ``head`` is let train
    after the loop (not the labels' ``torch.tensor([0, 1, 0, 1])``, made of numbers)."""
    torch = torch_of(engine)
    text = FROZEN.format(trained="head")
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "frozen.py", text)
    (d,) = diagnose(rec)
    assert ("Line 6 (`p.requires_grad = False`), in the loop at line 5 (`for p in "
            "model.parameters():`), turned off gradients for `backbone.0.weight`, "
            "`backbone.0.bias`, `head.weight`, `head.bias`, and `loss` reads no tensor that "
            "requires grad. Line 7 (`opt = torch.optim.SGD(head.parameters(), lr=0.1)`) is to "
            "train `head`, whose parameters are among them.") in d.summary
    assert "`y`" not in d.summary
    assert fix_keys(d) == ["requires_grad"]
    assert d.fixes[0].detail.startswith("Add `head.requires_grad_(True)` after line 6")
    lines = text.splitlines(keepends=True)
    fixed = run_script(torch, tmp_path / "fixed.py",
                       "".join([*lines[:6], "head.requires_grad_(True)\n", *lines[6:]]))
    assert fixed["head"].weight.grad is not None
    assert fixed["backbone"][0].weight.grad is None


@ON_BOTH_ENGINES
def test_a_model_frozen_whole_is_told_to_freeze_only_what_stays_fixed(
        engine: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "frozen.py", FROZEN.format(trained="model"))
    (d,) = diagnose(rec)
    assert "turned off gradients for `backbone.0.weight`" in d.summary
    assert fix_keys(d) == ["requires_grad"]
    assert d.fixes[0].title == "Freeze only what is to stay fixed"


@ON_BOTH_ENGINES
def test_a_tensor_written_out_in_numbers_is_not_a_cut(engine: str, tmp_path: Path) -> None:
    """``y = torch.tensor([[1.0], ...])`` makes labels, not a loss taken out of the graph: a
    weight made without ``requires_grad`` gets the general fixes, with no line named."""
    torch = torch_of(engine)
    text = """\
w = torch.randn(2, 1)
x = torch.randn(3, 2)
y = torch.tensor([[1.0], [0.0], [1.0]])
loss = ((x @ w - y) ** 2).mean()
loss.backward()
"""
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "labels.py", text)
    (d,) = diagnose(rec)
    assert fix_keys(d) == ["grad_enabled", "requires_grad"]
    assert "Line 3" not in d.summary


@ON_BOTH_ENGINES
def test_a_loss_function_decorated_with_no_grad_is_named_with_its_decorator(
        engine: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    text = IN_A_LOSS_FUNCTION.replace("def mse", "@torch.no_grad()\ndef mse").format(
        body="    return ((pred - target) ** 2).mean()")
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "lossfn.py", text)
    (d,) = diagnose(rec)
    assert ("Line 6 (`return ((pred - target) ** 2).mean()`) is in a function decorated with "
            "`@torch.no_grad()` (line 4), which records no graph in any of its lines: `loss` "
            "has none. That line is in `mse`") in d.summary
    assert fix_keys(d) == ["grad_enabled"]
    assert d.fixes[0].title == "Drop `@torch.no_grad()`"
    assert d.fixes[0].detail.startswith("Drop line 4:")
    fixed = run_script(torch, tmp_path / "fixed.py", text.replace("@torch.no_grad()\n", ""))
    assert _trains(fixed)


@ON_BOTH_ENGINES
@pytest.mark.parametrize("imported", ["from cut_losses import mse", "import cut_losses"])
def test_a_cut_in_a_loss_function_of_another_file_is_found(
        engine: str, imported: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``from cut_losses import mse`` (or ``import cut_losses``, then ``cut_losses.mse``): the
    function is read in the module of the user's beside the script, and its line named with
    its file."""
    torch = torch_of(engine)
    module = "def mse(pred, target):\n    err = (pred.detach() - target) ** 2\n" \
        "    return err.mean()\n"
    (tmp_path / "cut_losses.py").write_text(module)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "cut_losses", raising=False)
    call = "mse" if imported.startswith("from") else "cut_losses.mse"
    text = imported + "\n" + START + f"loss = {call}(model(x), y)\nloss.backward()\n"
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=NO_GRAD):
        run_script(torch, tmp_path / "train.py", text)
    (d,) = diagnose(rec)
    assert ("Line 2 of cut_losses.py (`err = (pred.detach() - target) ** 2`) takes the values "
            "out of the graph (`.detach()`): `err` has none, and `loss` is computed from it. "
            f"That line is in `mse`, which line 5 (`loss = {call}(model(x), y)`) calls."
            ) in d.summary
    assert d.fixes[0].detail.startswith("`err = (pred - target) ** 2` at line 2 of cut_losses.py")
    (tmp_path / "cut_losses.py").write_text(rewritten(module, d.fixes[0].detail))
    monkeypatch.delitem(sys.modules, "cut_losses", raising=False)
    assert _trains(run_script(torch, tmp_path / "fixed.py", text))
