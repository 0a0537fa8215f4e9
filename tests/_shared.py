"""Where ``shared/`` (the oracle, the seeds) is: ``$GVA_SHARED``, else a ``shared`` folder beside
the repository or beside one of its parents, else /work/shared."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def find_shared() -> Path | None:
    env = os.environ.get("GVA_SHARED")
    candidates = [Path(env)] if env else []
    candidates += [p / "shared" for p in REPO.parents]
    candidates.append(Path("/work/shared"))
    for c in candidates:
        if (c / "oracle" / "harness.py").is_file():
            return c
    return None


SHARED = find_shared()
ORACLE = SHARED / "oracle" if SHARED is not None else REPO.parent / "shared" / "oracle"
