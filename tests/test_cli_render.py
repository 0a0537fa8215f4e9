"""``graphviz-autograd render`` and ``show``, run as a user runs them: a subprocess, the files it
writes, its output and its exit status."""

from __future__ import annotations

import json
import os
from pathlib import Path
from xml.etree import ElementTree

import pytest
from render._support import NEEDS_DOT, SEEDS
from test_cli import ROOT, cli

pytestmark = NEEDS_DOT


@pytest.mark.parametrize("stem", SEEDS)
def test_render_writes_every_snapshot_the_json_and_the_page(stem: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = cli("render", f"examples/{stem}.py", "-o", str(out), "--format", "svg,png,json,html")
    # every seed story ends with the failing backward: the script raised
    assert r.returncode == 1, r.stderr
    assert "Traceback (most recent call last)" in r.stderr
    assert "RuntimeError: Trying to backward through the graph a second time" in r.stderr
    rec = json.loads((out / "recording.json").read_text())
    snaps = rec["snapshots"]
    assert snaps[-1]["kind"] == "backward_failed"      # written up to and with the failure
    names = sorted(p.name for p in out.iterdir())
    for s in snaps:
        kind, b = s["kind"], s["backward"]
        what = (f"backward-{b}-failed" if kind == "backward_failed"
                else f"{kind.replace('_', '-')}-{b}")
        assert f"{s['index']:02d}-{what}.svg" in names and f"{s['index']:02d}-{what}.png" in names
    for svg in out.glob("*.svg"):
        ElementTree.fromstring(svg.read_text())
    page = (out / "index.html").read_text()
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    assert f"wrote {2 * len(snaps)} picture(s)" in r.stderr and "index.html" in r.stderr


def test_render_passes_name_argv_and_exit_status(tmp_path: Path) -> None:
    script = tmp_path / "args.py"
    script.write_text("import sys, torch\n"
                      "x = torch.ones(2, requires_grad=True)\n"
                      "(x * 2).sum().backward()\n"
                      "print(__name__, sys.argv[1:])\n"
                      "sys.exit(4)\n")
    out = tmp_path / "o"
    r = cli("render", str(script), "-o", str(out), "--format", "svg,dot", "--", "a", "-o", "b")
    assert r.returncode == 4
    assert r.stdout.strip() == "__main__ ['a', '-o', 'b']"
    assert sorted(p.name for p in out.iterdir()) == [
        "00-before-backward-1.dot", "00-before-backward-1.svg", "01-after-backward-1.dot",
        "01-after-backward-1.svg"]


def test_render_default_folder_and_formats(tmp_path: Path) -> None:
    script = tmp_path / "tiny.py"
    script.write_text("import torch\nx = torch.ones(2, requires_grad=True)\n"
                      "(x * x).sum().backward()\n")
    r = cli("render", str(script), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "tiny-autograd"
    assert {p.suffix for p in out.iterdir()} == {".svg", ".json", ".html"}


def test_render_without_backward_says_nothing_was_recorded(tmp_path: Path) -> None:
    script = tmp_path / "nothing.py"
    script.write_text("import torch\nprint(torch.ones(2) * 2)\n")
    r = cli("render", str(script), "-o", str(tmp_path / "o"))
    assert r.returncode == 0
    assert "nothing was recorded" in r.stderr
    assert not list((tmp_path / "o").glob("*.svg"))


def test_render_bad_input_is_one_line_and_status_2(tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_text("print('ran')\n")
    cases = [
        (["render", str(tmp_path / "missing.py")], "no such file"),
        (["render", str(tmp_path)], "is a directory"),
        (["render", str(good), "--format", "svg,gif"], "unknown format 'gif'"),
        (["render", str(good), "--engine", "jax"], "invalid choice"),
        (["show", str(tmp_path / "missing.json")], "no such file"),
    ]
    if os.geteuid() != 0:         # root can write anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        cases.append((["render", str(good), "-o", str(locked / "o")], "cannot write"))
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    cases.append((["render", str(good), "-o", str(blocker / "sub")], "cannot write"))
    not_rec = tmp_path / "other.json"
    not_rec.write_text('{"format": "something else"}')
    cases.append((["show", str(not_rec)], "not a graphviz-autograd recording"))
    for args, message in cases:
        r = cli(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert message in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr and "ran" not in r.stdout


def test_render_reports_a_syntax_error_as_python_does(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("x = (1,\n")
    r = cli("render", str(bad), "-o", str(tmp_path / "o"))
    assert r.returncode == 1
    assert "SyntaxError" in r.stderr and "Traceback" not in r.stderr


def test_show_draws_a_saved_recording_again(tmp_path: Path) -> None:
    first = tmp_path / "first"
    cli("render", "examples/seed002_two_losses.py", "-o", str(first), "--format", "svg,json")
    again = tmp_path / "again"
    r = cli("show", str(first / "recording.json"), "-o", str(again), "--format", "svg,html")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in again.glob("*.svg")) == \
        sorted(p.name for p in first.glob("*.svg"))
    for svg in again.glob("*.svg"):
        assert svg.read_text() == (first / svg.name).read_text()
    assert (again / "index.html").is_file()


def test_quickstart_demo_renders_seed000_and_says_where(tmp_path: Path) -> None:
    r = cli("render", str(ROOT / "examples" / "seed000_shared_y.py"), cwd=tmp_path)
    assert r.returncode == 1
    assert "open seed000_shared_y-autograd/index.html" in r.stderr


@pytest.mark.parametrize("stem", SEEDS)
def test_render_engine_torch_on_real_pytorch(stem: str, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    native, real = tmp_path / "native", tmp_path / "torch"
    cli("render", f"examples/{stem}.py", "-o", str(native), "--format", "svg,json")
    r = cli("render", f"examples/{stem}.py", "--engine", "torch", "-o", str(real),
            "--format", "svg,json,html")
    assert r.returncode == 1, r.stderr
    assert "RuntimeError: Trying to backward through the graph a second time" in r.stderr
    # the same snapshots, named the same, on real PyTorch
    assert sorted(p.name for p in real.glob("*.svg")) == sorted(p.name for p in
                                                                native.glob("*.svg"))
    kinds = [s["kind"] for s in json.loads((real / "recording.json").read_text())["snapshots"]]
    assert kinds[-1] == "backward_failed" and (real / "index.html").is_file()


def test_render_draws_the_graph_where_the_script_stopped(tmp_path: Path) -> None:
    """Nothing lost: a script that stops at an error before any backward still gets the
    picture of its graph then, with the error; one that does not compile gets none."""
    script = tmp_path / "stops.py"
    script.write_text("import torch\n"
                      "x = torch.randn(3, requires_grad=True)\n"
                      "y = x.exp()\n"
                      "arr = y.numpy()\n")
    out = tmp_path / "o"
    r = cli("render", str(script), "-o", str(out), "--format", "svg,json,html")
    assert r.returncode == 1 and "Can't call numpy()" in r.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "00-manual-runtimeerror-raised.svg", "index.html", "recording.json"]
    (snap,) = json.loads((out / "recording.json").read_text())["snapshots"]
    assert snap["error"]["type"] == "RuntimeError" and snap["source"]["line"] == 4
    assert sorted(n["name"] for n in snap["nodes"]) == ["ExpBackward0",
                                                        "torch::autograd::AccumulateGrad"]
    svg = (out / "00-manual-runtimeerror-raised.svg").read_text()
    assert "RuntimeError: Can&#x27;t call numpy() on Tensor that requires grad" in svg
    bad = tmp_path / "bad.py"
    bad.write_text("x = (1,\n")
    r = cli("render", str(bad), "-o", str(tmp_path / "b"), "--format", "svg")
    assert r.returncode == 1 and "nothing was recorded" in r.stderr
