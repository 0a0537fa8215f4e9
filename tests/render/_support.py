"""Recording the example scripts for the renderer's tests."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from graphviz_autograd.recording import Recording, record
from graphviz_autograd.runner import run_script
from graphviz_autograd.torch_alias import native_torch

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SEEDS = sorted(p.stem for p in EXAMPLES.glob("seed*.py"))

_no_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def needs_dot(f: Any) -> Any:
    """Marks a test that runs Graphviz's ``dot`` (``-m dot``); it skips where dot is missing."""
    return pytest.mark.dot(_no_dot(f))


# the same, for a whole module: `pytestmark = NEEDS_DOT`
NEEDS_DOT = [pytest.mark.dot, _no_dot]


def record_example(stem: str) -> Recording:
    """Run ``examples/<stem>.py`` as the CLI does (``import torch`` is the engine), recording."""
    with native_torch(), record() as rec:
        run_script(str(EXAMPLES / f"{stem}.py"), [])
    return rec


_FRESH = """
import json, sys
from graphviz_autograd.recording import record
from graphviz_autograd.runner import run_script
from graphviz_autograd.torch_alias import native_torch
with native_torch(), record() as rec:
    run_script(sys.argv[1], [])
print(json.dumps([[s.index, s.kind, s.to_dot()] for s in rec.snapshots]))
"""


def dots_in_fresh_process(stem: str) -> list[tuple[int, str, str]]:
    """The DOT of every snapshot of an example, recorded in a fresh interpreter (so node ids do
    not depend on what ran before), with the repository's path written as ``<root>``."""
    done = subprocess.run([sys.executable, "-c", _FRESH, str(EXAMPLES / f"{stem}.py")],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    out = json.loads(done.stdout.splitlines()[-1])
    return [(i, kind, dot.replace(str(ROOT), "<root>")) for i, kind, dot in out]
