"""Realistic training loops written with real ``torch`` (``real_models/``: a ResNet block, a
U-Net, a transformer classifier, a GPT block with causal attention and weight tying over
micro-batches, a train/eval loop keeping its losses, an LSTM language model with its state
carried, a GAN, WGAN-GP, a VAE, checkpointing, a custom Function), recorded on real PyTorch and
on the native engine: the same story and diagnosis; every saved buffer's state is what PyTorch
says when unpacked; each prediction is what the next backward then does; the recording keeps
nothing alive; the diagnosis's first fix, applied, makes the loop run."""

from __future__ import annotations

import contextlib
import gc
import io
import sys
import types
import warnings
from pathlib import Path
from typing import Any

import pytest
from _markers import requires_dot, requires_torch

import graphviz_autograd
from graphviz_autograd.recording import Recording
from graphviz_autograd.runner import run_script
from graphviz_autograd.torch_alias import native_torch

pytestmark = requires_torch
torch = pytest.importorskip("torch")
from graphviz_autograd.recording.torch_engine import TorchEngine  # noqa: E402
from recording.test_torch_engine import story  # noqa: E402

MODELS = Path(__file__).parent / "real_models"


class _Checked(TorchEngine):
    """The recorder's adapter, checked at each snapshot against PyTorch itself: each saved
    tensor of each node reached, unpacked by hand, is alive, freed or modified as it says."""

    def __init__(self) -> None:
        super().__init__()
        self.mismatches: list[Any] = []

    def walk(self, starts: list[Any], static: dict[int, Any], metas: dict[int, Any]
             ) -> tuple[Any, ...]:
        out = super().walk(starts, static, metas)
        seen: set[int] = set()
        stack = list(starts)
        while stack:
            n = stack.pop()
            if n is None or id(n) in seen:
                continue
            seen.add(id(n))
            said = sorted(s[0] for s in out[0].get(self.node_uid(n), ()))
            if sorted(_unpacked(n, said)) != said:
                self.mismatches.append((n.name(), said))
            stack.extend(m for m, _ in n.next_functions)
        return out


def _unpacked(n: Any, said: list[str]) -> list[str]:
    found = []
    custom = isinstance(n, torch.autograd.function.BackwardCFunction)
    for raw in dir(n):
        if not raw.startswith("_raw_saved_"):
            continue
        attr = "saved_tensors" if custom and raw == "_raw_saved_tensors" else \
            "_saved_" + raw[len("_raw_saved_"):]
        with contextlib.suppress(RuntimeError):
            members = getattr(n, raw)
            members = members if isinstance(members, (list, tuple)) else [members]
            if any(m.unpack_hook is not None for m in members):
                # NB: packed by a saved-tensor hook (a checkpoint): unpacking would run the
                # user's unpack hook; PyTorch drops the hook when it frees the value
                found += ["alive" for m in members if m.data is not None]
                continue
        try:
            value = getattr(n, attr)
        except RuntimeError as e:
            state = "freed" if "second time" in str(e) else "modified"
            try:
                members = getattr(n, raw)
                count = len(members) if isinstance(members, (list, tuple)) else 1
            except RuntimeError:        # a custom Function's, once freed: unreadable
                count = said.count(state)
            found += [state] * count
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        found += ["alive" for v in values if isinstance(v, torch.Tensor)]
    return found


def _record(script: str, args: list[str], engine: Any) -> tuple[Recording, int]:
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        if engine is None:
            with native_torch(), graphviz_autograd.record() as rec:
                status = run_script(str(MODELS / script), args).status
        else:
            with graphviz_autograd.record(engine=engine) as rec:
                status = run_script(str(MODELS / script), args).status
    return rec, status


def _reaches_a_tensor(obj: Any) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # NB: hasattr on torch's deprecated names warns
        return _reaches(obj)


