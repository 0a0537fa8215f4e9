"""``torch.autograd.graph``'s edges and multi-tensor hooks, each checked against real PyTorch 2.13
on the same snippet: ``GradientEdge`` / ``get_gradient_edge`` as ``backward`` / ``grad`` outputs
and inputs, ``register_multi_grad_hook``, the running backward's id and which nodes it runs,
``increment_version``, a dict of ``inputs``."""

from __future__ import annotations

from typing import Any

import pytest

import graphviz_autograd.torch as ours
from graphviz_autograd.engine import executor

from ._support import Recorder, differential, outcome

pytestmark = pytest.mark.torch


def _task_id(rec: Recorder) -> Any:
    """The running backward's id: ``torch._C._current_graph_task_id`` or the engine's."""
    return rec.torch._C._current_graph_task_id if rec.is_real else executor.current_graph_task_id


def _will_run(rec: Recorder) -> Any:
    return (rec.torch._C._will_engine_execute_node if rec.is_real
            else executor.will_engine_execute_node)


def _prehooks(log: list[str], *nodes: Any) -> None:
    for node in nodes:
        name = node.name()
        node.register_prehook(lambda gs, name=name: log.append(name))


# -- GradientEdge and get_gradient_edge ----------------------------------------------------------
def test_get_gradient_edge_of_non_leaf_leaf_and_multi_output() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        graph = torch.autograd.graph
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a.exp()
        e = graph.get_gradient_edge(b)
        rec.note("edge", e)
        rec.note("fields", [graph.GradientEdge._fields, isinstance(e, tuple), e.node is b.grad_fn,
                            e.output_nr, e.ownership_token])
        ea = graph.get_gradient_edge(a)
        rec.note("leaf edge", [ea.node.name(), ea.output_nr,
                               ea.node is b.grad_fn.next_functions[0][0]])
        parts = a.split([1, 2])
        rec.note("second output", graph.get_gradient_edge(parts[1]))
        rec.attempt("no grad", lambda: graph.get_gradient_edge(torch.ones(2)))
        with torch.no_grad():
            c = a * 2
        rec.attempt("made under no_grad", lambda: graph.get_gradient_edge(c))
        made = graph.GradientEdge(b.grad_fn, 0)
        rec.note("made by hand", [made == e, made.ownership_token])

    differential(snippet)


def test_gradient_edge_of_a_custom_function_output_has_a_token() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch

        class Twice(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any) -> Any:
                return t * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 2

        a = torch.tensor([1.0, 2.0], requires_grad=True)
        y = Twice.apply(a)
        e = torch.autograd.graph.get_gradient_edge(y)
        rec.note("edge", [e.node is y.grad_fn, e.ownership_token])
        rec.attempt("grad through it", lambda: torch.autograd.grad((y * y).sum(), e))

    differential(snippet)


# -- autograd.grad with edges --------------------------------------------------------------------
def test_grad_with_edge_inputs() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        graph = torch.autograd.graph
        a = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
        b = a.exp()
        c = (b * b).sum()
        e, ea = graph.get_gradient_edge(b), graph.get_gradient_edge(a)
        rec.attempt("one edge", lambda: torch.autograd.grad(c, e, retain_graph=True))
        rec.attempt("edge and tensor", lambda: torch.autograd.grad(c, [e, a], retain_graph=True))
        rec.attempt("leaf edge", lambda: torch.autograd.grad(c, [ea], retain_graph=True))
        rec.attempt("same as tensor", lambda: torch.autograd.grad(c, b, retain_graph=True))
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        ey = graph.get_gradient_edge(x.sin())
        rec.attempt("unused edge", lambda: torch.autograd.grad(c, ey, retain_graph=True))
        rec.attempt("unused, allow_unused",
                    lambda: torch.autograd.grad(c, ey, retain_graph=True, allow_unused=True))
        rec.attempt("unused, materialize", lambda: torch.autograd.grad(
            c, [a, ey], retain_graph=True, materialize_grads=True))
        rec.attempt("a plain tuple", lambda: torch.autograd.grad(c, (b.grad_fn, 0),
                                                                 retain_graph=True))
        rec.attempt("an int", lambda: torch.autograd.grad(c, [1], retain_graph=True))
        # the node an edge names is not run by grad (only captured)
        log: list[str] = []
        _prehooks(log, b.grad_fn)
        rec.attempt("capture only", lambda: torch.autograd.grad(c, e, retain_graph=True))
        rec.note("ran", log)
        parts = a.unbind()
        s = parts[0] * 3 + parts[2] * 5
        rec.attempt("second and third outputs", lambda: torch.autograd.grad(
            s, [graph.get_gradient_edge(parts[2]), graph.get_gradient_edge(parts[1]),
                graph.get_gradient_edge(parts[0])], allow_unused=True))

    differential(snippet)


