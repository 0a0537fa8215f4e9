"""Forward-mode AD (``torch.autograd.forward_ad``), checked against real PyTorch 2.13: the
tutorial's examples, tangents through a broad sample of ops (elementwise, reductions, products,
views, indexing, softmax, convolution, norms, losses), in-place ops and views of dual tensors,
modules with dual parameters, custom Functions with ``jvp``, errors word for word, and reverse
mode through the primal of a computation made under a dual level."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ._support import Recorder, differential

pytestmark = pytest.mark.torch


def _data(torch: Any, shape: tuple[int, ...], k: int, dtype: Any = None) -> Any:
    n = int(np.prod(shape))
    values = (np.sin(np.arange(n) * (k + 1.3) + k) * (k + 1) * 0.7 + 0.05 * k).reshape(shape)
    return torch.tensor(values.tolist(), dtype=dtype or torch.float32)


def _duals(torch: Any, shapes: list[tuple[int, ...]]) -> list[Any]:
    fw = torch.autograd.forward_ad
    return [fw.make_dual(_data(torch, s, i), _data(torch, s, i + 7)) for i, s in enumerate(shapes)]


def _note_out(rec: Recorder, label: str, out: Any) -> None:
    fw = rec.torch.autograd.forward_ad
    outs = out if isinstance(out, tuple | list) else (out,)
    for i, o in enumerate(outs):
        if not isinstance(o, rec.torch.Tensor):
            continue
        primal, tangent = fw.unpack_dual(o)
        rec.note(f"{label}[{i}] primal", primal)
        rec.note(f"{label}[{i}] tangent", tangent)


# (label, input shapes, fn(torch, F, *duals)): each input is a dual tensor with a tangent
CASES: list[tuple[str, list[tuple[int, ...]], Callable[..., Any]]] = [
    ("add", [(2, 3), (3,)], lambda t, F, a, b: a + b),
    ("sub scalar", [(2, 3)], lambda t, F, a: 2.0 - a),
    ("mul", [(2, 3), (2, 3)], lambda t, F, a, b: a * b),
    ("div", [(2, 3), (2, 3)], lambda t, F, a, b: a / (b.abs() + 1)),
    ("pow", [(2, 3)], lambda t, F, a: a ** 3),
    ("pow tensor", [(3,), (3,)], lambda t, F, a, b: (a.abs() + 0.5) ** b),
    ("exp log", [(4,)], lambda t, F, a: (a.exp() + 1).log()),
    ("sin cos tanh", [(4,)], lambda t, F, a: a.sin() * a.cos() + a.tanh()),
    ("sigmoid relu", [(2, 3)], lambda t, F, a: a.sigmoid() + F.relu(a)),
    ("gelu silu", [(5,)], lambda t, F, a: F.gelu(a) + F.silu(a)),
    ("sqrt rsqrt", [(4,)], lambda t, F, a: (a.abs() + 1).sqrt() + (a * a + 1).rsqrt()),
    ("where clamp", [(5,)], lambda t, F, a: t.where(a > 0, a * 2, a.clamp(-0.3, 0.3))),
    ("maximum", [(4,), (4,)], lambda t, F, a, b: t.maximum(a, b)),
    ("sum", [(2, 3)], lambda t, F, a: a.sum()),
    ("sum dim", [(2, 3)], lambda t, F, a: a.sum(1, keepdim=True)),
    ("mean var", [(3, 4)], lambda t, F, a: (a.mean(0), a.var(1))),
    ("max dim", [(3, 4)], lambda t, F, a: a.max(1)),
    ("max", [(3, 4)], lambda t, F, a: a.max()),
    ("norm", [(3, 4)], lambda t, F, a: a.norm()),
    ("logsumexp", [(3, 4)], lambda t, F, a: a.logsumexp(1)),
    ("cumsum prod", [(4,)], lambda t, F, a: a.cumsum(0) + (a + 2).prod()),
    ("matmul", [(2, 3), (3, 4)], lambda t, F, a, b: a @ b),
    ("mm bmm", [(2, 2, 3), (2, 3, 2)], lambda t, F, a, b: t.bmm(a, b)),
    ("mv", [(2, 3), (3,)], lambda t, F, a, b: t.mv(a, b)),
    ("linear", [(4, 3), (2, 3), (2,)], lambda t, F, x, w, b: F.linear(x, w, b)),
    ("einsum", [(2, 3), (3, 4)], lambda t, F, a, b: t.einsum("ij,jk->ik", a, b)),
    ("view reshape", [(2, 6)], lambda t, F, a: a.view(3, 4).reshape(4, 3) * 2),
    ("transpose permute", [(2, 3, 4)], lambda t, F, a: a.transpose(0, 1).permute(2, 0, 1)),
    ("squeeze unsqueeze", [(1, 3)], lambda t, F, a: a.squeeze(0).unsqueeze(1)),
    ("expand", [(3, 1)], lambda t, F, a: a.expand(3, 4)),
    ("slice select", [(4, 5)], lambda t, F, a: (a[1:3, ::2], a[2], a[:, -1])),
    ("index", [(5, 3)], lambda t, F, a: a[t.tensor([0, 2, 2])]),
    ("mask", [(5,)], lambda t, F, a: a[a > 0]),
    ("gather", [(3, 4)], lambda t, F, a: a.gather(1, t.tensor([[0, 1], [2, 3], [1, 1]]))),
    ("index_select", [(4, 3)], lambda t, F, a: a.index_select(0, t.tensor([3, 0]))),
    ("cat stack", [(2, 3), (2, 3)], lambda t, F, a, b: (t.cat([a, b], 1), t.stack([a, b]))),
    ("split chunk", [(6, 2)], lambda t, F, a: (*a.split(4), *a.chunk(3))),
    ("flip roll", [(2, 3)], lambda t, F, a: (a.flip(1), a.roll(1, 0))),
    ("sort topk", [(5,)], lambda t, F, a: (a.sort()[0], a.topk(2).values)),
    ("softmax", [(2, 5)], lambda t, F, a: F.softmax(a, dim=1)),
    ("log_softmax", [(2, 5)], lambda t, F, a: F.log_softmax(a, dim=-1)),
    ("cross_entropy", [(3, 4)], lambda t, F, a: F.cross_entropy(a, t.tensor([0, 3, 1]))),
    ("mse_loss", [(3, 2), (3, 2)], lambda t, F, a, b: F.mse_loss(a, b)),
    ("conv2d", [(1, 2, 5, 5), (3, 2, 3, 3), (3,)],
     lambda t, F, x, w, b: F.conv2d(x, w, b, padding=1)),
    ("conv1d stride", [(2, 2, 7), (3, 2, 3)], lambda t, F, x, w: F.conv1d(x, w, stride=2)),
    ("max_pool2d", [(1, 1, 4, 4)], lambda t, F, x: F.max_pool2d(x, 2)),
    ("avg_pool2d", [(1, 2, 4, 4)], lambda t, F, x: F.avg_pool2d(x, 2)),
    ("layer_norm", [(2, 4), (4,), (4,)], lambda t, F, x, w, b: F.layer_norm(x, (4,), w, b)),
    ("batch_norm", [(4, 3), (3,), (3,)],
     lambda t, F, x, w, b: F.batch_norm(x, None, None, w, b, training=True)),
    ("group_norm", [(2, 4, 3)], lambda t, F, x: F.group_norm(x, 2)),
    ("dropout eval", [(3,)], lambda t, F, x: F.dropout(x, 0.5, training=False)),
    ("to double", [(3,)], lambda t, F, x: x.double() * 2),
    ("abs sign", [(4,)], lambda t, F, x: x.abs() + x.sign()),
    ("trace tril", [(3, 3)], lambda t, F, x: (x.trace(), x.tril())),
    ("outer", [(3,), (2,)], lambda t, F, a, b: t.outer(a, b)),
    ("det inverse", [(3, 3)], lambda t, F, a: (t.linalg.det(a + 3 * t.eye(3)),
                                               t.linalg.inv(a + 3 * t.eye(3)))),
    ("atan2 hypot", [(3,), (3,)], lambda t, F, a, b: t.atan2(a, b) + t.hypot(a, b)),
    ("lerp", [(3,), (3,)], lambda t, F, a, b: t.lerp(a, b, 0.3)),
    ("erf lgamma", [(3,)], lambda t, F, a: t.erf(a) + t.lgamma(a.abs() + 1)),
    ("mixed float64", [(3,)], lambda t, F, a: a * t.ones(3, dtype=t.float64)),
    ("repeat tile", [(2, 2)], lambda t, F, a: (a.repeat(2, 1), a.tile(2))),
    ("clone contiguous", [(2, 3)], lambda t, F, a: a.t().contiguous().clone()),
    ("masked_fill", [(4,)], lambda t, F, a: a.masked_fill(a > 0, 1.5)),
    ("scatter_add", [(4,), (3,)],
     lambda t, F, a, b: a.scatter_add(0, t.tensor([0, 0, 2]), b)),
    ("embedding", [(5, 2)], lambda t, F, w: F.embedding(t.tensor([[0, 4], [2, 2]]), w)),
    ("interpolate", [(1, 1, 3, 3)],
     lambda t, F, x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)),
    ("cosine_similarity", [(2, 3), (2, 3)], lambda t, F, a, b: F.cosine_similarity(a, b)),
    ("argmax comparisons", [(4,)], lambda t, F, a: (a.argmax(), a > 0, a.long())),
    ("embedding padding_idx", [(5, 2)],
     lambda t, F, w: F.embedding(t.tensor([[0, 4], [2, 2]]), w, padding_idx=2)),
    ("qr (formula without a graph)", [(3, 2)], lambda t, F, a: t.linalg.qr(a)),
    ("logcumsumexp", [(2, 3)], lambda t, F, a: a.logcumsumexp(1)),
    ("random draws", [(3,), (3,)], lambda t, F, m, s: (t.manual_seed(0), t.normal(m, s.abs()),
                                                      t.bernoulli(s.sigmoid()))[1:]),
    ("in-place draws", [(3,)], lambda t, F, a: (t.manual_seed(0), (a * 1).normal_(),
                                                (a * 1).uniform_())[1:]),
    ("cat with an empty input", [(3,), (2,)], lambda t, F, a, b: t.cat([a, t.zeros(0), b])),
    ("hardsigmoid (no second derivative)", [(5,)], lambda t, F, a: F.hardsigmoid(a * 3)),
    ("cdist-free distance", [(3, 2), (3, 2)], lambda t, F, a, b: F.pairwise_distance(a, b)),
    ("upsample nearest", [(1, 1, 2, 3)], lambda t, F, x: F.interpolate(x, scale_factor=2)),
    ("no forward formula (issue)", [(2, 2)],
     lambda t, F, a: t.cholesky(a @ a.t() + 2 * t.eye(2))),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_tangents_through_ops(case: tuple[str, list[tuple[int, ...]], Callable[..., Any]]) -> None:
    label, shapes, fn = case

    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with torch.autograd.forward_ad.dual_level():
            duals = _duals(torch, shapes)
            box: list[Any] = []
            if not rec.attempt("runs", lambda: box.append(fn(torch, torch.nn.functional,
                                                              *duals)),
                               record_warnings=False):
                return
            _note_out(rec, label, box[0])
        _note_out(rec, f"{label} after the level", box[0])
    differential(snippet)


def test_inplace_and_views() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fw = torch.autograd.forward_ad
        with fw.dual_level():
            x, t = _data(torch, (4,), 0), _data(torch, (4,), 1)
            d = fw.make_dual(x.clone(), t)
            d.mul_(2)
            rec.note("mul_ tangent", fw.unpack_dual(d).tangent)
            rec.note("user's tangent written", t)
            e = fw.make_dual(x.clone(), _data(torch, (4,), 2)).clone()
            ev = e[:2]
            ev.mul_(3)
            rec.note("view mul_: base", fw.unpack_dual(e).tangent)
            rec.note("view mul_: view", fw.unpack_dual(ev).tangent)
            b = torch.zeros(5)
            early, other = b[1:3], b[3:]
            b[:3].copy_(d[:3])
            rec.note("copy_ into a view: base", fw.unpack_dual(b).tangent)
            rec.note("a view made before", fw.unpack_dual(early).tangent)
            rec.note("a view made before, untouched", fw.unpack_dual(other).tangent)
            z = torch.zeros(3)
            z[1] = d[0]
            rec.note("setitem", fw.unpack_dual(z).tangent)
            y = torch.ones(4)
            y.add_(d, alpha=2)
            rec.note("plain add_ dual", fw.unpack_dual(y).tangent)
            w = d[1:].clone()
            w.sin_()
            rec.note("sin_", fw.unpack_dual(w))
            v = d.view(2, 2)
            rec.note("view tangent", fw.unpack_dual(v).tangent)
            p = fw.unpack_dual(d * 2).primal
            rec.note("primal has no tangent", fw.unpack_dual(p).tangent)
            rec.note("nor a view of it", fw.unpack_dual(p[1:]).tangent)
            rec.note("detach", fw.unpack_dual(d.detach()).tangent)
            rec.note("data", fw.unpack_dual(d.data).tangent)
            with torch.no_grad():
                rec.note("no_grad", fw.unpack_dual(d.exp()).tangent)
            rec.note("zeros_like", fw.unpack_dual(torch.zeros_like(d)).tangent)
    differential(snippet)


def test_tutorial_modules() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fw = torch.autograd.forward_ad
        nn = torch.nn
        torch.manual_seed(0)
        model = nn.Linear(5, 3)
        with torch.no_grad():
            model.weight.copy_(_data(torch, (3, 5), 0))
            model.bias.copy_(_data(torch, (3,), 1))
        inp = _data(torch, (4, 5), 2)
        params = {name: p for name, p in model.named_parameters()}
        tangents = {name: _data(torch, tuple(p.shape), 3 + i)
                    for i, (name, p) in enumerate(params.items())}
        with fw.dual_level():
            for name, p in params.items():
                delattr(model, name)
                setattr(model, name, fw.make_dual(p, tangents[name]))
            out = model(inp)
            rec.note("module jvp", fw.unpack_dual(out).tangent)
            rec.note("primal graph", out.grad_fn.name())
        model2 = nn.Linear(5, 3)
        with fw.dual_level():
            dual = {name: fw.make_dual(p, tangents[name]) for name, p in params.items()}
            out = torch.func.functional_call(model2, dual, inp)
            rec.note("functional_call jvp", fw.unpack_dual(out).tangent)
        seq = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(),
                            nn.LayerNorm(8), nn.Linear(8, 2), nn.LogSoftmax(1))
        with torch.no_grad():
            for i, p in enumerate(seq.parameters()):
                p.copy_(_data(torch, tuple(p.shape), i))
        x = _data(torch, (2, 1, 4, 4), 9)
        with fw.dual_level():
            out = seq(fw.make_dual(x, _data(torch, (2, 1, 4, 4), 10)))
            rec.note("sequential jvp", fw.unpack_dual(out))
            rec.note("running mean", seq[1].running_mean)
    differential(snippet)


def test_custom_function_jvp() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fw = torch.autograd.forward_ad

        class Fn(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, foo: Any) -> Any:
                result = torch.exp(foo)
                ctx.result = result
                return result

            @staticmethod
            def jvp(ctx: Any, g: Any) -> Any:
                out = g * ctx.result
                del ctx.result
                return out

        class NoJvp(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                return a * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 2

        class Two(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any, k: float, b: Any) -> Any:
                rec.note("forward sees a tangent", fw.unpack_dual(a).tangent is not None)
                ctx.save_for_forward(a)
                ctx.k = k
                return a * k + b

            @staticmethod
            def jvp(ctx: Any, ga: Any, gk: Any, gb: Any) -> Any:
                rec.note("jvp arguments", [gk, gb])
                (a,) = ctx.saved_tensors
                return ga * ctx.k + gb + a * 0

        primal = _data(torch, (3,), 0, torch.float64).requires_grad_()
        with fw.dual_level():
            d = fw.make_dual(primal, _data(torch, (3,), 1, torch.float64))
            out = Fn.apply(d)
            rec.note("jvp", fw.unpack_dual(out).tangent)
            rec.attempt("no jvp", lambda: NoJvp.apply(d))
            rec.attempt("no tangent: no jvp needed", lambda: NoJvp.apply(primal))
            out = Two.apply(d, 3.0, torch.ones(3, dtype=torch.float64))
            rec.note("two", fw.unpack_dual(out).tangent)
    differential(snippet)


def test_errors() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fw = torch.autograd.forward_ad
        x, t = _data(torch, (3,), 0), _data(torch, (3,), 1)
        rec.attempt("make_dual outside a level", lambda: fw.make_dual(x, t))
        rec.note("unpack_dual outside a level", fw.unpack_dual(x))
        rec.attempt("exit without a level", lambda: fw.exit_dual_level())
        with fw.dual_level() as level:
            rec.note("level", level)
            d = fw.make_dual(x, t)
            rec.attempt("other size", lambda: fw.make_dual(x, torch.ones(4)))
            rec.attempt("int primal", lambda: fw.make_dual(x.long(), t))
            rec.attempt("int tangent", lambda: fw.make_dual(x, t.long()))
            rec.attempt("dual of a dual", lambda: fw.make_dual(d, t))
            rec.attempt("other level", lambda: fw.make_dual(x, t, level=3))
            rec.attempt("unpack other level", lambda: fw.unpack_dual(d, level=3))
            rec.attempt("nested", lambda: fw.enter_dual_level())
            rec.attempt("nested context", lambda: fw.dual_level().__enter__())
            rec.attempt("exit another level", lambda: fw.exit_dual_level(level=1))
            rec.note("unpack a plain tensor", fw.unpack_dual(x))
            rec.note("float64 tangent kept", fw.make_dual(x.clone(), t.double())
                     .__class__.__name__)
            dd = fw.make_dual(x.clone(), t.double())
            rec.note("tangent dtype", str(fw.unpack_dual(dd).tangent.dtype))
            tt = _data(torch, (3, 3), 2)
            da = fw.make_dual(torch.zeros(3, 3), tt.t())
            rec.note("other layout copied", [fw.unpack_dual(da).tangent is tt.t(),
                                             fw.unpack_dual(da).tangent.stride()])
            rec.note("same tangent", fw.unpack_dual(d).tangent is t)
        rec.note("after the level", fw.unpack_dual(d))
        level = fw.enter_dual_level()
        rec.note("entered again", level)
        fw.exit_dual_level(level=level)
        rec.attempt("exit it twice", lambda: fw.exit_dual_level(level=level))
    differential(snippet)


def test_reverse_mode_through_the_primal() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fw = torch.autograd.forward_ad
        x = _data(torch, (3,), 0).requires_grad_()
        with fw.dual_level():
            d = fw.make_dual(x * 1, _data(torch, (3,), 1))
            rec.note("make_dual node", [d.grad_fn.name(), d._base is not None])
            y = (d.sin() * 2).sum()
            p = fw.unpack_dual(y).primal
            rec.note("primal node", p.grad_fn.name())
            rec.note("tangent", fw.unpack_dual(y).tangent)
            p.backward()
            rec.note("grad", x.grad)
            rec.note("plain primal is a view", [fw.unpack_dual(x).primal is x,
                                                fw.unpack_dual(x).primal._base is x])
    differential(snippet)


def test_gradcheck() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch

        class Exp(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                out = x.exp()
                ctx.save_for_backward(out)
                ctx.result = out
                return out

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                (out,) = ctx.saved_tensors
                return g * out

            @staticmethod
            def jvp(ctx: Any, g: Any) -> Any:
                return g * ctx.result

        class WrongJvp(Exp):
            @staticmethod
            def jvp(ctx: Any, g: Any) -> Any:
                return g * 2

        x = _data(torch, (2, 2), 0, torch.float64).requires_grad_()
        y = _data(torch, (2,), 1, torch.float64).requires_grad_()
        check = torch.autograd.gradcheck

        def first_line(fn: Callable[[], Any]) -> Any:
            try:
                return fn()
            except Exception as e:
                return [type(e).__name__, str(e).split("\n")[0]]
        rec.note("both modes", check(Exp.apply, (x,), check_forward_ad=True))
        rec.note("tutorial flags", check(Exp.apply, (x,), check_forward_ad=True,
                                         check_backward_ad=False, check_undefined_grad=False,
                                         check_batched_grad=False))
        rec.note("ops", check(lambda a, b: (a @ b).sin() * b, (x, y), check_forward_ad=True))
        rec.note("wrong jvp", first_line(lambda: check(WrongJvp.apply, (x,),
                                                       check_forward_ad=True)))
        rec.note("wrong jvp, no raise", check(WrongJvp.apply, (x,), check_forward_ad=True,
                                              raise_exception=False))
        rec.attempt("float32 input", lambda: check(torch.sin, (x.float().detach()
                                                               .requires_grad_(),),
                                                   atol=1e-2, rtol=1e-2, eps=1e-3))
        rec.attempt("nothing requires grad", lambda: check(torch.sin, (x.detach(),)))
    differential(snippet)


TUTORIAL = '''
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
from torch.func import functional_call

primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)

def fn(x, y):
    return x ** 2 + y ** 2

with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent
    plain_tensor = torch.randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)
    jvp = fwAD.unpack_dual(dual_output).tangent
assert fwAD.unpack_dual(dual_output).tangent is None

model = nn.Linear(5, 5)
input = torch.randn(16, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(input)
    jvp = fwAD.unpack_dual(out).tangent

model = nn.Linear(5, 5)
dual_params = {}
with fwAD.dual_level():
    for name, p in params.items():
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, input)
    jvp2 = fwAD.unpack_dual(out).tangent
assert torch.allclose(jvp, jvp2)

class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO

fn = Fn.apply
primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
tangent = torch.randn(10, 10)
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn(dual_input)
    jvp = fwAD.unpack_dual(dual_output).tangent
assert torch.allclose(jvp, tangent * primal.exp())
torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True,
                         check_backward_ad=False, check_undefined_grad=False,
                         check_batched_grad=False)
'''


def test_tutorial_runs_unmodified() -> None:
    from graphviz_autograd.torch_alias import native_torch
    with native_torch():
        exec(compile(TUTORIAL, "forward_ad_usage.py", "exec"), {"__name__": "__main__"})


def test_repr_of_dual_tensors() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fw = torch.autograd.forward_ad
        with fw.dual_level():
            x = _data(torch, (3,), 0).requires_grad_()
            rec.note("requires grad", repr(fw.make_dual(x, torch.ones(3))))
            rec.note("2-d", repr(fw.make_dual(torch.zeros(2, 2), torch.ones(2, 2))))
            rec.note("float64", repr(fw.make_dual(torch.zeros(2, dtype=torch.float64),
                                                  torch.ones(2, dtype=torch.float64))))
            d = fw.make_dual(torch.zeros(3), _data(torch, (3,), 1))
            rec.note("view of a dual", repr(d[1:]))
        rec.note("after the level", repr(d))
    differential(snippet)


def test_inplace_view_ops() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fw = torch.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(_data(torch, (2, 3), 0), _data(torch, (2, 3), 1))
            t = d * 1
            t.t_()
            t.mul_(2)
            rec.note("t_", fw.unpack_dual(t))
            u = d * 1
            u.unsqueeze_(0)
            u.transpose_(0, 2)
            rec.note("unsqueeze_ transpose_", fw.unpack_dual(u))
            u.squeeze_()
            rec.note("squeeze_", fw.unpack_dual(u))
    differential(snippet)


def test_reverse_mode_through_tangents() -> None:
    # values only: a tangent's graph is made of double-backward nodes, not PyTorch's forward
    # formulas (the gradients through it are the same)
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fw = torch.autograd.forward_ad
        x = _data(torch, (3,), 0).requires_grad_()
        w = _data(torch, (2, 3), 1).requires_grad_()
        v = _data(torch, (3,), 2)
        with fw.dual_level():
            d = fw.make_dual(x, v)
            y = (torch.tanh(w @ d) ** 2).sum() + (d.exp() * d).sum() + (d * d).mean()
            jvp = fw.unpack_dual(y).tangent
            rec.note("tangent", [jvp, jvp.requires_grad])
            jvp.backward()
            rec.note("hessian-vector product", x.grad)
            rec.note("mixed second derivative", w.grad)
            t = _data(torch, (3,), 3).requires_grad_()
            z = fw.unpack_dual((fw.make_dual(_data(torch, (3,), 4), t) ** 3).sum()).tangent
            z.backward()
            rec.note("by the tangent", t.grad)
            x.grad = None
            s = fw.unpack_dual(torch.sigmoid(fw.make_dual(x, v)) * w[1]).tangent
            s[0].backward()
            rec.note("sigmoid", [x.grad, w.grad])
    differential(snippet)



def _hvp_cases(torch: Any) -> dict[str, Callable[..., Any]]:
    F = torch.nn.functional
    w1, w2 = _data(torch, (4, 3), 5, torch.float64), _data(torch, (1, 4), 6, torch.float64)
    m = _data(torch, (3, 3), 8, torch.float64)
    t = _data(torch, (3,), 9, torch.float64)
    k = torch.arange(3, dtype=torch.float64)

    def exp_inplace(x: Any) -> Any:
        y = x * 2
        y.exp_()
        return (y * k).sum()

    return {
        "sigmoid": lambda x: (x.sigmoid() * k).sum(),
        "tanh": lambda x: torch.tanh(x).sum(),
        "softmax": lambda x: (torch.softmax(x, 0) * k).sum(),
        "log_softmax": lambda x: F.log_softmax(x, 0)[1],
        "matmul": lambda x: (m @ x).tanh() @ (m @ x),
        "exp": lambda x: (x.exp() * k).sum(),
        "log": lambda x: (x * x + 1).log().sum(),
        "pow": lambda x: (x.pow(3) + x.abs().pow(x)).sum(),
        "mse_loss sum": lambda x: F.mse_loss(x.tanh(), t, reduction="sum"),
        "mse_loss none": lambda x: F.mse_loss(x.sigmoid(), t, reduction="none").sum(),
        "mse_loss mean": lambda x: F.mse_loss(x, t),
        "mlp": lambda x: F.linear(torch.relu(F.linear(x, w1, k.sum() * 0 + 0.1)),
                                  w2).sigmoid().sum(),
        "sort": lambda x: (torch.sort(x * x)[0].exp() * k).sum(),
        "layer_norm": lambda x: F.layer_norm((x * x).reshape(1, 3), (3,)).pow(3).sum(),
        "norm": lambda x: x.norm(),
        "exp_ in place": exp_inplace,
        # backward formulas PyTorch has no forward formula for
        "huber_loss": lambda x: F.huber_loss(x * 3, t),
        "soft_margin_loss": lambda x: F.soft_margin_loss(x, t.sign()),
        "hardsigmoid": lambda x: (F.hardsigmoid(x) ** 2).sum(),
        "multi_margin_loss": lambda x: F.multi_margin_loss(x.reshape(1, 3), torch.tensor([1])),
    }


def test_forward_over_reverse() -> None:
    """Hessian-vector products by forward over reverse: dual inputs, ``autograd.grad(...,
    create_graph=True)``, the gradient's tangent; the backward formulas' saved values (outputs
    saved by their own node included) carry their tangents."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fw = torch.autograd.forward_ad
        # NB: no zero element: pow's exponent gradient at a zero base is a known difference
        x0 = _data(torch, (3,), 2, torch.float64)
        v = _data(torch, (3,), 1, torch.float64)

        def hvp(f: Callable[..., Any]) -> Any:
            with fw.dual_level():
                x = fw.make_dual(x0.clone().requires_grad_(), v)
                g, = torch.autograd.grad(f(x), x, create_graph=True)
                tangent = fw.unpack_dual(g).tangent
                return tangent, tangent.requires_grad
        for label, f in _hvp_cases(torch).items():
            rec.attempt(label, lambda f=f: hvp(f), record_warnings=False)
        with fw.dual_level():
            # a saved output read back through _saved_result carries the tangent, and loses it
            # when the level closes
            x = fw.make_dual(x0.clone().requires_grad_(), v)
            y = x.exp()
            rec.note("_saved_result tangent", fw.unpack_dual(y.grad_fn._saved_result).tangent)
        rec.note("after the level", fw.unpack_dual(y.grad_fn._saved_result).tangent)
        with fw.dual_level():
            rec.note("in another level", fw.unpack_dual(y.grad_fn._saved_result).tangent)
    differential(snippet)


