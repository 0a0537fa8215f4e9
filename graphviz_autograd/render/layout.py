"""One layout per recording: Graphviz lays out the union of every node the recording saw, once;
every snapshot and every step of every backward is then drawn on it, so nothing ever jumps and
stepping never runs Graphviz again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import graphviz, theme
from .dot import EDGE_ATTRS, GRAPH_ATTRS, NODE_ATTRS, attrs, label_of, quote, saved_ranks
from .fold import DEFAULT_BUDGET, plan_fold
from .scene import SLOTS, Box, Link, Scene, nbytes_text, restyled, scene_of
from .svg import DEFAULT_OPTIONS, MARGIN, Geometry, Options, draw, legend_at, size_of

if TYPE_CHECKING:
    from ..recording.recorder import BackwardRecord, Recording
    from ..recording.snapshot import NodeInfo, Snapshot

__all__ = ["Layout"]

_LARGE = 400                  # boxes (nodes and saved buffers) beyond which Graphviz is bounded
_LARGE_ATTRS = {"mclimit": "0.05", "nslimit": "1", "nslimit1": "1"}
_PAD_X, _PAD_Y = 8.0, 4.5        # points between a box's border and its text
_KEEP_PICTURES = 16              # snapshot pictures kept drawn, most recent first


class Layout:
    """The fixed layout of a recording (or of any list of snapshots).

    >>> import graphviz_autograd.torch as torch
    >>> from graphviz_autograd import record
    >>> with record() as rec:
    ...     x = torch.ones(3, requires_grad=True)
    ...     y = (x * x).sum()
    ...     y.backward()
    >>> layout = Layout.of(rec)
    >>> before, after = layout.svg(0), layout.svg(1)
    >>> 'data-style="alive"' in before, 'data-style="freed"' in after
    (True, True)
    """

    def __init__(self, snapshots: Sequence[Snapshot], backwards: Sequence[BackwardRecord] = (),
                 *, budget: int = DEFAULT_BUDGET) -> None:
        self.snapshots = list(snapshots)
        self.backwards = {b.number: b for b in backwards}
        self._position = {s.index: i for i, s in enumerate(self.snapshots)}
        union: dict[str, NodeInfo] = {}
        for s in self.snapshots:
            for n in s.nodes:
                union[n.id] = n
        self.fold = plan_fold({k: v.next for k, v in union.items()}, budget)
        self.scenes: list[Scene] = []
        for i in range(len(self.snapshots)):
            scene = self._scene(i)
            # NB: a snapshot whose links are those of the one before shares them, so drawing it
            # reuses their text whole (a backward frees buffers but seldom changes links)
            if self.scenes and scene.links == self.scenes[-1].links:
                scene.links = self.scenes[-1].links
            self.scenes.append(scene)
        self.dot_runs = 0
        self.geometry = self._lay_out()
        self._cache: dict[tuple[object, ...], Any] = {}
        self._steps: dict[int, tuple[int, dict[str, Box], Scene, int]] = {}
        self._pictures: dict[tuple[int, Options], str] = {}

    @classmethod
    def of(cls, recording: Recording, *, budget: int = DEFAULT_BUDGET) -> Layout:
        return cls(recording.snapshots, recording.backwards, budget=budget)

    # -- scenes ---------------------------------------------------------------------------------
    def _scene(self, i: int) -> Scene:
        ghosts = {n.id: n for n in self.snapshots[i - 1].nodes} if i > 0 else None
        return scene_of(self.snapshots[i], fold=self.fold, ghosts=ghosts)

    def steps(self, backward: int) -> int:
        """How many step views backward number ``backward`` has: one per node it ran, and one
        more for the node where it failed, if it did."""
        b = self._backward(backward)
        return len(b.steps) + (b.failed_at is not None)

    def _backward(self, number: int) -> BackwardRecord:
        if number not in self.backwards:
            raise ValueError(f"no backward #{number} in this recording "
                             f"(it has {sorted(self.backwards) or 'none'})")
        return self.backwards[number]

    def step_scene(self, backward: int, step: int) -> Scene:
        """The scene of backward ``backward`` while it runs its step ``step`` (0-based): the
        graph as it was before it, with the buffers released so far and the node running (the
        last step of a failed backward: the node where it failed)."""
        b = self._backward(backward)
        total = self.steps(backward)
        if not 0 <= step < total:
            raise ValueError(f"backward #{backward} has {total} steps; "
                             f"step {step} is out of range")
        if b.snapshot_before is None or b.snapshot_before not in self._position:
            raise ValueError(f"the snapshot before backward #{backward} was not kept")
        # NB: stepping forward changes a few boxes: start from the last step drawn if we can
        memo = self._steps.get(backward)
        if memo is None or memo[0] > step:
            base = self._step_base(self._position[b.snapshot_before])
            memo = (-1, dict(base.boxes), base, 0)
        done, boxes, base, freed = memo
        boxes = dict(boxes)
        for k in range(done + 1, step + 1):
            freed += _apply_step(boxes, base.boxes, b, k)
        self._steps[backward] = (step, boxes, base, freed)
        name = (boxes[b.failed_at].lines.get("title", "") if step == len(b.steps) and
                b.failed_at in boxes else b.steps[min(step, len(b.steps) - 1)].name)
        what = "fails at" if step == len(b.steps) else "running"
        snap = self.snapshots[self._position[b.snapshot_before]]
        alive = snap.memory["saved_bytes_alive"] - freed
        notes = [n for n in base.notes if not n.startswith("saved buffers:")]
        notes.insert(0, f"saved buffers: {nbytes_text(max(alive, 0))} alive · "
                        f"{nbytes_text(snap.memory['saved_bytes_freed'] + freed)} freed")
        return Scene(f"#{snap.index} backward #{backward}: step {step + 1} of {total} "
                     f"({what} {name})", notes, boxes, base.links,
                     {"kind": "step", "backward": backward, "step": step})

    def _step_base(self, position: int) -> Scene:
        """The snapshot's scene without its prediction marks and ghosts: where the step views
        start. Its boxes are the snapshot's own objects, so their pictures are reused."""
        scene = self.scenes[position]
        unmarked: dict[str, Box] = scene.state.get("unmarked", {})
        boxes = {k: unmarked.get(k, b) for k, b in scene.boxes.items() if b.kind != "ghost"}
        links = scene.links
        if any(v.kind == "ghost" for v in links.values()):
            links = {k: v for k, v in links.items() if v.kind != "ghost"}
        notes = [n for n in scene.notes if not n.startswith("Next backward will fail")]
        return Scene(scene.title, notes, boxes, links, {"kind": "step"})

    # -- layout ---------------------------------------------------------------------------------
    def _union(self) -> tuple[dict[str, Box], dict[str, Link]]:
        boxes: dict[str, Box] = {}
        links: dict[str, Link] = {}
        for scene in self.scenes:
            for box in scene.boxes.values():
                seen = boxes.get(box.id)
                if seen is None:
                    boxes[box.id] = Box(box.id, box.style, dict(box.lines), "", box.kind,
                                        box.owner)
                    continue
                # NB: the layout keeps room for the longest text a box ever shows
                for slot, text in box.lines.items():
                    if len(text) > len(seen.lines.get(slot, "")):
                        seen.lines[slot] = text
            for link in scene.links.values():
                links.setdefault(link.id, link)
        return boxes, links

    def layout_dot(self) -> str:
        """The DOT that Graphviz lays out once: every box ever shown, at its largest."""
        boxes, links = self._union()
        # NB: a large graph (a recurrence unrolled over many steps, its weights feeding every
        # step) costs Graphviz minutes in network simplex and crossing reduction: bounded
        # there (a 40-step LSTM cell: over 4 minutes -> 6 s); small graphs are laid out as ever
        graph = GRAPH_ATTRS if len(boxes) <= _LARGE else dict(GRAPH_ATTRS, **_LARGE_ATTRS)
        out = ["digraph layout {", f"  graph {attrs(graph)}",
               f"  node {attrs(dict(NODE_ATTRS, label='', fixedsize='true'))}",
               f"  edge {attrs(EDGE_ATTRS)}"]
        # NB: boxes are sized here (theme.text_width), so Graphviz measures no text at all
        for box in boxes.values():
            bid = quote(box.id)
            size = theme.SMALL_FONT_SIZE if box.kind == "saved" else theme.FONT_SIZE
            lines = [box.lines[s] for s in SLOTS if box.lines.get(s)]
            w = max((theme.text_width(t, size) for t in lines), default=0.0) + 2 * _PAD_X
            h = len(lines) * size * theme.LINE_HEIGHT + 2 * _PAD_Y
            out.append(f'  {bid} [id={bid} width="{max(w, 24.0) / 72:.3f}" '
                       f'height="{max(h, 18.0) / 72:.3f}"]')
        out += saved_ranks(boxes.values())
        for link in links.values():
            if link.tail in boxes and link.head in boxes:
                head = "" if theme.EDGES[link.kind][2] else ' arrowhead="none"'
                out.append(f"  {quote(link.tail)} -> {quote(link.head)} "
                           f"[id={quote(link.id)}{head}]")
        out.append("}")
        return "\n".join(out) + "\n"

    def _lay_out(self) -> Geometry:
        header_lines = max((1 + len(s.notes) for s in self.scenes), default=1)
        if not any(s.boxes for s in self.scenes):
            return Geometry({}, {}, 0.0, 0.0, header_lines)
        self.dot_runs += 1
        data = json.loads(graphviz.run(self.layout_dot(), "json0"))
        llx, lly, urx, ury = (float(v) for v in data["bb"].split(","))
        boxes: dict[str, tuple[float, float, float, float]] = {}
        for obj in data.get("objects", []):
            if "pos" in obj and "id" in obj:
                x, y = (float(v) for v in obj["pos"].split(","))
                boxes[obj["id"]] = (x - llx, ury - y, float(obj["width"]) * 72,
                                    float(obj["height"]) * 72)
        links: dict[str, tuple[list[tuple[float, float]], tuple[float, float] | None]] = {}
        for edge in data.get("edges", []):
            if "pos" in edge and "id" in edge:
                links[edge["id"]] = _spline(edge["pos"], llx, ury)
        return Geometry(boxes, links, urx - llx, ury - lly, header_lines)

    # -- drawing --------------------------------------------------------------------------------
    def index_of(self, snapshot: int | Snapshot) -> int:
        """The position in this layout of a snapshot (given by itself or by its ``index``)."""
        index = snapshot if isinstance(snapshot, int) else snapshot.index
        if index not in self._position:
            raise ValueError(f"snapshot #{index} is not part of this layout")
        return self._position[index]

    def svg(self, snapshot: int | Snapshot, options: Options = DEFAULT_OPTIONS) -> str:
        """The SVG of a snapshot (by ``index`` or itself) on the fixed layout."""
        key = (self.index_of(snapshot), options)
        text = self._pictures.pop(key, None)
        if text is None:
            text = draw(self.geometry, self.scenes[key[0]], options, self._cache)
        # NB: the last pictures drawn stay ready (going back and forth costs nothing)
        self._pictures[key] = text
        while len(self._pictures) > _KEEP_PICTURES:
            del self._pictures[next(iter(self._pictures))]
        return text

    def prerender(self, options: Options = DEFAULT_OPTIONS, budget: int = 200_000) -> int:
        """Draw the first snapshots ahead (as many as are kept, until ``budget`` boxes have been
        drawn), so that stepping to them later costs a lookup. Returns how many were drawn."""
        drawn = boxes = 0
        for snap, scene in zip(self.snapshots[:_KEEP_PICTURES], self.scenes):
            if boxes + len(scene.boxes) > budget and drawn:
                break
            self.svg(snap, options)
            drawn, boxes = drawn + 1, boxes + len(scene.boxes)
        return drawn

    def step_svg(self, backward: int, step: int, options: Options = DEFAULT_OPTIONS) -> str:
        """The SVG of backward ``backward`` running its step ``step`` (0-based)."""
        return draw(self.geometry, self.step_scene(backward, step), options, self._cache)

    def pinned_dot(self, snapshot: int | Snapshot, options: Options = DEFAULT_OPTIONS) -> str:
        """DOT with every position fixed (``neato -n2``), for PNG and PDF output."""
        return _pinned(self.geometry, self.scenes[self.index_of(snapshot)], options)

    def render(self, snapshot: int | Snapshot, fmt: str = "svg",
               options: Options = DEFAULT_OPTIONS) -> str | bytes:
        """``svg`` (text, drawn here), ``dot`` (text), or ``png``/``pdf`` (bytes, by Graphviz
        on the fixed positions: no new layout)."""
        if fmt == "svg":
            return self.svg(snapshot, options)
        if fmt == "dot":
            return self.pinned_dot(snapshot, options)
        if fmt in ("png", "pdf"):
            extra = ("-Gdpi=110",) if fmt == "png" else ()
            return graphviz.run(self.pinned_dot(snapshot, options), fmt, "-Kneato", "-n2",
                                *extra)
        raise ValueError(f"unknown format {fmt!r}: use svg, png, pdf or dot")


