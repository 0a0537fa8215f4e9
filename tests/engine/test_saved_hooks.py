"""Saved-tensor hooks (``torch.autograd.graph.saved_tensors_hooks``, ``save_on_cpu``,
``disable_saved_tensors_hooks``) and the ``_raw_saved_<name>`` objects, against PyTorch.

The sweep runs every op-table example under a pair of logging hooks: what each pack hook sees
(shape, dtype, history, which input it is), in PyTorch's order, and the order of the unpacks in
the backward, with the gradients the unpacked values give."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import pytest

import graphviz_autograd.torch as ours

from ._op_examples import build_inputs, input_names, run_snippet
from ._support import Recorder, differential
from .test_op_table import EXAMPLES, upstream

pytestmark = pytest.mark.torch

# NB: create_graph examples whose double-backward graph builds some intermediate values with
# other nodes than PyTorch's (a clone where the engine negates or takes an absolute value, a
# determinant's backward by another decomposition): the pack hook sees another history there.
# F.binary_cross_entropy's weight: PyTorch saves an expanded view of it, the engine the tensor.
KNOWN = {
    "dgrad(A.norm(p=3, dim=1), A, bb)", "dgrad(torch.dist(A, M, 1.5), A, s)",
    "dgrad(torch.linalg.det(N), N, s)", "dgrad(torch.linalg.solve(N, A), A, M)",
    "dgrad(torch.linalg.lu_solve(*torch.linalg.lu_factor(N), M), N, M)",
    "dgrad(torch.linalg.lu_solve(*torch.linalg.lu_factor(N), B, left=False, adjoint=True), N, B)",
    "dgrad(A.logcumsumexp(1), A, M)", "F.binary_cross_entropy(q, r, weight=wt)",
    "dgrad(F.binary_cross_entropy(q, r, wt, reduction='sum'), q, s)",
    "dgrad(F.binary_cross_entropy(q, p.sigmoid()), p, s)", "dgrad(torch.mvlgamma(p + 1, 2), p, b)",
    "dgrad(torch.renorm(X, 3, -1, 1.5), X, X)",
}
SWEEP = [pytest.param(code, id=f"{key}: {code}") for key, codes in EXAMPLES.items()
         for code in codes if code not in KNOWN]


def _logged_run(torch: Any, code: str) -> tuple[list[Any], dict[str, np.ndarray]]:
    inputs = build_inputs(torch, input_names(code))
    log: list[Any] = []

    def pack(t: Any) -> Any:
        who = next((n for n, v in inputs.items() if v is t), None)
        log.append(("pack", tuple(t.shape), str(t.dtype), t.grad_fn.name() if t.grad_fn else None,
                    bool(t.requires_grad), who, torch.is_grad_enabled()))
        return (t.detach(), len(log))

    def unpack(packed: Any) -> Any:
        log.append(("unpack", packed[1]))
        return packed[0]

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        try:
            out = run_snippet(torch, code, inputs)
        except Exception as e:
            log.append(("forward raised", type(e).__name__, str(e)))
            return log, {}
    log.append("backward")
    if getattr(out, "requires_grad", False):
        try:
            out.backward(torch.tensor(upstream(tuple(out.shape)).tolist(), dtype=out.dtype))
        except Exception as e:
            log.append(("backward raised", type(e).__name__, str(e)))
    grads = {n: np.asarray(v.grad.detach().clone().tolist()) for n, v in inputs.items()
             if getattr(v, "grad", None) is not None}
    return log, grads


@pytest.mark.parametrize("code", SWEEP)
def test_pack_and_unpack_hooks_see_what_pytorchs_see(code: str) -> None:
    torch = pytest.importorskip("torch")
    expected, t_grads = _logged_run(torch, code)
    got, o_grads = _logged_run(ours, code)
    assert got == expected, f"{code!r}:\n  ours  {got}\n  torch {expected}"
    assert sorted(o_grads) == sorted(t_grads)
    for name, g in t_grads.items():
        np.testing.assert_allclose(o_grads[name], g, rtol=1e-4, atol=1e-5, err_msg=name)


def test_the_sweep_runs_most_examples() -> None:
    assert len(SWEEP) > 1400


# -- behaviour, snippet by snippet -----------------------------------------------------------------
def _hooks(rec: Recorder, pack: Any = None, unpack: Any = None) -> Any:
    torch = rec.torch

    def logging_pack(t: Any) -> Any:
        rec.note("pack", {"shape": list(t.shape), "grad_fn": t.grad_fn, "grad mode":
                          torch.is_grad_enabled()})
        return t.detach() if pack is None else pack(t)

    def logging_unpack(p: Any) -> Any:
        rec.note("unpack", {"grad mode": torch.is_grad_enabled()})
        return p if unpack is None else unpack(p)

    return torch.autograd.graph.saved_tensors_hooks(logging_pack, logging_unpack)


def test_a_packed_value_is_unpacked_with_its_history() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
        a = x * 2
        with _hooks(rec):
            z = a.sin()
            e = x.exp()
        s = z.grad_fn._saved_self
        rec.note("unpacked input is the input", s is a)
        rec.note("unpacked input", {"grad_fn": s.grad_fn, "requires_grad": s.requires_grad,
                                    "value": s})
        r = e.grad_fn._saved_result
        rec.note("unpacked output", {"grad_fn": r.grad_fn, "is e": r is e, "value": r})
        leaf = e.grad_fn._saved_result
        rec.note("raw", {"data": z.grad_fn._raw_saved_self.data,
                         "same object": z.grad_fn._raw_saved_self is z.grad_fn._raw_saved_self,
                         "hook set": z.grad_fn._raw_saved_self.unpack_hook is not None})
        rec.note("leaf", leaf.is_leaf)
        # NB: no version check once packed: the value packed is used
        a.mul_(5)
        rec.attempt("backward", lambda: (z.sum() + e.sum()).backward())
        rec.grad("x", x=x)
        rec.attempt("after", lambda: z.grad_fn._saved_self)
        rec.note("raw after", {"data": z.grad_fn._raw_saved_self.data,
                               "hook": z.grad_fn._raw_saved_self.unpack_hook})
    differential(snippet)


def test_leaves_unpack_as_leaves_that_accumulate_into_the_original() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
        with _hooks(rec):
            v = x.sin()
        u = v.grad_fn._saved_self
        rec.note("leaf", {"is x": u is x, "grad_fn": u.grad_fn, "requires_grad": u.requires_grad,
                          "is_leaf": u.is_leaf})
        with _hooks(rec):
            g, = torch.autograd.grad(v.sum(), x, create_graph=True)
            rec.graph("create_graph", g=g, x=x)
            g.sum().backward()
        rec.grad("x", x=x)
    differential(snippet)


def test_retained_graphs_unpack_at_each_backward() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
        with _hooks(rec):
            y = (x * x).tanh().sum()
        rec.attempt("first", lambda: y.backward(retain_graph=True))
        rec.attempt("second", lambda: y.backward())
        rec.attempt("third", lambda: y.backward())
        rec.grad("x", x=x)
    differential(snippet)


def test_custom_functions_pack_what_they_save() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch

        class Twice(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any) -> Any:
                out = t * 2
                ctx.save_for_backward(t, out, None)
                return out

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                t, out, none = ctx.saved_tensors
                again = ctx.saved_tensors
                rec.note("in backward", {"t": t, "out": out, "none": none, "again": len(again)})
                return g * 2

        x = torch.tensor([1.0, 2.0], requires_grad=True)
        with _hooks(rec):
            z = Twice.apply(x * 1)
        raws = z.grad_fn._raw_saved_tensors
        rec.note("raw", [r.data for r in raws])
        rec.attempt("unpack an output slot", lambda: raws[1].unpack())
        rec.attempt("unpack the None slot", lambda: raws[2].unpack())
        rec.attempt("register on None", lambda: raws[2].register_hooks(lambda t: t,
                                                                        lambda p: p))
        z.sum().backward()
        rec.grad("x", x=x)
        rec.attempt("raw after", lambda: z.grad_fn._raw_saved_tensors)
    differential(snippet)


def test_hook_errors() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        graph = torch.autograd.graph
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        with graph.saved_tensors_hooks(lambda t: t.detach(), lambda p: 3):
            z = x.exp()
        rec.attempt("unpack gives an int", lambda: z.grad_fn._saved_result)
        with graph.saved_tensors_hooks(lambda t: t.detach(), lambda p: None):
            z = x.exp()
        rec.attempt("unpack gives None", lambda: z.sum().backward())

        def edit(t: Any) -> Any:
            with torch.no_grad():
                t.mul_(1)
            return t
        w = x * 1
        with graph.saved_tensors_hooks(edit, lambda p: p):
            rec.attempt("pack edits its input", lambda: w.exp())
            rec.attempt("pack edits an input", lambda: w.sin())

        def fails(t: Any) -> Any:
            raise ValueError("no room")
        with graph.saved_tensors_hooks(fails, lambda p: p):
            rec.attempt("pack raises", lambda: x.exp())
        rec.attempt("saved after a pack raised", lambda: x.exp().grad_fn._saved_result)

        def disabled() -> None:
            with graph.disable_saved_tensors_hooks("hooks are off here"):
                rec.attempt("saving while disabled", lambda: x.exp())
                with graph.saved_tensors_hooks(lambda t: t, lambda p: p):
                    pass
        rec.attempt("pushing while disabled", disabled)

        def disable_inside() -> None:
            with graph.saved_tensors_hooks(lambda t: t, lambda p: p), \
                    graph.disable_saved_tensors_hooks("not now"):
                pass
        rec.attempt("disabling while set", disable_inside)
        rec.attempt("usable again", lambda: x.exp().grad_fn._saved_result)
        rec.attempt("non-callable hooks", lambda: graph.saved_tensors_hooks(1, 2).__enter__())
    differential(snippet)


def test_only_the_innermost_pair_applies() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        graph = torch.autograd.graph
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        with graph.saved_tensors_hooks(lambda t: rec.note("outer", 1) or t.detach(),
                                       lambda p: p):
            with graph.saved_tensors_hooks(lambda t: rec.note("inner", 1) or t.detach(),
                                           lambda p: p):
                x.exp()
            x.exp()
        x.exp()
    differential(snippet)


def test_register_hooks_on_one_saved_tensor() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        z = x.exp()
        raw = z.grad_fn._raw_saved_result
        rec.attempt("register", lambda: raw.register_hooks(
            lambda t: rec.note("rpack", t) or t * 10, lambda p: rec.note("runpack", p) or p / 10))
        rec.attempt("twice", lambda: raw.register_hooks(lambda t: t, lambda p: p))
        rec.attempt("read", lambda: z.grad_fn._saved_result)
        rec.attempt("backward", lambda: z.sum().backward())
        rec.grad("x", x=x)
        rec.attempt("after freed", lambda: raw.register_hooks(lambda t: t, lambda p: p))
        a = x * 2
        rec.attempt("a None slot", lambda: a.grad_fn._raw_saved_self.register_hooks(
            lambda t: t, lambda p: p))
        y = x.sin()
        rec.attempt("an input slot", lambda: y.grad_fn._raw_saved_self.register_hooks(
            lambda t: rec.note("pack input", t) or t.detach(), lambda p: p))
        y.sum().backward()
        rec.grad("x again", x=x)
    differential(snippet)


def test_save_on_cpu_keeps_the_tensor_on_a_cpu_graph() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        with torch.autograd.graph.save_on_cpu():
            a = x * 1
            z = a.sin()
        packed = z.grad_fn._raw_saved_self.data
        rec.note("packed", {"device": str(packed[0]), "same tensor": packed[1] is a})
        z.sum().backward()
        rec.grad("x", x=x)
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            b = x * 1
            y = b.sin().sum()
        packed = y.grad_fn.next_functions[0][0]._raw_saved_self.data
        rec.note("pinned", {"same tensor": packed[1] is b, "value": packed[1],
                            "grad_fn": packed[1].grad_fn})
        y.backward()
        rec.grad("pinned", x=x)
    differential(snippet)


def test_saved_tensor_unpack_without_hooks() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        b = a.sin()
        y = x.exp()
        raw = b.grad_fn._raw_saved_self
        rec.note("input", {"data is a": raw.data is a, "unpack is a": raw.unpack() is a})
        rec.attempt("an output", lambda: y.grad_fn._raw_saved_result.unpack())
        rec.note("an output's data", y.grad_fn._raw_saved_result.data)
        b.sum().backward()
        rec.note("freed", {"data": raw.data, "hook": raw.unpack_hook})
        rec.attempt("unpack freed", raw.unpack)
        i = x[torch.tensor([0, 1])]
        rec.note("a list", [type(r).__name__ == type(raw).__name__
                            for r in i.grad_fn._raw_saved_indices])
    differential(snippet)


def test_a_packed_graph_keeps_no_tensor_it_does_not_pack() -> None:
    """What the pack hook returns is kept in place of the tensor: a detached copy leaves the
    original free to go, and freeing the graph drops the copy."""
    x = ours.tensor([1.0, 2.0], requires_grad=True)
    kept: list[weakref.ref[Any]] = []

    def pack(t: Any) -> Any:
        copy = t.detach().clone()
        kept.append(weakref.ref(copy))
        return copy

    with ours.autograd.graph.saved_tensors_hooks(pack, lambda p: p):
        a = x * 3
        y = a.exp()
    gone = weakref.ref(a)
    del a
    gc.collect()
    assert gone() is None
    y.sum().backward()
    gc.collect()
    assert all(ref() is None for ref in kept)


def test_an_in_place_op_packs_its_operands_before_it_writes() -> None:
    """(the first program family under a pack returning the tensor itself, seed 138) PyTorch
    packs an in-place op's operands before the write: the pack hook sees their old values and
    history, and the unpacked operand is given that history."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        seen: list[Any] = []

        def pack(t: Any) -> Any:
            seen.append((t.tolist(), t.grad_fn.name() if t.grad_fn else None, t._version))
            return t

        a = torch.tensor([[1.5, -0.5], [-1.0, 0.75]], requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda p: p):
            h = a.cummax(-1).values
            h.addcmul_(h, h, value=0.5)
            rec.note("operands' history", [h.grad_fn._saved_tensor1.grad_fn,
                                           h.grad_fn._saved_tensor2.grad_fn])
            b = a * 2
            b.mul_(b)
            rec.note("mul_'s other", b.grad_fn._saved_other.grad_fn
                     is b.grad_fn.next_functions[0][0])
            c = a.exp()
            c.mul_(a)
            d = a * 1
            v = d[0]
            v.mul_(d[1])
            v.exp_()
            out = h.sum() + b.sum() + c.sum()
        rec.note("seen", seen)
        d.sum().backward()
        rec.grad("a by the view", a=a)
        a.grad = None
        g, = torch.autograd.grad(out, [a], create_graph=True)
        rec.note("g", g)
        g.sum().backward()
        rec.grad("a", a=a)
    differential(snippet)


