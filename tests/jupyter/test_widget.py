"""The stepper widget on the Python side: its state, stepping, toggles and details, without a
browser (the state is in the widgets' traitlets)."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

pytest.importorskip("ipywidgets")

from render._support import NEEDS_DOT, record_example

from graphviz_autograd.jupyter.widget import Stepper
from graphviz_autograd.render import graphviz

pytestmark = NEEDS_DOT
SVG = "{http://www.w3.org/2000/svg}"


def styles(svg: str) -> dict[str, str]:
    root = ElementTree.fromstring(svg)
    return {g.get("data-id", ""): g.get("data-style", "") for g in root.iter(f"{SVG}g")
            if "box" in (g.get("class") or "").split()}


@pytest.fixture
def seed000() -> Stepper:
    return Stepper(record_example("seed000_shared_y"))


def y_id(w: Stepper) -> str:
    return w.recording.snapshots[0].nodes_labelled("y")[0].id


def test_snapshot_stepping_with_buttons_and_slider(seed000: Stepper) -> None:
    w, y = seed000, y_id(seed000)
    assert (w.slider.min, w.slider.max, w.play.max) == (0, 3, 3)
    assert w.caption.value == "<b>#0 before backward #1</b>"
    assert styles(w.view.value)[f"{y}-self"] == "alive"
    w.next.click()
    assert w.slider.value == 1 and w.caption.value == "<b>#1 after backward #1</b>"
    assert styles(w.view.value)[f"{y}-self"] == "freed"
    w.slider.value = 3
    assert styles(w.view.value)[y] == "failed"
    w.next.click()                                   # stays at the end
    assert w.slider.value == 3
    w.prev.click()
    assert w.slider.value == 2 and styles(w.view.value)[y] == "fails"


def test_the_second_level_replays_the_backward_node_by_node(seed000: Stepper) -> None:
    w, y = seed000, y_id(seed000)
    steps = w.recording.backwards[0].steps
    assert w.step.max == len(steps) and not w.step.disabled
    k = next(i for i, s in enumerate(steps) if s.node == y)
    for _ in range(k + 1):
        w.step_next.click()
    assert w.step.value == k + 1
    shown = styles(w.view.value)
    assert shown[y] == "running" and shown[f"{y}-self"] == "freed"
    assert "step" in w.caption.value and "MvBackward0" in w.caption.value
    # a new snapshot starts at its own picture again
    w.next.click()
    assert w.step.value == 0 and w.caption.value == "<b>#1 after backward #1</b>"
    # the failed backward's replay ends at the node where it failed
    w.slider.value = 3
    w.step.value = w.step.max
    assert styles(w.view.value)[y] == "failed"


def test_toggles(seed000: Stepper) -> None:
    w = seed000
    assert any("-" in i for i in styles(w.view.value))
    w.show_saved.value = False
    assert not any("-" in i for i in styles(w.view.value))
    w.slider.value = 2
    assert "ghost" in styles(w.view.value).values()
    w.show_ghosts.value = False
    assert "ghost" not in styles(w.view.value).values()
    def texts(svg: str) -> str:
        return " ".join(el.text or "" for el in ElementTree.fromstring(svg).iter(f"{SVG}text"))

    before = texts(w.view.value)
    w.show_shapes.value = False
    assert "float64" not in texts(w.view.value) and "float64" in before


def test_details_say_what_changed_and_diagnose(seed000: Stepper) -> None:
    w = seed000
    w.slider.value = 1
    assert "Since #0" in w.details.value and "buffer(s) freed" in w.details.value
    w.slider.value = 2
    assert "Diagnosis" in w.details.value and "Recompute it inside the loop" in w.details.value
    assert "Next backward will fail" in w.details.value


def test_stepping_never_runs_graphviz(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = graphviz.run
    monkeypatch.setattr(graphviz, "run", lambda *a: calls.append(a[1]) or real(*a))
    w = Stepper(record_example("seed003_temp_append_h"))
    assert calls == ["json0"]
    for i in range(w.slider.max + 1):
        w.slider.value = i
        for k in range(w.step.max + 1):
            w.step.value = k
    w.show_saved.value = False
    assert calls == ["json0"]


def test_a_recording_displays_itself_as_the_widget() -> None:
    rec = record_example("seed002_two_losses")
    bundle = rec._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert isinstance(rec.widget(), Stepper)