def test_grad_with_edge_outputs() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        graph = torch.autograd.graph
        a = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
        b = a.exp()
        s = b.sum()
        e, es = graph.get_gradient_edge(b), graph.get_gradient_edge(s)
        rec.attempt("with grad_outputs", lambda: torch.autograd.grad(
            e, a, grad_outputs=torch.tensor([1.0, 2.0, 3.0]), retain_graph=True))
        rec.attempt("implicit, not scalar", lambda: torch.autograd.grad(e, a, retain_graph=True))
        rec.attempt("implicit scalar", lambda: torch.autograd.grad(es, a, retain_graph=True))
        rec.attempt("shape mismatch", lambda: torch.autograd.grad(
            es, a, grad_outputs=torch.ones(2), retain_graph=True))
        rec.attempt("two edges", lambda: torch.autograd.grad(
            [es, e], [a], grad_outputs=[None, torch.ones(3)], retain_graph=True))
        rec.attempt("edge and tensor", lambda: torch.autograd.grad(
            [es, (b * 2).sum()], [a], retain_graph=True))
        rec.attempt("an edge both ways", lambda: torch.autograd.grad(
            es, e, retain_graph=True))
        c = (b * b).sum()
        rec.attempt("create_graph", lambda: torch.autograd.grad(c, graph.get_gradient_edge(b),
                                                                create_graph=True))
        g = torch.autograd.grad(c, graph.get_gradient_edge(a), create_graph=True)[0]
        rec.note("double backward", [g.grad_fn.name(), torch.autograd.grad(g.sum(), a)])

    differential(snippet)


def test_grad_with_a_dict_of_inputs_and_materialize() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, 4.0], requires_grad=True)
        y = (a * 2).sum()
        rec.attempt("dict", lambda: torch.autograd.grad(y, {"a": a, "b": b}, allow_unused=True,
                                                        retain_graph=True))
        rec.attempt("empty dict", lambda: torch.autograd.grad(y, {}, retain_graph=True))
        rec.attempt("materialize, allow_unused=False", lambda: torch.autograd.grad(
            y, b, materialize_grads=True, allow_unused=False, retain_graph=True))
        out = torch.autograd.grad(y, [a, b], materialize_grads=True, create_graph=True)
        rec.note("materialized", [[t, t.requires_grad] for t in out])
        z = (a * b).sum()
        rec.attempt("backward with a dict", lambda: z.backward(inputs={"b": b}))
        rec.grad("after", a=a, b=b)
        rec.attempt("backward with an empty dict", lambda: z.backward(inputs={}))

    differential(snippet)


def test_other_mappings_are_refused() -> None:
    from collections import OrderedDict

    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (a * 2).sum()
        rec.attempt("grad", lambda: torch.autograd.grad(y, OrderedDict(a=a)))
        rec.attempt("backward", lambda: y.backward(inputs=OrderedDict(a=a)))

    differential(snippet)