def _apply_step(boxes: dict[str, Box], base: dict[str, Box], b: BackwardRecord, k: int) -> int:
    """Restyle ``boxes`` from step ``k - 1`` of backward ``b`` to step ``k``; returns the bytes
    that step freed."""
    n = b.number
    if k > 0:
        prev = b.steps[k - 1]
        box = base.get(prev.node)
        if box is not None:     # a leaf goes back to being a leaf; an op node is done
            boxes[prev.node] = (restyled(box, "done", f"run by backward #{n} (step {k})")
                                if box.kind == "node" else box)
    if k == len(b.steps):
        box = boxes.get(b.failed_at or "")
        if box is not None:
            boxes[box.id] = restyled(box, "failed", f"backward #{n} failed here",
                                     alert=f"✗ backward #{n} failed here")
        return 0
    s = b.steps[k]
    box = boxes.get(s.node)
    if box is not None:
        boxes[s.node] = restyled(box, "running", f"running: step {k + 1} of backward #{n}")
    freed = 0
    for r in s.released:
        saved = boxes.get(f"{s.node}-{r['name']}")
        freed += int(r.get("nbytes", 0))
        if saved is not None:
            boxes[saved.id] = restyled(saved, "freed", f"freed by backward #{n} at step {k + 1}",
                                       status=f"freed by backward #{n}")
    return freed


