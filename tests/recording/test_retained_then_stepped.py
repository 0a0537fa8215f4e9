"""``retain_graph=True`` put where a graph is reused across an optimizer's step (the usual
answer to the freed-buffer error): the next backward fails because the step changed a weight
the kept graph saved. The reuse is what to fix: a hidden state fed back is detached (and the
retain dropped), a discriminator's output read by the generator's loss after the
discriminator's step is built again after it; not "run every backward before the step", not
an out-of-place rewrite of the step. Each rewrite is run."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, run_script, torch_of

MODIFIED = "modified by an inplace operation"

RNN = """\
torch.manual_seed(0)
rnn = torch.nn.RNNCell(3, 8)
head = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.01)
data = torch.randn(6, 4, 3)
target = torch.randn(6, 4, 1)
h = torch.zeros(4, 8)
for t in range(6):
    h = rnn(data[t], h)
    loss = ((head(h) - target[t]) ** 2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
"""

GAN = """\
torch.manual_seed(0)
G = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
D = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.LeakyReLU(0.2), torch.nn.Linear(16, 1))
opt_g = torch.optim.SGD(G.parameters(), lr=0.01)
opt_d = torch.optim.SGD(D.parameters(), lr=0.01)
bce = torch.nn.BCEWithLogitsLoss()
for step in range(2):
    real = torch.randn(8, 2)
    fake = G(torch.randn(8, 4))
    d_out = D(fake)
    d_loss = bce(D(real), torch.ones(8, 1)) + bce(d_out, torch.zeros(8, 1))
    opt_d.zero_grad()
    d_loss.backward(retain_graph=True)
    opt_d.step()
    g_loss = bce(d_out, torch.ones(8, 1))
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
"""


@ON_BOTH_ENGINES
def test_a_retained_hidden_state_stepped_between_is_detached_and_the_retain_dropped(
        engine: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=MODIFIED):
        run_script(torch, tmp_path / "rnn.py", RNN)
    (d,) = diagnose(rec)
    assert d.kind == "modified"
    assert ("`h` is fed back into line 9 at each step, so each step's graph reaches into the "
            "previous steps'; `retain_graph=True` at line 12") in d.summary
    assert fix_keys(d) == ["detach", "recompute"]
    assert d.fixes[0].detail.startswith("`h = h.detach()` at the start of each step")
    assert d.fixes[1].detail.startswith("`h = torch.zeros(4, 8)` at the start of each step")

    # NB: both run to the end, with no retained graph
    detached = RNN.replace("    h = rnn(data[t], h)\n", "    h = h.detach()\n"
                           "    h = rnn(data[t], h)\n").replace("retain_graph=True", "")
    afresh = RNN.replace("    h = rnn(data[t], h)\n", "    h = torch.zeros(4, 8)\n"
                         "    h = rnn(data[t], h)\n").replace("retain_graph=True", "")
    for i, text in enumerate([detached, afresh]):
        with record(engine=engine) as again:
            run_script(torch, tmp_path / f"fixed{i}.py", text)
        assert len(again.backwards) == 6 and diagnose(again) == []


@ON_BOTH_ENGINES
def test_a_discriminator_output_read_after_its_step_is_built_again(engine: str,
                                                                   tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=MODIFIED):
        run_script(torch, tmp_path / "gan.py", GAN)
    (d,) = diagnose(rec)
    assert d.kind == "modified" and d.backward == 2
    assert ("`retain_graph=True` at line 13 (`d_loss.backward(retain_graph=True)`) kept the "
            "graph of `d_out` for this backward, but line 14 (`opt_d.step()`) ran between "
            "them") in d.summary
    assert fix_keys(d) == ["recompute"]
    assert d.fixes[0].detail.startswith(
        "Run `d_out = D(fake)` again after line 14, before line 15 (`g_loss = bce(d_out, "
        "torch.ones(8, 1))`)")
    fixed = GAN.replace("    g_loss = bce(", "    d_out = D(fake)\n    g_loss = bce(")
    with record(engine=engine) as again:
        run_script(torch, tmp_path / "fixed.py", fixed)
    assert len(again.backwards) == 4 and all(b.error is None for b in again.backwards)


@ON_BOTH_ENGINES
def test_a_custom_functions_input_changed_before_its_node_is_seen_is_told_modified(
        engine: str, tmp_path: Path) -> None:
    """A custom Function's saved input changed in place before any op reads its output (so
    before real torch's recorder first meets its node): modified, on both engines."""
    torch = torch_of(engine)
    text = """\
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


w = torch.randn(5, requires_grad=True)
h = w * 3
y = Square.apply(h)
h.add_(1)
y.sum().backward()
"""
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=MODIFIED):
        run_script(torch, tmp_path / "square.py", text)
    (d,) = diagnose(rec)
    assert d.kind == "modified" and d.node_name == "SquareBackward"
    assert d.buffers == ["saved_tensors[0]"]
    assert "The in-place op was at line 16: `h.add_(1)`" in d.summary


BASELINE = """\
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
running = torch.tensor(1.0)
for step in range(4):
    x, y = torch.randn(32, 16), torch.randn(32, 1)
    loss = torch.nn.functional.mse_loss(model(x), y)
    running = 0.9 * running + 0.1 * loss
    scaled = loss / running
    opt.zero_grad()
    scaled.backward(retain_graph=True)
    opt.step()
"""


@ON_BOTH_ENGINES
def test_a_running_baseline_kept_with_retain_graph_is_updated_without_a_graph(
        engine: str, tmp_path: Path) -> None:
    """``running = 0.9 * running + 0.1 * loss`` carries each step's graph on; the
    ``retain_graph=True`` put there to silence the freed-buffer error then meets the step's
    change: the fix is the running value updated from ``loss.detach()``, the retain dropped
    (both put in, it runs and is told nothing)."""
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match="inplace"):
        run_script(torch, tmp_path / "baseline.py", BASELINE)
    (d,) = diagnose(rec)
    assert ("`running` is fed back at line 8 (`running = 0.9 * running + 0.1 * loss`), and "
            "carries the graph of `loss` into the next steps") in d.summary
    assert fix_keys(d) == ["no_grad"]
    assert d.fixes[0].detail.startswith(
        "`running = 0.9 * running + 0.1 * loss.detach()` at line 8: a statistic")
    fixed = BASELINE.replace("0.1 * loss\n", "0.1 * loss.detach()\n").replace(
        "retain_graph=True", "")
    with record(engine=engine) as again:
        run_script(torch, tmp_path / "fixed.py", fixed)
    assert diagnose(again) == []