# -- backward with edges -------------------------------------------------------------------------
def test_backward_with_edge_inputs_and_roots() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        graph = torch.autograd.graph
        a = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
        b = a.exp()
        c = (b * 2).sum()
        log: list[str] = []
        _prehooks(log, b.grad_fn, c.grad_fn)
        e = graph.get_gradient_edge(b)
        # NB: the edge's node runs; no .grad is kept anywhere
        rec.attempt("inputs=[edge]", lambda: c.backward(inputs=[e], retain_graph=True))
        rec.note("ran", log)
        rec.grad("after inputs=[edge]", a=a, b=b)
        rec.attempt("autograd.backward(inputs=edge)",
                    lambda: torch.autograd.backward(c, inputs=e, retain_graph=True))
        rec.grad("after autograd.backward", a=a)
        rec.attempt("leaf edge", lambda: c.backward(inputs=[graph.get_gradient_edge(a)],
                                                    retain_graph=True))
        rec.grad("after leaf edge", a=a)
        rec.attempt("edge root", lambda: torch.autograd.backward(
            e, grad_tensors=torch.ones(3), retain_graph=True))
        rec.grad("after edge root", a=a)
        rec.attempt("edge root, implicit", lambda: torch.autograd.backward(e, retain_graph=True))
        rec.attempt("edge and tensor roots", lambda: torch.autograd.backward(
            [graph.get_gradient_edge(c), b], [None, torch.ones(3)]))
        rec.grad("after two roots", a=a)
        rec.attempt("freed", lambda: torch.autograd.backward(graph.get_gradient_edge(c)))

    differential(snippet)


# -- register_multi_grad_hook --------------------------------------------------------------------
def _shapes(grads: Any) -> list[Any]:
    return [None if g is None else g.tolist() for g in grads]


def test_multi_grad_hook_all() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, 4.0], requires_grad=True)
        c = a * b
        d = a * b
        calls: list[Any] = []
        h = torch.autograd.graph.register_multi_grad_hook((a, b, c, d),
                                                          lambda gs: calls.append(_shapes(gs)))
        rec.note("handle", [hasattr(h, "remove"), len(h.handles)])
        rec.attempt("backward", lambda: c.sum().backward(retain_graph=True))
        rec.attempt("inputs=(a,)", lambda: c.sum().backward(inputs=(a,), retain_graph=True))
        rec.attempt("both", lambda: (c.sum() + d.sum() * 2).backward(retain_graph=True))
        rec.attempt("grad wrt c", lambda: torch.autograd.grad(c.sum(), (c,), retain_graph=True))
        rec.attempt("grad wrt a leaf", lambda: torch.autograd.grad(c.sum(), (a,),
                                                                   retain_graph=True))
        rec.note("calls", calls)
        calls.clear()
        h.remove()
        rec.attempt("after remove", lambda: c.sum().backward(retain_graph=True))
        rec.note("calls after remove", calls)

    differential(snippet)


def test_multi_grad_hook_any_and_errors() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        rm = torch.autograd.graph.register_multi_grad_hook
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, 4.0], requires_grad=True)
        c = a * b
        calls: list[Any] = []
        h = rm((a, b, c), lambda g: calls.append(g.tolist()), mode="any")
        rec.attempt("backward", lambda: c.sum().backward(retain_graph=True))
        rec.attempt("again", lambda: (c.sum() * 3).backward(retain_graph=True))
        rec.attempt("grad", lambda: torch.autograd.grad((b * 5).sum(), b))
        rec.note("calls", calls)
        h.remove()
        rec.attempt("bad mode", lambda: rm((a,), print, mode="some"))
        rec.attempt("all, a tensor without grad", lambda: rm((a, torch.ones(2)), print))
        rec.attempt("any skips it", lambda: len(rm((a, torch.ones(2)), print,
                                                    mode="any").handles))

    differential(snippet)


