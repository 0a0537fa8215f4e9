"""``torch.func`` (grad, grad_and_value, vjp, jacrev, jacfwd, hessian, jvp, vmap,
functional_call, stack_module_state), checked against real PyTorch 2.13: values of every
transform and their compositions, per-sample gradients of a small MLP, ensembles, graphs where
they match (functional_call; the gradients reaching leaves through vmap), errors word for word."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import graphviz_autograd.torch as ours

from ._support import Recorder, differential, fixed_parameters

pytestmark = pytest.mark.torch


def _data(torch: Any, shape: tuple[int, ...], k: int) -> Any:
    n = int(np.prod(shape))
    return torch.tensor((np.sin(np.arange(n) * (k + 1.3)) * (k + 1)).reshape(shape).tolist())


def _each(rec: Recorder, cases: dict[str, Callable[[], Any]]) -> None:
    # NB: warnings left out: PyTorch's jacfwd warns of its internal torch.jit.script once
    for label, fn in cases.items():
        rec.attempt(label, fn, record_warnings=False)


def test_grad_and_value() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fn = torch.func
        x, y = _data(torch, (3,), 0), _data(torch, (3,), 1)
        _each(rec, {
            "grad": lambda: fn.grad(lambda x: (x ** 3).sin().sum())(x),
            "argnums tuple": lambda: fn.grad_and_value(lambda a, b: (a * b).sum(),
                                                       argnums=(0, 1))(x, y),
            "argnums negative": lambda: fn.grad(lambda a, b: (a * b).sum(), argnums=-1)(x, y),
            "has_aux": lambda: fn.grad(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(x),
            "gv has_aux": lambda: fn.grad_and_value(lambda x: (x.exp().sum(), {"m": x.max()}),
                                                    has_aux=True)(x),
            "dict input": lambda: fn.grad(lambda p, v: (p["w"] * v).sum().tanh())(
                {"w": x, "u": y}, y),
            "unused input": lambda: fn.grad(lambda a, b: a.sum(), argnums=(0, 1))(x, y),
            "constant output": lambda: fn.grad(lambda x: torch.tensor(1.0))(x),
            "kwargs": lambda: fn.grad(lambda x, s=1.0: (x * s).sum())(x, s=3.0),
            "requires_grad": lambda: fn.grad(lambda x: (x * x).sum())(x).requires_grad,
            "error vector": lambda: fn.grad(lambda x: x)(x),
            "error tuple": lambda: fn.grad(lambda x: (x, x))(x),
            "error float": lambda: fn.grad(lambda x: 1.0)(x),
            "error argnum": lambda: fn.grad(lambda x: x.sum(), argnums=1)(x),
            "error argnums": lambda: fn.grad(lambda a, b: a.sum(), argnums=(0, 5))(x, y),
            "error aux": lambda: fn.grad(lambda x: x.sum(), has_aux=True)(x),
            "error aux 3": lambda: fn.grad(lambda x: (x.sum(), 1, 2), has_aux=True)(x),
            "error non-tensor": lambda: fn.grad(lambda a, b: (a * b).sum())(x, 1.0),
            "error integer": lambda: fn.grad(lambda x: x.sum())(torch.arange(3)),
        })
    differential(snippet)


def test_grad_of_input_requiring_grad() -> None:
    """The gradient is itself differentiable (created with the graph), as PyTorch's."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _data(torch, (3,), 2).requires_grad_()
        g = torch.func.grad(lambda x: (x ** 3).sum())(x)
        rec.note("g", (g, g.requires_grad))
        g.sum().backward()
        rec.grad("x", x=x)
        w = _data(torch, (3,), 3).requires_grad_()
        h = torch.func.grad(lambda v: (v * w).sum())(w)   # w inside stays a constant
        rec.note("h", h)
    differential(snippet)


