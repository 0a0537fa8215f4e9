"""The extra math and shape functions of ``engine/mathfns.py`` and ``engine/shaping.py``
(``trapezoid``, ``cov``, ``corrcoef``, ``nanmean``, ``nansum``, ``std_mean``, ``quantile``,
``float_power``, ``copysign``, ``i0``, ``igamma``, ``rot90``, ``unfold``, the scatters into a view,
``index_put``, ``as_strided``, the in-place views, the aliases and the ``torch.X_`` in-place
functions), checked against real PyTorch 2.13: values, dtypes, graphs with their saved values,
gradients, versions and errors. The op table's tests (``test_op_table``) check each new node's
create_graph graph and a numeric gradcheck."""

from __future__ import annotations

from typing import Any

import pytest

from ._support import Recorder, differential

pytestmark = pytest.mark.torch


def _env(torch: Any) -> dict[str, Any]:
    gen = torch.Generator().manual_seed(0)
    x = torch.tensor([[0.3, -1.2, 2.5, 0.7], [1.1, 0.4, -0.6, 1.9], [-2.2, 0.8, 0.05, -0.3]],
                     requires_grad=True)
    y = torch.tensor([[1.3, 0.2, -0.5, 0.9], [-0.1, 2.4, 0.6, -1.9], [0.2, -0.8, 1.5, 0.3]],
                     requires_grad=True)
    v = torch.tensor([0.5, 1.0, 2.5, 4.0], requires_grad=True)
    n = torch.tensor([[1.0, float("nan"), 2.0], [float("nan"), float("nan"), 3.5]],
                     requires_grad=True)
    return {"torch": torch, "x": x, "y": y, "v": v, "n": n, "i": torch.tensor([[1, -2], [3, 0]]),
            "d": torch.tensor([1.5, -2.0, 0.0], dtype=torch.float64, requires_grad=True),
            "gen": gen}


def _run(rec: Recorder, codes: list[str]) -> None:
    env = _env(rec.torch)
    leaves = {k: env[k] for k in ("x", "y", "v", "n", "d")}
    for code in codes:
        out: list[Any] = []

        def go(code: str = code, out: list[Any] = out) -> Any:
            value = eval(code, env)
            out.append(value)
            return value
        if not rec.attempt(code, go):
            continue
        value = out[0]
        outs = list(value) if isinstance(value, tuple) else [value]
        tensors = [t for t in outs if isinstance(t, rec.torch.Tensor) and t.requires_grad]
        if not tensors:
            continue
        rec.graph(f"{code}: graph", **{f"out{k}": t for k, t in enumerate(tensors)})
        wrt = [t for t in leaves.values() if t.requires_grad]
        total = sum((t * (rec.torch.arange(t.numel()).reshape(t.shape) + 1.0)).sum()
                    for t in tensors)
        rec.attempt(f"{code}: grads", lambda total=total, wrt=wrt: list(
            rec.torch.autograd.grad(total, wrt, allow_unused=True)))


