"""DOT text from scenes: pure functions, no Graphviz run here.

Every user string (variable names, source lines, error messages) goes through ``quote``, so it
comes out as text whatever it holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from . import theme
from .scene import SLOTS, Box, Scene

__all__ = ["quote", "scene_dot", "attrs", "label_of", "saved_ranks", "GRAPH_ATTRS"]

GRAPH_ATTRS = {"rankdir": "TB", "nodesep": "0.25", "ranksep": "0.35", "fontname": theme.FONT,
               "bgcolor": "white"}
NODE_ATTRS = {"fontname": theme.FONT, "shape": "box", "margin": "0.1,0.05"}
EDGE_ATTRS = {"arrowsize": "0.7"}


# NB: one C-level pass: control characters become spaces, and the three characters DOT
# reads specially in a quoted string are escaped (a backslash, a quote, a newline -> line break)
_QUOTE = {c: " " for c in range(32)} | {ord("\\"): "\\\\", ord('"'): '\\"', ord("\n"): "\\n"}


def quote(text: str) -> str:
    r"""A DOT double-quoted string holding ``text`` literally (newlines become line breaks).

    >>> print(quote('say "hi"'), quote("C:" + chr(92) + "N"))
    "say \"hi\"" "C:\\N"
    """
    return '"' + text.translate(_QUOTE) + '"'


def attrs(a: Mapping[str, str]) -> str:
    return "[" + " ".join(f"{k}={quote(v)}" for k, v in a.items()) + "]"


def label_of(lines: Mapping[str, str]) -> str:
    return "\n".join(lines[s] for s in SLOTS if lines.get(s))


def _box_line(box: Box) -> str:
    a = {"id": box.id, "label": label_of(box.lines), "tooltip": box.tooltip}
    a.update(theme.dot_node_attrs(box.style))
    return f"  {quote(box.id)} {attrs(a)}"


def saved_ranks(boxes: Iterable[Box]) -> list[str]:
    """One ``rank=same`` group per node with saved buffers: they sit beside it."""
    groups: dict[str, list[str]] = {}
    for b in boxes:
        if b.owner is not None:
            groups.setdefault(b.owner, [b.owner]).append(b.id)
    return ["  {rank=same; " + " ".join(quote(i) + ";" for i in ids) + "}"
            for ids in groups.values()]


def scene_dot(scene: Scene, legend: bool = True) -> str:
    """The DOT source of one scene: its boxes, links, title and notes, and the legend."""
    out = ["digraph autograd {"]
    g = dict(GRAPH_ATTRS, label="\n".join([scene.title, *scene.notes]) + "\n",
             labelloc="t", labeljust="l", fontsize="12")
    out.append(f"  graph {attrs(g)}")
    out.append(f"  node {attrs(NODE_ATTRS)}")
    out.append(f"  edge {attrs(EDGE_ATTRS)}")
    out += [_box_line(b) for b in scene.boxes.values()]
    out += saved_ranks(scene.boxes.values())
    for link in scene.links.values():
        a = {"id": link.id}
        a.update(theme.dot_edge_attrs(link.kind))
        out.append(f"  {quote(link.tail)} -> {quote(link.head)} {attrs(a)}")
    if legend:
        out += _legend()
    out.append("}")
    return "\n".join(out) + "\n"


def _legend() -> list[str]:
    out = ["  subgraph cluster_legend {",
           f"    graph {attrs({'label': 'Legend', 'fontsize': '11', 'color': '#B0B0B0'})}"]
    ids = []
    for key in theme.LEGEND:
        a = {"label": theme.STYLES[key].legend, "fontsize": "9"}
        a.update({k: v for k, v in theme.dot_node_attrs(key).items() if k != "fontsize"})
        ids.append(quote(f"legend-{key}"))
        out.append(f"    {ids[-1]} {attrs(a)}")
    out.append("    " + " -> ".join(ids) + ' [style="invis"]')
    out.append("  }")
    return out
