"""Helpers for reading recordings in the recorder's tests."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _markers import requires_torch

import graphviz_autograd.torch as native
from graphviz_autograd.recording import NodeInfo, Recording, Snapshot

__all__ = ["here", "before", "after", "snap", "only_labelled", "reachable", "fix_keys",
           "is_accumulate", "ON_BOTH_ENGINES", "torch_of", "run_script", "rewritten"]

# a test run on the native engine and on real torch (skipped without it): its ``engine``
# argument is the name ``record(engine=...)`` takes
ON_BOTH_ENGINES = pytest.mark.parametrize(
    "engine", ["native", pytest.param("torch", marks=requires_torch)])


def torch_of(engine: str) -> ModuleType:
    """The torch module a program runs on for ``engine``: the native one, or real torch."""
    return native if engine == "native" else importlib.import_module("torch")


def run_script(torch: ModuleType, path: Path, text: str) -> dict[str, Any]:
    """Run ``text`` as the user's script ``path`` (written there, so an explanation reads its
    lines), with ``torch`` bound: its globals afterwards."""
    path.write_text(text)
    scope: dict[str, Any] = {"torch": torch}
    exec(compile(text, str(path), "exec"), scope)
    return scope


def rewritten(text: str, detail: str) -> str:
    """The program ``text`` with each ```code` at line N`` of a fix's detail put in place of
    its line N, at that line's indentation."""
    lines = text.splitlines()
    for code, line in re.findall(r"`([^`]+)` at line (\d+)", detail):
        old = lines[int(line) - 1]
        lines[int(line) - 1] = old[:len(old) - len(old.lstrip())] + code
    return "\n".join(lines) + "\n"


def here() -> int:
    """The caller's current line number (``line = here() + 1`` names the next line)."""
    return sys._getframe(1).f_lineno


def snap(rec: Recording, index: int | None) -> Snapshot:
    assert index is not None
    for s in rec.snapshots:
        if s.index == index:
            return s
    raise KeyError(index)


def before(rec: Recording, number: int) -> Snapshot:
    """The snapshot taken just before backward #number (1-based)."""
    s = snap(rec, rec.backwards[number - 1].snapshot_before)
    assert s.kind == "before_backward" and s.backward == number
    return s


def after(rec: Recording, number: int) -> Snapshot:
    """The snapshot taken just after backward #number (after_backward or backward_failed)."""
    s = snap(rec, rec.backwards[number - 1].snapshot_after)
    assert s.kind in ("after_backward", "backward_failed") and s.backward == number
    return s


def only_labelled(s: Snapshot, label: str) -> NodeInfo:
    """The one node bound to the user's variable ``label``."""
    found = s.nodes_labelled(label)
    assert len(found) == 1, (label, [(n.id, n.name, n.labels) for n in s.nodes])
    return found[0]


def reachable(s: Snapshot, start: str) -> list[NodeInfo]:
    """The nodes reached from node ``start`` (itself included)."""
    by_id = {n.id: n for n in s.nodes}
    seen: set[str] = set()
    out: list[NodeInfo] = []
    stack = [start]
    while stack:
        nid = stack.pop()
        if nid in seen or nid not in by_id:
            continue
        seen.add(nid)
        out.append(by_id[nid])
        stack.extend(m for m in by_id[nid].next if m is not None)
    return out


def is_accumulate(n: NodeInfo) -> bool:
    return n.name == "torch::autograd::AccumulateGrad"


def fix_keys(d: Any) -> list[str]:
    return [f.key for f in d.fixes]