def test_integration_and_statistics_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        _run(rec, ["torch.trapezoid(x)", "torch.trapezoid(x, dx=0.5)", "torch.trapz(x, dim=0)",
                   "torch.trapezoid(x, y)", "torch.trapezoid(x, v)", "torch.trapezoid(v, v)",
                   "torch.trapz(x, x, dim=0)", "torch.trapezoid(x, 2.0)",
                   "torch.cumulative_trapezoid(x)", "torch.cumulative_trapezoid(x, dx=2)",
                   "torch.cumulative_trapezoid(x, y)", "torch.cumulative_trapezoid(x, dim=0)",
                   "torch.trapezoid(x, v[:3])", "torch.trapezoid(i)",
                   "torch.cov(x)", "torch.cov(v)", "torch.cov(x, correction=0)",
                   "x.cov()", "torch.cov(x.t())", "torch.cov(torch.ones(2, 2, 2))",
                   "torch.cov(x, fweights=torch.tensor([1, 2, 1, 3]))",
                   "torch.cov(x, aweights=v)", "torch.cov(x, correction=0, aweights=v)",
                   "torch.cov(x, fweights=torch.tensor([1, 2, 1, 3]), aweights=v)",
                   "torch.cov(x, correction=0, fweights=torch.tensor([1, 2, 1, 3]), aweights=v)",
                   "torch.cov(x, correction=2, aweights=v.detach())",
                   "torch.cov(v, fweights=torch.tensor([0, 1, 0, 0]))",
                   "torch.cov(x, fweights=v)", "torch.cov(x, aweights=i[0])",
                   "torch.cov(x, fweights=torch.tensor([1, 2, 1]))",
                   "torch.cov(x, fweights=-torch.tensor([1, 2, 1, 3]))",
                   "torch.cov(x, aweights=-v)", "torch.cov(x, fweights=torch.zeros(4).long())",
                   "torch.cov(x > 0)", "torch.cov(x, fweights=torch.ones(2, 2).long())",
                   "torch.corrcoef(i.float())", "torch.cov(i)",
                   "torch.cov(v[:1])", "torch.corrcoef(x)", "x.corrcoef()", "torch.corrcoef(v)",
                   "torch.corrcoef(d.reshape(1, 3))", "torch.corrcoef(y.t().double())"])
    differential(snippet)


def test_nan_reductions_and_moments_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        _run(rec, ["torch.nansum(n)", "torch.nansum(n, 1)", "n.nansum(dim=0, keepdim=True)",
                   "torch.nansum(x, (0, 1))", "torch.nansum(i)", "torch.nansum(i > 0)",
                   "torch.nansum(n, -1, dtype=torch.float64)",
                   "torch.nanmean(n)", "torch.nanmean(n, 1)", "n.nanmean(0, keepdim=True)",
                   "torch.nanmean(i)", "torch.nanmean(x, dim=(0, 1))",
                   "torch.count_nonzero(i)", "torch.count_nonzero(i, dim=1)",
                   "i.count_nonzero((0, 1))",
                   "torch.std_mean(x)", "torch.std_mean(x, 1)", "torch.var_mean(x)",
                   "torch.var_mean(x, 1, keepdim=True)", "torch.var_mean(x, dim=0, correction=0)",
                   "torch.std_mean(x, (0, 1), unbiased=False)", "torch.std_mean(x, False)",
                   "torch.var_mean(v[:1], 0)", "torch.std_mean(i)", "torch.var_mean(d, -1)",
                   "torch.std_mean(torch.zeros(2, 3), 1)"])
    differential(snippet)


def test_quantiles_and_nanmedian_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        _run(rec, ["torch.quantile(x, 0.3)", "torch.quantile(x, 0.3, dim=1, keepdim=True)",
                   "x.quantile(torch.tensor([0.3, 0.9]), dim=0)",
                   "torch.quantile(x, torch.tensor([0.3, 0.9]))",
                   "torch.quantile(x, torch.tensor([0.3, 0.9]), 1, True)",
                   "torch.quantile(x, torch.tensor(0.5), dim=1)",
                   "torch.quantile(x, 0.3, dim=1, interpolation='lower')",
                   "torch.quantile(x, 0.4, dim=0, interpolation='higher')",
                   "torch.quantile(x, 0.7, interpolation='nearest')",
                   "torch.quantile(x, 0.3, dim=-1, interpolation='midpoint')",
                   "torch.quantile(v, 1.0)", "torch.quantile(v, 0.0)", "torch.quantile(d, 0.5)",
                   "torch.quantile(n, 0.5, 1)", "torch.nanquantile(n, 0.5, 1)",
                   "torch.nanquantile(n, torch.tensor([0.25, 1.0]))", "n.nanquantile(0.2)",
                   "torch.quantile(torch.tensor(2.0), 0.5)", "torch.quantile(x, 1.5)",
                   "torch.quantile(x, torch.tensor([0.2, 1.5]))", "torch.quantile(i, 0.5)",
                   "torch.quantile(x, torch.tensor([0.5], dtype=torch.float64))",
                   "torch.quantile(x, torch.ones(2, 2) * 0.5)",
                   "torch.quantile(torch.ones(0), 0.5)",
                   "torch.quantile(x, 0.5, interpolation='foo')", "torch.nanquantile(x, 1.5)",
                   "torch.quantile(x, 0.5, dim=2)", "torch.quantile(x, 0.25)._version",
                   "torch.quantile(x, torch.tensor([0.1, 0.2]))._version",
                   "torch.nanmedian(n)", "torch.nanmedian(n, 1)", "n.nanmedian(0, True)",
                   "torch.nanmedian(x)", "torch.nanmedian(x, -1)", "torch.nanmedian(n[1])",
                   "torch.nanmedian(torch.tensor([[2.0, 2.0, 1.0, 2.0]]), 1)"])
    differential(snippet)


