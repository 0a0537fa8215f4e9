"""``Layout``: one Graphviz run per recording; every snapshot and step drawn on the same
positions; SVG that parses; the states of the seed stories visible; hostile strings as text."""

from __future__ import annotations

import re
from dataclasses import replace
from xml.etree import ElementTree

import pytest

import graphviz_autograd.torch as torch
from graphviz_autograd import record
from graphviz_autograd.render import GraphvizNotFound, Layout, Options, graphviz, render

from ._support import NEEDS_DOT, SEEDS, record_example
from .test_dot import HOSTILE, _hostile

pytestmark = NEEDS_DOT
SVG = "{http://www.w3.org/2000/svg}"


def boxes(svg: str) -> dict[str, ElementTree.Element]:
    root = ElementTree.fromstring(svg)
    return {g.get("data-id", ""): g for g in root.iter(f"{SVG}g")
            if "box" in (g.get("class") or "").split()}


def geometry(g: ElementTree.Element) -> tuple[str | None, ...]:
    r = g.find(f"{SVG}rect")
    assert r is not None
    return tuple(r.get(k) for k in ("x", "y", "width", "height"))


def all_pictures(layout: Layout) -> list[str]:
    out = [layout.svg(s) for s in layout.snapshots]
    for number in layout.backwards:
        out += [layout.step_svg(number, k) for k in range(layout.steps(number))]
    return out


@pytest.mark.parametrize("stem", SEEDS)
def test_positions_never_move_across_snapshots_and_steps(stem: str) -> None:
    layout = Layout.of(record_example(stem))
    seen: dict[str, tuple[str | None, ...]] = {}
    pictures = all_pictures(layout)
    assert len(pictures) > len(layout.snapshots)
    for svg in pictures:
        for box_id, g in boxes(svg).items():
            assert seen.setdefault(box_id, geometry(g)) == geometry(g), box_id


def test_stepping_never_runs_graphviz_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = graphviz.run

    def counting(source: str, fmt: str, *args: str) -> bytes:
        calls.append(fmt)
        return real(source, fmt, *args)

    monkeypatch.setattr(graphviz, "run", counting)
    layout = Layout.of(record_example("seed000_shared_y"))
    assert calls == ["json0"]
    for _ in range(2):
        all_pictures(layout)
        layout.svg(0, Options(saved=False, shapes=False, ghosts=False))
    assert calls == ["json0"] and layout.dot_runs == 1


def test_seed000_states_in_the_pictures() -> None:
    rec = record_example("seed000_shared_y")
    layout = Layout.of(rec)
    y = rec.snapshots[0].nodes_labelled("y")[0].id
    states = [{i: g.get("data-style") for i, g in boxes(layout.svg(s)).items()}
              for s in rec.snapshots]
    assert {states[0][f"{y}-self"], states[0][f"{y}-vec"]} == {"alive"}
    assert {states[1][f"{y}-self"], states[1][f"{y}-vec"]} == {"freed"}
    assert states[2][y] == "fails"       # the reused y: the next backward fails there
    assert states[3][y] == "failed"
    text = layout.svg(2)
    assert "reused: run by backward #1" in text and "freed by backward #1" in text
    assert "Legend" in text
    # the nodes of the first iteration's graph were collected: ghosts, unless toggled off
    assert any(g.get("data-style") == "ghost" for g in boxes(text).values())
    assert not any(g.get("data-style") == "ghost"
                   for g in boxes(layout.svg(2, Options(ghosts=False))).values())
    assert not [i for i in boxes(layout.svg(2, Options(saved=False))) if "-" in i]


def test_step_view_marks_the_running_node_and_the_buffers_freed_so_far() -> None:
    rec = record_example("seed000_shared_y")
    layout = Layout.of(rec)
    steps = rec.backwards[0].steps
    k = next(i for i, s in enumerate(steps) if s.released)
    view = boxes(layout.step_svg(1, k))
    assert view[steps[k].node].get("data-style") == "running"
    assert all(view[s.node].get("data-style") == "done" for s in steps[:k]
               if not s.name.endswith("AccumulateGrad"))
    for r in steps[k].released:
        assert view[f"{steps[k].node}-{r['name']}"].get("data-style") == "freed"
    later = [s for s in steps[k + 1:] if s.released]
    for s in later:
        assert view[f"{s.node}-{s.released[0]['name']}"].get("data-style") == "alive"
    with pytest.raises(ValueError, match="out of range"):
        layout.step_svg(1, len(steps))
    with pytest.raises(ValueError, match="no backward #9"):
        layout.step_svg(9, 0)