def _spline(pos: str, llx: float, ury: float
            ) -> tuple[list[tuple[float, float]], tuple[float, float] | None]:
    tip: tuple[float, float] | None = None
    spline = pos.split(";")[0]
    if spline.startswith(("e,", "s,")):
        # NB: "e,x,y" (the arrow's tip) and "s,x,y" lead the control points
        parts = spline.split(" ")
        marks, spline = [p for p in parts if p[:2] in ("e,", "s,")], " ".join(
            p for p in parts if p[:2] not in ("e,", "s,"))
        for mark in marks:
            if mark[0] == "e":
                x, y = mark[2:].split(",")
                tip = (float(x) - llx, ury - float(y))
    values = [float(v) for v in spline.replace(",", " ").split()]
    points = [(values[i] - llx, ury - values[i + 1]) for i in range(0, len(values) - 1, 2)]
    return points, tip


def _pinned(geom: Geometry, scene: Scene, options: Options) -> str:
    """The scene as DOT whose every box and spline is where the layout put it."""
    width, height, header = size_of(geom, options)

    def at(x: float, y: float) -> str:        # SVG coordinates -> Graphviz points (y up)
        return f"{x + MARGIN:.2f},{height - (y + header):.2f}"

    out = ["digraph snapshot {",
           f"  graph {attrs({'bb': f'0,0,{width:.2f},{height:.2f}', 'bgcolor': 'white'})}",
           f"  node {attrs({'fontname': theme.FONT, 'fixedsize': 'true', 'margin': '0'})}",
           f"  edge {attrs(EDGE_ATTRS)}"]
    head_text = "\\l".join(quote(t)[1:-1] for t in [scene.title, *scene.notes]) + "\\l"
    out.append(f'  "header" [shape="plaintext" fontsize="12" label="{head_text}" '
               f'pos="{width / 2:.2f},{height - header / 2:.2f}!" '
               f'width="{(width - 2 * MARGIN) / 72:.3f}" height="{header / 72:.3f}"]')
    shown = set()
    for box in scene.boxes.values():
        if box.id not in geom.boxes or (box.kind == "saved" and not options.saved) or \
                (box.kind == "ghost" and not options.ghosts):
            continue
        shown.add(box.id)
        cx, cy, w, h = geom.boxes[box.id]
        lines = {s: t for s, t in box.lines.items() if options.shapes or s != "shape"}
        a: dict[str, Any] = {"id": box.id, "label": label_of(lines), "tooltip": box.tooltip,
                             "pos": at(cx, cy) + "!", "width": f"{w / 72:.4f}",
                             "height": f"{h / 72:.4f}"}
        a.update(theme.dot_node_attrs(box.style))
        out.append(f"  {quote(box.id)} {attrs(a)}")
    for link in scene.links.values():
        if link.id not in geom.links or link.tail not in shown or link.head not in shown:
            continue
        points, tip = geom.links[link.id]
        pos = " ".join(at(x, y) for x, y in points)
        if tip is not None:
            pos = f"e,{at(*tip)} {pos}"
        a = {"id": link.id, "pos": pos}
        a.update(theme.dot_edge_attrs(link.kind))
        out.append(f"  {quote(link.tail)} -> {quote(link.head)} {attrs(a)}")
    if options.legend:
        x0, y0 = legend_at(geom, header)
        for i, key in enumerate(theme.LEGEND):
            style = theme.STYLES[key]
            cy = y0 + (i + 1) * 20.0 + 7.0
            a = {"label": "", "pos": f"{x0 + 15:.2f},{height - cy:.2f}!", "width": "0.4167",
                 "height": "0.1944"}
            a.update(theme.dot_node_attrs(key))
            out.append(f"  {quote('legend-' + key)} {attrs(a)}")
            tw = theme.text_width(style.legend, 9.0)
            out.append(f"  {quote('legend-text-' + key)} "
                       + attrs({"shape": "plaintext", "fontsize": "9", "label": style.legend,
                                "pos": f"{x0 + 38 + tw / 2:.2f},{height - cy:.2f}!",
                                "width": f"{tw / 72:.3f}", "height": "0.2"}))
    out.append("}")
    return "\n".join(out) + "\n"