def test_more_variants_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        _run(rec, ["torch.std_mean(x, [0, -1])", "torch.var_mean(x, -1, True)",
                   "torch.var_mean(x, dim=[])", "torch.nansum(x[0, 0])", "torch.nansum(x.half())",
                   "torch.nanmean(x.double(), -1)", "torch.quantile(x, 0.5, keepdim=True)",
                   "torch.quantile(x.t(), torch.tensor([0.2, 0.8]), 0, True)",
                   "torch.quantile(x.unsqueeze(0), 0.5, 2)",
                   "torch.rot90(x.reshape(3, 2, 2), 2, (1, 2))",
                   "x.t().unfold(0, 2, 1)", "x.reshape(2, 3, 2).unfold(1, 2, 1).sum()",
                   "torch.trapezoid(x, v[:3], dim=0)", "torch.cumulative_trapezoid(x, v)",
                   "torch.cumulative_trapezoid(v)", "torch.trapezoid(torch.ones(3, 0))",
                   "torch.fliplr(x.reshape(3, 2, 2))", "torch.diagflat(x[:2, :2], -2)",
                   "torch.select_scatter(x.detach(), v, 0, 2)",
                   "x.index_put((x > 0,), torch.tensor(0.5))",
                   "x.index_put((torch.tensor([0, 2]), torch.tensor([1, 3])), v[:2], True)",
                   "torch.block_diag(i, v)", "torch.copysign(x, torch.tensor(-0.0))",
                   "torch.fmax(x, n[:1, :1])", "torch.float_power(x, -1)",
                   "torch.corrcoef(torch.ones(2, 3))"])
    differential(snippet)


def test_mixed_dtypes_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        _run(rec, ["torch.copysign(x, d[:1])", "torch.copysign(i, i)",
                   "torch.copysign(i > 0, -1)", "torch.copysign(x.half(), 2.0)",
                   "torch.fmax(i, i.double())", "torch.fmin(i, x[:2, :2])",
                   "torch.fmax(i > 0, i > 1)", "torch.ldexp(x.half(), i[0, :1])",
                   "torch.ldexp(i > 0, i)", "torch.float_power(i, i)",
                   "torch.float_power(i > 0, 2)",
                   "torch.float_power(x, torch.tensor(2))", "torch.deg2rad(i > 0)",
                   "torch.rad2deg(x.double())", "torch.nextafter(x.double(), x)",
                   "torch.igamma(x.abs(), x.abs().double())", "torch.i0(x.double())",
                   "torch.i0(i > 0)", "torch.mvlgamma(x.double().abs() + 1, 3)",
                   "torch.nansum(i > 0)", "torch.nansum(i, dtype=torch.float32)",
                   "torch.nanmean(x, dtype=torch.float64)", "torch.std_mean(x.double(), 0)",
                   "torch.quantile(x.double(), 0.5)", "torch.nanmedian(i)",
                   "torch.nanmedian(i, 0)",
                   "torch.cov(i)", "torch.corrcoef(i)", "torch.trapezoid(i, dx=0.5)",
                   "torch.trapezoid(x, i[0, :1].expand(4))", "torch.cumulative_trapezoid(i)",
                   "torch.block_diag(i > 0, x)", "torch.rot90(i > 0)",
                   "torch.select_scatter(x, i[0, :1].expand(4), 0, 0)",
                   "torch.diagflat(i)", "torch.renorm(x.double(), 2, 1, 1.0)"])
    differential(snippet)


