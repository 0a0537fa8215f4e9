"""``torch.nn.utils`` reparametrizations checked against real PyTorch 2.13: the hook forms of
``spectral_norm`` and ``weight_norm`` (their parameters, buffers, power iteration after the same
seed, graphs, state_dict keys, warnings and errors), ``parametrize`` and ``parametrizations``,
``prune`` (random masks after the same seed), and a small GAN discriminator with spectral norm
trained two steps."""

from __future__ import annotations

import copy
import importlib
import pickle
from typing import Any

import pytest

from ._support import Recorder, differential

pytestmark = pytest.mark.torch


def _input(torch: Any, *shape: int) -> Any:
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float32).reshape(shape) * 0.37).sin()


def _layout(rec: Recorder, label: str, m: Any) -> None:
    rec.note(f"{label}: parameters", [n for n, _ in m.named_parameters()])
    rec.note(f"{label}: buffers", [n for n, _ in m.named_buffers()])
    rec.note(f"{label}: state_dict", list(m.state_dict()))
    rec.note(f"{label}: repr", repr(m))
    rec.note(f"{label}: class", type(m).__name__)


# -- spectral_norm (hook form) -------------------------------------------------------------------
@pytest.mark.parametrize("layer", ["Linear(4, 3)", "Conv2d(2, 3, 3)", "ConvTranspose2d(2, 3, 3)",
                                   "Conv1d(20, 2, 1)"])
