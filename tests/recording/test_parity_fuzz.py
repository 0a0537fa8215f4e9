"""Random training-loop programs (``_parity_programs``) recorded on the native engine and on
real PyTorch tell the same story: snapshots (nodes, labels, lines, saved-buffer states, shared
flags, predictions, tensors, errors, memory, collected counts), each backward's steps, and the
diagnoses word for word but for node ids; the same across recording boundaries (a graph built
before the recording, recordings one after another or nested, a loop entered midway, an
exception leaving one: ``_parity_segments``); and the differences the fuzz found, each shrunk
to a program of a few lines."""

from __future__ import annotations

import gc
import textwrap
import weakref
from pathlib import Path
from typing import Any

import pytest
from _markers import requires_torch

import graphviz_autograd
import graphviz_autograd.torch as native

pytestmark = requires_torch
torch = pytest.importorskip("torch")

from recording._parity import (  # noqa: E402
    first_difference,
    full_story,
    run_both,
    run_both_segments,
    segments_difference,
)
from recording._parity_programs import program  # noqa: E402
from recording._parity_segments import SHAPES, segmented  # noqa: E402


def _both(tmp_path: Path, src: str) -> tuple[Any, Any]:
    """The program recorded on both engines; their stories (and the program's errors) equal."""
    # NB: a file per program (line caches key on the path)
    path = tmp_path / f"program_{len(list(tmp_path.iterdir()))}.py"
    path.write_text(textwrap.dedent(src), encoding="utf-8")
    (on_native, errors_native), (on_torch, errors_torch) = run_both(path)
    assert errors_native == errors_torch
    diff = first_difference(full_story(on_native), full_story(on_torch))
    assert diff is None, diff
    return on_native, on_torch


@pytest.mark.parametrize("chunk", range(4))
def test_random_training_loops_tell_the_same_story_on_both_engines(chunk: int,
                                                                   tmp_path: Path) -> None:
    failures = []
    for seed in range(chunk * 15, (chunk + 1) * 15):
        path = tmp_path / f"fuzz_{seed}.py"
        path.write_text(program(seed), encoding="utf-8")
        (on_native, errors_native), (on_torch, errors_torch) = run_both(path)
        if errors_native != errors_torch:
            failures.append(f"seed {seed}: the program's errors differ: {errors_native} vs "
                            f"{errors_torch}")
            continue
        diff = first_difference(full_story(on_native), full_story(on_torch))
        if diff is not None:
            failures.append(f"seed {seed}: {diff}")
    assert not failures, "\n".join(failures)


def _said(rec: Any) -> list[str]:
    return [d.summary for d in graphviz_autograd.diagnose(rec)]


def test_an_optimizer_step_between_backwards_is_named_on_both_engines(tmp_path: Path) -> None:
    """``optimizer.step()`` and ``p -= lr * p.grad`` run with grad mode off: on real torch
    too, the diagnosis names their line and tells to step after the backwards."""
    manual = "with t.no_grad():\n    for p in model.parameters():\n        p -= 0.1 * p.grad"
    manual = "with t.no_grad():\n    for p in model.parameters():\n        p -= 0.1 * p.grad"
    for line, update in ((5, "o.step()"), (7, manual)):
        _, on_torch = _both(tmp_path, "\n".join([
            "model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))",
            "o = t.optim.SGD(model.parameters(), lr=0.1)",
            "loss = model(t.randn(2, 3)).pow(2).mean()",
            "loss.backward(retain_graph=True)",
            update,
            "try:",
            "    loss.backward()",
            "except RuntimeError:",
            "    pass"]))
        (d,) = graphviz_autograd.diagnose(on_torch)
        assert f"The in-place op was at line {line}" in d.summary
        assert d.fixes[0].key == "backward_before_step"


