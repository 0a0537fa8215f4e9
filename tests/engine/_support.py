"""Differential testing: run one snippet with real PyTorch and with ``graphviz_autograd.torch``,
record what can be observed (values, grads, errors, warnings, node names, saved-tensor states,
versions, hook orders) and compare the two records.

A snippet is a function ``snippet(rec)``; it gets the module to use as ``rec.torch`` and records
observations with ``rec.note`` / ``rec.attempt`` / ``rec.grad`` / ``rec.graph``.
"""

from __future__ import annotations

import functools
import json
import math
import re
import subprocess
import sys
import traceback
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import graphviz_autograd.torch as ours

__all__ = ["BACKWARD_TWICE", "Recorder", "Snippet", "assert_same", "clean", "differential",
           "engines", "normalise", "real_torch", "run_snippet", "saved_states", "walk",
           "warnings_in_fresh_process"]

BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)

_TRIGGERED = re.compile(r" \(Triggered internally at [^)]*\)")


def clean(text: str) -> str:
    """An error or warning text without PyTorch's C++ location suffixes."""
    return _TRIGGERED.sub("", text).split("\nException raised from ")[0]


def real_torch() -> ModuleType:
    """Real PyTorch, or skip the test."""
    return pytest.importorskip("torch")


def engines() -> list[Any]:
    """``pytest.param``s for a test parametrised over both modules (torch skipped if absent)."""
    from _markers import requires_torch

    return [pytest.param("torch", marks=requires_torch, id="torch"),
            pytest.param("ours", id="ours")]


def module_named(name: str) -> ModuleType:
    return real_torch() if name == "torch" else ours


def _is_tensor(v: Any) -> bool:
    return hasattr(v, "grad_fn") and hasattr(v, "tolist") and hasattr(v, "requires_grad")


def _is_node(v: Any) -> bool:
    return hasattr(v, "next_functions") and callable(getattr(v, "name", None))


def normalise(v: Any) -> Any:
    """A plain, comparable form of an observation."""
    if v is None or isinstance(v, bool | int | float | str):
        return v
    if _is_tensor(v):
        return {"tensor": v.detach().tolist(), "shape": list(v.shape)}
    if _is_node(v):
        return {"node": v.name()}
    if isinstance(v, BaseException):
        return {"error_type": type(v).__name__, "message": clean(str(v))}
    if isinstance(v, list | tuple):
        return [normalise(x) for x in v]
    if isinstance(v, dict):
        return {str(k): normalise(x) for k, x in v.items()}
    return str(v)          # dtypes, torch.Size, ...


def _warning_texts(caught: list[warnings.WarningMessage]) -> list[dict[str, str]]:
    return [{"category": w.category.__name__, "message": clean(str(w.message))} for w in caught]


def saved_states(node: Any) -> dict[str, str]:
    """``{saved name: "alive" | "freed" | "modified"}``, the oracle's rule for each ``_saved_X``."""
    out: dict[str, str] = {}
    for attr in sorted(dir(node)):
        if not attr.startswith("_saved_"):
            continue
        try:
            value = getattr(node, attr)
        except RuntimeError as e:
            out[attr[len("_saved_"):]] = ("freed" if "backward through the graph a second time"
                                          in str(e) else "modified")
            continue
        if _is_tensor(value) or (isinstance(value, list | tuple) and value
                                 and all(_is_tensor(x) for x in value)):
            out[attr[len("_saved_"):]] = "alive"
    return out