def test_vjp_jacobians_hessian_jvp() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fn = torch.func
        x, y = _data(torch, (3,), 0), _data(torch, (2, 3), 1)

        def pair(x: Any, y: Any) -> Any:
            return x.sin() * y, (x * y).sum(1)
        _each(rec, {
            "vjp": lambda: (lambda o: (o[0], o[1](torch.ones(3))))(fn.vjp(torch.exp, x)),
            "vjp tuple": lambda: fn.vjp(lambda x: (x, x * 2), x)[1](
                (torch.ones(3), torch.ones(3))),
            "vjp two primals": lambda: fn.vjp(pair, x, y)[1]((torch.ones(2, 3), torch.ones(2))),
            "vjp aux": lambda: fn.vjp(lambda x: (x.sum(), x.cos()), x, has_aux=True)[2],
            "jacrev": lambda: fn.jacrev(lambda x: x.sin() * x.sum())(x),
            "jacrev argnums": lambda: fn.jacrev(pair, argnums=(0, 1))(x, y),
            "jacrev aux": lambda: fn.jacrev(lambda x: (x.sum(), x), has_aux=True)(x),
            "jacrev matrix": lambda: fn.jacrev(lambda y: y @ y.T)(y),
            "jacfwd": lambda: fn.jacfwd(lambda x, y: (x * y, x.sum()), argnums=(0, 1))(x, x),
            "hessian": lambda: fn.hessian(lambda x: (x ** 3).sum() * x[0])(x),
            "hessian 2d": lambda: fn.hessian(lambda y: y.tanh().sum())(y),
            "jacrev jacrev": lambda: fn.jacrev(fn.jacrev(lambda x: ((x + 1) ** 3).prod()))(x),
            "jvp": lambda: fn.jvp(lambda x: x.sin(), (x,), (torch.ones(3),)),
            "error vjp shape": lambda: fn.vjp(lambda x: x, x)[1](torch.ones(4)),
            "error vjp int": lambda: fn.vjp(lambda x: 1, x),
            "error vjp float": lambda: fn.vjp(lambda x: x, 1.0),
            "error jacrev float": lambda: fn.jacrev(lambda x: x)(1.0),
            "error jacrev argnum": lambda: fn.jacrev(lambda x: x, argnums=2)(x),
        })
    differential(snippet)


def test_vmap_values_and_dims() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        vmap = torch.func.vmap
        x, X = _data(torch, (3,), 0), _data(torch, (4, 3), 1)
        _each(rec, {
            "sum": lambda: vmap(lambda r: r.sum())(X),
            "torch.vmap": lambda: torch.vmap(torch.sin)(X),
            "in_dims 1 out_dims 1": lambda: vmap(lambda c: c * 2, in_dims=1, out_dims=1)(X),
            "in_dims None": lambda: vmap(lambda r, v: r @ v, in_dims=(0, None))(X, x),
            "tuple outputs": lambda: vmap(lambda a, b: (a * b, a.sum()), in_dims=(1, 0),
                                          out_dims=(1, 0))(X, x),
            "nested": lambda: vmap(vmap(lambda a, b: a * b), in_dims=(0, None))(X, x),
            "dict": lambda: vmap(lambda d: d["a"] + d["b"])({"a": X, "b": X}),
            "dict in_dims": lambda: vmap(lambda d, s: d["a"] * s, in_dims=({"a": 0}, None))(
                {"a": X}, 2.0),
            "negative in_dim": lambda: vmap(lambda c: c.sum(), in_dims=-1)(X),
            "unbatched out_dims None": lambda: vmap(lambda r: torch.ones(2), out_dims=None)(X),
            "unbatched output": lambda: vmap(lambda r: torch.ones(2))(X),
            "chunk_size": lambda: vmap(lambda r: r.exp(), chunk_size=2)(X),
            "error two args": lambda: vmap(lambda r: r)(x, x),
            "error in_dim range": lambda: vmap(lambda r: r, in_dims=1)(x),
            "error structure": lambda: vmap(lambda r: r, in_dims=(0, 0))(x),
            "error sizes": lambda: vmap(lambda a, b: a, in_dims=(0, 0))(x, torch.ones(4)),
            "error in_dims None": lambda: vmap(lambda r: r, in_dims=None)(x),
            "error nothing mapped": lambda: vmap(lambda r: r, in_dims=(None,))(x),
            "error in_dims str": lambda: vmap(lambda r: r, in_dims="a")(x),
            "error in_dim float": lambda: vmap(lambda r: r, in_dims=(1.5,))(x),
            "error int output": lambda: vmap(lambda r: 1)(x),
            "error out_dims": lambda: vmap(lambda r: r, out_dims=2)(x),
            "error batched out None": lambda: vmap(lambda r: r, out_dims=None)(x),
            "error 0-dim": lambda: vmap(lambda r: r.sum())(torch.tensor(1.0)),
            "error chunk_size": lambda: vmap(lambda r: r, chunk_size=0),
            "error no inputs": lambda: vmap(lambda r: r)(),
            "error float input": lambda: vmap(lambda r: r)(1.0),
            "error dict in_dims": lambda: vmap(lambda d: d["a"], in_dims=({"b": 0},))({"a": X}),
        })
    differential(snippet)


