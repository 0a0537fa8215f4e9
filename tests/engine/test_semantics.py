"""Executor semantics, each checked against real PyTorch 2.13 on the same snippet: freeing,
``inputs=``, ``autograd.grad``, higher-order gradients, hooks, failed backwards, accumulation,
error texts, grad modes, the order nodes run in; and the engine's event stream."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import graphviz_autograd.torch as ours
from graphviz_autograd.engine import events

from ._support import (
    BACKWARD_TWICE,
    Recorder,
    differential,
    engines,
    outcome,
    warnings_in_fresh_process,
)


def _hook_all(log: list[str], *roots: Any) -> None:
    """A pre-hook on every node reachable from ``roots`` (pre-order walk, first-visit index)
    that appends ``"index:name"`` to ``log`` when the node runs."""
    nodes: list[Any] = []
    stack = [r.grad_fn for r in reversed(roots) if r.grad_fn is not None]
    while stack:
        node = stack.pop()
        if any(n is node for n in nodes):
            continue
        nodes.append(node)
        stack.extend(n for n, _ in reversed(node.next_functions) if n is not None)
    for i, node in enumerate(nodes):
        label = f"{i}:{node.name()}"
        node.register_prehook(lambda grad_outputs, label=label: log.append(label))


# -- freeing and retain_graph --------------------------------------------------------------------
@pytest.mark.torch
def test_retain_graph_on_a_freed_graph_still_fails() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, 4.0], requires_grad=True)
        c = (a * b).sum()
        rec.attempt("first", lambda: c.backward())
        rec.graph("after first", c=c, a=a, b=b)
        rec.attempt("retain_graph=True on the freed graph", lambda: c.backward(retain_graph=True))
        rec.attempt("autograd.grad on the freed graph", lambda: torch.autograd.grad(c, a))
        rec.grad("end", a=a, b=b)

    record = differential(snippet)
    assert outcome(record, "retain_graph=True on the freed graph")["outcome"]["message"] \
        == BACKWARD_TWICE


@pytest.mark.torch
def test_backward_inputs_accumulates_only_into_given_leaves() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, 4.0], requires_grad=True)
        c = torch.tensor([5.0, 6.0], requires_grad=True)
        y = (a * b + b * c).sum()
        rec.attempt("backward(inputs=[a])", lambda: y.backward(inputs=[a]))
        rec.grad("after inputs=[a]", a=a, b=b, c=c)
        rec.graph("after inputs=[a]", y=y, a=a, b=b, c=c)
        rec.attempt("backward(inputs=c)", lambda: y.backward(inputs=c))
        rec.grad("after inputs=c", a=a, b=b, c=c)
        rec.graph("after inputs=c", y=y, a=a, b=b, c=c)
        rec.attempt("backward(inputs=[b])", lambda: y.backward(inputs=[b]))
        rec.grad("after inputs=[b]", a=a, b=b, c=c)
        rec.attempt("inputs=[]", lambda: (a * 2).sum().backward(inputs=[]))
        z = (a * 3).sum()
        rec.attempt("inputs=[a, b], b unused", lambda: z.backward(inputs=[a, b], retain_graph=True))
        rec.grad("after unused input", a=a, b=b)

    record = differential(snippet)
    assert outcome(record, "after inputs=[a]: b.grad")["outcome"] == {"ok": None}


@pytest.mark.torch
def test_several_roots_with_inputs() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, 4.0], requires_grad=True)
        l1, l2 = (a * b).sum(), (a * 3).sum()
        rec.attempt("autograd.grad([l1, l2], [a])", lambda: torch.autograd.grad(
            [l1, l2], [a], retain_graph=True))
        rec.attempt("autograd.grad([l1, l2], [a, b])", lambda: torch.autograd.grad(
            [l1, l2], [a, b], retain_graph=True))
        rec.attempt("autograd.backward([l1, l2], inputs=[b])", lambda: torch.autograd.backward(
            [l1, l2], inputs=[b]))
        rec.grad("after", a=a, b=b)
        rec.graph("after", l1=l1, l2=l2, a=a, b=b)

    differential(snippet)


@pytest.mark.torch
def test_backward_inputs_with_a_non_leaf() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
        h = x * 2
        y = (h * h).sum()
        rec.attempt("backward(inputs=[h])", lambda: y.backward(inputs=[h], retain_graph=True))
        rec.grad("after", x=x, h=h)
        rec.note("h.retains_grad", h.retains_grad)
        rec.attempt("backward(inputs=[h, x])", lambda: y.backward(inputs=[h, x]))
        rec.grad("after both", x=x, h=h)

    differential(snippet)


@pytest.mark.torch
def test_autograd_grad_frees_only_the_nodes_it_ran() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a, b, c, d = (torch.tensor([v, v + 1.0], requires_grad=True) for v in (1.0, 3.0, 5.0, 7.0))
        z = a * b + c * d
        s = z.sum()
        rec.attempt("grad wrt a", lambda: torch.autograd.grad(s, a))
        rec.graph("after grad wrt a", s=s, a=a, b=b, c=c, d=d)
        rec.grad("no .grad touched", a=a, b=b, c=c, d=d)
        rec.attempt("grad wrt d (the c*d branch is intact)", lambda: torch.autograd.grad(s, d))
        rec.graph("after grad wrt d", s=s, a=a, b=b, c=c, d=d)
        rec.attempt("grad wrt b (a*b freed)", lambda: torch.autograd.grad(s, b))
        h = a * c
        k = (h.exp() * b).sum()
        rec.attempt("grad wrt the non-leaf h", lambda: torch.autograd.grad(k, h))
        rec.graph("after grad wrt h", k=k, a=a, b=b, c=c)
        rec.attempt("grad wrt a, after h", lambda: torch.autograd.grad(k, a))

    record = differential(snippet)
    states = [e["saved"] for e in outcome(record, "after grad wrt a")["s"]
              if e["name"] == "MulBackward0"]
    assert sorted(map(sorted, (s.values() for s in states))) == [["alive", "alive"],
                                                                 ["freed", "freed"]]


# -- higher order ----------------------------------------------------------------------------------
def _f_cube(t: Any, x: Any, y: Any) -> Any:
    return x ** 3


def _f_sin(t: Any, x: Any, y: Any) -> Any:
    return x.sin()


def _f_exp(t: Any, x: Any, y: Any) -> Any:
    return x.exp()


def _f_tanh(t: Any, x: Any, y: Any) -> Any:
    return x.tanh()


def _f_mul(t: Any, x: Any, y: Any) -> Any:
    return x * y


def _f_mul_square(t: Any, x: Any, y: Any) -> Any:
    return x * x * y


def _f_sigmoid(t: Any, x: Any, y: Any) -> Any:
    return x.sigmoid()


def _f_div(t: Any, x: Any, y: Any) -> Any:
    return y / x


def _f_log(t: Any, x: Any, y: Any) -> Any:
    return x.abs().log()


HIGHER: dict[str, Callable[[Any, Any, Any], Any]] = {
    "cube": _f_cube, "sin": _f_sin, "exp": _f_exp, "tanh": _f_tanh, "mul": _f_mul,
    "mul_square": _f_mul_square, "sigmoid": _f_sigmoid, "div": _f_div, "log": _f_log,
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(HIGHER))
def test_create_graph_higher_order(name: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
        y = torch.tensor([1.5, 2.0, -0.5], requires_grad=True)
        f = HIGHER[name](torch, x, y).sum()
        gx, gy = torch.autograd.grad(f, [x, y], create_graph=True, allow_unused=True)
        rec.note("first", [gx, gy])
        rec.note("first grad_fn", [None if g is None else g.grad_fn for g in (gx, gy)])
        rec.note("first requires_grad", [None if g is None else g.requires_grad
                                         for g in (gx, gy)])
        gxx, gxy = torch.autograd.grad(gx.sum(), [x, y], create_graph=True, allow_unused=True)
        rec.note("second", [gxx, gxy])
        rec.note("second requires_grad", [None if g is None else g.requires_grad
                                          for g in (gxx, gxy)])
        if gxx is not None and gxx.requires_grad:
            rec.attempt("third", lambda: torch.autograd.grad(gxx.sum(), [x, y],
                                                             allow_unused=True))
        f2 = HIGHER[name](torch, x, y).sum()
        (g,) = torch.autograd.grad(f2, x)
        rec.note("no create_graph: requires_grad", g.requires_grad)
        rec.attempt("differentiate a non-create_graph grad", lambda: torch.autograd.grad(
            g.sum(), x))

    differential(snippet)


@pytest.mark.torch
def test_backward_create_graph_gives_grad_a_graph() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x ** 3).sum()
        # the create_graph warning is a once-per-process warning in torch: checked below
        rec.attempt("backward(create_graph=True)", lambda: y.backward(create_graph=True),
                    record_warnings=False)
        rec.note("x.grad", x.grad)
        rec.note("x.grad.requires_grad", x.grad.requires_grad)
        rec.note("x.grad.grad_fn", x.grad.grad_fn)
        g = x.grad
        rec.attempt("second derivative via x.grad", lambda: torch.autograd.grad(g.sum(), x))
        x.grad = None
        rec.attempt("again", lambda: y.backward(create_graph=True), record_warnings=False)
        first = x.grad
        rec.attempt("accumulate create_graph", lambda: (x * x).sum().backward(create_graph=True),
                    record_warnings=False)
        rec.note("accumulated", x.grad)
        rec.note("accumulated is a new object", x.grad is not first)
        rec.note("accumulated grad_fn", x.grad.grad_fn)

    differential(snippet)


CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak."
)


@pytest.mark.parametrize("engine", engines())
def test_create_graph_warning_once_per_process(engine: str) -> None:
    module = "torch" if engine == "torch" else "graphviz_autograd.torch"
    got = warnings_in_fresh_process(
        module,
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "w = torch.tensor([3.0], requires_grad=True)",
        ["(x ** 3).sum().backward(create_graph=True)",
         "(x ** 3).sum().backward(create_graph=True)",
         "(w * w).sum().backward(create_graph=True)",
         "torch.autograd.grad((x ** 2).sum(), x, create_graph=True)"])
    assert got == [[CREATE_GRAPH_WARNING], [], [], []]


# -- tensor hooks ----------------------------------------------------------------------------------
@pytest.mark.torch
def test_tensor_hooks_on_a_non_leaf() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        log: list[Any] = []
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2

        def h1(g: Any) -> None:
            log.append(("h1", g.tolist()))

        def h2(g: Any) -> Any:
            log.append(("h2", g.tolist()))
            return g * 10

        def h3(g: Any) -> Any:
            log.append(("h3", g.tolist()))
            return g + 1

        y.register_hook(h1)
        y.retain_grad()                        # registered in the middle: still runs last
        y.register_hook(h2)
        y.register_hook(h3)
        z = (y * y).sum() + y.sum()            # y used twice: hooks see the summed grad once
        rec.attempt("backward", lambda: z.backward())
        rec.note("hook log", log)
        rec.grad("after", x=x, y=y)

    differential(snippet)


@pytest.mark.torch
def test_tensor_hooks_on_a_leaf_and_post_accumulate_hook() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        log: list[Any] = []
        x = torch.tensor([1.0, -1.0], requires_grad=True)
        x.register_hook(lambda g: log.append(("a", g.tolist())))
        x.register_hook(lambda g: g * 3)
        x.register_hook(lambda g: log.append(("c", g.tolist())))
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post", t.grad.tolist())))
        rec.attempt("backward 1", lambda: (x * x).sum().backward())
        rec.note("log 1", log)
        rec.grad("after 1", x=x)
        log.clear()
        rec.attempt("backward 2", lambda: (x * 2).sum().backward())
        rec.note("log 2", log)
        rec.grad("after 2", x=x)
        rec.attempt("autograd.grad runs leaf hooks", lambda: torch.autograd.grad(
            (x * 5).sum(), x))
        rec.note("log 3", log)
        rec.grad("autograd.grad leaves .grad", x=x)

    differential(snippet)


@pytest.mark.torch
def test_hook_handle_remove() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        log: list[str] = []
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        h1 = y.register_hook(lambda g: log.append("y1"))
        y.register_hook(lambda g: log.append("y2"))
        hx = x.register_hook(lambda g: g * 0)
        h1.remove()
        h1.remove()                            # removing twice is harmless
        hx.remove()
        rec.attempt("backward", lambda: y.sum().backward())
        rec.note("log", log)
        rec.grad("after", x=x)

    differential(snippet)


@pytest.mark.torch
def test_hook_on_a_tensor_not_requiring_grad() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        t = torch.ones(2)
        rec.attempt("register_hook", lambda: t.register_hook(lambda g: g))
        rec.attempt("register on a no_grad result", lambda: _no_grad_result(torch).register_hook(
            lambda g: g))
        rec.attempt("retain_grad", lambda: t.retain_grad())
        rec.attempt("post accumulate", lambda: t.register_post_accumulate_grad_hook(lambda g: g))
        y = torch.ones(2, requires_grad=True) * 2
        rec.attempt("post accumulate on non-leaf", lambda: y.register_post_accumulate_grad_hook(
            lambda g: g))

    record = differential(snippet)
    assert outcome(record, "register_hook")["outcome"]["message"] == \
        "cannot register a hook on a tensor that doesn't require gradient"


def _no_grad_result(torch: Any) -> Any:
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        return x * 2


@pytest.mark.torch
def test_hook_changing_the_grad_shape_is_an_error() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3

        def bad(g: Any) -> Any:
            return g.sum()

        y.register_hook(bad)
        rec.attempt("backward", lambda: y.sum().backward())

    differential(snippet)


@pytest.mark.torch
def test_a_root_gradient_of_another_dtype_is_cast_to_the_root_s() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        x = torch.tensor([[1.0, 2.0]], requires_grad=True)
        y = (x @ w).tanh()
        rec.attempt("backward", lambda: y.backward(torch.tensor([[1.0, 3.0]],
                                                                dtype=torch.float64)))
        rec.note("dtypes", [str(t.grad.dtype) + " " + str(t.grad.numpy().dtype) for t in (w, x)])
        rec.grad("end", w=w, x=x)
        got = torch.autograd.grad((x @ w).sigmoid(), w,
                                  torch.tensor([[2.0, 1.0]], dtype=torch.float64))[0]
        rec.note("autograd.grad", [str(got.dtype), str(got.numpy().dtype), got.tolist()])

    differential(snippet)


@pytest.mark.torch
def test_a_leaf_whose_data_changed_shape_gets_its_accumulator_s_check(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The accumulator keeps the leaf's shape from when it was made: a gradient of the new
    shape is refused, by every op (even one whose gradients need no reduction)."""
    from graphviz_autograd.engine.tensor import LeafData

    monkeypatch.setattr(LeafData, "changed", False)     # NB: set for good by the change below

    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        kept = (w * 1).sum()          # holds w's accumulator
        w.data = torch.ones(3, 3)
        rec.attempt("tanh", lambda: w.tanh().sum().backward())
        rec.attempt("mm", lambda: (w @ torch.ones(3, 1)).sum().backward())
        rec.grad("end", w=w)
        del kept

    differential(snippet)


