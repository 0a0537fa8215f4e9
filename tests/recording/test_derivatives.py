"""Derivatives taken with ``autograd.grad`` and used in a loss (a physics-informed residual, a
gradient penalty, a meta-learning step): without ``create_graph=True`` the derivative has no
graph. Differentiating a derivative that way frees the graph below it (the next backward
fails); a derivative put into a loss that way trains nothing (no error at all). Both are told,
with the rewritten line; a derivative used as a model's input (an attack) is not."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from graphviz_autograd import diagnose, record
from graphviz_autograd.recording.diagnose import _carries

from ._support import ON_BOTH_ENGINES, fix_keys, run_script, torch_of

BACKWARD_TWICE = "Trying to backward through the graph a second time"


def _pinn(torch: Any, second_order: bool) -> str | None:
    """A physics-informed loss (u'' + u = 0) over a small network; the error it raised."""
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.linspace(0, 1, 20).reshape(-1, 1).requires_grad_(True)
    try:
        for _ in range(2):
            u = net(x)
            du = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
            if second_order:
                d2u = torch.autograd.grad(du.sum(), x, create_graph=True)[0]
            else:
                d2u = torch.autograd.grad(du.sum(), x)[0]
            residual = d2u + u
            loss = (residual ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    except RuntimeError as e:
        return str(e)
    return None


def _pinn_logged(torch: Any) -> str | None:
    """The same, with the second derivative only logged: the loss does not read it."""
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    x = torch.linspace(0, 1, 20).reshape(-1, 1).requires_grad_(True)
    try:
        u = net(x)
        du = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
        d2u = torch.autograd.grad(du.sum(), x)[0]
        print(float(d2u.abs().max()))
        loss = (u ** 2).mean()
        loss.backward()
    except RuntimeError as e:
        return str(e)
    return None


@ON_BOTH_ENGINES
def test_a_second_derivative_without_create_graph_is_told_to_make_one(engine: str) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        error = _pinn(torch, second_order=False)
    assert error is not None and error.startswith(BACKWARD_TWICE)
    (d,) = diagnose(rec)
    assert d.kind == "freed" and d.backward == 3 and d.freed_by == [2]
    assert "Backward #2 differentiates `du`, which backward #1 at line " in d.summary
    assert "`d2u` has no graph" in d.summary
    assert "backwards `loss`, computed from `d2u` through `residual`" in d.summary
    assert fix_keys(d) == ["create_graph", "retain_graph"]
    assert d.fixes[0].detail.startswith(
        "`d2u = torch.autograd.grad(du.sum(), x, create_graph=True)[0]`")


@ON_BOTH_ENGINES
def test_a_second_derivative_the_loss_does_not_read_is_told_to_retain_first(engine: str
                                                                           ) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        error = _pinn_logged(torch)
    assert error is not None and error.startswith(BACKWARD_TWICE)
    (d,) = diagnose(rec)
    assert "differentiates `du`" in d.summary and "computed from" not in d.summary
    assert fix_keys(d) == ["retain_graph", "create_graph"]


@ON_BOTH_ENGINES
def test_a_second_derivative_with_create_graph_is_not_told(engine: str) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        assert _pinn(torch, second_order=True) is None
    assert diagnose(rec) == []


def _critic(torch: Any, create_graph: bool) -> None:
    """A WGAN-GP critic's steps: the gradient penalty over points between real and fake."""
    torch.manual_seed(0)
    critic = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    for _ in range(2):
        real, fake = torch.randn(8, 2), torch.randn(8, 2)
        eps = torch.rand(8, 1)
        mixed = (eps * real + (1 - eps) * fake).requires_grad_(True)
        score = critic(mixed)
        grads = torch.autograd.grad(score, mixed, grad_outputs=torch.ones_like(score),
                                    create_graph=create_graph)[0]
        gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
        loss = critic(fake).mean() - critic(real).mean() + 10 * gp
        opt.zero_grad()
        loss.backward()
        opt.step()


def _critic_said_constant(torch: Any) -> None:
    """The same, with the gradient read as ``grads.detach()``: a constant, on purpose."""
    torch.manual_seed(0)
    critic = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    mixed = torch.randn(8, 2).requires_grad_(True)
    score = critic(mixed)
    grads = torch.autograd.grad(score.sum(), mixed)[0]
    gp = ((grads.detach().norm(2, dim=1) - 1) ** 2).mean()
    loss = critic(mixed).mean() + 10 * gp
    loss.backward()


