"""A moving average kept in a tensor and updated by index from each step's features
(``protos[c] = 0.9 * protos[c] + 0.1 * feat[...].mean(0)``): its writes into slices carry each
step's graph into the next, and the second backward fails at a ``CopySlices`` node, which has
no buffers of its own. The explanation names the backward that released it and updates the
average without a graph."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, run_script, torch_of

_EMA = """\
F = torch.nn.functional
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 16))
opt = torch.optim.Adam(net.parameters())
protos = torch.zeros(3, 16)
for step in range(4):
    x, y = torch.randn(30, 10), torch.arange(3).repeat(10)
    feat = net(x)
    for c in range(3):
        protos[c] = 0.9 * protos[c] + 0.1 * feat[y == c].mean(0)
    loss = F.cross_entropy(-torch.cdist(feat, protos), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""
UPDATE = "        protos[c] = 0.9 * protos[c] + 0.1 * feat[y == c].mean(0)\n"


@ON_BOTH_ENGINES
def test_a_moving_average_written_by_index_is_updated_without_a_graph(
        engine: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match="second time"):
        run_script(torch, tmp_path / "protos.py", _EMA)
    (d,) = diagnose(rec)
    assert d.node_name == "torch::autograd::CopySlices"
    assert d.freed_by == [1]
    assert ("backward #1 at line 13 (`loss.backward()`) already ran it and released it"
            in d.summary)
    assert "ran it and freed its buffers" not in d.summary
    assert "`protos` is fed back into the line that builds it" in d.summary
    assert fix_keys(d)[:2] == ["no_grad", "detach"]
    assert d.fixes[0].title == "Update `protos` without a graph"
    assert d.fixes[0].detail.startswith(
        "`with torch.no_grad(): protos[c] = 0.9 * protos[c] + 0.1 * feat[y == c].mean(0)`")
    assert "`protos = protos.detach()` at the start of each step" in d.fixes[1].detail
    # NB: each fix, put in, runs to the end
    no_grad = _EMA.replace(UPDATE, "        with torch.no_grad():\n    " + UPDATE)
    run_script(torch, tmp_path / "no_grad.py", no_grad)
    detached = _EMA.replace("    feat = net(x)\n", "    feat = net(x)\n"
                            "    protos = protos.detach()\n")
    run_script(torch, tmp_path / "detached.py", detached)