@pytest.mark.torch
def test_a_graph_built_before_a_leaf_s_data_changed_keeps_its_own_shapes_and_dtypes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A graph made before ``.data`` changed: a saved leaf now of another shape fails as
    PyTorch's kernels fail; a gradient keeps the dtype the graph was built with."""
    from graphviz_autograd.engine.tensor import LeafData

    monkeypatch.setattr(LeafData, "changed", False)     # NB: set for good by the changes below

    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        w = torch.ones(3, requires_grad=True)
        square = (w * w).sum()           # saves w itself
        double = (w * 2).sum()           # saves only the 2
        w.data = torch.ones(4)
        rec.attempt("saved leaf of another shape", lambda: square.backward())
        rec.attempt("nothing of it saved", lambda: double.backward())
        rec.grad("shape", w=w)
        v = torch.ones(3, requires_grad=True)
        y = (v * 2).sum()
        v.data = torch.ones(3, dtype=torch.float64)
        rec.attempt("dtype", lambda: y.backward())
        rec.note("dtypes", [str(v.grad.dtype), str(v.grad.numpy().dtype)])
        u = torch.ones(3, requires_grad=True)
        z = (u * 3).sum()
        u.data = torch.ones(3, dtype=torch.float64)
        rec.attempt("autograd.grad", lambda: torch.autograd.grad(z, u))

    differential(snippet)


@pytest.mark.torch
def test_node_hooks_arguments_and_returns() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        log: list[Any] = []
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, -1.0], requires_grad=True)
        c = a * b
        s = c.exp().sum()
        mul = c.grad_fn

        def post(grad_inputs: Any, grad_outputs: Any) -> Any:
            log.append(("post", [None if g is None else g.tolist() for g in grad_inputs],
                        [None if g is None else g.tolist() for g in grad_outputs]))
            return (grad_inputs[0] * 2, grad_inputs[1])

        def pre(grad_outputs: Any) -> Any:
            log.append(("pre", [None if g is None else g.tolist() for g in grad_outputs]))
            return (grad_outputs[0] + 1,)

        mul.register_hook(post)
        mul.register_prehook(pre)
        acc = mul.next_functions[0][0]
        acc.register_prehook(lambda go: log.append(("acc pre", [g.tolist() for g in go])))
        acc.register_hook(lambda gi, go: log.append(("acc post", len(gi),
                                                     [g.tolist() for g in go])))
        rec.attempt("backward", lambda: s.backward())
        rec.note("log", log)
        rec.grad("after", a=a, b=b)

    differential(snippet)


# -- failed backwards: what already happened ---------------------------------------------------
@pytest.mark.torch
def test_failed_backward_seed000_loop() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        log: list[str] = []
        measure = torch.nn.MSELoss()
        x = torch.tensor([1, 0], dtype=torch.float64)
        t = torch.eye(2, dtype=torch.float64, requires_grad=True)
        a = torch.ones(2, dtype=torch.float64, requires_grad=True)
        y = t @ a
        for i in range(3):
            x_out = t @ (x + y)
            loss = measure(x_out, x)
            _hook_all(log, loss)
            rec.attempt(f"iteration {i} backward", loss.backward)
            rec.note(f"iteration {i} ran", log[:])
            log.clear()
            rec.graph(f"iteration {i} after", loss=loss, y=y, t=t, a=a)
            rec.grad(f"iteration {i}", t=t, a=a)

    differential(snippet)


