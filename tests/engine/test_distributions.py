"""``torch.distributions`` against real PyTorch 2.13: the samples after the same seed (to the
bit), log_prob / entropy / cdf values, their graphs node for node and their gradients, the
KL divergences, argument validation word for word, and a REINFORCE loop."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from graphviz_autograd.torch_alias import native_torch

from ._support import ROOT, Recorder, differential

pytestmark = pytest.mark.torch


def _bits(rec: Recorder, label: str, t: Any) -> None:
    """A sample, to the bit (the float comparison allows 1e-5), with its dtype and shape."""
    rec.note(label, [t.detach().numpy().tobytes().hex(), str(t.dtype), list(t.shape)])


def _leaf(torch: Any, values: Any, dtype: Any = None) -> Any:
    return torch.tensor(values, dtype=dtype or torch.float32, requires_grad=True)


def _observe(rec: Recorder, label: str, out: Any, **leaves: Any) -> None:
    """``out``'s value and graph, then the leaves' gradients of its sum."""
    rec.note(f"{label}: value", out)
    rec.graph(f"{label}: graph", out=out, **leaves)
    if out.requires_grad:
        out.sum().backward(retain_graph=True)
        rec.grad(label, **leaves)
        for t in leaves.values():
            t.grad = None


def test_normal_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        loc, scale = _leaf(torch, [0.5, -1.0, 2.0]), _leaf(torch, [1.0, 0.5, 2.5])
        d = D.Normal(loc, scale)
        rec.note("shapes", [d.batch_shape, d.event_shape, d.has_rsample])
        rec.note("repr", repr(d))
        torch.manual_seed(3)
        _bits(rec, "sample", d.sample())
        _bits(rec, "sample (4, 2)", d.sample((4, 2)))
        _bits(rec, "sample 20", d.sample(torch.Size([20])))
        torch.manual_seed(4)
        r = d.rsample((2,))
        _bits(rec, "rsample", r)
        _observe(rec, "rsample", r, loc=loc, scale=scale)
        value = torch.tensor([0.3, -0.2, 4.0])
        for name in ("log_prob", "cdf"):
            _observe(rec, name, getattr(d, name)(value), loc=loc, scale=scale)
        _observe(rec, "icdf", d.icdf(torch.tensor([0.1, 0.5, 0.9])), loc=loc, scale=scale)
        _observe(rec, "entropy", d.entropy(), loc=loc, scale=scale)
        for name in ("mean", "stddev", "variance", "mode"):
            _observe(rec, name, getattr(d, name), loc=loc, scale=scale)
        e = d.expand((2, 3))
        rec.note("expand", [e.batch_shape, e.loc, repr(e)])
        _bits(rec, "expanded sample", e.sample())
        n = D.Normal(0.0, 1.0)
        rec.note("numbers", [n.batch_shape, n.loc, repr(n), n.log_prob(torch.tensor(0.5))])
        _bits(rec, "numbers sample", n.sample((5,)))
        lp = D.Normal(loc, 2.0).log_prob(torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
        _observe(rec, "broadcast log_prob", lp, loc=loc)
    differential(snippet)


def test_categorical_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        w = _leaf(torch, [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
        d = D.Categorical(probs=w)
        rec.note("shapes", [d.batch_shape, d.event_shape, d.param_shape, d._num_events])
        rec.note("repr", repr(d))
        torch.manual_seed(0)
        _bits(rec, "sample", d.sample())
        _bits(rec, "sample (6,)", d.sample((6,)))
        _bits(rec, "sample (2, 2)", d.sample((2, 2)))
        _observe(rec, "log_prob", d.log_prob(torch.tensor([2, 0])), w=w)
        _observe(rec, "log_prob batch", d.log_prob(torch.tensor([[1, 1], [0, 2]])), w=w)
        _observe(rec, "entropy", d.entropy(), w=w)
        rec.note("mode", d.mode)
        logits = _leaf(torch, [1.0, -0.5, 0.25, 2.0])
        c = D.Categorical(logits=logits)
        torch.manual_seed(1)
        _bits(rec, "logits sample", c.sample((10,)))
        _observe(rec, "logits", c.logits, logits=logits)
        _observe(rec, "probs", c.probs, logits=logits)
        _observe(rec, "logits log_prob", c.log_prob(torch.tensor(3)), logits=logits)
        _observe(rec, "logits entropy", c.entropy(), logits=logits)
        rec.note("enumerate", [d.enumerate_support(), d.enumerate_support(False)])
        rec.note("mean", [c.mean, c.variance])
        e = c.expand((2,))
        _bits(rec, "expanded", e.sample())
        rec.note("expanded", [e.batch_shape, e.logits])
    differential(snippet)


def test_bernoulli_uniform_laplace_exponential_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        for dtype in (torch.float32, torch.float64):
            p = _leaf(torch, [0.1, 0.5, 0.9, 0.3], dtype)
            b = D.Bernoulli(probs=p)
            torch.manual_seed(2)
            _bits(rec, "bernoulli sample", b.sample())
            _bits(rec, "bernoulli sample (3,)", b.sample((3,)))
            _observe(rec, "bernoulli log_prob", b.log_prob(
                torch.tensor([1.0, 0.0, 1.0, 1.0], dtype=dtype)), p=p)
            _observe(rec, "bernoulli entropy", b.entropy(), p=p)
            _observe(rec, "bernoulli logits", b.logits, p=p)
            rec.note("bernoulli", [b.mean, b.variance, b.mode, repr(b)])
        lg = _leaf(torch, [0.3, -2.0])
        bl = D.Bernoulli(logits=lg)
        _observe(rec, "bernoulli(logits) log_prob", bl.log_prob(torch.tensor([0.0, 1.0])), lg=lg)
        _observe(rec, "bernoulli(logits) probs", bl.probs, lg=lg)
        torch.manual_seed(5)
        _bits(rec, "bernoulli(logits) sample", bl.sample((4,)))
        rec.note("bernoulli(0.3)", [D.Bernoulli(0.3).batch_shape, repr(D.Bernoulli(0.3))])
        lo, hi = _leaf(torch, [0.0, -1.0]), _leaf(torch, [1.0, 3.0])
        u = D.Uniform(lo, hi)
        torch.manual_seed(6)
        r = u.rsample((3,))
        _bits(rec, "uniform rsample", r)
        _observe(rec, "uniform rsample", r, lo=lo, hi=hi)
        _observe(rec, "uniform log_prob", u.log_prob(torch.tensor([0.5, 2.0])), lo=lo, hi=hi)
        _observe(rec, "uniform entropy", u.entropy(), lo=lo, hi=hi)
        _observe(rec, "uniform cdf", u.cdf(torch.tensor([0.5, 2.5])), lo=lo, hi=hi)
        rec.note("uniform", [u.mean, u.stddev, u.variance, repr(u)])
        loc, scale = _leaf(torch, [0.0, 1.0]), _leaf(torch, [1.0, 0.5])
        la = D.Laplace(loc, scale)
        torch.manual_seed(7)
        r = la.rsample((3,))
        _bits(rec, "laplace rsample", r)
        _observe(rec, "laplace rsample", r, loc=loc, scale=scale)
        _observe(rec, "laplace log_prob", la.log_prob(torch.tensor([0.5, 2.0])), loc=loc,
                 scale=scale)
        _observe(rec, "laplace entropy", la.entropy(), loc=loc, scale=scale)
        _observe(rec, "laplace cdf", la.cdf(torch.tensor([0.5, 0.0])), loc=loc, scale=scale)
        rate = _leaf(torch, [0.5, 2.0])
        ex = D.Exponential(rate)
        torch.manual_seed(8)
        r = ex.rsample((3,))
        _bits(rec, "exponential rsample", r)
        _observe(rec, "exponential rsample", r, rate=rate)
        _observe(rec, "exponential log_prob", ex.log_prob(torch.tensor([0.5, 2.0])), rate=rate)
        _observe(rec, "exponential entropy", ex.entropy(), rate=rate)
        rec.note("exponential", [ex.mean, ex.variance, repr(ex)])
    differential(snippet)


def test_independent_multivariate_normal_one_hot_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        loc, scale = _leaf(torch, [[0.0, 1.0, 2.0]]), _leaf(torch, [[1.0, 0.5, 2.0]])
        ind = D.Independent(D.Normal(loc, scale), 1)
        rec.note("independent", [ind.batch_shape, ind.event_shape, repr(ind)])
        _observe(rec, "independent log_prob", ind.log_prob(torch.tensor([[0.1, 0.2, 0.3]])),
                 loc=loc, scale=scale)
        _observe(rec, "independent entropy", ind.entropy(), loc=loc, scale=scale)
        torch.manual_seed(9)
        _bits(rec, "independent sample", ind.sample((2,)))
        mu = _leaf(torch, [0.5, -0.5])
        tril = _leaf(torch, [[1.0, 0.0], [0.3, 0.8]])
        mvn = D.MultivariateNormal(mu, scale_tril=tril)
        rec.note("mvn", [mvn.batch_shape, mvn.event_shape])
        torch.manual_seed(10)
        r = mvn.rsample((3,))
        _bits(rec, "mvn rsample", r)
        _observe(rec, "mvn rsample", r, mu=mu, tril=tril)
        _observe(rec, "mvn log_prob", mvn.log_prob(torch.tensor([[0.2, 0.1], [1.0, -1.0]])),
                 mu=mu, tril=tril)
        _observe(rec, "mvn entropy", mvn.entropy(), mu=mu, tril=tril)
        cov = _leaf(torch, [[2.0, 0.5], [0.5, 1.0]])
        mc = D.MultivariateNormal(mu, covariance_matrix=cov)
        _observe(rec, "mvn(cov) log_prob", mc.log_prob(torch.tensor([0.2, 0.1])), mu=mu, cov=cov)
        rec.note("mvn(cov)", [mc.variance, mc.scale_tril, mc.covariance_matrix])
        _observe(rec, "mvn precision", mc.precision_matrix, mu=mu, cov=cov)
        probs = _leaf(torch, [0.2, 0.3, 0.5])
        oh = D.OneHotCategorical(probs=probs)
        torch.manual_seed(11)
        _bits(rec, "one-hot sample", oh.sample((4,)))
        _observe(rec, "one-hot log_prob", oh.log_prob(torch.tensor([0.0, 1.0, 0.0])),
                 probs=probs)
        _observe(rec, "one-hot entropy", oh.entropy(), probs=probs)
        rec.note("one-hot", [oh.batch_shape, oh.event_shape, oh.mean, oh.mode])
    differential(snippet)


def test_kl_divergence_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        a, b = _leaf(torch, [0.0, 1.0]), _leaf(torch, [1.0, 0.5])
        c, d = _leaf(torch, [0.5, 0.5]), _leaf(torch, [2.0, 1.0])
        pairs = {
            "normal": (D.Normal(a, b), D.Normal(c, d)),
            "laplace": (D.Laplace(a, b), D.Laplace(c, d)),
            "exponential": (D.Exponential(b), D.Exponential(d)),
            "independent": (D.Independent(D.Normal(a, b), 1), D.Independent(D.Normal(c, d), 1)),
            "uniform": (D.Uniform(a, a + d), D.Uniform(a - 1, a + d + 1)),
        }
        for name, (p, q) in pairs.items():
            _observe(rec, f"kl {name}", D.kl_divergence(p, q), a=a, b=b, c=c, d=d)
        pw, qw = _leaf(torch, [0.2, 0.3, 0.5]), _leaf(torch, [0.4, 0.4, 0.2])
        _observe(rec, "kl categorical", D.kl.kl_divergence(
            D.Categorical(probs=pw), D.Categorical(logits=qw)), pw=pw, qw=qw)
        _observe(rec, "kl bernoulli", D.kl_divergence(
            D.Bernoulli(probs=pw), D.Bernoulli(probs=qw)), pw=pw, qw=qw)
        tril = _leaf(torch, [[1.0, 0.0], [0.3, 0.8]])
        cov = _leaf(torch, [[2.0, 0.5], [0.5, 1.0]])
        _observe(rec, "kl mvn", D.kl_divergence(D.MultivariateNormal(a, scale_tril=tril),
                                                D.MultivariateNormal(c, covariance_matrix=cov)),
                 a=a, c=c, tril=tril, cov=cov)
        rec.attempt("kl categorical-normal",
                    lambda: D.kl_divergence(D.Categorical(pw), D.Normal(a, b)))
    differential(snippet)


def test_validation_errors_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        t = torch.tensor
        rec.attempt("negative scale", lambda: D.Normal(t([0.0, 1.0]), t([1.0, -1.0])))
        rec.attempt("negative scale (numbers)", lambda: D.Normal(0.0, -1.0))
        rec.attempt("zero scale, requires grad",
                    lambda: D.Normal(t([0.0]), t([0.0], requires_grad=True)))
        rec.attempt("probs above 1", lambda: D.Bernoulli(probs=t([0.5, 1.5])))
        rec.attempt("probs not a simplex", lambda: D.Categorical(probs=t([0.5, -0.5])))
        rec.attempt("both", lambda: D.Categorical(probs=t([0.5, 0.5]), logits=t([0.0, 0.0])))
        rec.attempt("neither", lambda: D.Bernoulli())
        rec.attempt("0-d probs", lambda: D.Categorical(probs=t(0.5)))
        rec.attempt("low >= high", lambda: D.Uniform(t([0.0]), t([0.0])))
        rec.attempt("rate", lambda: D.Exponential(t([-2.0])))
        rec.attempt("nan loc", lambda: D.Normal(t([float("nan")]), t([1.0])))
        rec.attempt("bernoulli value", lambda: D.Bernoulli(t([0.5])).log_prob(t([0.5])))
        rec.attempt("categorical value", lambda: D.Categorical(t([0.5, 0.5])).log_prob(t([2])))
        rec.attempt("exponential value", lambda: D.Exponential(t([1.0])).log_prob(t([-1.0])))
        rec.attempt("uniform value", lambda: D.Uniform(0.0, 1.0).log_prob(t(2.0)))
        rec.attempt("shape", lambda: D.Normal(t([0.0, 0.0]), 1.0).log_prob(t([1.0, 2.0, 3.0])))
        rec.attempt("not a tensor", lambda: D.Normal(0.0, 1.0).log_prob(0.5))
        rec.attempt("unvalidated", lambda: D.Normal(0.0, -1.0, validate_args=False).scale)
        rec.attempt("independent ndims", lambda: D.Independent(D.Normal(t([0.0]), 1.0), 2))
        rec.attempt("mvn two", lambda: D.MultivariateNormal(t([0.0]), t([[1.0]]),
                                                             scale_tril=t([[1.0]])))
        rec.attempt("mvn tril", lambda: D.MultivariateNormal(t([0.0]), scale_tril=t([[-1.0]])))
    differential(snippet)


def test_random_primitives_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        m = torch.arange(20.0) / 7
        s = torch.arange(1.0, 21.0) / 3
        for n in (3, 20):
            for label, args in (("tensor, tensor", (m[:n], s[:n])), ("tensor, float", (m[:n], 2.5)),
                                ("float, tensor", (1.5, s[:n]))):
                torch.manual_seed(n)
                _bits(rec, f"normal {label} {n}", torch.normal(*args))
        torch.manual_seed(1)
        _bits(rec, "normal sizes", torch.normal(1.5, 2.0, (20,)))
        _bits(rec, "normal sizes double", torch.normal(1.5, 2.0, size=(3,), dtype=torch.float64))
        _bits(rec, "normal broadcast", torch.normal(m[:3].view(3, 1), s[:2]))
        rec.attempt("normal negative std", lambda: torch.normal(m, -s))
        rec.attempt("normal negative float", lambda: torch.normal(m, -1.0))
        p = torch.rand(30)
        for dtype in (torch.float32, torch.float64):
            torch.manual_seed(2)
            _bits(rec, f"bernoulli {dtype}", torch.bernoulli(p.to(dtype)))
            _bits(rec, "method", p.to(dtype).bernoulli())
            _bits(rec, "scalar p", torch.bernoulli(p.to(dtype), 0.25))
        rec.attempt("bernoulli p > 1", lambda: torch.bernoulli(torch.tensor([1.5])))
        probs = torch.tensor([0.1, 0.5, 0.9, 0.3])
        for dtype in (torch.float32, torch.float64, torch.long):
            for pd in (torch.float32, torch.float64):
                torch.manual_seed(4)
                _bits(rec, f"bernoulli_({pd}) into {dtype}",
                      torch.empty(3, 4, dtype=dtype).bernoulli_(probs.to(pd)))
        torch.manual_seed(5)
        _bits(rec, "bernoulli_(p) into a transposed tensor",
              torch.empty(4, 3).t().bernoulli_(probs).contiguous())
        torch.manual_seed(3)
        _bits(rec, "normal_", torch.empty(5).normal_())
        _bits(rec, "exponential_", torch.empty(5).exponential_())
        _bits(rec, "exponential_ transposed", torch.empty(4, 3).t().exponential_().contiguous())
        _bits(rec, "uniform_", torch.empty(5).uniform_(-1, 1))
        fi = torch.finfo(torch.float32)
        rec.note("finfo", [fi.eps, fi.min, fi.max, fi.tiny, torch.finfo(torch.float64).eps])
        rec.note("new", [p.new((2, 3)), p.new(torch.Size([2, 3])).shape, p.new(2).shape,
                        p.new([1, 2])])
        rec.note("broadcast_shapes", torch.broadcast_shapes((2, 1), (3,)))
    differential(snippet)


def test_reinforce_loop_as_pytorch() -> None:
    """A Categorical policy trained by REINFORCE: losses, graphs and gradients at each step."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        torch.manual_seed(0)
        policy = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
        opt = torch.optim.Adam(policy.parameters(), lr=0.01)
        states = torch.randn(5, 4)
        for step in range(3):
            dist = torch.distributions.Categorical(logits=policy(states))
            actions = dist.sample()
            _bits(rec, f"actions {step}", actions)
            returns = (actions.float() - 1.0) * 2.0
            loss = -(dist.log_prob(actions) * returns).mean() - 0.01 * dist.entropy().mean()
            rec.note(f"loss {step}", loss)
            rec.graph(f"graph {step}", loss=loss)
            opt.zero_grad()
            loss.backward()
            rec.grad(f"grads {step}", **dict(policy.named_parameters()))
            opt.step()
        mu = nn.Linear(4, 2)
        log_std = nn.Parameter(torch.zeros(2))
        opt = torch.optim.SGD([*mu.parameters(), log_std], lr=0.1)
        for step in range(2):
            dist = torch.distributions.Normal(mu(states), log_std.exp())
            a = dist.sample()
            loss = -(dist.log_prob(a).sum(-1) * a.sum(-1)).mean()
            rec.note(f"gaussian loss {step}", loss)
            opt.zero_grad()
            loss.backward()
            rec.grad(f"gaussian grads {step}", log_std=log_std)
            opt.step()
    differential(snippet)


