"""Recording one program on both engines and comparing what the recordings say (the fuzz's
``full_story``: ``test_torch_engine.story`` plus errors, memory, collected counts and the
diagnoses); and programs that open their own recordings (``run_both_segments``): each
recording's story read when its block ended and at the end, saved and loaded back, and no
tensor kept alive by any."""

from __future__ import annotations

import gc
import json
import re
import warnings
import weakref
from pathlib import Path
from typing import Any

import jsonschema

import graphviz_autograd
import graphviz_autograd.torch as native
from graphviz_autograd.recording import Recording, schema

__all__ = ["run_both", "full_story", "first_difference", "run_both_segments",
           "segments_difference"]

_BUILT_AT = re.compile(r" \(line \d+: `[^`]*`\)")


def _run(path: Path, t: Any, engine: str) -> tuple[Recording, Any]:
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    scope: dict[str, Any] = {"t": t, "nn": t.nn, "F": t.nn.functional, "__name__": "__main__"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with graphviz_autograd.record(engine=engine) as rec:
            scope["rec"] = rec
            try:
                exec(code, scope)
            except Exception as e:
                scope.setdefault("errors", []).append(("uncaught", type(e).__name__, str(e)))
    return rec, scope.get("errors")


def run_both(path: Path) -> tuple[tuple[Recording, Any], tuple[Recording, Any]]:
    import torch
    return _run(path, native, "native"), _run(path, torch, "torch")


def _noid(s: str, ids: set[str]) -> str:
    for i in sorted(ids, key=len, reverse=True):
        s = s.replace(i, "#")
    return s


def _accumulators_sorted(steps: list[Any]) -> list[Any]:
    """Steps with each run of leaf accumulators in a sorted order: PyTorch's ready queue runs
    accumulators (all of the same, highest, priority) in its heap's order for ties, the native
    engine in the order they became ready (a known difference)."""
    out: list[Any] = []
    run: list[Any] = []
    for st in [*steps, None]:
        if st is not None and st[0] == "torch::autograd::AccumulateGrad":
            run.append(st)
            continue
        out += sorted(run, key=repr)
        run = []
        if st is not None:
            out.append(st)
    return out


_HERE = re.compile(r" \([^()]* here\)")


def _freed_unseen(b: Any) -> bool:
    """A buffer freed by a backward before the recording found its node: the native engine
    knows its size (and a list's members); real torch keeps nothing of it (a known
    difference)."""
    return bool(b.state == "freed" and b.released_by is None)


def _slot(b: Any) -> str:
    return str(b.name.partition("[")[0] if _freed_unseen(b) else b.name)


def _line(n: Any) -> int | None:
    return (n.source or {}).get("line")


def full_story(rec: Recording) -> list[Any]:
    """What the recording says, the engines' ids left out."""
    empty = {b.snapshot_before for b in rec.backwards if not b.roots} | \
        {b.snapshot_after for b in rec.backwards if not b.roots}
    out: list[Any] = []
    ids = {n.id for s in rec.snapshots for n in s.nodes}
    for s in rec.snapshots:
        if s.index in empty:
            continue
        names = {n.id: n.name for n in s.nodes}
        nodes = sorted(((n.name, tuple(sorted(n.labels)),
                        tuple(sorted({(_slot(b), b.state, b.released_by,
                                       tuple(b.versions or ())) for b in n.saved})),
                        n.shared, _line(n), n.recorded, n.created_by,
                        tuple(n.executed_by)) for n in s.nodes), key=repr)
        tensors = sorted((x.label or "", tuple(x.shape), x.dtype, x.requires_grad, x.is_leaf,
                          names.get(x.grad_fn or ""), repr(x.grad), x.version)
                         for x in s.tensors)
        p = s.prediction
        preds = sorted((q.will_fail, names.get(q.node or ""), q.kind) for q in s.predictions)
        err = (s.error or {}).get("message", "").split("\n")[0] if s.error else None
        unseen = sum(b.nbytes for n in s.nodes for b in n.saved if _freed_unseen(b))
        mem = (s.memory.get("saved_bytes_alive"), s.memory.get("saved_bytes_freed") - unseen)
        out.append(("snapshot", s.kind, s.label if s.kind == "manual" else "", nodes,
                    (p.will_fail, names.get(p.node or ""), p.kind) if p else None, preds,
                    err, mem, len(s.collected), names.get(s.failed_at or ""), tensors,
                    (s.source or {}).get("line")))
    node_names = {n.id: n.name for s in rec.snapshots for n in s.nodes}
    for b in rec.backwards:
        if not b.roots:
            continue
        out.append(("backward", b.api, b.retain_graph, b.create_graph,
                    _accumulators_sorted([(st.name, st.grad_shape,
                                           sorted(r["name"] for r in st.released))
                                          for st in b.steps]), node_names.get(b.failed_at or ""),
                    (b.error or {}).get("type") if b.error else None))
    for d in graphviz_autograd.diagnose(rec):
        summary = _noid(d.summary, ids)
        if not (d.node_name[-1:].isdigit() or d.node_name.startswith("torch::")):
            summary = _BUILT_AT.sub("", summary)      # (see ``_line``)
        keys = [f.key for f in d.fixes]
        details = [_noid(f.detail, ids) for f in d.fixes]
        if "recompute" in keys:
            details = [_HERE.sub("", x) for x in details]    # (see ``_freed_unseen``)
        out.append(("diagnosis", d.kind, d.predicted, d.node_name,
                    sorted({b.partition("[")[0] for b in d.buffers}), d.freed_by, summary,
                    keys, details))
    return out


def first_difference(a: list[Any], b: list[Any]) -> str | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            if isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y):
                parts = []
                for j, (u, v) in enumerate(zip(x, y, strict=True)):
                    if u != v:
                        if isinstance(u, list) and isinstance(v, list):
                            u, v = [e for e in u if e not in v], [e for e in v if e not in u]
                        parts.append(f"field {j}:\n  native: {u}\n  torch:  {v}")
                return f"item {i} ({x[0]}, {x[1]}): " + "\n".join(parts)
            return f"item {i}:\n  native: {x}\n  torch:  {y}"
    if len(a) != len(b):
        longer, n = (a, len(b)) if len(a) > len(b) else (b, len(a))
        return f"lengths {len(a)} vs {len(b)}: the longer goes on with {longer[n:][:2]}"
    return None


