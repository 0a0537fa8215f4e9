"""The one theme: every colour, line style and shape of the pictures, and the legend made from it.

Colours are the Okabe-Ito palette (safe for colour-blind readers); every state is also told by
line style, border count or fill (so it survives a projector and a greyscale print).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Style", "STYLES", "EDGES", "LEGEND", "FONT", "FONT_SIZE", "SMALL_FONT_SIZE",
           "LINE_HEIGHT", "dot_node_attrs", "dot_edge_attrs", "text_width"]

FONT = "Helvetica"
SVG_FONT = "Helvetica,Arial,sans-serif"
FONT_SIZE = 11.0
SMALL_FONT_SIZE = 9.0
LINE_HEIGHT = 1.2          # Graphviz spaces the lines of a label by 1.2 x the font size


@dataclass(frozen=True)
class Style:
    """How one kind of box is drawn."""

    fill: str
    stroke: str
    penwidth: float = 1.0
    dash: str = "solid"            # solid | dashed | dotted
    rounded: bool = False
    peripheries: int = 1
    fontcolor: str = "#000000"
    small: bool = False            # the small font (saved buffers)
    legend: str = ""               # the legend's words; empty: not in the legend


# NB: keys are the states a viewer toggles between; the order is the legend's order
STYLES: dict[str, Style] = {
    "leaf": Style("#D6ECFA", "#0072B2", 1.5,
                  legend="leaf tensor: receives .grad (AccumulateGrad)"),
    "op": Style("#F2F2F2", "#404040", 1.0, rounded=True,
                legend="backward node (grad_fn), named as PyTorch names it"),
    "alive": Style("#C9EBDD", "#007A5A", 1.5, small=True,
                   legend="saved buffer: alive (solid, filled)"),
    "freed": Style("#FFFFFF", "#D55E00", 1.5, dash="dashed", small=True, fontcolor="#8A3B00",
                   legend="saved buffer: freed by a backward (dashed, empty)"),
    "modified": Style("#FBF1A9", "#B07800", 2.0, dash="dotted", small=True,
                      legend="saved buffer: modified in place (dotted, yellow)"),
    "packed": Style("#E9F6F0", "#007A5A", 1.5, rounded=True, small=True,
                    legend="saved buffer: packed by a saved-tensor hook (rounded; a "
                           "checkpoint's: 0 B, recomputed)"),
    "shared": Style("#F7E1EE", "#CC79A7", 3.0, rounded=True,
                    legend="shared: reached from several roots, or reused after a backward "
                           "(thick border)"),
    "fails": Style("#FBE3D6", "#D55E00", 2.0, rounded=True, peripheries=2,
                   legend="the next backward fails here (double border)"),
    "failed": Style("#FBE3D6", "#D55E00", 2.5, rounded=True, peripheries=2,
                    legend="this backward failed here (double border)"),
    "running": Style("#F0E442", "#000000", 3.0, rounded=True,
                     legend="step view: the node running now (yellow, thick)"),
    "done": Style("#E3F1FA", "#0072B2", 1.5, rounded=True, dash="dashed",
                  legend="step view: already run by this backward (dashed blue)"),
    "fold": Style("#EBEBEB", "#606060", 1.5, dash="dashed", peripheries=2,
                  legend="folded: repeated structure summarised with counts"),
    "ghost": Style("#FFFFFF", "#A0A0A0", 1.0, dash="dotted", rounded=True,
                   fontcolor="#808080", legend="ghost: collected since the previous snapshot"),
}

# edge kind -> (colour, dash, arrowhead)
EDGES: dict[str, tuple[str, str, bool]] = {
    "flow": ("#505050", "solid", True),
    "saved": ("#808080", "dashed", False),
    "ghost": ("#B0B0B0", "dotted", True),
    "fold": ("#606060", "dashed", True),
}

LEGEND: list[str] = [k for k, s in STYLES.items() if s.legend]

_DASH_DOT = {"solid": "", "dashed": "dashed", "dotted": "dotted"}


def dot_node_attrs(style_key: str) -> dict[str, str]:
    """The DOT attributes of a box drawn in one of the theme's styles."""
    s = STYLES[style_key]
    styles = ["filled"] + (["rounded"] if s.rounded else []) + \
        ([_DASH_DOT[s.dash]] if s.dash != "solid" else [])
    attrs = {"shape": "box", "style": ",".join(styles), "fillcolor": s.fill, "color": s.stroke,
             "penwidth": f"{s.penwidth:g}", "fontcolor": s.fontcolor,
             "fontsize": f"{SMALL_FONT_SIZE if s.small else FONT_SIZE:g}"}
    if s.peripheries != 1:
        attrs["peripheries"] = str(s.peripheries)
    return attrs


def dot_edge_attrs(kind: str) -> dict[str, str]:
    colour, dash, arrow = EDGES[kind]
    attrs = {"color": colour}
    if dash != "solid":
        attrs["style"] = dash
    if not arrow:
        attrs["arrowhead"] = "none"
    return attrs


# Helvetica's advance widths (Adobe's AFM metrics, per 1000 units of font size) for printable
# ASCII, from " " to "~". Boxes are sized from these, not by Graphviz: measuring thousands of
# labels through its text layout costs more than the whole layout.
_WIDTHS = [278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
           556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
           1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
           667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
           333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
           556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584]
# NB: viewers often draw "Helvetica" with a wider face (DejaVu Sans, Liberation Sans): room for it
_SLACK = 1.12


def text_width(text: str, size: float) -> float:
    """The width in points of ``text`` set in the theme's font at ``size`` (an upper estimate).

    >>> round(text_width("MvBackward0", 11.0))
    77
    """
    units = 0
    for ch in text:
        o = ord(ch)
        units += _WIDTHS[o - 32] if 32 <= o < 127 else 1000 if o > 0x2E80 else 640
    return units * size / 1000 * _SLACK
