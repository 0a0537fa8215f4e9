"""The standalone HTML page of a recording: one self-contained file (no network, opens from
``file://``) that steps through the snapshots and through each backward node by node, with the
diagnosis beside the picture it explains, the tooltips and the legend.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from html import escape
from importlib import resources
from typing import TYPE_CHECKING, Any

from .layout import Layout

if TYPE_CHECKING:
    from ..recording.recorder import Recording

__all__ = ["page"]

INTERVAL_MS = 900


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def _script_json(data: Any) -> str:
    # NB: inside <script>, "</script>" in a user string would end the element: escape < > &
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page(recording: Recording, layout: Layout | None = None, title: str | None = None,
         progress: Callable[[int, int], None] | None = None) -> str:
    """The HTML text of the page (every snapshot drawn on one layout)."""
    from ..recording.diagnose import by_snapshot
    layout = layout or Layout.of(recording)
    diagnoses = {i: [d.text() for d in ds] for i, ds in by_snapshot(recording).items()}
    steps_of = {b.snapshot_before: i for i, b in enumerate(recording.backwards)
                if b.snapshot_before is not None and b.steps}
    snaps = []
    total = len(layout.snapshots)
    for i, snap in enumerate(layout.snapshots):
        scene = layout.scenes[i]
        snaps.append({"index": snap.index, "label": snap.label, "kind": snap.kind,
                      "title": scene.title, "notes": scene.notes, "svg": layout.svg(snap),
                      "diagnosis": "\n\n".join(diagnoses.get(snap.index, [])),
                      "steps_of": steps_of.get(snap.index)})
        if progress is not None:
            progress(i + 1, total)
    names = {n.id: n.name for snap in layout.snapshots for n in snap.nodes}
    backwards = [{"number": b.number, "failed_at": b.failed_at,
                  "failed_name": names.get(b.failed_at or ""),
                  "steps": [{"node": s.node, "name": s.name, "grad_shape": s.grad_shape,
                             "released": [r["name"] for r in s.released]} for s in b.steps]}
                 for b in recording.backwards]
    data = {"snapshots": snaps, "backwards": backwards, "interval_ms": INTERVAL_MS}
    heading = title or "graphviz-autograd recording"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(heading)}</title>
<style>
{_asset("page.css")}
</style>
</head>
<body>
<header>
<h1>{escape(heading)}</h1>
<div class="controls">
<button type="button" id="prev" title="previous (←)">◀ Prev</button>
<button type="button" id="play" aria-pressed="false" title="play / pause (space)">▶ Play</button>
<button type="button" id="next" title="next (→)">Next ▶</button>
<label><input type="checkbox" id="show-saved" checked> saved buffers</label>
<label><input type="checkbox" id="show-ghosts" checked> ghosts</label>
<label><input type="checkbox" id="fit" checked> fit to width</label>
</div>
<span id="caption"></span><span id="frame-count"></span>
</header>
<nav id="timeline" aria-label="snapshots"></nav>
<div id="steps" aria-label="steps of this backward"></div>
<main>
<div id="picture" class="fit"></div>
<aside id="side">
<h2>What this picture shows</h2>
<div id="notes"></div>
<h2>Diagnosis</h2>
<div id="diagnosis"></div>
<p id="keys">Keys: ← → step, Home / End, space plays. Hover a box for its shapes, bytes and
source line.</p>
</aside>
</main>
<script type="application/json" id="gva-data">{_script_json(data)}</script>
<script>
{_asset("page.js")}
</script>
</body>
</html>
"""
