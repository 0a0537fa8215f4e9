"""Rendering: snapshots to DOT, SVG, PNG and PDF, on one stable layout per recording.

``to_dot`` is pure (DOT text from snapshot data); ``Layout`` runs Graphviz once per recording and
draws every snapshot and every backward step on the same positions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .dot import scene_dot
from .fold import DEFAULT_BUDGET
from .graphviz import GraphvizNotFound
from .layout import Layout
from .scene import Scene, scene_of
from .svg import DEFAULT_OPTIONS, Options

if TYPE_CHECKING:
    from ..recording.snapshot import Snapshot

__all__ = ["to_dot", "render", "Layout", "Options", "Scene", "scene_of", "GraphvizNotFound",
           "DEFAULT_BUDGET", "FORMATS", "MIMETYPES"]

FORMATS = ("svg", "png", "pdf", "dot")
# the Jupyter display table: one entry per mimetype a snapshot offers
MIMETYPES = {"image/svg+xml": "svg"}


def to_dot(snapshot: Snapshot, *, budget: int = DEFAULT_BUDGET, legend: bool = True) -> str:
    """The DOT source of one snapshot (pure and deterministic).

    >>> import graphviz_autograd.torch as torch
    >>> from graphviz_autograd import record
    >>> with record() as rec:
    ...     x = torch.ones(2, requires_grad=True)
    ...     loss = (x * 3).sum()
    ...     snap = rec.snapshot("built")
    >>> print(to_dot(snap).splitlines()[0])
    digraph autograd {
    """
    from .fold import plan_fold
    fold = plan_fold({n.id: n.next for n in snapshot.nodes}, budget)
    return scene_dot(scene_of(snapshot, fold=fold), legend=legend)


def render(snapshot: Snapshot, fmt: str = "svg", options: Options = DEFAULT_OPTIONS) -> str | bytes:
    """One snapshot drawn on a layout of its own: SVG or DOT text, PNG or PDF bytes."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    return Layout([snapshot]).render(snapshot, fmt, options)
