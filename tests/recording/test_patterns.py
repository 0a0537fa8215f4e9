"""Common training-loop patterns around "backward through the graph a second time", and the
recorder's bookkeeping: memory, collected nodes, the steps of a backward, errors passed through.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import json
import re
import warnings
import weakref
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from _markers import requires_torch

import graphviz_autograd
import graphviz_autograd.recording
import graphviz_autograd.torch as torch
from graphviz_autograd import diagnose, record

from ._support import (
    ON_BOTH_ENGINES,
    after,
    before,
    fix_keys,
    here,
    is_accumulate,
    only_labelled,
    reachable,
    rewritten,
    run_script,
    torch_of,
)

BACKWARD_TWICE = "Trying to backward through the graph a second time"
INPLACE = "one of the variables needed for gradient computation has been modified by an inplace"


def _real_torch() -> ModuleType:
    return importlib.import_module("torch")


# -- RNN hidden state carried over without detach ------------------------------------------------
def _rnn(detach: bool, steps: int = 3) -> tuple[Any, list[int]]:
    """An RNN loop with one backward per step; returns the recording and the failing steps."""
    torch.manual_seed(0)
    failed: list[int] = []
    with record() as rec:
        W_x = torch.randn(3, 4, requires_grad=True)
        W_h = torch.randn(4, 4, requires_grad=True)
        h = torch.zeros(1, 4)
        for step in range(steps):
            x = torch.randn(1, 3)
            if detach:
                h = h.detach()
            h = torch.tanh(x @ W_x + h @ W_h)
            loss = h.pow(2).sum()
            try:
                loss.backward()
            except RuntimeError as e:
                assert str(e).startswith(BACKWARD_TWICE)
                failed.append(step)
                break
    return rec, failed


def test_rnn_hidden_state_not_detached_fails_at_step_1() -> None:
    rec, failed = _rnn(detach=False)
    assert failed == [1]
    s = before(rec, 2)
    failing = rec.backwards[1].failed_at
    assert failing is not None
    n = s.node(failing)
    # the failing node is step 0's tanh: made before backward #1, run and freed by it
    assert n.name == "TanhBackward0"
    assert n.created_by == 0 and n.executed_by == [1]
    assert all(b.state == "freed" and b.released_by == 1 for b in n.saved)
    assert n.shared
    assert s.prediction is not None and s.prediction.will_fail and s.prediction.node == failing
    (d,) = diagnose(rec)
    assert d.node == failing and d.freed_by == [1]
    keys = fix_keys(d)
    assert "detach" in keys
    assert keys.index("detach") < keys.index("retain_graph")


def test_rnn_diagnosis_names_the_hidden_state_to_detach() -> None:
    # the failing tensor was `h` when it was made (and in the snapshot before backward #1);
    # the loop has rebound `h` since, but the fix to give is `h.detach()`
    rec, _ = _rnn(detach=False)
    (d,) = diagnose(rec)
    detach = next(f for f in d.fixes if f.key == "detach")
    assert "h.detach()" in detach.title + detach.detail


def test_a_recurrence_is_told_to_detach_first() -> None:
    """``h = tanh(x @ W_x + h @ W_h)`` feeds ``h`` back into the line that builds it:
    recomputing would rebuild every earlier step, so detaching comes first; an LSTM cell's
    ``state = cell(x, state)`` too, where the state is a tuple."""
    rec, _ = _rnn(detach=False)
    (d,) = diagnose(rec)
    assert fix_keys(d)[:2] == ["detach", "recompute"]
    assert "`h` is fed back" in d.summary
    assert d.fixes[0].title == "Detach `h` before feeding it back"
    # recomputing a recurrence is starting it afresh: the line that set it, in the loop
    assert d.fixes[1].title == "Or start `h` afresh at each step"
    assert d.fixes[1].detail.startswith("`h = torch.zeros(1, 4)` at the start of each step, "
                                        "not once before the loop")
    torch.manual_seed(0)
    with record() as rec:
        cell = torch.nn.LSTMCell(3, 2)
        state = None
        for _ in range(2):
            state = cell(torch.randn(4, 3), state)
            with contextlib.suppress(RuntimeError):
                state[0].sum().backward()
    (d,) = diagnose(rec)
    assert fix_keys(d)[0] == "detach" and "each tensor in it" in d.fixes[0].detail
    assert d.fixes[0].title == "Detach `state` before feeding it back"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_an_lstm_layers_state_is_told_to_detach_as_a_tuple(dtype: str) -> None:
    """``out, state = lstm(x, state)``: the node that fails is named by ``out`` (the fused
    layer's output in float32), but ``state`` is what the line feeds back; and the final state's
    two tensors (roots, but no losses) get no diagnosis of their own."""
    torch.manual_seed(0)
    with record() as rec:
        lstm = torch.nn.LSTM(4, 3).to(getattr(torch, dtype))
        state = None
        for _ in range(2):
            x = torch.randn(5, 2, 4, dtype=getattr(torch, dtype))
            out, state = lstm(x, state)
            loss = out.pow(2).mean()
            with contextlib.suppress(RuntimeError):
                loss.backward()
    (d,) = diagnose(rec)
    assert d.backward == 2
    assert "`state` is fed back" in d.summary
    assert d.fixes[0].title == "Detach `state` before feeding it back"
    assert "state = tuple(s.detach() for s in state)" in d.fixes[0].detail
    assert fix_keys(d)[:2] == ["detach", "recompute"]
    assert d.fixes[1].detail.startswith("`state = None` at the start of each step")


@ON_BOTH_ENGINES
def test_a_running_statistic_is_told_to_update_without_a_graph(engine: str) -> None:
    """A hand-written norm layer keeps ``self.running_mean`` from step to step, computed with
    gradients on: each step's graph reaches into the previous. A statistic needs no gradient:
    the first fix is its line under ``no_grad``, not starting it afresh (which would lose it);
    ``retain_graph`` is said to make every backward run all the earlier steps again."""
    t = torch_of(engine)

    class Norm(t.nn.Module):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            super().__init__()
            self.scale = t.nn.Parameter(t.ones(3))
            self.running_mean = t.zeros(3)

        def forward(self, x: Any) -> Any:
            mean = x.mean(0)
            self.running_mean = 0.9 * self.running_mean + 0.1 * mean
            return (x - self.running_mean) * self.scale

    t.manual_seed(0)
    norm, layer = Norm(), t.nn.Linear(4, 3)
    with record(engine=engine) as rec:
        for _ in range(2):
            loss = norm(layer(t.randn(5, 4))).pow(2).mean()
            with contextlib.suppress(RuntimeError):
                loss.backward()
    (d,) = diagnose(rec)
    assert "`self.running_mean` is fed back" in d.summary
    assert fix_keys(d) == ["no_grad", "detach", "retain_graph"]
    assert d.fixes[0].detail.startswith("`with torch.no_grad(): self.running_mean = 0.9 * "
                                        "self.running_mean + 0.1 * mean`")
    assert "every backward would run through all the earlier steps again" in \
        d.fixes[2].detail


def test_a_kept_intermediate_is_told_to_recompute_first() -> None:
    """No recurrence (``y`` is built once, outside the loop): recomputing comes first."""
    with record() as rec:
        t = torch.ones(3, requires_grad=True)
        a = torch.ones(3, requires_grad=True)
        y = t * a
        for _ in range(2):
            z = (y * 2).sum()
            with contextlib.suppress(RuntimeError):
                z.backward()
    (d,) = diagnose(rec)
    assert fix_keys(d)[:2] == ["recompute", "detach"]
    assert "fed back" not in d.summary


@ON_BOTH_ENGINES
def test_a_throwaway_name_is_passed_over_for_the_one_kept(engine: str) -> None:
    """``out, _ = gru(x)``, ``out`` kept and reused: the freed node inside the GRU is nearer to
    ``_`` (the final hidden state, thrown away) than to ``out``; the explanation names ``out``."""
    t = torch_of(engine)
    t.manual_seed(0)
    with record(engine=engine) as rec:
        gru = t.nn.GRU(3, 4, batch_first=True)
        out, _ = gru(t.randn(2, 5, 3))
        out.pow(2).mean().backward()
        with contextlib.suppress(RuntimeError):
            out.sum().backward()
    (d,) = diagnose(rec)
    assert "in the graph of `out`" in d.summary
    # NB: two losses of one step, neither named: each is what its line backwards
    assert d.fixes[0].title == "Sum the losses and backward once"
    assert "`(out.pow(2).mean() + out.sum()).backward()`" in d.fixes[0].detail


def _gan_step(engine: str, clear: bool) -> Any:
    """A GAN's step with the generator's output ``fake`` in both losses: the discriminator's
    backward runs through the generator and frees it; the generator's then fails. ``clear``:
    the generator's gradients are cleared between (``zero_grad()``), as a GAN does."""
    t = torch_of(engine)
    t.manual_seed(0)
    G = t.nn.Sequential(t.nn.Linear(4, 8), t.nn.ReLU(), t.nn.Linear(8, 2))
    D = t.nn.Sequential(t.nn.Linear(2, 8), t.nn.ReLU(), t.nn.Linear(8, 1))
    opt_g = t.optim.SGD(G.parameters(), lr=0.1)
    opt_d = t.optim.SGD(D.parameters(), lr=0.1)
    real = t.randn(16, 2)
    with record(engine=engine) as rec, contextlib.suppress(RuntimeError):
        for _ in range(2):
            fake = G(t.randn(16, 4))
            d_loss = D(real).mean() - D(fake).mean()
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            g_loss = -D(fake).mean()
            if clear:
                opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
    return rec


@ON_BOTH_ENGINES
def test_a_gan_reusing_the_generators_output_is_told_to_detach_it_in_the_first_loss(
        engine: str) -> None:
    """The discriminator's backward ran through ``fake`` into the generator, whose gradients
    ``zero_grad()`` then cleared: that work was thrown away. The fix is ``fake.detach()`` in
    the discriminator's loss, its line rewritten; not rebuilding ``fake`` "inside the loop"
    (it is built there already)."""
    (d,) = diagnose(_gan_step(engine, clear=True))
    assert d.kind == "freed" and d.backward == 2
    assert "two losses of one step that share `fake` and the graph that builds it" in d.summary
    assert "through `fake` into `G.0.weight`, `G.0.bias`" in d.summary
    assert "they were cleared (`.grad` is None) before this backward" in d.summary
    assert [f.key for f in d.fixes] == ["detach", "recompute", "retain_graph"]
    assert d.fixes[0].title == "Use `fake.detach()` in `d_loss`"
    assert "`d_loss = D(real).mean() - D(fake.detach()).mean()`" in d.fixes[0].detail
    assert "Run `fake = G(t.randn(16, 4))` again before line" in d.fixes[1].detail


@ON_BOTH_ENGINES
def test_a_gans_fake_is_told_to_be_detached_by_its_name_alone(engine: str) -> None:
    """The same step with the generator's gradients kept (nothing says they were thrown away):
    a generator's output, by its name, is still detached in the discriminator's loss first,
    then the sum (two heads on one trunk, where both losses train it, get the sum first)."""
    (d,) = diagnose(_gan_step(engine, clear=False))
    assert "were cleared" not in d.summary
    assert [f.key for f in d.fixes] == ["detach", "sum_losses", "retain_graph"]
    assert "as a discriminator's loss must not train the generator" in d.fixes[0].detail
    assert "`(d_loss + g_loss).backward()`" in d.fixes[1].detail


@ON_BOTH_ENGINES
def test_an_actor_critic_is_told_to_detach_the_advantage_in_the_actors_loss(engine: str
                                                                            ) -> None:
    """Both losses built, then two backwards: the shared part is entered from the actor's loss
    at ``advantage`` (not at ``value``, the failing node's name, which the critic's loss needs
    whole): ``advantage.detach()`` in the actor's line comes first, as the actor's loss must
    not train the critic."""
    t = torch_of(engine)
    t.manual_seed(0)
    actor, critic = t.nn.Linear(4, 2), t.nn.Linear(4, 1)
    with record(engine=engine) as rec, contextlib.suppress(RuntimeError):
        state = t.randn(8, 4)
        log_prob = t.log_softmax(actor(state), dim=-1)[:, 0]
        value = critic(state).squeeze(-1)
        advantage = t.randn(8) - value
        actor_loss = -(log_prob * advantage).mean()
        critic_loss = advantage.pow(2).mean()
        actor_loss.backward()
        critic_loss.backward()
    (d,) = diagnose(rec)
    assert [f.key for f in d.fixes] == ["detach", "sum_losses", "retain_graph"]
    assert d.fixes[0].title == "Use `advantage.detach()` in `actor_loss`"
    assert "`actor_loss = -(log_prob * advantage.detach()).mean()`" in d.fixes[0].detail
    assert "`(actor_loss + critic_loss).backward()`" in d.fixes[1].detail


_SHARED_TRUNK = """\
F = torch.nn.functional
torch.manual_seed(0)
trunk, actor, critic = torch.nn.Linear(4, 32), torch.nn.Linear(32, 2), torch.nn.Linear(32, 1)
opt_a = torch.optim.Adam(list(trunk.parameters()) + list(actor.parameters()), lr=1e-3)
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3)
for step in range(3):
    s, ret = torch.randn(16, 4), torch.randn(16)
    z = torch.relu(trunk(s))
    log_prob = F.log_softmax(actor(z), dim=-1)[:, 0]
    value = critic(z).squeeze(-1)
    adv = ret - value
    actor_loss = -(log_prob * adv).mean()
    critic_loss = adv.pow(2).mean()
    opt_a.zero_grad(); actor_loss.backward(); opt_a.step()
    opt_c.zero_grad(); critic_loss.backward(); opt_c.step()
"""


@ON_BOTH_ENGINES
def test_an_actor_critic_on_a_shared_trunk_is_not_told_a_detach_that_leaves_the_trunk_shared(
        engine: str, tmp_path: Path) -> None:
    """Two optimizers, an actor and a critic on one trunk: the actor's loss enters the shared
    part at the advantage and at the trunk's output, so ``value.detach()`` in the actor's loss
    alone still fails (run here). The fixes given, summing the losses (with the detach) and
    ``retain_graph=True``, each run to the end."""
    t = torch_of(engine)
    text = _SHARED_TRUNK
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        run_script(t, tmp_path / "a2c.py", text)
    (d,) = diagnose(rec)
    assert "Backward #1 enters that part at `adv` and `z`" in d.summary
    assert [f.key for f in d.fixes] == ["sum_losses", "retain_graph"]
    assert "Where `actor_loss` reads `value`, read `value.detach()`" in d.fixes[0].detail
    assert "after every optimizer's `zero_grad()`" in d.fixes[0].detail
    lines = text.splitlines()
    one_detach = text.replace("    actor_loss = -(log_prob * adv).mean()",
                              "    actor_loss = -(log_prob * (ret - value.detach())).mean()")
    with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        run_script(t, tmp_path / "one_detach.py", one_detach)
    summed = "\n".join([
        *lines[:-4],
        "    actor_loss = -(log_prob * (ret - value.detach())).mean()",
        "    critic_loss = adv.pow(2).mean()",
        "    opt_a.zero_grad(); opt_c.zero_grad()",
        "    (actor_loss + critic_loss).backward()",
        "    opt_a.step(); opt_c.step()"]) + "\n"
    run_script(t, tmp_path / "summed.py", summed)
    run_script(t, tmp_path / "retained.py", text.replace("actor_loss.backward()",
                                                        "actor_loss.backward(retain_graph=True)"))


@ON_BOTH_ENGINES
@pytest.mark.parametrize("stepped", [True, False])
def test_features_of_a_backbone_no_step_trains_are_told_to_be_built_without_a_graph(
        engine: str, stepped: bool) -> None:
    """``features = backbone(x)`` once, a head trained on it in a loop: the second backward
    fails. The backbone's parameters got gradients that no step used (the head's changed, they
    did not), so building ``features`` without a graph comes first, the line rewritten. With
    no step at all, nothing tells: rebuilding it in the loop stays first."""
    t = torch_of(engine)
    t.manual_seed(0)
    backbone, head = t.nn.Sequential(t.nn.Linear(10, 8), t.nn.ReLU()), t.nn.Linear(8, 2)
    x, y = t.randn(16, 10), t.randint(0, 2, (16,))
    opt = t.optim.SGD(head.parameters(), lr=0.1)
    with record(engine=engine) as rec, contextlib.suppress(RuntimeError):
        features = backbone(x)
        for _ in range(2):
            opt.zero_grad()
            loss = t.nn.functional.cross_entropy(head(features), y)
            loss.backward()
            if stepped:
                opt.step()
    (d,) = diagnose(rec)
    if not stepped:
        assert d.fixes[0].key == "recompute" and "no step used them" not in d.summary
        return
    assert ("sent gradients through `features` into `backbone.0.weight`, `backbone.0.bias`, "
            "but no step used them: `head.weight`, `head.bias` changed after it") in d.summary
    assert [f.key for f in d.fixes] == ["detach", "recompute", "retain_graph"]
    assert d.fixes[0].detail.startswith("`features = backbone(x).detach()`")


@ON_BOTH_ENGINES
def test_a_part_built_outside_the_loop_of_two_losses_is_still_to_recompute(engine: str
                                                                            ) -> None:
    """Two backward lines in a loop, the part they share built once before it: summing the
    losses would fail again at the next pass; rebuilding it in the loop comes first."""
    t = torch_of(engine)
    with record(engine=engine) as rec:
        a = t.randn(3, 3, requires_grad=True)
        y = t.tanh(t.ones(3) @ a)
        with contextlib.suppress(RuntimeError):
            for _ in range(2):
                z1 = (y * 2).sum()
                z1.backward()
                z2 = (y * 3).sum()
                z2.backward()
    (d,) = diagnose(rec)
    assert "two losses of one step" not in d.summary
    assert d.fixes[0].key == "recompute"


@ON_BOTH_ENGINES
def test_a_layer_behind_a_failed_backward_is_not_called_unreached(engine: str) -> None:
    """Two heads on one encoder, each loss backwarded: the second backward fails, so its head
    got no gradient, but a backward did try to reach it: only the failure is explained."""
    t = torch_of(engine)
    t.manual_seed(0)
    enc, head1, head2 = t.nn.Linear(4, 8), t.nn.Linear(8, 1), t.nn.Linear(8, 1)
    x = t.randn(16, 4)
    with record(engine=engine) as rec, contextlib.suppress(RuntimeError):
        h = t.relu(enc(x))
        loss1 = head1(h).pow(2).mean()
        loss1.backward()
        loss2 = head2(h).pow(2).mean()
        loss2.backward()
    assert [d.kind for d in diagnose(rec)] == ["freed"]
    (d,) = diagnose(rec)
    assert [f.key for f in d.fixes] == ["sum_losses", "retain_graph", "detach"]
    assert "`loss1 = head1(h.detach()).pow(2).mean()`" in d.fixes[2].detail


@ON_BOTH_ENGINES
@pytest.mark.parametrize("how", ["no_grad", "detach", "item"])
def test_a_loss_with_no_graph_is_explained(engine: str, how: str) -> None:
    """``loss.backward()`` on a tensor that does not require grad fails before any node runs:
    no saved buffer is to blame; the diagnosis names the tensor and says how to get a graph."""
    t = torch_of(engine)
    with record(engine=engine) as rec:
        w = t.ones(3, requires_grad=True)
        if how == "no_grad":
            with t.no_grad():
                loss = (w * 2).sum()
        elif how == "detach":
            loss = (w * 2).sum().detach()
        else:
            loss = t.tensor((w * 2).sum().item())
        with pytest.raises(RuntimeError, match="does not require grad") as raised:
            loss.backward()
    (d,) = diagnose(rec)
    assert d.backward == 1 and d.kind == "other" and d.node == ""
    assert "failed before running any node: `loss` does not require grad" in d.summary
    # NB: the line that made it so is one of three branches, none of whose ops is alive to
    # tell which ran: the general fixes (a line found in straight code: test_cut_graphs.py)
    assert fix_keys(d) == ["grad_enabled", "requires_grad"]
    assert d.fixes[0].title == "Compute `loss` with gradients on"
    assert rec.snapshots[-1].kind == "backward_failed"
    assert rec.snapshots[-1].error == {"type": "RuntimeError", "message": str(raised.value)}


@ON_BOTH_ENGINES
def test_a_backward_through_gradients_made_without_create_graph_is_explained(
        engine: str) -> None:
    """``grads = autograd.grad(loss, w)`` then ``grads[0].backward()``: the gradients have no
    graph; the other live graph (``loss``'s, freed) is not what failed."""
    t = torch_of(engine)
    with record(engine=engine) as rec:
        w = t.ones(3, requires_grad=True)
        z = t.ones(3, requires_grad=True)
        loss = (w * z).sum()
        grads = t.autograd.grad(loss, w)
        with pytest.raises(RuntimeError, match="does not require grad"):
            grads[0].backward()
    before_second = rec.snapshots[rec.backwards[1].snapshot_before]
    assert before_second.prediction is not None and not before_second.prediction.will_fail
    (d,) = diagnose(rec)
    assert d.kind == "other" and "`grads[0]` does not require grad: it was made by backward #1" \
        in d.summary
    assert fix_keys(d) == ["create_graph"]


@ON_BOTH_ENGINES
def test_a_backward_from_many_values_is_explained(engine: str) -> None:
    t = torch_of(engine)
    with record(engine=engine) as rec:
        w = t.ones(3, requires_grad=True)
        out = w * 2
        with pytest.raises(RuntimeError, match="only for scalar outputs"):
            out.backward()
    (d,) = diagnose(rec)
    assert "`out` holds more than one value" in d.summary
    assert fix_keys(d) == ["scalar_loss"]
    assert "`out.sum().backward()`" in d.fixes[0].detail


@ON_BOTH_ENGINES
def test_a_loss_inside_the_loss_already_backwarded_is_told_to_drop_its_backward(
        engine: str) -> None:
    """``loss = main + 0.1 * penalty``; ``loss.backward()`` then ``penalty.backward()``: the
    penalty's graph was run (and freed) as part of ``loss``; summing again would count it
    twice, so the fix is to drop the second backward."""
    t = torch_of(engine)
    with record(engine=engine) as rec:
        w = t.ones(3, requires_grad=True)
        penalty = (w * w).sum()
        loss = w.exp().sum() + 0.1 * penalty
        loss.backward()
        with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
            penalty.backward()
    (d,) = diagnose(rec)
    assert "`penalty` is itself part of the graph of `loss`" in d.summary
    assert "reached from more than one loss" not in d.summary
    assert fix_keys(d) == ["already_included", "retain_graph"]


def _carried(t: Any, how: str, steps: int = 8) -> None:
    """A loop that carries something from step to step: a hidden state, with
    ``retain_graph=True`` to get past the error (``"hidden"``); a running total of the losses
    (``"total"``); or, flat, the state detached (``"detached"``)."""
    t.manual_seed(0)
    W = t.randn(4, 4, requires_grad=True)
    h = t.zeros(1, 4)
    total = 0
    for _ in range(steps):
        if how == "detached":
            h = h.detach()
        h = t.tanh(t.randn(1, 4) @ W + h)
        loss = h.pow(2).sum()
        loss.backward(retain_graph=how == "hidden")
        if how == "total":
            total += loss
            h = h.detach()


@ON_BOTH_ENGINES
@pytest.mark.parametrize("how", ["hidden", "total"])
def test_memory_that_grows_step_after_step_is_explained(engine: str, how: str) -> None:
    t = torch_of(engine)
    with record(engine=engine) as rec:
        _carried(t, how)
    # NB: (a running total is also a loss whose backward would fail: a prediction, told
    # after what was seen)
    d, *_ = diagnose(rec)
    assert [x.kind for x in diagnose(rec)] == (["growth"] if how == "hidden" else
                                               ["growth", "freed"])
    assert d.kind == "growth" and d.backward is None and not d.predicted
    assert d.summary.startswith("Memory grows with each backward: after backward #1 ")
    afters = [s for s in rec.snapshots if s.kind == "after_backward"]
    grew = [len(s.nodes) for s in afters]
    assert f"{grew[0]} graph nodes were alive, after backward #8" in d.summary
    assert f"and {grew[-1]} nodes" in d.summary
    if how == "hidden":
        assert "held by `h`" in d.summary
        assert fix_keys(d) == ["detach", "no_retain_graph"]
    else:
        assert "held by `total`" in d.summary
        assert fix_keys(d) == ["item"] and "`total += loss.item()`" in d.fixes[0].detail


@pytest.mark.parametrize("steps", [3, 8])
def test_a_flat_loop_or_a_short_one_has_no_growth_to_explain(steps: int) -> None:
    with record() as rec:
        _carried(torch, "detached", steps)
    assert diagnose(rec) == []
    with record() as short:
        _carried(torch, "hidden", 3)
    assert diagnose(short) == []


@ON_BOTH_ENGINES
def test_retain_graph_that_no_later_backward_needed_is_pointed_out(engine: str) -> None:
    """A training loop with ``loss.backward(retain_graph=True)`` out of habit: each step's
    graph is new, so what each backward kept was never used; the last backward is not judged
    (another could follow the recording)."""
    t = torch_of(engine)
    t.manual_seed(0)
    with record(engine=engine) as rec:
        m = t.nn.Linear(8, 1)
        opt = t.optim.SGD(m.parameters(), 0.1)
        for _ in range(5):
            loss = m(t.randn(16, 8)).tanh().pow(2).mean()
            opt.zero_grad()
            loss.backward(retain_graph=True)
            opt.step()
    (d,) = diagnose(rec)
    assert d.kind == "unneeded_retain" and d.backward == 1
    assert d.summary.startswith("`retain_graph=True` at line ")
    assert "was not needed: 4 backwards (#1, #2, #3, #4) kept the buffers" in d.summary
    after1 = rec.snapshots[rec.backwards[0].snapshot_after]
    kept = sum(s.nbytes for n in after1.nodes for s in n.saved if s.state == "alive")
    assert f"({kept} bytes at most)" in d.summary
    assert fix_keys(d) == ["no_retain_graph"]


def test_retain_graph_that_a_later_backward_used_is_not_pointed_out() -> None:
    with record() as rec:
        x = torch.ones(3, requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        z = (x * 3).exp().sum()
        z.backward(retain_graph=True)    # (the last: not judged)
    assert diagnose(rec) == []


def _episodes(t: Any, policy: Any, then: str | None) -> None:
    """Two episodes of REINFORCE whose ``log_probs`` list is made once, before them; ``then``
    run after each backward (a fix), or nothing (the second backward fails)."""
    log_probs: list[Any] = []
    for _ in range(2):
        for _ in range(3):
            dist = t.distributions.Categorical(logits=policy(t.randn(4)))
            log_probs.append(dist.log_prob(dist.sample()))
        loss = -t.stack(log_probs).sum()
        if then is None:
            with contextlib.suppress(RuntimeError):
                loss.backward()
        else:
            loss.backward()
            exec(then, {}, {"log_probs": log_probs, "t": t})


@ON_BOTH_ENGINES
def test_a_list_of_log_probs_never_emptied_is_told_to_start_afresh(engine: str) -> None:
    """REINFORCE with the episode's ``log_probs`` list created once, outside the loop: the
    second episode's loss stacks the first episode's entries too, whose graphs are freed."""
    t = torch_of(engine)
    t.manual_seed(0)
    policy = t.nn.Sequential(t.nn.Linear(4, 8), t.nn.ReLU(), t.nn.Linear(8, 2))
    with record(engine=engine) as rec:
        _episodes(t, policy, None)
    d = diagnose(rec)[0]
    assert d.backward == 2 and "in the graph of `log_probs[" in d.summary
    # NB: the entries' line runs at every step already: no "recompute it inside the loop"
    assert fix_keys(d) == ["fresh_list", "detach", "retain_graph"]
    assert "keeps every earlier entry" in d.fixes[2].detail
    assert d.fixes[0].title == "Start `log_probs` afresh for each backward"
    detach = re.search(r"`(log_probs\[:\] = .*?)`", d.fixes[1].detail)
    assert detach is not None
    # NB: both fixes, applied after each backward, run
    for then in ("log_probs.clear()", detach.group(1)):
        _episodes(t, policy, then)


@ON_BOTH_ENGINES
def test_a_state_kept_on_the_module_is_told_to_detach(engine: str) -> None:
    """``out, self.hidden = self.lstm(x, self.hidden)`` in a module's forward: the state fed
    back is an attribute; detaching it comes first (not the loss, which is all that names the
    failing node)."""
    t = torch_of(engine)
    t.manual_seed(0)

    class Model(t.nn.Module):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            super().__init__()
            self.lstm = t.nn.LSTM(3, 5, batch_first=True)
            self.hidden = None

        def forward(self, x: Any) -> Any:
            out, self.hidden = self.lstm(x, self.hidden)
            return out[:, -1]

    with record(engine=engine) as rec:
        model = Model()
        for _ in range(2):
            loss = model(t.randn(2, 4, 3)).pow(2).mean()
            with contextlib.suppress(RuntimeError):
                loss.backward()
    (d,) = diagnose(rec)
    # NB: the state the module keeps as a plain attribute is named, one level into its tuple
    labels = {label for n in before(rec, 2).nodes for label in n.labels}
    assert {"model.hidden[0]", "model.hidden[1]"} <= labels
    assert "in the graph of `model.hidden[0]`" in d.summary
    assert "`self.hidden` is fed back into the line that builds it" in d.summary
    assert d.fixes[0].title == "Detach `self.hidden` before feeding it back"
    assert fix_keys(d) == ["detach", "recompute", "retain_graph"]


@ON_BOTH_ENGINES
def test_two_grad_calls_for_two_inputs_are_told_to_make_one(engine: str) -> None:
    t = torch_of(engine)
    with record(engine=engine) as rec:
        x = t.ones(3, requires_grad=True)
        w = t.ones(3, requires_grad=True)
        y = (x * w).sin().sum()
        gx = t.autograd.grad(y, x)
        with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
            gw = t.autograd.grad(y, w)  # noqa: F841
    assert gx
    (d,) = diagnose(rec)
    assert fix_keys(d) == ["one_grad_call", "backward_once", "retain_graph"]
    assert "`gx, gw = t.autograd.grad(y, (x, w))`" in d.fixes[0].detail


@pytest.mark.parametrize(("how", "advice"), [
    ("augmented", "Write `y = y * 2` (a new tensor) instead of `y *= 2`"),
    ("item", "Write into a copy instead of into `y` (`y = y.clone()` first"),
    # NB: a call alone on its line: its out-of-place form is assigned back
    ("inplace", "Write `y = F.relu(y)` (a new tensor) instead of `F.relu(y, inplace=True)`"),
    ("positional", "Write `y = F.leaky_relu(y, 0.1)` (a new tensor) instead of "
                   "`F.leaky_relu(y, 0.1, True)`"),
    ("method", "Write `y = y.clamp(0, 1)` (a new tensor) instead of `y.clamp_(0, 1)`"),
    # NB: a layer the line calls, built with `inplace=True` above: that line rewritten
    ("module", "Write `relu = torch.nn.Sequential(torch.nn.ReLU())` at line "),
])
def test_the_out_of_place_fix_rewrites_the_line_that_changed_the_tensor(how: str,
                                                                         advice: str) -> None:
    F = torch.nn.functional
    relu = torch.nn.Sequential(torch.nn.ReLU(inplace=True))
    with record() as rec:
        x = torch.ones(3, requires_grad=True)
        y = x.sigmoid()
        if how == "augmented":
            y *= 2
        elif how == "item":
            y[0] = 5
        elif how == "inplace":
            F.relu(y, inplace=True)
        elif how == "positional":
            F.leaky_relu(y, 0.1, True)
        elif how == "method":
            y.clamp_(0, 1)
        else:
            relu(y)
        with pytest.raises(RuntimeError, match=INPLACE):
            y.sum().backward()
    (d,) = diagnose(rec)
    assert d.kind == "modified" and fix_keys(d) == ["out_of_place"]
    assert d.fixes[0].detail.startswith(advice)


@ON_BOTH_ENGINES
def test_a_graph_freed_before_the_recording_began_is_explained(engine: str) -> None:
    """A notebook: one cell builds ``loss`` and backwards; the next, recorded, backwards it
    again. The freeing backward was not seen; the fixes still apply."""
    t = torch_of(engine)
    w = t.ones(3, requires_grad=True)
    loss = (w.exp() * 2).sum()
    loss.backward()
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        loss.backward()
    (d,) = diagnose(rec)
    assert "freed by an earlier backward. That backward ran before the recording began" in \
        d.summary
    assert fix_keys(d) == ["recompute", "retain_graph"]
    assert d.fixes[0].title == "Build `loss` again before this backward"
    snap = rec.snapshots[0]
    freed = [b for n in snap.nodes for b in n.saved if b.state == "freed"]
    assert freed
    if engine == "native":
        assert f"({sum(b.nbytes for b in freed)} bytes here)" in d.fixes[1].detail
    else:
        # NB: PyTorch keeps no shape of a value freed before the recording saw its node
        assert {b.dtype for b in freed} == {"unknown"} and "here)" not in d.fixes[1].detail
        assert "shape unknown" in snap.to_dot()


@ON_BOTH_ENGINES
def test_a_loss_built_over_a_tensor_an_earlier_cell_backwarded_names_that_tensor(
        engine: str) -> None:
    """One cell builds ``h`` and backwards through it; the next, recorded, builds a new loss
    from ``h``: ``h`` (the earlier cell's) is what to build again, not the new loss."""
    t = torch_of(engine)
    x = t.randn(3, requires_grad=True)
    h = (x * 2).exp()
    h.sum().backward()
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        loss2 = (h * 3).sum()
        loss2.backward()
    (d,) = diagnose(rec)
    assert "That backward ran before the recording began" in d.summary
    assert d.fixes[0].title == "Build `h` again before this backward"


def test_rnn_hidden_state_detached_works() -> None:
    rec, failed = _rnn(detach=True, steps=4)
    assert failed == []
    assert all(b.error is None for b in rec.backwards)
    assert diagnose(rec) == []


# -- total_loss += loss, one backward at the end ------------------------------------------------
def test_total_loss_accumulated_then_one_backward() -> None:
    nn = torch.nn
    torch.manual_seed(0)
    sizes = []
    with record() as rec:
        model = nn.Linear(3, 1)
        criterion = nn.MSELoss()
        total_loss = 0
        for i in range(4):
            x = torch.randn(2, 3)
            target = torch.randn(2, 1)
            loss = criterion(model(x), target)
            total_loss += loss
            sizes.append(rec.snapshot(f"iteration {i}").memory["saved_bytes_alive"])
        total_loss.backward()

    assert len(rec.backwards) == 1 and rec.backwards[0].error is None
    assert model.weight.grad is not None
    # total_loss's graph holds on to every iteration: it grows
    assert all(b > a for a, b in itertools.pairwise(sizes))
    s = before(rec, 1)
    root = only_labelled(s, "total_loss")
    assert rec.backwards[0].roots == [root.id]
    mse = [n for n in reachable(s, root.id) if n.name == "MseLossBackward0"]
    assert len(mse) == 4
    assert all(n.roots == [root.id] for n in mse)
    assert s.prediction is not None and not s.prediction.will_fail
    done = after(rec, 1)
    assert all(done.node(n.id).executed_by == [1] for n in mse)
    assert done.memory["saved_bytes_alive"] == 0
    assert done.memory["saved_bytes_freed"] > 0


# -- GAN: the generator's output reused without detach --------------------------------------------
def _gan(torch: ModuleType, detach: bool) -> BaseException | None:
    """One discriminator step then one generator step over the same `fake`."""
    nn = torch.nn
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2), nn.Tanh())
    D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())
    bce = nn.BCELoss()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    real = torch.randn(16, 2)
    z = torch.randn(16, 4)
    ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)

    fake = G(z)
    # discriminator step
    opt_d.zero_grad()
    d_loss = bce(D(real), ones) + bce(D(fake.detach() if detach else fake), zeros)
    d_loss.backward()
    opt_d.step()
    # generator step
    opt_g.zero_grad()
    g_loss = bce(D(fake), ones)
    try:
        g_loss.backward()
    except RuntimeError as e:
        return e
    opt_g.step()
    return None


