"""Writing a benchmark's table into docs/benchmarks.md: each script owns one marked section."""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["replace_section", "machine", "now"]


def replace_section(path: Path, start: str, end: str, section: str) -> None:
    """Replace the text between ``start`` and ``end`` (markers included) in ``path`` by
    ``section``, or append it; everything else in the file stays."""
    old = path.read_text() if path.exists() else "# Benchmarks\n"
    if start in old and end in old:
        new = old[:old.index(start)] + section + old[old.index(end) + len(end):]
    else:
        new = old.rstrip("\n") + "\n\n" + section + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new)


def machine() -> str:
    return platform.processor() or platform.machine()


def now() -> str:
    return f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