def test_vmap_randomness() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        vmap = torch.func.vmap
        X = _data(torch, (4, 3), 1)
        torch.manual_seed(3)
        _each(rec, {
            "error randn": lambda: vmap(lambda r: torch.randn(2))(X),
            "error rand_like": lambda: vmap(lambda r: torch.rand_like(r))(X),
            "error dropout": lambda: vmap(lambda r: torch.nn.functional.dropout(r, 0.5))(X),
            "same": lambda: vmap(lambda r: torch.randn(2) + r.sum(), randomness="same")(X),
            "after same": lambda: torch.rand(3),
            "different rand": lambda: vmap(lambda r: torch.rand(2), randomness="different")(X),
            "different randn": lambda: vmap(lambda r: torch.randn(2) + r,
                                            randomness="different")(X[:, :2]),
            "different dropout": lambda: vmap(lambda r: torch.nn.functional.dropout(r, 0.5),
                                              randomness="different")(X),
            "error randomness": lambda: vmap(lambda r: r, randomness="foo"),
        })
    differential(snippet)


def test_vmap_gradients_reach_leaves() -> None:
    """Backward through a vmapped function gives PyTorch's leaf gradients (the graph between
    differs: see the module's docstring)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        w = _data(torch, (3,), 0).requires_grad_()
        X = _data(torch, (4, 3), 1).requires_grad_()
        y = torch.func.vmap(lambda r: torch.dot(r, w).exp())(X)
        rec.note("y", (y, y.requires_grad))
        (y * torch.arange(4.0)).sum().backward()
        rec.grad("leaves", w=w, X=X)
    differential(snippet)


def _mlp(torch: Any) -> Any:
    nn = torch.nn
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
    fixed_parameters(torch, model)
    return model


def test_per_sample_gradients_of_an_mlp() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fn = torch.func
        model = _mlp(torch)
        params = {k: v.detach() for k, v in model.named_parameters()}
        X, T = _data(torch, (6, 3), 2), torch.tensor([0, 1, 1, 0, 1, 0])

        def loss(p: Any, x: Any, t: Any) -> Any:
            out = fn.functional_call(model, p, (x.unsqueeze(0),))
            return torch.nn.functional.cross_entropy(out, t.unsqueeze(0))
        per = fn.vmap(fn.grad(loss), in_dims=(None, 0, 0))(params, X, T)
        rec.note("per-sample", per)
        g, v = fn.vmap(fn.grad_and_value(loss), in_dims=(None, 0, 0))(params, X, T)
        rec.note("grad_and_value", (g, v))
        # their mean is the batch gradient of the mean loss
        torch.nn.functional.cross_entropy(model(X), T).backward()
        rec.note("mean", {k: (per[k].mean(0) - p.grad).abs().max() < 1e-6
                          for k, p in model.named_parameters()})
        rec.note("params untouched", [type(p).__name__ for p in model.parameters()])
        jac = fn.vmap(fn.jacrev(lambda p, x: fn.functional_call(model, p, (x,))),
                      in_dims=(None, 0))(params, X)
        rec.note("per-sample jacobians", jac)
    differential(snippet)


def test_functional_call() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        fc = torch.func.functional_call

        class Tied(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.a, self.b = nn.Linear(2, 2), nn.Linear(2, 2)
                self.b.weight = self.a.weight
                self.register_buffer("r", torch.ones(2))

            def forward(self, x: Any) -> Any:
                return self.b(self.a(x)) + self.r
        m = Tied()
        fixed_parameters(torch, m)
        x, eye = torch.ones(2), torch.eye(2)
        w = (eye * 3).requires_grad_()
        out = fc(m, {"a.weight": w}, (x,))
        rec.graph("graph", out=out, w=w)
        _each(rec, {
            "tied": lambda: fc(m, {"a.weight": eye}, (x,)),
            "untied": lambda: fc(m, {"a.weight": eye}, (x,), tie_weights=False),
            "both untied": lambda: fc(m, {"a.weight": eye, "b.weight": eye * 2}, (x,),
                                      tie_weights=False),
            "buffer, bare args, kwargs": lambda: fc(m, {"r": torch.zeros(2)}, x, {}),
            "dicts": lambda: fc(m, ({"r": torch.zeros(2)}, {"a.bias": x}), (x,)),
            "unknown key": lambda: fc(m, {"zz": eye}, (x,)),
            "restored": lambda: (type(m.a.weight).__name__, m.r, m.b.weight is m.a.weight,
                                 hasattr(m, "zz")),
            "error tied": lambda: fc(m, {"a.weight": eye, "b.weight": eye * 2}, (x,)),
            "error strict": lambda: fc(m, {"a.weight": eye, "zz": eye, "yy": 1}, (x,),
                                       strict=True),
            "error strict missing": lambda: fc(m, {"a.weight": eye}, (x,), strict=True),
            "error list": lambda: fc(m, [1], (x,)),
            "error int": lambda: fc(m, 3, (x,)),
            "error repeated": lambda: fc(m, ({"r": x}, {"r": x}), (x,)),
        })
    differential(snippet)


def test_stack_module_state_ensemble() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn, fn = torch.nn, torch.func
        models = [nn.Linear(3, 2) for _ in range(3)]
        for k, m in enumerate(models):
            fixed_parameters(torch, m)
            with torch.no_grad():
                m.weight.mul_(k + 1)
        params, buffers = fn.stack_module_state(models)
        rec.note("params", {k: (v, v.is_leaf, v.requires_grad) for k, v in params.items()})
        x = _data(torch, (5, 3), 4)
        out = fn.vmap(lambda p, b: fn.functional_call(models[0], (p, b), (x,)))(params, buffers)
        rec.note("ensemble", out)
        out.sum().backward()
        rec.note("stacked grads", {k: v.grad for k, v in params.items()})
        bns = [nn.BatchNorm1d(2) for _ in range(2)]
        _each(rec, {
            "buffers": lambda: fn.stack_module_state(bns)[1],
            "error empty": lambda: fn.stack_module_state([]),
            "error mode": lambda: fn.stack_module_state([models[0], nn.Linear(3, 2).eval()]),
            "error class": lambda: fn.stack_module_state([models[0], nn.Conv1d(1, 1, 1)]),
        })
    differential(snippet)


def test_torch_func_alias() -> None:
    from graphviz_autograd.torch_alias import native_torch
    with native_torch():
        from torch.func import grad, vmap  # type: ignore[import-not-found]
        assert grad is ours.func.grad and vmap is ours.vmap


@pytest.mark.filterwarnings("ignore:Attempted to insert a get_attr")   # torch's linearize
def test_jvp_linearize_and_helpers() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fn = torch.func
        x, y = _data(torch, (3,), 0), _data(torch, (2, 3), 1)
        out, jvp_fn = fn.linearize(lambda a, b: (a * b).sum(1).exp(), x, y)
        rec.note("linearize", (out, jvp_fn(torch.ones(3), y)))
        bn = torch.nn.Sequential(torch.nn.BatchNorm1d(2), torch.nn.Linear(2, 2))
        fixed_parameters(torch, bn)
        _each(rec, {
            "jvp two": lambda: fn.jvp(lambda a, b: a * b, (x, x), (torch.ones(3), x)),
            "jvp aux": lambda: fn.jvp(lambda a: (a.sin(), a.sum()), (x,), (x,), has_aux=True),
            "jvp float64 tangent": lambda: fn.jvp(torch.sin, (x,),
                                                  (torch.ones(3, dtype=torch.float64),)),
            "error jvp size": lambda: fn.jvp(torch.sin, (x,), (torch.ones(4),)),
            "error jvp list": lambda: fn.jvp(torch.sin, [x], [x]),
            "error jvp structure": lambda: fn.jvp(torch.sin, (x,), [x]),
            "error jvp float": lambda: fn.jvp(torch.sin, (1.0,), (1.0,)),
            "error jvp count": lambda: fn.jvp(torch.sin, (x,), (x, x)),
            "error linearize": lambda: jvp_fn(torch.ones(4), y),
            "functionalize": lambda: fn.functionalize(lambda a: a.add_(1))(x.clone()),
            "replace bn": lambda: (fn.replace_all_batch_norm_modules_(bn) is bn,
                                   bn[0].running_mean, bn[0].track_running_stats,
                                   bn[0].num_batches_tracked, bn(y)),
            "debug_unwrap": lambda: fn.debug_unwrap(x) is x,
            "vmap empty batch": lambda: fn.vmap(lambda r: (r.sum(), r * 2))(torch.zeros(0, 3)),
            "vmap inside grad": lambda: fn.grad(lambda v: fn.vmap(torch.dot, in_dims=(0, None))(
                y, v).exp().sum())(x),
        })
    differential(snippet)


def test_compositions() -> None:
    """Transforms inside transforms: an inner one keeps its graph for the outer, and a closure
    over the outer input stays a constant of the inner (no perturbation confusion)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fn = torch.func
        x = _data(torch, (3,), 0) + 0.3
        model = _mlp(torch)
        params = {k: v.detach() for k, v in model.named_parameters()}
        w = x.clone().requires_grad_()
        _each(rec, {
            "grad of grad closure": lambda: fn.grad(
                lambda x: fn.grad(lambda y: (x * y ** 2).sum())(x).sum())(x),
            "hessian of params": lambda: fn.hessian(
                lambda p: fn.functional_call(model, p, (x,)).sum())(params)["0.bias"]["2.weight"],
            "vmap jacrev jacrev": lambda: fn.vmap(fn.jacrev(fn.jacrev(lambda v: v.sin().prod())))(
                torch.stack([x, x * 2])),
            "vmap vmap grad": lambda: fn.vmap(fn.vmap(fn.grad(lambda a, b: (a * b).sum())),
                                              in_dims=(0, None))(
                torch.stack([x, -x]).unsqueeze(1).expand(2, 4, 3), x),
            "jacfwd of vmap": lambda: fn.jacfwd(
                lambda v: fn.vmap(torch.outer, in_dims=(None, 0))(v, torch.eye(3)))(x),
        })
        h = fn.hessian(lambda v: (v ** 3 * w).sum())(w)
        rec.note("hessian of a leaf", (h, h.requires_grad))
        h.sum().backward()
        rec.grad("through the hessian", w=w)
    differential(snippet)