def test_moments_second_output_alone_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _env(torch)["x"]
        for key in ("std_mean", "var_mean"):
            for which in (0, 1):
                out = getattr(torch, key)(x, 1)[which]
                rec.note(f"{key}[{which}]", out)
                rec.note(f"{key}[{which}] grad", torch.autograd.grad(out.sum(), x)[0])
                out = getattr(torch, key)(x, 1)[which]
                g = torch.autograd.grad(out, x, torch.ones(3, requires_grad=True),
                                        create_graph=True)[0]
                rec.graph(f"{key}[{which}] create_graph", g=g)
    differential(snippet)


def test_pointwise_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        _run(rec, ["torch.float_power(x, 2)", "x.float_power(y)", "torch.float_power(2, x)",
                   "torch.float_power(d, 3)", "torch.float_power(i, 2)",
                   "torch.float_power(x, d[:1])",
                   "torch.copysign(x, y)", "x.copysign(-1.0)", "torch.copysign(x, 0.0)",
                   "torch.copysign(i, -1)", "torch.copysign(x, i[0, :1])",
                   "torch.copysign(d, torch.tensor([-0.0, 0.0, -1.0]))",
                   "torch.fmax(x, y)", "x.fmin(y)", "torch.fmax(n, torch.zeros(2, 3))",
                   "torch.fmin(torch.zeros(3), d)", "torch.fmax(x, 1.0)",
                   "torch.deg2rad(x)", "x.rad2deg()", "torch.deg2rad(i)",
                   "torch.arccos(x / 3)", "torch.arcsin(x / 3)", "(x / 3).arcsin()",
                   "torch.arctan(x)", "torch.arctan2(x, y)", "x.arctan2(y)",
                   "torch.arcsinh(x)", "torch.arccosh(x.abs() + 1)", "torch.arctanh(x / 3)",
                   "torch.negative(x)", "x.negative()", "torch.positive(x)", "x.positive()",
                   "torch.positive(i > 0)", "+x", "(+x) is x", "+(i > 0)", "torch.fix(x)",
                   "x.fix()"])
    differential(snippet)