@pytest.mark.torch
def test_failed_backward_rnn_hidden_without_detach() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        log: list[str] = []
        W = torch.tensor([[0.5, -0.3], [0.2, 0.4]], requires_grad=True)
        U = torch.tensor([[1.0, 0.0], [0.0, 1.0]], requires_grad=True)
        xs = [torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0]), torch.tensor([1.0, 1.0])]
        h = torch.zeros(2)
        for i, x in enumerate(xs):
            h = torch.tanh(W @ h + U @ x)
            loss = (h ** 2).sum()
            _hook_all(log, loss)
            rec.attempt(f"step {i}", loss.backward)
            rec.note(f"step {i} ran", log[:])
            log.clear()
            rec.graph(f"step {i}", loss=loss, W=W, U=U)
            rec.grad(f"step {i}", W=W, U=U)

    differential(snippet)


@pytest.mark.torch
def test_failed_backward_seed003_temp_list() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        Variable = torch.autograd.Variable
        a = torch.Tensor([1, 2, 3])
        t = torch.Tensor([1])
        fc1 = torch.nn.Linear(3, 5)
        fc2 = torch.nn.Linear(5, 1)
        with torch.no_grad():
            fc1.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.0, 0.1, -0.1], [0.2, 0.2, 0.2],
                                           [-0.3, 0.1, 0.0], [0.05, -0.05, 0.1]]))
            fc1.bias.copy_(torch.tensor([0.1, 0.0, -0.1, 0.2, 0.0]))
            fc2.weight.copy_(torch.tensor([[0.3, -0.2, 0.1, 0.4, -0.1]]))
            fc2.bias.copy_(torch.tensor([0.05]))
        loss_func = torch.nn.MSELoss()
        sgd = torch.optim.SGD(params=list(fc1.parameters()) + list(fc2.parameters()), lr=0.01)
        temp: list[Any] = []
        log: list[str] = []
        for i in range(3):
            h = fc1(Variable(a))
            out = fc2(h)
            temp.append(h)
            if i != 0:
                out = out + temp[0].mean()
            loss = loss_func(out, Variable(t))
            _hook_all(log, loss)
            ok = rec.attempt(f"iteration {i}", loss.backward)
            rec.note(f"iteration {i} ran", log[:])
            log.clear()
            rec.graph(f"iteration {i}", loss=loss, h0=temp[0], w1=fc1.weight, b1=fc1.bias,
                      w2=fc2.weight, b2=fc2.bias)
            rec.grad(f"iteration {i}", w1=fc1.weight, b1=fc1.bias, w2=fc2.weight, b2=fc2.bias)
            if not ok:
                break
            sgd.step()
            sgd.zero_grad()
        rec.note("versions", [p._version for p in (fc1.weight, fc1.bias, fc2.weight, fc2.bias)])

    differential(snippet)


@pytest.mark.torch
def test_failed_backward_version_error_midway() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        log: list[str] = []
        a = torch.tensor([0.5, 1.0, -1.0], requires_grad=True)
        b = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)
        c = torch.tensor([1.0, 3.0, 2.0])
        q = (a * 2).exp()
        exp_node = q.grad_fn
        loss = (q * c).sum() + (b * b).sum() + (a * b).sum()
        q.add_(1)
        rec.note("q._version", q._version)
        _hook_all(log, loss)
        rec.attempt("backward", lambda: loss.backward())
        rec.note("ran", log[:])
        rec.graph("after failure", loss=loss, a=a, b=b)
        rec.grad("after failure", a=a, b=b)
        rec.attempt("read the stale result", lambda: exp_node._saved_result)
        rec.attempt("backward again", lambda: loss.backward())
        rec.grad("after second failure", a=a, b=b)

    differential(snippet)


@pytest.mark.torch
def test_failed_backward_copyslices_single_use() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = torch.tensor([0.5, 0.5], requires_grad=True)
        y = x * 1
        y[:2] = w * 4
        s = y.sum()
        rec.graph("before", s=s, x=x, w=w)
        rec.attempt("first", lambda: s.backward())
        rec.grad("first", x=x, w=w)
        rec.graph("after", s=s, x=x, w=w)
        rec.attempt("second", lambda: s.backward())
        rec.grad("second", x=x, w=w)

    differential(snippet)


@pytest.mark.torch
def test_setitem_with_an_integer_index() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        t = torch.zeros(3)
        t[0] = 1.0
        t[-1] = torch.tensor(2.0)
        rec.note("plain tensor", [t, t._version])
        m = torch.zeros(2, 3)
        m[1] = torch.tensor([1.0, 2.0, 3.0])
        m[0, 2] = 5.0
        rec.note("matrix", [m, m._version])
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = torch.tensor(4.0, requires_grad=True)
        y = x * 1
        y[0] = w * 2
        y[2] = 7.0
        rec.note("y", [y, y.grad_fn, y._version])
        rec.graph("graph", y=y, x=x, w=w)
        rec.attempt("backward", lambda: (y * y).sum().backward())
        rec.grad("after", x=x, w=w)

        def leaf_under_no_grad() -> None:
            with torch.no_grad():
                x[1] = -1.0

        rec.attempt("x[1] = under no_grad", leaf_under_no_grad)
        rec.note("x", [x, x._version])

    differential(snippet)


# -- accumulation into .grad -----------------------------------------------------------------------
@pytest.mark.torch
def test_accumulation_keeps_the_grad_object_and_bumps_its_version() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
        g = x.grad
        rec.note("first", [g, g._version])
        (x * 3).sum().backward()
        rec.note("same object after accumulating", x.grad is g)
        rec.note("second", [x.grad, g._version])
        (x * x).sum().backward()
        rec.note("third", [x.grad is g, x.grad, g._version])
        x.grad.zero_()
        rec.note("after zero_", [x.grad is g, g._version])
        x.grad.data.add_(1)
        rec.note("after .data.add_", [x.grad, g._version])
        x.grad = None
        (x * 2).sum().backward()
        rec.note("after reset", [x.grad is g, x.grad, x.grad._version])
        g0 = torch.tensor([5.0, 6.0])
        z = torch.tensor([0.0, 0.0], requires_grad=True)
        z.backward(g0)
        rec.note("leaf.backward(g0): grad is g0", z.grad is g0)
        g0.add_(1)
        rec.note("z.grad after g0.add_", z.grad)
        u = torch.tensor([1.0, 2.0], requires_grad=True)
        (u * u).sum().backward()               # two edges into u, summed before accumulating
        rec.note("two edges: first grad's version", [u.grad, u.grad._version])
        v = torch.tensor([1.0, 2.0], requires_grad=True)
        (v * 3).sum().backward()
        rec.note("one edge: first grad's version", [v.grad, v.grad._version])
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        (w * 3 + w * 4 + w * 5).sum().backward()
        rec.note("three edges: first grad's version", [w.grad, w.grad._version])

    differential(snippet)


# -- error and warning texts ---------------------------------------------------------------------
@pytest.mark.torch
def test_nonleaf_grad_warning() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        (y * y).sum().backward()
        rec.grad("non-leaf", y=y)
        rec.grad("leaf", x=x)
        z = x * 3
        z.retain_grad()
        z.sum().backward()
        rec.grad("retained non-leaf", z=z)
        rec.note("retains_grad", [x.retains_grad, y.retains_grad, z.retains_grad])

    record = differential(snippet)
    warned = outcome(record, "non-leaf: y.grad")["warnings"]
    assert len(warned) == 1 and warned[0]["category"] == "UserWarning"