def test_forward_mode_transforms() -> None:
    """``jvp`` and ``jacfwd`` in forward mode, as PyTorch: where the forward formula is not the
    backward's transpose (embedding's padding row) they differ from ``jacrev``; forward over
    reverse (``jvp(grad)``, ``hessian``) and forward over forward (``jvp`` of ``jvp``)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        fn, F = torch.func, torch.nn.functional
        w = _data(torch, (3, 2), 2)
        idx = torch.tensor([0, 1, 1, 2])
        x = _data(torch, (4,), 0) + 0.3

        def emb(v: Any) -> Any:
            return F.embedding(idx, v, padding_idx=1)

        def inner(a: Any) -> Any:
            return fn.jvp(lambda b: (b.sin() * b).sum(), (a,), (torch.ones(4),))[1]
        _each(rec, {
            "embedding jvp": lambda: fn.jvp(emb, (w,), (torch.ones(3, 2),)),
            "embedding jacfwd": lambda: fn.jacfwd(lambda v: emb(v).sum(0))(w),
            "embedding jacrev": lambda: fn.jacrev(lambda v: emb(v).sum(0))(w),
            "max ties": lambda: fn.jacfwd(lambda a: torch.stack([a.abs().max(), a.amax()]))(
                torch.tensor([0.0, 1.0, -2.0, 2.0])),
            "jvp of grad": lambda: fn.jvp(fn.grad(lambda a: (a.exp() * a).sum()), (x,),
                                          (torch.ones(4),)),
            "hessian": lambda: fn.hessian(lambda a: (a.tanh() ** 3).sum())(x),
            "jacfwd of jacfwd": lambda: fn.jacfwd(fn.jacfwd(lambda a: (a.sin() * a).sum()))(x),
            "jvp of jvp": lambda: fn.jvp(inner, (x,), (x * 2,)),
            "jacfwd argnums, aux": lambda: fn.jacfwd(lambda a, b: ((a * b).softmax(0), b.sum()),
                                                     argnums=(0, 1), has_aux=True)(x, x * 3),
            "jvp long output": lambda: fn.jvp(lambda a: (a > 0.5).long(), (x,), (x,)),
        })
        p = x.clone().requires_grad_()
        out, tangent = fn.jvp(lambda a: (a * a).exp(), (p,), (torch.ones(4),))
        rec.note("through a primal requiring grad", [out.requires_grad, tangent.requires_grad])
        tangent.sum().backward()
        rec.grad("the tangent's gradient", p=p)
    differential(snippet)
