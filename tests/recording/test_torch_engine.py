"""Real PyTorch graphs: the same program recorded on the native engine and on real torch tells
the same story (snapshot kinds, nodes, labels, saved-buffer states, shared flags, predictions),
over the public oracle scenarios and the seed examples; recording changes nothing the program
sees; a real model renders before and after its backward."""

from __future__ import annotations

import contextlib
import gc
import importlib.util
import os
import warnings
import weakref
from types import ModuleType
from typing import Any
from xml.etree import ElementTree

import pytest
from _markers import requires_dot, requires_torch
from _shared import ORACLE

import graphviz_autograd
import graphviz_autograd.torch as native
from graphviz_autograd.recording import Recording
from graphviz_autograd.runner import run_script
from graphviz_autograd.torch_alias import native_torch

pytestmark = requires_torch
torch = pytest.importorskip("torch")
from render._support import EXAMPLES, SEEDS  # noqa: E402

from graphviz_autograd.recording.torch_engine import TorchEngine  # noqa: E402

if not (ORACLE / "harness.py").is_file():
    pytest.skip(f"oracle not found at {ORACLE}", allow_module_level=True)

SCENARIOS = sorted(p.stem for p in (ORACLE / "scenarios").glob("*.py"))


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("oracle_harness_te", ORACLE / "harness.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


H = _harness()


def story(rec: Recording) -> list[Any]:
    """What a recording says, with the engines' own ids left out."""
    # NB: `torch.autograd.backward([])` passes no tensor, so no torch function mode sees it:
    # the native engine records that empty backward; on real torch it is invisible
    empty = {b.snapshot_before for b in rec.backwards if not b.roots} | \
        {b.snapshot_after for b in rec.backwards if not b.roots}
    out = []
    for s in rec.snapshots:
        if s.index in empty:
            continue
        names = {n.id: n.name for n in s.nodes}
        nodes = sorted((n.name, tuple(sorted(n.labels)),
                        tuple(sorted((b.name, b.state, b.released_by) for b in n.saved)),
                        n.shared) for n in s.nodes)
        p = s.prediction
        out.append((s.kind, nodes, (p.will_fail, names.get(p.node), p.kind) if p else None))
    # NB: and each backward's steps: the nodes run in order, the gradient shapes that flowed
    # into them, the buffers each released; and the node it stopped at
    node_names = {n.id: n.name for s in rec.snapshots for n in s.nodes}
    for b in rec.backwards:
        if not b.roots:
            continue
        out.append(([(st.name, st.grad_shape, sorted(r["name"] for r in st.released))
                     for st in b.steps], node_names.get(b.failed_at or "")))
    return out


def _scenario(name: str, engine: Any) -> Recording:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with graphviz_autograd.record(engine=engine, sources=False) as rec:
            H.run_scenario(os.fspath(ORACLE / "scenarios" / f"{name}.py"),
                           native if engine is None else torch)
    return rec


@pytest.mark.parametrize("name", SCENARIOS)
def test_an_oracle_scenario_tells_the_same_story_on_both_engines(name: str) -> None:
    assert story(_scenario(name, TorchEngine())) == story(_scenario(name, None))


@pytest.mark.parametrize("name", SCENARIOS)
def test_recording_changes_nothing_the_program_sees(name: str) -> None:
    path = os.fspath(ORACLE / "scenarios" / f"{name}.py")
    torch.manual_seed(0)
    plain = H.run_scenario(path, torch)
    torch.manual_seed(0)
    with graphviz_autograd.record(engine=TorchEngine()):
        recorded = H.run_scenario(path, torch)
    assert recorded == plain


@pytest.mark.parametrize("stem", SEEDS)
def test_a_seed_example_tells_the_same_story_on_both_engines(stem: str) -> None:
    script = str(EXAMPLES / f"{stem}.py")
    with native_torch(), graphviz_autograd.record() as on_native:
        run_script(script, [])
    with graphviz_autograd.record(engine=TorchEngine()) as on_torch:
        run_script(script, [])
    assert story(on_torch) == story(on_native)
    assert on_torch.snapshots[-1].kind == "backward_failed"
    # the same diagnosis, word for word but for the node ids
    assert [d.summary for d in graphviz_autograd.diagnose(on_torch)] == \
        [d.summary for d in graphviz_autograd.diagnose(on_native)]


def _cell_loop(module: Any, engine: Any, spec: str) -> Recording:
    import numpy as np
    sequence = "Cell" not in spec
    with graphviz_autograd.record(engine=engine, sources=False) as rec:
        emb = module.nn.Embedding(6, 3, padding_idx=0)
        cell = eval(f"module.nn.{spec}", {"module": module})
        with module.no_grad():
            for i, p in enumerate([*emb.parameters(), *cell.parameters()]):
                n = int(np.prod(p.shape))
                values = np.cos(np.arange(n) * 0.7 + i).reshape(tuple(p.shape)) * 0.5
                p.copy_(module.tensor(values.tolist(), dtype=p.dtype))
        state = None
        for step in range(3):
            x = emb(module.tensor([step, step + 1]))
            if sequence:
                # NB: a sequence of two steps, batch 1, through the whole layer
                _, state = cell(x.unsqueeze(1).to(cell.weight_ih_l0.dtype), state)
            else:
                state = cell(x, state)
            h = state[0] if isinstance(state, tuple) else state
            loss = (h * h).sum()
            # NB: from the second step on, it reaches the first step's freed buffers
            with contextlib.suppress(RuntimeError):
                loss.backward()
    return rec


@pytest.mark.parametrize("spec", ["RNNCell(3, 2)", "LSTMCell(3, 2)", "GRUCell(3, 2)",
                                  "RNN(3, 2, num_layers=2)", "GRU(3, 2, bidirectional=True)",
                                  "LSTM(3, 2)", "LSTM(3, 2, num_layers=2, bidirectional=True)",
                                  "LSTM(3, 2).double()"])
def test_a_recurrent_cell_loop_tells_the_same_story_on_both_engines(spec: str) -> None:
    """The hidden state carried without ``detach()``: the same nodes, freed buffers, steps and
    diagnosis on both engines, through an embedding and PyTorch's cells and layers (a float32
    LSTM: PyTorch's fused layer node, saving its outputs and a workspace)."""
    on_torch = _cell_loop(torch, TorchEngine(), spec)
    on_native = _cell_loop(native, None, spec)
    assert story(on_torch) == story(on_native)
    assert [b.error is None for b in on_torch.backwards] == [True, False, False]
    assert [d.summary for d in graphviz_autograd.diagnose(on_torch)] == \
        [d.summary for d in graphviz_autograd.diagnose(on_native)]


_TRUNKS = {
    "transformer encoder": "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, "
                           "dropout=0.0, batch_first=True), 2, enable_nested_tensor=False)",
    "attention with weights": "nn.MultiheadAttention(8, 2, batch_first=True)",
    "conv, group norm, transposed conv, upsampling": "nn.Sequential(nn.Conv2d(8, 4, 3), "
        "nn.GroupNorm(2, 4), nn.ReLU(), nn.ConvTranspose2d(4, 2, 2, stride=2), "
        "nn.Upsample(scale_factor=2, mode='bilinear'), nn.AdaptiveMaxPool2d(3))",
}


def _trunk_loop(module: Any, engine: Any, trunk: str) -> Recording:
    """A trunk's output computed once, then two heads' backwards through it: the second one
    reaches the buffers the first freed."""
    module.manual_seed(0)
    with graphviz_autograd.record(engine=engine, sources=False) as rec:
        net = eval(_TRUNKS[trunk], {"nn": module.nn})
        if "Conv" in _TRUNKS[trunk]:
            x = module.randn(1, 8, 5, 5)
            features = net(x)
        elif "Multihead" in _TRUNKS[trunk]:
            x = module.randn(2, 3, 8)
            features, _weights = net(x, x, x)
        else:
            features = net(module.randn(2, 3, 8))
        for k in range(2):
            loss = (features * (k + 1)).sum()
            with contextlib.suppress(RuntimeError):
                loss.backward()
    return rec


@pytest.mark.parametrize("trunk", list(_TRUNKS))
def test_a_shared_trunk_of_newer_layers_tells_the_same_story_on_both_engines(trunk: str
                                                                            ) -> None:
    """Attention (PyTorch's fused CPU node, or its composite with the weights), transformer
    layers, group norm, a transposed convolution and upsampling: the same nodes, freed buffers,
    steps and diagnosis on both engines when a second backward reaches the trunk."""
    on_torch = _trunk_loop(torch, TorchEngine(), trunk)
    on_native = _trunk_loop(native, None, trunk)
    assert story(on_torch) == story(on_native)
    assert [b.error is None for b in on_torch.backwards] == [True, False]
    assert [d.summary for d in graphviz_autograd.diagnose(on_torch)] == \
        [d.summary for d in graphviz_autograd.diagnose(on_native)]


def test_the_recorder_keeps_no_torch_graph_alive() -> None:
    with graphviz_autograd.record(engine=TorchEngine()) as rec:
        x = torch.ones(3, requires_grad=True)
        y = (x * x).tanh()
        loss = y.sum()
        gone = weakref.ref(y)
        rec.snapshot("built")
        del y, loss
        gc.collect()
        assert gone() is None
        after = rec.snapshot("after del")
    assert after.nodes == [] or all(n.name.endswith("AccumulateGrad") for n in after.nodes)
    assert rec.snapshots[0].nodes and after.collected


def test_a_freed_buffer_is_read_without_an_error_escaping() -> None:
    with graphviz_autograd.record(engine=TorchEngine()) as rec:
        x = torch.ones(3, requires_grad=True)
        y = x.exp()
        y.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.sum().backward()
        snap = rec.snapshot("after")
    (node,) = snap.nodes_labelled("y")
    assert [(s.name, s.state, s.released_by) for s in node.saved] == [("result", "freed", 1)]
    assert snap.memory["saved_bytes_alive"] == 0 and snap.memory["saved_bytes_freed"] > 0


def _unbind_view_saved(module: Any, engine: Any) -> Recording:
    with graphviz_autograd.record(engine=engine) as rec:
        a = module.tensor([[-0.4, -1.1], [0.7, 1.7]], requires_grad=True)
        h0 = a.unbind(1)[0]
        h1 = h0.max()
        with module.no_grad():
            a.sub_(0.5)
        with pytest.raises(RuntimeError, match="Output 0 of Unbind"):
            h1.backward()
    assert h0 is not None
    return rec


def test_a_saved_unbind_view_whose_base_changed_is_modified_on_both_engines() -> None:
    """PyTorch refuses to unpack a saved ``unbind`` view whose base changed with its view
    error, not its version error: still a buffer modified in place (not a freed one), with the
    versions the native engine gives."""
    on_torch = _unbind_view_saved(torch, TorchEngine())
    on_native = _unbind_view_saved(native, None)
    assert story(on_torch) == story(on_native)
    for rec in (on_torch, on_native):
        s = rec.snapshots[0]
        (node,) = [n for n in s.nodes if n.name == "MaxBackward1"]
        (buf,) = [b for b in node.saved if b.name == "self"]
        assert (buf.state, buf.versions) == ("modified", [0, 1])
        assert s.prediction is not None and s.prediction.kind == "modified"


@pytest.mark.parametrize("model", ["cnn", "lstm"])
@requires_dot
def test_a_real_model_renders_before_and_after_backward(model: str) -> None:
    from graphviz_autograd.render import Layout
    nn = torch.nn
    torch.manual_seed(0)
    with graphviz_autograd.record(engine=TorchEngine()) as rec:
        if model == "cnn":
            net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                                nn.Linear(4 * 3 * 3, 10))
            loss = nn.functional.cross_entropy(net(torch.randn(2, 1, 8, 8)),
                                               torch.tensor([1, 2]))
            loss.backward()
        else:
            cell = nn.LSTMCell(4, 8)
            head = nn.Linear(8, 1)
            h = c = torch.zeros(1, 8)
            for _ in range(3):
                h, c = cell(torch.randn(1, 4), (h, c))
                loss = head(h).pow(2).mean()
                loss.backward(retain_graph=True)
    layout = Layout.of(rec)
    for snap in rec.snapshots:
        root = ElementTree.fromstring(layout.svg(snap))
        assert root.tag.endswith("svg")
    names = {n.name for n in rec.snapshots[0].nodes}
    assert ("ConvolutionBackward0" in names) if model == "cnn" else ("MulBackward0" in names)
    assert any(s.state == "freed" for n in rec.snapshots[1].nodes for s in n.saved) \
        if model == "cnn" else all(s.state == "alive" for n in rec.snapshots[1].nodes
                                   for s in n.saved)