@requires_torch
def test_gan_without_detach_fails_as_in_real_torch() -> None:
    real_error = _gan(_real_torch(), detach=False)
    with record() as rec:
        error = _gan(torch, detach=False)
    # PyTorch 2.13: the generator's backward fails (the discriminator's freed G's buffers)
    assert real_error is not None and error is not None
    assert type(error) is type(real_error) and str(error) == str(real_error)
    assert str(error).startswith(BACKWARD_TWICE)
    assert len(rec.backwards) == 2
    s = before(rec, 2)
    fake = only_labelled(s, "fake")
    assert fake.name == "TanhBackward0"
    assert rec.backwards[1].failed_at == fake.id
    assert all(b.state == "freed" and b.released_by == 1 for b in fake.saved)
    assert fake.shared
    assert s.prediction is not None and s.prediction.node == fake.id
    (d,) = diagnose(rec)
    assert d.node == fake.id and "fake" in d.built_by["labels"]
    assert "detach" in fix_keys(d)
    detach = next(f for f in d.fixes if f.key == "detach")
    assert "fake.detach()" in detach.title + detach.detail


@requires_torch
def test_gan_with_detach_works_as_in_real_torch() -> None:
    assert _gan(_real_torch(), detach=True) is None
    with record() as rec:
        assert _gan(torch, detach=True) is None
    assert [b.error for b in rec.backwards] == [None, None]
    # the discriminator's backward never reached G
    s = after(rec, 1)
    fake = only_labelled(s, "fake")
    assert fake.executed_by == []
    assert all(b.state == "alive" for b in fake.saved)
    assert after(rec, 2).node(fake.id).executed_by == [2]
    assert diagnose(rec) == []