def test_more_pointwise_and_counting_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        _run(rec, ["torch.ldexp(x, torch.tensor([1, 2, 3, -1]))", "torch.ldexp(x, y)",
                   "x.ldexp(v)", "torch.ldexp(i, i)", "torch.ldexp(d, torch.tensor([1, 2, 3]))",
                   "torch.ldexp(x, 2)", "torch.mvlgamma(x.abs() + 2, 2)", "x.mvlgamma(1)",
                   "torch.mvlgamma(d.abs() + 3, 4)", "torch.mvlgamma(x, 0)",
                   "torch.renorm(x, 2, 0, 1.0)", "x.renorm(1, 1, 0.5)",
                   "torch.renorm(x, float('inf'), 0, 1.0)", "torch.renorm(x, 3, -1, 2.0)",
                   "torch.renorm(x, 2, 0, 100.0)", "torch.renorm(x, 0, 0, 1)",
                   "torch.renorm(x, 2, 0, -1)", "torch.renorm(v, 2, 0, 1)",
                   "torch.i0(x)", "x.i0()", "torch.i0(i)", "torch.special.i0(d * 40)",
                   "torch.special.i1(x * 12)", "torch.special.i1(d * 30)", "torch.i0(x * 300)",
                   "torch.special.i1(torch.tensor([0.0, 1e-30, -0.0]))",
                   "torch.nextafter(x, y)", "x.nextafter(x)", "torch.nextafter(x, d[:1])",
                   "torch.nextafter(i, i)", "torch.nextafter(torch.tensor([1.0]), "
                   "torch.tensor([2.0])) - 1", "torch.signbit(x)",
                   "torch.signbit(torch.tensor([-0.0, 0.0, 1]))",
                   "torch.signbit(i)", "torch.gcd(i, torch.tensor([4, 6]))", "i.lcm(i + 5)",
                   "torch.gcd(x, x)", "torch.histc(x, 4)", "torch.histc(x, bins=3, min=0, max=2)",
                   "x.histc(5, -1, 1)", "torch.histc(i, 3)", "torch.histc(torch.ones(3), 2)",
                   "torch.bincount(torch.tensor([1, 1, 3]))",
                   "torch.bincount(torch.tensor([1, 2]), torch.tensor([0.5, 1.5]))",
                   "torch.bincount(torch.tensor([1, 2]), torch.tensor([1, 2]))",
                   "torch.bincount(torch.tensor([1, 2]), d[:2])",
                   "torch.bincount(torch.tensor([1, 2]), minlength=5)",
                   "torch.bincount(torch.tensor([-1]))", "i.flatten().abs().bincount()",
                   "torch.block_diag(x, y[0], torch.tensor(2.0))", "torch.block_diag(v, d)",
                   "torch.block_diag(x, i)", "torch.block_diag(torch.ones(2, 2, 2))",
                   "torch.block_diag()", "torch.cartesian_prod(x[0], y[1], v)",
                   "torch.cartesian_prod(v)", "torch.cartesian_prod(x)",
                   "torch.combinations(v)", "torch.combinations(v, 3)",
                   "torch.combinations(v, 2, with_replacement=True)", "torch.combinations(v, 0)",
                   "torch.combinations(x)", "torch.combinations(v, -1)"])
    differential(snippet)


def test_shape_functions_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        _run(rec, ["torch.rot90(x)", "x.rot90(2)", "torch.rot90(x, -1)", "torch.rot90(x, 0)",
                   "torch.rot90(x, 5, [1, 0])", "torch.rot90(x, 1, [0, -1])",
                   "torch.rot90(v)", "torch.rot90(x, 1, [0])", "torch.rot90(x, 1, [1, 1])",
                   "torch.fliplr(x)", "x.flipud()", "torch.fliplr(v)", "torch.flipud(v)",
                   "torch.ravel(x)", "x.t().ravel()", "torch.diagflat(v)", "x.diagflat(1)",
                   "torch.diagflat(x.t(), -1)",
                   "torch.select_scatter(x, v, 0, 1)", "x.select_scatter(y[:, 0], 1, -1)",
                   "torch.select_scatter(x, v, 0, 3)", "torch.select_scatter(x, v[:3], 0, 0)",
                   "torch.slice_scatter(x, y[:, :2], 1, 0, 2)",
                   "torch.slice_scatter(x, y[:2])", "x.slice_scatter(y[:, ::2], 1, step=2)",
                   "torch.slice_scatter(x, y[1:], start=1)",
                   "torch.slice_scatter(x, y[:, :3], dim=-1, end=-1)",
                   "torch.slice_scatter(x, y, 1, 0, 2)",
                   "torch.diagonal_scatter(x, v[:3])", "x.diagonal_scatter(v[:3], 1)",
                   "torch.diagonal_scatter(x, v[:2], -1)", "torch.diagonal_scatter(x, v)",
                   "x.index_put((torch.tensor([0, 2]),), y[:2])",
                   "x.index_put((torch.tensor([0, 0]),), y[:2], accumulate=True)",
                   "torch.index_put(x, (torch.tensor([1]), torch.tensor([3])), v[:1])",
                   "x.index_put((torch.tensor([0, 2]),), torch.ones(3))",
                   "x.index_put(torch.tensor([0]), torch.ones(4))",
                   "x.index_put([torch.tensor([0])], v)",
                   "x.index_put((torch.tensor([5]),), v)", "x.index_put((torch.tensor([-4]),), v)",
                   "x.index_put((torch.tensor([0.5]),), v)",
                   "x.index_put((torch.tensor([0]),), d.detach()[:1])",
                   "x.index_put((torch.tensor([True, False, True]),), torch.tensor(1.0))",
                   "x.index_put((None, torch.tensor([1])), torch.tensor(2.0))",
                   "x.index_put((torch.tensor([0]), torch.tensor([1, 2])), v[:2], True)",
                   "x.split_with_sizes([1, 3], 1)", "torch.split_with_sizes(x, [2, 1])",
                   "x.split_with_sizes([1, 1])",
                   "x.unfold(1, 2, 1)", "x.unfold(-1, 2, 2)", "x.unfold(0, 3, 1)",
                   "x.unfold(1, 5, 1)", "x.unfold(1, 2, 0)", "x.unfold(2, 1, 1)",
                   "x.unfold(1, 0, 1)", "d[0].unfold(0, 1, 1)", "v.unfold(0, 2, 1).sum(1)"])
    differential(snippet)


