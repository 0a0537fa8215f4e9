"""The fused and special elementwise ops (``addcmul``, ``addcdiv``, ``lerp``, ``erf``, ``erfinv``,
``lgamma``, ``digamma``, ``polygamma``, ``xlogy``, ``hypot``, ``logaddexp``, ``sinc``, ``frac``,
``heaviside``, the ``logical_*`` ops, ``torch.special``) and the activations of
``ops_activation`` (modules and functions, in place too), checked against real PyTorch 2.13:
values over wide ranges (poles and edges included), errors word for word, module reprs, small
models trained a few steps, in-place forms and their saved results. The op table's tests
(``test_op_table``) check each node's graph, saved values, gradients and create_graph graph."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import graphviz_autograd.torch as ours

from ._support import Recorder, differential, fixed_parameters, real_torch

pytestmark = pytest.mark.torch

_WIDE = np.concatenate([np.linspace(-9.7, 35.0, 181), [0.0, -1.0, -2.0, -3.5, 1e-3, 1e-8, 150.0,
                                                         -0.5, 0.5, 1.0, 2.0, np.inf, -np.inf,
                                                         np.nan]])
_UNIT = np.concatenate([np.linspace(-1.0, 1.0, 101), [0.999999, -0.9999999, 1e-9, 1.5, -2.0,
                                                       np.nan]])

UNARY = [("erf", _WIDE), ("erfc", _WIDE), ("erfinv", _UNIT), ("lgamma", _WIDE),
         ("digamma", _WIDE), ("sinc", _WIDE), ("frac", _WIDE), ("nan_to_num", _WIDE)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("name", "values"), UNARY, ids=[u[0] for u in UNARY])
def test_special_function_values_as_pytorch(name: str, values: np.ndarray, dtype: str) -> None:
    torch = real_torch()
    x = values.astype(dtype)
    expected = getattr(torch, name)(torch.tensor(x.tolist(), dtype=getattr(torch, dtype)))
    got = getattr(ours, name)(ours.tensor(x.tolist(), dtype=getattr(ours, dtype)))
    assert str(got.dtype) == str(expected.dtype)
    # NB: float32 near a root: PyTorch computes in float32, the engine in float64
    rtol, atol = (1e-9, 1e-12) if dtype == "float64" else (2e-6, 1e-6)
    np.testing.assert_allclose(np.array(got.tolist()), np.array(expected.tolist()), rtol=rtol,
                               atol=atol, equal_nan=True)


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_polygamma_values_as_pytorch(n: int) -> None:
    torch = real_torch()
    # NB: at the negative integers PyTorch's trigamma gives a large finite number, the engine
    # inf (as at 0)
    x = np.concatenate([np.linspace(-4.7, 30.0, 121), [0.0, 1e-3, 80.0]])
    expected = torch.polygamma(n, torch.tensor(x.tolist(), dtype=torch.float64))
    got = ours.polygamma(n, ours.tensor(x.tolist(), dtype=ours.float64))
    # NB: PyTorch's own series is good to about 1e-9 relative
    np.testing.assert_allclose(np.array(got.tolist()), np.array(expected.tolist()), rtol=1e-7,
                               equal_nan=True)


BINARY = ["xlogy", "hypot", "logaddexp", "logaddexp2"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_special_values_as_pytorch(name: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([0.0, 0.0, 0.0, 1.5, -2.0, 3.0, 40.0, -40.0, float("nan"), 0.0])
        y = torch.tensor([0.0, -1.0, float("nan"), 2.5, 0.5, -3.0, 39.0, 1.0, 1.0, float("inf")])
        fn = getattr(torch, name)
        rec.attempt("values", lambda: fn(x, y))
        rec.attempt("float64", lambda: fn(x.double(), y).dtype)
        rec.attempt("integers", lambda: fn(torch.tensor([1, 2]), torch.tensor([3, 4])))
        rec.attempt("a number", lambda: fn(x, 2.0))
    differential(snippet)


def test_fused_ops_and_their_errors_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([0.6, -1.3, 2.2], requires_grad=True)
        b = torch.tensor([1.4, 0.7, -0.9])
        i = torch.tensor([1, 2, 3])
        d = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
        env = {"torch": torch, "a": a, "b": b, "i": i, "d": d}
        for code in ("torch.addcmul(a, b, b, value=3)", "a.addcdiv(b, b + 3, value=-0.5)",
                     "torch.addcmul(a, b, torch.ones(2))", "torch.addcdiv(i, i, i)",
                     "torch.addcdiv(a, i, i)", "torch.addcmul(i, i, i, value=0.5)",
                     "torch.addcmul(a, d, b).dtype", "torch.addcmul(b, i, i).dtype",
                     "torch.lerp(a, b, 0.25)", "torch.lerp(a, b, torch.tensor(0.75))",
                     "torch.lerp(b, d, 0.5)", "torch.lerp(b, b, d)", "torch.lerp(i, i, 0.5)",
                     "torch.lerp(a, torch.ones(2), 0.5)", "torch.heaviside(b, d)",
                     "torch.heaviside(b, 0.5)", "torch.heaviside(b, torch.tensor(0.5))",
                     "torch.frac(i)", "torch.erf(i)", "torch.lgamma(i).dtype",
                     "torch.polygamma(1, i)", "torch.xlogy(2, i)", "torch.xlogy(i, 3)",
                     "torch.special.expit(b)", "torch.special.gammaln(b)",
                     "torch.special.logsumexp(b, 0)", "torch.special.log_softmax(b, 0)"):
            rec.attempt(code, lambda code=code: eval(code, env))
        for code in ("b.clone().addcmul_(b, b, value=2)", "b.clone().addcdiv_(b, d)",
                     "i.clone().addcmul_(b, b)", "b.clone().lerp_(d.float(), 0.5)",
                     "b.clone().lerp_(torch.ones(2, 3), 0.5)", "b.clone().erfinv_()",
                     "b.clone().hypot_(d.float())", "b.clone().xlogy_(2)",
                     "b.clone().polygamma_(2)"):
            rec.attempt(code, lambda code=code: eval(code, env))
    differential(snippet)


def test_logical_ops_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([0.0, 1.5, -2.0, 0.0], requires_grad=True)
        y = torch.tensor([1, 0, 3, 0])
        for name in ("and", "or", "xor"):
            fn = getattr(torch, f"logical_{name}")
            rec.attempt(name, lambda fn=fn: fn(x, y))
            rec.attempt(f"{name} method", lambda name=name: getattr(x, f"logical_{name}")(y))
            rec.attempt(f"{name} number", lambda fn=fn: fn(x, 2.0))
            rec.attempt(f"{name} shapes", lambda fn=fn: fn(x, torch.ones(3)))
            t = x.detach().clone()
            rec.attempt(f"{name}_", lambda t=t, name=name: (getattr(t, f"logical_{name}_")(y),
                                                            t._version))
        rec.attempt("not", lambda: (torch.logical_not(x), x.logical_not(), (~(x > 0))))
        t = y.clone()
        rec.attempt("not_", lambda: (t.logical_not_(), t._version))
    differential(snippet)


@pytest.mark.parametrize("code", ["torch.heaviside(a, b)", "a // 0.3", "2.0 % a",
                                  "F.hardsigmoid(a * 3)"])
def test_a_node_without_derivative_runs_as_soon_as_ready(code: str) -> None:
    """PyTorch's NotImplemented node has no sequence number: a backward reaches it before the
    nodes made earlier, so what ran before it raised (the grads accumulated) is PyTorch's."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([0.6, -1.3, 2.2], requires_grad=True)
        b = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
        env = {"torch": torch, "F": torch.nn.functional, "a": a, "b": b}
        first = (a * b).exp()
        out = eval(code, env)
        if "hardsigmoid" in code:
            out, = torch.autograd.grad(out.sum(), a, create_graph=True)
        rec.note("unset", out.grad_fn._sequence_nr() > 2 ** 62)
        loss = (first * 2).sum() + (out * a).sum()
        rec.attempt("backward", loss.backward)
        rec.grad("grads", a=a, b=b)
    differential(snippet)