def test_a_copy_slices_run_once_is_a_dead_end_on_both_engines(tmp_path: Path) -> None:
    """A CopySlices node a backward ran without retaining the graph raises if run again,
    though it saves nothing: real torch's recording predicts it too."""
    _, on_torch = _both(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        h = w.clamp(-0.3, 0.3)
        a = h.log_softmax(1)
        h.view(-1).add_(1)
        loss = (a + h.sum()).sum()
        loss.backward()
        """)
    p = on_torch.snapshots[-1].prediction
    assert p is not None and p.will_fail
    assert on_torch.snapshots[-1].node(p.node or "").name == "torch::autograd::CopySlices"


def test_the_node_an_item_assignment_makes_has_its_line_on_real_torch(tmp_path: Path) -> None:
    """``x[i] = v`` returns nothing: its CopySlices is found through ``x``, made at its line
    (and before the nodes made after it: the newest root's prediction comes first)."""
    _on_native, on_torch = _both(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        h = w[0:2].sin()
        a = h.exp()
        h[0] = 0.5
        loss = a.sum()
        loss.backward()
        """)
    (cs,) = [n for n in on_torch.snapshots[0].nodes if n.name.endswith("CopySlices")]
    assert cs.recorded and cs.source is not None and cs.source["line"] == 4
    s = on_torch.snapshots[-1]
    assert s.prediction is not None and s.node(s.prediction.node or "").name == "ExpBackward0"


def test_an_in_place_op_on_a_view_makes_its_fresh_grad_fn_on_both_engines(tmp_path: Path
                                                                          ) -> None:
    """The view an in-place op changed gets a new grad_fn (AsStridedBackward0), made at the
    op's line on both engines."""
    on_native, _ = _both(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        h = (w * 1).relu()
        hv = h[0]
        hv.index_fill_(0, t.tensor([0]), 1.0)
        rec.snapshot("after")
        """)
    (node,) = on_native.snapshots[-1].nodes_labelled("hv")
    assert node.name == "AsStridedBackward0" and node.recorded
    assert node.source is not None and node.source["line"] == 4


def test_an_init_function_changing_a_saved_tensor_is_named_on_real_torch(tmp_path: Path
                                                                         ) -> None:
    _on_native, on_torch = _both(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        a = w.sigmoid()
        t.nn.init.constant_(a, 0.3)
        try:
            a.sum().backward()
        except RuntimeError:
            pass
        """)
    assert _said(on_torch)[0].endswith("The in-place op was at line 3: "
                                       "`t.nn.init.constant_(a, 0.3)`.")


def test_an_in_place_view_op_with_grad_mode_off_keeps_the_history(tmp_path: Path) -> None:
    """``squeeze_``/``unsqueeze_``/``t_`` under ``no_grad``: the tensor keeps its grad_fn (a
    view's made afresh), as PyTorch's; and the change is seen by the recorder."""
    def seen(t: Any) -> tuple[Any, ...]:
        w = t.arange(6.0).view(2, 3).requires_grad_()
        h = (w * 1).log_softmax(1)
        hv = h.narrow(0, 0, 1)
        with t.no_grad():
            hv.squeeze_()
        b = w * 1
        with t.no_grad():
            b.unsqueeze_(0)
        b.sum().backward()
        # NB: the gradient into a's grad_fn has the shape a had when it was made
        a = (w * 2).clone()
        with t.no_grad():
            a.unsqueeze_(0)
        flowed: list[tuple[int, ...]] = []
        a.grad_fn.register_prehook(lambda g: flowed.append(tuple(g[0].shape)))
        (a * w.detach()).sum().backward()
        return (hv.requires_grad, hv.is_leaf, hv.grad_fn.name(), h._version,
                b.grad_fn.name(), tuple(b.shape), w.grad.tolist(), flowed)
    assert seen(native) == seen(torch)
    on_native, _on_torch = _both(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        h = w.sigmoid()
        a = h.exp()
        hv = h[:, 1:]
        hv.unsqueeze_(0)
        try:
            (a * h).sum().backward()
        except RuntimeError:
            pass
        """)
    assert _said(on_native)[0].endswith("The in-place op was at line 5: `hv.unsqueeze_(0)`.")


def test_a_failed_call_keeps_no_tensor_alive(tmp_path: Path) -> None:
    """An engine error (here raised after a retry with PyTorch's keywords) holds no cycle: the
    call's tensors go when the user drops them, as on real torch; so both recordings show the
    same graph after it."""
    def kept(t: Any) -> bool:
        v = t.randn(2, 2, requires_grad=True).exp()
        gone = weakref.ref(v)
        with pytest.raises(RuntimeError):
            v.expand(4, 2, 3)
        del v
        return gone() is not None
    gc.disable()
    try:
        assert not kept(native) and not kept(torch)
    finally:
        gc.enable()
    _both(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        try:
            v = (w * 2).relu()[:2]
            v.expand(4, 2, 4)
        except RuntimeError:
            pass
        v = None
        rec.snapshot("after")
        """)


def test_in_place_writes_into_part_of_an_expanded_view() -> None:
    """A non-overlapping part of an expanded tensor takes in-place writes (through a detached
    view too, and over a transposed clone), as PyTorch's; the whole expanded one refuses."""
    def seen(t: Any) -> tuple[Any, ...]:
        w = t.arange(6.0).view(2, 3).requires_grad_()
        h = w.neg()
        h.expand(2, 2, 3)[0].detach().add_(1)
        c = w.view(3, 2).t().clone()
        t.nn.functional.relu(c.expand(2, 2, 3)[0].sub_(2), inplace=True)
        (c * 2).sum().backward()
        with pytest.raises(RuntimeError, match="more than one element of the written-to"):
            t.ones(3).expand(2, 3).detach().add_(1)
        return (h.detach().tolist(), h._version, c.tolist(), c.grad_fn.name(), w.grad.tolist())
    assert seen(native) == seen(torch)


def test_softmax_results_are_contiguous() -> None:
    for t in (native, torch):
        x = t.randn(2, 3, 4)
        for v in (x.permute(2, 0, 1), x.transpose(0, 1), x[:, ::2]):
            assert v.softmax(0).is_contiguous() and v.log_softmax(-1).is_contiguous()
            v.log_softmax(1).view(-1)


def test_an_inference_tensor_in_scope_breaks_no_torch_recording(tmp_path: Path) -> None:
    """A tensor made under ``inference_mode`` has no version counter (PyTorch raises when
    asked): the recorder reads it as version 0, as the native engine's, and the program's own
    error (a backward from it) is the one it sees."""
    _, on_torch = _both(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        with t.inference_mode():
            q = w * 3
        try:
            q.sum().backward()
        except RuntimeError as e:
            errors = [str(e)]
        rec.snapshot("after")
        """)
    (q,) = [x for x in on_torch.snapshots[-1].tensors if x.label == "q"]
    assert q.version == 0


def test_an_in_place_op_through_a_view_of_a_strided_base() -> None:
    """A base laid out otherwise than C's order (a transposed or permuted clone), changed in
    place through a ``view`` of a view: the backward lays the gradient out as the base, so the
    view applies to it, as PyTorch's."""
    def grads(t: Any) -> list[float]:
        w = t.arange(24.0).div(10).view(2, 3, 4).requires_grad_()
        h = w.permute(2, 0, 1).clone()
        a = h.exp()
        h.permute(1, 2, 0).view(-1)[:5].mul_(2)
        c = w.t().clone() if w.dim() == 2 else w.view(6, 4).t().clone()
        c.t().view(-1).add_(1)
        (a.sum() + (h * t.arange(24.0).view(4, 2, 3)).sum() + c.sum()).backward()
        return [round(x, 3) for x in w.grad.flatten().tolist()]
    assert grads(native) == grads(torch)


def test_a_stale_view_read_by_the_recorder_is_no_new_root(tmp_path: Path) -> None:
    """A view an op saved (``w[0:2]``, saved by ``abs``) whose base then changed in place: on
    real torch, reading its grad_fn makes a fresh AsStridedBackward0, which is no node of the
    program's graph: neither engine shows one."""
    _, on_torch = _both(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        h = w[0:2].abs()
        with t.no_grad():
            w -= 0.1
        rec.snapshot("after")
        """)
    assert "AsStridedBackward0" not in {n.name for n in on_torch.snapshots[-1].nodes}


def test_memory_met_again_after_its_tensor_is_gone_is_new_memory() -> None:
    """The torch recorder keys a storage by its address, which PyTorch reuses once freed: a
    counter first met through a view (a parameter's ``weight.t()``, saved by ``addmm``) is
    the base's; once the base is gone, the address stands for new memory (the old edits, an
    optimizer's step, are not told of a tensor made there later)."""
    from graphviz_autograd.recording.torch_engine import TorchEngine
    engine = TorchEngine()
    base = torch.ones(3, 3)
    first = engine.counter(base.t())
    assert engine.counter(base) is first and engine.counter(base[0]) is first
    alias = base.detach()              # the same memory, kept alive without the base
    del base
    gc.collect()
    assert engine.counter(alias) is not first
    # a tensor the user changed in place (``nn.init`` on a parameter) owns its memory too
    param = torch.ones(2, 2)
    mine = engine.counter(param)
    alias = param.detach()
    del param
    gc.collect()
    assert engine.counter(alias) is not mine
    # one met only unpacking a saved value owns nothing
    unpacked = torch.ones(2)
    theirs = engine.counter(unpacked, False)
    assert engine.counter(unpacked.detach(), False) is theirs


def test_nodes_an_op_makes_at_once_get_ids_in_the_order_made(tmp_path: Path) -> None:
    """An LSTM cell makes its cell state's node before its hidden state's: on real torch too
    (whose recorder finds them walking from the first output), so the growing graph is said to
    be held by the same name on both engines."""
    on_native, on_torch = _both(tmp_path, """\
        t.manual_seed(0)
        cell = nn.LSTMCell(3, 4)
        head = nn.Linear(4, 1)
        h = None
        for step in range(7):
            h = cell(t.randn(1, 3), h)
            loss = head(h[0]).sin().sum()
            loss.backward(retain_graph=True)
        """)
    said = [s for s in _said(on_torch) if s.startswith("Memory grows")]
    assert said and said == [s for s in _said(on_native) if s.startswith("Memory grows")]


# -- across recording boundaries (``_parity_segments``): a notebook's cells, one after another --

def _segments(tmp_path: Path, src: str) -> tuple[list[Any], list[Any]]:
    """A program that opens its own recordings (``record()``) run on both engines: each
    recording tells the same story (read when its block ended, and at the end; saved and
    loaded back) and none keeps a tensor alive. Their recordings, per engine."""
    path = tmp_path / f"program_{len(list(tmp_path.iterdir()))}.py"
    path.write_text(textwrap.dedent(src), encoding="utf-8")
    on_native, on_torch = run_both_segments(path)
    diff = segments_difference(on_native, on_torch)
    assert diff is None, diff
    return on_native[0], on_torch[0]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_programs_across_recordings_tell_the_same_story_on_both_engines(shape: str,
                                                                        tmp_path: Path) -> None:
    failures = []
    for seed in range(4):
        path = tmp_path / f"{shape}_{seed}.py"
        path.write_text(segmented(seed, shape), encoding="utf-8")
        diff = segments_difference(*run_both_segments(path))
        if diff is not None:
            failures.append(f"seed {seed}: {diff}")
    assert not failures, "\n".join(failures)


def test_a_loss_built_before_the_recording_is_not_the_recordings(tmp_path: Path) -> None:
    """A cell builds ``loss``, a later one records its backward: the root's node was made
    before, at no line the recording saw, on real torch too."""
    _, (rec,) = _segments(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        loss = (w * 2).exp().sum()
        loss.backward(retain_graph=True)
        with record() as rec:
            loss.backward()
        """)
    (root,) = rec.snapshots[0].nodes_labelled("loss")
    assert not root.recorded and root.source is None


def test_a_saved_value_changed_before_the_recording_is_read_as_modified(tmp_path: Path
                                                                        ) -> None:
    """Changed in place before the recording met its node: PyTorch refuses to unpack it; it
    is read unchecked, modified since the version PyTorch expects."""
    _, (rec,) = _segments(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        h = (w * 2).abs()
        a = h.pow(2)
        h.add_(1)
        with record() as rec:
            try:
                a.sum().backward()
            except RuntimeError:
                pass
        """)
    (pow_,) = rec.snapshots[0].nodes_labelled("a")
    assert [(b.name, b.state, b.versions, b.shape) for b in pow_.saved] == \
        [("self", "modified", [0, 1], [2, 3])]
    assert graphviz_autograd.diagnose(rec)[0].kind == "modified"


def test_the_newest_root_is_the_one_made_last_not_met_first(tmp_path: Path) -> None:
    """Two graphs built before the recording, the later one failing: after its failed
    backward, the snapshot's prediction is the newest root's (real torch gives ids to nodes
    made before the recording in the order it meets them: the loss first)."""
    _, (rec,) = _segments(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        old = (w * 2).tanh()
        loss = (w * 3).exp().sum()
        loss.backward()
        with record() as rec:
            try:
                loss.backward()
            except RuntimeError:
                pass
        """)
    p = rec.snapshots[-1].prediction
    assert p is not None and p.will_fail and p.kind == "freed"


def test_a_step_over_a_graph_built_before_the_recording_is_named(tmp_path: Path) -> None:
    """``optimizer.step()`` recorded, over a graph built before the recording: the edit is
    seen on real torch too (its memory was never met, and a parameter's), so the diagnosis
    names the step's line."""
    _, (rec,) = _segments(tmp_path, """\
        lin = nn.Linear(3, 2)
        opt = t.optim.SGD(lin.parameters(), lr=0.1)
        x = t.randn(2, 3, requires_grad=True)
        loss = lin(x).pow(2).sum()
        loss.backward(retain_graph=True)
        with record() as rec:
            opt.step()
            try:
                loss.backward()
            except RuntimeError:
                pass
        """)
    (d,) = graphviz_autograd.diagnose(rec)
    assert d.summary.endswith("The in-place op was at line 7: `opt.step()`.")
    assert d.fixes[0].key == "backward_before_step"


def test_a_hook_raising_stops_the_backward_at_the_node_it_guards(tmp_path: Path) -> None:
    """A hook on ``y`` raises (no RuntimeError): the backward stopped at ``y``'s node, which
    PyTorch would have run next, on real torch too (the tensor's hook runs before any hook
    the recorder can put on the node)."""
    _, (rec,) = _segments(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        def bad(g):
            raise ValueError('a hook raised')
        try:
            with record() as rec:
                y = (w * 2).exp()
                z = y.sin()
                y.register_hook(bad)
                (z.sum() + y.sum()).backward()
        except ValueError:
            pass
        """)
    (b,) = rec.backwards
    assert rec.snapshots[-1].node(b.failed_at or "").name == "ExpBackward0"


def test_successive_and_nested_recordings_over_one_graph(tmp_path: Path) -> None:
    """Recordings one after another, one inside another, a snapshot taken after one ended:
    each is a recording of its own on both engines (the graph of the first is, to the next,
    made before it began)."""
    on_native, on_torch = _segments(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        with record() as first:
            h = (w * 2).exp()
            h.sum().backward(retain_graph=True)
        first.snapshot("after it ended")
        with record() as outer:
            with record() as inner:
                z = h.sin()
                z.sum().backward()
            h.sum().backward()
        """)
    for recs in (on_native, on_torch):
        first, outer, inner = recs
        assert [s.kind for s in first.snapshots] == ["before_backward", "after_backward",
                                                     "manual"]
        assert len(inner.backwards) == 1 and len(outer.backwards) == 2
        (exp,) = outer.snapshots[0].nodes_labelled("h")
        assert not exp.recorded


def test_an_op_giving_back_a_tensor_made_before_the_recording_made_no_node(tmp_path: Path
                                                                          ) -> None:
    """``h.contiguous()`` returns ``h`` itself: its node, made before the recording, is not
    the recording's (nor in a recording opened inside another, whose snapshot reads run
    through the enclosing one's sight)."""
    _, (rec,) = _segments(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        h = (w * 2).exp()
        with record() as rec:
            c = h.contiguous()
            rec.snapshot("after")
        """)
    (exp,) = rec.snapshots[-1].nodes_labelled("h")
    assert not exp.recorded and exp.source is None
    _segments(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        with record() as outer:
            out, hn = nn.RNN(3, 4, num_layers=2)(t.randn(2, 1, 3))
            with record() as rec:
                rec.snapshot("inside")
        """)


def test_an_exception_leaving_a_recording_keeps_what_ran_before_it(tmp_path: Path) -> None:
    """A recording's block left by an exception (the program's own, a failed backward's):
    the recording keeps everything up to it, records nothing after, and still takes a
    snapshot by hand."""
    on_native, on_torch = _segments(tmp_path, """\
        w = t.randn(2, 3, requires_grad=True)
        try:
            with record() as first:
                y = (w * 2).exp()
                y.sum().backward()
                raise ValueError("escaped")
        except ValueError:
            pass
        try:
            with record() as second:
                y.sum().backward()
        except RuntimeError:
            pass
        (w * 3).sum().backward()
        second.snapshot("after")
        """)
    for first, second in (on_native, on_torch):
        assert [s.kind for s in first.snapshots] == ["before_backward", "after_backward"]
        assert [s.kind for s in second.snapshots] == ["before_backward", "backward_failed",
                                                      "manual"]
        assert len(second.backwards) == 1
        (d,) = graphviz_autograd.diagnose(second)
        assert d.kind == "freed" and "before the recording began" in d.summary


def test_the_graphs_kept_for_nothing_are_held_by_the_first_made(tmp_path: Path) -> None:
    """Graphs kept whole (a list's and a dict's entries), each step: the growth is held by
    the root made first, on both engines (ids compared as numbers, not as text: ``n14`` was
    made after ``n7``)."""
    on_native, on_torch = _segments(tmp_path, """\
        lin = nn.Linear(3, 2)
        w = t.randn(2, 3, requires_grad=True)
        with record() as rec:
            outs = []
            state = {}
            for step in range(2):
                outs.append(lin(t.randn(2, 3)).abs().add(1).log1p())
                state['h'] = outs[-1].clone()
            loss = outs[0].sum() + state['h'].sum()
            loss.backward()
            del loss
            try:
                outs[1].sum().backward()
            except RuntimeError:
                pass
            D = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
            xi = t.randn(4, 3, requires_grad=True)
            score = D(xi).sum()
            (gx,) = t.autograd.grad(score, xi, create_graph=True)
            gp = ((gx.norm(2, dim=1) - 1) ** 2).mean()
            (score + 10 * gp).backward()
            y = (w * 2).exp()
            y.sum().backward()
        """)
    for (rec,) in (on_native, on_torch):
        (d,) = [d for d in graphviz_autograd.diagnose(rec) if d.kind == "growth"]
        assert d.summary.endswith("held by `outs[0]`.")
