"""Saved-tensor hooks and the non-reentrant checkpoint, recorded on both engines: recording
calls no pack or unpack hook (a checkpointed region is recomputed exactly as often as without
recording), a packed buffer counts the bytes of what its hook kept (nothing for a checkpoint's
holder), and the engines tell the same story."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import pytest
from _markers import requires_torch

import graphviz_autograd
import graphviz_autograd.torch as native
from graphviz_autograd.recording import Recording
from graphviz_autograd.render.scene import scene_of

from ._support import ON_BOTH_ENGINES
from .test_torch_engine import story


def _program(torch: ModuleType, checkpointed: bool, snapshot: Any) -> dict[str, Any]:
    """A checkpointed block, a part saved under logging hooks, two backwards."""
    checkpoint = torch.utils.checkpoint.checkpoint
    calls: list[int] = []
    log: list[str] = []

    def block(t: Any) -> Any:
        calls.append(1)
        return (t * 3).sin().exp().sum()

    x = torch.linspace(-1, 1, 6, requires_grad=True)
    y = checkpoint(block, x, use_reentrant=False) if checkpointed else block(x)
    with torch.autograd.graph.saved_tensors_hooks(
            lambda t: log.append("pack") or t.detach(), lambda p: log.append("unpack") or p):
        z = (x * x).tanh().sum()
    snapshot("both built")
    y.backward()
    z.backward(retain_graph=True)
    z.backward()
    return {"calls": len(calls), "hooks": log, "grad": x.grad.tolist()}


def _run(torch: ModuleType, checkpointed: bool, engine: Any | None
         ) -> tuple[dict[str, Any], Recording | None]:
    if engine is False:
        return _program(torch, checkpointed, lambda label: None), None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with graphviz_autograd.record(engine=engine, sources=False) as rec:
            seen = _program(torch, checkpointed, rec.snapshot)
    return seen, rec


def _checkpointed_bytes(rec: Recording) -> list[int]:
    """The bytes of the checkpointed block's saved buffers, before the backwards; each is
    marked as packed by a hook exactly when the block is checkpointed."""
    snap = rec.snapshots[0]
    saved = [b for n in snap.nodes if n.name in ("SinBackward0", "ExpBackward0")
             for b in n.saved]
    packed = {b.packed for b in saved}
    assert packed == ({True} if all(b.nbytes == 0 for b in saved) else {False})
    return [b.nbytes for b in saved]


def test_recording_calls_no_hook_on_the_native_engine() -> None:
    plain, _ = _run(native, True, False)
    recorded, rec = _run(native, True, None)
    assert recorded == plain
    assert plain["calls"] == 2          # the forward, and one recompute in the first backward
    # NB: x * x packs x twice, tanh its result; each of the two backwards of z unpacks all three
    assert plain["hooks"] == ["pack"] * 3 + ["unpack"] * 6
    assert rec is not None and _checkpointed_bytes(rec) == [0, 0]


def test_a_checkpoint_shows_as_less_memory_alive() -> None:
    _, with_checkpoint = _run(native, True, None)
    _, without = _run(native, False, None)
    assert with_checkpoint is not None and without is not None
    kept = with_checkpoint.snapshots[0].memory["saved_bytes_alive"]
    plain = without.snapshots[0].memory["saved_bytes_alive"]
    # NB: sin's input and exp's result (6 float32 each) are not kept, only holders
    assert plain - kept == 2 * 6 * 4
    assert _checkpointed_bytes(without) == [24, 24]


@requires_torch
def test_recording_calls_no_hook_on_real_torch() -> None:
    torch = pytest.importorskip("torch")
    from graphviz_autograd.recording.torch_engine import TorchEngine

    plain, _ = _run(torch, True, False)
    recorded, rec = _run(torch, True, TorchEngine())
    assert recorded == plain
    assert rec is not None and _checkpointed_bytes(rec) == [0, 0]


@requires_torch
@pytest.mark.parametrize("checkpointed", [True, False])
def test_both_engines_tell_the_same_story(checkpointed: bool) -> None:
    torch = pytest.importorskip("torch")
    from graphviz_autograd.recording.torch_engine import TorchEngine

    theirs, on_torch = _run(torch, checkpointed, TorchEngine())
    ours, on_native = _run(native, checkpointed, None)
    assert on_torch is not None and on_native is not None
    assert ours["calls"] == theirs["calls"] and ours["hooks"] == theirs["hooks"]
    assert story(on_native) == story(on_torch)
    assert [s.memory for s in on_native.snapshots] == [s.memory for s in on_torch.snapshots]
    packed = [[(n.name, b.name) for n in s.nodes for b in n.saved if b.packed]
              for rec in (on_native, on_torch) for s in rec.snapshots[:1]]
    assert packed[0] == packed[1]
    assert len(packed[0]) == (5 if checkpointed else 3)


def test_a_packed_buffer_is_drawn_and_saved_as_such() -> None:
    _, rec = _run(native, True, None)
    assert rec is not None
    dot = rec.snapshots[0].to_dot()
    assert "packed by a hook · 0 B" in dot
    again = graphviz_autograd.Recording.from_dict(rec.to_dict())
    assert [b.packed for n in again.snapshots[0].nodes for b in n.saved] == \
        [b.packed for n in rec.snapshots[0].nodes for b in n.saved]


@pytest.mark.parametrize("checkpointed", [True, False])
def test_a_packed_buffer_has_a_style_of_its_own_while_alive(checkpointed: bool) -> None:
    """Drawn rounded (its legend entry says what it is) while alive; freed, as any other."""
    _, rec = _run(native, checkpointed, None)
    assert rec is not None
    for snap in rec.snapshots:
        boxes = scene_of(snap).boxes
        for n in snap.nodes:
            for b in n.saved:
                want = "packed" if b.packed and b.state == "alive" else b.state
                assert boxes[f"{n.id}-{b.name}"].style == want
    styles = {b.style for s in rec.snapshots for b in scene_of(s).boxes.values()}
    assert "packed" in styles          # (the logging hooks pack in both programs)
    assert "freed" in styles
    assert "legend-packed" in rec.snapshots[0].to_dot()


def _engine(engine: str) -> tuple[ModuleType, Any]:
    """The torch module a test runs on and the recorder's engine for it."""
    if engine == "native":
        return native, None
    torch: ModuleType = pytest.importorskip("torch")
    from graphviz_autograd.recording.torch_engine import TorchEngine
    return torch, TorchEngine()