def test_heaviside_has_no_derivative_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([0.6, 0.0, -2.2], requires_grad=True)
        b = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
        out = torch.heaviside(a, b)
        rec.note("value", out)
        rec.graph("graph", out=out)
        rec.note("sequence is unset", out.grad_fn._sequence_nr() > 2 ** 62)
        loss = (out * a).sum() + (a * b).sum()
        rec.attempt("backward", loss.backward)
        rec.grad("grads", a=a, b=b)
    differential(snippet)


# -- activations ----------------------------------------------------------------------------------
MODULES = ["ELU()", "ELU(0.5)", "SELU()", "CELU(0.7)", "ReLU6()", "Hardtanh(-0.5, 0.5)",
           "Softplus(2.0, 3.0)", "PReLU()", "PReLU(4, 0.1)", "LogSigmoid()", "Hardswish()",
           "Hardsigmoid()", "Mish()", "Softsign()", "Softmin(1)", "Tanhshrink()",
           "Threshold(0.1, -0.5)", "Hardshrink(0.3)", "Softshrink(0.2)", "LeakyReLU(0.2)",
           "SiLU()", "ELU(inplace=True)", "SELU(True)", "CELU(inplace=True)", "ReLU6(True)",
           "Hardtanh(inplace=True)", "Hardswish(True)", "Hardsigmoid(True)", "Mish(True)",
           "Threshold(0.1, 2.0, True)", "LeakyReLU(0.1, True)", "SiLU(True)", "RReLU()",
           "RReLU(0.1, 0.6, True)"]


