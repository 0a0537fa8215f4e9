"""Will the next backward fail? A dry run of PyTorch's schedule (dependency counts, highest
sequence number first) that stops at the first node whose saved buffers are freed or stale, or
whose op has no derivative."""

from __future__ import annotations

import heapq
from typing import Any

from .snapshot import Prediction, SavedInfo

__all__ = ["NO_DERIVATIVE", "predict", "modified_in_unpack_order"]

# NB: PyTorch's node for an op with no derivative (``a // b``, ``2.0 % t``) whose input requires
# grad: the backward raises when it reaches it
NO_DERIVATIVE = "torch::autograd::NotImplemented"


def modified_in_unpack_order(slots: list[SavedInfo]) -> list[SavedInfo]:
    """A node's buffers modified in place, in the order PyTorch unpacks them when the node runs
    (saved inputs by name, then outputs): its error names the first."""
    return sorted((s for s in slots if s.state == "modified"),
                  key=lambda s: (s.name.startswith("result") or s.name == "indices", s.name))


def predict(static: dict[int, Any], dead_ends: set[int], starts: list[int],
            saved: dict[int, list[SavedInfo]]) -> Prediction:
    """Dry-run a backward from the nodes ``starts`` over a snapshot's graph (no live object):
    ``static`` gives each node's name, next nodes and sequence number, ``saved`` its buffers."""
    root = f"n{starts[0]}" if len(starts) == 1 else None
    none: list[SavedInfo] = []
    if root is not None and starts[0] in static:
        # NB: one start runs first: where it fails (the graph a backward just ran: every node
        # freed), no need to count the dependencies of the rest
        first = starts[0]
        slots = saved.get(first, none)
        if slots or first in dead_ends:
            verdict = _check(static[first].name, first in dead_ends, slots)
            if verdict is not None:
                kind, reason, buffers = verdict
                return Prediction(True, root, reason, root, kind, buffers)
    deps: dict[int, int] = {}
    stack = list(starts)
    while stack:
        st = static.get(stack.pop())
        if st is None:
            continue
        for m in st.next:
            if m is None:
                continue
            if m in deps:
                deps[m] += 1
            else:
                deps[m] = 1
                stack.append(m)
    ready = [(-static[u].seq, i, u) for i, u in enumerate(starts) if deps.get(u, 0) == 0]
    heapq.heapify(ready)
    tick = len(ready)
    push, pop = heapq.heappush, heapq.heappop
    while ready:
        _, _, uid = pop(ready)
        st = static[uid]
        slots = saved.get(uid, none)
        if slots or uid in dead_ends:
            verdict = _check(st.name, uid in dead_ends, slots)
            if verdict is not None:
                kind, reason, buffers = verdict
                return Prediction(True, f"n{uid}", reason, root, kind, buffers)
        for m in st.next:
            if m is None:
                continue
            d = deps[m] - 1
            deps[m] = d
            if d == 0:
                push(ready, (-static[m].seq, tick, m))
                tick += 1
    return Prediction(False, None, "", root)


def _check(name: str, dead_end: bool, slots: list[SavedInfo]
           ) -> tuple[str, str, list[str]] | None:
    freed = [s for s in slots if s.state == "freed"]
    if freed:
        by = sorted({s.released_by for s in freed if s.released_by is not None})
        when = f" by backward #{', #'.join(map(str, by))}" if by else " by an earlier backward"
        names = ", ".join(s.name for s in freed)
        return ("freed", f"{name} needs its saved {names}, freed{when}",
                [s.name for s in freed])
    if name == NO_DERIVATIVE:
        return ("no_derivative", "this op has no derivative in PyTorch: the backward raises "
                "when it reaches it", [])
    if dead_end:
        return ("freed", f"{name} was already run by a backward that did not retain the graph",
                [])
    stale = modified_in_unpack_order(slots)
    if stale:
        s = stale[0]
        v = s.versions or [0, 0]
        return ("modified", f"{name} needs its saved {s.name}, modified in place since "
                f"(version {v[1]}, saved at version {v[0]})", [x.name for x in stale])
    return None
