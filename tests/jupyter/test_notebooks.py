"""The teaching notebooks, executed as a reader runs them (nbclient, a real kernel): every cell
runs, every broken version fails as its story says and shows the stepper, every fix works."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")

from render._support import NEEDS_DOT  # noqa: E402

pytestmark = NEEDS_DOT
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
WIDGET = "application/vnd.jupyter.widget-view+json"
# the broken versions each notebook shows, and what they raise
EXPECTED = {"seed000_shared_y": 1, "seed001_retain_graph": 1, "seed002_two_losses": 1,
            "seed003_temp_append_h": 1, "patterns": 9, "memory": 1}
# explanations with fixes for programs that raised nothing (memory that grows, a
# retain_graph=True no backward needed, gradients never cleared)
NO_ERROR_EXPLAINED = {"patterns": 4}


def test_every_notebook_is_listed_and_saved_without_outputs() -> None:
    names = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
    assert names == sorted(EXPECTED)
    for path in NOTEBOOKS.glob("*.ipynb"):
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None, path.name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_runs_and_tells_its_story(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    errors, widgets, explained = [], 0, []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        errors += [o for o in outputs if o.output_type == "error"]
        if cell.source.startswith("%%autograd"):
            shown = [o for o in outputs if WIDGET in o.get("data", {})]
            assert shown, f"no stepper shown for:\n{cell.source}"
            widgets += 1
        if "explain(_autograd)" in cell.source:
            explained.append("".join(o.get("text", "") for o in outputs))
    assert len(errors) == EXPECTED[name]
    assert all(e.ename == "RuntimeError" for e in errors)
    assert widgets >= 1 + (name != "seed001_retain_graph")
    failing = [t for t in explained if "Fixes, best first:" in t]
    assert len(failing) == EXPECTED[name] + NO_ERROR_EXPLAINED.get(name, 0)