def test_a_long_torch_loop_keeps_the_recording_bounded() -> None:
    # a leaf's accumulator lives across the whole loop and runs in every backward: its log
    # entries must not pile up (memory, and the time of forgetting them, grew with each step);
    # `loss` keeps last step's graph, and with it the accumulators, alive into the next one
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(3, 4)

    def sizes(steps: int) -> tuple[int, ...]:
        engine = TorchEngine()
        with graphviz_autograd.record(engine=engine, keep_last=8) as rec:
            for _ in range(steps):
                opt.zero_grad()
                loss = model(x).pow(2).mean()
                loss.backward()
                opt.step()
        # NB: and the engine's own records of the nodes it read (saved slots, counters)
        return (len(rec._executed_log), len(rec._static), len(engine._slots),
                len(engine._freed), len(engine._counters))

    short, long = sizes(40), sizes(400)
    assert all(b <= a + 16 for a, b in zip(short, long, strict=True)), (short, long)
    with graphviz_autograd.record(engine=TorchEngine(), keep_last=4) as rec:
        for _ in range(100):
            opt.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            opt.step()
    last = rec.snapshots[-1]
    acc = [n for n in last.nodes if n.name.endswith("AccumulateGrad")]
    assert acc and all(n.executed_by[-1] == 100 for n in acc)


