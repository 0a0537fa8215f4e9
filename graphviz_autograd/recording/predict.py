"""Will the next backward fail? A dry run of PyTorch's schedule (dependency counts, highest
sequence number first) that stops at the first node whose saved buffers are freed or stale."""

from __future__ import annotations

import heapq
from typing import Any

from .snapshot import Prediction, SavedInfo

__all__ = ["predict"]


def predict(E: Any, starts: list[Any], states: dict[str, list[SavedInfo]],
            released: dict[tuple[int, str], int]) -> Prediction:
    """Dry-run a backward from ``starts`` (the roots' nodes) without touching the graph."""
    root = f"n{E.node_uid(starts[0])}" if len(starts) == 1 else None
    deps: dict[int, int] = {}
    nodes: dict[int, Any] = {}
    stack = list(starts)
    for n in starts:
        nodes[E.node_uid(n)] = n
    while stack:
        n = stack.pop()
        for m in E.next_nodes(n):
            if m is None:
                continue
            uid = E.node_uid(m)
            if uid in deps:
                deps[uid] += 1
            else:
                deps[uid] = 1
                nodes[uid] = m
                stack.append(m)
    ready = [(-E.seq(n), i, E.node_uid(n)) for i, n in enumerate(starts)
             if deps.get(E.node_uid(n), 0) == 0]
    heapq.heapify(ready)
    tick = len(ready)
    while ready:
        _, _, uid = heapq.heappop(ready)
        n = nodes[uid]
        verdict = _check(E, n, uid, states.get(f"n{uid}"), released)
        if verdict is not None:
            kind, reason, buffers = verdict
            return Prediction(True, f"n{uid}", reason, root, kind, buffers)
        for m in E.next_nodes(n):
            if m is None:
                continue
            muid = E.node_uid(m)
            deps[muid] -= 1
            if deps[muid] == 0:
                heapq.heappush(ready, (-E.seq(m), tick, muid))
                tick += 1
    return Prediction(False, None, "", root)


def _check(E: Any, n: Any, uid: int, saved: list[SavedInfo] | None,
           released: dict[tuple[int, str], int]) -> tuple[str, str, list[str]] | None:
    slots = saved if saved is not None else [
        SavedInfo(s["name"], s["state"], s["shape"], s["dtype"], s["nbytes"], None,
                  s["versions"]) for s in E.saved(n)]
    name = E.node_name(n)
    freed = [s for s in slots if s.state == "freed"]
    if freed:
        by = sorted({s.released_by for s in freed if s.released_by is not None})
        when = f" by backward #{', #'.join(map(str, by))}" if by else " by an earlier backward"
        names = ", ".join(s.name for s in freed)
        return ("freed", f"{name} needs its saved {names}, freed{when}",
                [s.name for s in freed])
    if E.dead_end(n):
        return ("freed", f"{name} was already run by a backward that did not retain the graph",
                [])
    stale = [s for s in slots if s.state == "modified"]
    if stale:
        s = stale[0]
        v = s.versions or [0, 0]
        return ("modified", f"{name} needs its saved {s.name}, modified in place since "
                f"(version {v[1]}, saved at version {v[0]})", [x.name for x in stale])
    return None