# -- optimizer.step() between two backwards of one graph -----------------------------------------
def test_optimizer_step_between_two_backwards_is_a_version_error() -> None:
    nn = torch.nn
    torch.manual_seed(0)
    with record() as rec:
        m1 = nn.Linear(3, 4)
        m2 = nn.Linear(4, 1)
        opt = torch.optim.SGD(list(m1.parameters()) + list(m2.parameters()), lr=0.1)
        x = torch.randn(5, 3)
        out = m2(torch.relu(m1(x)))
        loss1 = out.mean()
        loss2 = (out ** 2).mean()
        loss1.backward(retain_graph=True)
        opt.step()
        with pytest.raises(RuntimeError, match=INPLACE) as info:
            loss2.backward()

    failed = after(rec, 2)
    assert failed.kind == "backward_failed"
    assert failed.error == {"type": "RuntimeError", "message": str(info.value)}
    s = before(rec, 2)
    out_node = only_labelled(s, "out")
    assert out_node.name == "AddmmBackward0"
    assert rec.backwards[1].failed_at == out_node.id
    assert [b.state for b in out_node.saved if b.name == "mat2"] == ["modified"]
    assert s.prediction is not None and s.prediction.will_fail
    assert s.prediction.node == out_node.id
    (d,) = diagnose(rec)
    assert d.kind == "modified" and d.node == out_node.id
    assert d.buffers == ["mat2"]
    assert fix_keys(d) == ["backward_before_step"]
    assert "opt.step()" in d.summary or "step" in d.summary


