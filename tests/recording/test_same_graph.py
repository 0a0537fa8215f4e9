"""One loss backwarded twice: gradients asked of ``autograd.grad`` (to log their norm), then
the loss's backward; or a backward per optimizer (an encoder's, a decoder's), each stepped
after its own. The fixes say what one backward gives, and ``retain_graph=True`` is offered
only where a step between the two backwards left the graph's saved weights as they were."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, torch_of

BACKWARD_TWICE = "Trying to backward through the graph a second time"


def _logged_norm(torch: Any) -> None:
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        x, y = torch.randn(6, 4), torch.randn(6, 1)
        loss = nn.functional.mse_loss(model(x), y)
        grads = torch.autograd.grad(loss, model.parameters())
        print(torch.sqrt(sum((g ** 2).sum() for g in grads)).item())
        opt.zero_grad()
        loss.backward()
        opt.step()


@ON_BOTH_ENGINES
def test_gradients_asked_then_backwarded_are_read_from_grad(engine: str) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        _logged_norm(torch)
    (d,) = diagnose(rec)
    assert "It is the same graph" in d.summary
    assert fix_keys(d) == ["read_grad", "retain_graph"]
    assert d.fixes[0].detail.startswith("Drop line ")
    assert "`grads = [p.grad for p in model.parameters()]` gives the same gradients" in \
        d.fixes[0].detail


@ON_BOTH_ENGINES
def test_what_grad_holds_after_the_backward_is_what_autograd_grad_gave(engine: str) -> None:
    torch = torch_of(engine)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    loss = model(torch.randn(6, 4)).pow(2).mean()
    asked = torch.autograd.grad(loss, model.parameters(), retain_graph=True)
    loss.backward()
    for g, p in zip(asked, model.parameters(), strict=True):
        np.testing.assert_allclose(g.detach().numpy(), p.grad.numpy(), rtol=1e-6)


def _per_optimizer(torch: Any, deep: bool, retain: bool) -> None:
    """An autoencoder whose encoder and decoder have an optimizer each, each stepped after a
    backward of its own. A deep encoder saves its second layer's weight (its input requires
    grad); a one-layer one saves none of its weights."""
    torch.manual_seed(0)
    nn = torch.nn
    enc = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 3)) if deep else \
        nn.Linear(6, 3)
    dec = nn.Linear(3, 6)
    opt_enc = torch.optim.SGD(enc.parameters(), lr=0.1)
    opt_dec = torch.optim.SGD(dec.parameters(), lr=0.1)
    for _ in range(2):
        x = torch.randn(5, 6)
        loss = nn.functional.mse_loss(dec(torch.relu(enc(x))), x)
        opt_enc.zero_grad()
        loss.backward(retain_graph=retain)
        opt_enc.step()
        opt_dec.zero_grad()
        loss.backward()
        opt_dec.step()


@ON_BOTH_ENGINES
@pytest.mark.parametrize("deep", [True, False])
def test_a_backward_per_optimizer_is_told_to_backward_once(engine: str, deep: bool) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        _per_optimizer(torch, deep, retain=False)
    (d,) = diagnose(rec)
    once = d.fixes[0]
    assert once.title == "Backward once, then step each optimizer"
    assert once.detail.startswith("`loss.backward()` once, after `opt_enc.zero_grad()` and "
                                  "`opt_dec.zero_grad()`, then `opt_enc.step()` and "
                                  "`opt_dec.step()`")
    if deep:
        # NB: the step changed a weight the graph saved (behind the transpose a linear layer
        # saves): kept, the buffers would be stale
        assert "`retain_graph=True` would not help: `enc.2.weight` was changed in place" in \
            d.summary
        assert fix_keys(d) == ["backward_once"]
    else:
        assert "would not help" not in d.summary
        assert fix_keys(d) == ["backward_once", "retain_graph"]


@ON_BOTH_ENGINES
@pytest.mark.parametrize("deep", [True, False])
def test_retaining_the_graph_fails_where_it_is_said_not_to_help(engine: str, deep: bool
                                                                ) -> None:
    """What the diagnosis above says of ``retain_graph=True``, run."""
    torch = torch_of(engine)
    if deep:
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            _per_optimizer(torch, deep, retain=True)
    else:
        _per_optimizer(torch, deep, retain=True)
