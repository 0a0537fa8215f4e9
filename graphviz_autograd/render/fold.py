"""Folding: beyond a node budget, the middle of a deep graph (repeated layers, loop iterations)
becomes one summarised group, so a graph of any size gives a picture quickly.

Iterative only: no recursion, whatever the depth.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence

__all__ = ["plan_fold", "DEFAULT_BUDGET"]

DEFAULT_BUDGET = 1200


def plan_fold(graph: Mapping[str, Sequence[str | None]], budget: int = DEFAULT_BUDGET
              ) -> dict[str, str]:
    """Which nodes to fold, as ``{node id: group id}``; empty when the graph fits the budget.

    ``graph`` maps a node id to its ``next`` ids. The nodes nearest the roots (the losses) and
    nearest the leaves stay, about half the budget each; the levels between are one group, and a
    level wider than the budget keeps its first nodes and folds the rest into a group of its own.

    >>> chain = {f"n{i}": [f"n{i + 1}"] for i in range(10)}
    >>> chain["n10"] = []
    >>> fold = plan_fold(chain, budget=4)
    >>> sorted(set(fold.values())), len(fold)
    (['fold1'], 7)
    """
    if len(graph) <= budget:
        return {}
    has_consumer = {n for nexts in graph.values() for n in nexts if n is not None}
    depth: dict[str, int] = {}
    queue = deque(sorted((n for n in graph if n not in has_consumer), key=_order))
    for n in queue:
        depth[n] = 0
    while queue:
        n = queue.popleft()
        for m in graph.get(n, ()):
            if m is not None and m in graph and m not in depth:
                depth[m] = depth[n] + 1
                queue.append(m)
    for n in graph:             # cycles cannot happen; nodes only reached oddly get level 0
        depth.setdefault(n, 0)
    levels: dict[int, list[str]] = {}
    for n in sorted(graph, key=_order):
        levels.setdefault(depth[n], []).append(n)
    order = sorted(levels)
    half = max(budget // 2, 1)
    top: list[int] = []
    kept = 0
    for d in order:
        if kept + len(levels[d]) > half and top:
            break
        top.append(d)
        kept += len(levels[d])
    bottom: list[int] = []
    kept = 0
    for d in reversed(order[len(top):]):
        if kept + len(levels[d]) > half and bottom:
            break
        bottom.append(d)
        kept += len(levels[d])
    keep_levels = set(top) | set(bottom)
    fold: dict[str, str] = {}
    groups = 0
    middle = [d for d in order if d not in keep_levels]
    if middle:
        groups += 1
        for d in middle:
            for n in levels[d]:
                fold[n] = f"fold{groups}"
    for d in order:
        if d in keep_levels and len(levels[d]) > budget:
            groups += 1
            for n in levels[d][half:]:
                fold[n] = f"fold{groups}"
    return fold


def _order(node_id: str) -> tuple[int, str]:
    digits = node_id.lstrip("n")
    return (int(digits), node_id) if digits.isdigit() else (1 << 62, node_id)