def test_spectral_norm_hook_as_pytorch(layer: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        torch.manual_seed(0)
        m = eval(f"nn.{layer}", {"nn": nn})
        out = nn.utils.spectral_norm(m)
        rec.note("returns the module", out is m)
        _layout(rec, "after", m)
        rec.note("u, v", [m.weight_u, m.weight_v])
        rec.note("weight before forward", [m.weight, m.weight.requires_grad])
        x = _input(torch, 2, *({"Linear(4, 3)": (4,), "Conv1d(20, 2, 1)": (20, 3)}
                               .get(layer, (2, 5, 5))))
        for step in range(2):
            y = m(x)
            rec.note(f"step {step}: u, v, weight", [m.weight_u, m.weight_v, m.weight])
            rec.graph(f"step {step}: graph", weight=m.weight, weight_orig=m.weight_orig)
            y.sum().backward()
            rec.grad(f"step {step}", weight_orig=m.weight_orig)
        m.eval()
        m(x)
        rec.note("eval: u unchanged, weight", [m.weight_u, m.weight])
        rec.graph("eval: graph", weight=m.weight)
        rec.attempt("twice", lambda: nn.utils.spectral_norm(m))
        nn.utils.remove_spectral_norm(m)
        _layout(rec, "removed", m)
        rec.note("removed weight", [m.weight, type(m.weight).__name__])
        rec.attempt("remove again", lambda: nn.utils.remove_spectral_norm(m))
    differential(snippet)


def test_spectral_norm_options_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        torch.manual_seed(3)
        m = nn.utils.spectral_norm(nn.Linear(5, 4), n_power_iterations=3, dim=1, eps=1e-6)
        m(_input(torch, 1, 5))
        rec.note("values", [m.weight_u, m.weight_v, m.weight])
        rec.graph("graph", weight=m.weight)
        rec.attempt("bad iterations", lambda: nn.utils.spectral_norm(nn.Linear(2, 2),
                                                                     n_power_iterations=0))
        rec.attempt("other name", lambda: list(nn.utils.spectral_norm(
            nn.Linear(2, 2), name="bias").state_dict()))
    differential(snippet)


# -- weight_norm (hook form) ---------------------------------------------------------------------
@pytest.mark.parametrize("layer, dim", [("Linear(4, 3)", 0), ("Linear(4, 3)", 1),
                                        ("Conv2d(2, 3, 3)", None), ("Conv2d(2, 3, 3)", 1),
                                        ("Conv2d(2, 3, 3)", -1)])
def test_weight_norm_hook_as_pytorch(layer: str, dim: Any) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        torch.manual_seed(1)
        m = eval(f"nn.{layer}", {"nn": nn})
        rec.attempt("weight_norm", lambda: nn.utils.weight_norm(m, dim=dim) is m)
        _layout(rec, "after", m)
        rec.note("g, v", [m.weight_g, m.weight_v])
        rec.graph("graph at registration", weight=m.weight, g=m.weight_g, v=m.weight_v)
        x = _input(torch, 2, *((4,) if layer.startswith("Linear") else (2, 4, 4)))
        y = m(x)
        rec.graph("graph", weight=m.weight, g=m.weight_g, v=m.weight_v)
        (y * y).sum().backward()
        rec.grad("grads", g=m.weight_g, v=m.weight_v)
        rec.attempt("twice", lambda: nn.utils.weight_norm(m, dim=dim), record_warnings=False)
        nn.utils.remove_weight_norm(m)
        _layout(rec, "removed", m)
        rec.note("removed weight", m.weight)
        rec.attempt("remove again", lambda: nn.utils.remove_weight_norm(m))
    differential(snippet)


def test_weight_norm_functions_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        v = _input(torch, 3, 4).requires_grad_()
        g0 = _input(torch, 3, 1).add(1).requires_grad_()
        g1 = _input(torch, 1, 4).add(1).requires_grad_()
        for label, g, dim in (("first", g0, 0), ("last", g1, 1), ("negative", g1, -1)):
            w = torch._weight_norm(v, g, dim)
            rec.note(f"{label}: value", w)
            rec.graph(f"{label}: graph", w=w, v=v, g=g)
            rec.note(f"{label}: grads", torch.autograd.grad((w * w).sum(), (v, g)))
        out = torch._weight_norm_interface(v, g0, 0)
        rec.note("interface", list(out))
        for dim in (0, 1, -1):
            n = torch.norm_except_dim(v, 2, dim)
            rec.note(f"norm_except_dim {dim}", n)
            rec.graph(f"norm_except_dim {dim}: graph", n=n, v=v)
        rec.attempt("bad dim", lambda: torch._weight_norm(v, g0, 2))
        for label, g, dim in (("first", g0, 0), ("last", g1, 1)):
            w = torch._weight_norm(v, g, dim)
            gv, gg = torch.autograd.grad((w * w.sin()).sum(), (v, g), create_graph=True)
            rec.graph(f"{label}: create_graph", gv=gv, gg=gg, v=v, g=g)
            rec.note(f"{label}: second order", torch.autograd.grad((gv * gv).sum() + gg.sum(),
                                                                   (v, g)))
        w = torch._weight_norm(v.detach(), g0, 0)
        (gg,) = torch.autograd.grad(w.pow(2).sum(), g0, create_graph=True)
        rec.graph("g only", gg=gg, g=g0)
    differential(snippet)


# -- parametrize ---------------------------------------------------------------------------------
def _param_classes(nn: Any) -> tuple[Any, Any, Any]:
    class Symmetric(nn.Module):
        def forward(self, x: Any) -> Any:
            return x.triu() + x.triu(1).transpose(-1, -2)

    class Skew(nn.Module):
        def forward(self, x: Any) -> Any:
            a = x.triu(1)
            return a - a.T

        def right_inverse(self, a: Any) -> Any:
            return a.triu(1)

    class Halves(nn.Module):
        def forward(self, a: Any, b: Any) -> Any:
            return a + b

        def right_inverse(self, x: Any) -> Any:
            return x * 0.5, x * 0.5
    return Symmetric, Skew, Halves


def test_parametrize_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        P = nn.utils.parametrize
        Symmetric, Skew, Halves = _param_classes(nn)
        torch.manual_seed(0)
        m = nn.Linear(3, 3)
        rec.note("before", [P.is_parametrized(m), P.is_parametrized(m, "weight")])
        P.register_parametrization(m, "weight", Symmetric())
        _layout(rec, "registered", m)
        rec.note("is_parametrized", [P.is_parametrized(m), P.is_parametrized(m, "weight"),
                                     P.is_parametrized(m, "bias")])
        rec.note("modules", [n for n, _ in m.named_modules()])
        rec.note("kinds", [type(m.parametrizations).__name__,
                           type(m.parametrizations.weight).__name__,
                           P.type_before_parametrizations(m).__name__])
        rec.note("original", m.parametrizations.weight.original)
        w = m.weight
        rec.note("weight", w)
        rec.graph("graph", weight=w, original=m.parametrizations.weight.original)
        m(_input(torch, 2, 3)).sum().backward()
        rec.grad("grad", original=m.parametrizations.weight.original)
        with P.cached():
            rec.note("cached: same object", m.weight is m.weight)
        rec.note("uncached: new object", m.weight is m.weight)
        rec.attempt("no right_inverse", lambda: setattr(m, "weight", torch.eye(3)))
        P.register_parametrization(m, "weight", Symmetric())
        _layout(rec, "two", m)
        rec.attempt("remove unknown", lambda: P.remove_parametrizations(m, "bias"))
        P.remove_parametrizations(m, "weight")
        _layout(rec, "removed", m)
        rec.note("removed weight", [m.weight, type(m.weight).__name__])
        rec.attempt("remove again", lambda: P.remove_parametrizations(m, "weight"))
        rec.attempt("shape change", lambda: P.register_parametrization(
            m, "weight", nn.Flatten(0)))
        rec.attempt("no such tensor", lambda: P.register_parametrization(m, "w", Symmetric()))

        s = nn.Linear(3, 3)
        P.register_parametrization(s, "weight", Skew())
        rec.note("skew original", s.parametrizations.weight.original)
        s.weight = torch.ones(3, 3)
        rec.note("assigned", [s.parametrizations.weight.original, s.weight])
        P.remove_parametrizations(s, "weight", leave_parametrized=False)
        rec.note("left unparametrized", s.weight)

        h = nn.Linear(2, 2)
        P.register_parametrization(h, "weight", Halves())
        _layout(rec, "halves", h)
        rec.graph("halves graph", weight=h.weight)
        rec.attempt("cannot leave", lambda: P.remove_parametrizations(
            h, "weight", leave_parametrized=False))
        P.remove_parametrizations(h, "weight")
        _layout(rec, "halves removed", h)
        rec.note("halves weight", [h.weight, h.weight.requires_grad])
    differential(snippet)


# -- parametrizations ----------------------------------------------------------------------------
@pytest.mark.parametrize("layer", ["Linear(4, 3)", "ConvTranspose2d(2, 3, 3)", "Conv2d(2, 3, 3)"])
def test_parametrizations_spectral_norm_as_pytorch(layer: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        torch.manual_seed(0)
        m = nn.utils.parametrizations.spectral_norm(eval(f"nn.{layer}", {"nn": nn}))
        _layout(rec, "registered", m)
        sn = m.parametrizations.weight[0]
        rec.note("u, v", [sn._u, sn._v])
        x = _input(torch, 1, *((4,) if layer.startswith("Linear") else (2, 4, 4)))
        for step in range(2):
            w = m.weight
            rec.note(f"step {step}", [w, sn._u, sn._v, sn._u._version])
            rec.graph(f"step {step}: graph", weight=w,
                      original=m.parametrizations.weight.original)
            m(x).sum().backward()
            rec.grad(f"step {step}", original=m.parametrizations.weight.original)
        m.eval()
        rec.note("eval", [m.weight, sn._u])
        b = nn.utils.parametrizations.spectral_norm(nn.Linear(3, 3), "bias")
        rec.graph("vector", bias=b.bias)
        rec.attempt("no tensor", lambda: nn.utils.parametrizations.spectral_norm(
            nn.Linear(3, 3), "nope"))
        rec.attempt("bad dim", lambda: nn.utils.parametrizations.spectral_norm(
            nn.Linear(3, 3), dim=2))
    differential(snippet)


def test_parametrizations_weight_norm_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        P = nn.utils.parametrize
        torch.manual_seed(0)
        for dim in (0, None, 1):
            m = nn.utils.parametrizations.weight_norm(nn.Conv2d(2, 3, 3), dim=dim)
            _layout(rec, f"dim {dim}", m)
            p = m.parametrizations.weight
            rec.note(f"dim {dim}: g, v", [p.original0, p.original1])
            rec.graph(f"dim {dim}: graph", weight=m.weight, g=p.original0, v=p.original1)
            m(_input(torch, 1, 2, 4, 4)).pow(2).sum().backward()
            rec.grad(f"dim {dim}", g=p.original0, v=p.original1)
            P.remove_parametrizations(m, "weight")
            _layout(rec, f"dim {dim}: removed", m)
            rec.note(f"dim {dim}: weight", m.weight)
    differential(snippet)


@pytest.mark.parametrize("layer, options", [
    ("Linear(3, 3)", {}), ("Linear(4, 3)", {"orthogonal_map": "cayley"}),
    ("Linear(3, 5)", {"orthogonal_map": "matrix_exp"}),
    ("Linear(3, 3)", {"orthogonal_map": "cayley"}),
    ("Linear(3, 3)", {"use_trivialization": False}), ("Linear(3, 5)", {}),
    ("Linear(3, 5)", {"use_trivialization": False}),
    ("Linear(3, 3)", {"orthogonal_map": "householder"})])
def test_parametrizations_orthogonal_as_pytorch(layer: str, options: dict[str, Any]) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        torch.manual_seed(0)
        m = nn.utils.parametrizations.orthogonal(eval(f"nn.{layer}", {"nn": nn}), **options)
        _layout(rec, "registered", m)
        original = m.parametrizations.weight.original
        rec.note("original", original)
        w = m.weight
        rec.note("weight", w)
        rec.note("orthogonal", (w @ w.mT if w.shape[0] <= w.shape[1] else w.mT @ w).detach())
        rec.graph("graph", weight=w, original=original)
        m(_input(torch, 2, m.in_features)).pow(2).sum().backward()
        rec.grad("grad", original=original)
        rec.attempt("assign", lambda: setattr(m, "weight", torch.eye(*m.weight.shape)))
        rec.note("after assign", [original, m.weight])
        rec.attempt("vector", lambda: nn.utils.parametrizations.orthogonal(nn.Linear(2, 2),
                                                                           "bias"))
        rec.attempt("bad map", lambda: nn.utils.parametrizations.orthogonal(
            nn.Linear(2, 2), orthogonal_map="foo"))
    differential(snippet)


def test_matrix_exp_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = (_input(torch, 2, 3, 3) * 0.8).requires_grad_()
        e = torch.matrix_exp(a)
        rec.note("value", e)
        rec.graph("graph", e=e, a=a)
        rec.note("grad", torch.autograd.grad((e * e.cos()).sum(), a))
        rec.note("large", torch.linalg.matrix_exp(_input(torch, 4, 4) * 9))
        for label, x in (("1-d", torch.ones(3)), ("not square", torch.ones(2, 3)),
                         ("integer", torch.ones(2, 2, dtype=torch.long))):
            rec.attempt(label, lambda x=x: torch.matrix_exp(x))
    differential(snippet)


def test_householder_product_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = _input(torch, 2, 4, 3).requires_grad_()
        tau = (_input(torch, 2, 3) + 1.2).requires_grad_()
        q = torch.linalg.householder_product(a, tau)
        rec.note("value", [q, q.stride()])
        rec.graph("graph", q=q, a=a, tau=tau)
        rec.note("grads", torch.autograd.grad(q.sum(), (a, tau)))
        # NB: float64, where float32 rounding (PyTorch's kernel) would exceed the tolerance
        a64, tau64 = a.detach().double().requires_grad_(), tau.detach().double().requires_grad_()
        q64 = torch.linalg.householder_product(a64 * 2, tau64)
        rec.note("grads float64", torch.autograd.grad((q64 * q64.sin()).sum(), (a64, tau64)))
        rec.note("fewer reflectors", torch.orgqr(a[0], tau[0, :2]))
        for label, x, t in (("1-d", torch.ones(3), torch.ones(1)),
                            ("wide", torch.ones(2, 3), torch.ones(2)),
                            ("long tau", torch.ones(3, 2), torch.ones(3)),
                            ("tau dims", torch.ones(3, 2), torch.ones(2, 2))):
            rec.attempt(label, lambda x=x, t=t: torch.linalg.householder_product(x, t))
    differential(snippet)


def test_copies_and_checkpoints_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        pz = nn.utils.parametrizations
        torch.manual_seed(0)
        m = nn.utils.spectral_norm(nn.Linear(3, 2))
        m(torch.ones(1, 3))
        rec.attempt("deepcopy after forward", lambda: copy.deepcopy(m))
        m2 = nn.utils.spectral_norm(nn.Linear(3, 2))
        rec.note("load hook form", [str(m2.load_state_dict(m.state_dict())),
                                    m2.weight_u, m2.weight_orig])
        p = pz.spectral_norm(nn.Linear(3, 2))
        d = copy.deepcopy(p)
        rec.note("deepcopy parametrized", [type(d).__name__, d.weight, list(d.state_dict()),
                                           d.parametrizations.weight.original
                                           is not p.parametrizations.weight.original])
        q = pz.spectral_norm(nn.Linear(3, 2))
        rec.note("load parametrized", [str(q.load_state_dict(p.state_dict())), q.weight])
        rec.note("weight norm copy", copy.deepcopy(pz.weight_norm(nn.Linear(3, 2))).weight)
        rec.attempt("pickle", lambda: pickle.dumps(p))
    differential(snippet)


# -- prune ---------------------------------------------------------------------------------------
def _prune(rec: Recorder) -> Any:
    """``torch.nn.utils.prune`` (PyTorch's is a submodule to import)."""
    if rec.is_real:
        return importlib.import_module("torch.nn.utils.prune")
    return rec.torch.nn.utils.prune


def test_prune_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        prune = _prune(rec)
        torch.manual_seed(0)
        m = nn.Linear(4, 3)
        rec.note("is_pruned before", prune.is_pruned(m))
        rec.note("returns the module", prune.l1_unstructured(m, "weight", amount=0.3) is m)
        _layout(rec, "l1", m)
        rec.note("mask, weight", [m.weight_mask, m.weight])
        rec.graph("graph", weight=m.weight, weight_orig=m.weight_orig)
        rec.note("hooks", [type(h).__name__ for h in m._forward_pre_hooks.values()])
        prune.random_unstructured(m, "weight", amount=2)
        hook = next(iter(m._forward_pre_hooks.values()))
        rec.note("container", [type(hook).__name__, [type(h).__name__ for h in hook],
                               hook._tensor_name])
        rec.note("mask after random", m.weight_mask)
        y = m(_input(torch, 2, 4))
        y.sum().backward()
        rec.grad("grad", weight_orig=m.weight_orig)
        prune.remove(m, "weight")
        _layout(rec, "removed", m)
        rec.note("removed", [m.weight, type(m.weight).__name__, prune.is_pruned(m)])

        c = nn.Conv2d(2, 4, 2)
        prune.ln_structured(c, "weight", amount=0.5, n=2, dim=0)
        rec.note("ln", c.weight_mask)
        prune.random_structured(c, "weight", amount=1, dim=1)
        rec.note("random structured", c.weight_mask)
        prune.ln_structured(c, "weight", amount=1, n=1, dim=-1)
        rec.note("ln again", c.weight_mask)
        prune.identity(c, "bias")
        _layout(rec, "conv", c)
        a, b = nn.Linear(3, 3), nn.Linear(3, 2)
        prune.l1_unstructured(a, "weight", amount=2)
        prune.global_unstructured([(a, "weight"), (b, "weight")],
                                  pruning_method=prune.L1Unstructured, amount=5)
        rec.note("global", [a.weight_mask, b.weight_mask])
        prune.global_unstructured([(a, "bias"), (b, "bias")],
                                  pruning_method=prune.RandomUnstructured, amount=0.4)
        rec.note("global random", [a.bias_mask, b.bias_mask])
        m2 = nn.Linear(2, 2)
        prune.custom_from_mask(m2, "weight", torch.tensor([[1.0, 0.0], [0.0, 1.0]]))
        rec.note("custom", m2.weight)
        for label, fn in (
                ("amount > 1", lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", 1.5)),
                ("amount too big", lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", 10)),
                ("amount type", lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", "1")),
                ("not pruned", lambda: prune.remove(nn.Linear(2, 2), "weight")),
                ("no tensor", lambda: prune.l1_unstructured(nn.Linear(2, 2), "wt", 1)),
                ("structured 1-d", lambda: prune.ln_structured(nn.Linear(2, 2), "bias", 1, 2, 0))):
            rec.attempt(label, fn)
        try:
            prune.global_unstructured([(nn.Linear(2, 2), "weight")], prune.RandomStructured,
                                      amount=1)
        except TypeError as e:
            # NB: the message names the class by its module path, which differs
            rec.note("global structured", str(e).split("<class")[0] + str(e).split(">")[-1])
    differential(snippet)


# -- a GAN discriminator -------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["hook", "parametrization"])
def test_gan_discriminator_with_spectral_norm_as_pytorch(form: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        sn = (nn.utils.spectral_norm if form == "hook"
              else nn.utils.parametrizations.spectral_norm)
        torch.manual_seed(0)
        disc = nn.Sequential(
            sn(nn.Conv2d(1, 4, 3, stride=2, padding=1)), nn.LeakyReLU(0.2),
            sn(nn.Conv2d(4, 8, 3, stride=2, padding=1)), nn.LeakyReLU(0.2),
            nn.Flatten(), sn(nn.Linear(8 * 2 * 2, 1)))
        rec.note("state_dict", list(disc.state_dict()))
        opt = torch.optim.Adam(disc.parameters(), lr=2e-3, betas=(0.5, 0.999))
        real = _input(torch, 4, 1, 8, 8)
        fake = real.flip(-1) * 0.5
        for step in range(2):
            opt.zero_grad()
            loss = (nn.functional.softplus(-disc(real)).mean()
                    + nn.functional.softplus(disc(fake)).mean())
            rec.note(f"step {step}: loss", loss)
            loss.backward()
            opt.step()
            rec.note(f"step {step}: state", dict(disc.state_dict()))
        disc.eval()
        rec.note("eval scores", disc(real))
    differential(snippet)


# -- functional_call -----------------------------------------------------------------------------
def test_functional_call_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        func = importlib.import_module(f"{torch.__name__}.func")
        torch.manual_seed(0)
        m = nn.Linear(3, 2)
        params = {k: v.detach().clone().mul(2).requires_grad_() for k, v in m.named_parameters()}
        x = _input(torch, 2, 3)
        y = func.functional_call(m, params, (x,))
        rec.note("value", y)
        rec.graph("graph", y=y, weight=params["weight"], bias=params["bias"])
        y.sum().backward()
        rec.grad("grads", weight=params["weight"], module_weight=m.weight)
        rec.note("restored", [type(m.weight).__name__, m.weight, list(m.state_dict())])
        rec.note("one dict, bare arg", func.functional_call(m, {"weight": params["weight"]}, x))
        rec.note("two dicts", func.functional_call(
            m, ({"weight": params["weight"]}, {"bias": params["bias"]}), (x,), {}))
        for label, fn in (
                ("strict unexpected", lambda: func.functional_call(
                    m, {"nope": params["weight"]}, (x,), strict=True)),
                ("strict missing", lambda: func.functional_call(
                    m, {"weight": params["weight"]}, (x,), strict=True)),
                ("repeated", lambda: func.functional_call(
                    m, ({"weight": params["weight"]}, {"weight": params["weight"]}), (x,)))):
            rec.attempt(label, fn)
        bn = nn.BatchNorm1d(3)
        rm = torch.zeros(3)
        func.functional_call(bn, {"running_mean": rm}, (_input(torch, 4, 3),))
        rec.note("buffers swapped", [rm, bn.running_mean, bn.num_batches_tracked])
        tied = nn.Sequential(nn.Linear(2, 2, bias=False), nn.Linear(2, 2, bias=False))
        tied[1].weight = tied[0].weight
        w = torch.eye(2).requires_grad_()
        out = func.functional_call(tied, {"0.weight": w}, (_input(torch, 1, 2),))
        rec.note("tied", out)
        out = func.functional_call(tied, {"0.weight": w}, (_input(torch, 1, 2),),
                                   tie_weights=False)
        rec.note("untied", out)
        rec.attempt("tied twice", lambda: func.functional_call(
            tied, {"0.weight": w, "1.weight": w.clone()}, (_input(torch, 1, 2),)))
        rec.attempt("stateless", lambda: nn.utils.stateless.functional_call(m, params, (x,)))
        p, b = func.stack_module_state([nn.Linear(3, 2) for _ in range(3)])
        rec.note("stacked", {k: [v, v.requires_grad, v.is_leaf] for k, v in p.items()})
        rec.note("stacked buffers", b)
        rec.attempt("stack none", lambda: func.stack_module_state([]))
        rec.attempt("stack mixed", lambda: func.stack_module_state([nn.Linear(1, 1),
                                                                     nn.ReLU()]))
    differential(snippet)


def test_reparametrizations_are_importable_as_in_a_script() -> None:
    from graphviz_autograd.torch_alias import native_torch

    with native_torch():
        import torch.nn.utils.parametrizations as pz
        import torch.nn.utils.parametrize as pm
        import torch.nn.utils.prune as pr
        from torch.func import functional_call
        from torch.nn.utils import stateless
    assert pz.spectral_norm.__module__.startswith("graphviz_autograd")
    assert pm.cached.__module__.startswith("graphviz_autograd")
    assert pr.l1_unstructured.__module__.startswith("graphviz_autograd")
    assert functional_call.__module__.startswith("graphviz_autograd")
    assert stateless.functional_call.__module__.startswith("graphviz_autograd")
