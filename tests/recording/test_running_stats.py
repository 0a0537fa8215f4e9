"""Running statistics updated with their graph (a hand-written batch norm's
``self.running_mean = 0.9 * self.running_mean + 0.1 * mean``): nothing fails, but each step's
graph is kept by the next, and no backward runs through them. The growth is told with those
lines, and the fix updates them under ``torch.no_grad()``; run so, the graph stops growing."""

from __future__ import annotations

import re
from pathlib import Path

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, run_script, torch_of

BATCH_NORM = """\
class Norm(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.gamma = torch.nn.Parameter(torch.ones(n))
        self.running_mean = torch.zeros(n)
        self.running_var = torch.ones(n)

    def forward(self, x):
        mean, var = x.mean(0), x.var(0)
        self.running_mean = 0.9 * self.running_mean + 0.1 * mean
        self.running_var = 0.9 * self.running_var + 0.1 * var
        return self.gamma * (x - mean) / (var + 1e-5).sqrt()


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), Norm(16), torch.nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(6):
    loss = model(torch.randn(32, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

MEAN = "        self.running_mean = 0.9 * self.running_mean + 0.1 * mean\n"
VAR = "        self.running_var = 0.9 * self.running_var + 0.1 * var\n"


@ON_BOTH_ENGINES
def test_running_statistics_kept_with_their_graph_are_updated_without_one(
        engine: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "norm.py", BATCH_NORM)
    (d,) = diagnose(rec)
    assert d.kind == "growth"
    assert ("No backward runs through what line 10 and line 11 build: `self.running_mean` and "
            "`self.running_var` carry each step's graph into the next for nothing.") in d.summary
    assert fix_keys(d) == ["no_grad"]
    body = re.match(r"`with torch.no_grad\(\): ([^`]+)`", d.fixes[0].detail)
    assert body is not None and body.group(1).split("; ") == [MEAN.strip(), VAR.strip()]

    # NB: the fix run: the statistics are the same values, and the graph stops growing
    fixed = BATCH_NORM.replace(MEAN + VAR, "        with torch.no_grad():\n" + "".join(
        "            " + line + "\n" for line in body.group(1).split("; ")))
    assert fixed != BATCH_NORM
    with record(engine=engine) as again:
        scope = run_script(torch, tmp_path / "fixed.py", fixed)
    assert diagnose(again) == []
    counts = {len(s.nodes) for s in again.snapshots if s.kind == "after_backward"}
    assert len(counts) == 1
    plain = run_script(torch, tmp_path / "plain.py", BATCH_NORM)
    assert torch.allclose(scope["model"][1].running_mean, plain["model"][1].running_mean)


@ON_BOTH_ENGINES
def test_a_state_a_backward_runs_through_is_not_told_as_a_statistic(engine: str,
                                                                    tmp_path: Path) -> None:
    """A recurrent state fed back and backwarded through at every step grows too, but it is
    no statistic: detaching is the fix, not ``no_grad``."""
    torch = torch_of(engine)
    text = """\
torch.manual_seed(0)
W = torch.randn(4, 4, requires_grad=True)
h = torch.zeros(1, 4)
for step in range(6):
    h = torch.tanh(h @ W + 1)
    loss = h.sum()
    loss.backward(retain_graph=True)
"""
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "rnn.py", text)
    growth = [d for d in diagnose(rec) if d.kind == "growth"]
    assert len(growth) == 1 and "no_grad" not in fix_keys(growth[0])
    assert "for nothing" not in growth[0].summary
