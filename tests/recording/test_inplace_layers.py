"""In-place changes the line does not show: a layer built with ``inplace=True`` elsewhere in
the file (the fix rewrites the line that builds it, and the rewrite is run), and a loop that
writes into a tensor it reads from (``out[:, t + 1] = f(out[:, t])``: the fix is a list and
``torch.stack``, not a clone)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, run_script, torch_of

INPLACE = "modified by an inplace operation"

BLOCK = """\
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.act = torch.nn.{relu}

    def forward(self, x):
        g = torch.sigmoid(self.fc(x))
        return self.act(g) * g

torch.manual_seed(0)
block = Block()
loss = block(torch.randn(3, 4)).sum()
loss.backward()
"""

LOOP = """\
torch.manual_seed(0)
x = torch.randn(2, 5, 3)
W = torch.randn(3, 3, requires_grad=True)
U = torch.randn(3, 3, requires_grad=True)
out = torch.zeros(2, 6, 3)
for t in range(5):
    out[:, t + 1] = torch.tanh(x[:, t] @ W + out[:, t] @ U)
loss = out.pow(2).sum()
loss.backward()
"""

# NB: the loop as the fix describes it: a list, read from the list, stacked after the loop
STACKED = """\
torch.manual_seed(0)
x = torch.randn(2, 5, 3)
W = torch.randn(3, 3, requires_grad=True)
U = torch.randn(3, 3, requires_grad=True)
outs = [torch.zeros(2, 3)]
for t in range(5):
    outs.append(torch.tanh(x[:, t] @ W + outs[-1] @ U))
out = torch.stack(outs, dim=1)
loss = out.pow(2).sum()
loss.backward()
"""

# NB: the in-place layer is made in a function that returns a block, and reached through a
# ``Dropout(0.0)``, which passes its input on as it is
BUILT_AWAY = """\
nn = torch.nn
def block(d_in, d_out):
    return nn.Sequential(nn.Linear(d_in, d_out), nn.Tanh(),
                         nn.Dropout(0.0), nn.{relu})

torch.manual_seed(0)
model = nn.Sequential(block(6, 8), nn.Linear(8, 1))
loss = torch.nn.functional.mse_loss(model(torch.randn(4, 6)), torch.randn(4, 1))
loss.backward()
"""


@ON_BOTH_ENGINES
@pytest.mark.parametrize("relu", ["ReLU(inplace=True)", "ReLU(True)"])
def test_a_layer_built_in_place_is_rebuilt_without_it(engine: str, relu: str,
                                                      tmp_path: Path) -> None:
    torch = torch_of(engine)
    text = BLOCK.format(relu=relu)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=INPLACE):
        run_script(torch, tmp_path / "block.py", text)
    (d,) = diagnose(rec)
    assert d.kind == "modified" and d.node_name == "SigmoidBackward0"
    found = re.match(r"Write `([^`]+)` at line (\d+) \(without `inplace=True`: the call of "
                     r"`self\.act` at line 9 changed its input in place\)", d.fixes[0].detail)
    assert found is not None, d.fixes[0].detail
    assert found.group(1) == "self.act = torch.nn.ReLU()" and found.group(2) == "5"
    lines = text.splitlines()
    lines[4] = "        " + found.group(1)
    run_script(torch, tmp_path / "fixed.py", "\n".join(lines) + "\n")


@ON_BOTH_ENGINES
def test_a_loop_writing_into_what_it_reads_is_told_to_stack(engine: str,
                                                            tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=INPLACE):
        run_script(torch, tmp_path / "loop.py", LOOP)
    (d,) = diagnose(rec)
    assert d.kind == "modified" and d.node_name == "MmBackward0"
    detail = d.fixes[0].detail
    assert detail.startswith("Line 7 (`out[:, t + 1] = torch.tanh(x[:, t] @ W + out[:, t] @ U)"
                             "`) writes into `out` at each pass of the loop over `t` and reads "
                             "what the pass before wrote (`out[:, t]`)")
    assert "`outs[-1]`) and build `out = torch.stack(outs, dim=1)` after the loop" in detail
    assert "clone" not in detail
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "stacked.py", STACKED)
    assert len(rec.backwards) == 1 and rec.backwards[0].error is None


SEQUENTIAL = """\
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh(),
                                        torch.nn.Dropout(0.1, inplace=True))

    def forward(self, x):
        return self.body(x).sum()