def test_inplace_forms_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        env = _env(torch)
        for code in ("torch.exp_(t)", "torch.abs_(t)", "torch.sqrt_(t.abs_())",
                     "torch.clamp_(t, -1, 1)", "torch.clamp_min_(t, 0.0)", "torch.neg_(t)",
                     "torch.round_(t)", "torch.trunc_(t)", "torch.zero_(t)", "torch.fill_(t, 2)",
                     "torch.arctan_(t)", "t.arcsinh_()",
                     "t.asinh_()", "torch.acosh_(t)", "t.arccosh_()", "torch.atanh_(t / 4)",
                     "torch.arctanh_(t)",
                     "torch.negative_(t)", "torch.fix_(t)", "t.fix_()", "torch.deg2rad_(t)",
                     "t.rad2deg_()", "t.copysign_(-1.0)", "t.copysign_(y)",
                     "t.true_divide_(2)", "t.divide_(y)", "t.multiply_(3)",
                     "t.subtract_(y, alpha=2)", "t.float_power_(2)",
                     "t.double().float_power_(2)", "t.ldexp_(torch.tensor([1, 2, 0, -1]))",
                     "torch.ldexp_(t, torch.tensor([2]))", "t.mvlgamma_(1)", "t.renorm_(2, 0, 1)",
                     "torch.gcd_(i.clone(), i + 4)", "t.atan2_(y)", "t.arctan2_(y)", "t.i0_()",
                     "t.abs().igamma_(y.abs())",
                     "t.nextafter_(y)",
                     "torch.i0_(t)",
                     "torch.clip_(t, -1, 0.5)", "t.clip_(max=0.2)", "i.clone().atan2_(i)",
                     "i.clone().lcm_(torch.tensor([3, 5]))",
                     "t.index_put_((torch.tensor([1]),), y[0])",
                     "torch.index_put_(t, (torch.tensor([0]),), y[2], True)",
                     "torch.deg2rad_(i.clone())", "torch.detach_(t)"):
            t = env["x"] * 1.0
            local = {**env, "t": t}
            before = t.grad_fn.name()
            if rec.attempt(code, lambda code=code, local=local: eval(code, local)):
                rec.note(f"{code}: node", (before, t.grad_fn.name() if t.grad_fn else None,
                                          t._version))
                if t.requires_grad:
                    rec.attempt(f"{code}: grad",
                            lambda t=t: torch.autograd.grad(t.sum(), env["x"])[0])
    differential(snippet)