def test_record_with_no_engine_given_records_real_torch_too() -> None:
    # torch is imported (this module did): record() listens to both engines
    with graphviz_autograd.record() as rec:
        x = torch.ones(3, requires_grad=True)
        y = x.exp()
        y.sum().backward()
        a = native.ones(2, requires_grad=True)
        b = (a * a).sum()
        b.backward()
    assert rec.engine.name == "native+torch"
    assert [s.kind for s in rec.snapshots] == ["before_backward", "after_backward"] * 2
    (exp,) = rec.snapshots[1].nodes_labelled("y")
    assert exp.name == "ExpBackward0" and [s.state for s in exp.saved] == ["freed"]
    (mul,) = [n for n in rec.snapshots[3].nodes if n.name == "MulBackward0"]
    assert [s.state for s in mul.saved] == ["freed", "freed"]
    # each engine's nodes get the user's line, not one of the recorder's or the engines'
    assert exp.source is not None and exp.source["code"] == "y = x.exp()"
    assert mul.source is not None and mul.source["code"] == "b = (a * a).sum()"
    assert len({n.id for s in rec.snapshots for n in s.nodes}) == \
        len({(n.id, n.name) for s in rec.snapshots for n in s.nodes})   # ids never collide


def test_a_torch_node_has_the_users_line(tmp_path: Any) -> None:
    """Whichever way real torch is called (a function, a method, an operator, a module, a
    composite op making several nodes, an in-place op on a view, a gradient's own graph made
    by the backward), each node's line is the user's line that made it: the recorder's own
    frames and torch's are skipped, the user's never."""
    script = tmp_path / "torch_paths.py"
    script.write_text(
        "import torch\n"
        "def run(lin):\n"
        "    a = torch.ones(3, 3, requires_grad=True)\n"
        "    b = torch.mm(a, a)\n"
        "    c = b.exp()\n"                                                        # 5
        "    d = c * 2\n"
        "    e = lin(d)\n"
        "    f = torch.nn.functional.cross_entropy(e, torch.tensor([0, 1, 2]))\n"
        "    v = e[0]\n"
        "    v.mul_(2)\n"                                                          # 10
        "    (g,) = torch.autograd.grad(f + v.sum(), a, create_graph=True)\n"
        "    g.sum().backward()\n", encoding="utf-8")
    code = compile(script.read_text(encoding="utf-8"), str(script), "exec")
    scope: dict[str, Any] = {}
    exec(code, scope)
    with graphviz_autograd.record(engine=TorchEngine()) as rec:
        scope["run"](torch.nn.Linear(3, 3))
    nodes = {n.id: n for s in rec.snapshots for n in s.nodes if n.recorded}
    made: dict[str, set[int]] = {}
    for n in nodes.values():
        assert n.source is not None and n.source["file"] == str(script), (n.name, n.source)
        made.setdefault(n.name, set()).add(n.source["line"])
    assert made["MmBackward0"] == {4, 11}          # 11: the gradient's graph (the grad call)
    assert made["ExpBackward0"] == {5}
    assert made["MulBackward0"] == {6, 11}
    assert made["AddmmBackward0"] == {7}
    assert made["NllLossBackward0"] == {8} and made["LogSoftmaxBackward0"] == {8}
    assert made["torch::autograd::CopySlices"] == {10}
    assert made["SumBackward0"] == {11, 12}