torch.manual_seed(0)
net = Net()
net(torch.randn(3, 4)).backward()
"""


@ON_BOTH_ENGINES
def test_a_layer_of_a_sequential_built_in_place_is_rebuilt_without_it(engine: str,
                                                                       tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=INPLACE):
        run_script(torch, tmp_path / "net.py", SEQUENTIAL)
    # NB: asked twice: the file's tree is shared, and a fix must not change it
    for d in (diagnose(rec)[0], diagnose(rec)[0]):
        assert d.fixes[0].detail.startswith(
            "Write `self.body = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh(), "
            "torch.nn.Dropout(0.1))` at line 4 (without `inplace=True`: the call of "
            "`self.body` at line 8 changed its input in place)")
    lines = SEQUENTIAL.splitlines()
    lines[3:5] = ["        self.body = torch.nn.Sequential(torch.nn.Linear(4, 4), "
                  "torch.nn.Tanh(), torch.nn.Dropout(0.1))"]
    run_script(torch, tmp_path / "fixed.py", "\n".join(lines) + "\n")


@ON_BOTH_ENGINES
def test_a_layer_kept_in_a_list_is_named_by_the_line_that_builds_it(engine: str,
                                                                    tmp_path: Path) -> None:
    """No name of the file is the layer the line calls (``acts[0](g)``): the file's one layer
    built in place is named at its own line; the general advice was all before."""
    torch = torch_of(engine)
    text = """\
acts = [torch.nn.ReLU(inplace=True)]
g = torch.sigmoid(torch.randn(3, requires_grad=True))
out = acts[0](g) * g
out.sum().backward()
"""
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=INPLACE):
        run_script(torch, tmp_path / "acts.py", text)
    (d,) = diagnose(rec)
    assert d.fixes[0].detail.startswith("Build `torch.nn.ReLU(inplace=True)` at line 1 as "
                                        "`torch.nn.ReLU()`: the call at line 3 runs it")
    run_script(torch, tmp_path / "fixed.py", text.replace("inplace=True", ""))


@ON_BOTH_ENGINES
def test_a_file_with_two_layers_built_in_place_gets_the_general_advice(
        engine: str, tmp_path: Path) -> None:
    """Two such layers, neither named by the line: which one changed the tensor is not told
    by the file, so the advice says what to look for."""
    torch = torch_of(engine)
    text = """\
acts = [torch.nn.ReLU(inplace=True), torch.nn.ReLU6(inplace=True)]
g = torch.sigmoid(torch.randn(3, requires_grad=True))
out = acts[0](g) * g
out.sum().backward()
"""
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=INPLACE):
        run_script(torch, tmp_path / "acts.py", text)
    (d,) = diagnose(rec)
    assert d.fixes[0].detail.startswith("The change happens inside what this line calls: look "
                                        "there for an `inplace=True` layer")


@ON_BOTH_ENGINES
@pytest.mark.parametrize("relu", ["ReLU(inplace=True)", "ReLU(True)"])
def test_a_layer_built_in_place_in_a_function_of_the_file_is_named(engine: str, relu: str,
                                                                  tmp_path: Path) -> None:
    """The model's call line shows no layer: the file's one layer built in place is named, at
    its own line, and the rebuilt program runs."""
    torch = torch_of(engine)
    text = BUILT_AWAY.format(relu=relu)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=INPLACE):
        run_script(torch, tmp_path / "blocks.py", text)
    (d,) = diagnose(rec)
    assert d.kind == "modified" and d.node_name == "TanhBackward0"
    assert d.fixes[0].detail == (
        f"Build `nn.{relu}` at line 4 as `nn.ReLU()`: the call at line 8 runs it, and it "
        "changed its input in place, so the value the backward needs stays intact.")
    run_script(torch, tmp_path / "fixed.py", text.replace(f"nn.{relu}", "nn.ReLU()"))
