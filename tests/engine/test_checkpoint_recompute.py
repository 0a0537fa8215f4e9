"""The non-reentrant ``torch.utils.checkpoint``, against PyTorch: the region's saved values are
packed as empty holders and recomputed in the backward, with PyTorch's side effects (forward
hooks run again, BatchNorm statistics updated again, dropout's draws replayed), early stop,
nesting, its errors and its graph."""

from __future__ import annotations

from typing import Any

import pytest

from ._support import Recorder, differential

pytestmark = pytest.mark.torch


def _ckpt(rec: Recorder) -> Any:
    return rec.torch.utils.checkpoint


def test_recompute_runs_the_region_again_with_its_side_effects() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(0)
        bn, lin = torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 3)
        calls: list[str] = []
        lin.register_forward_hook(lambda m, i, o: calls.append("lin"))
        x = torch.randn(4, 3, requires_grad=True)
        y = _ckpt(rec).checkpoint(lambda t: bn(lin(t)).relu().sum(), x, use_reentrant=False)
        rec.note("forward", {"calls": list(calls), "batches": bn.num_batches_tracked,
                             "mean": bn.running_mean})
        y.backward()
        rec.note("backward", {"calls": list(calls), "batches": bn.num_batches_tracked,
                              "mean": bn.running_mean})
        rec.grad("x", x=x)
        rec.grad("weight", w=lin.weight)
    differential(snippet)


def test_dropout_draws_are_replayed_unless_told_not_to() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(0)
        x = torch.randn(6, requires_grad=True)

        def region(t: Any) -> Any:
            return torch.nn.functional.dropout(t, 0.5).exp().sum()
        y = _ckpt(rec).checkpoint(region, x, use_reentrant=False)
        rec.note("after the forward", torch.rand(2))
        y.backward()
        rec.grad("replayed", x=x)
        rec.note("the generator is left as it was", torch.rand(2))
        x.grad = None
        y = _ckpt(rec).checkpoint(region, x, use_reentrant=False, preserve_rng_state=False)
        rec.attempt("not replayed", y.backward)
        rec.grad("other draws", x=x)
    differential(snippet)


def test_each_backward_recomputes_and_reading_a_saved_value_does_too() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        calls: list[int] = []
        x = torch.tensor([0.1, -0.4, 0.9], requires_grad=True)
        y = _ckpt(rec).checkpoint(lambda t: calls.append(1) or (t * t).tanh().sum(), x,
                                  use_reentrant=False)
        tanh = y.grad_fn.next_functions[0][0]
        rec.note("holders", {"raw": type(tanh._raw_saved_result.data).__name__,
                             "hook": tanh._raw_saved_result.unpack_hook is not None})
        rec.attempt("read", lambda: tanh._saved_result)
        rec.note("calls after a read", len(calls))
        y.backward(retain_graph=True)
        y.backward(retain_graph=True)
        rec.note("calls", len(calls))
        rec.grad("x", x=x)
        y.backward()
        rec.attempt("freed", lambda: tanh._saved_result)
        rec.attempt("again", y.backward)
        rec.attempt("grad", lambda: torch.autograd.grad(
            _ckpt(rec).checkpoint(lambda t: t.pow(3).sum(), x, use_reentrant=False), x))
    differential(snippet)


def test_early_stop_and_its_switch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        ran: list[str] = []

        def region(t: Any) -> Any:
            a = t.sin()
            ran.append("a")
            b = a.exp()
            ran.append("b")
            c = b * 2
            ran.append("c")
            return c.sum()
        x = torch.tensor([0.3, 0.6], requires_grad=True)
        for label, kw in (("early stop", {}), ("no early stop", {"early_stop": False})):
            y = _ckpt(rec).checkpoint(region, x, use_reentrant=False, **kw)
            ran.clear()
            y.backward()
            rec.note(label, list(ran))
        with _ckpt(rec).set_checkpoint_early_stop(False):
            y = _ckpt(rec).checkpoint(region, x, use_reentrant=False)
        ran.clear()
        y.backward()
        rec.note("switched off while made", list(ran))
        rec.grad("x", x=x)
    differential(snippet)


def test_nested_checkpoints_recompute_from_the_outside_in() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        order: list[str] = []
        ckpt = _ckpt(rec).checkpoint

        def inner(t: Any) -> Any:
            order.append("inner")
            return t.sin().exp()

        def outer(t: Any) -> Any:
            order.append("outer")
            return ckpt(inner, t.cos(), use_reentrant=False).sum()
        x = torch.tensor([0.2, 0.5, -1.0], requires_grad=True)
        y = ckpt(outer, x, use_reentrant=False)
        rec.note("forward", list(order))
        y.backward()
        rec.note("backward", list(order))
        rec.grad("x", x=x)
    differential(snippet)


