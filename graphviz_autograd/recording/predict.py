"""Will the next backward fail? A dry run of PyTorch's schedule (dependency counts, highest
sequence number first) that stops at the first node whose saved buffers are freed or stale."""

from __future__ import annotations

import heapq
from typing import Any

from .snapshot import Prediction, SavedInfo

__all__ = ["predict"]


def predict(graph: Any, starts: list[int], saved: dict[str, list[SavedInfo]]) -> Prediction:
    """Dry-run a backward from the nodes ``starts`` over a snapshot's graph (no live object)."""
    root = f"n{starts[0]}" if len(starts) == 1 else None
    deps: dict[int, int] = {}
    stack = list(starts)
    while stack:
        uid = stack.pop()
        for m in graph.next(uid):
            if m is None:
                continue
            if m in deps:
                deps[m] += 1
            else:
                deps[m] = 1
                stack.append(m)
    ready = [(-graph.seq(u), i, u) for i, u in enumerate(starts) if deps.get(u, 0) == 0]
    heapq.heapify(ready)
    tick = len(ready)
    while ready:
        _, _, uid = heapq.heappop(ready)
        verdict = _check(graph, uid, saved.get(f"n{uid}", []))
        if verdict is not None:
            kind, reason, buffers = verdict
            return Prediction(True, f"n{uid}", reason, root, kind, buffers)
        for m in graph.next(uid):
            if m is None:
                continue
            deps[m] -= 1
            if deps[m] == 0:
                heapq.heappush(ready, (-graph.seq(m), tick, m))
                tick += 1
    return Prediction(False, None, "", root)


def _check(graph: Any, uid: int, slots: list[SavedInfo]) -> tuple[str, str, list[str]] | None:
    name = graph.name(uid)
    freed = [s for s in slots if s.state == "freed"]
    if freed:
        by = sorted({s.released_by for s in freed if s.released_by is not None})
        when = f" by backward #{', #'.join(map(str, by))}" if by else " by an earlier backward"
        names = ", ".join(s.name for s in freed)
        return ("freed", f"{name} needs its saved {names}, freed{when}",
                [s.name for s in freed])
    if graph.dead_end(uid):
        return ("freed", f"{name} was already run by a backward that did not retain the graph",
                [])
    stale = [s for s in slots if s.state == "modified"]
    if stale:
        s = stale[0]
        v = s.versions or [0, 0]
        return ("modified", f"{name} needs its saved {s.name}, modified in place since "
                f"(version {v[1]}, saved at version {v[0]})", [x.name for x in stale])
    return None
