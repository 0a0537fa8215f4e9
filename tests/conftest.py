"""Shared test setup: the project root is importable (so tests work without an install)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_warn_once() -> None:
    """Each test starts as a fresh process would: once-only warnings not yet given."""
    from graphviz_autograd.engine.messages import reset_warn_once
    reset_warn_once()