def test_import_torch_distributions_under_the_alias() -> None:
    with native_torch():
        import torch
        from torch.distributions import Normal
        from torch.distributions.kl import kl_divergence
        assert Normal is torch.distributions.Normal
        assert float(kl_divergence(Normal(0.0, 1.0), Normal(0.0, 1.0))) == 0.0


def test_script_run_by_the_cli_uses_the_engines_distributions(tmp_path: Any) -> None:
    script = tmp_path / "policy.py"
    script.write_text(
        "import torch\n"
        "from torch.distributions import Categorical, Normal\n"
        "torch.manual_seed(0)\n"
        "d = Categorical(logits=torch.tensor([0.0, 1.0, 2.0], requires_grad=True))\n"
        "a = d.sample((4,))\n"
        "print(type(d).__module__, a.tolist(), Normal(0.0, 1.0).sample().item())\n")
    out = subprocess.run([sys.executable, "-m", "graphviz_autograd", "run", str(script)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    real = pytest.importorskip("torch")
    real.manual_seed(0)
    d = real.distributions.Categorical(logits=real.tensor([0.0, 1.0, 2.0]))
    expected = f"{d.sample((4,)).tolist()} {real.distributions.Normal(0.0, 1.0).sample().item()}"
    assert "graphviz_autograd.torch.distributions.categorical" in out.stdout
    assert expected in out.stdout


def test_transformed_distributions_as_pytorch() -> None:
    """A tanh-squashed Gaussian policy (SAC's), LogNormal, HalfNormal, Gumbel and the
    transforms' log |det J|, inverses and caches. Samples pass through exp, tanh and log, whose
    last bit numpy's float32 kernels and PyTorch's vectorised ones may round differently: they
    are compared to 1e-5 (the draws beneath are the bit-exact ones of the tests above)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        T = D.transforms
        mu, log_std = _leaf(torch, [0.2, -0.4, 1.0]), _leaf(torch, [-0.5, 0.0, 0.3])
        squashed = D.TransformedDistribution(
            D.Normal(mu, log_std.exp()),
            [T.TanhTransform(cache_size=1), T.AffineTransform(0.5, 2.0)])
        rec.note("squashed", [squashed.batch_shape, squashed.event_shape, squashed.has_rsample,
                              repr(squashed.support)])
        torch.manual_seed(12)
        a = squashed.rsample()
        rec.note("squashed rsample", a)
        _observe(rec, "squashed log_prob", squashed.log_prob(a), mu=mu, log_std=log_std)
        torch.manual_seed(13)
        rec.note("squashed sample", squashed.sample((2,)))
        _observe(rec, "squashed log_prob of a value",
                 squashed.log_prob(torch.tensor([0.3, 1.9, -1.0])), mu=mu, log_std=log_std)
        ind = D.Independent(D.TransformedDistribution(D.Normal(mu, 1.0), T.SigmoidTransform()), 1)
        _observe(rec, "sigmoid log_prob", ind.log_prob(torch.tensor([0.3, 0.5, 0.9])), mu=mu)
        compose = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 3.0)])
        for name, t in (("exp", T.ExpTransform()), ("softplus", T.SoftplusTransform()),
                        ("power", T.PowerTransform(torch.tensor(2.0))), ("abs", T.AbsTransform()),
                        ("compose", compose)):
            x = mu * 1
            y = t(x)
            rec.note(f"{name}", [repr(t), t.bijective, y])
            if name != "abs":
                _observe(rec, f"{name} log|det J|", t.log_abs_det_jacobian(x, y), mu=mu)
                _observe(rec, f"{name} inverse", t.inv(y), mu=mu)
                rec.note(f"{name} inverse", [repr(t.inv), t.inv.inv is t])
        ln = D.LogNormal(mu, log_std.exp())
        torch.manual_seed(14)
        r = ln.rsample((2,))
        rec.note("lognormal rsample", r)
        _observe(rec, "lognormal log_prob", ln.log_prob(torch.tensor([0.5, 1.0, 2.0])), mu=mu,
                 log_std=log_std)
        _observe(rec, "lognormal entropy", ln.entropy(), mu=mu, log_std=log_std)
        rec.note("lognormal", [ln.mean, ln.variance, ln.mode, repr(ln)])
        hn = D.HalfNormal(log_std.exp())
        torch.manual_seed(15)
        rec.note("halfnormal sample", hn.sample((2,)))
        _observe(rec, "halfnormal log_prob", hn.log_prob(torch.tensor([0.5, 1.0, 2.0])),
                 log_std=log_std)
        rec.note("halfnormal", [hn.mean, hn.variance, hn.entropy(), hn.cdf(torch.tensor(0.5))])
        gu = D.Gumbel(mu, log_std.exp())
        torch.manual_seed(16)
        rec.note("gumbel sample", gu.sample((2,)))
        _observe(rec, "gumbel log_prob", gu.log_prob(torch.tensor([0.5, 1.0, 2.0])), mu=mu,
                 log_std=log_std)
        rec.note("gumbel", [gu.mean, gu.stddev, gu.entropy(), gu.batch_shape])
        _observe(rec, "kl lognormal", D.kl_divergence(ln, D.LogNormal(0.0, 1.0)), mu=mu,
                 log_std=log_std)
        rec.attempt("tanh value outside", lambda: squashed.log_prob(torch.tensor([3.0, 0.0, 0.0])))
        rec.attempt("bad transforms", lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), 3))
    differential(snippet)


def test_gaussian_mixture_as_pytorch() -> None:
    """MixtureSameFamily of Normals (1-d) and of Independent Normals (2-d): samples, log_prob,
    its graph and gradients, moments; and a few steps fitting it by maximum likelihood."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        logits = _leaf(torch, [0.1, -0.3, 0.5])
        locs, scales = _leaf(torch, [-1.0, 0.0, 2.0]), _leaf(torch, [0.5, 1.0, 0.7])
        gmm = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(locs, scales))
        rec.note("gmm", [gmm.batch_shape, gmm.event_shape, repr(gmm)])
        torch.manual_seed(17)
        _bits(rec, "gmm sample", gmm.sample((6,)))
        _observe(rec, "gmm log_prob", gmm.log_prob(torch.tensor([0.3, -1.2, 2.5])),
                 logits=logits, locs=locs, scales=scales)
        _observe(rec, "gmm mean", gmm.mean, logits=logits, locs=locs)
        _observe(rec, "gmm variance", gmm.variance, logits=logits, locs=locs, scales=scales)
        _observe(rec, "gmm cdf", gmm.cdf(torch.tensor([0.3])), logits=logits, locs=locs,
                 scales=scales)
        mu2 = _leaf(torch, [[0.0, 1.0], [1.0, -1.0]])
        comp = D.Independent(D.Normal(mu2, torch.ones(2, 2)), 1)
        gmm2 = D.MixtureSameFamily(D.Categorical(probs=torch.tensor([0.3, 0.7])), comp)
        torch.manual_seed(18)
        _bits(rec, "gmm2 sample", gmm2.sample((3,)))
        _observe(rec, "gmm2 log_prob", gmm2.log_prob(torch.tensor([[0.5, 0.5], [1.0, 0.0]])),
                 mu2=mu2)
        rec.attempt("gmm bad mixture", lambda: D.MixtureSameFamily(D.Normal(0.0, 1.0), comp))
        rec.attempt("gmm sizes", lambda: D.MixtureSameFamily(
            D.Categorical(logits=torch.zeros(4)), D.Normal(locs, scales)))
        opt = torch.optim.Adam([logits, locs, scales], lr=0.05)
        data = torch.tensor([-1.1, -0.9, 0.1, 2.2, 1.9, 2.1])
        for step in range(3):
            gmm = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(locs, scales))
            loss = -gmm.log_prob(data).mean()
            rec.note(f"fit loss {step}", loss)
            opt.zero_grad()
            loss.backward()
            opt.step()
        rec.note("fitted", [logits, locs, scales])
    differential(snippet)


