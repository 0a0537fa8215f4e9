"""A target bound to the prediction (``q_target = q_pred``), then written into by index: the
loss compares one tensor with itself, is 0, and trains nothing, with no error. Told with the
line that made the alias; the fix (a detached copy) runs, trains, and is told nothing."""

from __future__ import annotations

from pathlib import Path

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, run_script, torch_of

DQN = """\
F = torch.nn.functional
torch.manual_seed(0)
q_net = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
opt = torch.optim.SGD(q_net.parameters(), lr=0.1)
losses = []
for step in range(3):
    s, s2 = torch.randn(8, 4), torch.randn(8, 4)
    a, r = torch.randint(0, 2, (8,)), torch.randn(8)
    q_pred = q_net(s)
    with torch.no_grad():
        q_next = q_net(s2).max(1).values
    q_target = q_pred
    q_target[torch.arange(8), a] = r + 0.99 * q_next
    loss = F.mse_loss(q_pred, q_target)
    opt.zero_grad(); loss.backward(); opt.step()
    losses.append(loss.item())
"""


@ON_BOTH_ENGINES
def test_a_target_that_is_the_prediction_is_told_to_be_a_copy(engine: str,
                                                               tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        scope = run_script(torch, tmp_path / "dqn.py", DQN)
    assert scope["losses"] == [0.0, 0.0, 0.0]
    (d,) = diagnose(rec)
    assert d.kind == "self_compared" and d.node_name == "MseLossBackward0"
    assert d.summary.startswith(
        "Line 14 (`loss = F.mse_loss(q_pred, q_target)`) compares `q_pred` with `q_target`, "
        "and they are one tensor: line 12 (`q_target = q_pred`) makes no copy")
    assert fix_keys(d) == ["clone"]
    assert d.fixes[0].detail.startswith("`q_target = q_pred.detach().clone()` at line 12")
    with record(engine=engine) as again:
        fixed = run_script(torch, tmp_path / "fixed.py", DQN.replace(
            "    q_target = q_pred\n", "    q_target = q_pred.detach().clone()\n"))
    assert all(x > 0 for x in fixed["losses"])
    assert diagnose(again) == []