def test_multi_grad_hook_order_with_tensor_hooks_and_retain_grad() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        c = b * 3
        log: list[Any] = []
        b.register_hook(lambda g: log.append(["b hook", g.tolist()]))
        b.retain_grad()
        torch.autograd.graph.register_multi_grad_hook(
            (b, c), lambda gs: log.append(["multi", _shapes(gs), b.grad]))
        torch.autograd.graph.register_multi_grad_hook(
            (a,), lambda gs: log.append(["leaf", _shapes(gs), a.grad]))
        c.register_hook(lambda g: log.append(["c hook", g.tolist()]))
        a.register_hook(lambda g: log.append(["a hook", g.tolist()]))
        c.sum().backward()
        rec.note("order", log)

    differential(snippet)


# -- the running backward: its id, and which nodes it runs ---------------------------------------
def test_current_graph_task_id() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        task_id = _task_id(rec)
        rec.note("outside", task_id())
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        ids: list[int] = []
        b.register_hook(lambda g: ids.append(task_id()))
        b.sum().backward(retain_graph=True)
        b.sum().backward(retain_graph=True)
        torch.autograd.grad(b.sum(), a, retain_graph=True)
        rec.note("one per backward", [ids[1] - ids[0], ids[2] - ids[1]])
        inner: list[int] = []
        x = torch.tensor([3.0], requires_grad=True)

        def nested(g: Any) -> None:
            inner.append(task_id())
            with torch.enable_grad():
                torch.autograd.grad((x * x).sum(), x)
            inner.append(task_id())

        b.register_hook(nested)
        x.register_hook(lambda g: inner.append(task_id()))
        b.sum().backward()
        rec.note("nested", [len(set(inner)), inner[0] == inner[-1]])
        rec.note("after", task_id())

    differential(snippet)


def test_will_engine_execute_node() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        will = _will_run(rec)
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        z = y.sin()
        w = x.cos()
        rec.attempt("outside a backward", lambda: will(z.grad_fn))
        rec.attempt("not a node", lambda: will(3))
        seen: list[Any] = []
        acc = y.grad_fn.next_functions[0][0]

        def look(g: Any) -> None:
            seen.append([will(n) for n in (z.grad_fn, y.grad_fn, w.grad_fn)])
            try:
                seen.append(will(acc))
            except RuntimeError as e:
                seen.append(str(e))

        h = z.register_hook(look)
        z.sum().backward(retain_graph=True)
        z.sum().backward(inputs=[y], retain_graph=True)
        torch.autograd.grad(z.sum(), y, retain_graph=True)
        torch.autograd.grad(z.sum(), x, retain_graph=True)
        h.remove()
        rec.note("seen", seen)

    differential(snippet)


# -- increment_version, the version of inference tensors, Node ----------------------------------
def test_increment_version() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        iv = torch.autograd.graph.increment_version
        a = torch.zeros(3)
        iv(a)
        iv([a, a])
        iv((a,))
        iv(iter([a]))
        iv({a: 1})
        rec.note("bumped", a._version)
        view = a[1:]
        iv(view)
        rec.note("shared with a view", [a._version, view._version])
        rec.attempt("an int", lambda: iv(3))
        rec.attempt("None", lambda: iv(None))
        rec.attempt("a list of ints", lambda: iv([3]))
        rec.attempt("a tensor, then an int", lambda: iv([a, 3]))
        rec.note("unchanged by the failure", a._version)
        with torch.inference_mode():
            i = torch.zeros(2)
        rec.attempt("an inference tensor", lambda: iv([i, a]))
        rec.note("the other one bumped", a._version)
        rec.attempt("inference _version", lambda: i._version)
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        iv(y)
        rec.attempt("saved output bumped", lambda: y.sum().backward())

    differential(snippet)