@ON_BOTH_ENGINES
def test_a_gradient_penalty_without_create_graph_is_told_it_trains_nothing(engine: str
                                                                          ) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        _critic(torch, create_graph=False)
    (d,) = diagnose(rec)
    assert d.kind == "constant_derivative" and d.backward == 1 and not d.predicted
    assert d.built_by["labels"] == ["grads"]
    assert "backward #2 at line" in d.summary
    assert "backwards `loss`, computed from `grads` through `gp`" in d.summary
    assert "trains nothing" in d.summary
    assert fix_keys(d) == ["create_graph", "detach"]
    assert d.fixes[0].detail.startswith(
        "`grads = torch.autograd.grad(score, mixed, grad_outputs=torch.ones_like(score), "
        "create_graph=True)[0]`")
    assert d.snapshot == rec.backwards[1].snapshot_before


@ON_BOTH_ENGINES
@pytest.mark.parametrize("how", ["create_graph", "detach"])
def test_a_gradient_penalty_with_a_graph_or_said_constant_is_not_told(engine: str, how: str
                                                                     ) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        if how == "create_graph":
            _critic(torch, create_graph=True)
        else:
            _critic_said_constant(torch)
    assert diagnose(rec) == []


def _adversarial(torch: Any, sign: bool) -> None:
    """Training on an attack: the input's gradient moves the input; it is not in the loss."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        x = torch.randn(5, 4, requires_grad=True)
        y = torch.randint(0, 3, (5,))
        loss = torch.nn.functional.cross_entropy(model(x), y)
        g = torch.autograd.grad(loss, x, retain_graph=True)[0]
        x_adv = x + 0.1 * g.sign() if sign else x + 0.1 * g / g.norm()
        adv_loss = torch.nn.functional.cross_entropy(model(x_adv), y)
        opt.zero_grad()
        (loss + adv_loss).backward()
        opt.step()


@ON_BOTH_ENGINES
@pytest.mark.parametrize("sign", [True, False])
def test_a_gradient_that_moves_a_models_input_is_not_told(engine: str, sign: bool) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        _adversarial(torch, sign)
    assert diagnose(rec) == []


@ON_BOTH_ENGINES
def test_a_first_order_meta_step_is_told_as_first_order(engine: str) -> None:
    """An inner step on the parameters an optimizer steps (first-order MAML): told that it is
    first order, and how to get the full meta-gradient."""
    torch = torch_of(engine)
    torch.manual_seed(0)
    with record(engine=engine) as rec:
        w = torch.randn(3, 4, requires_grad=True)
        b = torch.zeros(3, requires_grad=True)
        opt = torch.optim.Adam([w, b], lr=1e-3)
        for _ in range(2):
            xs, ys = torch.randn(5, 4), torch.randn(5, 3)
            xq, yq = torch.randn(5, 4), torch.randn(5, 3)
            inner = torch.nn.functional.mse_loss(torch.nn.functional.linear(xs, w, b), ys)
            gw, gb = torch.autograd.grad(inner, (w, b))
            fast_w, fast_b = w - 0.1 * gw, b - 0.1 * gb
            outer = torch.nn.functional.mse_loss(torch.nn.functional.linear(xq, fast_w, fast_b), yq)
            opt.zero_grad()
            outer.backward()
            opt.step()
    (d,) = diagnose(rec)
    assert d.kind == "constant_derivative"
    assert "computed from `gw` through `fast_w`" in d.summary
    assert "first order only" in d.summary and "trains nothing" not in d.summary
    assert fix_keys(d) == ["create_graph", "detach"]
    assert d.fixes[0].title.endswith("for the full meta-gradient")


@pytest.mark.parametrize("code, carries", [
    ("gp = ((g.norm(2, dim=1) - 1) ** 2).mean()", True),
    ("r = torch.sin(x) + F.relu(g)[0]", True),
    ("t = sum(p.sum() for p in g)", True),
    ("x_adv = x + 0.1 * g.sign()", False),
    ("out = model(x + g)", False),
    ("out = self.net(g)", False),
    ("mask = g > 0", False),
    ("n = g.detach().norm()", False),
    ("y = x * 2", False),
])
def test_what_carries_a_derivative(code: str, carries: bool) -> None:
    value = ast.parse(code).body[0].value    # type: ignore[attr-defined]
    assert _carries(value, {"g"}) is carries


FIRST_ORDER = """\
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
x = torch.rand(32, 1, requires_grad=True)
u = net(x)
du = torch.autograd.grad(u.sum(), x)[0]
loss = ((du + u) ** 2).mean()
loss.backward()
grads = [p.grad.clone() for p in net.parameters()]
"""


@ON_BOTH_ENGINES
def test_a_first_derivative_without_create_graph_that_the_loss_reads_is_told_to_make_one(
        engine: str, tmp_path: Path) -> None:
    """``du = grad(u.sum(), x)[0]``, then a loss of ``du + u``: the grad call freed the graph
    of ``u``, and ``du`` has none. ``create_graph=True`` first (retaining would run, with no
    gradient through ``du``); not "sum the losses", not a detach of ``u``."""
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        run_script(torch, tmp_path / "pinn.py", FIRST_ORDER)
    (d,) = diagnose(rec)
    assert d.kind == "freed" and d.backward == 2 and d.freed_by == [1]
    assert "Backward #1 made `du` without `create_graph=True`" in d.summary
    assert "backwards `loss`, computed from `du`" in d.summary
    assert fix_keys(d) == ["create_graph", "retain_graph"]
    rewritten = d.fixes[0].detail.split("`")[1]
    assert rewritten == "du = torch.autograd.grad(u.sum(), x, create_graph=True)[0]"

    # NB: the rewrite runs, and its gradients differ from the retained graph's: those miss the
    # part that flows through ``du``
    fixed = run_script(torch, tmp_path / "fixed.py", FIRST_ORDER.replace(
        "du = torch.autograd.grad(u.sum(), x)[0]", rewritten))
    retained = run_script(torch, tmp_path / "retained.py", FIRST_ORDER.replace(
        "u.sum(), x)", "u.sum(), x, retain_graph=True)"))
    assert not all(torch.allclose(a, b) for a, b in
                   zip(fixed["grads"], retained["grads"], strict=True))


HVP = """\
torch.manual_seed(0)
w = torch.randn(5, requires_grad=True)
A = torch.randn(5, 5)
v = torch.randn(5)
loss = (w @ A @ w).tanh()
g = torch.autograd.grad(loss, w)[0]
hvp = torch.autograd.grad(g @ v, w)[0]
"""


@ON_BOTH_ENGINES
def test_a_backward_of_an_expression_of_gradients_without_a_graph_names_the_grad_line(
        engine: str, tmp_path: Path) -> None:
    """A Hessian-vector product ``grad(g @ v, w)`` of ``g`` made without ``create_graph``:
    the root has no name, the gradient it is computed from does; its line is rewritten."""
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match="does not require"):
        run_script(torch, tmp_path / "hvp.py", HVP)
    (d,) = diagnose(rec)
    assert d.kind == "other" and d.backward == 2
    assert ("`g @ v`, computed from `g`, does not require grad: `g` was made by backward #1 at "
            "line 6") in d.summary
    assert fix_keys(d) == ["create_graph"]
    rewritten = d.fixes[0].detail.split("`")[1]
    assert rewritten == "g = torch.autograd.grad(loss, w, create_graph=True)[0]"
    fixed = run_script(torch, tmp_path / "fixed.py", HVP.replace(
        "g = torch.autograd.grad(loss, w)[0]", rewritten))
    assert fixed["hvp"].shape == (5,)


HVP_NAMED = """\
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(5, 10), torch.nn.Tanh(), torch.nn.Linear(10, 1))
params = list(model.parameters())
loss = torch.nn.functional.mse_loss(model(torch.randn(20, 5)), torch.randn(20, 1))
grads = torch.autograd.grad(loss, params)
v = [torch.randn_like(p) for p in params]
gv = sum((g * vi).sum() for g, vi in zip(grads, v))
hvp = torch.autograd.grad(gv, params)
"""


@ON_BOTH_ENGINES
def test_a_named_product_of_gradients_without_a_graph_names_the_grad_line(
        engine: str, tmp_path: Path) -> None:
    """The root has a name (``gv``), which no ``autograd.grad`` line assigned: the line that
    assigned it reads ``grads``, which one did, without ``create_graph``."""
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match="does not require"):
        run_script(torch, tmp_path / "hvp.py", HVP_NAMED)
    (d,) = diagnose(rec)
    assert ("`gv`, computed from `grads`, does not require grad: `grads` was made by backward "
            "#1 at line 5") in d.summary
    assert fix_keys(d) == ["create_graph"]
    rewritten = d.fixes[0].detail.split("`")[1]
    assert rewritten == "grads = torch.autograd.grad(loss, params, create_graph=True)"
    fixed = run_script(torch, tmp_path / "fixed.py", HVP_NAMED.replace(
        "grads = torch.autograd.grad(loss, params)", rewritten))
    assert len(fixed["hvp"]) == 4