def test_cumprod_with_zeros_reads_its_saved_result() -> None:
    """(the second program family under saved-tensor hooks, seed 2707) With a zero input,
    PyTorch's cumprod backward still reads the saved result (before and at the first zero): a
    result changed in place after a hook packed it changes the gradient."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        rows = [[0.9, -0.3, 0.0, 1.5], [0.0, 0.7, 0.0, 2.0], [0.4, 0.6, -0.5, 0.0],
                [1.2, 0.0, 0.8, -0.7]]
        for dim in (0, 1):
            b = torch.tensor(rows, requires_grad=True)
            g, = torch.autograd.grad(b.cumprod(dim), [b], torch.tensor(rows) + 2)
            rec.note(f"plain {dim}", g)
            with torch.autograd.graph.saved_tensors_hooks(lambda t: (t.detach(), 1),
                                                          lambda p: p[0]):
                h = b.cumprod(dim)
                h.mul_(2)
            g, = torch.autograd.grad(h.sum(), [b])
            rec.note(f"changed {dim}", g)
    differential(snippet)


def test_unpacked_values_of_another_shape_or_dtype() -> None:
    """An unpack hook may give a value of another shape or dtype: the formula's gradient is then
    reduced to its input's shape and cast to its dtype (or refused), as PyTorch's
    validate_outputs does for every node."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        for label, unpack in (("double", lambda p: p.double()), ("shape", lambda p: p[:2]),
                              ("int", lambda p: p.long()), ("view", lambda p: p.view(3, 1)),
                              ("leaf", lambda p: x)):
            with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), unpack):
                y = (x * 2).sin() * x.exp()
            rec.attempt(label, y.sum().backward)
            rec.grad(label, x=x)
            x.grad = None
    differential(snippet)