def _reaches(obj: Any) -> bool:
    # NB: not through modules and their globals (a function's __globals__): those reach every
    # module-level tensor of the process, which the recording does not hold
    seen = {id(vars(m)) for m in list(sys.modules.values()) if m is not None}
    stack = [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen or isinstance(o, type | types.ModuleType):
            continue
        seen.add(id(o))
        if isinstance(o, torch.Tensor) or (hasattr(type(o), "next_functions")
                                           and hasattr(type(o), "metadata")):
            return True
        stack.extend(gc.get_referents(o))
    return False


# script, its arguments, the first fix the diagnosis gives (None: the loop is right), and the
# arguments that apply that fix
LOOPS = {
    "resnet block": ("resnet.py", [], None, None),
    "resnet block, relu then +=": ("resnet.py", ["bug"], "out_of_place", ["bug", "fix"]),
    "u-net": ("unet.py", [], None, None),
    "transformer classifier": ("transformer.py", [], None, None),
    "gpt block, tied, accumulated": ("gpt.py", [], None, None),
    "lstm lm, state carried": ("lstm_lm.py", [], "detach", ["fix"]),
    "gan, no detach": ("gan.py", [], "detach", ["detach"]),
    "gan, detach": ("gan.py", ["detach"], None, None),
    "gan, fake built again": ("gan.py", ["recompute"], None, None),
    "wgan-gp": ("wgan_gp.py", [], None, None),
    "vae": ("vae.py", [], None, None),
    "custom function reused": ("customfn.py", [], "recompute", None),
    "losses kept, their sum backwarded": ("train_eval.py", [], "item", ["fix"]),
    "a running total backwarded": ("total_loss.py", [], "item", ["fix"]),
}


@pytest.mark.parametrize("name", list(LOOPS))
def test_a_real_training_loop_tells_the_same_story_on_both_engines(name: str) -> None:
    script, args, fix, fixed = LOOPS[name]
    engine = _Checked()
    on_torch, status = _record(script, args, engine)
    assert engine.mismatches == []
    assert not _reaches_a_tensor(on_torch)
    for b in on_torch.backwards:          # each prediction is what that backward did
        p = on_torch.snapshots[b.snapshot_before].prediction
        assert p is not None and p.will_fail == (b.error is not None), b.number
    diagnoses = graphviz_autograd.diagnose(on_torch)
    assert status == (0 if fix is None else 1)
    assert [d.fixes[0].key for d in diagnoses] == ([] if fix is None else [fix])
    on_native, native_status = _record(script, args, None)
    assert native_status == status
    assert story(on_torch) == story(on_native)
    # NB: a custom Function's node has its ``apply`` line on both engines (on real torch, found
    # through the ops its forward runs)
    assert [d.summary for d in diagnoses] == \
        [d.summary for d in graphviz_autograd.diagnose(on_native)]
    if fixed is not None:
        after, status = _record(script, fixed, TorchEngine())
        assert status == 0 and graphviz_autograd.diagnose(after) == []


@pytest.mark.parametrize("script", ["ckpt.py", "ckpt_reentrant.py"])
def test_checkpointing_is_recorded_without_changing_the_loop(script: str) -> None:
    """``torch.utils.checkpoint``: the reentrant form's node is a custom Function whose saved
    inputs are read through ``saved_tensors`` (reading ``_saved_tensors`` raised an
    AttributeError into the program)."""
    torch.manual_seed(0)
    plain = run_script(str(MODELS / script), []).status
    engine = _Checked()
    rec, status = _record(script, [], engine)
    assert plain == status == 0 and engine.mismatches == []
    assert [b.error for b in rec.backwards] == [None, None]
    states = {s.state for snap in rec.snapshots for n in snap.nodes for s in n.saved
              if "Checkpoint" in n.name}
    assert states == ({"alive", "freed"} if script == "ckpt_reentrant.py" else set())
    # NB: the engine's checkpoint tells the same story; the backward a reentrant checkpoint
    # runs inside the user's is part of it (on real torch no hook sees it)
    on_native, native_status = _record(script, [], None)
    assert native_status == 0 and len(on_native.backwards) == 2
    assert story(on_native) == story(rec)


def test_a_reentrant_checkpoint_backwarded_twice_is_explained_alike() -> None:
    engine = _Checked()
    on_torch, status = _record("ckpt_reentrant.py", ["twice"], engine)
    on_native, native_status = _record("ckpt_reentrant.py", ["twice"], None)
    assert status == native_status == 1 and engine.mismatches == []
    assert story(on_torch) == story(on_native)
    theirs, ours = graphviz_autograd.diagnose(on_torch), graphviz_autograd.diagnose(on_native)
    line = " (line 12: `h = checkpoint(block, x, use_reentrant=True)`)"
    assert line in ours[0].summary
    assert [d.summary for d in ours] == [d.summary for d in theirs]
    assert "its saved_tensors[0] was freed by backward #1" in ours[0].summary
    assert [f.key for f in ours[0].fixes] == [f.key for f in theirs[0].fixes]


@pytest.mark.parametrize("engine", ["torch", "native"])
def test_explain_takes_the_engine(engine: str, capsys: Any) -> None:
    from graphviz_autograd.cli import main
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        status = main(["explain", "--engine", engine, str(MODELS / "gan.py")])
    out = capsys.readouterr().out
    assert status == 1
    line = (MODELS / "gan.py").read_text().splitlines().index("    fake = G(torch.randn(4, 2))") + 1
    assert f"failed at AddmmBackward0 of `fake` (line {line}: `fake = G(torch.randn(4, 2))`)" in out


@requires_dot
def test_an_unrolled_recurrence_lays_out_in_seconds() -> None:
    """A cell unrolled over 30 steps, its weights feeding every step (606 nodes and as many
    saved buffers): Graphviz took 90 s to lay it out; bounded now, a few seconds."""
    import time

    from graphviz_autograd.render import Layout
    nn = torch.nn
    torch.manual_seed(0)
    with graphviz_autograd.record(engine=TorchEngine()) as rec:
        cell, head = nn.LSTMCell(4, 8), nn.Linear(8, 1)
        h = c = torch.zeros(2, 8)
        loss = torch.zeros(())
        for _ in range(30):
            h, c = cell(torch.randn(2, 4), (h, c))
            loss = loss + head(h).pow(2).mean()
        loss.backward()
    start = time.perf_counter()
    layout = Layout.of(rec)
    assert time.perf_counter() - start < 30
    assert len(rec.snapshots[0].nodes) > 600 and layout.svg(1).startswith("<svg")