RANDOM_SEEDS = list(range(1200))


@pytest.mark.parametrize("case", range(24))
def test_random_programs_tell_the_same_story_on_both_engines(case: int, tmp_path: Any) -> None:
    """The engine tests' random programs (``tests/engine/_random_programs.py``), recorded on
    both engines: the same stories; and recording them on PyTorch changes nothing they see
    (but the line an uncaught error ends at: the recorder's mode is a frame of its own)."""
    from engine._random_programs import program

    failures = []
    for seed in RANDOM_SEEDS[case * 50:(case + 1) * 50]:
        path = tmp_path / f"random_{seed}.py"
        path.write_text(program(seed), encoding="utf-8")
        recs = []
        for engine in (TorchEngine(), None):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with graphviz_autograd.record(engine=engine, sources=False) as rec:
                    H.run_scenario(str(path), native if engine is None else torch)
            recs.append(story(rec))
        if recs[0] != recs[1]:
            failures.append(f"seed {seed}: the stories differ")
        plain = H.run_scenario(str(path), torch)
        with graphviz_autograd.record(engine=TorchEngine()):
            recorded = H.run_scenario(str(path), torch)
        changed = [d for d in H.diff(plain, recorded) if not d.split(":", 1)[0].endswith("/where")]
        if changed:
            failures.append(f"seed {seed}: recording changed the program: {changed[:3]}")
    assert not failures, "\n".join(failures)