def test_autograd_functional_forward_mode() -> None:
    """``jacobian(..., strategy="forward-mode", vectorize=True)`` and ``hessian``'s forward over
    reverse: values, result structure (PyTorch's lists), the results' nodes, its refusals."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        AF = torch.autograd.functional
        x = _data(torch, (3,), 2, torch.float64)
        m = _data(torch, (2, 2), 3, torch.float64)

        def jac(*args: Any, **kw: Any) -> Callable[[], Any]:
            return lambda: AF.jacobian(*args, strategy="forward-mode", **kw)

        def hess(*args: Any, **kw: Any) -> Callable[[], Any]:
            return lambda: AF.hessian(*args, outer_jacobian_strategy="forward-mode", **kw)
        cases = {
            "two in, two out": jac(lambda a, b: (a * b, a.sum()), (x, x * 2), vectorize=True),
            "one in, one out": jac(torch.sin, x, vectorize=True),
            "tuple out": jac(lambda a: (a.exp(), a @ a), x, vectorize=True),
            "tuple in": jac(lambda a, b: a @ b, (m, m.T), vectorize=True),
            "empty input": jac(lambda a, b: a.sum() * b, (torch.zeros(0, dtype=torch.float64), x),
                               vectorize=True),
            "hessian": hess(lambda a: (a.tanh() ** 3).sum(), x, vectorize=True),
            "hessian two": hess(lambda a, b: (a @ b).softmax(0).pow(2).sum(), (m, m * 2),
                                vectorize=True),
            "not vectorized": jac(torch.sin, x),
            "hessian not vectorized": hess(lambda a: a.exp().sum(), x),
            "strict": jac(torch.sin, x, strict=True, vectorize=True),
            "create_graph": jac(torch.sin, x, create_graph=True, vectorize=True),
            "a list": jac(torch.sin, [x], vectorize=True),
        }
        for label, fn in cases.items():
            rec.attempt(label, fn, record_warnings=False)
        h = AF.hessian(lambda a: (a.exp() * a).sum(), x, outer_jacobian_strategy="forward-mode",
                       vectorize=True)
        rec.note("hessian's node", h.grad_fn.name() if h.grad_fn is not None else None)
    differential(snippet)


def test_forward_over_reverse_custom_function() -> None:
    """A custom Function's saved output carries the tangent its ``jvp`` gave it."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fw = torch.autograd.forward_ad

        class Exp(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, i: Any) -> Any:
                r = i.exp()
                ctx.save_for_backward(r)
                return r

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                r, = ctx.saved_tensors
                return g * r

            @staticmethod
            def jvp(ctx: Any, t: Any) -> Any:
                return t * 2.0          # NB: not exp's: the tangent read back must be this one

        with fw.dual_level():
            x = fw.make_dual(_data(torch, (3,), 0, torch.float64).requires_grad_(),
                             _data(torch, (3,), 1, torch.float64))
            g, = torch.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
            rec.note("tangent of the gradient", fw.unpack_dual(g).tangent)
    differential(snippet)


def test_forward_over_reverse_recorded() -> None:
    """A recording walks the saved outputs that carry a tangent as any other saved value."""
    import graphviz_autograd
    from graphviz_autograd import torch
    fw = torch.autograd.forward_ad

    def hvp() -> Any:
        with fw.dual_level():
            x = fw.make_dual(torch.tensor([0.3, 0.5], dtype=torch.float64).requires_grad_(),
                             torch.tensor([1.0, -2.0], dtype=torch.float64))
            g, = torch.autograd.grad(x.exp().sigmoid().sum(), x, create_graph=True)
            g.sum().backward()
            return fw.unpack_dual(g).tangent
    plain = hvp()
    with graphviz_autograd.record():
        recorded = hvp()
    assert plain is not None and recorded is not None
    assert np.allclose(plain.detach().numpy(), recorded.detach().numpy())
