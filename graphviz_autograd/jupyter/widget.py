"""The stepper widget: stock ipywidgets over a recording's fixed layout.

Play / slider / previous / next walk the snapshots; a second slider replays the backward of the
current snapshot node by node; checkboxes toggle saved buffers, ghosts and shapes; a details
panel says what changed since the previous snapshot, what the next backward will do, and the
diagnosis. The state lives in the widgets' traitlets, so it is testable without a browser.
Stepping never runs Graphviz: every view is drawn on the layout made when the widget was.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

import ipywidgets as W

from ..recording.diagnose import by_snapshot
from ..render import Layout, Options
from ..render.scene import nbytes_text

if TYPE_CHECKING:
    from ..recording.recorder import Recording

__all__ = ["Stepper"]


class Stepper(W.VBox):
    """A recording, stepped snapshot by snapshot and, inside a backward, node by node.

    >>> import graphviz_autograd.torch as torch
    >>> from graphviz_autograd import record
    >>> with record() as rec:
    ...     x = torch.ones(3, requires_grad=True)
    ...     (x * x).sum().backward()
    >>> w = Stepper(rec)
    >>> w.slider.value = 1
    >>> w.caption.value
    '<b>#1 after backward #1</b>'
    """

    def __init__(self, recording: Recording, layout: Layout | None = None,
                 interval: int = 900) -> None:
        self.recording = recording
        self.canvas = layout or Layout.of(recording)
        self._diagnoses = by_snapshot(recording)
        self._details_cache: dict[tuple[int, tuple[str, ...]], str] = {}
        last = max(len(self.canvas.snapshots) - 1, 0)
        self.play = W.Play(value=0, min=0, max=last, interval=interval,
                           description="play", show_repeat=False)
        self.slider = W.IntSlider(value=0, min=0, max=last, description="snapshot",
                                  continuous_update=True)
        W.jslink((self.play, "value"), (self.slider, "value"))
        self.prev = W.Button(description="◀ Prev", tooltip="previous snapshot")
        self.next = W.Button(description="Next ▶", tooltip="next snapshot")
        self.step_play = W.Play(value=0, min=0, max=0, interval=max(interval // 2, 100),
                                description="replay", show_repeat=False)
        self.step = W.IntSlider(value=0, min=0, max=0, description="step",
                                continuous_update=True)
        W.jslink((self.step_play, "value"), (self.step, "value"))
        self.step_prev = W.Button(description="◀ step", tooltip="previous step")
        self.step_next = W.Button(description="step ▶", tooltip="next step")
        self.show_saved = W.Checkbox(value=True, description="saved buffers", indent=False)
        self.show_ghosts = W.Checkbox(value=True, description="ghosts", indent=False)
        self.show_shapes = W.Checkbox(value=True, description="shapes", indent=False)
        self.fit = W.Checkbox(value=True, description="fit to width", indent=False)
        self.caption = W.HTML()
        self.view = W.HTML()
        self.details = W.HTML()
        for name in ("play", "slider", "prev", "next", "step_play", "step", "step_prev",
                     "step_next", "show_saved", "show_ghosts", "show_shapes", "fit", "caption",
                     "view", "details"):
            getattr(self, name).add_class(f"gva-{name.replace('_', '-')}")
        self.prev.on_click(lambda _: self._move(self.slider, -1))
        self.next.on_click(lambda _: self._move(self.slider, +1))
        self.step_prev.on_click(lambda _: self._move(self.step, -1))
        self.step_next.on_click(lambda _: self._move(self.step, +1))
        self.slider.observe(self._on_snapshot, "value")
        self.step.observe(lambda _: self._show(), "value")
        for box in (self.show_saved, self.show_ghosts, self.show_shapes, self.fit):
            box.observe(lambda _: self._show(), "value")
        super().__init__([
            W.HBox([self.play, self.prev, self.slider, self.next]),
            W.HBox([self.step_play, self.step_prev, self.step, self.step_next]),
            W.HBox([self.show_saved, self.show_ghosts, self.show_shapes, self.fit]),
            self.caption,
            W.HBox([self.view, self.details]),
        ])
        self.add_class("gva-stepper")
        self.view.layout = W.Layout(flex="3 1 0", overflow="auto")
        self.details.layout = W.Layout(flex="1 1 0", min_width="18rem")
        # NB: the first snapshots are drawn now, so that stepping through them is a lookup
        self.canvas.prerender(self.options)
        self._on_snapshot(None)

    # -- state ----------------------------------------------------------------------------------
    @property
    def options(self) -> Options:
        return Options(saved=self.show_saved.value, ghosts=self.show_ghosts.value,
                       shapes=self.show_shapes.value, fit=self.fit.value)

    def backward_of(self, position: int) -> int | None:
        """The backward whose steps the snapshot at ``position`` replays, if any."""
        if not self.canvas.snapshots:
            return None
        b = self.canvas.snapshots[position].backward
        if b is None or b not in self.canvas.backwards:
            return None
        before = self.canvas.backwards[b].snapshot_before
        return b if before is not None and before in {s.index for s in self.canvas.snapshots} \
            else None

    @staticmethod
    def _move(slider: Any, delta: int) -> None:
        slider.value = max(slider.min, min(slider.max, slider.value + delta))

    def _on_snapshot(self, _change: Any) -> None:
        b = self.backward_of(self.slider.value)
        steps = self.canvas.steps(b) if b is not None else 0
        with self.hold_trait_notifications():
            self.step.value = 0
            self.step.max = steps
            self.step_play.max = steps
            for w in (self.step, self.step_play, self.step_prev, self.step_next):
                w.disabled = steps == 0
        self._show()

    # -- drawing --------------------------------------------------------------------------------
    def _show(self) -> None:
        if not self.canvas.snapshots:
            self.caption.value = "<b>nothing was recorded</b>"
            self.view.value = ""
            return
        i, k = self.slider.value, self.step.value
        b = self.backward_of(i)
        if k > 0 and b is not None:
            scene = self.canvas.step_scene(b, k - 1)
            self.view.value = self.canvas.step_svg(b, k - 1, self.options)
        else:
            scene = self.canvas.scenes[i]
            self.view.value = self.canvas.svg(self.canvas.snapshots[i], self.options)
        self.caption.value = f"<b>{escape(scene.title)}</b>"
        self.details.value = self._details(i, scene.notes)

    def _details(self, i: int, notes: list[str]) -> str:
        key = (i, tuple(notes))
        if key not in self._details_cache:
            self._details_cache[key] = self._make_details(i, notes)
        return self._details_cache[key]

    def _make_details(self, i: int, notes: list[str]) -> str:
        snaps = self.canvas.snapshots
        snap = snaps[i]
        parts = ["<h4>What this picture shows</h4>",
                 "".join(f"<div>{escape(n)}</div>" for n in notes)]
        if i > 0:
            prev = snaps[i - 1]
            before = {n.id: n for n in prev.nodes}
            new = [n for n in snap.nodes if n.id not in before]
            freed = [(n, s) for n in snap.nodes for s in n.saved if s.state == "freed"
                     and n.id in before and any(p.name == s.name and p.state != "freed"
                                                for p in before[n.id].saved)]
            parts.append(f"<h4>Since #{prev.index}</h4><div>{len(new)} new node(s), "
                         f"{len(snap.collected)} collected, {len(freed)} buffer(s) freed "
                         f"({nbytes_text(sum(s.nbytes for _, s in freed))})</div>")
        diagnoses = self._diagnoses.get(snap.index, [])
        if diagnoses:
            parts.append("<h4>Diagnosis</h4>" + "".join(
                f'<pre style="white-space:pre-wrap">{escape(d.text())}</pre>'
                for d in diagnoses))
        return "".join(parts)