def test_an_in_place_op_packs_its_inputs_before_it_writes() -> None:
    """``h.addcmul_(h, h)`` saves ``h`` as it was: the pack hook sees its old version and
    history, and a double backward goes through the op that made it (found by random
    programs: the engine packed after the write, so the unpacked value's history was the
    in-place op's own node)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([[1.58, -0.46], [-0.94, 0.68], [-0.62, -0.74]], requires_grad=True)

        def pack(t: Any) -> Any:
            rec.note("pack", {"version": t._version, "grad_fn": t.grad_fn, "value": t})
            return (t.detach(), 1)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda p: p[0]):
            h = a.cummax(-1).values
            h.addcmul_(h, h, value=0.5)
            rec.note("unpacked", {"grad_fn": h.grad_fn._saved_tensor1.grad_fn,
                                  "value": h.grad_fn._saved_tensor2})
            torch.nn.functional.hardtanh_(h)
            g, = torch.autograd.grad(h.sum(), [a], create_graph=True)
            rec.note("g", g)
            g.sum().backward()
            rec.grad("a", a=a)
            v = a[1:] * 1
            v[0].mul_(v[0])              # through a view: a CopySlices
            v.sum().backward()
        rec.grad("a again", a=a)
    differential(snippet)


def test_a_custom_function_node_prints_as_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    shown = []
    for module in (torch, ours):
        class Square(module.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * x

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g

        node = Square.apply(module.ones(2, requires_grad=True)).grad_fn
        shown.append(repr(node).rsplit(" at ", 1)[0])
    assert shown[0] == shown[1] == "<torch.autograd.function.SquareBackward object"