@pytest.mark.torch
def test_shape_argument_errors_and_edge_values() -> None:
    """Bad shapes and sizes give PyTorch's errors (never numpy's, never a silent result)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.ones(2, 3, requires_grad=True)
        b = torch.ones(4, 5)
        zero_d = torch.tensor(1.0)
        for label, fn in [
            ("flatten past the end", lambda: a.flatten(0, 3)),
            ("flatten start after end", lambda: a.flatten(1, 0)),
            ("flatten below the start", lambda: a.flatten(-3)),
            ("flatten 0-d", lambda: zero_d.flatten(0, 1)),
            ("flatten 0-d fine", lambda: zero_d.flatten(-1, 0)),
            ("narrow past the end", lambda: a.narrow(1, 2, 3)),
            ("narrow negative start", lambda: a.narrow(1, -2, 2)),
            ("narrow negative start past the end", lambda: a.narrow(1, -1, 2)),
            ("narrow negative length", lambda: a.narrow(1, 0, -1)),
            ("narrow start out of range", lambda: a.narrow(1, -4, 1)),
            ("narrow 0-d", lambda: zero_d.narrow(0, 0, 1)),
            ("chunk 0", lambda: a.chunk(0)),
            ("chunk -1", lambda: a.chunk(-1)),
            ("chunk 0-d", lambda: zero_d.chunk(2)),
            ("split 0", lambda: a.split(0)),
            ("split -1", lambda: a.split(-1)),
            ("split 0 of an empty dimension", lambda: torch.ones(0, 2).split(0)),
            ("split 0-d", lambda: zero_d.split(1)),
            ("where", lambda: torch.where(torch.ones(2, 3) > 0, a, b)),
            ("where condition", lambda: torch.where(torch.ones(4) > 0, a, a)),
            ("where scalar", lambda: torch.where(torch.ones(2, 3) > 0, torch.ones(4), 0.0)),
            ("masked_fill", lambda: a.masked_fill(torch.ones(4) > 0, 0.0)),
            ("masked_fill_", lambda: a.detach().clone().masked_fill_(torch.ones(4) > 0, 0.0)),
            ("masked_fill_ larger mask",
             lambda: a.detach().clone().masked_fill_(torch.ones(5, 2, 3) > 0, 0.0)),
            ("gather out of bounds", lambda: a.gather(1, torch.tensor([[1, 7], [9, 0]]))),
            ("gather negative", lambda: a.gather(1, torch.tensor([[-1]]))),
            ("gather index dims", lambda: a.gather(1, torch.tensor([5]))),
            ("gather index larger", lambda: a.gather(1, torch.tensor([[1], [1], [1]]))),
            ("repeat fewer dims", lambda: a.repeat(2)),
            ("repeat negative", lambda: a.repeat(-1, -2)),
            ("repeat nothing", lambda: zero_d.repeat()),
            ("repeat zero", lambda: a.repeat(0, 1)),
            ("int to a negative int power", lambda: torch.tensor([2, 3]) ** -1),
            ("int to negative int tensor powers",
             lambda: torch.tensor([2, 3, 1, -1, -1, 0]) ** torch.tensor([-1, 1, -2, -1, -2, -1])),
            ("int base to int tensor powers", lambda: 2 ** torch.tensor([-1, 1])),
            ("select out of range", lambda: a.select(1, 5)),
            ("select negative out of range", lambda: a.select(1, -4)),
            ("select 0-d", lambda: zero_d.select(0, 0)),
            ("index out of range", lambda: a[0, 3]),
            ("index 0-d", lambda: zero_d[0]),
            ("permute duplicate", lambda: a.permute(1, 1)),
            ("permute too many", lambda: a.permute(0, 1, 2)),
            ("permute out of range", lambda: a.permute(0, 5)),
            ("outer of a matrix", lambda: torch.outer(torch.ones(2, 2), torch.ones(2))),
            ("outer by a matrix", lambda: torch.outer(torch.ones(2), torch.ones(2, 2))),
            ("binary_cross_entropy input", lambda: torch.nn.functional.binary_cross_entropy(
                torch.tensor([0.5, -0.1]), torch.ones(2))),
            ("binary_cross_entropy nan", lambda: torch.nn.functional.binary_cross_entropy(
                torch.tensor([0.5, float("nan")]), torch.ones(2))),
            ("binary_cross_entropy target", lambda: torch.nn.functional.binary_cross_entropy(
                torch.tensor([0.5]), torch.tensor([2.0]))),
            ("to an unknown device", lambda: a.to("foo")),
            ("to a device by keyword", lambda: a.to(device="CPU")),
            ("to a bad device index", lambda: a.to("cuda:x")),
            ("to cpu:0", lambda: a.to("cpu:0")),
            ("device", lambda: str(torch.device("foo"))),
            *[(f"device {args!r}", lambda args=args: [repr(torch.device(*args)),
                                                   str(torch.device(*args)),
                                                   torch.device(*args).index])
              for args in [("cpu",), ("cpu:0",), ("cpu", 1), ("cuda:1",), ("meta",), ("",),
                           ("cuda:",), ("cpu:01",), ("1cpu",), ("cpu_x",), ("Cpu:0",),
                           ("cpu", -1), ("cpu:0", 1), ("cpu", "0"), ("cpu", 1.5), (None,),
                           (), (0,), (" cpu",)]],
            ("device equality", lambda: [torch.device("cpu") == torch.device("cpu"),
                                         torch.device("cpu") == torch.device("cpu", 0),
                                         torch.device("cpu") != torch.device("cpu"),
                                         a.device == torch.device("cpu"), a.device == "cpu",
                                         {torch.device("cpu"): 1}.get(a.device),
                                         repr(a.device), str(a.device), f"{a.device}",
                                         repr(torch.device(a.device)),
                                         repr(torch.Generator().device),
                                         repr(a.untyped_storage().device)]),
            ("norm of integers", lambda: torch.ones(3, dtype=torch.long).norm()),
            ("norm of integers along a dim", lambda: torch.ones(2, 3, dtype=torch.long).norm(2, 1)),
            ("norm of integers, dim out of range",
             lambda: torch.ones(3, dtype=torch.long).norm(2, 1)),
            ("torch.norm of bools", lambda: torch.norm(torch.ones(3, dtype=torch.bool))),
            ("normalize integers", lambda: torch.nn.functional.normalize(
                torch.ones(2, 3, dtype=torch.int32))),
            ("to device 0", lambda: a.to(0)),
            ("to a device object", lambda: a.to(torch.device("cpu", 0)).device),
            ("var of one", lambda: torch.ones(1, requires_grad=True).var()),
            ("std past the correction", lambda: torch.ones(2, 2).std(1, correction=3)),
        ]:
            rec.attempt(label, fn)

    differential(snippet)


@pytest.mark.torch
def test_creation_dtype_and_optimizer_argument_errors() -> None:
    """Bad data, sizes, dtypes and parameters give PyTorch's errors, and the dtypes PyTorch
    computes in (never numpy's errors, never a silent result)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        a = torch.ones(2, 3, requires_grad=True)
        f64, i64, i32 = torch.float64, torch.int64, torch.int32
        for label, fn in [
            *[(f"{name} negative", lambda name=name: getattr(torch, name)(2, -3))
              for name in ("zeros", "ones", "empty", "randn", "rand")],
            ("full negative", lambda: torch.full((-1,), 1.0)),
            ("new_zeros negative", lambda: torch.zeros(2).new_zeros(-1)),
            ("randint negative", lambda: torch.randint(0, 3, (-1,))),
            ("arange against the step", lambda: torch.arange(0, 5, -1)),
            ("arange backwards", lambda: torch.arange(5, 0)),
            ("arange step 0", lambda: torch.arange(0, 5, 0)),
            ("arange down", lambda: torch.arange(5, 0, -1)),
            ("arange empty", lambda: repr(torch.arange(3, 3))),
            ("linspace negative", lambda: torch.linspace(0, 1, -1)),
            ("tensor ragged", lambda: torch.tensor([[1, 2], [3]])),
            ("tensor ragged deeper", lambda: torch.tensor([[[1], [2]], [[3], [4, 5]]])),
            ("tensor not a sequence", lambda: torch.tensor([[1, 2], 3])),
            ("tensor of text", lambda: torch.tensor("a")),
            ("tensor of a list of text", lambda: torch.tensor(["a"])),
            ("tensor with text inside", lambda: torch.tensor([1, "a"])),
            ("tensor of None", lambda: torch.tensor(None)),
            ("tensor with None inside", lambda: torch.tensor([1, None])),
            ("tensor of tensors", lambda: torch.tensor([torch.tensor([1.0]), torch.tensor(2.0)])),
            ("tensor of long tensors", lambda: torch.tensor([torch.ones(2), torch.ones(2)])),
            ("empty reprs", lambda: [repr(t) for t in (
                torch.tensor([], dtype=i64), torch.zeros(0, dtype=torch.bool),
                torch.zeros(2, 0, dtype=i32), torch.zeros(2, 0), torch.zeros(0, 3) * a[0, 0])]),
            ("neg of bool", lambda: -torch.tensor([True])),
            ("torch.neg of bool", lambda: torch.neg(torch.tensor([True]))),
            ("bool minus bool", lambda: torch.tensor([True]) - torch.tensor([True])),
            ("bool minus True", lambda: torch.tensor([True]) - True),
            ("True minus bool", lambda: True - torch.tensor([True])),
            ("bool sub_", lambda: torch.tensor([True]).sub_(torch.tensor([True]))),
            ("relu of bool", lambda: torch.relu(torch.tensor([True]))),
            ("float ops of ints", lambda: [str(fn(torch.tensor([4])).dtype) for fn in (
                torch.sigmoid, torch.tanh, torch.sqrt, torch.log, torch.reciprocal,
                torch.rsqrt)] + [str(torch.sigmoid(torch.tensor([True])).dtype)]),
            ("clamp int by float", lambda: torch.tensor([1, 5]).clamp(max=2.5)),
            ("clamp int by float min", lambda: torch.tensor([1, 5]).clamp(min=1.5)),
            ("clamp int by int", lambda: torch.tensor([1, 5]).clamp(max=2)),
            ("clamp int by float tensor", lambda: torch.tensor([1, 5]).clamp(
                max=torch.tensor(2.5))),
            ("clamp_min int by float", lambda: torch.tensor([1, 5]).clamp_min(1.5)),
            ("clamp_ int by float", lambda: torch.tensor([1, 5]).clamp_(max=2.5)),
            ("clamp_max_ int by float", lambda: torch.tensor([1, 5]).clamp_max_(2.5)),
            ("softmax without dim", lambda: torch.ones(3).softmax()),
            ("log_softmax without dim", lambda: torch.ones(3).log_softmax()),
            ("softmax dim keyword", lambda: torch.ones(3).softmax(dim=0)),
            ("one_hot too large", lambda: F.one_hot(torch.tensor([0, 3]), 3)),
            ("one_hot negative", lambda: F.one_hot(torch.tensor([-1]), 3)),
            ("one_hot float", lambda: F.one_hot(torch.tensor([1.0]), 3)),
            ("one_hot int32", lambda: F.one_hot(torch.tensor([1], dtype=i32), 3)),
            ("one_hot empty", lambda: F.one_hot(torch.tensor([], dtype=i64))),
            ("one_hot inferred", lambda: F.one_hot(torch.tensor([0, 2]))),
            ("SGD of a non-leaf", lambda: torch.optim.SGD([a * 2], lr=0.1)),
            ("SGD of a tensor", lambda: torch.optim.SGD(a, lr=0.1)),
            ("SGD of a number", lambda: torch.optim.SGD([1.0], lr=0.1)),
            ("mean of ints", lambda: torch.ones(2, dtype=i64).mean()),
            ("mean of bools", lambda: torch.ones(2, dtype=torch.bool).mean()),
            *[(f"matmul {x} {y} {k}", lambda x=x, y=y, fn=fn: fn(x, y))
              for x, y in ((torch.float32, f64), (i64, torch.float32))
              for k, fn in (
                  ("mm", lambda x, y: torch.mm(torch.ones(2, 2, dtype=x),
                                               torch.ones(2, 2, dtype=y))),
                  ("mv", lambda x, y: torch.mv(torch.ones(2, 2, dtype=x),
                                               torch.ones(2, dtype=y))),
                  ("bmm", lambda x, y: torch.bmm(torch.ones(1, 2, 2, dtype=x),
                                                 torch.ones(1, 2, 2, dtype=y))),
                  ("1d @ 2d", lambda x, y: torch.ones(2, dtype=x) @ torch.ones(2, 2, dtype=y)),
                  ("3d @ 2d", lambda x, y: torch.ones(2, 2, 2, dtype=x)
                   @ torch.ones(2, 2, dtype=y)),
                  ("linear", lambda x, y: F.linear(torch.ones(2, 2, dtype=x),
                                                   torch.ones(2, 2, dtype=y))))],
        ]:
            rec.attempt(label, fn)

    differential(snippet)


@pytest.mark.torch
def test_module_and_optimizer_argument_errors() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
        for label, fn in [
            ("linear of a 0-d input", lambda: nn.Linear(3, 2)(torch.tensor(1.0))),
            ("Sequential index out of range", lambda: model[3]),
            ("Sequential negative index out of range", lambda: model[-4]),
            ("Sequential negative index", lambda: repr(model[-1])),
            ("ModuleList index out of range", lambda: nn.ModuleList([nn.Tanh()])[1]),
            ("ReLU in place on a leaf", lambda: nn.ReLU(inplace=True)(
                torch.ones(2, requires_grad=True))),
            ("ReLU in place", lambda: [repr(nn.ReLU(inplace=True)), nn.ReLU(inplace=True)(
                torch.tensor([-1.0, 2.0]) * 1)]),
            ("Dropout p", lambda: nn.Dropout(p=1.5)),
            ("Parameter of ints", lambda: nn.Parameter(torch.ones(2, dtype=torch.int64))),
            ("load_state_dict missing", lambda: nn.Linear(2, 2).load_state_dict({})),
            ("load_state_dict unexpected and missing", lambda: nn.Linear(2, 2).load_state_dict(
                {"weight": torch.ones(2, 2), "extra": torch.ones(1)})),
            ("load_state_dict size", lambda: nn.Linear(2, 2).load_state_dict(
                {"weight": torch.ones(3, 2), "bias": torch.ones(2)})),
            ("load_state_dict not strict", lambda: repr(nn.Linear(2, 2).load_state_dict(
                {"weight": torch.ones(2, 2)}, strict=False))),
            ("load_state_dict all", lambda: repr(model.load_state_dict(model.state_dict()))),
            ("SGD duplicate parameters", lambda: len(torch.optim.SGD(
                [model[0].weight, model[0].weight], lr=0.1).param_groups)),
        ]:
            rec.attempt(label, fn)

    differential(snippet)


@pytest.mark.torch
def test_autograd_argument_errors_and_numpy_under_no_grad() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.ones(2, requires_grad=True)
        b = a * 2
        for label, fn in [
            ("grad of a number", lambda: torch.autograd.grad(a.sum(), [1])),
            ("grad of a string", lambda: torch.autograd.grad((a * 3).sum(), [a, "x"])),
            ("backward inputs a number", lambda: torch.autograd.backward((a * 3).sum(),
                                                                         inputs=[3])),
            ("hook returns a number", lambda: (lambda c: (c.register_hook(lambda g: 3),
                                                          c.sum().backward()))(a * 4)),
            ("leaf hook returns a number", lambda: (lambda c: (
                c.register_hook(lambda g: 3), (c * 2).sum().backward()))(
                    torch.ones(2, requires_grad=True))),
            ("numpy of a leaf", lambda: a.numpy()),
        ]:
            rec.attempt(label, fn)
        with torch.no_grad():
            rec.attempt("numpy of a leaf under no_grad", lambda: a.numpy().tolist())
            rec.attempt("numpy of a non-leaf under no_grad", lambda: b.numpy().tolist())

    differential(snippet)


@pytest.mark.torch
def test_indexing_argument_errors_and_results() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.arange(12.0).reshape(3, 4)
        w = torch.arange(12.0, requires_grad=True).reshape(3, 4)

        def assigned(key: Any, value: Any) -> Any:
            b = a.clone()
            b[key] = value
            return b

        for label, fn in [
            ("a float index", lambda: a[1.0]),
            ("a float in a tuple", lambda: a[0, 1.0]),
            ("a 0-d float tensor", lambda: a[torch.tensor(1.0)]),
            ("a float tensor", lambda: a[torch.tensor([1.0])]),
            ("a 0-d int tensor", lambda: a[torch.tensor(1)]),
            ("index tensors that do not broadcast",
             lambda: a[torch.tensor([0, 1, 2]), torch.tensor([1, 3])]),
            ("a mask and an index that do not broadcast",
             lambda: a[torch.tensor([True, False, True]), torch.tensor([0, 1, 2])]),
            ("index tensors that broadcast", lambda: a[torch.tensor([[0], [1]]),
                                                      torch.tensor([1, 3])]),
            ("assign a row of the wrong length", lambda: assigned(0, torch.tensor([1.0, 2.0]))),
            ("assign rows of the wrong shape",
             lambda: assigned(slice(0, 2), torch.ones(3, 4))),
            ("assign a column", lambda: assigned((slice(None), 0), torch.ones(4))),
            ("assign a broadcast row", lambda: assigned(slice(0, 2), torch.ones(4))),
            ("copy_ of the wrong shape", lambda: torch.zeros(2, 4).copy_(torch.ones(3, 4))),
            ("index_select past the end of dim 0",
             lambda: a.index_select(0, torch.tensor([3]))),
            ("index_select negative", lambda: a.index_select(0, torch.tensor([-1]))),
            ("index_select past the end of dim 1",
             lambda: a.index_select(1, torch.tensor([5]))),
            ("gather with a smaller index", lambda: a.gather(1, torch.tensor([[0]]))),
            ("gather with an int32 index",
             lambda: a.gather(1, torch.tensor([[0, 2], [1, 1]], dtype=torch.int32))),
            ("gather gradient", lambda: torch.autograd.grad(
                w.gather(1, torch.tensor([[3], [0]])).sum(), w)),
            ("nonzero", lambda: (a > 9).nonzero()),
            ("argwhere", lambda: torch.argwhere(a > 9)),
        ]:
            rec.attempt(label, fn)

    differential(snippet)


@pytest.mark.torch
def test_reduction_and_loss_argument_errors_and_results() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        a = torch.arange(12.0, requires_grad=True).reshape(3, 4)
        labels = torch.tensor([0, 1, 2])
        for label, fn in [
            *[(f"{name} over no dims", lambda name=name: getattr(a, name)(()))
              for name in ("sum", "mean", "amax", "var", "std")],
            ("norm over no dims", lambda: a.norm(dim=())),
            ("max by dim", lambda: repr(a.max(1))),
            ("min by dim, kept", lambda: str(a.min(dim=0, keepdim=True))),
            ("max fields", lambda: [a.max(1).values, a.max(1)[1]]),
            ("min over an empty dim", lambda: torch.zeros(0, 3).min(0)),
            ("max over an empty dim", lambda: torch.zeros(3, 0).max(1)),
            ("var of ints", lambda: torch.tensor([1, 2]).var()),
            ("std of ints", lambda: torch.tensor([1, 2]).std()),
            ("logsumexp without dim", lambda: a.logsumexp()),
            ("mse of ints", lambda: F.mse_loss(torch.tensor([1, 2]), torch.tensor([1, 3]))),
            ("label smoothing 2", lambda: F.cross_entropy(a, labels, label_smoothing=2.0)),
            ("label smoothing 1.25", lambda: F.cross_entropy(a, labels, label_smoothing=1.25)),
            ("class weights of the wrong size",
             lambda: F.cross_entropy(a, labels, weight=torch.ones(3))),
            ("class weights", lambda: F.cross_entropy(a, labels, weight=torch.ones(4))),
            ("bce weight of the wrong size", lambda: F.binary_cross_entropy(
                torch.ones(2) * 0.5, torch.ones(2), weight=torch.ones(3))),
            ("bce with logits pos_weight of the wrong size",
             lambda: F.binary_cross_entropy_with_logits(torch.ones(2), torch.ones(2),
                                                       pos_weight=torch.ones(3))),
            ("smooth_l1 negative beta", lambda: F.smooth_l1_loss(a, a, beta=-1.0)),
            ("gelu approximate", lambda: F.gelu(torch.tensor([1.0]), approximate="foo")),
        ]:
            rec.attempt(label, fn)

    differential(snippet)


@pytest.mark.torch
def test_custom_function_mistakes() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch

        class Twice(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g, g

        class Saves(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.save_for_backward(x, 3)
                return x * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g

        x = torch.ones(3, requires_grad=True)
        rec.attempt("too many gradients", lambda: Twice.apply(x).sum().backward())
        rec.attempt("a number saved", lambda: Saves.apply(x))
        made: list[Any] = []
        rec.attempt("an instance", lambda: made.append(Twice()))
        rec.attempt("an instance called", lambda: made[0](x) if made else None)

    differential(snippet)


@pytest.mark.torch
def test_inference_tensors_refuse_in_place_updates_and_grad_outside_inference_mode() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        with torch.inference_mode():
            b = torch.ones(2) * 2
        for label, fn in [
            ("add_", lambda: b.add_(1)),
            ("zero_", lambda: b.zero_()),
            ("item assignment", lambda: b.__setitem__(0, 1.0)),
            ("copy_", lambda: b.copy_(torch.ones(2))),
            ("a view's add_", lambda: b.view(2).add_(1)),
            ("requires_grad_", lambda: b.requires_grad_()),
            ("requires_grad = True", lambda: setattr(b, "requires_grad", True)),
            ("requires_grad_(False)", lambda: b.requires_grad_(False)),
            ("a result's add_", lambda: (b * 2).add_(1)),
        ]:
            rec.attempt(label, fn)
        with torch.inference_mode():
            rec.attempt("add_ inside inference mode", lambda: b.add_(1))

    differential(snippet)


@pytest.mark.torch
def test_integer_bitwise_and_remainder_operators() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        f = torch.tensor([-1.5, 2.0, 3.5])
        a = torch.tensor([-3, 4, 7])
        b = torch.tensor([True, False, True])
        for label, fn in [
            ("float % int", lambda: f % 2), ("int % int", lambda: a % 3),
            ("int % negative", lambda: a % -3), ("number % tensor", lambda: 7 % a),
            ("number // tensor", lambda: 7 // a), ("float // int", lambda: f // 2),
            ("int // 0", lambda: a // 0), ("int % 0", lambda: a % 0),
            ("number % a zero", lambda: 7 % torch.tensor([0])),
            ("int // 0.0", lambda: a // 0.0), ("float // 0", lambda: f // 0),
            ("~ bool", lambda: ~b), ("~ int", lambda: ~a), ("~ float", lambda: ~f),
            ("bool & bool", lambda: b & torch.tensor([True, True, False])),
            ("int | number", lambda: a | 1), ("bool | number", lambda: b | 2),
            ("number & int", lambda: 1 & a), ("bool ^ bool", lambda: b ^ b),
            ("float & float", lambda: f & f), ("float | float", lambda: f | f),
            ("int << 1", lambda: a << 1), ("int >> 1", lambda: a >> 1),
            ("1 << int", lambda: 1 << a.abs()), ("float << 1", lambda: f << 1),
            ("== text", lambda: a == "x"), ("!= text", lambda: a != "x"),
            ("< text", lambda: a < "x"),
            ("format a 0-d tensor", lambda: f"{torch.tensor(1.5):.2f}"),
            ("format a vector", lambda: f"{f}"),
            ("format a vector with a spec", lambda: f"{f:.2f}"),
            ("isclose", lambda: torch.isclose(f, f + 1e-9)),
            ("remainder", lambda: torch.remainder(a, 3)),
            ("bitwise_and", lambda: a.bitwise_and(6)),
        ]:
            rec.attempt(label, fn)

    differential(snippet)


@pytest.mark.torch
def test_gradients_at_edge_points_print_as_pytorch_s() -> None:
    """Gradients at kinks and zeros, compared as printed (so -0. and 0. differ)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        data = [[0.5, -1.0, 0.0], [2.0, -0.25, 1.0]]
        for label, fn in [
            ("norm of zeros", lambda x: (x * 0).norm()),
            ("norm by dim with a zero row", lambda x: torch.stack([x[0], x[1] * 0]).norm(dim=1)),
            ("abs at zero", lambda x: x.abs()), ("relu at zero", lambda x: x.relu()),
            ("clamp at its edges", lambda x: x.clamp(-0.25, 0.5)),
            ("max with ties", lambda x: (x * 0).amax(1)),
            ("prod with a zero", lambda x: x.prod(1)),
            ("sqrt of zeros", lambda x: (x * 0).sqrt()),
            ("smooth_l1", lambda x: F.smooth_l1_loss(x, torch.zeros(2, 3), beta=0.5)),
            ("hardtanh", lambda x: F.hardtanh(x * 2)),
            ("leaky_relu", lambda x: F.leaky_relu(x, 0.1)),
        ]:
            x = torch.tensor(data, requires_grad=True)

            def grad(fn: Any = fn, x: Any = x) -> str:
                fn(x).sum().backward()
                return repr(x.grad)
            rec.attempt(label, grad)

    differential(snippet)


@pytest.mark.torch
def test_module_order_reprs_slices_and_buffers() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(),
                          nn.Sequential(nn.Linear(3, 3, bias=False), nn.Tanh()),
                          nn.Dropout(0.2), nn.Linear(3, 1))

        class WithBuffers(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.register_buffer("running", torch.zeros(2))
                self.register_buffer("scratch", torch.zeros(1), persistent=False)
                self.lin = nn.Linear(2, 2)

        for label, fn in [
            ("repr", lambda: repr(m)),
            ("named_modules", lambda: [n for n, _ in m.named_modules()]),
            ("named_parameters", lambda: [n for n, _ in m.named_parameters()]),
            ("state_dict keys", lambda: list(m.state_dict())),
            ("reprs", lambda: [repr(x) for x in (
                nn.LeakyReLU(0.2), nn.Softmax(dim=1), nn.LogSoftmax(dim=0), nn.Flatten(0),
                nn.Dropout(0.1, inplace=True), nn.GELU(), nn.ReLU(True), nn.Tanh())]),
            ("a Sequential slice", lambda: [repr(m[1:3]), [n for n, _ in m[1:3].named_children()]]),
            ("a ModuleList slice", lambda: repr(nn.ModuleList([nn.Tanh(), nn.ReLU()])[1:])),
            ("containers changed in place", lambda: _changed_in_place(nn)),
            ("buffers in state_dict", lambda: list(WithBuffers().state_dict())),
            ("named_buffers", lambda: [n for n, _ in WithBuffers().named_buffers()]),
        ]:
            rec.attempt(label, fn)

    differential(snippet)


@pytest.mark.torch
def test_nonscalar_backward_errors() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        rec.attempt("implicit grad", lambda: y.backward())
        rec.attempt("autograd.grad implicit", lambda: torch.autograd.grad(y, x))
        rec.attempt("wrong shape", lambda: y.backward(torch.ones(2)))
        rec.attempt("wrong shape autograd.grad", lambda: torch.autograd.grad(
            y, x, grad_outputs=torch.ones(1, 3)))
        rec.attempt("explicit", lambda: y.backward(torch.tensor([1.0, 0.5, 2.0])))
        rec.grad("explicit", x=x)
        rec.attempt("shape (1,)", lambda: (x.sum() * 1).view(1).backward())
        rec.attempt("shape (1, 1)", lambda: (x.sum() * 1).view(1, 1).backward())
        rec.grad("end", x=x)
        p = torch.ones(2)
        rec.attempt("does not require grad", lambda: p.sum().backward())
        rec.attempt("list backward, element 1", lambda: torch.autograd.backward(
            [x.sum(), p.sum()]))

    differential(snippet)


@pytest.mark.torch
def test_inplace_on_leaf_and_view_of_leaf_errors() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

        def isub() -> None:
            b = a
            b -= 1

        def imul() -> None:
            b = a
            b *= 2

        def setitem() -> None:
            a[0] = 5.0

        def setitem_slice() -> None:
            a[1:] = torch.zeros(2)

        for label, fn in [("add_", lambda: a.add_(1)), ("-=", isub), ("*=", imul),
                          ("zero_", lambda: a.zero_()), ("exp_", lambda: a.exp_()),
                          ("copy_", lambda: a.copy_(torch.ones(3))),
                          ("fill_", lambda: a.fill_(0.0)),
                          ("clamp_", lambda: a.clamp_(0.0, 1.0)),
                          ("a[0] =", setitem), ("a[1:] =", setitem_slice),
                          ("a[0].mul_", lambda: a[0].mul_(2)),
                          ("a.view(3).add_", lambda: a.view(3).add_(1)),
                          ("a[:2].t_ via transpose", lambda: a.unsqueeze(0).t().mul_(2))]:
            rec.attempt(label, fn)
        rec.note("version after refused ops", a._version)
        rec.attempt("a.data.add_", lambda: a.data.add_(1))
        rec.attempt("a.detach().mul_", lambda: a.detach().mul_(2))
        rec.note("a and its version", [a, a._version])

        def under_no_grad() -> None:
            with torch.no_grad():
                a.add_(1)
                a[0] = 0.0

        rec.attempt("under no_grad", under_no_grad)
        rec.note("a after no_grad", [a, a._version, a.requires_grad, a.is_leaf])

    differential(snippet)


@pytest.mark.torch
def test_integer_requires_grad_errors() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        rec.attempt("tensor(int, requires_grad)", lambda: torch.tensor([1, 2],
                                                                     requires_grad=True))
        rec.attempt("ones(int64, requires_grad)", lambda: torch.ones(2, dtype=torch.int64,
                                                                     requires_grad=True))
        rec.attempt("arange().requires_grad_()", lambda: torch.arange(3).requires_grad_())
        rec.attempt("bool requires_grad_", lambda: torch.tensor([True]).requires_grad_())

        def setter() -> None:
            t = torch.tensor([1, 2])
            t.requires_grad = True

        rec.attempt("int .requires_grad = True", setter)
        rec.attempt("int requires_grad_(False)", lambda: torch.tensor([1]).requires_grad_(False)
                    .requires_grad)
        rec.attempt("float to long keeps no grad", lambda: torch.tensor(
            [1.5], requires_grad=True).long().requires_grad)
        rec.attempt("float64 ok", lambda: torch.tensor([1.0], dtype=torch.float64,
                                                       requires_grad=True).requires_grad)

    differential(snippet)


@pytest.mark.torch
def test_requires_grad_on_a_non_leaf() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        rec.attempt("requires_grad_() returns self", lambda: y.requires_grad_() is y)
        rec.attempt("requires_grad_(True)", lambda: y.requires_grad_(True).requires_grad)
        rec.attempt("requires_grad_(False)", lambda: y.requires_grad_(False))

        def set_false() -> None:
            y.requires_grad = False

        def set_true() -> None:
            y.requires_grad = True

        rec.attempt("requires_grad = False", set_false)
        rec.attempt("requires_grad = True", set_true)
        rec.note("y still in the graph", [y.requires_grad, y.is_leaf, y.grad_fn])
        d = y.detach()
        rec.attempt("detached requires_grad_()", lambda: d.requires_grad_().is_leaf)
        rec.attempt("leaf requires_grad_(False)", lambda: x.requires_grad_(False).requires_grad)
        rec.note("y after the leaf stopped requiring grad", [y.requires_grad, y.grad_fn])

    differential(snippet)


@pytest.mark.torch
def test_grad_modes() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        rec.note("default", torch.is_grad_enabled())
        with torch.no_grad():
            rec.note("no_grad", torch.is_grad_enabled())
            y = x * 2
            with torch.enable_grad():
                rec.note("enable_grad inside no_grad", torch.is_grad_enabled())
                z = x * 2
            w = x.clone()
        rec.note("results", [[t.requires_grad, t.grad_fn, t.is_leaf] for t in (y, z, w)])
        with torch.set_grad_enabled(False):
            rec.note("set_grad_enabled(False)", torch.is_grad_enabled())
            u = x + 1
        rec.note("u", [u.requires_grad, u.grad_fn])
        with torch.set_grad_enabled(True):
            v = x + 1
        rec.note("v", [v.requires_grad, v.grad_fn])
        torch.set_grad_enabled(False)
        rec.note("set_grad_enabled(False) as a call", torch.is_grad_enabled())
        rec.note("op under the call", (x * 3).requires_grad)
        torch.set_grad_enabled(True)
        rec.note("restored", torch.is_grad_enabled())

        @torch.no_grad()
        def f(t: Any) -> Any:
            rec.note("inside @no_grad()", torch.is_grad_enabled())
            return t * 2

        @torch.enable_grad()
        def g(t: Any) -> Any:
            return t * 2

        rec.note("decorated", [f(x).requires_grad, g(x).requires_grad])
        with torch.no_grad():
            rec.note("@enable_grad() under no_grad", g(x).requires_grad)

        def raises() -> None:
            with torch.no_grad():
                raise ValueError("inside")

        rec.attempt("exception inside no_grad", raises)
        rec.note("after exception", torch.is_grad_enabled())
        with torch.inference_mode():
            rec.note("inference_mode", [torch.is_grad_enabled(), (x * 2).requires_grad])
        rec.note("after inference_mode", torch.is_grad_enabled())

    differential(snippet)


# -- the order nodes run in ------------------------------------------------------------------------
def _order_diamond(torch: Any) -> tuple[list[Any], list[Any]]:
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([0.5, -1.0], requires_grad=True)
    c = a * b
    d = c.exp()
    e = c.sin()
    return [(d + e * a).sum()], [a, b]


def _order_mlp_shared_weight(torch: Any) -> tuple[list[Any], list[Any]]:
    x = torch.tensor([[1.0, 2.0], [0.5, -1.0]])
    W = torch.tensor([[0.1, -0.2], [0.3, 0.4]], requires_grad=True)
    bias = torch.tensor([0.1, 0.2], requires_grad=True)
    h = (x @ W + bias).tanh()
    out = (h @ W.t()).sum() + (W * W).sum() + bias.sum()
    return [out], [W, bias]


def _order_late_branch(torch: Any) -> tuple[list[Any], list[Any]]:
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    p = a * 2                      # created first: a lower sequence number
    deep = p.exp().sin().cos()
    q = b * 3                      # created last
    return [(q + deep + p).sum()], [a, b]


def _order_multi_output(torch: Any) -> tuple[list[Any], list[Any]]:
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    u = (a * 2).unbind(0)
    s1, s2 = a.split([1, 2], dim=0)
    return [(u[0] * u[1] + u[2].exp()).sum() + s2.sum() * s1.sum()], [a]


def _order_two_roots(torch: Any) -> tuple[list[Any], list[Any]]:
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    shared = a * b
    l1 = shared.exp().sum()
    l2 = (shared * a).sum() + b.sum()
    return [l1, l2], [a, b]


def _order_linear_mse(torch: Any) -> tuple[list[Any], list[Any]]:
    lin = torch.nn.Linear(3, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.1, 0.0, 0.5]]))
        lin.bias.copy_(torch.tensor([0.1, -0.1]))
    x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, -1.0]])
    h = torch.relu(lin(x))
    loss = torch.nn.functional.mse_loss(lin(x) + h, torch.zeros(2, 2))
    return [loss], [lin.weight, lin.bias]


ORDERS: dict[str, Callable[[Any], tuple[list[Any], list[Any]]]] = {
    "diamond": _order_diamond, "mlp_shared_weight": _order_mlp_shared_weight,
    "late_branch": _order_late_branch, "multi_output": _order_multi_output,
    "two_roots": _order_two_roots, "linear_mse": _order_linear_mse,
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(ORDERS))
def test_execution_order(name: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        roots, leaves = ORDERS[name](torch)
        log: list[str] = []
        _hook_all(log, *roots)
        rec.attempt("backward", lambda: torch.autograd.backward(roots, retain_graph=True))
        rec.note("order", log[:])
        rec.note("grads", [t.grad for t in leaves])
        log.clear()
        rec.attempt("autograd.grad wrt the first leaf", lambda: torch.autograd.grad(
            roots, leaves[:1]))
        rec.note("order of autograd.grad", log[:])

    record = differential(snippet)
    assert len(outcome(record, "order")) >= 4


# -- events ----------------------------------------------------------------------------------------
def _event_log() -> tuple[list[tuple[Any, ...]], Callable[..., None]]:
    log: list[tuple[Any, ...]] = []

    def listener(name: str, *args: Any) -> None:
        log.append((name, *args))

    return log, listener


def _tracer() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], Callable[..., None]]:
    """A listener that also asks for the trace of each backward: (events, trace, listener)."""
    log, listener = _event_log()
    trace: list[tuple[Any, ...]] = []

    def tracer(name: str, *args: Any) -> None:
        listener(name, *args)
        if name == "backward_started":
            events.trace = trace
        elif name in ("backward_finished", "backward_failed"):
            events.trace = None

    return log, trace, tracer


def _ran(trace: list[tuple[Any, ...]]) -> list[str]:
    return [e[2] for e in trace if e[0] == events.RAN]


def _kinds(trace: list[tuple[Any, ...]]) -> list[int]:
    return [e[0] for e in trace]


def test_events_and_trace_of_a_small_backward() -> None:
    x = ours.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    mul = y.grad_fn.next_functions[0][0]
    log, trace, tracer = _tracer()
    events.subscribe(tracer)
    try:
        y.backward()
    finally:
        events.unsubscribe(tracer)
        events.trace = None
    names = [e[0] for e in log]
    assert names == ["backward_started", "backward_finished"]
    assert _ran(trace) == ["SumBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"]
    assert [e[3] for e in trace if e[0] == events.RAN] == [(), (2,), (2,)]
    released = [e for e in trace if e[0] == events.RELEASED]
    assert sorted(e[2] for e in released) == ["other", "self"]
    assert all(e[1] == mul._uid and e[3] == 8 for e in released)
    kinds = [(e[0], e[2]) for e in trace]
    assert kinds.index((events.RAN, "MulBackward0")) < kinds.index((events.RELEASED, "self")) \
        < kinds.index((events.RAN, "torch::autograd::AccumulateGrad")), \
        "a buffer is released only after its node ran, before the next node"
    acc = [e for e in trace if e[0] == events.ACCUMULATED]
    assert acc == [(events.ACCUMULATED, x._uid, (2,))]
    assert trace[-1] == acc[0], "the accumulation follows its node's step"
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])
    info = log[0][1]
    assert info.api == "backward" and info.retain_graph is False
    assert len(info.roots) == 1 and info.roots[0] is y


def test_no_trace_is_kept_without_a_listener() -> None:
    x = ours.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    assert events.trace is None


def test_events_of_a_retained_and_a_grad_call() -> None:
    x = ours.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    log, trace, tracer = _tracer()
    events.subscribe(tracer)
    try:
        y.backward(retain_graph=True)
        retained = _kinds(trace)
        log.clear()
        trace.clear()
        ours.autograd.grad(y, x)
    finally:
        events.unsubscribe(tracer)
        events.trace = None
    assert events.RELEASED not in retained
    assert retained.count(events.ACCUMULATED) == 1
    names = [e[0] for e in log]
    assert names[0] == "backward_started" and log[0][1].api == "grad"
    assert events.ACCUMULATED not in _kinds(trace), "autograd.grad must not touch .grad"
    assert _kinds(trace).count(events.RELEASED) == 2
    assert names[-1] == "backward_finished"


def test_events_of_a_failing_backward() -> None:
    x = ours.tensor([1.0, 2.0], requires_grad=True)
    q = x.exp()
    s = (q * 2).sum()
    exp_node = q.grad_fn
    q.add_(1)
    log, trace, tracer = _tracer()
    events.subscribe(tracer)
    try:
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
            s.backward()
    finally:
        events.unsubscribe(tracer)
        events.trace = None
    names = [e[0] for e in log]
    assert names[0] == "backward_started"
    assert names[-1] == "backward_failed"
    assert "backward_finished" not in names
    failed = log[-1]
    assert failed[2] is exp_node
    assert failed[3] is info.value
    assert _ran(trace) == ["SumBackward0", "MulBackward0"]


def test_events_of_a_backward_twice() -> None:
    x = ours.tensor([1.0, 2.0], requires_grad=True)
    s = (x * x).sum()
    s.backward()
    log, trace, tracer = _tracer()
    events.subscribe(tracer)
    try:
        with pytest.raises(RuntimeError) as info:
            s.backward()
    finally:
        events.unsubscribe(tracer)
        events.trace = None
    assert str(info.value) == BACKWARD_TWICE
    names = [e[0] for e in log]
    assert names[0] == "backward_started" and names[-1] == "backward_failed"
    assert log[-1][2] is s.grad_fn.next_functions[0][0]
    assert _ran(trace) == ["SumBackward0"], "it stops at the node whose buffers are freed"
    assert events.ACCUMULATED not in _kinds(trace)


def test_no_listener_no_emit(monkeypatch: pytest.MonkeyPatch) -> None:
    assert events.listeners == [], "a listener leaked from another test"

    def forbidden(*args: Any) -> None:
        raise AssertionError(f"emit called with no listener: {args[0]}")

    monkeypatch.setattr(events, "emit", forbidden)
    x = ours.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.mul_(3)
    v = y[:1]
    v.add_(1)
    loss = (y.exp() * x).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    (g,) = ours.autograd.grad((x * x).sum(), x, create_graph=True)
    g.sum().backward()
    assert x.grad is not None
    with pytest.raises(RuntimeError):
        loss.backward()


def test_an_edit_is_an_event_only_while_a_node_holds_the_tensor() -> None:
    """``tensor_modified`` is for edits a saved tensor can see: ``saves`` counts the saved
    tensors on a version counter that are not released."""
    w = ours.tensor([1.0, 2.0], requires_grad=True)
    x = ours.tensor([3.0, 4.0])
    log, listener = _event_log()
    events.subscribe(listener)
    try:
        y = (w * x).sum()             # MulBackward0 saves x (for w's gradient), not w
        assert x._vc.saves == 1 and w._vc.saves == 0
        with ours.no_grad():
            w.add_(1)                 # no node holds w: no event
        y.backward()                  # releases x
        assert x._vc.saves == 0
        x.add_(1)                     # no event
        view = x[:1]
        y2 = (w * view).sum()         # a saved view counts on its base's counter
        assert x._vc.saves == 1
        x.add_(1)                     # the event
        y3 = (w * x).sum()
        y3.backward(retain_graph=True)
        assert x._vc.saves == 2, "retain_graph keeps the saved tensors"
        y3.grad_fn.next_functions[0][0].release_variables()
        y3.grad_fn.next_functions[0][0].release_variables()
        assert x._vc.saves == 1, "a second release changes nothing"
        del y2
    finally:
        events.unsubscribe(listener)
    edits = [e[1] for e in log if e[0] == "tensor_modified"]
    assert len(edits) == 1 and edits[0] is x


@pytest.mark.torch
@pytest.mark.parametrize("expr", ["b.clamp(min=a)", "b.clamp(max=a)", "b.clamp(a, a + 1)",
                                  "b.clamp(min=torch.tensor(0.5, dtype=torch.float64))",
                                  "a.clamp(min=b)", "torch.clamp(b, min=a[0])"])
def test_clamp_by_a_tensor_promotes_as_pytorch(expr: str) -> None:
    """A float32 tensor clamped by a float64 tensor is float64 (a 0-d bound does not promote),
    with no copy node; its gradient stays float32."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        b = torch.tensor([[1.12, -0.06], [1.53, -1.12]], requires_grad=True)
        a = torch.tensor([[1.83, -0.35], [1.28, 0.37]], dtype=torch.float64, requires_grad=True)
        out = eval(expr, {"torch": torch, "a": a, "b": b})
        rec.note("dtype", out.dtype)
        rec.graph("graph", out=out, a=a, b=b)
        rec.attempt("backward", lambda: out.sum().backward())
        rec.grad("after", a=a, b=b)
        rec.note("grad dtype", b.grad.dtype)

    differential(snippet)


OPERATOR_MISUSES = ["t + (1, 2)", "(1, 2) + t", "t * [1.0, 2.0]", "[1.0] * t", "t - 'a'",
                    "'a' - t", "t / None", "t ** 'a'", "'a' ** t", "t @ (1, 2)", "t // [1]",
                    "t % 'x'", "i & None", "None | i", "i << 'a'", "t == (1, 2)",
                    "t != 'a'", "t < 'a'", "t >= None", "i * [1, 2]", "one * [1, 2]",
                    "t + np.float64(1.5)"]


@pytest.mark.parametrize("code", OPERATOR_MISUSES)
def test_an_operator_with_an_operand_it_does_not_take_as_pytorch(code: str) -> None:
    """PyTorch's operators give Python NotImplemented for such an operand: Python's own
    words, or the other side's operator (a list repeated by a one-element integer tensor)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        env = {"np": np, "torch": torch, "t": torch.ones(2), "i": torch.ones(2, dtype=torch.int64),
               "one": torch.ones(1, dtype=torch.int64)}
        rec.attempt(code, lambda: eval(code, env))
    differential(snippet)


def _changed_in_place(nn: Any) -> list[Any]:
    """A ``Sequential`` and a ``ModuleList`` changed by index (set, deleted, inserted, popped,
    extended), with PyTorch's renumbering and errors: what each step leaves."""
    out: list[Any] = []
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 4))
    s[2] = nn.Linear(3, 5)
    out.append([n for n, _ in s.named_parameters()])
    s[-1] = nn.Tanh()
    del s[0]
    s.insert(1, nn.Linear(1, 1))
    out += [repr(s), repr(s.pop(0)), repr(s.extend([nn.ReLU()]))]
    del s[0:2]
    out.append(repr(s))
    m = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    m[0] = nn.Sigmoid()
    del m[-1]
    m.insert(0, nn.ReLU())
    m.extend([nn.ReLU()])
    out += [repr(m), repr(m.pop(1)), repr(m)]
    for bad in (lambda: s.__setitem__(5, nn.ReLU()), lambda: s.insert(9, nn.ReLU()),
                lambda: m.__delitem__(7)):
        try:
            bad()
        except IndexError as e:
            out.append(str(e))
    return out
