"""Parity with real PyTorch 2.13: every oracle scenario, run on the native engine, must match
the record that real torch produced (shared/oracle/expected/NAME.json)."""

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest
from _shared import ORACLE

if not (ORACLE / "harness.py").is_file():
    pytest.skip(f"oracle not found at {ORACLE}", allow_module_level=True)


def _load_harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("oracle_harness", ORACLE / "harness.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


harness = _load_harness()
SCENARIOS = sorted((ORACLE / "scenarios").glob("*.py"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_matches_pytorch(path: Path) -> None:
    import graphviz_autograd.torch as engine

    expected = json.loads((ORACLE / "expected" / f"{path.stem}.json").read_text(encoding="utf-8"))
    got = harness.run_scenario(str(path), engine)
    differences = harness.diff(expected, got)  # atol/rtol: the harness defaults (1e-5)
    assert not differences, f"{path.stem} differs from PyTorch:\n" + "\n".join(
        "    " + line for line in differences
    )