def test_record_takes_an_engine_by_name() -> None:
    """``record(engine="torch")`` hears real PyTorch only, ``"native"`` the engine only; the
    default both (torch is imported here); another name is refused, saying which exist."""
    def program() -> None:
        for t in (torch, native):
            x = t.ones(3, requires_grad=True)
            (x * x).sum().backward()
    counts = {}
    for name in ("torch", "native", None):
        with graphviz_autograd.record(engine=name) as rec:
            program()
        counts[name] = len(rec.backwards)
    assert counts == {"torch": 1, "native": 1, None: 2}
    with pytest.raises(ValueError, match="'native', 'torch'"):
        graphviz_autograd.record(engine="jax").__enter__()


def _inplace_program(t: ModuleType) -> None:
    """Saved results changed in place by each kind of in-place call a program makes."""
    F = t.nn.functional
    w = t.ones(3, requires_grad=True)
    h = w.sigmoid()
    h += 1
    a = w.exp()
    a[0] = 5
    b = w.tanh()
    F.relu(b, inplace=True)
    d = (w.sin() * 1).sigmoid()
    F.leaky_relu(d, 0.1, True)
    e = w.cos().exp()
    t.nn.ReLU(inplace=True)(e)
    for x in (h, a, b, d, e):
        with contextlib.suppress(RuntimeError):
            x.sum().backward()


def test_every_kind_of_in_place_call_is_seen_on_real_torch() -> None:
    """``x += 1``, ``x[i] = v``, and functional or module calls with ``inplace=True`` (PyTorch's
    modes see only the functional call): the diagnosis names the line that changed the saved
    value, as on the native engine."""
    said = []
    for t, engine in ((native, "native"), (torch, "torch")):
        with graphviz_autograd.record(engine=engine) as rec:
            _inplace_program(t)
        said.append([d.summary.split("The in-place op was ")[-1]
                     for d in graphviz_autograd.diagnose(rec)])
    assert said[0] == said[1]
    assert [s.split(": ", 1)[1] for s in said[1]] == [
        "`h += 1`.", "`a[0] = 5`.", "`F.relu(b, inplace=True)`.",
        "`F.leaky_relu(d, 0.1, True)`.", "`t.nn.ReLU(inplace=True)(e)`."]


def test_a_warning_inside_an_op_is_told_at_the_users_line() -> None:
    """Captured as a program captures them (``catch_warnings(record=True)`` around the
    recording): the user's file and line, not the recorder's; the display hook is given back
    when the recording stops."""
    shown = warnings.showwarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with graphviz_autograd.record(engine="torch"):
            x = torch.randn(3, requires_grad=True)
            h = x * 2
            h.sum().backward()
            line = _here() + 1
            assert h.grad is None
        assert warnings.showwarning is not None
    assert warnings.showwarning is shown
    (w,) = [w for w in caught if "is not a leaf Tensor" in str(w.message)]
    assert (w.filename, w.lineno) == (__file__, line)


def _here() -> int:
    import sys
    return sys._getframe(1).f_lineno
