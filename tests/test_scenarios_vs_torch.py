"""Parity with real PyTorch 2.13 on our own scenarios (tests/scenarios/*.py, oracle format).

Each scenario runs through the oracle harness twice, once with real torch and once with
graphviz_autograd.torch, and the two records must not differ. Both runs happen in a forked
child of a helper process (tests/_scenario_runner.py) that imported torch once, so each
scenario sees torch's once-per-process warnings as a fresh process would, whatever the order.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _markers import HAS_TORCH
from _shared import ORACLE

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "_scenario_runner.py"
SCENARIOS = sorted((HERE / "scenarios").glob("*.py"))

if not HAS_TORCH:
    pytest.skip("needs PyTorch (pip install -e '.[torch]')", allow_module_level=True)
if not (ORACLE / "harness.py").is_file():
    pytest.skip(f"oracle not found at {ORACLE}", allow_module_level=True)

pytestmark = pytest.mark.torch


def _load_harness() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("oracle_harness", ORACLE / "harness.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


harness = _load_harness()


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run every scenario once (both engines), in one helper process."""
    out = tmp_path_factory.mktemp("scenario_records") / "records.json"
    proc = subprocess.run(
        [sys.executable, str(RUNNER), str(ORACLE), str(out), *map(str, SCENARIOS)],
        capture_output=True, text=True, timeout=60 + 70 * len(SCENARIOS), check=False,
    )
    assert proc.returncode == 0, f"scenario runner failed:\n{proc.stdout}\n{proc.stderr}"
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_matches_real_torch(path: Path, records: dict[str, Any]) -> None:
    rec = records[path.stem]
    assert "error" not in rec, f"{path.stem}: runner error: {rec['error']}"
    theirs, ours = rec["torch"], rec["ours"]
    bad = [e for e in theirs["events"] if e["event"] in ("uncaught", "stray_warnings")]
    assert not bad, f"{path.stem}: the scenario itself misbehaves under real torch: {bad}"
    differences = harness.diff(theirs, ours)
    assert not differences, f"{path.stem} differs from PyTorch:\n" + "\n".join(
        "    " + line for line in differences
    )
