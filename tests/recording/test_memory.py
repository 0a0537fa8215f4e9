"""Recording a long training loop keeps metadata only, and with ``keep_last`` its memory stays
bounded: the snapshots kept and the nodes alive, whatever the number of iterations."""

from __future__ import annotations

import tracemalloc

import numpy as np

import graphviz_autograd
import graphviz_autograd.torch as torch


def _loop(iterations: int, keep_last: int | None) -> tuple[graphviz_autograd.Recording, int]:
    rng = np.random.default_rng(0)
    w = torch.tensor(rng.standard_normal((8, 8)).astype(np.float32), requires_grad=True)
    x = torch.tensor(rng.standard_normal((4, 8)).astype(np.float32))
    tracemalloc.start()
    with graphviz_autograd.record(keep_last=keep_last) as rec:
        for _ in range(iterations):
            loss = ((x @ w).tanh() ** 2).mean()
            loss.backward()
            with torch.no_grad():
                w -= 0.01 * w.grad
                w.grad = None
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return rec, peak


def test_a_thousand_iterations_stay_bounded_with_keep_last() -> None:
    _, peak_short = _loop(100, keep_last=20)
    rec_long, peak_long = _loop(1000, keep_last=20)
    assert len(rec_long.snapshots) == 20
    assert rec_long.snapshots[-1].index == 1999
    assert len(rec_long._static) < 200, "static facts of long-dead nodes are forgotten"
    # ten times the iterations, about the same memory
    assert peak_long < 2 * peak_short + 200_000, (peak_short, peak_long)


def test_without_keep_last_memory_grows_by_metadata_only() -> None:
    _, peak100 = _loop(100, keep_last=None)
    rec300, peak300 = _loop(300, keep_last=None)
    assert len(rec300.snapshots) == 600
    per_snapshot = (peak300 - peak100) / 400
    # a snapshot of this graph (a few nodes, no array) costs a few kilobytes at most
    assert per_snapshot < 8_000, per_snapshot
    snap = rec300.snapshots[-1]
    assert snap.kind == "after_backward"
    assert all(s.state == "freed" for n in snap.nodes for s in n.saved)


def test_nodes_dead_before_any_snapshot_leave_no_record() -> None:
    """Graphs made and dropped between backwards (an evaluation pass without ``no_grad``) are
    forgotten at the next snapshot: what the recording keeps grows with the snapshots, not with
    the nodes ever made."""
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with graphviz_autograd.record() as rec:
        for _ in range(200):
            (w * 3).exp().sum()          # made and dropped, never backwarded
        (w * 2).sum().backward()
    assert len(rec._meta) + len(rec._static) < 20, (len(rec._meta), len(rec._static))


def test_a_saved_view_counts_the_storage_it_keeps_once() -> None:
    """Saving a view keeps its base's whole storage alive (as PyTorch does): its bytes are the
    storage's, counted once for the slots that share it, and a picture's tooltip says so."""
    from graphviz_autograd.render.layout import Layout

    with graphviz_autograd.record() as rec:
        x = torch.ones(4, 3, requires_grad=True).exp()    # a 48-byte storage, saved by exp
        y = x[0]                                          # a 12-byte view of it
        z = (y * y).sum()
        snap = rec.snapshot("views")
    mul = next(n for n in snap.nodes if n.name == "MulBackward0")
    assert [(s.name, s.nbytes) for s in mul.saved] == [("other", 48), ("self", 48)]
    assert snap.memory["saved_bytes_alive"] == 48     # exp's result and the views: one storage
    svg = Layout.of(rec).svg(snap.index)
    assert "(3,) float32, 48 B (the storage it views)" in svg
    del z