# -- two heads on a shared trunk, two backwards ----------------------------------------------------
def test_two_heads_shared_trunk_without_retain() -> None:
    nn = torch.nn
    torch.manual_seed(0)
    with record() as rec:
        trunk = nn.Sequential(nn.Linear(6, 8), nn.Tanh())
        head1, head2 = nn.Linear(8, 1), nn.Linear(8, 1)
        x = torch.randn(4, 6)
        features = trunk(x)
        loss1 = head1(features).pow(2).mean()
        loss2 = head2(features).abs().mean()
        loss1.backward()
        with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
            loss2.backward()
        # the fix: one backward over the summed losses
        features = trunk(x)
        loss1 = head1(features).pow(2).mean()
        loss2 = head2(features).abs().mean()
        (loss1 + loss2).backward()

    assert [b.error is None for b in rec.backwards] == [True, False, True]
    s = before(rec, 2)
    trunk_top = s.node(rec.backwards[1].failed_at)   # type: ignore[arg-type]
    assert trunk_top.name == "TanhBackward0"
    assert len(trunk_top.roots) == 2 and trunk_top.shared
    assert all(b.state == "freed" and b.released_by == 1 for b in trunk_top.saved)
    (d,) = diagnose(rec)
    assert d.backward == 2 and d.node == trunk_top.id
    assert fix_keys(d)[0] == "sum_losses"
    assert "retain_graph" in fix_keys(d)