def walk(t: Any, leaves: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The graph of ``t`` in the oracle's canonical form: a pre-order walk from ``t.grad_fn``
    along ``next_functions``; each distinct node gets the index of its first visit."""
    root = t.grad_fn
    if root is None:
        return []
    nodes: list[Any] = []
    entries: list[dict[str, Any]] = []

    def index(node: Any) -> int | None:
        for i, n in enumerate(nodes):
            if n is node:
                return i
        return None

    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if index(node) is not None:
            continue
        nodes.append(node)
        entry: dict[str, Any] = {"name": node.name(), "saved": saved_states(node)}
        variable = getattr(node, "variable", None)
        if variable is not None and leaves:
            entry["leaf"] = next((k for k, v in leaves.items() if v is variable), None)
        entries.append(entry)
        stack.extend(n for n, _ in reversed(node.next_functions) if n is not None)
    for node, entry in zip(nodes, entries):
        entry["next"] = [None if n is None else index(n) for n, _ in node.next_functions]
    return entries


class Recorder:
    """Collects ``(label, observation)`` pairs for one run of a snippet."""

    def __init__(self, torch: ModuleType) -> None:
        self.torch = torch
        self.events: list[tuple[str, Any]] = []

    @property
    def is_real(self) -> bool:
        return self.torch is not ours

    def note(self, label: str, value: Any) -> None:
        self.events.append((label, normalise(value)))

    def attempt(self, label: str, fn: Callable[[], Any], record_warnings: bool = True) -> bool:
        """Call ``fn``; record its value or its error, and the warnings it raised (leave out
        ``record_warnings`` for warnings PyTorch gives once per process)."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value = fn()
            except Exception as e:
                outcome: Any = normalise(e)
                ok = False
            else:
                outcome = {"ok": normalise(value)}
                ok = True
        entry: dict[str, Any] = {"outcome": outcome}
        if record_warnings:
            entry["warnings"] = _warning_texts(caught)
        self.events.append((label, entry))
        return ok

    def grad(self, label: str, **tensors: Any) -> None:
        """Each tensor's ``.grad`` (with the warnings reading it raises)."""
        for name, t in tensors.items():
            self.attempt(f"{label}: {name}.grad", functools.partial(getattr, t, "grad"))

    def graph(self, label: str, **tensors: Any) -> None:
        """The canonical graph of each named tensor, saved states included."""
        leaves = {k: v for k, v in tensors.items() if v.grad_fn is None}
        self.note(label, {k: walk(v, leaves) for k, v in tensors.items()})


Snippet = Callable[[Recorder], None]


def run_snippet(snippet: Snippet, torch: ModuleType) -> list[tuple[str, Any]]:
    rec = Recorder(torch)
    if torch is ours:
        try:
            snippet(rec)
        except Exception as e:     # keep what was recorded so far: the diff shows where it broke
            rec.events.append(("uncaught", {**normalise(e),
                                            "traceback": traceback.format_exc(limit=-4)}))
    else:
        snippet(rec)
    return rec.events


def _diff(a: Any, b: Any, path: str, out: list[str], abs_tol: float = 1e-6) -> None:
    num = (int, float)
    if isinstance(a, num) and isinstance(b, num) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        if isinstance(a, int) and isinstance(b, int):
            if a != b:
                out.append(f"{path}: torch {a!r} != ours {b!r}")
        elif not (math.isclose(a, b, rel_tol=1e-5, abs_tol=abs_tol)
                  or (math.isnan(a) and math.isnan(b))):
            out.append(f"{path}: torch {a!r} != ours {b!r}")
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: torch has {len(a)} items, ours {len(b)}:\n"
                       f"      torch {a!r}\n      ours  {b!r}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            _diff(x, y, f"{path}[{i}]", out, abs_tol)
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: torch {a.get(k, '<missing>')!r} != "
                           f"ours {b.get(k, '<missing>')!r}")
            else:
                _diff(a[k], b[k], f"{path}.{k}", out, abs_tol)
        return
    if type(a) is not type(b) or a != b:
        out.append(f"{path}: torch {a!r} != ours {b!r}")


def assert_same(expected: list[tuple[str, Any]], got: list[tuple[str, Any]],
                abs_tol: float = 1e-6) -> None:
    """Every recorded observation of ours equals torch's (floats to 1e-5, or ``abs_tol`` near
    zero), in the same order."""
    diffs: list[str] = []
    for i in range(max(len(expected), len(got))):
        if i >= len(expected):
            diffs.append(f"extra observation in ours: {got[i]!r}")
            continue
        if i >= len(got):
            diffs.append(f"missing in ours: {expected[i]!r}")
            continue
        (la, a), (lb, b) = expected[i], got[i]
        if la != lb:
            diffs.append(f"observation {i}: torch recorded {la!r} = {a!r}, ours {lb!r} = {b!r}")
            break
        _diff(a, b, la, diffs, abs_tol)
    if diffs:
        raise AssertionError("differs from PyTorch 2.13:\n  " + "\n  ".join(diffs[:30]))


def differential(snippet: Snippet, abs_tol: float = 1e-6) -> list[tuple[str, Any]]:
    """Run ``snippet`` with real torch and with ours and assert the records match. Returns
    torch's record (for checks that the snippet exercised what it meant to)."""
    real = real_torch()
    expected = run_snippet(snippet, real)
    assert expected, "the snippet recorded nothing"
    got = run_snippet(snippet, ours)
    assert_same(expected, got, abs_tol)
    return expected


def outcome(record: list[tuple[str, Any]], label: str) -> Any:
    """The recorded observation called ``label`` (the first one)."""
    for la, value in record:
        if la == label:
            return value
    raise KeyError(label)


ROOT = Path(__file__).resolve().parents[2]


def warnings_in_fresh_process(module: str, setup: str, calls: Sequence[str]) -> list[list[str]]:
    """The warning texts each statement of ``calls`` raises, run one after the other in a new
    interpreter with ``import <module> as torch`` and ``setup`` (for warnings PyTorch gives
    only once per process, whose state a test process cannot reset)."""
    script = (
        "import json, warnings\n"
        f"import {module} as torch\n"
        f"{setup}\n"
        "out = []\n"
        f"for code in {list(calls)!r}:\n"
        "    with warnings.catch_warnings(record=True) as caught:\n"
        "        warnings.simplefilter('always')\n"
        "        exec(code, globals())\n"
        "    out.append([str(w.message) for w in caught])\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result: list[list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return [[clean(m) for m in texts] for texts in result]


def fixed_parameters(torch: ModuleType, module: Any) -> None:
    """The same parameters on both engines, whatever each engine's random numbers."""
    import numpy as np
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            n = int(np.prod(p.shape))
            values = np.cos(np.arange(n) * 0.7 + i).reshape(tuple(p.shape)) * 0.5
            p.copy_(torch.tensor(values.tolist(), dtype=p.dtype))
