"""A line that runs at every step, whose value of an earlier step is kept (``self.prev =
out``; ``temp.append(h)``; an ensemble target ``Z[idx] = 0.6 * Z[idx] + 0.4 * out``) and read
into a later step's graph: the line is recomputed already, so the fixes are to keep the value
detached (that line rewritten) or to detach it where the later line reads it (rewritten too),
never "recompute it inside the loop". Each rewrite is run in place of the user's line."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, run_script, torch_of

BACKWARD_TWICE = "Trying to backward through the graph a second time"

PREVIOUS = """\
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.prev = None

    def forward(self, x):
        out = torch.tanh(self.fc(x))
        reg = ((out - self.prev) ** 2).mean() if self.prev is not None else 0.0
        self.prev = out
        return out, reg

torch.manual_seed(0)
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    out, reg = net(torch.randn(8, 4))
    loss = out.pow(2).mean() + 0.1 * reg
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

ENSEMBLE = """\
torch.manual_seed(0)
net = torch.nn.Linear(5, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
X = torch.randn(20, 5)
Z = torch.zeros(20, 3)
for epoch in range(2):
    for idx in [torch.arange(0, 10), torch.arange(10, 20)]:
        out = torch.softmax(net(X[idx]), dim=1)
        loss = ((out - Z[idx]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        Z[idx] = 0.6 * Z[idx] + 0.4 * out
"""


def _rewrite(text: str, detail: str) -> str:
    """The program with the line a fix names replaced by the fix's rewrite of it."""
    found = re.match(r"`([^`]+)` at line (\d+)", detail) or \
        re.match(r"`([^`]+)`: ", detail)
    assert found is not None, detail
    lines = text.splitlines()
    if found.lastindex == 2:
        at = int(found.group(2)) - 1
    else:
        (at,) = [i for i, line in enumerate(lines) if line.strip() in
                 {"Z[idx] = 0.6 * Z[idx] + 0.4 * out",
                  "reg = ((out - self.prev) ** 2).mean() if self.prev is not None else 0.0"}]
    indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
    lines[at] = indent + found.group(1)
    return "\n".join(lines) + "\n"


@ON_BOTH_ENGINES
def test_a_previous_output_kept_by_a_module_is_to_be_kept_detached(engine: str,
                                                                    tmp_path: Path) -> None:
    torch = torch_of(engine)
    path = tmp_path / "previous.py"
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        run_script(torch, path, PREVIOUS)
    (d,) = [d for d in diagnose(rec) if d.kind == "freed"]
    assert d.node_name == "TanhBackward0"
    assert "Line 8 (`out = torch.tanh(self.fc(x))`) runs at every step; what it made at an " \
        "earlier one (`net.prev`) is carried into this graph by line 9 " in d.summary
    assert "Recompute" not in d.text() and "computed from" not in d.summary
    assert fix_keys(d) == ["detach", "detach", "retain_graph"]
    assert d.fixes[0].title == "Keep `out.detach()` in `self.prev`"
    assert d.fixes[0].detail.startswith("`self.prev = out.detach()` at line 10: ")
    assert d.fixes[1].title == "Use `self.prev.detach()` at line 9"
    assert d.fixes[1].detail.startswith(
        "`reg = ((out - self.prev.detach()) ** 2).mean() if self.prev is not None else 0.0`")
    for fix in d.fixes[:2]:
        with record(engine=engine) as rec:
            run_script(torch, tmp_path / "fixed.py", _rewrite(PREVIOUS, fix.detail))
        assert len(rec.backwards) == 3 and not any(b.error for b in rec.backwards)


@ON_BOTH_ENGINES
def test_an_ensemble_target_updated_with_the_output_is_told_at_its_line(engine: str,
                                                                        tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        run_script(torch, tmp_path / "ensemble.py", ENSEMBLE)
    (d,) = [d for d in diagnose(rec) if d.kind == "freed"]
    assert d.node_name == "SoftmaxBackward0"
    # NB: a write into ``Z``'s rows that reads them feeds ``Z`` back into itself
    assert "`Z` (line 13: `Z[idx] = 0.6 * Z[idx] + 0.4 * out`) keeps `out` from one step to " \
        "the next and is fed back into itself" in d.summary
    assert fix_keys(d) == ["detach", "retain_graph"]
    assert d.fixes[0].title == "Keep `out.detach()` in `Z`"
    assert d.fixes[0].detail.startswith(
        "`Z[idx] = 0.6 * Z[idx] + 0.4 * out.detach()` at line 13: ")
    assert "`Z` carries each step's graph into the next" in d.fixes[1].detail
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "fixed.py", _rewrite(ENSEMBLE, d.fixes[0].detail))
    assert len(rec.backwards) == 4 and not any(b.error for b in rec.backwards)


def test_the_seed_story_keeps_h_detached_in_temp(tmp_path: Path) -> None:
    """Seed 003's own fix, `temp.append(h.detach())`, comes first (the seed test checks it
    on the seed's code; here it runs)."""
    import graphviz_autograd.torch as torch
    text = textwrap.dedent("""\
        fc1, fc2 = torch.nn.Linear(3, 5), torch.nn.Linear(5, 2)
        a, t = torch.randn(4, 3), torch.randn(4, 2)
        sgd = torch.optim.SGD(list(fc1.parameters()) + list(fc2.parameters()), lr=0.1)
        temp = []
        for i in range(4):
            h = fc1(a)
            out = fc2(h)
            temp.append(h)
            if i != 0:
                out = out + temp[0].mean()
            loss = ((out - t) ** 2).mean()
            sgd.zero_grad()
            loss.backward()
            sgd.step()
        """)
    with record() as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        run_script(torch, tmp_path / "seed.py", text)
    (d,) = [d for d in diagnose(rec) if d.kind == "freed"]
    assert d.fixes[0].detail.startswith("`temp.append(h.detach())` at line 8: ")
    with record() as rec:
        run_script(torch, tmp_path / "fixed.py", _rewrite(text, d.fixes[0].detail))
    assert len(rec.backwards) == 4 and not any(b.error for b in rec.backwards)


LSTM = """\
torch.manual_seed(0)
lstm = torch.nn.LSTM(3, 4, batch_first=True)
head = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.1)
hidden = None
for chunk in range(3):
    x, y = torch.randn(2, 5, 3), torch.randn(2, 5, 1)
    out, (h, c) = lstm(x, hidden)
    loss = ((head(out) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    hidden = {kept}
"""


@ON_BOTH_ENGINES
@pytest.mark.parametrize(("kept", "title"), [("(h.detach(), c)", "Detach `c` too"),
                                             ("(h, c)", "Detach `c`, `h`")])
def test_a_state_fed_back_partly_attached_is_detached_whole(engine: str, kept: str,
                                                            title: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    text = LSTM.format(kept=kept)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        run_script(torch, tmp_path / "lstm.py", text)
    (d,) = [d for d in diagnose(rec) if d.kind == "freed"]
    assert f"Line 13 (`hidden = {kept}`) feeds what line 8 made back into it at the next " \
        "step" in d.summary
    assert "computed from" not in d.summary and "Recompute" not in d.text()
    assert d.fixes[0].title == title
    assert d.fixes[0].detail.startswith("`hidden = (h.detach(), c.detach())` at line 13: ")
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "fixed.py", _rewrite(text, d.fixes[0].detail))
    assert len(rec.backwards) == 3 and not any(b.error for b in rec.backwards)