def test_inplace_views_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        env = _env(torch)
        for code in ("t.t_()", "t.transpose_(0, 1)", "t.swapaxes_(0, -1)", "t.swapdims_(1, 0)",
                     "t.unsqueeze_(1)", "t.unsqueeze_(-1).squeeze_()",
                     "t.unsqueeze_(0).squeeze_(0)",
                     "t.unsqueeze_(0).squeeze_((0, 1))", "t.squeeze_(1)", "t.unsqueeze_(5)",
                     "t[0].unsqueeze_(0)", "t.t()[1].unsqueeze_(0).mul_(2)",
                     "u = t[1]; u.unsqueeze_(0); u.mul_(3); u", "x.t_()", "x.detach().t_()",
                     "torch.ones(2, 2, 2).t_()", "x.detach()[0].unsqueeze_(0)"):
            t = env["x"] * 1.0
            local = {**env, "t": t}

            def go(code: str = code, local: dict[str, Any] = local) -> Any:
                exec(f"r = {code}" if "=" not in code.split(";")[0] else code, local)
                return local.get("r", local.get("u"))
            if rec.attempt(code, go):
                rec.note(f"{code}: t", (t, t.shape, t._version, t._base is None,
                                        t.grad_fn.name() if t.grad_fn else None))
                rec.graph(f"{code}: graph", t=t)
                rec.note(f"{code}: grad", torch.autograd.grad(
                    (t * torch.arange(float(t.numel())).reshape(t.shape)).sum(), env["x"])[0])
    differential(snippet)


def test_as_strided_and_fill_diagonal_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        _run(rec, ["x.as_strided((2, 2), (1, 2), 1)", "torch.as_strided(x, (3,), (2,))",
                   "x.as_strided((3, 3), (1, 1))", "x.as_strided((2, 3), (0, 1))",
                   "x.as_strided((4, 4), (4, 1))", "x.as_strided((2,), (1, 1))",
                   "(x * 1).as_strided((2,), (5,)).mul_(2)", "x[1].as_strided((2,), (1,))",
                   "x.view(3, 4)[1].as_strided((2, 2), (2, 1), 4)",
                   "x.reshape(12)[2:].as_strided((3,), (3,))",
                   "x.as_strided((2,), (1,), storage_offset=11)", "x.as_strided((2,), (1,), 11)",
                   "x.as_strided((2,), (1, 1))"])
        torch = rec.torch
        env = _env(torch)
        for code in ("t.fill_diagonal_(5.0)", "t.t().contiguous().fill_diagonal_(-1)",
                     "torch.zeros(5, 3).fill_diagonal_(1, wrap=True)",
                     "torch.zeros(7, 3).fill_diagonal_(1, wrap=True)",
                     "torch.zeros(7, 3).fill_diagonal_(1)",
                     "torch.zeros(3, 3, 3).fill_diagonal_(2)",
                     "torch.zeros(3, 2, 3).fill_diagonal_(1)", "torch.zeros(3).fill_diagonal_(1)",
                     "x.fill_diagonal_(1)", "t[:, 1:].fill_diagonal_(0)"):
            t = env["x"] * 1.0
            if rec.attempt(code, lambda code=code, t=t: eval(code, {**env, "t": t})):
                rec.note(f"{code}: t", (t, t._version))
                rec.graph(f"{code}: graph", t=t)
                rec.note(f"{code}: grad", torch.autograd.grad(
                    (t * torch.arange(12.0).reshape(3, 4)).sum(), env["x"])[0])
    differential(snippet)


def test_warnings_and_errors_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        env = _env(torch)
        for code in ("torch.cov(env['v'][:1])", "torch.var_mean(env['v'][:1], 0)",
                     "torch.std_mean(env['v'][:1])", "torch.nanmean(env['i'])",
                     "torch.fliplr(env['v'])", "torch.flipud(torch.tensor(1.0))",
                     "torch.fmax(env['x'], 2)", "torch.float_power(env['x'], env['i'][:1, :1])"):
            rec.attempt(code, lambda code=code: eval(code, {"torch": torch, "env": env}))
    differential(snippet)
