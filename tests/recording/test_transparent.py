"""Recording changes nothing: every scenario (the oracle's and ours) gives the same record with
and without ``record()`` around it, and its snapshots and diagnoses can all be derived."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest
from _shared import ORACLE

import graphviz_autograd
import graphviz_autograd.torch as native
from graphviz_autograd.engine.messages import reset_warn_once

if not (ORACLE / "harness.py").is_file():
    pytest.skip(f"oracle not found at {ORACLE}", allow_module_level=True)

OURS = Path(__file__).resolve().parents[1] / "scenarios"
PATHS = sorted((ORACLE / "scenarios").glob("*.py")) + sorted(OURS.glob("*.py"))


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("oracle_harness_tr", ORACLE / "harness.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


H = _harness()


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_recording_changes_nothing(path: Path) -> None:
    reset_warn_once()
    plain = H.run_scenario(os.fspath(path), native)
    reset_warn_once()
    with graphviz_autograd.record() as rec:
        recorded = H.run_scenario(os.fspath(path), native)
    assert H.diff(plain, recorded) == []
    for snap in rec.snapshots:
        snap.to_dict()
    graphviz_autograd.explain(rec)
