"""The command line, run as a user runs it: a subprocess, its output and its exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _markers import requires_torch

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "graphviz_autograd", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_run_executes_an_unmodified_pytorch_script() -> None:
    r = cli("run", "examples/seed000_shared_y.py")
    assert r.returncode == 1
    assert r.stdout.splitlines() == ["loss: 1.0", "loss: 1.0"]
    assert "Traceback (most recent call last)" in r.stderr
    assert "RuntimeError: Trying to backward through the graph a second time" in r.stderr


def test_explain_names_the_shared_node_and_the_fixes() -> None:
    r = cli("explain", "examples/seed000_shared_y.py")
    assert r.returncode == 1
    out = r.stdout
    assert "failed at MvBackward0 of `y` (line 16: `y = t @ a`)" in out
    assert "freed by backward #1 at line 23" in out
    fixes = [line.strip() for line in out.splitlines() if line.strip()[:3] in ("1. ", "2. ", "3. ")]
    assert fixes[0].startswith("1. Recompute") and fixes[1].startswith("2. Use `y.detach()`")
    assert fixes[2].startswith("3. `retain_graph=True`")


def test_script_arguments_name_and_exit_status(tmp_path: Path) -> None:
    script = tmp_path / "args.py"
    script.write_text("import sys, torch\n"
                      "import torch.nn.functional as F\n"
                      "from torch import optim\n"
                      "from torch.autograd import Variable\n"
                      "print(__name__, sys.argv[1:], torch.__name__)\n"
                      "sys.exit(3)\n")
    r = cli("run", str(script), "--", "a", "b")
    assert r.returncode == 3
    assert r.stdout.strip() == "__main__ ['a', 'b'] graphviz_autograd.torch"


def test_bad_input_is_one_line_and_status_2(tmp_path: Path) -> None:
    r = cli("run", str(tmp_path / "missing.py"))
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "no such file" in r.stderr
    assert "Traceback" not in r.stderr
    r = cli("frobnicate")
    assert r.returncode == 2


def test_syntax_error_is_reported_as_python_reports_it(tmp_path: Path) -> None:
    script = tmp_path / "bad.py"
    script.write_text("x = (1,\n")
    r = cli("run", str(script))
    assert r.returncode == 1
    assert "SyntaxError" in r.stderr


def test_explain_without_backward_says_nothing_was_recorded(tmp_path: Path) -> None:
    script = tmp_path / "plain.py"
    script.write_text("import torch\nprint(torch.ones(2).sum().item())\n")
    r = cli("explain", str(script))
    assert r.returncode == 0
    assert "nothing was recorded" in r.stdout


@pytest.mark.parametrize("stem", sorted(p.stem for p in (ROOT / "examples").glob("seed*.py")))
def test_explain_every_seed_example(stem: str) -> None:
    r = cli("explain", f"examples/{stem}.py")
    assert r.returncode == 1, r.stderr
    assert "failed at" in r.stdout and "Fixes, best first:" in r.stdout
    assert "\033[" not in r.stdout            # no colour when stdout is not a terminal


def test_explain_colours_only_a_terminal() -> None:
    import os
    import pty
    leader, follower = pty.openpty()
    done = subprocess.run([sys.executable, "-m", "graphviz_autograd", "explain",
                           "examples/seed000_shared_y.py"], cwd=ROOT, stdout=follower,
                          stderr=subprocess.DEVNULL, timeout=120,
                          env={k: v for k, v in os.environ.items() if k != "NO_COLOR"})
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert done.returncode == 1
    text = out.decode()
    assert "\033[1;31m" in text and "Recompute it inside the loop" in text


LONG_LOOP = """\
import torch
w = torch.randn(3, requires_grad=True)
h = torch.zeros(3)
for step in range(60):
    h = torch.tanh(w * h + 1)
    loss = h.sum()
    loss.backward(retain_graph=True)
kept = h * 2
kept.sum().backward()
kept.sum().backward()
"""


def test_explain_keeps_the_last_snapshots_of_a_long_loop(tmp_path: Path) -> None:
    """A 60-step loop whose last backward fails: explained from the last snapshots kept (64 by
    default; here 8), with the growth before it."""
    script = tmp_path / "long.py"
    script.write_text(LONG_LOOP)
    for keep in ([], ["--keep-last", "8"], ["--keep-last", "0"]):
        r = cli("explain", *keep, str(script))
        assert r.returncode == 1, r.stderr
        assert "Backward #62 at line 10 (`kept.sum().backward()`) failed" in r.stdout
        # NB: (8 snapshots hold 3 steps' after-backward ones: too few to tell growth)
        assert ("Memory grows with each backward" in r.stdout) == (keep != ["--keep-last", "8"])
        # NB: (by default the last 64 of its 124 snapshots are kept)
        kept = None if keep == ["--keep-last", "0"] else "8" if keep else "64"
        assert ("62 backward call(s) recorded (the diagnosis reads the last "
                f"{kept} snapshots" in r.stdout) == (kept is not None)
        assert ("(the diagnosis reads the last" in r.stdout) == (kept is not None)
    for bad in ("x", "-1"):
        r = cli("explain", "--keep-last", bad, str(script))
        assert r.returncode == 2 and "--keep-last" in r.stderr


def test_explain_reads_a_loop_longer_than_the_snapshots_kept(tmp_path: Path) -> None:
    """40 steps whose ``zero_grad()`` comes between the backward and the step: the first
    snapshots are dropped (64 kept by default), and the parameters never stepped are told from
    the backwards whose snapshots are kept."""
    script = tmp_path / "cleared.py"
    script.write_text("""\
