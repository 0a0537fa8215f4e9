"""``torch.autograd.graph.allow_mutation_on_saved_tensors`` against PyTorch: a saved tensor an
in-place write is about to change is cloned first (found by address and version, views
included or not as PyTorch's), the backward reads the clone, and a graph recorded inside the
context cannot run outside it."""

from __future__ import annotations

from typing import Any

import pytest

import graphviz_autograd.torch as ours

from ._support import Recorder, differential, real_torch

pytestmark = pytest.mark.torch


def _amst(rec: Recorder) -> Any:
    return rec.torch.autograd.graph.allow_mutation_on_saved_tensors()


def _ctx_sizes(ctx: Any) -> dict[str, int]:
    return {"original": len(ctx.original), "cloned": len(ctx.cloned),
            "handles": len(ctx.tid_to_weakhandle), "aliases": len(ctx.sid_to_tid)}


def test_the_docstring_example() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with _amst(rec):
            a = torch.ones(2, 3, requires_grad=True)
            b = a.clone()
            out = (b**2).sum()
            rec.note("sin_", b.sin_())
            out.sum().backward()
        rec.grad("a", a=a)
    differential(snippet)


def test_a_saved_input_and_a_saved_output_changed_in_place() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with _amst(rec) as ctx:
            rec.note("ctx", type(ctx).__name__)
            x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            a = x.clone()
            b = a.sin()
            raw = b.grad_fn._raw_saved_self
            rec.note("raw", {"data": type(raw.data).__name__,
                             "hooked": raw.unpack_hook is not None})
            s = b.grad_fn._saved_self
            rec.note("before", {"value": s, "is a": s is a, "version": s._version,
                                "shares": s.data_ptr() == a.data_ptr(), "grad_fn": s.grad_fn})
            rec.note("ctx before", _ctx_sizes(ctx))
            rec.attempt("register_hooks", lambda: raw.register_hooks(lambda t: t, lambda t: t))
            a.mul_(10)
            rec.note("a", {"value": a, "version": a._version, "grad_fn": a.grad_fn})
            s = b.grad_fn._saved_self
            rec.note("after", {"value": s, "is a": s is a, "version": s._version,
                               "shares": s.data_ptr() == a.data_ptr(), "grad_fn": s.grad_fn,
                               "requires_grad": s.requires_grad})
            rec.note("ctx after", _ctx_sizes(ctx))
            rec.attempt("backward", lambda: b.sum().backward())
            rec.grad("x", x=x)
            rec.note("raw after", {"data": raw.data, "hook": raw.unpack_hook})
            rec.attempt("saved after", lambda: b.grad_fn._saved_self)
            x.grad = None
            e = x.clone().exp()
            rec.note("result", e.grad_fn._saved_result)
            e.mul_(2)
            rec.note("result after", {"value": e.grad_fn.next_functions[0][0]._saved_result,
                                      "e": e, "version": e._version})
            rec.attempt("backward 2", lambda: e.sum().backward())
            rec.grad("x", x=x)
            rec.note("ctx end", _ctx_sizes(ctx))
        rec.note("ctx exited", _ctx_sizes(ctx))
    differential(snippet)


def test_in_place_ops_that_save_their_own_operand() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with _amst(rec):
            x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            a = x.clone()
            z = (a * a).sum()
            a.mul_(a)
            rec.note("a", a)
            rec.attempt("backward", lambda: z.backward())
            rec.grad("x", x=x)
            x.grad = None
            a = x.clone()
            z = a.mul_(a).sum()
            a.mul_(3)
            rec.attempt("backward 2", lambda: z.backward())
            rec.grad("x", x=x)
            x.grad = None
            a = x.clone()
            z = a.sin_().sum()
            w = a.exp()
            a.sin_()
            rec.attempt("backward 3", lambda: (z + w.sum()).backward())
            rec.grad("x", x=x)
            x.grad = None
            a = x.clone()
            e = a.exp_()
            a.mul_(2)
            rec.note("exp_'s saved result", e.grad_fn.next_functions[0][0]._saved_result)
            rec.attempt("backward 4", lambda: e.sum().backward())
            rec.grad("x", x=x)
    differential(snippet)