# -- an op with no derivative in the graph --------------------------------------------------------
def _no_derivative(torch: ModuleType, expr: str) -> tuple[Any, BaseException]:
    engine = None
    if torch is not globals()["torch"]:
        from graphviz_autograd.recording.torch_engine import TorchEngine
        engine = TorchEngine()
    with record(engine=engine) as rec:
        x = torch.tensor([1.5, -2.5, 4.0], requires_grad=True)
        if expr == "x // 2":
            y = (x // 2 + x * 3).sum()
        else:
            y = (2.0 % x + x * 3).sum()
        with pytest.raises(RuntimeError) as info:
            y.backward()
    return rec, info.value


@pytest.mark.parametrize(("expr", "op"), [("x // 2", "floor_divide"), ("2.0 % x", "remainder")])
@pytest.mark.parametrize("module", ["native", pytest.param("torch", marks=requires_torch)])
def test_an_op_with_no_derivative_is_predicted_and_explained(expr: str, op: str,
                                                             module: str) -> None:
    """``x // 2`` and ``2.0 % x`` have no derivative in PyTorch: a node that raises when the
    backward reaches it. The snapshot before the backward predicts that failure there, and the
    diagnosis names the line and the differentiable forms."""
    rec, error = _no_derivative(torch if module == "native" else _real_torch(), expr)
    assert str(error) == f"derivative for aten::{op} is not implemented"
    s = before(rec, 1)
    (node,) = [n for n in s.nodes if n.name == "torch::autograd::NotImplemented"]
    assert s.prediction is not None and s.prediction.will_fail
    assert (s.prediction.node, s.prediction.kind) == (node.id, "no_derivative")
    assert rec.backwards[0].failed_at == node.id
    (d,) = diagnose(rec)
    assert (d.kind, d.node, d.backward) == ("no_derivative", node.id, 1)
    assert expr in d.summary and "no derivative" in d.summary
    assert fix_keys(d) == ["detach", "differentiable_form"]


@pytest.mark.parametrize("module", ["native", pytest.param("torch", marks=requires_torch)])
def test_a_penalty_through_a_gradient_with_no_derivative_is_explained(module: str) -> None:
    """A gradient penalty on a multi-margin loss: PyTorch's gradient of that loss has no
    derivative (a NotImplemented node made by ``create_graph=True``). The diagnosis says so
    without the floor-division advice, which does not apply."""
    tm = torch if module == "native" else _real_torch()
    engine = None
    if module == "torch":
        from graphviz_autograd.recording.torch_engine import TorchEngine
        engine = TorchEngine()
    with record(engine=engine) as rec:
        x = tm.tensor([[0.2, 0.9, -0.3], [1.1, -0.5, 0.4]], requires_grad=True)
        loss = tm.nn.functional.multi_margin_loss(x, tm.tensor([1, 0]))
        g, = tm.autograd.grad(loss, x, create_graph=True)
        penalty = (g ** 2).sum()
        with pytest.raises(RuntimeError) as info:
            penalty.backward()
    assert str(info.value) == "derivative for aten::multi_margin_loss_backward is not implemented"
    (d,) = diagnose(rec)
    node = next(n for n in before(rec, 2).nodes if n.id == d.node)
    assert (d.kind, d.backward, node.name) == ("no_derivative", 2,
                                               "torch::autograd::NotImplemented")
    assert "no derivative" in d.summary and "floor" not in d.summary
    assert fix_keys(d) == ["detach"]


def test_a_differentiable_remainder_is_not_predicted_to_fail() -> None:
    with record() as rec:
        x = torch.tensor([1.5, -2.5, 4.0], requires_grad=True)
        y = (x % 2 + torch.remainder(torch.full_like(x, 2.0), x)).sum()
        y.backward()
    s = before(rec, 1)
    assert s.prediction is not None and not s.prediction.will_fail
    assert {"RemainderBackward0", "RemainderBackward1"} <= {n.name for n in s.nodes}
    assert diagnose(rec) == []


# -- memory ------------------------------------------------------------------------------------
def test_memory_plain_backward_frees_everything() -> None:
    with record() as rec:
        x = torch.randn(8, 4, requires_grad=True)
        w = torch.randn(4, 3, requires_grad=True)
        y = (x @ w).sigmoid()
        loss = (y * y).sum()
        loss.backward()
    b, a = before(rec, 1).memory, after(rec, 1).memory
    assert b["saved_bytes_alive"] > 0 and b["saved_bytes_freed"] == 0
    assert a["saved_bytes_alive"] == 0
    assert a["saved_bytes_freed"] >= b["saved_bytes_alive"]


def test_memory_retain_graph_keeps_it() -> None:
    with record() as rec:
        x = torch.randn(8, 4, requires_grad=True)
        w = torch.randn(4, 3, requires_grad=True)
        y = (x @ w).sigmoid()
        loss = (y * y).sum()
        loss.backward(retain_graph=True)
        loss.backward(retain_graph=True)
    alive = before(rec, 1).memory["saved_bytes_alive"]
    assert alive > 0
    for k in (1, 2):
        assert after(rec, k).memory == {"saved_bytes_alive": alive, "saved_bytes_freed": 0}


def test_memory_graph_kept_across_iterations_grows_detached_stays_flat() -> None:
    def run(detach: bool) -> list[int]:
        torch.manual_seed(0)
        sizes = []
        with record() as rec:
            W = torch.randn(4, 4, requires_grad=True)
            h = torch.zeros(2, 4)
            for i in range(5):
                if detach:
                    h = h.detach()
                h = torch.tanh(h @ W + 1)
                sizes.append(rec.snapshot(f"step {i}").memory["saved_bytes_alive"])
        return sizes

    grows = run(detach=False)
    assert all(b > a for a, b in itertools.pairwise(grows))
    flat = run(detach=True)
    assert len(set(flat[1:])) == 1


# -- collected -----------------------------------------------------------------------------------
def test_collected_after_del() -> None:
    with record() as rec:
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * x
        s1 = rec.snapshot("y")
        y_id = only_labelled(s1, "y").id
        del y
        s2 = rec.snapshot("after del y")
    assert s1.collected == []
    assert y_id in s2.collected
    assert y_id not in {n.id for n in s2.nodes}
    # x, a leaf, is still there
    assert any(t.label == "x" for t in s2.tensors)


def test_not_collected_while_referenced() -> None:
    with record() as rec:
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        z = y * 2
        y_id = only_labelled(rec.snapshot("y, z"), "y").id
        del y
        s = rec.snapshot("after del y")
        z_id = only_labelled(s, "z").id
        del z
        gone = rec.snapshot("after del z")
    assert y_id not in s.collected
    assert y_id in {n.id for n in s.nodes}
    assert s.node(y_id).labels == []
    assert y_id in only_labelled(s, "z").next
    assert {y_id, z_id} <= set(gone.collected)
    assert not {y_id, z_id} & {n.id for n in gone.nodes}


def test_recording_keeps_no_graph_alive() -> None:
    # `del y` frees y's graph at once, as without recording: the snapshots taken around the
    # backward (which look up the user's variable names) must not keep y referenced
    import gc
    import weakref
    with record() as rec:
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        ref = weakref.ref(y.grad_fn)
        del y
        gc.collect()
        alive_after_del = ref() is not None
        last = rec.snapshot("after del")
    assert not alive_after_del
    assert last.collected


# -- the steps of a backward -------------------------------------------------------------------
def test_steps_in_order_with_releases_and_accumulations() -> None:
    with record() as rec:
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
        y = x * w
        z = y.sin()
        loss = z.sum()
        loss.backward()

    s = before(rec, 1)
    ids = {name: only_labelled(s, name).id for name in ("y", "z", "loss")}
    acc = {n.variable: n.id for n in s.nodes if is_accumulate(n)}
    tid = {t.label: t.id for t in s.tensors}
    steps = rec.backwards[0].steps
    assert [st.node for st in steps[:3]] == [ids["loss"], ids["z"], ids["y"]]
    assert [st.name for st in steps[:3]] == ["SumBackward0", "SinBackward0", "MulBackward0"]
    assert {st.node for st in steps[3:]} == {acc[tid["x"]], acc[tid["w"]]}
    assert len(steps) == 5
    # the gradient shapes that flowed into each node
    assert [st.grad_shape for st in steps] == [[], [3], [3], [3], [3]]
    # each step released that node's buffers (float32[3]: 12 bytes each)
    assert steps[0].released == []
    assert steps[1].released == [{"name": "self", "nbytes": 12}]
    assert sorted(r["name"] for r in steps[2].released) == ["other", "self"]
    assert all(r["nbytes"] == 12 for r in steps[2].released)
    assert rec.backwards[0].failed_at is None
    # each node ran in the step is marked as executed by backward #1
    done = after(rec, 1)
    assert all(done.node(st.node).executed_by == [1] for st in steps)
    # leaves: each AccumulateGrad step accumulated its own variable's gradient, no other does
    for st in steps:
        if st.name == "torch::autograd::AccumulateGrad":
            var = s.node(st.node).variable
            assert st.accumulated == {"tensor": var, "grad_shape": [3]}
        else:
            assert st.accumulated is None


def test_steps_read_during_a_backward_are_completed_after_it() -> None:
    """A leaf's hook runs after its accumulator's step began and before the gradient is
    accumulated: reading the steps there shows that step unfinished; the same list (a viewer
    may hold it) has the accumulation once the backward is over."""
    seen: list[tuple[list[str], Any]] = []
    held: list[Any] = []
    with record() as rec:
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.sin()

        def look(g: Any) -> Any:
            steps = rec.backwards[-1].steps
            held.append(steps)
            seen.append(([st.name for st in steps], steps[-1].accumulated))
            return g

        x.register_hook(look)
        y.sum().backward()
    steps = rec.backwards[0].steps
    assert held[0] is steps
    assert seen == [(["SumBackward0", "SinBackward0", "torch::autograd::AccumulateGrad"], None)]
    assert [st.name for st in steps] == seen[0][0]
    assert steps[1].released == [{"name": "self", "nbytes": 12}]
    assert steps[2].accumulated is not None and steps[2].accumulated["grad_shape"] == [3]


def test_steps_of_a_failed_backward() -> None:
    measure = torch.nn.MSELoss()
    with record() as rec:
        x = torch.tensor([1, 0], dtype=torch.float64)
        t = torch.eye(2, dtype=torch.float64, requires_grad=True)
        a = torch.ones(2, dtype=torch.float64, requires_grad=True)
        y = t @ a
        for __ in range(2):
            x_out = t @ (x + y)
            loss = measure(x_out, x)
            with contextlib.suppress(RuntimeError):
                loss.backward()
    b1, b2 = rec.backwards
    y_id = only_labelled(before(rec, 2), "y").id
    assert b1.failed_at is None
    assert [st.name for st in b1.steps[:4]] == ["MseLossBackward0", "MvBackward0",
                                                "AddBackward0", "MvBackward0"]
    assert b1.steps[3].node == y_id
    assert sorted(r["name"] for r in b1.steps[3].released) == ["self", "vec"]
    # backward #2 ran its own nodes, then stopped at y's node: not a step of it
    assert b2.failed_at == y_id
    assert [st.name for st in b2.steps] == ["MseLossBackward0", "MvBackward0", "AddBackward0"]
    assert y_id not in {st.node for st in b2.steps}
    assert after(rec, 2).node(y_id).executed_by == [1]


# -- every backward API, and manual snapshots ----------------------------------------------------
def test_every_backward_api_gets_before_and_after_snapshots() -> None:
    with record() as rec:
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        torch.autograd.backward([(x * 3).sum()])
        (g,) = torch.autograd.grad((x ** 3).sum(), [x])
        assert g.shape == (2,)
        manual = rec.snapshot("by hand")
    assert [s.kind for s in rec.snapshots] == ["before_backward", "after_backward"] * 3 + [
        "manual"]
    assert [s.backward for s in rec.snapshots] == [1, 1, 2, 2, 3, 3, None]
    assert len(rec.backwards) == 3
    assert manual.label == "by hand" and manual.error is None
    assert [s.index for s in rec.snapshots] == list(range(7))
    d = manual.to_dict()
    assert d["format"] == "graphviz-autograd/snapshot" and d["version"] == 1
    assert {"index", "label", "kind", "backward", "error", "nodes", "tensors", "prediction",
            "memory"} <= set(d)


def test_nothing_recorded_outside_the_block() -> None:
    with record() as rec:
        pass
    x = torch.tensor([1.0], requires_grad=True)
    (x * x).sum().backward()
    assert len(rec.snapshots) == 0 and len(rec.backwards) == 0


# -- exceptions reach the user unchanged -------------------------------------------------------
def _backward_twice(torch: ModuleType) -> None:
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    y.backward()
    y.backward()


def _version_error(torch: ModuleType) -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = y * 1
    y.add_(1)
    z.sum().backward()
    y.sum().backward()


def _grad_unused(torch: ModuleType) -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.autograd.grad((x * 2).sum(), [x, w])


def _no_grad_fn(torch: ModuleType) -> None:
    torch.tensor([1.0, 2.0]).sum().backward()


class HookError(Exception):
    pass


def _hook_raises(torch: ModuleType) -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x

    def hook(g: Any) -> None:
        raise HookError("from the hook")

    y.register_hook(hook)
    y.sum().backward()


STORIES: dict[str, Callable[[ModuleType], None]] = {
    "backward_twice": _backward_twice, "version": _version_error, "grad_unused": _grad_unused,
    "no_grad_fn": _no_grad_fn, "hook": _hook_raises,
}


def _raised(story: Callable[[ModuleType], None], module: ModuleType) -> BaseException:
    with pytest.raises(Exception) as info:
        story(module)
    return info.value


@pytest.mark.parametrize("name", list(STORIES))
def test_exception_reaches_the_user_unchanged(name: str) -> None:
    story = STORIES[name]
    plain = _raised(story, torch)
    with record() as rec:
        recorded = _raised(story, torch)
    assert type(recorded) is type(plain)
    assert str(recorded) == str(plain)
    assert recorded.args == plain.args
    failed = [s for s in rec.snapshots if s.kind == "backward_failed"]
    assert len(failed) == 1
    assert failed[0].error == {"type": type(plain).__name__, "message": str(plain)}
    assert rec.backwards[-1].error == failed[0].error


@requires_torch
@pytest.mark.parametrize("name", [n for n in STORIES if n != "hook"])
def test_exception_under_recording_is_real_torchs(name: str) -> None:
    real = _raised(STORIES[name], _real_torch())
    with record():
        ours = _raised(STORIES[name], torch)
    assert type(ours) is type(real)
    assert str(ours) == str(real)


def test_hook_exception_is_the_users_own_object() -> None:
    seen: list[BaseException] = []

    def story() -> None:
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * x

        def hook(g: Any) -> None:
            err = HookError("mine")
            seen.append(err)
            raise err

        y.register_hook(hook)
        y.sum().backward()

    with record(), pytest.raises(HookError) as info:
        story()
    assert info.value is seen[0]


# -- sources --------------------------------------------------------------------------------------
def _recorded_script(path: Any, text: str, scope: dict[str, Any]) -> Any:
    """Run ``text`` as the script file ``path`` (its lines are the sources) while recording."""
    path.write_text(text, encoding="utf-8")
    code = compile(text, str(path), "exec")
    with record() as rec:
        exec(code, scope)
    return rec


def test_sources_are_the_lines_that_ran_each_op(tmp_path: Any) -> None:
    """The recorder keeps (code, instruction offset) per op and makes the line when a snapshot
    is read: the lines are those ``f_lineno`` gives, far into a long script; inside a
    statement written over several lines, whichever line Python reports (a method call: the
    line of its name), the statement's first line and its whole code."""
    script = tmp_path / "long_script.py"
    filler = "\n".join(f"pad{i} = {i}" for i in range(400))
    rec = _recorded_script(script, filler + "\n"
                           "a = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                           "b = (a\n"
                           "     .exp())\n"
                           "c = torch.mul(b,\n"
                           "              3.0)\n"
                           "loss = c.sum()\n"
                           "loss.backward()\n", {"torch": torch})
    lines = {n.name: (n.source["line"], n.source["code"]) for n in before(rec, 1).nodes
             if n.source is not None}
    assert lines == {"ExpBackward0": (402, "b = a.exp()"),
                     "MulBackward0": (404, "c = torch.mul(b, 3.0)"),
                     "SumBackward0": (406, "loss = c.sum()")}
    assert rec.backwards[0].source is not None and rec.backwards[0].source["line"] == 407
    assert before(rec, 1).source is not None and before(rec, 1).source["line"] == 407


def test_every_way_an_op_makes_a_node_gives_the_users_line(tmp_path: Any) -> None:
    """The recorder skips the engine's own frames below the user's unread (reading a frame
    costs): whichever way a node is made (an op, an in-place op on a tensor or on a view, a
    method that edits in place, indexing, a module, a custom Function), its line is the user's
    line that ran it, never a line of the engine or of the caller further out."""
    script = tmp_path / "paths.py"
    rec = _recorded_script(
        script,
        "class Twice(torch.autograd.Function):\n"                                  # 1
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return x * 2\n"
        "    @staticmethod\n"                                                       # 5
        "    def backward(ctx, g):\n"
        "        return g * 2\n"
        "def run():\n"
        "    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
        "    b = a * 3\n"                                                            # 10
        "    b.add_(1)\n"
        "    v = b[1:]\n"
        "    v.mul_(2)\n"
        "    b[0] = 5.0\n"
        "    b.clamp_(max=10.0)\n"                                                   # 15
        "    c = Twice.apply(b)\n"
        "    d = lin(c)\n"
        "    e = (d @ d).tanh()\n"
        "    e.backward()\n"
        "run()\n", {"torch": torch, "lin": torch.nn.Linear(3, 3)})
    made = sorted((n.source["line"], n.name) for n in before(rec, 1).nodes
                  if n.source is not None)
    assert all(n.source is None or n.source["file"] == str(script)
               for n in before(rec, 1).nodes)
    lines = {name: {line for line, m in made if m == name} for _, name in made}
    # NB: the in-place op on a view is its CopySlices (13); the op's own node inside it is
    # reached by no edge, on PyTorch as here, so it is not in the snapshot
    assert lines["MulBackward0"] == {10}
    assert lines["AddBackward0"] == {11}
    # NB: v's SliceBackward0 (12) gave way to an AsStridedBackward0 at v.mul_(2), as on PyTorch
    assert "SliceBackward0" not in lines
    assert lines["torch::autograd::CopySlices"] == {13, 14}
    assert lines["ClampBackward1"] == {15}
    assert lines["TwiceBackward"] == {16}
    assert lines["AddmmBackward0"] == {17}
    assert lines["TanhBackward0"] == {18}
    assert {line for line, _ in made} == set(range(10, 19)) - {12}


def test_a_backward_interrupted_inside_the_block_leaves_no_trace_behind() -> None:
    """A BaseException from a hook ends the backward without a failed event: leaving the block
    still stops the engine logging the backward's nodes."""
    from graphviz_autograd.engine import events

    def interrupt(g: Any) -> Any:
        raise KeyboardInterrupt

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(KeyboardInterrupt), record():
        b = a * 3
        b.register_hook(interrupt)
        b.sum().backward()
    assert events.trace is None
    gone = weakref.ref(b)
    del b
    assert gone() is None, "the recording still holds a tensor of the interrupted backward"
    (a * a).sum().backward()
    assert a.grad is not None and events.trace is None


# -- predictions: each root on its own graph -------------------------------------------------------
def test_each_root_is_predicted_on_the_graph_it_reaches() -> None:
    with record() as rec:
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        old = (a * a).sum()
        old.backward()
        b = a * 2
        stale = (b * b).sum()
        b.add_(1)
        fresh = (a * 3).sum()          # beside the others, sharing only a's accumulator
        s = rec.snapshot("three roots")
        stale_root = only_labelled(s, "stale").id
        with pytest.raises(RuntimeError, match=INPLACE):
            stale.backward()
        fresh.backward()

    by_root = {p.root: p for p in s.predictions}
    old_pred = by_root[only_labelled(s, "old").id]
    assert old_pred.will_fail and old_pred.kind == "freed"
    assert s.node(old_pred.node or "").name == "MulBackward0"
    assert by_root[stale_root].will_fail and by_root[stale_root].kind == "modified"
    fresh_pred = by_root[only_labelled(s, "fresh").id]
    assert not fresh_pred.will_fail and fresh_pred.node is None and fresh_pred.reason == ""
    # the backward about to run gets its own prediction, from its own graph
    failing, passing = before(rec, 2).prediction, before(rec, 3).prediction
    assert failing is not None and failing.will_fail and failing.root == stale_root
    assert passing is not None and not passing.will_fail
    assert passing.root == after(rec, 3).nodes_labelled("fresh")[0].id


# -- saved lists: a custom Function's saved tensors, an index by a list of tensors ---------------
def test_saved_lists_are_named_by_position_and_freed_one_by_one() -> None:
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any) -> Any:
            ctx.save_for_backward(a, None, b)
            return a * b

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            a, _, b = ctx.saved_tensors
            return g * b, g * a

    with record() as rec:
        a = torch.ones(3, requires_grad=True)
        b = torch.ones(2, 3, requires_grad=True)
        y = Scale.apply(a, b)
        picked = y[torch.tensor([0, 1]), torch.tensor([2, 0])]
        s = rec.snapshot("saved lists")
        picked.sum().backward()

    def slots(snap: Any, name: str) -> list[tuple[str, list[int], str]]:
        node = next(n for n in snap.nodes if n.name == name)
        return [(x.name, x.shape, x.state) for x in node.saved]

    # a None in the list keeps its position; the member after it is [2]
    assert slots(s, "ScaleBackward") == [("saved_tensors[0]", [3], "alive"),
                                        ("saved_tensors[2]", [2, 3], "alive")]
    assert slots(s, "IndexBackward0") == [("indices[0]", [2], "alive"),
                                         ("indices[1]", [2], "alive")]
    done = after(rec, 1)
    assert [x[2] for x in slots(done, "ScaleBackward") + slots(done, "IndexBackward0")] == \
        ["freed"] * 4


# -- several saved buffers modified: the prediction names the one PyTorch's error names -----------
def test_prediction_names_the_buffer_pytorch_unpacks_first() -> None:
    """``logsumexp`` saves ``result`` and ``self``; both edited in place. PyTorch unpacks saved
    inputs before outputs, so its error is about ``self`` (the [2, 2] output of Add)."""
    with record() as rec:
        a = torch.tensor([[1.2, 0.6], [-0.5, 0.3]], requires_grad=True)
        h = a + 1
        r = h.logsumexp(0)
        out = r.sum()
        r.neg_()
        h.mul_(2)
        with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[2, 2\]\]"):
            out.backward()
    s = before(rec, 1)
    assert s.prediction is not None and s.prediction.will_fail
    assert "saved self" in s.prediction.reason
    assert [d.buffers for d in diagnose(rec)] == [["self", "result"]]
    assert all("h.mul_(2)" in d.summary for d in diagnose(rec))
    # the live root `r` (two values: no loss) keeps its prediction in the snapshot, but gets no
    # diagnosis of its own: a backward from it would need a gradient argument
    last = rec.snapshots[-1]
    roots = {n.id: n.labels for n in last.nodes}
    (p,) = [p for p in last.predictions if "r" in roots.get(p.root or "", [])]
    assert p.will_fail and p.kind == "modified"