def test_hostile_strings_are_text_in_svg() -> None:
    snaps = _hostile("seed000_shared_y")
    layout = Layout(snaps)
    for snap in snaps:
        svg = layout.svg(snap)
        root = ElementTree.fromstring(svg)      # parses: nothing broke out of its element
        assert not [el for el in root.iter() if el.tag.endswith("script")]
        texts = [el.text or "" for el in root.iter(f"{SVG}text")]
        assert f"#{snap.index} {HOSTILE}" in texts
        titles = [el.text or "" for el in root.iter(f"{SVG}title")]
        assert any(HOSTILE in t for t in titles)


def test_png_pdf_and_dot_on_the_fixed_layout() -> None:
    rec = record_example("seed002_two_losses")
    layout = Layout.of(rec)
    assert isinstance(png := layout.render(1, "png"), bytes) and png[:8] == b"\x89PNG\r\n\x1a\n"
    assert isinstance(pdf := layout.render(1, "pdf"), bytes) and pdf[:5] == b"%PDF-"
    pinned = layout.render(1, "dot")
    assert isinstance(pinned, str) and re.search(r'pos="[\d.]+,[\d.]+!"', pinned)
    with pytest.raises(ValueError, match="unknown format 'gif'"):
        layout.render(1, "gif")
    snap = rec.snapshots[0]
    assert snap.render("svg").startswith("<svg")           # type: ignore[union-attr]
    assert set(snap._repr_mimebundle_()) == {"image/svg+xml"}
    with pytest.raises(ValueError, match="unknown format"):
        render(snap, "jpeg")


def test_missing_dot_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with record() as rec:
        x = torch.ones(2, requires_grad=True)
        (x * 2).sum().backward()
    with pytest.raises(GraphvizNotFound, match="apt-get install graphviz"):
        Layout.of(rec)
    # DOT text needs no binary
    assert rec.snapshots[0].to_dot().startswith("digraph")


def test_a_20000_node_graph_folds_and_says_so() -> None:
    torch.manual_seed(0)
    with record() as rec:
        h = torch.randn(1, 4)
        for _ in range(5000):
            h = torch.tanh(h @ torch.randn(4, 4, requires_grad=True) + 1)
        snap = rec.snapshot("deep")
    assert len(snap.nodes) >= 20000
    layout = Layout([snap])
    svg = layout.svg(snap)
    shown = boxes(svg)
    assert len(shown) < 4000
    folds = [g for g in shown.values() if "fold" in (g.get("class") or "").split()]
    assert folds
    text = "".join(folds[0].itertext())
    assert "nodes folded" in text and "TanhBackward0 ×" in text
    assert "folded into summarised groups" in svg


def test_an_empty_recording_draws_an_empty_picture() -> None:
    with record() as rec:
        rec.snapshot("nothing yet")
    layout = Layout.of(rec)
    assert layout.dot_runs == 0
    assert boxes(layout.svg(0)) == {}
    snap = replace(rec.snapshots[0], label="still nothing")
    assert "still nothing" in Layout([snap]).svg(snap)


def test_a_failed_backward_has_a_last_step_view_at_the_failing_node() -> None:
    rec = record_example("seed000_shared_y")
    layout = Layout.of(rec)
    second = rec.backwards[1]
    assert second.failed_at is not None
    assert layout.steps(2) == len(second.steps) + 1
    view = boxes(layout.step_svg(2, len(second.steps)))
    assert view[second.failed_at].get("data-style") == "failed"
    assert all(view[s.node].get("data-style") == "done" for s in second.steps)
    assert layout.steps(1) == len(rec.backwards[0].steps)


def test_step_views_are_the_same_reached_step_by_step_or_by_a_jump() -> None:
    rec = record_example("seed003_temp_append_h")
    walked, jumped = Layout.of(rec), Layout.of(rec)
    for b in rec.backwards:
        n = walked.steps(b.number)
        forward = [walked.step_svg(b.number, k) for k in range(n)]
        for k in reversed(range(n)):
            assert jumped.step_svg(b.number, k) == forward[k]
        # a leaf that ran is a leaf again at the next step; nothing else stays "running"
        for k in range(n):
            running = [i for i, g in boxes(forward[k]).items()
                       if g.get("data-style") == "running"]
            assert len(running) <= 1
