"""The standalone ``index.html`` of ``graphviz-autograd render``, in headless Chromium from
``file://``: stepping with keys, buttons and the timeline changes the picture and its states."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from render._support import NEEDS_DOT
from test_cli import cli

pytestmark = [*NEEDS_DOT, pytest.mark.browser]


@pytest.fixture(scope="module")
def seed000_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("page") / "seed000"
    r = cli("render", "examples/seed000_shared_y.py", "-o", str(out), "--format", "json,html")
    assert r.returncode == 1 and (out / "index.html").is_file(), r.stderr
    return out / "index.html"


@pytest.fixture
def page(browser: Any, seed000_page: Path) -> Iterator[Any]:
    pg = browser.new_page(viewport={"width": 1400, "height": 900})
    pg.errors = []
    pg.requests = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.goto(seed000_page.as_uri())
    pg.wait_for_selector("#picture svg g.box")
    yield pg
    assert pg.errors == []
    # nothing but the page itself was loaded: no network, no CDN
    assert all(u.startswith(("file:", "data:", "about:")) for u in pg.requests), pg.requests
    pg.close()


def style(pg: Any, box_id: str) -> str | None:
    return pg.evaluate("id => { const g = document.querySelector("
                       "`#picture g.box[data-id=\"${id}\"]`); return g && g.dataset.style; }",
                       box_id)


def y_node(pg: Any) -> str:
    # y's node is the one whose label lines include "line 16: y = t @ a"
    return pg.evaluate("""() => [...document.querySelectorAll('#picture g.box.node')]
        .find(g => g.textContent.includes('y = t @ a')).dataset.id""")


def test_keys_step_through_snapshots_and_steps(page: Any, artifacts_dir: Path) -> None:
    assert page.text_content("#caption") == "#0 before backward #1"
    y = y_node(page)
    assert style(page, f"{y}-self") == "alive" and style(page, f"{y}-vec") == "alive"
    page.keyboard.press("ArrowRight")
    assert page.text_content("#caption").startswith("backward #1: step 1 of 6")
    assert page.locator("#picture g.box.running").count() == 1
    # step on until y's node runs: its buffers turn from alive to freed
    for _ in range(10):
        if style(page, y) == "running":
            break
        page.keyboard.press("ArrowRight")
    assert style(page, y) == "running"
    assert style(page, f"{y}-self") == "freed"
    assert "freed by backward #1" in page.text_content(f'#picture g.box[data-id="{y}-self"]')
    page.screenshot(path=str(artifacts_dir / "page-seed000-step.png"))
    page.keyboard.press("End")
    assert page.text_content("#caption") == "#3 backward #2 failed"
    assert style(page, y) == "failed"
    page.keyboard.press("Home")
    assert page.text_content("#caption") == "#0 before backward #1"
    assert page.is_disabled("#prev")


def test_buttons_timeline_and_diagnosis(page: Any, artifacts_dir: Path) -> None:
    y = y_node(page)
    page.click("#next")
    assert page.get_attribute("#picture", "data-step") == "0"
    page.click("#prev")
    assert page.get_attribute("#picture", "data-step") == ""
    page.click("#timeline button:has-text('#2 before backward #2')")
    assert page.text_content("#caption") == "#2 before backward #2"
    assert style(page, y) == "fails"           # the reused y: the next backward fails here
    assert style(page, f"{y}-self") == "freed"
    diag = page.text_content("#diagnosis")
    assert "Recompute it inside the loop" in diag and "y.detach()" in diag
    assert "Next backward will fail" in page.text_content("#notes")
    # the steps bar of backward #2: the three nodes it ran, then the one where it failed
    assert page.locator("#steps button").count() == 4
    page.click("#steps button >> nth=2")
    assert style(page, y) == "fails" and page.locator("#picture g.box.running").count() == 1
    page.click("#steps button >> nth=3")
    assert style(page, y) == "failed"
    assert "fails at MvBackward0" in page.text_content("#caption")
    page.screenshot(path=str(artifacts_dir / "page-seed000-before-2.png"))


def test_play_and_toggles(page: Any) -> None:
    page.click("#play")
    page.wait_for_function("document.getElementById('picture').dataset.frame !== '0'")
    page.click("#play")                          # pause
    assert page.get_attribute("#play", "aria-pressed") == "false"
    frame = page.get_attribute("#picture", "data-frame")
    page.wait_for_timeout(1200)
    assert page.get_attribute("#picture", "data-frame") == frame
    assert page.locator("#picture g.box.saved").first.is_visible()
    page.uncheck("#show-saved")
    assert not page.locator("#picture g.box.saved").first.is_visible()
    page.check("#show-saved")
    assert page.locator("#picture g.box.saved").first.is_visible()
