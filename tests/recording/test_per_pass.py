"""A loop whose every pass backwards its own loss of one step, the step coming after the loop:
a decoder's time steps (its state fed from one pass to the next), the heads of a trunk built
before the loop. The second pass fails; the fix is one backward of the loop's summed losses,
not a detached state (which would change the gradients) nor a trunk built again per head."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, torch_of

BACKWARD_TWICE = "Trying to backward through the graph a second time"


def _parts(torch: Any) -> tuple[Any, Any, Any, Any]:
    """A decoder's cell and output layer, their optimizer, and a target sequence."""
    torch.manual_seed(0)
    cell, out = torch.nn.GRUCell(3, 4), torch.nn.Linear(4, 3)
    opt = torch.optim.SGD([*cell.parameters(), *out.parameters()], lr=0.1)
    return cell, out, opt, torch.randn(5, 2, 3)


def _decoder(torch: Any) -> str | None:
    F = torch.nn.functional
    cell, out, opt, tgt = _parts(torch)
    try:
        for _ in range(2):
            opt.zero_grad()
            h = torch.zeros(2, 4)
            inp = torch.zeros(2, 3)
            for t in range(tgt.shape[0]):
                h = cell(inp, h)
                loss = F.mse_loss(out(h), tgt[t])
                loss.backward()
                inp = tgt[t]
            opt.step()
    except RuntimeError as e:
        return str(e)
    return None


def _stepping_decoder(torch: Any) -> str | None:
    """The same, with a step in each pass: a state carried across steps."""
    F = torch.nn.functional
    cell, out, opt, tgt = _parts(torch)
    try:
        for _ in range(2):
            h = torch.zeros(2, 4)
            inp = torch.zeros(2, 3)
            for t in range(tgt.shape[0]):
                opt.zero_grad()
                h = cell(inp, h)
                loss = F.mse_loss(out(h), tgt[t])
                loss.backward()
                opt.step()
                inp = tgt[t]
    except RuntimeError as e:
        return str(e)
    return None


@ON_BOTH_ENGINES
def test_a_decoder_backwarding_each_time_step_is_told_to_sum_its_losses(engine: str) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        error = _decoder(torch)
    assert error is not None and error.startswith(BACKWARD_TWICE)
    # NB: nothing else is told (the code stopped at the error after one backward)
    (d,) = diagnose(rec)
    assert d.backward == 2
    assert "Each pass of the loop at line " in d.summary
    assert "(`for t in range(tgt.shape[0]):`) backwards its own loss, and the step (line " \
        in d.summary
    assert ": `opt.step()`) comes after the loop" in d.summary
    assert "their graphs share `h`, fed from one pass to the next." in d.summary
    assert fix_keys(d) == ["sum_losses", "retain_graph"]
    total = d.fixes[0]
    assert total.title == "Sum the losses of the loop and backward once"
    assert total.detail.startswith("`loss = 0` before line ")
    assert "`loss = loss + F.mse_loss(out(h), tgt[t])` in it, and `loss.backward()` after it" \
        in total.detail
    assert "through `h` into the earlier passes" in total.detail
    assert "the gradients of the sum, at more cost" in d.fixes[1].detail
    assert "Detach" not in d.text() and "afresh" not in d.text()


@ON_BOTH_ENGINES
def test_a_step_in_each_pass_is_a_recurrence_across_steps(engine: str) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        error = _stepping_decoder(torch)
    assert error is not None
    d = diagnose(rec)[0]
    assert "Each pass of the loop" not in d.summary
    assert fix_keys(d)[0] == "detach"


def _heads(torch: Any, retain: bool = False) -> str | None:
    torch.manual_seed(0)
    nn = torch.nn
    trunk = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
    heads = nn.ModuleList([nn.Linear(8, 2) for _ in range(3)])
    opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters()], lr=0.1)
    crit = nn.CrossEntropyLoss()
    try:
        for _ in range(2):
            x = torch.randn(4, 6)
            ys = [torch.randint(0, 2, (4,)) for _ in heads]
            opt.zero_grad()
            feats = trunk(x)
            for head, y in zip(heads, ys, strict=True):
                crit(head(feats), y).backward(retain_graph=retain)
            opt.step()
    except RuntimeError as e:
        return str(e)
    return None


@ON_BOTH_ENGINES
def test_heads_of_a_trunk_backwarded_one_by_one_are_told_to_sum(engine: str) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        error = _heads(torch)
    assert error is not None and error.startswith(BACKWARD_TWICE)
    (d,) = diagnose(rec)
    assert d.built_by["labels"] == ["feats"]
    assert "their graphs share `feats`, built once before it." in d.summary
    assert fix_keys(d) == ["sum_losses", "retain_graph"]
    # NB: the backward's line backwards an expression: the total gets a name of its own
    assert "`loss = loss + crit(head(feats), y)` in it" in d.fixes[0].detail
    assert "run the shared part again (`feats`)" in d.fixes[1].detail


@pytest.mark.parametrize("engine", ["native"])
def test_the_summed_loss_gives_what_the_retained_backwards_add_up(engine: str) -> None:
    """What the first fix says: one backward of the sum gives each parameter the gradients
    that the loop's backwards, with the graph retained, add up."""
    torch = torch_of(engine)

    def grads(summed: bool) -> list[Any]:
        torch.manual_seed(0)
        cell, out = torch.nn.GRUCell(3, 4), torch.nn.Linear(4, 3)
        tgt = torch.randn(5, 2, 3)
        h, inp = torch.zeros(2, 4), torch.zeros(2, 3)
        loss = 0
        for t in range(tgt.shape[0]):
            h = cell(inp, h)
            if summed:
                loss = loss + torch.nn.functional.mse_loss(out(h), tgt[t])
            else:
                torch.nn.functional.mse_loss(out(h), tgt[t]).backward(retain_graph=True)
            inp = tgt[t]
        if summed:
            loss.backward()
        return [p.grad.numpy().copy() for p in [*cell.parameters(), *out.parameters()]]

    for a, b in zip(grads(True), grads(False), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@ON_BOTH_ENGINES
def test_heads_retaining_the_graph_are_not_told_to_drop_it(engine: str) -> None:
    """Each head's backward but the last needs the trunk's buffers the one before kept: the
    line's ``retain_graph=True`` is needed, though the last pass's is not."""
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        assert _heads(torch, retain=True) is None
    assert [d.kind for d in diagnose(rec)] == []
