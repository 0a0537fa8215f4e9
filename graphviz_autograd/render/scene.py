"""What a picture shows, as plain data: boxes (nodes, saved buffers, folded groups, ghosts) with
their style and text, and the links between them. Made from a snapshot, or from a snapshot plus
the steps a backward has run so far. Both the DOT writer and the SVG writer draw scenes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..recording.snapshot import NodeInfo, SavedInfo, Snapshot

__all__ = ["SLOTS", "Box", "Link", "Scene", "scene_of", "restyled", "shape_text", "nbytes_text"]

# the lines of a box, top to bottom; a box may leave any of them out
SLOTS = ("title", "vars", "shape", "source", "status", "alert")
_SOURCE_CHARS = 44
_VARS_CHARS = 36


@dataclass(slots=True)
class Box:
    id: str
    style: str                     # a key of theme.STYLES
    lines: dict[str, str]          # slot -> text
    tooltip: str
    kind: str                      # node | leaf | saved | fold | ghost
    owner: str | None = None       # saved buffers: their node


@dataclass(slots=True)
class Link:
    id: str
    tail: str                      # drawn from the input ...
    head: str                      # ... to the node that consumes it (forward direction)
    kind: str                      # a key of theme.EDGES


@dataclass(slots=True)
class Scene:
    title: str
    notes: list[str]
    boxes: dict[str, Box]
    links: dict[str, Link]
    state: dict[str, Any] = field(default_factory=dict)   # for viewers: what is highlighted


def shape_text(shape: Iterable[int]) -> str:
    dims = list(shape)
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def nbytes_text(n: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _dtype(d: str) -> str:
    return d.removeprefix("torch.")


def _kept_text(s: SavedInfo) -> str:
    """The bytes a saved buffer keeps alive; more than its own elements when it views a larger
    storage (PyTorch keeps the whole storage), which the text then says."""
    try:
        own = math.prod(s.shape) * np.dtype(_dtype(s.dtype)).itemsize
    except TypeError:
        own = s.nbytes
    text = nbytes_text(s.nbytes)
    return f"{text} (the storage it views)" if s.nbytes > own else text


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _source_line(src: Mapping[str, Any] | None) -> str:
    if not src:
        return ""
    code = _clip(str(src.get("code") or ""), _SOURCE_CHARS)
    return f"line {src['line']}: {code}" if code else f"line {src['line']}"


def _is_leaf(node: NodeInfo) -> bool:
    return node.name.endswith("AccumulateGrad")


def _shape_dtype(s: SavedInfo) -> str:
    """``(2, 3) float32``; "shape unknown" for a buffer freed before a real-torch recording saw
    it (PyTorch keeps no shape of a freed value)."""
    if s.dtype == "unknown":
        return "shape unknown"
    return f"{shape_text(s.shape)} {_dtype(s.dtype)}"


def _saved_state_text(s: SavedInfo) -> str:
    if s.state == "freed":
        return f"freed by backward #{s.released_by}" if s.released_by else "freed"
    if s.state == "modified":
        v = s.versions or []
        return f"modified in place v{v[0]}→v{v[1]}" if len(v) == 2 else "modified in place"
    if s.packed:        # kept as a saved-tensor hook made it (a checkpoint's empty holder)
        return f"packed by a hook · {nbytes_text(s.nbytes)}"
    return f"alive · {nbytes_text(s.nbytes)}"


def scene_of(snap: Snapshot, *, fold: Mapping[str, str] | None = None,
             ghosts: Mapping[str, NodeInfo] | None = None, steps: bool = False) -> Scene:
    """The scene of one snapshot. ``steps=True`` gives the base of the step views of the
    backward that follows it: no prediction marks, no ghosts (``restyled`` does the rest)."""
    tensors_by_fn = {t.grad_fn: t for t in snap.tensors if t.grad_fn}
    tensors = {t.id: t for t in snap.tensors}
    pred = snap.prediction if snap.prediction is not None and snap.prediction.will_fail else None
    if steps:
        pred = None
    failed_at = snap.failed_at if snap.kind == "backward_failed" and not steps else None
    fold = fold or {}
    boxes: dict[str, Box] = {}
    links: dict[str, Link] = {}
    groups: dict[str, list[NodeInfo]] = {}
    unmarked: dict[str, Box] = {}          # the boxes marked "fails"/"failed", as they were
    present = {n.id for n in snap.nodes}
    for node in snap.nodes:
        group = fold.get(node.id)
        if group is not None:
            groups.setdefault(group, []).append(node)
            continue
        boxes[node.id] = _node_box(node, tensors_by_fn, tensors, pred, failed_at, unmarked)
        for s in node.saved:
            box = _saved_box(node, s)
            boxes[box.id] = box
            links[f"{box.id}:saved"] = Link(f"{box.id}:saved", box.id, node.id, "saved")
    for group, members in groups.items():
        boxes[group] = _fold_box(group, members, pred, failed_at, unmarked)
    for node in snap.nodes:
        head = fold.get(node.id, node.id)
        for k, nxt in enumerate(node.next):
            if nxt is None or nxt not in present:
                continue
            tail = fold.get(nxt, nxt)
            if tail == head:
                continue
            if head == node.id and tail == nxt:
                links[f"{node.id}:{k}"] = Link(f"{node.id}:{k}", tail, head, "flow")
            else:
                lid = f"{tail}>{head}"
                links.setdefault(lid, Link(lid, tail, head, "fold"))
    for gid in [] if steps else snap.collected:
        info = (ghosts or {}).get(gid)
        if info is None or gid in fold:
            continue
        boxes[gid] = Box(gid, "ghost", {"title": info.name, "status": "collected"},
                         f"{info.name}\n{gid}: collected since the previous snapshot", "ghost")
        for k, nxt in enumerate(info.next):
            if nxt is not None and (nxt in boxes):
                links[f"{gid}:{k}"] = Link(f"{gid}:{k}", nxt, gid, "ghost")
    title = f"#{snap.index} {snap.label}"
    notes = _notes(snap, pred, fold, steps)
    state = {"kind": snap.kind, "backward": snap.backward,
             "prediction": pred.node if pred else None, "failed_at": failed_at,
             "unmarked": unmarked}
    return Scene(title, notes, boxes, links, state)


def restyled(box: Box, style: str, note: str, **lines: str) -> Box:
    """``box`` drawn in another style, with ``note`` added to its tooltip (the step views)."""
    return Box(box.id, style, {**box.lines, **lines}, f"{box.tooltip}\n{note}", box.kind,
               box.owner)


def _node_box(node: NodeInfo, tensors_by_fn: Mapping[str, Any], tensors: Mapping[str, Any],
              pred: Any, failed_at: str | None, unmarked: dict[str, Box]) -> Box:
    lines: dict[str, str] = {}
    tip = [node.name, f"node {node.id}"]
    if _is_leaf(node):
        kind, style = "leaf", "leaf"
        t = tensors.get(node.variable or "")
        lines["title"] = _clip(", ".join(node.labels), _VARS_CHARS) if node.labels else "leaf"
        lines["vars"] = "AccumulateGrad"
        if t is not None:
            lines["shape"] = f"{shape_text(t.shape)} {_dtype(t.dtype)}"
            tip.append(f"leaf tensor {shape_text(t.shape)} {_dtype(t.dtype)}")
            if t.grad is not None:
                lines["status"] = f".grad {shape_text(t.grad['shape'])}"
                tip.append(f".grad {shape_text(t.grad['shape'])}")
    else:
        kind, style = "node", "op"
        lines["title"] = node.name
        if node.labels:
            lines["vars"] = _clip(", ".join(node.labels), _VARS_CHARS)
        t = tensors_by_fn.get(node.id)
        if t is not None:
            lines["shape"] = f"{shape_text(t.shape)} {_dtype(t.dtype)}"
            tip.append(f"output {shape_text(t.shape)} {_dtype(t.dtype)}")
    if node.labels:
        tip.append("variables: " + ", ".join(node.labels))
    src = _source_line(node.source)
    if src:
        lines["source"] = src
        tip.append(f"line {node.source['line']} of {node.source['file']}: "   # type: ignore[index]
                   f"{node.source.get('code') or ''}")                        # type: ignore[union-attr]
    for s in node.saved:
        tip.append(f"saved {s.name}: {_shape_dtype(s)}, "
                   f"{_kept_text(s)}, {s.state}")
    if node.executed_by:
        tip.append("run by backward " + ", ".join(f"#{b}" for b in node.executed_by))
    if len(node.roots) > 1:
        tip.append(f"reached from {len(node.roots)} roots: " + ", ".join(node.roots))
    if node.shared and kind == "node":
        style = "shared"
        lines["status"] = (f"shared by {len(node.roots)} roots" if len(node.roots) > 1
                           else "reused: run by backward " +
                           ", ".join(f"#{b}" for b in node.executed_by))
        tip.append(lines["status"])
    if failed_at == node.id or (pred is not None and pred.node == node.id):
        unmarked[node.id] = Box(node.id, style, dict(lines), "\n".join(tip), kind)
    if failed_at == node.id:
        style = "failed"
        lines["alert"] = "✗ this backward failed here"
    elif pred is not None and pred.node == node.id:
        style = "fails"
        lines["alert"] = "✗ next backward fails here"
        tip.append(f"{lines['alert']}: {pred.reason}")
    return Box(node.id, style, lines, "\n".join(tip), kind)


def _saved_box(node: NodeInfo, s: SavedInfo) -> Box:
    # NB: an alive buffer kept as a hook packed it (a checkpoint's holder) has a style of its
    # own; freed or modified, it is drawn as any other
    state = "packed" if s.packed and s.state == "alive" else s.state
    lines = {"title": s.name, "shape": _shape_dtype(s), "status": _saved_state_text(s)}
    tip = [f"{node.name}._saved_{s.name}", f"{_shape_dtype(s)}, "
           f"{_kept_text(s)}", lines["status"]]
    for edit in s.modified_by or []:
        src = edit.get("source") or {}
        tip.append(f"changed in place to version {edit.get('version')}"
                   + (f" at line {src.get('line')}: {src.get('code')}" if src else ""))
    return Box(f"{node.id}-{s.name}", state, lines, "\n".join(tip), "saved", owner=node.id)


def _fold_box(group: str, members: list[NodeInfo], pred: Any, failed_at: str | None,
              unmarked: dict[str, Box]) -> Box:
    names = Counter(n.name for n in members)
    sources = Counter((n.source["line"], n.source.get("code") or "")
                      for n in members if n.source)
    states = Counter(s.state for n in members for s in n.saved)
    lines = {"title": f"⋯ {len(members):,} nodes folded ⋯",
             "vars": _clip(" · ".join(f"{name} ×{c:,}" for name, c in names.most_common(3)),
                           _SOURCE_CHARS + 8)}
    if sources:
        (line, code), count = sources.most_common(1)[0]
        lines["source"] = _clip(f"line {line} ×{count:,}: {code}", _SOURCE_CHARS + 8)
    lines["status"] = ("saved: " + " · ".join(f"{c:,} {st}" for st, c in sorted(states.items()))
                       if states else "no saved buffers")
    style = "fold"
    ids = {n.id for n in members}
    tip = [f"{len(members):,} nodes folded to keep the picture readable"]
    tip += [f"{name} ×{c:,}" for name, c in names.most_common()]
    tip += [f"line {line} ×{c:,}: {code}" for (line, code), c in sources.most_common(5)]
    if failed_at in ids or (pred is not None and pred.node in ids):
        unmarked[group] = Box(group, style, dict(lines), "\n".join(tip), "fold")
    if failed_at in ids:
        style, lines["alert"] = "failed", "✗ this backward failed inside"
    elif pred is not None and pred.node in ids:
        style, lines["alert"] = "fails", "✗ next backward fails inside"
    return Box(group, style, lines, "\n".join(tip), "fold")


def _notes(snap: Snapshot, pred: Any, fold: Mapping[str, str], steps: bool) -> list[str]:
    notes: list[str] = []
    if snap.error is not None and not steps:
        first = snap.error["message"].split(". ")[0].rstrip(".")
        notes.append(f"{snap.error['type']}: {first}.")
    if pred is not None:
        notes.append(f"Next backward will fail: {pred.reason}.")
    mem = snap.memory
    notes.append(f"saved buffers: {nbytes_text(mem['saved_bytes_alive'])} alive · "
                 f"{nbytes_text(mem['saved_bytes_freed'])} freed")
    if fold:
        notes.append(f"{len(fold):,} of the recording's nodes are folded into summarised groups "
                     "(over the node budget)")
    return notes
