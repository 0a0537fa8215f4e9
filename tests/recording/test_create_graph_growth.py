"""``loss.backward(create_graph=True)`` at every step, for an input's gradient: on real torch
the graphs the parameters' ``.grad`` hold stay alive step after step (a reference cycle through
each parameter), and the growth is told with ``create_graph=True`` to drop, not a
``retain_graph=True`` the script never wrote."""

from __future__ import annotations

from pathlib import Path

from _markers import requires_torch

from graphviz_autograd import diagnose, record

from ._support import fix_keys, run_script, torch_of

LOOP = """\
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(12):
    x = torch.randn(16, 8, requires_grad=True)
    loss = model(x).pow(2).mean()
    opt.zero_grad(set_to_none=False)
    loss.backward(create_graph=True)
    input_grad_norm = x.grad.norm()
    opt.step()
"""


@requires_torch
def test_growth_from_backward_with_create_graph_is_told_to_drop_it(tmp_path: Path) -> None:
    with record(engine="torch") as rec:
        run_script(torch_of("torch"), tmp_path / "penalty.py", LOOP)
    growth = [d for d in diagnose(rec) if d.kind == "growth"]
    assert growth, [d.summary for d in diagnose(rec)]
    assert fix_keys(growth[0]) == ["no_create_graph"]
    assert growth[0].fixes[0].detail.startswith(
        "Line 8 (`loss.backward(create_graph=True)`) keeps the graph it runs")