import torch
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randn(16, 1)
for epoch in range(40):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.zero_grad()
    opt.step()
""")
    r = cli("explain", str(script))
    assert r.returncode == 0, r.stderr
    assert "40 backward call(s) recorded (the diagnosis reads the last 64 snapshots" in r.stdout
    assert ("`opt.zero_grad()` at line 9 clears the gradients that line 8 (`loss.backward()`) "
            "just made, before `opt.step()` at line 10 uses them") in r.stdout
    assert "did not change over 32 backwards" in r.stdout


def test_render_keeps_the_last_snapshots_it_is_asked_to(tmp_path: Path) -> None:
    script = tmp_path / "long.py"
    script.write_text(LONG_LOOP)
    r = cli("render", "--keep-last", "3", "--format", "json", "-o", str(tmp_path / "out"),
            str(script))
    assert r.returncode == 1, r.stderr
    data = json.loads((tmp_path / "out" / "recording.json").read_text())
    assert [s["kind"] for s in data["snapshots"]] == ["after_backward", "before_backward",
                                                      "backward_failed"]
    assert len(list((tmp_path / "out").iterdir())) == 1      # the JSON only


WARNS = """\
import torch
x = torch.randn(3, requires_grad=True)
h = x * 2
h.sum().backward()
print(h.grad)
"""


@requires_torch
def test_a_warning_pytorch_raises_points_at_the_users_line(tmp_path: Path) -> None:
    """On real torch an op's warning (here reading a non-leaf's ``.grad``) is raised at the
    innermost Python frame, the recorder's mode: it is shown at the user's line, as without
    the recorder."""
    script = tmp_path / "warns.py"
    script.write_text(WARNS)
    r = cli("explain", "--engine", "torch", str(script))
    assert r.returncode == 0, r.stderr
    assert f"{script}:5: UserWarning: The .grad attribute of a Tensor that is not a leaf" \
        in r.stderr
    assert "torch_engine.py" not in r.stderr


def test_explain_a_script_stopped_by_an_autograd_error_outside_a_backward(tmp_path: Path
                                                                          ) -> None:
    """A weight updated in place with gradients on: the script stops at that line, and
    ``explain`` says why and how to write it, from the graph where it stopped."""
    script = tmp_path / "update.py"
    script.write_text("import torch\n"
                      "w = torch.randn(3, requires_grad=True)\n"
                      "x = torch.randn(3)\n"
                      "loss = (w * x).sum()\n"
                      "loss.backward()\n"
                      "w -= 0.1 * w.grad\n")
    r = cli("explain", str(script))
    assert r.returncode == 1
    assert "RuntimeError: a leaf Variable that requires grad is being used" in r.stderr
    assert "1 backward call(s) recorded; the script stopped at an error" in r.stdout
    assert "Line 6 (`w -= 0.1 * w.grad`) changed `w` in place" in r.stdout
    assert "1. Change it under `torch.no_grad()`" in r.stdout
    assert "`with torch.no_grad(): w -= 0.1 * w.grad`" in r.stdout


@pytest.mark.parametrize("engine", ["native", pytest.param("torch", marks=requires_torch)])
def test_explain_a_project_whose_steps_are_in_another_file(tmp_path: Path, engine: str) -> None:
    """A GAN whose two steps (each with its own ``loss.backward()``) live in ``steps.py``, called
    from the training loop of ``train.py``: the two losses of one step are found through the
    lines that called them, lines of the helper file are named with its file, and the fix to
    build ``fake`` again points at the call in the loop."""
    (tmp_path / "steps.py").write_text(
        "import torch.nn.functional as F\n"
        "\n"
        "def d_step(D, opt_d, real, fake):\n"
        "    opt_d.zero_grad()\n"
        "    loss = F.mse_loss(D(real), real[:, :1]) + F.mse_loss(D(fake), real[:, :1] * 0)\n"
        "    loss.backward()\n"
        "    opt_d.step()\n"
        "\n"
        "def g_step(D, opt_g, fake):\n"
        "    opt_g.zero_grad()\n"
        "    loss = D(fake).pow(2).mean()\n"
        "    loss.backward()\n"
        "    opt_g.step()\n")
    script = tmp_path / "train.py"
    script.write_text(
        "import torch\n"
        "from steps import d_step, g_step\n"
        "torch.manual_seed(0)\n"
        "G, D = torch.nn.Linear(2, 3), torch.nn.Linear(3, 1)\n"
        "opt_g = torch.optim.SGD(G.parameters(), lr=0.1)\n"
        "opt_d = torch.optim.SGD(D.parameters(), lr=0.1)\n"
        "for step in range(2):\n"
        "    real = torch.randn(4, 3)\n"
        "    fake = G(torch.randn(4, 2))\n"
        "    d_step(D, opt_d, real, fake)\n"
        "    g_step(D, opt_g, fake)\n")
    r = cli("explain", "--engine", engine, str(script), cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    out = r.stdout
    assert "Backward #2 at line 12 of steps.py (`loss.backward()`) failed at AddmmBackward0 " \
        "of `fake` (line 9: `fake = G(torch.randn(4, 2))`)" in out
    assert "two losses of one step that share `fake`" in out
    assert "1. Use `fake.detach()` in `loss`" in out
    assert "Line 5 of steps.py: `loss = F.mse_loss(D(real), real[:, :1]) + " \
        "F.mse_loss(D(fake.detach()), real[:, :1] * 0)`" in out
    assert "Run `fake = G(torch.randn(4, 2))` again before line 11 " \
        "(`g_step(D, opt_g, fake)`)" in out