def test_node_subclass_checks() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        Node = torch.autograd.graph.Node
        x = torch.tensor([1.0], requires_grad=True)
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        rec.note("checks", [issubclass(type(y.grad_fn), Node), isinstance(y.grad_fn, Node),
                            issubclass(type(acc), Node), isinstance(acc, Node),
                            issubclass(int, Node), isinstance(3, Node)])

        class Mine(Node):
            pass

        rec.attempt("Node()", lambda: Node())
        rec.attempt("a subclass", lambda: Mine())
        rec.note("a subclass is not an engine node", issubclass(Mine, type(y.grad_fn)))

    differential(snippet)


def test_all_names() -> None:
    names = {"GradientEdge", "get_gradient_edge", "increment_version", "register_multi_grad_hook",
             "Node", "region_activation_memory_budget",
             "set_warn_on_accumulate_grad_stream_mismatch", "set_override_stale_capture_stream"}
    assert names <= set(ours.autograd.graph.__all__)
    torch = pytest.importorskip("torch")
    assert names <= set(torch.autograd.graph.__all__)


def test_record_shows_the_node_of_an_edge_root() -> None:
    from graphviz_autograd.recording import record

    def run() -> Any:
        a = ours.ones(3, requires_grad=True)
        with record() as rec:
            b = a.exp()
            c = (b * 2).sum()
            ours.autograd.backward(ours.autograd.graph.get_gradient_edge(c), retain_graph=True)
            rec_c = c
        return rec, rec_c

    rec, c = run()
    assert len(rec.backwards) == 1
    assert rec.backwards[0].roots == [f"n{c.grad_fn._uid}"]


def test_edges_in_records_are_torchs() -> None:
    record = differential(lambda rec: rec.note(
        "edge", rec.torch.autograd.graph.get_gradient_edge(
            rec.torch.ones(2, requires_grad=True))))
    assert outcome(record, "edge")[0] == {"node": "torch::autograd::AccumulateGrad"}


# -- hooks on a gradient that is not computed ----------------------------------------------------
def test_hooks_see_a_gradient_not_computed_as_none() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch

        class LeftOut(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any, u: Any) -> Any:
                return t + u

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return None, g

        x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        log: list[Any] = []
        p, q = x.unbind()
        q.register_hook(lambda g: log.append(["q", g]))
        p.register_hook(lambda g: log.append(["p", g]))
        rm = torch.autograd.graph.register_multi_grad_hook
        h = rm((p, q), lambda gs: log.append(["multi", gs]))
        (p * 2).sum().backward(retain_graph=True)
        h.remove()
        y = x[0] * 2
        y.register_hook(lambda g: log.append(["y", g]))
        y.retain_grad()
        x.register_hook(lambda g: log.append(["x", g]))
        w.register_hook(lambda g: log.append(["w", g]))
        w.register_post_accumulate_grad_hook(lambda t: log.append(["w post", t.grad]))
        LeftOut.apply(y, w).sum().backward()
        rec.note("log", log)
        rec.grad("grads", x=x, y=y)
        rec.attempt("left-out leaf", lambda: LeftOut.apply(w, y.detach()).sum().backward())
        rec.note("leaf hooks", log[-2:])
        w.register_hook(lambda g: torch.ones(2))
        rec.attempt("a value for None", lambda: LeftOut.apply(w, y.detach()).sum().backward())
        q.register_hook(lambda g: torch.ones(2))
        rec.attempt("a value for None, multi-output", lambda: (p * 2).sum().backward())

    differential(snippet)


# -- what a node knows of its gradients, and its metadata dict ----------------------------------
def test_input_metadata_and_node_metadata() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch

        def meta(n: Any) -> Any:
            return n._input_metadata

        def own(n: Any) -> Any:
            return n.metadata
        x = torch.ones(3, 2, requires_grad=True)
        y = x * 2
        parts = x.unbind()
        s = x.sum()
        acc = y.grad_fn.next_functions[0][0]
        for label, node in [("mul", y.grad_fn), ("unbind", parts[0].grad_fn),
                            ("sum", s.grad_fn), ("accumulate", acc)]:
            rec.note(label, [[m.shape, str(m.dtype), str(m.device), m.is_nested_tensor,
                              m.is_cpp_nested_tensor] for m in meta(node)])
        d = own(y.grad_fn)
        d["note"] = 1
        rec.note("metadata", [d, own(y.grad_fn), own(y.grad_fn) is d, own(acc)])

    differential(snippet)


