"""The stepper widget in JupyterLab, in headless Chromium: open the seed-000 teaching notebook,
run all cells, step the widget with its buttons and its slider, and check that the picture
changes to the expected states (y's buffers alive, then freed; y's node where it fails)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from render._support import NEEDS_DOT

pytestmark = [*NEEDS_DOT, pytest.mark.browser]
T = 90_000          # ms: a cold kernel on a loaded 2-core machine


@pytest.fixture(scope="module")
def notebook(browser: Any, jupyter_lab: Any) -> Iterator[Any]:
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(jupyter_lab.url("lab/tree/seed000_shared_y.ipynb?reset"),
              wait_until="domcontentloaded")
    page.wait_for_function("window.jupyterapp && window.jupyterapp.shell", timeout=T)
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=T)
    page.wait_for_function("""() => {
        const w = window.jupyterapp.shell.currentWidget;
        const k = w && w.sessionContext && w.sessionContext.session
                  && w.sessionContext.session.kernel;
        return !!k && k.connectionStatus === 'connected' && k.status === 'idle';
    }""", timeout=T)
    # NB: resolves when the run is over: true when no cell raised (the magic shows the broken
    # version's traceback as output; the cell itself does not raise)
    ok = page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    assert ok, "a notebook cell raised"
    page.locator(".gva-stepper").first.wait_for(state="visible", timeout=T)
    page.locator(".gva-stepper .gva-view svg").first.wait_for(state="visible", timeout=T)
    yield page
    assert errors == []
    page.close()


def stepper(page: Any) -> Any:
    return page.locator(".gva-stepper").first


def caption(page: Any) -> str:
    return str(stepper(page).locator(".gva-caption").inner_text())


def wait_caption(page: Any, pattern: str) -> None:
    page.wait_for_function(
        "([p]) => new RegExp(p).test(document.querySelector('.gva-stepper')"
        ".querySelector('.gva-caption').innerText)", arg=[pattern], timeout=T)


def style(page: Any, box_id: str) -> str | None:
    return page.evaluate(
        "id => { const g = document.querySelector('.gva-stepper').querySelector("
        "`.gva-view g.box[data-id=\"${id}\"]`); return g && g.dataset.style; }",
        box_id)


def y_node(page: Any) -> str:
    return str(page.evaluate("""() => [...document.querySelector('.gva-stepper')
        .querySelectorAll('.gva-view g.box.node')].find(g => g.textContent.includes('y = t @ a'))
        .dataset.id"""))


def test_buttons_and_slider_step_the_picture(notebook: Any, artifacts_dir: Path) -> None:
    page = notebook
    assert re.search(r"#0 before backward #1", caption(page))
    y = y_node(page)
    assert style(page, f"{y}-self") == "alive" and style(page, f"{y}-vec") == "alive"
    stepper(page).scroll_into_view_if_needed()
    stepper(page).screenshot(path=str(artifacts_dir / "lab-seed000-0.png"))
    stepper(page).locator(".gva-next").click()
    wait_caption(page, "#1 after backward #1")
    assert style(page, f"{y}-self") == "freed" and style(page, f"{y}-vec") == "freed"
    # the slider, by keyboard on its handle
    stepper(page).locator(".gva-slider .noUi-handle").press("ArrowRight")
    wait_caption(page, "#2 before backward #2")
    assert style(page, y) == "fails"
    assert "Recompute it inside the loop" in stepper(page).locator(".gva-details").inner_text()
    stepper(page).screenshot(path=str(artifacts_dir / "lab-seed000-2.png"))


def test_the_step_buttons_replay_the_backward(notebook: Any, artifacts_dir: Path) -> None:
    page = notebook
    stepper(page).locator(".gva-slider .noUi-handle").press("Home")
    wait_caption(page, "#0 before backward #1")
    stepper(page).locator(".gva-step-next").click()
    wait_caption(page, "step 1 of")
    assert page.locator(".gva-stepper >> nth=0").locator(".gva-view g.box.running").count() == 1
    y = y_node(page)
    for _ in range(8):
        if style(page, y) == "running":
            break
        stepper(page).locator(".gva-step-next").click()
        page.wait_for_timeout(300)
    assert style(page, y) == "running" and style(page, f"{y}-self") == "freed"
    stepper(page).screenshot(path=str(artifacts_dir / "lab-seed000-step.png"))
    stepper(page).locator(".gva-show-saved input").uncheck()
    page.wait_for_function("() => !document.querySelector('.gva-stepper')"
                           ".querySelector('.gva-view g.box.saved')", timeout=T)