VIEWS = ["[:2]", "[1:]", "[0]", "[2]", ".view(3)", ".unsqueeze(0)", ".detach()", "[::2]",
         ".flip(0)"]


@pytest.mark.parametrize("view", VIEWS)
def test_views_of_saved_tensors(view: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        for case in ("view saved, view written", "view saved, base written",
                     "base saved, view written"):
            with _amst(rec):
                x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
                a = x.clone()
                if case == "base saved, view written":
                    z = (a * a).sum()
                    v = eval("a" + view)
                else:
                    v = eval("a" + view)
                    z = (v * v).sum()
                (v if case.endswith("view written") else a).mul_(10)
                rec.note(case, {"a": a, "version": a._version})
                rec.attempt(case + ": backward", z.backward)
                rec.grad(case, x=x)
    differential(snippet)


def test_a_transposed_saved_tensor_is_cloned_with_its_layout() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with _amst(rec):
            x = torch.arange(6.0).reshape(2, 3).requires_grad_()
            a = x.clone()
            t = a.t()
            z = t.sin()
            a.add_(1)
            s = z.grad_fn._saved_self
            rec.note("saved", {"value": s, "stride": s.stride(), "contiguous": s.is_contiguous()})
            z.sum().backward()
            rec.grad("x", x=x)
    differential(snippet)


def test_data_detach_and_data_setter() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        for case in ("data.mul_", "data.mul_ at version 1", "detach().mul_", "data =",
                     "detach_"):
            with _amst(rec):
                x = torch.tensor([1.0, 2.0], requires_grad=True)
                a = x.clone()
                if case.endswith("version 1"):
                    a.add_(1)
                c = a.sin()
                if case.startswith("data.mul_"):
                    a.data.mul_(3)
                elif case == "detach().mul_":
                    a.detach().mul_(3)
                elif case == "data =":
                    a.data = torch.tensor([5.0, 6.0])
                else:
                    a.detach_()
                    a.mul_(2)
                rec.note(case, {"a": a, "version": a._version,
                                "saved": c.grad_fn._saved_self})
                rec.attempt(case + ": backward", c.sum().backward)
                rec.grad(case, x=x)
    differential(snippet)


WRITES = {
    "copy_": lambda torch, a: a.copy_(torch.tensor([7.0, 8.0])),
    "zero_": lambda torch, a: a.zero_(),
    "fill_": lambda torch, a: a.fill_(3),
    "setitem": lambda torch, a: a.__setitem__(0, 9.0),
    "setitem at 1": lambda torch, a: a.__setitem__(1, 9.0),
    "setitem with a mask": lambda torch, a: a.__setitem__(a > 1.5, 0.0),
    "a view's copy_": lambda torch, a: a[:1].copy_(torch.tensor([5.0])),
    "t_": lambda torch, a: a.t_(),
    "unsqueeze_": lambda torch, a: a.unsqueeze_(0),
    "squeeze_": lambda torch, a: a.squeeze_(),
    "resize_": lambda torch, a: a.detach().resize_(1),
    "set_": lambda torch, a: a.detach().set_(torch.tensor([4.0, 5.0])),
    "uniform_": lambda torch, a: a.detach().uniform_(),
    "clamp_": lambda torch, a: a.detach().clamp_(max=0.0),
    "scatter_": lambda torch, a: a.scatter_(0, torch.tensor([1]), torch.zeros(1)),
    "index_copy_": lambda torch, a: a.index_copy_(0, torch.tensor([0]), torch.zeros(1)),
    "put_": lambda torch, a: a.detach().put_(torch.tensor([1]), torch.zeros(1)),
    "addcmul_": lambda torch, a: a.addcmul_(torch.ones(2), torch.ones(2)),
    "exponential_": lambda torch, a: a.detach().exponential_(),
    "bernoulli_": lambda torch, a: a.detach().bernoulli_(0.5),
    "add_ with alpha": lambda torch, a: a.add_(torch.ones(2), alpha=3),
    "index_add_": lambda torch, a: a.index_add_(0, torch.tensor([1]), torch.ones(1)),
    "masked_fill_": lambda torch, a: a.masked_fill_(torch.tensor([True, False]), 0.0),
    "+=": lambda torch, a: a.__iadd__(1),
    "nn.init.zeros_": lambda torch, a: torch.nn.init.zeros_(a.detach()),
    "nn.init.normal_": lambda torch, a: torch.nn.init.normal_(a.detach()),
    # NB: not a write: a later one no longer finds the saved tensor at its version
    "increment_version, then mul_": lambda torch, a: (
        torch.autograd.graph.increment_version(a), a.mul_(2)),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_every_kind_of_write_clones_first(write: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(0)
        with _amst(rec):
            x = torch.tensor([1.0, 2.0], requires_grad=True)
            a = x.clone()
            c = a.sin()
            rec.attempt("write", lambda: WRITES[write](torch, a) is not None)
            rec.note("saved", {"value": c.grad_fn._saved_self, "version": a._version})
            rec.attempt("backward", lambda: c.sum().backward())
            rec.grad("x", x=x)
    differential(snippet)


@pytest.mark.parametrize("write", ["logical_not_", "bitwise_and_", "fill_"])
def test_a_saved_mask_changed_in_place(write: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with _amst(rec):
            x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            m = torch.tensor([True, False, True])
            y = torch.where(m, x * 2, x * x)
            if write == "bitwise_and_":
                m.bitwise_and_(torch.tensor([False, False, True]))
            else:
                getattr(m, write)(*((False,) if write == "fill_" else ()))
            rec.note("mask", {"m": m, "version": m._version,
                              "saved": y.grad_fn._saved_condition})
            y.sum().backward()
            rec.grad("x", x=x)
    differential(snippet)


def test_a_parameter_updated_in_place_between_forward_and_backward() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with _amst(rec):
            w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            y = (w * w).sum()
            with torch.no_grad():
                w.sub_(1.0)
            s = y.grad_fn.next_functions[0][0]._saved_self
            rec.note("saved leaf", {"value": s, "requires_grad": s.requires_grad,
                                    "grad_fn": s.grad_fn, "is_leaf": s.is_leaf,
                                    "is w": s is w})
            y.backward()
            rec.grad("w", w=w)
            for name in ("SGD", "Adam"):
                opt = getattr(torch.optim, name)([w], lr=0.5)
                y = (w ** 3).sum()
                y.backward(retain_graph=True)
                opt.step()
                rec.note(name + " step", {"w": w, "version": w._version})
                y.backward()
                rec.grad(name, w=w)
                opt.zero_grad(set_to_none=False)
        rec.note("w after", w)
    differential(snippet)


def test_a_module_trained_inside_the_context() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                                  torch.nn.Tanh(), torch.nn.Linear(4, 1))
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        x = torch.linspace(-1, 1, 12).reshape(4, 3)
        with _amst(rec):
            loss = net(x).pow(2).sum()
            loss.backward(retain_graph=True)
            opt.step()
            opt.zero_grad()
            # NB: the same graph, after the step: it reads the parameters as they were
            loss.backward()
            rec.note("grads", [p.grad for p in net.parameters()])
            opt.step()
        rec.note("params", list(net.parameters()))
        rec.note("running stats", [net[1].running_mean, net[1].running_var])
    differential(snippet)


def test_nested_contexts_are_refused_and_end_the_outer_one() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with _amst(rec) as outer:
            x = torch.tensor([1.0, 2.0], requires_grad=True)
            a = x.clone()
            b = a.sin()
            inner = _amst(rec)
            rec.attempt("nested", lambda: inner.__enter__())
            a.mul_(2)
            rec.note("outer", _ctx_sizes(outer))
            rec.attempt("backward in the outer one", lambda: b.sum().backward())
            rec.grad("x", x=x)
        with _amst(rec):
            c = x.clone().sin()
            rec.attempt("a new context works", lambda: c.sum().backward())
            rec.grad("x", x=x)


        def fails() -> None:
            with _amst(rec):
                x.clone().sin()
                raise ValueError("in the forward")
        rec.attempt("an error inside", fails)
        with _amst(rec):
            c = x.clone().sin()
            rec.attempt("a context after an error", lambda: c.sum().backward())
            rec.grad("x after an error", x=x)
    differential(snippet)


def test_a_backward_outside_the_context_raises() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with _amst(rec):
            x = torch.tensor([1.0, 2.0], requires_grad=True)
            a = x.clone()
            b = a.sin()
            a.mul_(2)
            c = x.clone().cos()
        rec.attempt("backward after exit", lambda: b.sum().backward())
        rec.attempt("saved after exit", lambda: b.grad_fn._saved_self)
        rec.attempt("unmodified graph after exit", lambda: c.sum().backward())
        with _amst(rec):
            rec.attempt("in another context", lambda: c.sum().backward())
            rec.attempt("grad in another context", lambda: torch.autograd.grad(c.sum(), x))
        rec.grad("x", x=x)
        d = x.exp()
        rec.attempt("a graph made outside", lambda: d.sum().backward())
        rec.grad("x", x=x)
    differential(snippet)


def test_two_graphs_sharing_a_saved_tensor() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with _amst(rec) as ctx:
            x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
            a = x.clone()
            y = a * a
            z = a.cos()
            rec.note("one handle", {
                "self and other": y.grad_fn._raw_saved_self.data
                is y.grad_fn._raw_saved_other.data,
                "across graphs": y.grad_fn._raw_saved_self.data is z.grad_fn._raw_saved_self.data,
            })
            rec.note("ctx", _ctx_sizes(ctx))
            a.add_(1)
            rec.note("ctx after", _ctx_sizes(ctx))
            y.sum().backward()
            rec.grad("y", x=x)
            rec.note("ctx after one backward", _ctx_sizes(ctx))
            a.add_(1)
            z.sum().backward()
            rec.grad("z", x=x)
            rec.note("ctx after both", _ctx_sizes(ctx))
            # saved again at its new version: a new handle, cloned again by the next write
            u = a.exp() * a
            a.zero_()
            u.sum().backward()
            rec.grad("u", x=x)
    differential(snippet)


def test_a_dropped_graph_that_saved_its_output_lives_until_the_context_ends() -> None:
    def snippet(rec: Recorder) -> None:
        import gc
        torch = rec.torch
        with _amst(rec) as ctx:
            x = torch.tensor([1.0, 2.0], requires_grad=True)
            y = x.exp()
            z = x.clone().sin()
            rec.note("both", _ctx_sizes(ctx))
            del y, z
            gc.collect()
            rec.note("dropped", _ctx_sizes(ctx))
        rec.note("exited", _ctx_sizes(ctx))
    differential(snippet)


def test_retain_graph_and_create_graph() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with _amst(rec):
            x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
            a = x * 2
            y = (a * a.sin()).sum()
            y.backward(retain_graph=True)
            rec.grad("first", x=x)
            a.mul_(3)
            y.backward(retain_graph=True)
            rec.grad("second", x=x)
            g, = torch.autograd.grad(y, x, create_graph=True)
            rec.note("g", {"value": g, "grad_fn": g.grad_fn})
            rec.graph("create_graph", g=g, x=x)
            a.add_(1)
            rec.attempt("double backward", lambda: g.sum().backward())
            rec.grad("double", x=x)
            rec.attempt("freed", lambda: y.backward())
    differential(snippet)


def test_custom_functions_saving_tensors() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch

        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any) -> Any:
                ctx.save_for_backward(t)
                return t ** 3

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                t, = ctx.saved_tensors
                rec.note("saved in backward", t)
                return g * 3 * t * t

        class Double(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any) -> Any:
                ctx.mark_dirty(t)
                return t.mul_(2)

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 2

        with _amst(rec):
            x = torch.tensor([1.0, 2.0], requires_grad=True)
            a = x.clone()
            y = Cube.apply(a)
            raw = y.grad_fn._raw_saved_tensors
            rec.note("raw", [type(r.data).__name__ for r in raw])
            a.add_(1)
            rec.attempt("backward", lambda: y.sum().backward())
            rec.grad("x", x=x)
            x.grad = None
            b = x.clone()
            z = b.sin()
            w = Double.apply(b)
            rec.note("dirty", {"b": b, "version": b._version, "w": w,
                               "saved": z.grad_fn._saved_self})
            rec.attempt("backward dirty", lambda: (z.sum() + w.sum()).backward())
            rec.grad("x dirty", x=x)
    differential(snippet)


def test_with_other_saved_tensor_hooks() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        graph = torch.autograd.graph
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        # hooks inside it take over: what they pack is not cloned, nor checked
        with _amst(rec):
            a = x.clone()
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                b = a.sin()
            rec.note("inner raw", type(b.grad_fn._raw_saved_self.data).__name__)
            a.mul_(2)
            rec.attempt("inner hooks", lambda: b.sum().backward())
            rec.grad("inner hooks", x=x)
        # it inside other hooks: its pair is the innermost
        x.grad = None
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t), _amst(rec):
            a = x.clone()
            b = a.sin()
            rec.note("outer raw", type(b.grad_fn._raw_saved_self.data).__name__)
            a.mul_(2)
            rec.attempt("outer hooks", lambda: b.sum().backward())
            rec.grad("outer hooks", x=x)
        with _amst(rec):
            with graph.save_on_cpu():
                a = x.clone()
                b = a.sin()
            a.mul_(2)
            rec.attempt("save_on_cpu inside", lambda: b.sum().backward())
        with graph.disable_saved_tensors_hooks("no hooks here"):
            rec.attempt("inside disable", lambda: _amst(rec).__enter__())
        with _amst(rec):
            cm = graph.disable_saved_tensors_hooks("no hooks here")
            rec.attempt("disable inside", lambda: cm.__enter__())
        with _amst(rec):
            b = x.clone().sin()
            rec.attempt("hooks allowed again", lambda: b.sum().backward())
        rec.grad("x", x=x)
    differential(snippet)


def test_checkpoint_inside_the_context() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        from importlib import import_module
        checkpoint = import_module(torch.__name__ + ".utils.checkpoint").checkpoint

        def f(t: Any) -> Any:
            return t.sin() * t

        x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
        for reentrant in (False, True):
            with _amst(rec):
                a = x.clone()
                y = checkpoint(f, a, use_reentrant=reentrant)
                z = a.exp()
                a.mul_(2)
                rec.attempt(f"reentrant={reentrant}", (y.sum() + z.sum()).backward)
                rec.grad(f"reentrant={reentrant}", x=x)
            x.grad = None
        with _amst(rec):
            a = x.clone()
            y = checkpoint(lambda t: (t * 1).mul_(2) * t, a, use_reentrant=False)
            rec.attempt("writes inside the checkpoint", lambda: y.sum().backward())
            rec.grad("writes inside", x=x)
    differential(snippet)


def test_a_saved_gradient_accumulated_into() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with _amst(rec):
            x = torch.tensor([1.0, 2.0], requires_grad=True)
            (x * x).sum().backward()
            w = torch.tensor([3.0, 4.0], requires_grad=True)
            y = (w * x.grad).sum()
            (x * x).sum().backward()
            rec.note("x.grad", x.grad)
            y.backward()
            rec.grad("w", w=w)
    differential(snippet)


def test_the_engine_stops_watching_writes_after_the_context() -> None:
    from graphviz_autograd.engine import pre_write
    x = ours.tensor([1.0, 2.0], requires_grad=True)
    with ours.autograd.graph.allow_mutation_on_saved_tensors():
        assert pre_write.WATCH
    assert not pre_write.WATCH
    a = x.clone()
    b = a.sin()
    a.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()
    assert "allow_mutation_on_saved_tensors" in ours.autograd.graph.__all__


def test_the_pair_it_pushes_is_pytorchs() -> None:
    from graphviz_autograd.engine import saved_hooks
    torch = real_torch()
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        theirs = [h.__qualname__ for h in
                  torch._C._autograd._top_saved_tensors_default_hooks(False)]
    with ours.autograd.graph.allow_mutation_on_saved_tensors():
        mine = [h.__qualname__ for h in saved_hooks.STACK[-1]]
    assert mine == theirs
    assert not saved_hooks.STACK