@pytest.mark.parametrize("act", MODULES)
def test_an_mlp_with_the_activation_as_pytorch(act: str) -> None:
    """Two steps of training: graphs (saved values included) before and after backward, the
    gradients, the outputs."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        model = nn.Sequential(nn.Linear(3, 4), eval(f"nn.{act}", {"nn": nn}), nn.Linear(4, 2))
        fixed_parameters(torch, model)
        torch.manual_seed(5)            # NB: RReLU's slopes
        rec.note("repr", repr(model))
        for step in range(2):
            x = torch.tensor((np.sin(np.arange(15) * (step + 1.7)) * 3).reshape(5, 3).tolist())
            out = model(x)
            rec.graph(f"step {step}", out=out)
            loss = (out ** 2).mean()
            rec.attempt(f"backward {step}", loss.backward)
            rec.graph(f"after backward {step}", out=out)
            rec.grad(f"grads {step}", **dict(model.named_parameters()))
            with torch.no_grad():
                for p in model.parameters():
                    p -= 0.1 * p.grad
            model.zero_grad()
    differential(snippet)


def test_activation_reprs_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        nn = rec.torch.nn
        for code in [*MODULES, "ELU(0.5, True)", "Hardtanh(-2, 2, True)", "Softplus()",
                     "PReLU(3)", "Softmin()", "GLU()", "GLU(1)", "Hardshrink()",
                     "Softshrink()", "Threshold(0.1, 20)", "Hardtanh(1.0, 1.0)", "Softmax2d()",
                     "RReLU(0.2, 0.1)"]:
            rec.attempt(code, lambda code=code: repr(eval(f"nn.{code}", {"nn": nn})))
        rec.note("classes", [[isinstance(eval(f"nn.{a}()", {"nn": nn}), getattr(nn, b))
                              for b in ("ReLU", "Hardtanh", "ELU", "Hardshrink", "Softmax")]
                             for a in ("SiLU", "ReLU6", "CELU", "Softshrink", "Softmin", "SELU")])
        m = nn.PReLU(3, 0.1)
        rec.note("prelu parameters", [(k, v) for k, v in m.named_parameters()])
        rec.note("attributes", [sorted((k, v) for k, v in vars(eval(f"nn.{code}", {"nn": nn}))
                                       .items() if k[0] != "_" and k != "training")
                                for code in ("ELU()", "ReLU6()", "Softmin(1)", "Threshold(1, 2)",
                                             "Hardshrink(0.3)", "Mish(True)", "GLU(0)")])
    differential(snippet)


def test_functional_activation_errors_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        a = torch.tensor([0.6, -1.3, 2.2], requires_grad=True)
        for code in ("F.glu(torch.tensor(2.0))", "F.glu(a)", "F.glu(torch.ones(2, 3), 1)",
                     "F.glu(torch.ones(2, 4), -1)", "F.softshrink(a, -0.5)",
                     "F.hardshrink(a, -0.5)", "F.prelu(a, torch.ones(2))",
                     "F.prelu(torch.ones(2, 3), torch.ones(2))",
                     "F.prelu(a, torch.ones(1, 1))", "F.prelu(torch.ones(2, 3, 2), torch.ones(3))",
                     "F.celu(a, 0.0)", "F.relu6(a)", "F.selu(a)", "F.softsign(a)",
                     "F.tanhshrink(a)", "F.logsigmoid(torch.tensor([-100.0, 0.0, 100.0]))",
                     "F.mish(torch.tensor([-100.0, 0.0, 100.0]))",
                     "F.softplus(torch.tensor([-100.0, 100.0]))", "F.elu_(a)",
                     "F.leaky_relu_(a)", "F.threshold(a, 0.5, 9.0, inplace=True)"):
            rec.attempt(code, lambda code=code: eval(code, {"torch": torch, "F": F, "a": a}))
    differential(snippet)


def test_softmin_warns_of_an_implicit_dim_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], requires_grad=True)
        rec.attempt("implicit", lambda: torch.nn.functional.softmin(x))
        rec.attempt("module", lambda: torch.nn.Softmin()(x))
        rec.attempt("dtype", lambda: torch.nn.functional.softmin(x, 0, dtype=torch.float64))
    differential(snippet)


INPLACE = ["F.elu_(t)", "F.elu(t, 0.5, inplace=True)", "F.selu_(t)", "F.celu_(t, 0.5)",
           "F.leaky_relu_(t, 0.2)", "F.hardtanh_(t)", "F.hardtanh(t, -0.5, 0.5, True)",
           "F.relu6(t, inplace=True)", "F.threshold_(t, 0.5, 2.0)", "F.silu(t, inplace=True)",
           "F.hardswish(t, inplace=True)", "F.hardsigmoid(t, inplace=True)",
           "F.mish(t, inplace=True)", "t.addcmul_(t, t, value=0.5)", "t.addcdiv_(t, t + 9)",
           "t.lerp_(t * 2, 0.3)", "t.erf_()", "t.lgamma_()", "t.frac_()"]


@pytest.mark.parametrize("code", INPLACE)
def test_inplace_forms_as_pytorch(code: str) -> None:
    """The node an in-place form makes, what it saves (the result or a copy of the input), the
    version, what reading its saved values gives after a second write, and the gradients."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        a = torch.tensor([[0.6, -1.3, 2.2], [-0.2, 0.9, -3.1]], requires_grad=True)
        t = a * 1.5
        out = eval(code, {"F": F, "t": t, "torch": torch})
        rec.note("same tensor", out is t)
        rec.note("version", t._version)
        rec.graph("graph", t=t)
        rec.attempt("backward", lambda: t.sum().backward(retain_graph=True))
        rec.grad("grad", a=a)
        with torch.no_grad():
            t.mul_(2)
        rec.graph("after a write", t=t)
        rec.attempt("backward after a write", lambda: t.sum().backward())
    differential(snippet)