def test_a_region_that_changes_between_runs_is_refused() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        ckpt = _ckpt(rec).checkpoint
        runs = {"n": 0}

        def fickle(t: Any) -> Any:
            runs["n"] += 1
            return (t.sin() if runs["n"] % 2 else t.double().sin()).sum()
        x = torch.tensor([0.2, 0.5, -1.0], requires_grad=True)
        rec.attempt("dtype changed", ckpt(fickle, x, use_reentrant=False).backward)
        rec.attempt("unchecked", ckpt(fickle, x, use_reentrant=False,
                                      determinism_check="none").backward)
        rec.attempt("bad check", lambda: ckpt(fickle, x, use_reentrant=False,
                                              determinism_check="exact"))

        def fewer(t: Any) -> Any:
            runs["n"] += 1
            return (t.sin().exp() if runs["n"] % 2 else t * 1.0).sum()
        runs["n"] = 0
        rec.attempt("fewer saved", ckpt(fewer, x, use_reentrant=False).backward)

        class ReadTwice(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any) -> Any:
                ctx.save_for_backward(t)
                return t * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                ctx.saved_tensors
                ctx.saved_tensors
                return g * 2
        rec.attempt("unpacked twice", ckpt(lambda t: ReadTwice.apply(t.sin()).sum(), x,
                                           use_reentrant=False).backward)
        a = x * 1
        y = ckpt(lambda t: t.exp().sum(), a, use_reentrant=False)
        with torch.no_grad():
            a.add_(1)
        rec.attempt("input changed in place", y.backward)
        rec.attempt("debug with a context", lambda: ckpt(
            lambda t: t, x, use_reentrant=False, debug=True,
            context_fn=lambda: (_ckpt(rec).noop_context_fn())))
    differential(snippet)


def test_modules_sequences_keywords_and_no_grad() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        torch.manual_seed(1)
        seq = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.Tanh(),
                            nn.Linear(4, 2))
        x = torch.randn(2, 4, requires_grad=True)
        out = _ckpt(rec).checkpoint_sequential(seq, 2, x, use_reentrant=False)
        rec.graph("sequence", out=out)
        out.sum().backward()
        rec.grad("x", x=x)
        rec.grad("first weight", w=seq[0].weight)
        y = _ckpt(rec).checkpoint(lambda t, scale=1.0: (t * scale).exp().sum(), x,
                                  use_reentrant=False, scale=2.0)
        y.backward()
        rec.grad("keyword", x=x)
        with torch.no_grad():
            z = _ckpt(rec).checkpoint(lambda t: t.exp().sum(), x, use_reentrant=False)
        rec.note("no grad", z.requires_grad)
        lin = nn.Linear(4, 2)
        y = _ckpt(rec).checkpoint(lin, torch.randn(3, 4), use_reentrant=False)
        y.sum().backward()
        rec.grad("parameters only", w=lin.weight)

    differential(snippet)


def test_a_backward_inside_the_region() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch

        def region(t: Any) -> Any:
            a = t.sin()
            b = a.cos()
            g, = torch.autograd.grad(b.sum(), t, create_graph=True)
            return (t.cos() * g).sum()
        x = torch.tensor([0.2, 0.5, -1.0], requires_grad=True)
        y = _ckpt(rec).checkpoint(region, x, use_reentrant=False)
        rec.attempt("backward", y.backward)
        rec.grad("x", x=x)
    differential(snippet)


def test_a_graph_exec_group_recomputes_once_for_its_backwards() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        ckpt = _ckpt(rec)
        runs: list[int] = []
        x = torch.tensor([0.2, 0.5, -1.0], requires_grad=True)
        y = ckpt.checkpoint(lambda t: runs.append(1) or (t.sin() * t.cos()).sum(), x,
                            use_reentrant=False)
        with ckpt.GraphExecGroup():
            try:
                with ckpt.GraphExecGroup():
                    pass
            except RuntimeError as e:       # NB: the text ends with the group's repr
                rec.note("nested", str(e).split(" Already")[0])
            rec.attempt("first", lambda: torch.autograd.grad(y, x, retain_graph=True))
            rec.attempt("overlapping", lambda: torch.autograd.grad(y, x, retain_graph=True))
        rec.attempt("outside again", lambda: torch.autograd.grad(y, x))
        rec.note("runs", len(runs))
    differential(snippet)