# -- where a node was made: before the recording, or by a custom Function's apply ----------------
@ON_BOTH_ENGINES
def test_nodes_made_before_the_recording_have_no_line(engine: str) -> None:
    """A graph built before ``record()`` (an earlier notebook cell) and used inside it: its
    nodes are not the recording's, and have no line (on real torch they were once given the
    line of the first op that used them)."""
    t = torch_of(engine)
    x = t.randn(3, requires_grad=True)
    h = (x * 2).exp()
    with record(engine=engine) as rec:
        line = here() + 1
        loss = h.sum()
        loss.backward()
    by_name = {n.name: n for n in before(rec, 1).nodes}
    assert {(name, n.recorded, n.source is None) for name, n in by_name.items()
            if not is_accumulate(n)} == {("MulBackward0", False, True),
                                         ("ExpBackward0", False, True),
                                         ("SumBackward0", True, False)}
    assert (by_name["SumBackward0"].source or {})["line"] == line
    assert "loss" in by_name["SumBackward0"].labels and "h" in by_name["ExpBackward0"].labels


@ON_BOTH_ENGINES
def test_a_custom_functions_node_has_the_line_that_applied_it(engine: str) -> None:
    """Two applies of one Function before either output is used, a Function with
    ``setup_context``, and one whose output is the loss: each node has its ``apply`` line (on
    real torch no mode sees ``apply``: the node is found through the ops its forward runs)."""
    t = torch_of(engine)

    class Square(t.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return t.nn.functional.relu(x * x)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class ExpSum(t.autograd.Function):
        @staticmethod
        def forward(x: Any) -> Any:
            return x.exp().sum()

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return x.exp() * g

    x = t.randn(5, requires_grad=True)
    with record(engine=engine) as rec:
        first = here() + 1
        a = Square.apply(x)
        b = Square.apply(x)
        with t.no_grad():
            Square.apply(x)          # no node: takes no line from the others
        c = a + b
        loss = ExpSum.apply(c)
        loss.backward()
    lines = sorted((n.name, (n.source or {}).get("line")) for n in before(rec, 1).nodes
                   if not is_accumulate(n))
    assert lines == [("AddBackward0", first + 4), ("ExpSumBackward", first + 5),
                     ("SquareBackward", first), ("SquareBackward", first + 1)]
    assert all(n.recorded for n in before(rec, 1).nodes if not is_accumulate(n))


@ON_BOTH_ENGINES
def test_a_second_recording_over_the_first_ones_graph(engine: str) -> None:
    """Two recordings in a row (two notebook cells run under ``%%autograd``), the second using
    a graph the first recorded: to the second, that graph was made before it began. On real
    torch the two recordings' node ids once collided, and reading the snapshot raised."""
    t = torch_of(engine)
    x = t.randn(3, requires_grad=True)
    with record(engine=engine) as first:
        h = (x * 2).exp()
        h.sum().backward(retain_graph=True)
    with record(engine=engine) as second:
        line = here() + 1
        loss = (h * x.sin()).sum()
        loss.backward()
    nodes = before(second, 1).nodes
    assert sorted((n.name, n.recorded) for n in nodes if not is_accumulate(n)) == [
        ("ExpBackward0", False), ("MulBackward0", False), ("MulBackward0", True),
        ("SinBackward0", True), ("SumBackward0", True)]
    assert {(n.source or {}).get("line") for n in nodes if n.recorded} == {line}
    assert len({n.id for n in nodes}) == len(nodes)
    # the first recording still reads as it was: its graph, recorded, retained
    assert sorted(n.name for n in after(first, 1).nodes if n.recorded) == \
        ["ExpBackward0", "MulBackward0", "SumBackward0"]
    assert all(s.state == "alive" for n in after(first, 1).nodes for s in n.saved)


# -- a backward a library function runs (``hessian``, ``vmap``) is not the user's line's ----------
@ON_BOTH_ENGINES
def test_a_backward_a_library_function_runs_says_which(engine: str, tmp_path: Any) -> None:
    """``hessian`` runs four backwards with ``retain_graph=True``, none of which a later one
    needs: the user's line asks for no ``retain_graph``, so there is nothing to drop. Each
    backward says which function the user's line called (``via``), kept by save and load."""
    t = torch_of(engine)
    x = t.randn(3, requires_grad=True)
    with record(engine=engine) as rec:
        t.autograd.functional.hessian(lambda v: (v ** 3).sum(), x)
        t.autograd.grad((x * x).sum(), x)
        (x * 2).sum().backward()
        t.autograd.backward([(x * 3).sum()])
    assert [(b.via, b.retain_graph) for b in rec.backwards] == \
        [("hessian", True)] * 4 + [(None, False)] * 3
    assert diagnose(rec) == []
    rec.save(tmp_path / "r.json")
    again = graphviz_autograd.load(tmp_path / "r.json")
    assert [b.via for b in again.backwards] == [b.via for b in rec.backwards]
    jsonschema.validate(json.loads((tmp_path / "r.json").read_text()),
                        graphviz_autograd.recording.schema())


def test_backwards_a_vmap_runs_are_not_steps_of_a_loop() -> None:
    """On the native engine ``vmap(grad(f))`` runs one backward per sample, each leaving the
    sample's graph alive (the parameters require grad): five backwards with ever more nodes,
    at one line, which is no loop's growth (real PyTorch runs one batched backward)."""
    model = torch.nn.Linear(3, 1)
    params = dict(model.named_parameters())

    def loss_fn(p: Any, xb: Any, yb: Any) -> Any:
        return ((torch.func.functional_call(model, p, (xb,)) - yb) ** 2).mean()

    x, y = torch.randn(5, 1, 3), torch.randn(5, 1, 1)
    with record() as rec:
        per = torch.func.vmap(torch.func.grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)
        loss_fn(params, x[:, 0], y[:, 0]).backward()
    assert [b.via for b in rec.backwards] == ["vmap.<locals>.wrapped"] * 5 + [None]
    assert len(per["weight"].grad_fn.next_functions) == 5 and diagnose(rec) == []


# -- gradient accumulation whose running total is never reset -------------------------------------
def _accumulate(t: Any, how: str) -> None:
    """Four steps' losses added up and backwarded once per update; ``how``: the line that adds
    (``"plus"``: ``running = running + loss``; ``"augmented"``: ``running += loss``), or
    ``"reset"``: the total started afresh after each backward (the fix)."""
    t.manual_seed(0)
    model = t.nn.Linear(4, 1)
    opt = t.optim.SGD(model.parameters(), lr=0.1)
    running: Any = 0
    for step in range(8):
        loss = t.nn.functional.mse_loss(model(t.randn(2, 4)), t.randn(2, 1)) / 4
        if how == "augmented":
            running += loss
        else:
            running = running + loss
        if (step + 1) % 4 == 0:
            running.backward()
            opt.step()
            opt.zero_grad()
            if how == "reset":
                running = 0


@ON_BOTH_ENGINES
@pytest.mark.parametrize("how", ["plus", "augmented"])
def test_a_running_total_not_reset_is_told_to_start_afresh(engine: str, how: str) -> None:
    """The second update's backward runs into the first update's losses, which backward #1
    freed: the fix is to reset the total, not to keep ``loss.item()`` (no gradient would be
    left) nor to detach or retain (the old losses' gradients would be added again)."""
    t = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        _accumulate(t, how)
    (d,) = diagnose(rec)
    assert d.backward == 2 and fix_keys(d) == ["fresh_total"]
    assert d.fixes[0].title == "Start `running` afresh after each backward"
    assert "`running` still holds the total backward #1 already ran through" in d.summary
    with record(engine=engine) as fixed:
        _accumulate(t, "reset")
    assert [b.error for b in fixed.backwards] == [None, None] and diagnose(fixed) == []


# -- anomaly mode: a node whose gradient has nan --------------------------------------------------
@ON_BOTH_ENGINES
@pytest.mark.parametrize(("op", "hint"), [("sqrt", "`x.clamp(min=1e-12).sqrt()`"),
                                          ("log", "`x.clamp(min=1e-12).log()`")])
def test_a_nan_gradient_anomaly_mode_finds_is_explained_at_its_node(engine: str, op: str,
                                                                     hint: str) -> None:
    """``detect_anomaly`` raises after the node ran (on real torch, after its post-hook): the
    failure is still placed at that node, with the op's own hint."""
    t = torch_of(engine)
    with record(engine=engine) as rec, pytest.warns(UserWarning, match="Anomaly Detection"), \
            t.autograd.detect_anomaly(check_nan=True), \
            pytest.raises(RuntimeError, match="returned nan values"):
        x = t.tensor([0.0, 1.0], requires_grad=True)
        line = here() + 1
        y = getattr(x, op)()
        (y * 0).sum().backward()
    (d,) = diagnose(rec)
    name = f"{op.capitalize()}Backward0"
    assert d.kind == "other" and d.node_name == name and rec.backwards[0].failed_at == d.node
    assert f"failed at {name} of `y` (line {line}: `y = getattr(x, op)()`)" in d.summary
    assert fix_keys(d) == ["finite_derivative"] and hint in d.fixes[0].detail


# -- validation losses computed with gradients on, kept in a list ---------------------------------
def _validate(t: Any, fixed: bool) -> None:
    t.manual_seed(0)
    model = t.nn.Sequential(t.nn.Linear(4, 16), t.nn.Tanh(), t.nn.Linear(16, 1))
    opt = t.optim.SGD(model.parameters(), lr=0.01)
    xv, yv = t.randn(32, 4), t.randn(32, 1)
    val_history = []
    for _ in range(6):
        loss = t.nn.functional.mse_loss(model(t.randn(8, 4)), t.randn(8, 1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        with t.no_grad() if fixed else contextlib.nullcontext():
            val_loss = t.nn.functional.mse_loss(model(xv), yv)
        val_history.append(val_loss)


@ON_BOTH_ENGINES
def test_validation_losses_kept_with_their_graphs_are_told_to_use_no_grad(engine: str) -> None:
    """No backward runs through them: the growth is graphs kept for nothing, held by the list
    (not by a tensor a later graph uses). Their would-be failures (each entry's graph was
    changed by a later ``opt.step()``) are one diagnosis for the list."""
    t = torch_of(engine)
    with record(engine=engine) as rec:
        _validate(t, fixed=False)
    growth, *predicted = diagnose(rec)
    assert growth.kind == "growth"
    assert ", held by `val_history`. No backward ran through them" in growth.summary
    assert fix_keys(growth) == ["no_grad", "item"]
    assert growth.fixes[0].title == "Compute `val_loss` under `torch.no_grad()`"
    assert "`val_history.append(val_loss.item())`" in growth.fixes[1].detail
    (p,) = predicted
    assert p.predicted and "in the graph of `val_history[0]`" in p.summary
    assert p.summary.endswith("The same holds for 3 other entries of `val_history`.")
    with record(engine=engine) as fixed:
        _validate(t, fixed=True)
    assert diagnose(fixed) == []


@ON_BOTH_ENGINES
def test_predictions_kept_with_their_graphs_are_told_to_be_detached(engine: str) -> None:
    """``all_preds.append(pred)`` each step: a backward ran through each graph (its buffers are
    freed) but the nodes stay alive, one step more each time."""
    t = torch_of(engine)

    def loop(fixed: bool) -> None:
        t.manual_seed(0)
        model = t.nn.Sequential(t.nn.Linear(4, 16), t.nn.ReLU(), t.nn.Linear(16, 1))
        all_preds = []
        for _ in range(6):
            pred = model(t.randn(8, 4))
            t.nn.functional.mse_loss(pred, t.randn(8, 1)).backward()
            all_preds.append(pred.detach() if fixed else pred)

    with record(engine=engine) as rec:
        loop(fixed=False)
    (d,) = diagnose(rec)
    assert d.kind == "growth" and ", held by `all_preds`." in d.summary
    assert "No backward ran through them" not in d.summary
    assert fix_keys(d) == ["detach"] and d.fixes[0].title == "Keep `pred.detach()` in `all_preds`"
    with record(engine=engine) as fixed:
        loop(fixed=True)
    assert diagnose(fixed) == []


@ON_BOTH_ENGINES
def test_losses_kept_for_logging_are_named_not_the_model_output(engine: str) -> None:
    """``history.append(loss)``: most of the kept nodes were built by the model's line, but
    what the list keeps is the loss: the fix appends ``loss.detach()``."""
    t = torch_of(engine)
    t.manual_seed(0)
    model = t.nn.Sequential(t.nn.Linear(4, 16), t.nn.ReLU(), t.nn.Linear(16, 1))
    with record(engine=engine) as rec:
        history = []
        for _ in range(6):
            logits = model(t.randn(8, 4))
            loss = t.nn.functional.mse_loss(logits, t.randn(8, 1))
            loss.backward()
            history.append(loss)
    (d,) = diagnose(rec)
    assert "(most built at line" in d.summary and "`logits = model(t.randn(8, 4))`" in d.summary
    assert d.fixes[0].title == "Keep `loss.detach()` in `history`"
    assert "`history.append(loss.detach())`" in d.fixes[0].detail


# -- autograd.grad of an input the output does not use, or that does not require grad -----------
@ON_BOTH_ENGINES
@pytest.mark.parametrize("case", ["unused", "no_grad"])
def test_an_autograd_grad_input_error_names_the_input(engine: str, case: str) -> None:
    t = torch_of(engine)
    x = t.randn(3, requires_grad=True)
    w = t.randn(3, requires_grad=case == "unused")
    with record(engine=engine) as rec, pytest.raises(RuntimeError):
        y = (x * 2).sum() if case == "unused" else (x * w).sum()
        t.autograd.grad(y, (x, w))
    (d,) = diagnose(rec)
    assert d.kind == "other" and "failed before running any node: `w` " in d.summary
    if case == "unused":
        assert "`w` is not in the graph of `y`" in d.summary
        assert fix_keys(d) == ["allow_unused", "use_input"]
    else:
        assert "`w` does not require grad" in d.summary
        assert fix_keys(d) == ["requires_grad"]
        assert d.fixes[0].title == "Make `w` require grad, or leave it out of the inputs"


@ON_BOTH_ENGINES
@pytest.mark.parametrize("given", ["list", "generator"])
def test_an_unused_parameter_of_a_list_of_parameters_is_named(engine: str, given: str) -> None:
    """``autograd.grad(loss, list(model.parameters()))`` with a module the loss does not use:
    the parameter at the index PyTorch names is named (the backward keeps its inputs), and
    the saved recording keeps them too."""
    t = torch_of(engine)
    t.manual_seed(0)
    model = t.nn.ModuleDict({"enc": t.nn.Linear(3, 4), "aux": t.nn.Linear(4, 2),
                             "dec": t.nn.Linear(4, 1)})
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match="index 2"):
        loss = model["dec"](t.relu(model["enc"](t.randn(5, 3)))).pow(2).mean()
        params = model.parameters() if given == "generator" else list(model.parameters())
        t.autograd.grad(loss, params)
    (d,) = diagnose(rec)
    assert ("`model.aux.weight` (input 2 of `params`) is not in the graph of `loss`"
            in d.summary)
    assert d.fixes[1].title == "Compute `loss` from `model.aux.weight`, or leave it out of " \
        "the inputs"
    (b,) = rec.backwards
    assert b.inputs is not None and len(b.inputs) == 6
    again = graphviz_autograd.recording.Recording.from_dict(rec.to_dict())
    assert again.backwards[0].inputs == b.inputs


@ON_BOTH_ENGINES
def test_a_custom_function_applied_inside_another_or_without_grad_keeps_its_line(
        engine: str) -> None:
    """A Function applied inside another's forward (it makes no node of its own), and one
    applied under ``no_grad`` before each recorded apply (its dead node's id is soon reused):
    each node has its own ``apply`` line."""
    t = torch_of(engine)

    class Triple(t.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 3

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 3

    class ExpTriple(t.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            y = Triple.apply(x)
            ctx.save_for_backward(x)
            return y.exp()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return g * 3 * (3 * x).exp()

    x = t.randn(3, requires_grad=True)
    with record(engine=engine) as rec:
        for _ in range(4):
            with t.no_grad():
                Triple.apply(x)
            line = here() + 1
            y = ExpTriple.apply(x) + Triple.apply(x)
            y.sum().backward()
    lines = {(n.name, (n.source or {}).get("line")) for s in rec.snapshots for n in s.nodes
             if not is_accumulate(n)}
    assert lines == {("ExpTripleBackward", line), ("TripleBackward", line),
                     ("AddBackward0", line), ("SumBackward0", line + 1)}


# -- an embedding with max_norm renormalizes its weight in place at each call ---------------------
@ON_BOTH_ENGINES
def test_an_embedding_renormalizing_its_weight_is_the_in_place_line(engine: str) -> None:
    """The weight, used directly by a product, is changed in place by the next call of the
    embedding (``max_norm``): on real torch that happens inside ``F.embedding``, out of the
    mode's sight; the line is still found, and no optimizer step is blamed."""
    t = torch_of(engine)
    t.manual_seed(0)
    embedding = t.nn.Embedding(3, 5, max_norm=1.0)
    w = t.randn((7, 5), requires_grad=True)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=INPLACE):
        a = embedding.weight @ w.t()
        line = here() + 1
        b = embedding(t.tensor([1, 2])) @ w.t()
        (a.unsqueeze(0) + b.unsqueeze(1)).sigmoid().prod().backward()
    (d,) = diagnose(rec)
    assert d.kind == "modified" and d.node_name == "MmBackward0"
    assert f"The in-place op was at line {line}: `b = embedding(" in d.summary
    assert fix_keys(d) == ["out_of_place"]
    assert "`embedding.weight.clone()`" in d.fixes[0].detail


@ON_BOTH_ENGINES
def test_a_custom_function_that_reads_nothing_it_saved_runs_again(engine: str) -> None:
    """Its saved tensors are freed by the first backward, but PyTorch checks them only when
    its backward reads ``saved_tensors``: the second backward runs it, releases nothing
    more, and fails further down; that is where the explanation says it failed."""
    t = torch_of(engine)

    class Double(t.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    w = t.randn(3, requires_grad=True)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        h = w.exp()
        loss = Double.apply(h).sum()
        loss.backward()
        loss.backward()
    _, second = rec.backwards
    assert [s.name for s in second.steps] == ["SumBackward0", "DoubleBackward"]
    assert not any(s.released for s in second.steps)
    node = after(rec, 1).node(second.failed_at or "")
    assert node.name == "ExpBackward0"
    (d,) = diagnose(rec)
    assert d.node == second.failed_at and "freed by backward #1" in d.summary
    assert {s.released_by for n in rec.snapshots[-1].nodes for s in n.saved} == {1}


# -- a "parameter" that is not a leaf: an op on the line that made it ----------------------------
def _not_a_leaf(t: Any, how: str) -> Any:
    """Three steps of a loop over a weight ``w``; ``how``: the line that makes it."""
    t.manual_seed(0)
    x = t.randn(4, 3)
    if how == "scaled":
        w = t.randn(3, 3, requires_grad=True) * 0.01
    elif how == "divided":
        w = t.randn(3, 3).requires_grad_() / 10
    elif how == "leaf":
        w = (t.randn(3, 3) * 0.01).requires_grad_()
    else:
        base = t.randn(3, 3, requires_grad=True)
        w = base * 0.01
    for _ in range(3):
        loss = (x @ w).pow(2).mean()
        loss.backward()
    return w


@ON_BOTH_ENGINES
@pytest.mark.parametrize(("how", "fixed"), [
    ("scaled", "w = (t.randn(3, 3) * 0.01).requires_grad_()"),
    ("divided", "w = (t.randn(3, 3) / 10).requires_grad_()")])
def test_a_weight_made_by_an_op_on_a_fresh_leaf_is_told_to_be_made_a_leaf(
        engine: str, how: str, fixed: str) -> None:
    """``w = torch.randn(..., requires_grad=True) * 0.01``: ``w`` is not a leaf, so every
    step's loss reaches into the one graph that made it and the second backward fails there.
    Rebuilding ``w`` each step (the usual "recompute" fix) would make a new weight every step;
    the fix is to make it a leaf, with the line rewritten."""
    t = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        _not_a_leaf(t, how)
    (d,) = diagnose(rec)
    assert d.backward == 2 and fix_keys(d) == ["make_leaf", "parameter"]
    assert d.built_by["labels"] == ["w"]
    assert "`w` is not a leaf" in d.summary and "`w.grad` stays None" in d.summary
    assert d.fixes[0].detail.startswith(f"`{fixed}`")
    with record(engine=engine) as ok:
        w = _not_a_leaf(t, "leaf")
    assert w.is_leaf and w.grad is not None
    assert [b.error for b in ok.backwards] == [None] * 3 and diagnose(ok) == []


@ON_BOTH_ENGINES
def test_a_weight_made_from_a_named_leaf_keeps_the_recompute_fixes(engine: str) -> None:
    """``base`` has a name of its own: ``w = base * 0.01`` may be meant as an op of the model,
    so the usual fixes stand."""
    t = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        _not_a_leaf(t, "named")
    (d,) = diagnose(rec)
    assert "make_leaf" not in fix_keys(d) and fix_keys(d)[0] == "recompute"


# -- parameters no backward reaches ---------------------------------------------------------------
def _cut_training(t: Any, how: str, steps: int = 3) -> None:
    """``steps`` steps of an encoder and a head; ``how``: ``"detached"`` (the encoder's output
    detached: it never learns), ``"whole"`` (the fix), ``"target"`` (a target network's output
    detached on purpose), ``"unused"`` (a layer never called)."""
    t.manual_seed(0)
    encoder, head = t.nn.Linear(4, 8), t.nn.Linear(8, 1)
    if how == "target":
        target_net = t.nn.Sequential(t.nn.Linear(4, 8), t.nn.Tanh(), t.nn.Linear(8, 8))
    if how == "unused":
        spare = t.nn.Linear(4, 8)  # noqa: F841  (never called)
    for _ in range(steps):
        x, y = t.randn(16, 4), t.randn(16, 1)
        if how == "detached":
            h = t.relu(encoder(x)).detach()
        elif how == "target":
            h = t.relu(encoder(x)) + target_net(x).detach()
        else:
            h = t.relu(encoder(x))
        loss = t.nn.functional.mse_loss(head(h), y)
        loss.backward()


@ON_BOTH_ENGINES
@pytest.mark.parametrize("steps", [3, 1])
def test_parameters_no_backward_reaches_are_named_with_the_line_that_cuts_them(
        engine: str, steps: int) -> None:
    t = torch_of(engine)
    with record(engine=engine) as rec:
        _cut_training(t, "detached", steps)
    (d,) = diagnose(rec)
    assert d.kind == "unreached" and d.built_by["labels"] == ["encoder.weight", "encoder.bias"]
    assert ("none of the 3 backwards that ran gave them a gradient" if steps == 3 else
            "the backward that ran gave them no gradient") in d.summary
    assert "where `.detach()` cuts the graph" in d.summary
    assert fix_keys(d) == ["keep_graph", "freeze"]
    assert d.fixes[0].detail.startswith("`h = t.relu(encoder(x))`")
    with record(engine=engine) as fixed:
        _cut_training(t, "whole")
    assert diagnose(fixed) == []


@ON_BOTH_ENGINES
def test_a_cut_on_a_later_line_than_the_modules_call_is_found(engine: str) -> None:
    """``h = encoder(x)``, then ``h = torch.relu(h)``, a value looked at (``.item()``, not a
    cut of what goes on), then ``h = h.detach()``: that line is named and is to be dropped."""
    t = torch_of(engine)
    t.manual_seed(0)
    encoder, head = t.nn.Linear(4, 8), t.nn.Linear(8, 1)
    seen = []
    with record(engine=engine) as rec:
        for _ in range(3):
            x, y = t.randn(16, 4), t.randn(16, 1)
            called = here() + 1
            h = encoder(x)
            h = t.relu(h)
            seen.append(h.mean().item())
            cut = here() + 1
            h = h.detach()
            t.nn.functional.mse_loss(head(h), y).backward()
    (d,) = diagnose(rec)
    assert d.kind == "unreached"
    assert f"`encoder` is called at line {called} (`h = encoder(x)`), and line {cut} " \
        "(`h = h.detach()`) cuts what it made with `.detach()`." in d.summary
    assert d.fixes[0].title == f"Drop line {cut}"
    assert d.built_by["source"]["line"] == cut


@ON_BOTH_ENGINES
@pytest.mark.parametrize("reentrant", [True, False])
def test_a_reentrant_checkpoint_of_inputs_without_grad_is_named(engine: str,
                                                                reentrant: bool) -> None:
    """A reentrant checkpoint whose inputs do not require grad runs no backward: the module
    it runs gets no gradient (PyTorch only warns). Its line is rewritten non-reentrant, and
    so rewritten the module is trained."""
    t = torch_of(engine)
    t.manual_seed(0)
    checkpoint = t.utils.checkpoint.checkpoint
    stem, head = t.nn.Sequential(t.nn.Linear(4, 8), t.nn.ReLU()), t.nn.Linear(8, 1)
    with record(engine=engine) as rec, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for _ in range(2):
            x, y = t.randn(16, 4), t.randn(16, 1)
            if reentrant:
                line = here() + 1
                h = checkpoint(stem, x, use_reentrant=True)
            else:
                h = checkpoint(stem, x, use_reentrant=False)
            t.nn.functional.mse_loss(head(h), y).backward()
    if not reentrant:
        assert diagnose(rec) == []
        assert stem[0].weight.grad is not None
        return
    (d,) = diagnose(rec)
    assert d.kind == "unreached" and d.built_by["labels"] == ["stem.0.weight", "stem.0.bias"]
    assert f"`stem` is run by a reentrant checkpoint at line {line} " in d.summary
    assert "The losses do not depend" not in d.summary
    assert fix_keys(d) == ["keep_graph", "freeze"]
    assert d.fixes[0].title == f"Use `use_reentrant=False` at line {line}"
    assert d.fixes[0].detail.startswith(
        "`h = checkpoint(stem, x, use_reentrant=False)`: a non-reentrant checkpoint")
    assert d.built_by["source"]["line"] == line
    assert stem[0].weight.grad is None


class _Trainer:
    """A training loop in a class, as projects write it: the model is an attribute of
    ``self``, and the loop a method."""

    def __init__(self, t: Any) -> None:
        self.t = t
        self.model = t.nn.ModuleDict({"encoder": t.nn.Linear(4, 8), "head": t.nn.Linear(8, 1)})
        self.opt = t.optim.SGD(self.model.parameters(), lr=0.1)

    def fit(self, steps: int) -> None:
        t = self.t
        for _ in range(steps):
            x, y = t.randn(16, 4), t.randn(16, 1)
            self.opt.zero_grad()
            h = t.relu(self.model["encoder"](x)).detach()
            t.nn.functional.mse_loss(self.model["head"](h), y).backward()
            self.opt.step()


@ON_BOTH_ENGINES
def test_a_trainers_model_is_named_through_self(engine: str) -> None:
    """The name search goes into an object of the user's own class (``self``), and into the
    modules it holds: the parameters no backward reaches are named ``self.model.encoder.*``."""
    t = torch_of(engine)
    t.manual_seed(0)
    with record(engine=engine) as rec:
        _Trainer(t).fit(3)
    (d,) = diagnose(rec)
    assert d.kind == "unreached"
    assert d.built_by["labels"] == ["self.model.encoder.weight", "self.model.encoder.bias"]


@ON_BOTH_ENGINES
def test_a_target_network_is_told_to_be_frozen_first(engine: str) -> None:
    t = torch_of(engine)
    with record(engine=engine) as rec:
        _cut_training(t, "target")
    (d,) = diagnose(rec)
    assert d.built_by["labels"] == ["target_net.0.weight", "target_net.0.bias",
                                    "target_net.2.weight", "target_net.2.bias"]
    assert fix_keys(d) == ["freeze", "keep_graph"]
    assert d.fixes[0].detail.startswith("`target_net.requires_grad_(False)`")


@ON_BOTH_ENGINES
def test_a_layer_never_called_is_named_with_the_general_fix(engine: str) -> None:
    t = torch_of(engine)
    with record(engine=engine) as rec:
        _cut_training(t, "unused")
    (d,) = diagnose(rec)
    assert d.built_by["labels"] == ["spare.weight", "spare.bias"]
    assert fix_keys(d) == ["keep_graph", "freeze"] and d.fixes[0].title == \
        "Let the gradient reach them"
    assert "is called at" not in d.summary


@ON_BOTH_ENGINES
def test_a_lines_comment_is_not_part_of_its_code(engine: str) -> None:
    """A line is quoted without its comment (``# frees it``); a ``#`` inside a string stays."""
    t = torch_of(engine)
    with record(engine=engine) as rec:
        w = t.ones(3, requires_grad=True)
        y = (w * 2).sum() if "#" else None  # the loss
        y.backward()   # frees it
    (b,) = rec.backwards
    assert b.source is not None and b.source["code"] == "y.backward()"
    assert only_labelled(rec.snapshots[0], "y").source["code"] == \
        'y = (w * 2).sum() if "#" else None'


@ON_BOTH_ENGINES
@pytest.mark.parametrize("stepped", [True, False])
def test_retain_graph_is_not_offered_where_a_step_changed_what_the_graph_saved(
        engine: str, stepped: bool) -> None:
    """A weight penalty built once before the loop: the second backward fails, freed. Had the
    first kept it (``retain_graph=True``), the optimizer's step in between changed the weights
    it saved, and the second would fail on them (as PyTorch does): that fix is not offered,
    and why is said. With no step between, it is."""
    t = torch_of(engine)
    t.manual_seed(0)
    model = t.nn.Linear(4, 1)
    opt = t.optim.SGD(model.parameters(), lr=0.01)
    x, y = t.randn(16, 4), t.randn(16, 1)
    with record(engine=engine) as rec, contextlib.suppress(RuntimeError):
        reg = 0.01 * sum(p.pow(2).sum() for p in model.parameters())
        for _ in range(2):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean() + reg
            loss.backward()
            if stepped:
                opt.step()
    (d,) = diagnose(rec)
    assert d.fixes[0].key == "recompute"
    if stepped:
        assert "retain_graph" not in fix_keys(d)
        assert "`retain_graph=True` would not help: `model.bias`, `model.weight` were changed " \
            "in place after backward #1" in d.summary
    else:
        assert "retain_graph" in fix_keys(d) and "would not help" not in d.summary


def _steps(t: ModuleType, clear: str, n: int = 3) -> Any:
    """A weight and a bias stepped by hand ``n`` times; ``clear``: how their gradients are
    cleared after each step ("none", "zero_" in place, "None")."""
    w, b = t.ones(3, requires_grad=True), t.zeros(1, requires_grad=True)
    x, y = t.ones(4, 3), t.ones(4)
    for _ in range(n):
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        with t.no_grad():
            for p in (w, b):
                p -= 0.1 * p.grad
                if clear == "zero_":
                    p.grad.zero_()
                elif clear == "None":
                    p.grad = None


@ON_BOTH_ENGINES
@pytest.mark.parametrize("clear", ["none", "zero_", "None"])
def test_gradients_never_cleared_between_steps_are_told(engine: str, clear: str) -> None:
    """``zero_grad()`` forgotten: each backward adds to the gradient the last step already
    used, and the next step uses the sum. Cleared either way (to None, or zeroed in place),
    nothing is said."""
    t = torch_of(engine)
    with record(engine=engine) as rec:
        _steps(t, clear)
    found = [d for d in diagnose(rec) if d.kind == "stale_grad"]
    if clear != "none":
        assert found == []
        return
    (d,) = found
    assert d.backward == 2 and d.built_by["labels"] == ["w", "b"]
    assert "added its gradients to those of backward #1: `w`, `b` were changed in place " \
        "between them (a step), but their `.grad` was not cleared" in d.summary
    assert fix_keys(d) == ["zero_grad", "accumulate"]
    assert "`w.grad = None` after each update" in d.fixes[0].detail


@ON_BOTH_ENGINES
def test_gradient_accumulation_and_a_gans_discriminator_are_not_told(engine: str) -> None:
    """Gradients summed over two batches, then one step and a clear: the sum is meant. A GAN
    whose generator's loss adds to the discriminator's gradients after its step, cleared before
    its next one: that sum is never stepped with."""
    t = torch_of(engine)
    t.manual_seed(0)
    w = t.ones(3, requires_grad=True)
    opt = t.optim.SGD([w], lr=0.1)
    G, D = t.nn.Linear(2, 3), t.nn.Linear(3, 1)
    opt_g, opt_d = t.optim.SGD(G.parameters(), lr=0.1), t.optim.SGD(D.parameters(), lr=0.1)
    with record(engine=engine) as rec:
        for step in range(6):
            (w * t.randn(3)).sum().pow(2).backward()
            if step % 2 == 1:
                opt.step()
                opt.zero_grad()
        for _ in range(3):
            fake = G(t.randn(4, 2))
            opt_d.zero_grad()
            (D(t.randn(4, 3)).mean() - D(fake.detach()).mean()).backward()
            opt_d.step()
            opt_g.zero_grad()
            (-D(fake).mean()).backward()
            opt_g.step()
    assert diagnose(rec) == []


def test_gradients_never_cleared_are_told_alike_after_save_and_load(tmp_path: Any) -> None:
    """What the recording knew of each gradient is saved with it: a loaded recording tells the
    same, and the file passes the recording schema."""
    with record() as rec:
        _steps(torch, "none")
    path = tmp_path / "recording.json"
    rec.save(path)
    jsonschema.validate(json.loads(path.read_text()), graphviz_autograd.recording.schema())
    loaded = graphviz_autograd.load(path)
    assert [d.summary for d in diagnose(loaded)] == [d.summary for d in diagnose(rec)]
    assert [d.kind for d in diagnose(loaded)] == ["stale_grad"]


@ON_BOTH_ENGINES
def test_a_queue_of_keys_appended_with_their_graph_is_told_to_keep_them_detached(
        engine: str, tmp_path: Path) -> None:
    """A contrastive loss whose negatives are the last steps' keys, appended to a list with
    their graph: the append line is rewritten with ``.detach()`` (the key's line runs at every
    step: recomputing it is no fix)."""
    t = torch_of(engine)
    text = """\
F = torch.nn.functional
torch.manual_seed(0)
encoder = torch.nn.Linear(16, 8)
opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
queue = []
for step in range(4):
    x = torch.randn(8, 16)
    q = F.normalize(encoder(x + 0.1 * torch.randn_like(x)), dim=1)
    k = F.normalize(encoder(x + 0.1 * torch.randn_like(x)), dim=1)
    negs = torch.cat(queue) if queue else torch.randn(8, 8)
    logits = torch.cat([(q * k).sum(1, keepdim=True), q @ negs.t()], 1) / 0.07
    loss = F.cross_entropy(logits, torch.zeros(8, dtype=torch.long))
    opt.zero_grad()
    loss.backward()
    opt.step()
    queue.append(k)
    queue = queue[-4:]
"""
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match="a second time"):
        run_script(t, tmp_path / "queue.py", text)
    (d,) = diagnose(rec)
    assert "Line 16 (`queue.append(k)`) keeps each step's `k` in `queue`" in d.summary
    assert fix_keys(d) == ["detach"]
    assert d.fixes[0].detail.startswith("`queue.append(k.detach())` at line 16")
    with record(engine=engine) as again:
        run_script(t, tmp_path / "fixed.py", rewritten(text, d.fixes[0].detail))
    assert len(again.backwards) == 4 and diagnose(again) == []
