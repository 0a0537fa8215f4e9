"""SVG text from a scene drawn on a fixed layout: no Graphviz run, so stepping is cheap.

Colours and line styles come from one ``<style>`` sheet made from the theme, keyed by the
style's class, so a box's look is its class (a viewer can restyle by changing classes). Every
user string is XML-escaped; each box is a ``<g>`` with ``data-id`` and ``data-style`` (for viewers
and tests) and a ``<title>`` tooltip (shapes, dtypes, bytes, source line).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import hypot
from typing import Any

from . import theme
from .scene import SLOTS, Box, Link, Scene

__all__ = ["Geometry", "Options", "DEFAULT_OPTIONS", "draw", "stylesheet", "MARGIN", "escape"]

MARGIN = 12.0
_LEGEND_ROW = 20.0
_LEGEND_SAMPLE = (30.0, 14.0)
_INSET = 3.0
_LOOKS = 8              # texts kept per box: its looks in the last snapshots and steps drawn
_DASHES = {"solid": "none", "dashed": "5,3", "dotted": "1.5,2.5"}
_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                           "'": "&#x27;"})


def escape(text: str) -> str:
    """XML-escape ``text`` for element content and attribute values."""
    # NB: most texts have nothing to escape, and five ``in`` tests find that fastest
    if "&" in text or "<" in text or ">" in text or '"' in text or "'" in text:
        return text.translate(_ENTITIES)
    return text


@dataclass(slots=True)
class Geometry:
    """Where everything sits: box centres and sizes, link splines; points, y pointing down."""

    boxes: dict[str, tuple[float, float, float, float]]        # id -> cx, cy, w, h
    links: dict[str, tuple[list[tuple[float, float]], tuple[float, float] | None]]
    width: float
    height: float
    header_lines: int


@dataclass(frozen=True, slots=True)
class Options:
    """What to draw: the display toggles a viewer offers."""

    saved: bool = True
    ghosts: bool = True
    shapes: bool = True
    legend: bool = True
    fit: bool = False              # scale to the width of the page (else: natural size)


DEFAULT_OPTIONS = Options()


def stylesheet() -> str:
    """The CSS of every picture, made from the theme."""
    rules = [f".box text{{text-anchor:middle;font-size:{theme.FONT_SIZE:g}px}}",
             f".box.saved text{{font-size:{theme.SMALL_FONT_SIZE:g}px}}",
             "rect.inner{display:none;fill:none}",
             ".header text{font-size:12px}", ".legend text{font-size:9px}",
             ".link path{fill:none;stroke-width:1.1}"]
    for key, s in theme.STYLES.items():
        rules.append(f".{key}>rect{{fill:{s.fill};stroke:{s.stroke};stroke-width:{s.penwidth:g};"
                     f"stroke-dasharray:{_DASHES[s.dash]};rx:{6 if s.rounded else 0}px}}")
        rules.append(f".{key}>text{{fill:{s.fontcolor}}}")
        if s.peripheries > 1:
            rules.append(f".{key}>rect.inner{{display:inline;fill:none}}")
    for kind, (colour, dash, _arrow) in theme.EDGES.items():
        rules.append(f".link.{kind} path{{stroke:{colour};stroke-dasharray:{_DASHES[dash]}}}"
                     f" .link.{kind} polygon{{fill:{colour};stroke:{colour}}}")
    rules.append(".legend-row>text{fill:#000000;text-anchor:start}")
    return "\n".join(rules)


_STYLESHEET = stylesheet()


def legend_size() -> tuple[float, float]:
    w = max(theme.text_width(theme.STYLES[k].legend, 9.0) for k in theme.LEGEND)
    return w + _LEGEND_SAMPLE[0] + 3 * MARGIN, (len(theme.LEGEND) + 1) * _LEGEND_ROW + MARGIN


def _rects(cx: float, cy: float, w: float, h: float, inset: float = _INSET) -> str:
    return (f'<rect x="{cx - w / 2:.1f}" y="{cy - h / 2:.1f}" width="{w:.1f}" '
            f'height="{h:.1f}"/><rect class="inner" x="{cx - w / 2 + inset:.1f}" '
            f'y="{cy - h / 2 + inset:.1f}" width="{w - 2 * inset:.1f}" '
            f'height="{h - 2 * inset:.1f}"/>')


def _box(box: Box, geom: tuple[float, float, float, float], shapes: bool,
         cache: dict[tuple[object, ...], Any]) -> str:
    lines = [box.lines[s] for s in SLOTS if box.lines.get(s) and (shapes or s != "shape")]
    # NB: what depends only on the position (the rectangles, where each line starts) is made
    # once per box and line count: the numbers are the costly part of the text
    key: tuple[object, ...] = ("at", box.id, len(lines))
    starts: tuple[str, ...] | None = cache.get(key)
    if starts is None:
        cx, cy, w, h = geom
        size = theme.SMALL_FONT_SIZE if box.kind == "saved" else theme.FONT_SIZE
        step = size * theme.LINE_HEIGHT
        y0 = cy - step * len(lines) / 2 + size * 0.92
        starts = cache[key] = (_rects(cx, cy, w, h),
                               *[f'<text x="{cx:.1f}" y="{y0 + i * step:.1f}">'
                                 for i in range(len(lines))])
    return "".join([f'<g class="box {box.kind} {box.style}" data-id="{escape(box.id)}" '
                    f'data-style="{box.style}"><title>{escape(box.tooltip)}</title>',
                    starts[0],
                    *[f"{start}{escape(line)}</text>" for start, line in zip(starts[1:], lines)],
                    "</g>"])


def _link(link: Link, geom: tuple[list[tuple[float, float]], tuple[float, float] | None]
          ) -> str:
    points, tip = geom
    if not points:
        return ""
    d = [f"M{points[0][0]:.1f},{points[0][1]:.1f}"]
    for i in range(1, len(points) - 2, 3):
        (x1, y1), (x2, y2), (x3, y3) = points[i:i + 3]
        d.append(f"C{x1:.1f},{y1:.1f} {x2:.1f},{y2:.1f} {x3:.1f},{y3:.1f}")
    arrow = ""
    if theme.EDGES[link.kind][2] and tip is not None:
        bx, by = points[-1]
        tx, ty = tip
        length = hypot(tx - bx, ty - by) or 1.0
        nx, ny = (by - ty) / length * 2.6, (tx - bx) / length * 2.6
        arrow = (f'<polygon points="{tx:.1f},{ty:.1f} {bx + nx:.1f},{by + ny:.1f} '
                 f'{bx - nx:.1f},{by - ny:.1f}"/>')
    return (f'<g class="link {link.kind}" data-id="{escape(link.id)}"><path d="{"".join(d)}"/>'
            f"{arrow}</g>")


def legend_at(geom: Geometry, header: float) -> tuple[float, float]:
    """Where the legend goes: right of a tall graph, under a wide one (so it fits a screen)."""
    if geom.width > geom.height:
        return MARGIN, header + geom.height + MARGIN
    return geom.width + 2 * MARGIN, header


def size_of(geom: Geometry, options: Options) -> tuple[float, float, float]:
    """The picture's width and height, and the header's height, in points."""
    header = (geom.header_lines + 0.5) * 12.0 * theme.LINE_HEIGHT + MARGIN
    width, height = geom.width + 2 * MARGIN, header + geom.height + MARGIN
    if options.legend:
        lw, lh = legend_size()
        x, y = legend_at(geom, header)
        width, height = max(width, x + lw), max(height, y + lh)
    return width, height, header


def draw(geom: Geometry, scene: Scene, options: Options = DEFAULT_OPTIONS,
         cache: dict[tuple[object, ...], Any] | None = None) -> str:
    """The SVG of ``scene`` on ``geom``: same positions for every scene of one layout.

    ``cache`` (kept by the caller for one layout) reuses the text of every box and link that
    looks the same as in a scene drawn before: stepping redraws only what changed."""
    if cache is None:
        cache = {}
    width, height, header = size_of(geom, options)
    size = ('width="100%"' if options.fit else f'width="{width:.0f}pt" height="{height:.0f}pt"')
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" {size} '
             f'viewBox="0 0 {width:.1f} {height:.1f}" '
             f'font-family="{theme.SVG_FONT}" class="graphviz-autograd">',
             f"<title>{escape(scene.title)}</title>", f"<style>{_STYLESHEET}</style>",
             f'<rect width="{width:.1f}" height="{height:.1f}" fill="white"/>',
             '<g class="header">']
    y = MARGIN + 12.0
    for i, line in enumerate([scene.title, *scene.notes]):
        weight = ' font-weight="bold"' if i == 0 else ""
        parts.append(f'<text x="{MARGIN}" y="{y:.1f}"{weight}>{escape(line)}</text>')
        y += 12.0 * theme.LINE_HEIGHT
    parts.append("</g>")
    parts.append(f'<g class="graph" transform="translate({MARGIN},{header:.1f})">')
    links_key = ("links", options.saved, options.ghosts)
    done = cache.get(links_key)
    if done is not None and done[0] is scene.links:
        parts.append(done[1])          # the step views of one backward share their links
    else:
        hidden_kinds = {k for k, shown in (("saved", options.saved), ("ghost", options.ghosts))
                        if not shown}
        hidden = {b.id for b in scene.boxes.values()
                  if b.kind in hidden_kinds or b.id not in geom.boxes}
        drawn = []
        for link in scene.links.values():
            if link.tail in hidden or link.head in hidden or link.id not in geom.links:
                continue
            key: tuple[object, ...] = (link.id, link.kind)
            text = cache.get(key)
            if text is None:
                text = cache[key] = _link(link, geom.links[link.id])
            drawn.append(text)
        block = "\n".join(drawn)
        cache[links_key] = (scene.links, block)
        parts.append(block)
    # NB: a box drawn before (the same object, or an equal one) reuses its text: a step view
    # shares all but a few boxes with the one before it
    # per box id: the box drawn last, its text, the texts of its last few looks, and the box
    # drawn before it with its text (stepping a backward starts from the snapshot before it)
    drawn_boxes: dict[str, tuple[Box, str, dict[tuple[object, ...], str], Box | None, str]] = \
        cache.setdefault(("boxes", options.shapes), {})
    skip = {"saved"} if not options.saved else set()
    if not options.ghosts:
        skip.add("ghost")
    for box in scene.boxes.values():
        if box.kind in skip or box.id not in geom.boxes:
            continue
        entry = drawn_boxes.get(box.id)
        if entry is None:
            looks: dict[tuple[object, ...], str] = {}
            last: tuple[Box | None, str] = (None, "")
        else:
            if entry[0] is box:
                parts.append(entry[1])
                continue
            if entry[3] is box:         # NB: going back to the box drawn before the last one
                drawn_boxes[box.id] = (box, entry[4], entry[2], entry[0], entry[1])
                parts.append(entry[4])
                continue
            looks, last = entry[2], (entry[0], entry[1])
        key = (box.style, box.tooltip, *box.lines.items())
        text = looks.get(key)
        if text is None:
            text = looks[key] = _box(box, geom.boxes[box.id], options.shapes, cache)
            if len(looks) > _LOOKS:
                del looks[next(iter(looks))]
        drawn_boxes[box.id] = (box, text, looks, *last)
        parts.append(text)
    parts.append("</g>")
    if options.legend:
        _legend(parts, *legend_at(geom, header))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _legend(parts: list[str], x: float, y: float) -> None:
    parts.append(f'<g class="legend" transform="translate({x:.1f},{y:.1f})">')
    parts.append('<text x="0" y="10" font-size="11" font-weight="bold">Legend</text>')
    sw, sh = _LEGEND_SAMPLE
    for i, key in enumerate(theme.LEGEND):
        cy = (i + 1) * _LEGEND_ROW + sh / 2
        parts.append(f'<g class="legend-row {key}" data-style="{key}">'
                     + _rects(sw / 2, cy, sw, sh, inset=2.5)
                     + f'<text x="{sw + 8:.1f}" y="{cy + 3:.1f}">'
                     f"{escape(theme.STYLES[key].legend)}</text></g>")
    parts.append("</g>")