def test_compile_and_stream_switches() -> None:
    def snippet(rec: Recorder) -> None:
        graph = rec.torch.autograd.graph
        for budget in (0.5, True, "x", 1.5, -0.1, 1, 0):
            rec.attempt(f"budget {budget!r}",
                        lambda budget=budget: graph.region_activation_memory_budget(budget))
        for f in (graph.set_warn_on_accumulate_grad_stream_mismatch,
                  graph.set_override_stale_capture_stream):
            for value in (True, False, "x", 1, None):
                rec.attempt(f"{f.__name__}({value!r})", lambda f=f, value=value: f(value))

    differential(snippet)


# -- is_grads_batched, only_inputs ---------------------------------------------------------------
def test_batched_grads() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        grad = torch.autograd.grad
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        z = torch.tensor([3.0], requires_grad=True)
        y = x ** 2
        eye = torch.eye(2)
        rec.attempt("rows", lambda: grad(y, x, eye, is_grads_batched=True, retain_graph=True))
        rec.attempt("unused", lambda: grad(y, [x, z], eye, is_grads_batched=True,
                                           allow_unused=True, retain_graph=True))
        rec.attempt("unused, not allowed", lambda: grad(y, [x, z], eye, is_grads_batched=True,
                                                        retain_graph=True))
        rec.attempt("materialize", lambda: grad(y, [x, z], eye, is_grads_batched=True,
                                                materialize_grads=True, retain_graph=True))
        rec.attempt("implicit scalar", lambda: grad([y, y.sum()], [x], [eye, None],
                                                    is_grads_batched=True, retain_graph=True))
        rec.attempt("batch sizes", lambda: grad([y, y], [x], [eye, torch.ones(3, 2)],
                                                is_grads_batched=True, retain_graph=True))
        rec.attempt("mismatch", lambda: grad([y], [x], [torch.ones(3, 3)],
                                             is_grads_batched=True, retain_graph=True))
        rec.attempt("0-d", lambda: grad([y.sum()], [x], [torch.ones(())],
                                        is_grads_batched=True, retain_graph=True))
        rec.attempt("empty", lambda: grad([y], [x], [torch.ones(0, 2)],
                                          is_grads_batched=True, retain_graph=True))
        rec.attempt("no tensors", lambda: grad([torch.ones(2)], [x], [None],
                                               is_grads_batched=True, retain_graph=True))
        rec.attempt("two outputs", lambda: grad(
            [y, x * 3], [x], [torch.ones(3, 2), torch.arange(6.0).reshape(3, 2)],
            is_grads_batched=True, retain_graph=True))
        rec.attempt("frees at the end", lambda: grad([y], [x], [torch.ones(3, 2)],
                                                     is_grads_batched=True))
        rec.attempt("freed", lambda: grad([y], [x], [torch.ones(3, 2)], is_grads_batched=True))
        w = x.exp()
        e = torch.autograd.graph.get_gradient_edge(w)
        rec.attempt("edge", lambda: grad(e, x, torch.ones(3, 2), is_grads_batched=True,
                                         retain_graph=True))
        rec.attempt("edge mismatch", lambda: grad(e, x, torch.ones(3, 4), is_grads_batched=True,
                                                  retain_graph=True))
        g = grad(w, x, eye, is_grads_batched=True, create_graph=True)[0]
        rec.note("create_graph", [g, g.requires_grad, grad(g.sum(), x)])
        rec.attempt("only_inputs=False", lambda: grad(w.sum(), x, only_inputs=False))

    differential(snippet)


