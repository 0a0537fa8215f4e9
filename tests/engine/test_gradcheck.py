"""``torch.autograd.gradcheck`` / ``gradgradcheck`` checked against real PyTorch 2.13: custom
Functions that pass and fail (a wrong backward, a backward not reentrant, not multiplied by its
grad_output, failing on undefined grads), slow and fast mode, the return value with
``raise_exception=False``, the messages with their printed Jacobians and the warnings word for
word, the global random state each check leaves; then ``torch.testing.make_tensor`` and the
``torch.autograd`` names and modules real scripts import."""

from __future__ import annotations

import re
import sys
import warnings
from typing import Any

import pytest

import graphviz_autograd.torch as ours

from ._support import Recorder, differential

pytestmark = pytest.mark.torch


def _functions(torch: Any) -> dict[str, Any]:
    """Custom Functions, right and wrong, defined on either module."""
    Function = torch.autograd.Function

    class Exp(Function):
        @staticmethod
        def forward(ctx: Any, i: Any) -> Any:
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            result, = ctx.saved_tensors
            return grad_output * result

    class TwiceExp(Function):          # a wrong backward: twice the gradient
        @staticmethod
        def forward(ctx: Any, i: Any) -> Any:
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            result, = ctx.saved_tensors
            return grad_output * result * 2

    class MulAdd(Function):           # two outputs, a number argument, one wrong coefficient
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any, k: float) -> Any:
            ctx.save_for_backward(a, b)
            ctx.k = k
            return a * b * k, a + b

        @staticmethod
        def backward(ctx: Any, g1: Any, g2: Any) -> Any:
            a, b = ctx.saved_tensors
            return g1 * b * ctx.k + g2, g1 * a * ctx.k + g2 * 1.01, None

    class Drifting(Function):         # each backward differs a little from the last
        calls = 0

        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            return a * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            Drifting.calls += 1
            return g * 2 + Drifting.calls * 1e-3

    class Ignoring(Function):         # ignores its grad_output
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            return a * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return torch.ones_like(g) * 2 + 0 * g

    class Offset(Function):           # right Jacobian, but not zero for a zero grad_output
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            return a.sum()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return torch.ones(3, dtype=torch.float64) * g + (g == 0).double() * 0.5

    class FailsOnNone(Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            ctx.set_materialize_grads(False)
            return a * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            if g is None:
                raise RuntimeError("got an undefined gradient")
            return g * 2

    class NonzeroOnNone(Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            ctx.set_materialize_grads(False)
            return a * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return torch.ones(3, dtype=torch.float64) if g is None else g * 2

    class Cube(Function):             # a first backward right, its own backward wrong
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            ctx.save_for_backward(a)
            return a ** 3

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            a, = ctx.saved_tensors
            return 3 * a.detach() ** 2 * g + 0 * a * g

    class Square(Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            ctx.save_for_backward(a)
            return a ** 2

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx: Any, g: Any) -> Any:
            a, = ctx.saved_tensors
            return 2 * a * g

    class WrongShape(Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            return a.sum()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g.expand(3).reshape(3, 1)

    class SinglePrecision(Function):  # its gradient in float32: PyTorch casts it back
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            return a * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return (g * 2).float()

    return {k: v.apply for k, v in locals().items() if isinstance(v, type)}


def _inputs(torch: Any) -> tuple[Any, Any, Any]:
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    z = torch.tensor([0.2, 0.3, 0.4], dtype=torch.float64, requires_grad=True)
    m = torch.tensor([[1.5, 0.25], [-0.7, 0.3]], dtype=torch.float64, requires_grad=True)
    return x, z, m


_LONG_FLOAT = re.compile(r"-?\d+\.\d{8,}(e-?\d+)?")


def _rounded(fn: Any) -> Any:
    """``fn``, with the numbers its error message prints to full precision rounded to 8 digits.

    NB: fast mode prints ``vᵀJu`` to full precision: a function's own float64 rounding (a matmul
    or a sum, whose kernels add in another order than PyTorch's) shows in its last digits."""
    def call() -> Any:
        try:
            return fn()
        except Exception as e:
            text = _LONG_FLOAT.sub(lambda m: f"{float(m.group()):.8g}", str(e))
            raise type(e)(text) from None
    return call


def _each(rec: Recorder, cases: dict[str, Any]) -> None:
    """Each case from the same seed; its outcome, warnings and the random state it leaves."""
    torch = rec.torch
    for label, fn in cases.items():
        torch.manual_seed(0)
        rec.attempt(label, _rounded(fn) if "fast" in label else fn)
        rec.note(f"{label}: random state after", torch.rand(2))


def test_passing_functions() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        A, F = torch.autograd, _functions(torch)
        x, z, m = _inputs(torch)
        m2 = m.detach().clone().requires_grad_()
        s = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
        _each(rec, {
            "exp": lambda: A.gradcheck(F["Exp"], (x,)),
            "exp fast": lambda: A.gradcheck(F["Exp"], (x,), fast_mode=True),
            "a tensor, not a tuple": lambda: A.gradcheck(torch.sin, x),
            "a list of inputs": lambda: A.gradcheck(lambda a, b: a * b, [x, z]),
            "two outputs": lambda: A.gradcheck(lambda a: (a.sin(), a.cos()), (x,)),
            "a list of outputs": lambda: A.gradcheck(lambda a: [a * 2, a * 3], (x,)),
            "an integer output": lambda: A.gradcheck(lambda a: (a * 2, a.argmax()), (x,)),
            "sort": lambda: A.gradcheck(torch.sort, (x,)),
            "an index input": lambda: A.gradcheck(lambda a, i: a[i], (x, torch.tensor([0, 2]))),
            "matmul": lambda: A.gradcheck(torch.matmul, (m, m2)),
            "matmul fast": lambda: A.gradcheck(torch.matmul, (m, m2), fast_mode=True),
            "0-d": lambda: A.gradcheck(lambda a: a.sin() * 3, (s,)),
            "0-d fast": lambda: A.gradcheck(lambda a: a.sin() * 3, (s,), fast_mode=True),
            "empty": lambda: A.gradcheck(torch.sin, (torch.zeros(0, dtype=torch.float64,
                                                                 requires_grad=True),)),
            "a constant output": lambda: A.gradcheck(lambda a: (a.detach() > 0).double(), (x,)),
            "a constant output fast": lambda: A.gradcheck(
                lambda a: torch.ones(2, dtype=torch.float64), (x,), fast_mode=True),
            "options": lambda: A.gradcheck(torch.sin, (x,), nondet_tol=1e-3, masked=True,
                                           check_grad_dtypes=True, check_undefined_grad=False),
            "batched": lambda: A.gradcheck(torch.tanh, (m,), check_batched_grad=True),
            "batched custom": lambda: A.gradcheck(F["Exp"], (x,), check_batched_grad=True),
            "float32, larger eps": lambda: A.gradcheck(
                F["Exp"], (x.detach().float().requires_grad_(),), eps=1e-3, atol=1e-3),
            "materialize off, undefined handled": lambda: A.gradcheck(
                F["NonzeroOnNone"], (x,), check_undefined_grad=False),
            "a float32 gradient": lambda: A.gradcheck(F["SinglePrecision"], (x,),
                                                      check_grad_dtypes=True),
        })
    differential(snippet)


def test_modules_and_library_functions() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        A, nn, F = torch.autograd, torch.nn, torch.nn.functional
        torch.manual_seed(0)
        x = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
        img = torch.randn(1, 2, 4, 4, dtype=torch.float64, requires_grad=True)
        strided = torch.randn(3, 4, dtype=torch.float64)[:, ::2].requires_grad_()
        lin, conv = nn.Linear(3, 2).double(), nn.Conv2d(2, 1, 3).double()
        _each(rec, {
            "a non-leaf input": lambda: A.gradcheck(torch.sin, (x * 2,)),
            "a parameter input": lambda: A.gradcheck(lambda w: (w * 2).sum(), (lin.weight,)),
            "a non-contiguous input": lambda: A.gradcheck(torch.exp, (strided,)),
            "Linear": lambda: A.gradcheck(lin, (x,)),
            "Linear gradgrad": lambda: A.gradgradcheck(lin, (x,)),
            "Conv2d": lambda: A.gradcheck(conv, (img,)),
            "Conv2d fast": lambda: A.gradcheck(conv, (img,), fast_mode=True),
            "a view output": lambda: A.gradcheck(lambda a: a.t()[0], (x,)),
            "in place in func": lambda: A.gradcheck(lambda a: a.clone().mul_(2).exp_(), (x,)),
            "log_softmax gradgrad": lambda: A.gradgradcheck(lambda a: F.log_softmax(a, 1), (x,)),
            "mse_loss": lambda: A.gradcheck(F.mse_loss, (x, torch.zeros(2, 3,
                                                                        dtype=torch.float64))),
            "relu gradgrad": lambda: A.gradgradcheck(F.relu, (x,)),
        })
    differential(snippet)


def test_failures_and_their_messages() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        A, F = torch.autograd, _functions(torch)
        x, z, _ = _inputs(torch)
        _each(rec, {
            "wrong backward": lambda: A.gradcheck(F["TwiceExp"], (x,)),
            "wrong backward, no raise": lambda: A.gradcheck(F["TwiceExp"], (x,),
                                                            raise_exception=False),
            "wrong backward fast": lambda: A.gradcheck(F["TwiceExp"], (x,), fast_mode=True),
            "wrong backward fast, no raise": lambda: A.gradcheck(
                F["TwiceExp"], (x,), fast_mode=True, raise_exception=False),
            "output 1, input 1": lambda: A.gradcheck(F["MulAdd"], (x, z, 2.0)),
            "output 1, input 1 fast": lambda: A.gradcheck(F["MulAdd"], (x, z, 2.0),
                                                          fast_mode=True),
            "within atol": lambda: A.gradcheck(F["MulAdd"], (x, z, 2.0), atol=0.02),
            "float32": lambda: A.gradcheck(F["Exp"], (x.detach().float().requires_grad_(),)),
            "no input requires grad": lambda: A.gradcheck(F["Exp"], (x.detach(),)),
            "stride 0": lambda: A.gradcheck(torch.sin, (torch.ones(
                1, dtype=torch.float64, requires_grad=True).expand(3),)),
            "not reentrant": lambda: A.gradcheck(F["Drifting"], (x,)),
            "reentrant within nondet_tol": lambda: A.gradcheck(F["Drifting"], (x,),
                                                               nondet_tol=1.0),
            "grad_output ignored": lambda: A.gradcheck(F["Ignoring"], (x,)),
            "not multiplied by grad_output": lambda: A.gradcheck(F["Offset"], (x,)),
            "fails on undefined grads": lambda: A.gradcheck(F["FailsOnNone"], (x,)),
            "nonzero for undefined grads": lambda: A.gradcheck(F["NonzeroOnNone"], (x,)),
            "undefined check off": lambda: A.gradcheck(F["FailsOnNone"], (x,),
                                                       check_undefined_grad=False),
            "detached output": lambda: A.gradcheck(lambda a: a.detach() * 2, (x,)),
            "detached output fast": lambda: A.gradcheck(lambda a: a.detach() * 2, (x,),
                                                        fast_mode=True),
            "a number output": lambda: A.gradcheck(lambda a: 3.0, (x,)),
            "a gradient of the wrong shape": lambda: A.gradcheck(F["WrongShape"], (x,)),
            "func raises": lambda: A.gradcheck(lambda a: a @ a.reshape(1, 3), (x,)),
            "neither mode": lambda: A.gradcheck(torch.sin, (x,), check_backward_ad=False),
            "batched forward without forward": lambda: A.gradcheck(
                torch.sin, (x,), check_batched_forward_grad=True),
        })
    differential(snippet)


def test_warnings_show_once_per_place() -> None:
    """Under Python's default filter the not-double warning shows once however many calls (its
    place is inside gradcheck, as PyTorch's), the BC-breaking one once for each of its two."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        A, F = torch.autograd, _functions(torch)
        x, _, _ = _inputs(torch)
        single = x.detach().float().requires_grad_()
        # NB: PyTorch's first gradcheck in a process imports modules that reset the filters
        A.gradcheck(torch.sin, (x,), check_batched_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            A.gradcheck(F["Exp"], (single,), eps=1e-3, atol=1e-2)
            A.gradcheck(torch.sin, (single,), eps=1e-3, atol=1e-2)
            for fn in ("FailsOnNone", "NonzeroOnNone", "FailsOnNone", "NonzeroOnNone"):
                A.gradcheck(F[fn], (x,), raise_exception=False)
        rec.note("shown", [str(w.message)[:40] for w in caught])
    differential(snippet)


def test_gradgradcheck() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        A, F = torch.autograd, _functions(torch)
        x, _, m = _inputs(torch)
        m2 = m.detach().clone().requires_grad_()
        ones = torch.ones(3, dtype=torch.float64, requires_grad=True)
        _each(rec, {
            "cube sum": lambda: A.gradgradcheck(lambda a: (a ** 3).sum(), (x,)),
            "exp": lambda: A.gradgradcheck(F["Exp"], (x,)),
            "matmul": lambda: A.gradgradcheck(torch.matmul, (m, m2)),
            "matmul fast, noncontiguous": lambda: A.gradgradcheck(
                torch.matmul, (m, m2), fast_mode=True, gen_non_contig_grad_outputs=True),
            "batched": lambda: A.gradgradcheck(torch.tanh, (m,), check_batched_grad=True),
            "wrong double backward": lambda: A.gradgradcheck(F["Cube"], (x,)),
            "wrong double backward fast": lambda: A.gradgradcheck(F["Cube"], (x,),
                                                                  fast_mode=True),
            "wrong double backward, no raise": lambda: A.gradgradcheck(
                F["Cube"], (x,), raise_exception=False),
            "given grad_outputs": lambda: A.gradgradcheck(F["Cube"], (x,), (ones,)),
            "once_differentiable": lambda: A.gradgradcheck(F["Square"], (x,)),
            "undefined without rev": lambda: A.gradgradcheck(torch.sin, (x,),
                                                             check_rev_over_rev=False),
        })
    differential(snippet)


def test_deprecated_jacobian_functions() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        mod = sys.modules[torch.autograd.gradcheck.__module__]
        x, z, _ = _inputs(torch)
        rec.note("__all__", mod.__all__)
        rec.note("error type", [c.__name__ for c in mod.GradcheckError.__mro__])
        _each(rec, {
            "numerical": lambda: mod.get_numerical_jacobian(lambda t: t[0] * t[1], (x, z)),
            "numerical grad_out": lambda: mod.get_numerical_jacobian(lambda t: t[0], (x,),
                                                                     grad_out=2.0),
            "analytical": lambda: mod.get_analytical_jacobian((x, z), x * z),
            "wrt input": lambda: mod.get_numerical_jacobian_wrt_specific_input(
                lambda a, b: a * b, 1, (x, z), (x * z,), 1e-6),
        })
    differential(snippet)


# -- the extending-autograd tutorial, unmodified (on the engine, through ``import torch``) ------
TUTORIAL = '''
import torch
from torch.autograd import Function


class LinearFunction(Function):

    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)

        return grad_input, grad_weight, grad_bias


linear = LinearFunction.apply

from torch.autograd import gradcheck

input = (torch.randn(20,20,dtype=torch.double,requires_grad=True), torch.randn(30,20,dtype=torch.double,requires_grad=True))
test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
print(test)


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


x = torch.linspace(-1, 1, 7, dtype=torch.double, requires_grad=True)
print(gradcheck(LegendrePolynomial3.apply, (x,)))
print(torch.autograd.gradgradcheck(LegendrePolynomial3.apply, (x,)))
'''  # noqa: E501 -- the tutorial's lines as they are


def test_tutorial_runs_unmodified(capsys: pytest.CaptureFixture[str]) -> None:
    from graphviz_autograd.torch_alias import native_torch

    with native_torch():
        exec(compile(TUTORIAL, "<tutorial>", "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out.split() == ["True", "True", "True"]


def test_tutorial_functions_small_and_broken() -> None:
    """The tutorial's LinearFunction (and a copy with a wrong bias gradient) on both modules."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        # NB: the class alone, its imports left out: they would name real torch here
        source = TUTORIAL.split("linear = ")[0].split("\n\n\n", 1)[1]
        broken = source.replace("grad_bias = grad_output.sum(0)",
                                "grad_bias = grad_output.sum(0) * 0.5")
        env: dict[str, Any] = {}
        bad: dict[str, Any] = {}
        exec(source, {"torch": torch, "Function": torch.autograd.Function}, env)
        exec(broken, {"torch": torch, "Function": torch.autograd.Function}, bad)
        torch.manual_seed(0)
        args = (torch.randn(3, 4, dtype=torch.double, requires_grad=True),
                torch.randn(2, 4, dtype=torch.double, requires_grad=True),
                torch.randn(2, dtype=torch.double, requires_grad=True))
        _each(rec, {
            "right": lambda: torch.autograd.gradcheck(env["LinearFunction"].apply, args),
            "right, gradgrad": lambda: torch.autograd.gradgradcheck(
                env["LinearFunction"].apply, args),
            "wrong bias grad": lambda: torch.autograd.gradcheck(bad["LinearFunction"].apply,
                                                                args),
            "wrong bias grad fast": lambda: torch.autograd.gradcheck(
                bad["LinearFunction"].apply, args, fast_mode=True),
        })
    differential(snippet)


def test_forward_mode_checks_beyond_the_slow_one_are_refused() -> None:
    x = ours.ones(2, dtype=ours.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="fast_mode=True is not implemented"):
        ours.autograd.gradcheck(ours.sin, (x,), check_forward_ad=True, fast_mode=True)
    with pytest.raises(NotImplementedError, match="fast_mode=True is not implemented"):
        ours.autograd.gradgradcheck(ours.sin, (x,), check_fwd_over_rev=True, fast_mode=True)


def test_gradgradcheck_forward_over_reverse_as_pytorch() -> None:
    """``check_fwd_over_rev=True``: the gradients' Jacobian in forward mode (saved values carry
    their tangents), passing for the table's ops, failing on a wrong double backward."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        A, F = torch.autograd, torch.nn.functional

        class Cube(torch.autograd.Function):     # its double backward wrong (a detached)
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                ctx.save_for_backward(a)
                ctx.save_for_forward(a)
                return a ** 3

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                a, = ctx.saved_tensors
                return 3 * a.detach() ** 2 * g

            @staticmethod
            def jvp(ctx: Any, t: Any) -> Any:
                a, = ctx.saved_tensors
                return 3 * a ** 2 * t

        class CubeRight(Cube):
            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                a, = ctx.saved_tensors
                return 3 * a ** 2 * g

        x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
        m = torch.tensor([[1.5, 0.25], [-0.7, 0.3]], dtype=torch.float64, requires_grad=True)
        m2 = torch.tensor([[0.2, -0.4], [1.1, 0.6]], dtype=torch.float64, requires_grad=True)
        t = torch.tensor([0.1, 0.2, -0.3], dtype=torch.float64)
        w1 = torch.tensor([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]], dtype=torch.float64,
                          requires_grad=True)
        w2 = torch.tensor([[0.7, -1.1]], dtype=torch.float64, requires_grad=True)

        def mlp(a: Any, u: Any, v: Any) -> Any:
            return F.linear(torch.tanh(F.linear(a, u)), v).sigmoid().sum()

        def check(fn: Any, args: Any, **kw: Any) -> Any:
            return lambda: A.gradgradcheck(fn, args, check_fwd_over_rev=True, **kw)

        cases = {
            "cube sum": check(lambda a: (a ** 3).sum(), (x,)),
            "sigmoid": check(torch.sigmoid, (x,)),
            "tanh": check(torch.tanh, (m,)),
            "exp, log": check(lambda a: (a.exp() + 1).log(), (x,)),
            "pow": check(torch.pow, (m.abs().detach().requires_grad_(), m2)),
            "softmax": check(lambda a: a.softmax(1), (m,)),
            "log_softmax": check(lambda a: F.log_softmax(a, 0), (x,)),
            "matmul": check(torch.matmul, (m, m2)),
            "mse_loss sum": check(lambda a: F.mse_loss(a, t, reduction="sum"), (x,)),
            "mse_loss mean": check(lambda a: F.mse_loss(a, t), (x,)),
            "mlp": check(mlp, (x, w1, w2)),
            "fwd over rev only": check(torch.sin, (x,), check_rev_over_rev=False,
                                       check_undefined_grad=False),
            "wrong double backward": check(Cube.apply, (x,)),
            "wrong double backward, no raise": check(Cube.apply, (x,), raise_exception=False),
            "wrong double backward, fwd only": check(Cube.apply, (x,), check_rev_over_rev=False,
                                                     check_undefined_grad=False),
            "right double backward": check(CubeRight.apply, (x,)),
        }
        for label, fn in cases.items():
            torch.manual_seed(0)
            # NB: PyTorch's forward-mode checks script a helper (a deprecation warning per call
            # from its internals): outcomes compared, not warnings
            rec.attempt(label, fn, record_warnings=False)
    differential(snippet)


def test_check_forward_ad_as_pytorch() -> None:
    """The slow forward-mode check: passes, and fails with PyTorch's message on a wrong jvp."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch

        class WrongJvp(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                return a * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 2

            @staticmethod
            def jvp(ctx: Any, t: Any) -> Any:
                return t * 3

        x = torch.tensor([[0.3, -1.2], [2.0, 0.5]], dtype=torch.float64, requires_grad=True)
        y = torch.tensor([0.7, -0.4], dtype=torch.float64, requires_grad=True)
        check = torch.autograd.gradcheck
        # NB: PyTorch's undefined-tangent check scripts a helper (a deprecation warning per
        # call from its internals): outcomes compared, not warnings
        cases = {
            "ops": lambda: check(lambda a, b: (a @ b).tanh() * b, (x, y), check_forward_ad=True),
            "forward only": lambda: check(lambda a: a.softmax(1), (x,), check_forward_ad=True,
                                          check_backward_ad=False),
            "wrong jvp": lambda: check(WrongJvp.apply, (y,), check_forward_ad=True),
            "wrong jvp, no raise": lambda: check(WrongJvp.apply, (y,), check_forward_ad=True,
                                                 raise_exception=False),
            "wrong jvp, backward only": lambda: check(WrongJvp.apply, (y,)),
        }
        for label, fn in cases.items():
            rec.attempt(label, fn, record_warnings=False)
    differential(snippet)


def test_make_tensor() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        make = torch.testing.make_tensor
        _each(rec, {
            "float64": lambda: make((2, 3), dtype=torch.float64, device="cpu", low=-1, high=1,
                                    requires_grad=True),
            "defaults": lambda: make(4, dtype=torch.float32, device="cpu"),
            "shape as args": lambda: make(2, 3, dtype=torch.float32, device="cpu"),
            "noncontiguous": lambda: (lambda t: (t, t.is_contiguous(), t.stride()))(
                make((2, 3), dtype=torch.float32, device="cpu", noncontiguous=True)),
            "int64": lambda: make((5,), dtype=torch.int64, device="cpu"),
            "uint8": lambda: make((5,), dtype=torch.uint8, device="cpu", low=-3, high=4),
            "bool": lambda: make(6, dtype=torch.bool, device="cpu"),
            "huge range": lambda: make(3, dtype=torch.float64, device="cpu", low=-1e308,
                                       high=1e308),
            "exclude_zero": lambda: make(8, dtype=torch.int64, device="cpu", low=-1, high=2,
                                         exclude_zero=True),
            "error low >= high": lambda: make(2, dtype=torch.float32, device="cpu", low=2,
                                              high=1),
            "error nan": lambda: make(2, dtype=torch.float32, device="cpu", low=float("nan")),
            "error int requires grad": lambda: make(2, dtype=torch.int64, device="cpu",
                                                    requires_grad=True),
            "error interval": lambda: make(2, dtype=torch.uint8, device="cpu", low=-9, high=-1),
            "low == high": lambda: make(2, dtype=torch.float64, device="cpu", low=1, high=1),
        })
    differential(snippet)


def test_autograd_namespace() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        A = torch.autograd
        rec.note("gradcheck is a function", [type(A.gradcheck).__name__,
                                             type(A.gradgradcheck).__name__])
        rec.note("gradcheck module", sorted(n for n in sys.modules[A.gradcheck.__module__]
                                            .__all__))
        rec.note("grad_mode", [getattr(A.grad_mode, n) is getattr(torch, n) for n in
                               ("no_grad", "enable_grad", "set_grad_enabled", "inference_mode")])
        rec.note("anomaly_mode", [A.anomaly_mode.detect_anomaly is A.detect_anomaly,
                                  A.anomaly_mode.set_detect_anomaly is A.set_detect_anomaly])
        rec.note("inference_mode", A.inference_mode is torch.inference_mode)
        rec.note("is_tensor_like", [A.is_tensor_like(torch.ones(1)), A.is_tensor_like(1.0),
                                    A.is_tensor_like(torch.nn.Parameter(torch.ones(1)))])
        rec.note("variable module", sys.modules[A.__name__ + ".variable"].Variable
                 is A.Variable)
        rec.attempt("variable()", lambda: A.variable(1.0))
        rec.note("view replay", A.is_view_replay_enabled())
        switch = A.set_multithreading_enabled(False)
        rec.note("multithreading off", [A.is_multithreading_enabled(), type(switch).__name__])
        with A.set_multithreading_enabled(True):
            rec.note("multithreading in a context", A.is_multithreading_enabled())
        rec.note("multithreading after", A.is_multithreading_enabled())
        A.set_multithreading_enabled(True)
        rec.note("Variable", A.Variable(torch.ones(2), requires_grad=True))
    differential(snippet)


def test_script_imports() -> None:
    from graphviz_autograd.torch_alias import native_torch

    with native_torch():
        import torch  # type: ignore[import-not-found]
        import torch.autograd.gradcheck  # type: ignore[import-not-found]
        from torch.autograd import gradcheck  # type: ignore[import-not-found]
        from torch.autograd.anomaly_mode import (  # type: ignore[import-not-found]
            detect_anomaly,
        )
        from torch.autograd.grad_mode import no_grad  # type: ignore[import-not-found]
        from torch.autograd.gradcheck import (  # type: ignore[import-not-found]
            GradcheckError,
            gradgradcheck,
        )
        from torch.autograd.variable import Variable  # type: ignore[import-not-found]
    assert torch is ours and gradcheck is ours.autograd.gradcheck
    assert gradgradcheck is ours.autograd.gradgradcheck and no_grad is ours.no_grad
    assert detect_anomaly is ours.autograd.detect_anomaly and Variable is ours.autograd.Variable
    assert issubclass(GradcheckError, RuntimeError)