def _glu_triple(torch: Any) -> Any:
    x = torch.tensor([[0.5, -1.0, 2.0, 0.3]], requires_grad=True)
    g, = torch.autograd.grad(torch.nn.functional.glu(x).sum(), x, create_graph=True)
    h, = torch.autograd.grad((g * g).sum(), x, create_graph=True)
    return h


def test_glu_second_derivative_as_pytorch_third_unsupported() -> None:
    torch = real_torch()
    x = torch.tensor([[0.5, -1.0, 2.0, 0.3]], requires_grad=True)
    g, = torch.autograd.grad(torch.nn.functional.glu(x).sum(), x, create_graph=True)
    expected, = torch.autograd.grad((g * g).sum(), x)
    xo = ours.tensor([[0.5, -1.0, 2.0, 0.3]], requires_grad=True)
    go, = ours.autograd.grad(ours.nn.functional.glu(xo).sum(), xo, create_graph=True)
    got, = ours.autograd.grad((go * go).sum(), xo)
    np.testing.assert_allclose(got.tolist(), expected.tolist(), rtol=1e-5)
    with pytest.raises(NotImplementedError, match="GluBackwardBackward0"):
        _glu_triple(ours)


FUSED = ["torch.addcmul(x, y, z)", "torch.addcmul(x, y, z, value=0.37)",
         "torch.addcdiv(x, y, z, value=-1.5)", "torch.lerp(x, y, w)", "torch.lerp(x, y, 0.8)",
         "torch.lerp(x, y, 0.3)", "x.clone().addcmul_(y, z, value=3.1)",
         "x.clone().lerp_(y, w)"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("code", FUSED)
def test_fused_ops_are_bit_exact(code: str, dtype: str) -> None:
    """PyTorch's CPU kernels round a fused multiply-add once: the engine's values are the same
    bits."""
    torch = real_torch()
    rng = np.random.default_rng(7)
    arrays = {k: rng.standard_normal(2000) for k in "xyz"}
    arrays["w"] = rng.uniform(-0.5, 1.5, 2000)
    outs = []
    for module in (torch, ours):
        env = {k: module.tensor(v.tolist(), dtype=getattr(module, dtype))
               for k, v in arrays.items()}
        outs.append(np.array(eval(code, {"torch": module, **env}).tolist()))
    np.testing.assert_array_equal(outs[1], outs[0])


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 0.3])
@pytest.mark.parametrize("code", ["torch.lerp(x, y, 0.5)", "x.clone().lerp_(y, 0.25)",
                                  "torch.addcmul(x, x, y)"])