def test_gamma_beta_dirichlet_as_pytorch() -> None:
    """Gamma, Beta and Dirichlet: samples from PyTorch's gamma sampler (float32 and float64,
    concentrations below and above 1), log_prob / entropy graphs and gradients, KL; a Beta
    policy's PPO-style loss; a reparameterised sample with grad is a clear error."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        for dtype in (torch.float32, torch.float64):
            conc = torch.tensor([0.3, 0.9, 1.0, 2.5, 7.0, 0.05], dtype=dtype)
            torch.manual_seed(19)
            _bits(rec, "standard gamma", torch._standard_gamma(conc))
            _bits(rec, "gamma sample", D.Gamma(conc, 2.0).sample((3,)))
            _bits(rec, "next draw", torch.randn(3, dtype=dtype))
            _bits(rec, "dirichlet sample", D.Dirichlet(conc.view(2, 3)).sample((2,)))
            _bits(rec, "beta sample", D.Beta(conc[:3], conc[3:]).sample((4,)))
            _bits(rec, "beta(numbers) sample", D.Beta(0.5, 2.0).sample((3,)))
        a, b = _leaf(torch, [0.5, 2.0, 3.0]), _leaf(torch, [1.5, 0.7, 2.0])
        g = D.Gamma(a, b)
        _observe(rec, "gamma log_prob", g.log_prob(torch.tensor([0.2, 1.0, 3.0])), a=a, b=b)
        _observe(rec, "gamma entropy", g.entropy(), a=a, b=b)
        rec.note("gamma", [g.mean, g.variance, g.mode, repr(g)])
        be = D.Beta(a, b)
        _observe(rec, "beta log_prob", be.log_prob(torch.tensor([0.2, 0.5, 0.9])), a=a, b=b)
        _observe(rec, "beta entropy", be.entropy(), a=a, b=b)
        rec.note("beta", [be.mean, be.variance, be.batch_shape, be.concentration1])
        di = D.Dirichlet(a)
        _observe(rec, "dirichlet log_prob", di.log_prob(torch.tensor([0.2, 0.3, 0.5])), a=a)
        _observe(rec, "dirichlet entropy", di.entropy(), a=a)
        rec.note("dirichlet", [di.mean, di.variance, di.batch_shape, di.event_shape])
        _observe(rec, "kl gamma", D.kl_divergence(g, D.Gamma(b, a)), a=a, b=b)
        _observe(rec, "kl beta", D.kl_divergence(be, D.Beta(b, a)), a=a, b=b)
        _observe(rec, "kl dirichlet", D.kl_divergence(di, D.Dirichlet(b)), a=a, b=b)
        rec.attempt("gamma rate", lambda: D.Gamma(a, -b))
        rec.attempt("dirichlet 0-d", lambda: D.Dirichlet(torch.tensor(1.0)))
        rec.attempt("beta value", lambda: be.log_prob(torch.tensor([0.2, 1.5, 0.9])))
        torch.manual_seed(20)
        policy = torch.nn.Linear(2, 4)
        obs = torch.randn(5, 2)
        for step in range(2):
            out = torch.nn.functional.softplus(policy(obs)) + 1.0
            dist = D.Beta(out[:, :2], out[:, 2:])
            action = dist.sample()
            rec.note(f"beta policy action {step}", action)  # NB: softplus may differ by an ulp
            loss = -(dist.log_prob(action).sum(-1)).mean() - 0.01 * dist.entropy().sum(-1).mean()
            rec.note(f"beta policy loss {step}", loss)
            policy.zero_grad()
            loss.backward()
            rec.grad(f"beta policy grads {step}", **dict(policy.named_parameters()))
    differential(snippet)


def test_reparameterised_gamma_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        conc, rate = _leaf(torch, [0.4, 1.0, 3.0, 12.0]), _leaf(torch, [2.0, 1.0, 0.5, 1.5])
        torch.manual_seed(21)
        r = torch.distributions.Gamma(conc, rate).rsample((2,))
        _bits(rec, "gamma rsample", r)
        rec.note("version", r._version)
        _observe(rec, "gamma rsample", r, conc=conc, rate=rate)
    differential(snippet)


def test_reparameterised_dirichlet_is_a_clear_error() -> None:
    import graphviz_autograd.torch as torch
    conc = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="rsample"):
        torch.distributions.Beta(conc, conc).rsample()
    with pytest.raises(NotImplementedError, match="rsample"):
        torch.distributions.Dirichlet(conc).rsample()
    assert torch.distributions.Gamma(conc, 1.0).sample().shape == (2,)


def test_counts_as_pytorch() -> None:
    """Poisson (torch.poisson's sampler below and above rate 10), Geometric, Binomial's
    log_prob and entropy, Multinomial's counted Categorical samples. The entropies sum many
    terms: in float64, so float32's rounding noise cannot hide a difference."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        rate = _leaf(torch, [0.5, 4.0, 12.0, 150.0])
        po = D.Poisson(rate)
        torch.manual_seed(22)
        _bits(rec, "poisson sample", po.sample((3,)))
        _bits(rec, "torch.poisson float64", torch.poisson(torch.tensor([3.0, 30.0],
                                                                       dtype=torch.float64)))
        _observe(rec, "poisson log_prob", po.log_prob(torch.tensor([0.0, 3.0, 11.0, 140.0])),
                 rate=rate)
        rec.note("poisson", [po.mean, po.mode, po.variance, repr(po)])
        r = torch.poisson(rate)
        rec.graph("torch.poisson graph", r=r, rate=rate)
        rec.attempt("poisson rate", lambda: torch.poisson(torch.tensor([-1.0])))
        p = _leaf(torch, [0.2, 0.5, 0.9], torch.float64)
        ge = D.Geometric(p)
        torch.manual_seed(23)
        _bits(rec, "geometric sample", ge.sample((4,)))
        f64 = torch.float64
        _observe(rec, "geometric log_prob", ge.log_prob(torch.tensor([0.0, 2.0, 5.0], dtype=f64)),
                 p=p)
        _observe(rec, "geometric entropy", ge.entropy(), p=p)
        rec.attempt("geometric zero", lambda: D.Geometric(torch.tensor([0.0, 0.5])))
        bi = D.Binomial(10, probs=p)
        _observe(rec, "binomial log_prob", bi.log_prob(torch.tensor([0.0, 5.0, 9.0], dtype=f64)),
                 p=p)
        _observe(rec, "binomial entropy", bi.entropy(), p=p)
        rec.note("binomial", [bi.mean, bi.variance, bi.mode, bi.enumerate_support(False)])
        torch.manual_seed(32)
        _bits(rec, "binomial sample", bi.sample((3,)))
        _bits(rec, "binomial(100) sample", D.Binomial(100, probs=torch.tensor([0.3, 0.8])).sample())
        _bits(rec, "torch.binomial", torch.binomial(torch.tensor([5.0, 40.0, 2.0]),
                                                    torch.tensor([0.3, 0.6, 1.0])))
        rec.attempt("torch.binomial of ints", lambda: torch.binomial(torch.tensor([5]),
                                                                     torch.tensor([0.5])))
        w = _leaf(torch, [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], torch.float64)
        mu = D.Multinomial(8, probs=w)
        torch.manual_seed(24)
        _bits(rec, "multinomial sample", mu.sample())
        _bits(rec, "multinomial sample (2,)", mu.sample((2,)))
        _observe(rec, "multinomial log_prob", mu.log_prob(torch.tensor([[2.0, 3.0, 3.0],
                                                                        [8.0, 0.0, 0.0]],
                                                                       dtype=torch.float64)), w=w)
        _observe(rec, "multinomial entropy", mu.entropy(), w=w)
        rec.note("multinomial", [mu.mean, mu.variance, mu.batch_shape, mu.event_shape])
        rec.attempt("multinomial value", lambda: mu.log_prob(torch.tensor([[9.0, 0.0, 0.0],
                                                                            [8.0, 0.0, 0.0]])))
    differential(snippet)


def test_cauchy_student_relaxed_as_pytorch() -> None:
    """Cauchy / HalfCauchy (cauchy_ draws), Chi2 and StudentT (gamma draws), the relaxed
    (Gumbel-softmax) distributions, and the in-place draws cauchy_, geometric_, log_normal_."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        loc, scale = _leaf(torch, [0.0, 1.0, -2.0]), _leaf(torch, [1.0, 0.5, 3.0])
        ca = D.Cauchy(loc, scale)
        torch.manual_seed(25)
        r = ca.rsample((2,))
        _bits(rec, "cauchy rsample", r)
        _observe(rec, "cauchy rsample", r, loc=loc, scale=scale)
        value = torch.tensor([0.5, 1.0, 2.0])
        for name in ("log_prob", "cdf"):
            _observe(rec, f"cauchy {name}", getattr(ca, name)(value), loc=loc, scale=scale)
        _observe(rec, "cauchy entropy", ca.entropy(), loc=loc, scale=scale)
        hc = D.HalfCauchy(scale)
        torch.manual_seed(26)
        _bits(rec, "halfcauchy sample", hc.sample())
        _observe(rec, "halfcauchy log_prob", hc.log_prob(value), scale=scale)
        df = _leaf(torch, [1.5, 4.0, 30.0], torch.float64)
        st = D.StudentT(df, 1.0, 2.0)
        torch.manual_seed(27)
        _bits(rec, "studentt sample", st.sample((2,)))
        value64 = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64)
        _observe(rec, "studentt log_prob", st.log_prob(value64), df=df)
        _observe(rec, "studentt entropy", st.entropy(), df=df)
        rec.note("studentt", [st.mean, st.variance, repr(st)])
        chi = D.Chi2(df)
        torch.manual_seed(28)
        _bits(rec, "chi2 sample", chi.sample())
        _observe(rec, "chi2 log_prob", chi.log_prob(value64), df=df)
        temp = torch.tensor(0.5)
        logits = _leaf(torch, [[0.1, -0.3, 0.5], [1.0, 0.0, -1.0]])
        rc = D.RelaxedOneHotCategorical(temp, logits=logits)
        torch.manual_seed(29)
        y = rc.rsample()
        rec.note("relaxed categorical rsample", y)
        _observe(rec, "relaxed categorical log_prob", rc.log_prob(y), logits=logits)
        p = _leaf(torch, [0.2, 0.7])
        rb = D.RelaxedBernoulli(torch.tensor(0.3), probs=p)
        torch.manual_seed(30)
        z = rb.rsample((2,))
        rec.note("relaxed bernoulli rsample", z)
        _observe(rec, "relaxed bernoulli log_prob", rb.log_prob(z), p=p)
        torch.manual_seed(31)
        for name, draw in (("cauchy_", lambda t: t.cauchy_(0.5, 2.0)),
                           ("geometric_", lambda t: t.geometric_(0.3)),
                           ("log_normal_", lambda t: t.log_normal_())):
            _bits(rec, name, draw(torch.empty(3, 2)))
            for dtype in (torch.long, torch.int32, torch.bool):
                rec.attempt(f"{name} {dtype}", lambda d=draw, k=dtype: d(torch.empty(2, dtype=k)))
        rec.attempt("cauchy_ sigma", lambda: torch.empty(2).cauchy_(0.0, -1.0))
        rec.attempt("geometric_ p", lambda: torch.empty(2).geometric_(1.5))
        rec.attempt("log_normal_ std", lambda: torch.empty(2).log_normal_(0.0, 0.0))
    differential(snippet)


def test_more_kl_and_the_exponential_family_as_pytorch() -> None:
    """KL of Poisson, Geometric, Binomial, Gumbel, HalfNormal, Cauchy, Chi2 pairs; the
    exponential family's Bregman entropy and KL through autograd (create_graph)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        a, b = _leaf(torch, [0.5, 2.0], torch.float64), _leaf(torch, [1.5, 0.7], torch.float64)
        pa, pb = _leaf(torch, [0.2, 0.6], torch.float64), _leaf(torch, [0.5, 0.3], torch.float64)
        pairs = {
            "poisson": (D.Poisson(a), D.Poisson(b)),
            "geometric": (D.Geometric(pa), D.Geometric(pb)),
            "binomial": (D.Binomial(10, pa), D.Binomial(torch.tensor([10.0, 5.0],
                                                                      dtype=torch.float64), pb)),
            "gumbel": (D.Gumbel(a, b), D.Gumbel(b, a)),
            "halfnormal": (D.HalfNormal(a), D.HalfNormal(b)),
            "cauchy": (D.Cauchy(a, b), D.Cauchy(b, a)),
            "chi2": (D.Chi2(a), D.Chi2(b)),
        }
        for name, (p, q) in pairs.items():
            _observe(rec, f"kl {name}", D.kl_divergence(p, q), a=a, b=b, pa=pa, pb=pb)
        normal = D.Normal(a, b)
        _observe(rec, "bregman entropy", D.ExponentialFamily.entropy(normal), a=a, b=b)
        gamma = D.Gamma(a, b)
        _observe(rec, "bregman entropy gamma", D.ExponentialFamily.entropy(gamma), a=a, b=b)
        kl = D.kl.kl_divergence.__globals__["_kl_expfamily_expfamily"]  # the generic one
        _observe(rec, "bregman kl", kl(normal, D.Normal(b, a)), a=a, b=b)
        rec.attempt("bregman cross", lambda: kl(normal, gamma))
        rec.attempt("poisson entropy", lambda: D.Poisson(a).entropy())
        rec.attempt("binomial counts", lambda: D.kl_divergence(D.Binomial(5, pa),
                                                               D.Binomial(10, pb)))
    differential(snippet)


def test_shapes_expansion_and_options_as_pytorch() -> None:
    """expand() of several families, batched MultivariateNormal (precision_matrix too),
    straight-through one-hot samples, sample_n's warning, perplexity, enumerate_support, and
    set_default_validate_args."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        loc = _leaf(torch, [[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]], torch.float64)
        prec = torch.tensor([[2.0, 0.3], [0.3, 1.0]], dtype=torch.float64)
        mvn = D.MultivariateNormal(loc, precision_matrix=prec)
        rec.note("mvn batch", [mvn.batch_shape, mvn.event_shape, mvn.scale_tril,
                               mvn.covariance_matrix])
        torch.manual_seed(33)
        r = mvn.rsample((2,))
        _bits(rec, "mvn batch rsample", r)
        _observe(rec, "mvn batch log_prob", mvn.log_prob(r.detach()), loc=loc)
        _observe(rec, "mvn batch entropy", mvn.entropy(), loc=loc)
        e = mvn.expand((4, 3))
        rec.note("mvn expand", [e.batch_shape, e.loc.shape, e.log_prob(torch.zeros(4, 3, 2,
                                                                                   dtype=torch.float64))])
        torch.manual_seed(34)
        _bits(rec, "normal float64 sample", D.Normal(torch.zeros(20, dtype=torch.float64),
                                                     torch.ones(20, dtype=torch.float64)).sample())
        for name, d in (("bernoulli", D.Bernoulli(logits=torch.tensor([0.2, -0.1]))),
                        ("uniform", D.Uniform(torch.tensor([0.0]), torch.tensor([2.0]))),
                        ("independent", D.Independent(D.Normal(torch.zeros(3), 1.0), 1)),
                        ("onehot", D.OneHotCategorical(logits=torch.tensor([0.2, -0.1, 0.5]))),
                        ("gamma", D.Gamma(torch.tensor([2.0]), 1.0)),
                        ("lognormal", D.LogNormal(torch.tensor([0.0]), 1.0))):
            ex = d.expand((2, *d.batch_shape[1:])) if d.batch_shape else d.expand((2,))
            torch.manual_seed(35)
            rec.note(f"{name} expand", [ex.batch_shape, ex.event_shape, ex.sample()])
        probs = _leaf(torch, [0.2, 0.3, 0.5])
        st = D.OneHotCategoricalStraightThrough(probs=probs)
        torch.manual_seed(36)
        y = st.rsample((2,))
        _observe(rec, "straight-through", y, probs=probs)
        rec.attempt("sample_n", lambda: D.Normal(0.0, 1.0).sample_n(2))
        rec.note("perplexity", D.Categorical(probs=torch.tensor([0.2, 0.8])).perplexity())
        rec.note("enumerate bernoulli", D.Bernoulli(torch.tensor([0.2, 0.8])).enumerate_support())
        D.Distribution.set_default_validate_args(False)
        try:
            rec.attempt("unvalidated default", lambda: D.Normal(0.0, -1.0).scale)
        finally:
            D.Distribution.set_default_validate_args(True)
        rec.attempt("validated again", lambda: D.Normal(0.0, -1.0))
        rec.attempt("set_default_validate_args(2)",
                    lambda: D.Distribution.set_default_validate_args(2))
    differential(snippet)


def test_masked_logits_as_pytorch() -> None:
    """Invalid actions masked with -inf (and a large negative number), as RL code does:
    samples never pick them, entropy stays finite, gradients flow to the valid logits."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        raw = _leaf(torch, [[0.5, 1.0, -0.2, 0.3], [0.1, 0.2, 0.3, 0.4]])
        mask = torch.tensor([[True, False, True, True], [False, False, True, False]])
        for fill in (float("-inf"), -1e8):
            logits = raw.masked_fill(~mask, fill)
            d = D.Categorical(logits=logits)
            torch.manual_seed(37)
            _bits(rec, f"masked sample {fill}", d.sample((5,)))
            _observe(rec, f"masked entropy {fill}", d.entropy(), raw=raw)
            _observe(rec, f"masked log_prob {fill}", d.log_prob(torch.tensor([2, 2])), raw=raw)
            rec.note(f"masked probs {fill}", d.probs)
    differential(snippet)


def test_negative_binomial_pareto_weibull_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        f64 = torch.float64
        n, p = _leaf(torch, [2.0, 5.0, 0.5], f64), _leaf(torch, [0.3, 0.6, 0.1], f64)
        nb = D.NegativeBinomial(n, probs=p)
        torch.manual_seed(38)
        _bits(rec, "negative binomial sample", nb.sample((3,)))
        _observe(rec, "negative binomial log_prob",
                 nb.log_prob(torch.tensor([0.0, 3.0, 1.0], dtype=f64)), n=n, p=p)
        rec.note("negative binomial", [nb.mean, nb.variance, nb.mode, repr(nb)])
        scale, alpha = _leaf(torch, [1.0, 2.0], f64), _leaf(torch, [3.0, 1.5], f64)
        pa = D.Pareto(scale, alpha)
        torch.manual_seed(39)
        r = pa.rsample((2,))
        rec.note("pareto rsample", r)
        _observe(rec, "pareto log_prob", pa.log_prob(torch.tensor([1.5, 4.0], dtype=f64)),
                 scale=scale, alpha=alpha)
        _observe(rec, "pareto entropy", pa.entropy(), scale=scale, alpha=alpha)
        rec.note("pareto", [pa.mean, pa.variance, repr(pa.support)])
        _observe(rec, "kl pareto", D.kl_divergence(pa, D.Pareto(scale * 2, alpha)),
                 scale=scale, alpha=alpha)
        we = D.Weibull(scale, alpha)
        torch.manual_seed(40)
        rec.note("weibull rsample", we.rsample((2,)))
        _observe(rec, "weibull log_prob", we.log_prob(torch.tensor([0.5, 3.0], dtype=f64)),
                 scale=scale, alpha=alpha)
        _observe(rec, "weibull entropy", we.entropy(), scale=scale, alpha=alpha)
        rec.note("weibull", [we.mean, we.variance, we.mode, we.expand((3, 2)).batch_shape])
    differential(snippet)


def test_constraint_registry_as_pytorch() -> None:
    """biject_to / transform_to: the transforms chosen for each constraint, their values,
    log |det J| and gradients (stick-breaking onto a simplex, lower-Cholesky factors)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        C = D.constraints
        x = _leaf(torch, [0.3, -1.2, 0.8])
        cases = [C.real, C.positive, C.greater_than(2.0), C.less_than(-1.0), C.unit_interval,
                 C.interval(-2.0, 3.0), C.independent(C.positive, 1)]
        for c in cases:
            for name, registry in (("biject_to", D.biject_to), ("transform_to", D.transform_to)):
                t = registry(c)
                y = t(x)
                rec.note(f"{name}({c!r})", [repr(t), y])
                _observe(rec, f"{name}({c!r}) log|det J|", t.log_abs_det_jacobian(x, y), x=x)
        sb = D.biject_to(C.simplex)
        y = sb(x)
        rec.note("stick-breaking", [repr(sb), y, sb.inv(y)])
        _observe(rec, "stick-breaking log|det J|", sb.log_abs_det_jacobian(x, y), x=x)
        rec.note("softmax", [repr(D.transform_to(C.simplex)), D.transform_to(C.simplex)(x)])
        m = _leaf(torch, [[0.5, 0.1], [0.3, -0.2]])
        lc = D.transform_to(C.lower_cholesky)
        _observe(rec, "lower cholesky", lc(m), m=m)
        rec.attempt("no transform", lambda: D.biject_to(C.lower_cholesky))
    differential(snippet)


def test_low_rank_multivariate_normal_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        f64 = torch.float64
        loc = _leaf(torch, [0.5, -0.5, 1.0], f64)
        w = _leaf(torch, [[1.0, 0.2], [0.3, -0.4], [0.0, 0.5]], f64)
        d = _leaf(torch, [0.5, 1.0, 2.0], f64)
        lr = D.LowRankMultivariateNormal(loc, w, d)
        rec.note("lowrank", [lr.batch_shape, lr.event_shape, lr.variance, lr.covariance_matrix,
                             lr.scale_tril, lr.precision_matrix])
        torch.manual_seed(41)
        r = lr.rsample((2,))
        _bits(rec, "lowrank rsample", r)
        _observe(rec, "lowrank rsample", r, loc=loc, w=w, d=d)
        _observe(rec, "lowrank log_prob", lr.log_prob(torch.tensor([[0.1, 0.2, 0.3]], dtype=f64)),
                 loc=loc, w=w, d=d)
        _observe(rec, "lowrank entropy", lr.entropy(), loc=loc, w=w, d=d)
        rec.attempt("lowrank shapes", lambda: D.LowRankMultivariateNormal(loc, w.T, d))
        other = D.LowRankMultivariateNormal(loc * 2, w * 0.5, d + 1)
        full = D.MultivariateNormal(loc * 0.5, scale_tril=torch.tril(w @ w.T) + torch.eye(3,
                                                                                   dtype=f64))
        _observe(rec, "kl lowrank lowrank", D.kl_divergence(lr, other), loc=loc, w=w, d=d)
        _observe(rec, "kl mvn lowrank", D.kl_divergence(full, lr), loc=loc, w=w, d=d)
        _observe(rec, "kl lowrank mvn", D.kl_divergence(lr, full), loc=loc, w=w, d=d)
    differential(snippet)


def test_continuous_bernoulli_as_pytorch() -> None:
    """ContinuousBernoulli (a VAE likelihood for pixels in [0, 1]): probs near 0.5 take the
    Taylor branch; log_prob, entropy, moments, cdf, samples and KL."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        f64 = torch.float64
        p = _leaf(torch, [0.1, 0.4995, 0.8], f64)
        cb = D.ContinuousBernoulli(probs=p)
        x = torch.tensor([0.2, 0.5, 0.9], dtype=f64)
        _observe(rec, "cb log_prob", cb.log_prob(x), p=p)
        _observe(rec, "cb entropy", cb.entropy(), p=p)
        _observe(rec, "cb mean", cb.mean, p=p)
        _observe(rec, "cb variance", cb.variance, p=p)
        _observe(rec, "cb cdf", cb.cdf(x), p=p)
        torch.manual_seed(42)
        r = cb.rsample((2,))
        rec.note("cb rsample", r)
        _observe(rec, "cb rsample", r, p=p)
        logits = _leaf(torch, [0.3, -2.0, 0.0], f64)
        cl = D.ContinuousBernoulli(logits=logits)
        _observe(rec, "cb(logits) log_prob", cl.log_prob(x), logits=logits)
        _observe(rec, "kl cb", D.kl_divergence(cb, cl), p=p, logits=logits)
        rec.attempt("cb probs", lambda: D.ContinuousBernoulli(torch.tensor([1.5])))
        rec.attempt("cb probs checked", lambda: D.ContinuousBernoulli(torch.tensor([1.5]),
                                                                      validate_args=True))
    differential(snippet)


def test_kumaraswamy_logistic_normal_inverse_gamma_fisher_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        f64 = torch.float64
        a, b = _leaf(torch, [0.5, 2.0, 3.0], f64), _leaf(torch, [1.5, 0.7, 4.0], f64)
        ku = D.Kumaraswamy(a, b)
        torch.manual_seed(43)
        rec.note("kumaraswamy rsample", ku.rsample((2,)))
        x = torch.tensor([0.2, 0.5, 0.9], dtype=f64)
        _observe(rec, "kumaraswamy log_prob", ku.log_prob(x), a=a, b=b)
        _observe(rec, "kumaraswamy entropy", ku.entropy(), a=a, b=b)
        rec.note("kumaraswamy", [ku.mean, ku.variance, ku.mode])
        ln = D.LogisticNormal(a, b)
        torch.manual_seed(44)
        y = ln.rsample()
        rec.note("logistic normal", [y, ln.batch_shape, ln.event_shape])
        _observe(rec, "logistic normal log_prob", ln.log_prob(y.detach()), a=a, b=b)
        ig = D.InverseGamma(a, b)
        torch.manual_seed(45)
        rec.note("inverse gamma sample", ig.sample((2,)))
        _observe(rec, "inverse gamma log_prob", ig.log_prob(x), a=a, b=b)
        _observe(rec, "inverse gamma entropy", ig.entropy(), a=a, b=b)
        rec.note("inverse gamma", [ig.mean, ig.variance, ig.mode])
        fs = D.FisherSnedecor(a * 4, b * 4)
        torch.manual_seed(46)
        r = fs.rsample((2,))
        rec.note("fisher rsample", r)
        _observe(rec, "fisher rsample", r, a=a, b=b)
        _observe(rec, "fisher log_prob", fs.log_prob(x), a=a, b=b)
        rec.note("fisher", [fs.mean, fs.variance, fs.mode])
    differential(snippet)


def test_constraints_and_more_transforms_as_pytorch() -> None:
    """Every constraint's check and repr; the transforms re-exported by torch.distributions;
    ReshapeTransform and CumulativeDistributionTransform."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        C = D.constraints
        v = torch.tensor([[0.2, 0.8], [1.0, 0.0], [-0.5, 1.5]])
        m = torch.tensor([[[2.0, 0.5], [0.5, 1.0]], [[1.0, 0.0], [0.3, -1.0]]])
        cases = {"real": C.real, "positive": C.positive, "nonnegative": C.nonnegative,
                 "unit_interval": C.unit_interval, "boolean": C.boolean,
                 "simplex": C.simplex, "real_vector": C.real_vector, "one_hot": C.one_hot,
                 "nonnegative_integer": C.nonnegative_integer,
                 "positive_integer": C.positive_integer,
                 "integer_interval": C.integer_interval(0, 1), "interval": C.interval(0.0, 1.0),
                 "half_open": C.half_open_interval(0.0, 1.0), "greater_than": C.greater_than(0.1),
                 "greater_than_eq": C.greater_than_eq(0.2), "less_than": C.less_than(1.0),
                 "multinomial": C.multinomial(1), "cat": C.cat([C.positive, C.real], 1),
                 "stack": C.stack([C.unit_interval, C.real], 1),
                 "mixture": C.MixtureSameFamilyConstraint(C.positive)}
        for name, c in cases.items():
            rec.note(name, [repr(c), c.check(v), c.is_discrete, c.event_dim])
        for name, c in (("lower_triangular", C.lower_triangular),
                        ("lower_cholesky", C.lower_cholesky), ("square", C.square),
                        ("symmetric", C.symmetric), ("positive_definite", C.positive_definite),
                        ("positive_semidefinite", C.positive_semidefinite),
                        ("corr_cholesky", C.corr_cholesky)):
            rec.note(name, [repr(c), c.check(m), c.event_dim])
        rec.note("dependent", [C.is_dependent(C.dependent), C.is_dependent(C.real)])
        rec.note("exports", [D.TanhTransform.__name__, D.ExpTransform().sign,
                             repr(D.identity_transform), repr(D.AffineTransform(0.0, 2.0))])
        x = _leaf(torch, [[1.0, 2.0, 3.0, 4.0]])
        rt = D.ReshapeTransform((4,), (2, 2))
        _observe(rec, "reshape", rt(x), x=x)
        rec.note("reshape shapes", [rt.forward_shape((3, 4)), rt.inverse_shape((2, 2)),
                                    rt.log_abs_det_jacobian(x, rt(x)), rt.inv(rt(x))])
        rec.attempt("reshape sizes", lambda: D.ReshapeTransform((4,), (3,)))
        cdf = D.CumulativeDistributionTransform(D.Normal(0.0, 1.0))
        y = cdf(x)
        _observe(rec, "cdf transform", y, x=x)
        _observe(rec, "cdf transform log|det J|", cdf.log_abs_det_jacobian(x, y), x=x)
        rec.note("cdf inverse", cdf.inv(torch.tensor([0.1, 0.5])))
    differential(snippet)


def test_von_mises_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        loc, kappa = _leaf(torch, [0.0, 1.0, -2.0]), _leaf(torch, [0.5, 4.0, 20.0])
        vm = D.VonMises(loc, kappa)
        torch.manual_seed(47)
        rec.note("von mises sample", vm.sample((4,)))
        _observe(rec, "von mises log_prob", vm.log_prob(torch.tensor([0.3, 1.2, -2.5])),
                 loc=loc, kappa=kappa)
        _observe(rec, "von mises variance", vm.variance, kappa=kappa)
        rec.note("von mises expand", [vm.expand((2, 3)).batch_shape, repr(vm)])
    differential(snippet)


def test_cross_family_kl_as_pytorch() -> None:
    """Every pair of different families PyTorch registers, values and gradients (or the
    infinity where p's support reaches outside q's), and the dispatch of subclasses."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        f64 = torch.float64
        a, b = _leaf(torch, [0.6, 2.5], f64), _leaf(torch, [1.5, 0.7], f64)
        u = _leaf(torch, [0.2, 0.3], f64)
        fams = {
            "Bernoulli": lambda: D.Bernoulli(u),
            "Beta": lambda: D.Beta(a, b),
            "ContinuousBernoulli": lambda: D.ContinuousBernoulli(u),
            "Exponential": lambda: D.Exponential(b),
            "Gamma": lambda: D.Gamma(a + 1, b),
            "Gumbel": lambda: D.Gumbel(u, b),
            "Laplace": lambda: D.Laplace(u, b),
            "Normal": lambda: D.Normal(u, a),
            "Pareto": lambda: D.Pareto(a, b + 2),
            "Poisson": lambda: D.Poisson(b),
            "Binomial": lambda: D.Binomial(5, u),
            "Uniform": lambda: D.Uniform(u, u + a),
            "Chi2": lambda: D.Chi2(b),
        }
        for np_, make_p in fams.items():
            for nq, make_q in fams.items():
                if np_ == nq:
                    continue
                p, q = make_p(), make_q()
                if rec.attempt(f"kl({np_}, {nq})", lambda p=p, q=q: D.kl_divergence(p, q)):
                    out = D.kl_divergence(p, q)
                    if out.requires_grad and bool(out.isfinite().all()):
                        out.sum().backward()
                        rec.grad(f"kl({np_}, {nq})", a=a, b=b, u=u)
                        for t in (a, b, u):
                            t.grad = None
    differential(snippet)


def test_generalized_pareto_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        f64 = torch.float32     # NB: PyTorch's own isclose here refuses float64
        loc, scale = _leaf(torch, [0.0, 1.0, -1.0], f64), _leaf(torch, [1.0, 2.0, 0.5], f64)
        conc = _leaf(torch, [0.3, 0.0, -0.2], f64)
        gp = D.GeneralizedPareto(loc, scale, conc)
        torch.manual_seed(48)
        r = gp.rsample((2,))
        rec.note("gp rsample", r)
        _observe(rec, "gp rsample", r, loc=loc, scale=scale, conc=conc)
        x = torch.tensor([0.5, 2.0, -0.5], dtype=f64)
        for name in ("log_prob", "cdf", "log_survival_function"):
            _observe(rec, f"gp {name}", getattr(gp, name)(x), loc=loc, scale=scale, conc=conc)
        _observe(rec, "gp entropy", gp.entropy(), scale=scale, conc=conc)
        rec.note("gp", [gp.mean, gp.variance, repr(gp.support)])
        rec.attempt("gp outside", lambda: gp.log_prob(torch.tensor([0.5, 2.0, 2.0], dtype=f64)))
    differential(snippet)


def test_cat_stack_positive_definite_transforms_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        C = D.constraints
        x = _leaf(torch, [[0.3, -1.2, 0.8, 0.1], [0.5, 0.2, -0.4, 1.0]])
        cat = D.CatTransform([D.ExpTransform(), D.AffineTransform(1.0, 2.0)], dim=1,
                             lengths=[1, 3])
        y = cat(x)
        _observe(rec, "cat", y, x=x)
        _observe(rec, "cat log|det J|", cat.log_abs_det_jacobian(x, y), x=x)
        rec.note("cat inverse", [cat.inv(y), cat.bijective, repr(cat.domain)])
        rec.attempt("cat length", lambda: cat(torch.zeros(2, 3)))
        st = D.StackTransform([D.ExpTransform(), D.SigmoidTransform()], dim=0)
        y = st(x)
        _observe(rec, "stack", y, x=x)
        _observe(rec, "stack log|det J|", st.log_abs_det_jacobian(x, y), x=x)
        rec.attempt("stack size", lambda: st(torch.zeros(3, 2)))
        m = _leaf(torch, [[0.5, 0.1], [0.3, -0.2]])
        pd = D.PositiveDefiniteTransform()
        y = pd(m)
        _observe(rec, "positive definite", y, m=m)
        rec.note("positive definite inverse", pd.inv(y.detach()))
        for c in (C.positive_definite, C.cat([C.positive, C.real], 1, [1, 3]),
                  C.stack([C.positive, C.unit_interval], 0)):
            rec.note(f"transform_to {c!r}", repr(D.transform_to(c)))
        rec.note("biject_to cat", D.biject_to(C.cat([C.positive, C.real], 1, [1, 3]))(x))
    differential(snippet)


def test_lkj_cholesky_and_corr_cholesky_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        D = torch.distributions
        f64 = torch.float64
        conc = _leaf(torch, [0.5, 2.0], f64)
        lkj = D.LKJCholesky(3, conc)
        torch.manual_seed(49)
        s = lkj.sample((2,))
        rec.note("lkj sample", s)
        _observe(rec, "lkj log_prob", lkj.log_prob(s), conc=conc)
        rec.note("lkj", [lkj.batch_shape, lkj.event_shape, lkj.expand((4, 2)).batch_shape])
        rec.attempt("lkj dim", lambda: D.LKJCholesky(1))
        x = _leaf(torch, [[0.3, -1.2, 0.8], [0.5, 0.2, -0.4]], f64)
        t = D.biject_to(D.constraints.corr_cholesky)
        y = t(x)
        _observe(rec, "corr cholesky", y, x=x)
        _observe(rec, "corr cholesky log|det J|", t.log_abs_det_jacobian(x, y), x=x)
        rec.note("corr cholesky inverse", [t.inv(y.detach()), t.forward_shape((2, 3)),
                                           t.inverse_shape((2, 3, 3))])
        u = D.utils
        m = torch.arange(9.0).view(3, 3)
        rec.note("tril helpers", [u.tril_matrix_to_vec(m), u.tril_matrix_to_vec(m, -1),
                                  u.vec_to_tril_matrix(torch.arange(6.0)),
                                  u.vec_to_tril_matrix(torch.arange(3.0), -1)])
        rec.note("mvlgamma", [torch.mvlgamma(torch.tensor([2.5, 4.0]), 3),
                              torch.tensor([2.5]).mvlgamma(2),
                              torch.special.multigammaln(torch.tensor([3.0]), 4)])
    differential(snippet)