def test_hook_order_with_node_hooks_any_all_and_post_accumulate() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        rm = torch.autograd.graph.register_multi_grad_hook
        log: list[Any] = []
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        c = b.exp()
        d = c * 3
        b.grad_fn.register_prehook(lambda gs: log.append(["b pre", b.grad]))
        b.grad_fn.register_hook(lambda gi, go: log.append(["b post", b.grad]))
        rm((b, c), lambda gs: log.append(["multi", gs, b.grad]))
        b.retain_grad()
        b.register_hook(lambda g: log.append(["b hook", b.grad]) or g * 10)
        c.register_hook(lambda g: log.append(["c hook"]))
        rm((c, b), lambda g: log.append(["any", g]), mode="any")
        a.register_post_accumulate_grad_hook(lambda t: log.append(["a post", t.grad]))
        rm((a, d), lambda gs: log.append(["multi a", gs]))
        d.sum().backward(retain_graph=True)
        rec.note("backward", log)
        log.clear()
        torch.autograd.grad(d.sum(), [b], retain_graph=True)
        rec.note("grad", log)
        log.clear()
        d.sum().backward(inputs=[c], retain_graph=True)
        rec.note("inputs=[c]", log)

    differential(snippet)


def test_outputs_that_are_not_tensors() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.ones(2, requires_grad=True)
        y = (x * 2).sum()
        for label, outs in [("node and number", (y.grad_fn, 0)), ("a number", [y, 3]),
                            ("None", None), ("a string", "a")]:
            rec.attempt(f"grad: {label}", lambda outs=outs: torch.autograd.grad(
                outs, x, retain_graph=True))
            rec.attempt(f"backward: {label}", lambda outs=outs: torch.autograd.backward(
                outs, retain_graph=True))

    differential(snippet)


def test_hooks_with_none_on_a_node_grad_only_captures() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        log: list[Any] = []
        x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        p, q = x.unbind()
        q.register_hook(lambda g: log.append(["q", g]))
        p.register_hook(lambda g: log.append(["p", g]))
        q.retain_grad()
        rec.attempt("grad wrt p", lambda: torch.autograd.grad(p.sum(), p, retain_graph=True))
        rec.attempt("grad wrt x", lambda: torch.autograd.grad(p.sum(), x, retain_graph=True))
        rec.attempt("backward inputs=[p]", lambda: p.sum().backward(inputs=[p],
                                                                    retain_graph=True))
        rec.note("log", log)
        rec.grad("grads", p=p, q=q, x=x)

    differential(snippet)


def test_split_backward_for_inputs_then_weights() -> None:
    """A pipeline stage's split backward: the input's gradient first (keeping the gradient at an
    intermediate edge), then the weights' from that edge."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        graph = torch.autograd.graph
        lin = torch.nn.Linear(3, 2)
        with torch.no_grad():
            lin.weight.copy_(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
            lin.bias.copy_(torch.tensor([0.5, -0.5]))
        x = torch.tensor([[1.0, 0.0, -1.0], [2.0, 1.0, 0.0]], requires_grad=True)
        y = lin(x).tanh()
        loss = (y * y).sum()
        params = [graph.get_gradient_edge(p) for p in lin.parameters()]
        mid = graph.get_gradient_edge(y)
        dx, dy = torch.autograd.grad(loss, [graph.get_gradient_edge(x), mid], retain_graph=True)
        rec.note("input and intermediate", [dx, dy])
        rec.note("weights", torch.autograd.grad(mid, params, grad_outputs=dy, retain_graph=True))
        torch.autograd.backward(mid, grad_tensors=dy, inputs=list(lin.parameters()))
        rec.grad("accumulated", weight=lin.weight, bias=lin.bias, x=x)
        z = lin(x)
        edges = [graph.GradientEdge(f, nr) for f, nr in z.grad_fn.next_functions if f is not None]
        rec.note("edges from next_functions", torch.autograd.grad(z.sum(), edges))

    differential(snippet)