def test_fused_ops_on_0d_tensors_as_pytorch(code: str, value: float) -> None:
    """A 0-d operand, even one not finite, takes the same path as any other (seed 30132 of the
    random programs: ``lerp_`` of a 0-d nan raised numpy's error)."""
    torch = real_torch()
    outs = []
    for module in (torch, ours):
        x = module.tensor(value, dtype=module.float64)
        y = module.tensor(-1.7, dtype=module.float64)
        outs.append(eval(code, {"torch": module, "x": x, "y": y}).item())
    np.testing.assert_array_equal(outs[1], outs[0])


def test_nonzero_as_tuple_and_where_of_a_condition_as_pytorch() -> None:
    torch = real_torch()
    outs = []
    for module in (torch, ours):
        x = module.tensor([[0.0, 1.5], [2.0, 0.0]])
        found = [module.where(module.tensor(True)), module.where(x > 0),
                 module.nonzero(module.tensor(1.0), as_tuple=True), x.nonzero(as_tuple=True),
                 (x.nonzero(),), (module.tensor(2.0).nonzero(),), (x.argwhere(),)]
        outs.append([[(tuple(t.shape), t.tolist(), str(t.dtype)) for t in ts] for ts in found])
    assert outs[1] == outs[0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rrelu_draws_pytorchs_slopes(dtype: str) -> None:
    """In training each element <= 0 takes a slope drawn as PyTorch's CPU kernel draws it: the
    same bits, the same numbers left for the next draw."""
    torch = real_torch()
    x = np.sin(np.arange(3000) * 1.3)
    outs = []
    for module in (torch, ours):
        module.manual_seed(11)
        t = module.tensor(x.tolist(), dtype=getattr(module, dtype), requires_grad=True)
        y = module.nn.functional.rrelu(t, 0.05, 0.45, training=True)
        outs.append((np.array(y.tolist()), np.array(y.grad_fn._saved_noise.tolist()),
                     module.rand(3).tolist()))
    np.testing.assert_array_equal(outs[1][0], outs[0][0])
    np.testing.assert_array_equal(outs[1][1], outs[0][1])
    assert outs[1][2] == outs[0][2]


def test_rrelu_and_softmax2d_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        a = torch.tensor([[0.6, -1.3, 2.2], [-0.2, 0.0, -3.1]], requires_grad=True)
        out = F.rrelu(a)                 # NB: evaluation: the mean slope
        rec.note("eval", out)
        rec.note("eval node", (out.grad_fn.name(), out.grad_fn._saved_lower,
                               out.grad_fn._saved_upper, out.grad_fn._saved_training))
        rec.attempt("eval grad", lambda: torch.autograd.grad(out.sum(), a, create_graph=True))
        rec.attempt("bounds", lambda: F.rrelu(a, 0.5, 0.1, training=True))
        rec.attempt("module eval", lambda: torch.nn.RReLU(0.1, 0.2).eval()(a))
        x = torch.tensor(np.cos(np.arange(24) * 0.7).reshape(2, 3, 4).tolist(),
                         requires_grad=True)
        s2 = torch.nn.Softmax2d()(x)
        rec.graph("softmax2d", s2=s2)
        rec.attempt("softmax2d 4d", lambda: torch.nn.Softmax2d()(x[None]).sum(1))
        rec.attempt("softmax2d 2d", lambda: torch.nn.Softmax2d()(a))
    differential(snippet)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", [2, 3, -1, -2, -0.5, 3.0, -2.0])
def test_the_powers_pytorch_special_cases_are_its_bits(exponent: Any, dtype: str) -> None:
    """``x ** 3`` is ``x * x * x``, ``x ** -2`` is ``1 / (x * x)``, ``x ** -0.5`` is
    ``1 / sqrt(x)`` in PyTorch's kernel: the same bits (numpy's ``power`` rounds otherwise), and
    the same gradients where their power is one of those (``x ** 2``, ``x ** -2``; the others'
    ``x ** -3`` and ``x ** -1.5`` are PyTorch's vectorised ``pow``, an ulp apart)."""
    torch = real_torch()
    values = np.random.default_rng(3).standard_normal(4000).astype(dtype)
    for lib in (torch, ours):
        x = lib.tensor(values, requires_grad=True)
        y = x ** exponent
        y.backward(lib.ones_like(y))
        got = (y.detach().numpy(), x.grad.numpy())
        if lib is torch:
            want = got
    np.testing.assert_array_equal(got[0], want[0])
    if exponent in (2, 3, -1):
        np.testing.assert_array_equal(got[1], want[1])