def _twice(torch: ModuleType) -> None:
    torch.manual_seed(0)
    block = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 4))
    x = torch.randn(3, 4, requires_grad=True)
    h = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
    h.pow(2).mean().backward()
    h.sum().backward()


@ON_BOTH_ENGINES
def test_the_diagnosis_says_a_checkpointed_part_keeps_nothing(engine: str) -> None:
    torch, recorder = _engine(engine)
    with graphviz_autograd.record(engine=recorder) as rec, \
            pytest.raises(RuntimeError, match="second time"):
        _twice(torch)
    found = graphviz_autograd.diagnose(rec)
    assert len(found) == 1
    retain = next(f for f in found[0].fixes if f.key == "retain_graph")
    assert "(0 bytes here)" in retain.detail
    # NB: the first Linear's saved input and weight, tanh's result, the second's input and
    # weight: all packed as holders
    assert "5 of them are packed by a saved-tensor hook" in retain.detail


def _nondeterministic(torch: ModuleType) -> None:
    runs = {"n": 0}

    def block(t: Any) -> Any:
        runs["n"] += 1
        return (t.sin() if runs["n"] == 1 else t.double().sin()).sum()

    x = torch.linspace(-1, 1, 3, requires_grad=True)
    torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False).backward()


@ON_BOTH_ENGINES
def test_a_backward_failing_for_another_reason_is_said_so(engine: str) -> None:
    """A failed backward the saved buffers do not explain (here a checkpoint's recomputation
    that differs from its forward) is reported with its error, not as "no backward failed"."""
    torch, recorder = _engine(engine)
    with graphviz_autograd.record(engine=recorder) as rec, \
            pytest.raises(RuntimeError, match="different metadata"):
        _nondeterministic(torch)
    found = graphviz_autograd.diagnose(rec)
    assert [(d.kind, d.backward, d.node_name) for d in found] == \
        [("other", 1, "SinBackward0")]
    assert "CheckpointError: torch.utils.checkpoint: Recomputed values" in found[0].summary
    assert [f.key for f in found[0].fixes] == ["deterministic_checkpoint"]

    def hook(g: Any) -> Any:
        raise ValueError("a hook gave up")
    with graphviz_autograd.record(engine=recorder) as rec, \
            pytest.raises(ValueError, match="gave up"):
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(hook)
        y.sum().backward()
    text = graphviz_autograd.explain(rec)
    assert "ValueError: a hook gave up. This is not a freed" in text and "Fixes" not in text
    # NB: on real torch the tensor's hook runs before any hook the recorder can register on
    # the node: where it stopped is the node PyTorch's order would have run next
    assert "failed at MulBackward0" in text