class _NotRecording:
    def snapshot(self, label: str | None = None) -> None:
        return None


def _run_segments(path: Path, t: Any, engine: str, recording: bool = True
                  ) -> tuple[list[Recording], list[Any], Any]:
    """A program that opens its own recordings (``record()``, as many as it likes, nested or
    one after another, with code outside any): each recording, its story read right after its
    block ended, and the program's errors."""
    import contextlib
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    recs: list[Recording] = []
    stories: list[Any] = []

    @contextlib.contextmanager
    def record(**kw: Any) -> Any:
        if not recording:
            yield _NotRecording()
            return
        with graphviz_autograd.record(engine=engine, **kw) as rec:
            recs.append(rec)
            i = len(recs) - 1
            try:
                yield rec
            finally:
                rec.stop()
                stories.append((i, full_story(rec)))

    scope: dict[str, Any] = {"t": t, "nn": t.nn, "F": t.nn.functional, "__name__": "__main__",
                             "record": record, "rec": None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(code, scope)
        except Exception as e:
            scope.setdefault("errors", []).append(("uncaught", type(e).__name__, str(e)))
    # NB: no recording keeps the program's tensors alive once it drops them
    refs = []
    for v in list(scope.values()):
        for x in v if isinstance(v, (list, tuple)) else v.values() if isinstance(v, dict) \
                else (v,):
            if isinstance(x, t.Tensor):
                refs.append(weakref.ref(x))
            elif isinstance(x, t.nn.Module):
                refs += [weakref.ref(p) for p in x.parameters()]
    kept = {"errors": scope.get("errors")}
    scope.clear()
    del v, x
    gc.collect()
    kept["alive"] = sum(r() is not None for r in refs)
    if kept["alive"] and recording:
        # NB: what the program keeps alive unrecorded (a failed backward on real torch can
        # keep its graph's leaves) is not the recording's doing
        kept["alive"] -= _run_segments(path, t, engine, False)[2]["alive"]
    return recs, stories, kept


def run_both_segments(path: Path) -> tuple[tuple[list[Recording], list[Any], Any],
                                           tuple[list[Recording], list[Any], Any]]:
    import torch
    return _run_segments(path, native, "native"), _run_segments(path, torch, "torch")


def segments_difference(a: tuple[list[Recording], list[Any], Any],
                        b: tuple[list[Recording], list[Any], Any]) -> str | None:
    """Where two runs of a program with its own recordings differ: its errors, the number of
    recordings, each recording's story as read right after its block and as read at the end."""
    (recs_a, early_a, scope_a), (recs_b, early_b, scope_b) = a, b
    if scope_a.get("errors") != scope_b.get("errors"):
        return f"errors: {scope_a.get('errors')} vs {scope_b.get('errors')}"
    if scope_a["alive"] or scope_b["alive"]:
        return f"tensors kept alive: {scope_a['alive']} vs {scope_b['alive']}"
    if len(recs_a) != len(recs_b):
        return f"recordings: {len(recs_a)} vs {len(recs_b)}"
    for (i, x), (_, y) in zip(early_a, early_b, strict=True):
        diff = first_difference(x, y)
        if diff is not None:
            return f"recording {i}, read when it ended: {diff}"
    for i, (ra, rb) in enumerate(zip(recs_a, recs_b, strict=True)):
        a, b = full_story(ra), full_story(rb)
        diff = first_difference(a, b)
        if diff is not None:
            return f"recording {i}, read at the end: {diff}"
        # NB: saved (valid against the schema) and loaded back, each tells the same story
        for rec, story in ((ra, a), (rb, b)):
            saved = rec.to_dict()
            try:
                jsonschema.validate(saved, schema())
            except jsonschema.ValidationError as e:
                return f"recording {i} ({rec.engine.name}) saved is not valid: {e.message}"
            back = Recording.from_dict(json.loads(json.dumps(saved)))
            if back.to_dict() != saved:
                return f"recording {i} ({rec.engine.name}): loaded back, it is another"
            diff = first_difference(story, full_story(back))
            if diff is not None:
                return f"recording {i} ({rec.engine.name}), saved and loaded: {diff}"
    return None
