"""A part built once, before the loop, from parameters an optimizer steps (a distribution's
scale, a few-shot model's prototypes): the second backward fails at it, and retained or
detached it would keep the values it had when built. The explanation names the part (into a
distribution's attributes), says so, and does not call `retain_graph=True` useless when the
node that fails saved only its own result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, rewritten, run_script, torch_of

BACKWARD_TWICE = "Trying to backward through the graph a second time"


def _fit_normal(torch: Any, retain: bool = False, inside: bool = False) -> Any:
    torch.manual_seed(0)
    mu = torch.zeros(2, requires_grad=True)
    log_sigma = torch.zeros(2, requires_grad=True)
    opt = torch.optim.Adam([mu, log_sigma], lr=0.1)
    data = torch.randn(100, 2) * 2 + 1
    dist = torch.distributions.Normal(mu, log_sigma.exp())
    for _ in range(3):
        if inside:
            dist = torch.distributions.Normal(mu, log_sigma.exp())
        opt.zero_grad()
        nll = -dist.log_prob(data).mean()
        nll.backward(retain_graph=retain)
        opt.step()
    return dist.scale


def _prototypes(torch: Any) -> None:
    torch.manual_seed(0)
    net = torch.nn.Linear(6, 3)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    prototypes = net(torch.randn(5, 6)).mean(0)
    for _ in range(3):
        loss = ((net(torch.randn(8, 6)) - prototypes) ** 2).sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


@ON_BOTH_ENGINES
def test_a_distribution_built_before_the_loop_is_named_and_told_stale(engine: str) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        _fit_normal(torch)
    (d,) = [d for d in diagnose(rec) if d.kind == "freed"]
    assert d.node_name == "ExpBackward0"
    assert d.built_by["labels"] == ["dist.scale"]
    assert "The optimizer's steps change `log_sigma`, but `dist.scale` was computed from it " \
        "once, before them: retained or detached, it keeps the old values" in d.summary
    # NB: the exp saved its own result, not `log_sigma`: a retained graph runs after the step
    assert "would not help" not in d.summary
    assert fix_keys(d) == ["recompute", "detach", "retain_graph"]


@ON_BOTH_ENGINES
def test_the_retained_graph_runs_and_keeps_the_old_scale(engine: str) -> None:
    torch = torch_of(engine)
    scale = _fit_normal(torch, retain=True)
    assert scale.tolist() == [1.0, 1.0]
    moved = _fit_normal(torch, inside=True)
    assert moved.tolist() != [1.0, 1.0]


@ON_BOTH_ENGINES
def test_prototypes_built_once_are_told_stale(engine: str) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        _prototypes(torch)
    (d,) = [d for d in diagnose(rec) if d.kind == "freed"]
    assert "The optimizer's steps change `net.weight`, `net.bias`, but `prototypes` was " \
        "computed from them once" in d.summary
    assert fix_keys(d)[0] == "recompute"


def _positions(torch: Any, in_forward: bool) -> None:
    nn = torch.nn

    class Model(nn.Module):
        def __init__(self, T: int = 6, d: int = 4) -> None:
            super().__init__()
            self.pos = nn.Embedding(T, d)
            self.proj = nn.Linear(d, 1)
            self.T = T
            if not in_forward:
                self.pe = self.pos(torch.arange(T))

        def forward(self, x: Any) -> Any:
            pe = self.pos(torch.arange(self.T)) if in_forward else self.pe
            return self.proj(x + pe).squeeze(-1)

    torch.manual_seed(0)
    model = Model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = model(torch.randn(2, 6, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


@ON_BOTH_ENGINES
def test_a_part_a_module_computes_in_init_is_to_be_computed_in_forward(engine: str) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        _positions(torch, in_forward=False)
    (d,) = [d for d in diagnose(rec) if d.kind == "freed"]
    assert d.built_by["labels"] == ["model.pe"]
    assert d.fixes[0].key == "recompute"
    assert d.fixes[0].title == "Compute `self.pe` in `Model.forward`"
    assert "`self.pe = self.pos(torch.arange(T))` runs once, when `Model` is made: move it " \
        "into `Model.forward` (as a local, `pe = ...`)" in d.fixes[0].detail
    assert "The optimizer's steps change `model.pos.weight`" in d.summary
    with record(engine=engine) as rec:
        _positions(torch, in_forward=True)
    assert len(rec.backwards) == 3 and not any(b.error for b in rec.backwards)


PPO = """\
torch.manual_seed(0)
policy = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
opt = torch.optim.Adam(policy.parameters(), lr=3e-4)
obs = torch.randn(16, 4)
dist = torch.distributions.Categorical(logits=policy(obs))
actions = dist.sample()
old_logp = dist.log_prob(actions)
adv = torch.randn(16)
for epoch in range(3):
    new_logp = torch.distributions.Categorical(logits=policy(obs)).log_prob(actions)
    ratio = torch.exp(new_logp - old_logp)
    loss = -torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@ON_BOTH_ENGINES
def test_a_value_named_as_kept_from_before_the_steps_is_detached_not_recomputed(
        engine: str, tmp_path: Path) -> None:
    """PPO's ``old_logp`` from the rollout, read by every epoch's loss: it is meant to stay the
    old values (recomputed, the ratio would be 1), so it is made without its graph."""
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match="a second time"):
        run_script(torch, tmp_path / "ppo.py", PPO)
    (d,) = diagnose(rec)
    assert "`old_logp` is named as a value kept from before the optimizer's steps" in d.summary
    assert "only recomputing it" not in d.summary
    assert fix_keys(d) == ["detach"]
    assert d.fixes[0].detail.startswith(
        "`old_logp = dist.log_prob(actions).detach()` at line 7")
    with record(engine=engine) as again:
        run_script(torch, tmp_path / "fixed.py", rewritten(PPO, d.fixes[0].detail))
    assert len(again.backwards) == 3 and diagnose(again) == []
