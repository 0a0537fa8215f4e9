"""``%load_ext graphviz_autograd`` and ``%%autograd`` in a real IPython shell (in process)."""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("IPython")
pytest.importorskip("ipywidgets")

from IPython.core.interactiveshell import InteractiveShell
from render._support import NEEDS_DOT

pytestmark = NEEDS_DOT

CELL = """
import torch
t = torch.eye(2, requires_grad=True)
a = torch.ones(2, requires_grad=True)
y = t @ a
for _ in range(2):
    loss = (t @ y).sum()
    loss.backward()
"""


@pytest.fixture
def shell() -> Iterator[Any]:
    sh = InteractiveShell.instance()
    sh.run_line_magic("load_ext", "graphviz_autograd")
    yield sh
    sh.user_ns.pop("_autograd", None)
    InteractiveShell.clear_instance()


def test_autograd_records_the_cell_with_names_and_lines(shell: Any,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    shell.run_cell_magic("autograd", "", CELL)
    rec = shell.user_ns["_autograd"]
    assert [s.kind for s in rec.snapshots] == ["before_backward", "after_backward",
                                               "before_backward", "backward_failed"]
    y = rec.snapshots[2].nodes_labelled("y")[0]
    assert y.name == "MvBackward0"
    # line numbers as the cell shows them (the %%autograd line is line 1)
    assert y.source is not None and y.source["code"] == "y = t @ a" and y.source["line"] == 5
    assert shell.user_ns["torch"].__name__ == "graphviz_autograd.torch"
    out = capsys.readouterr()
    assert "Trying to backward through the graph a second time" in out.out + out.err


def test_options_last_and_engine(shell: Any, capsys: pytest.CaptureFixture[str]) -> None:
    shell.run_cell_magic("autograd", "--last 2", CELL)
    assert len(shell.user_ns["_autograd"].snapshots) == 2
    shell.run_cell_magic("autograd", "", "x = 1 + 1")
    assert "nothing was recorded" in capsys.readouterr().out
    with pytest.raises(Exception, match="invalid choice"):
        shell.run_cell_magic("autograd", "--engine jax", CELL)


def test_real_torch_imported_before_is_the_engine_inside_the_cell(shell: Any) -> None:
    fake = types.ModuleType("torch")      # bound to `torch`, as `import torch` would bind it
    shell.user_ns["torch"] = fake
    shell.run_cell_magic("autograd", "", "x = torch.ones(2, requires_grad=True)\n"
                                          "(x * x).sum().backward()")
    assert len(shell.user_ns["_autograd"].snapshots) == 2
    assert shell.user_ns["torch"] is fake                   # given back after the cell


def test_engine_torch_records_real_pytorch(shell: Any) -> None:
    pytest.importorskip("torch")
    shell.run_cell_magic("autograd", "--engine torch", CELL)
    rec = shell.user_ns["_autograd"]
    assert rec.engine.name == "torch"
    assert [s.kind for s in rec.snapshots][-1] == "backward_failed"
    y = rec.snapshots[2].nodes_labelled("y")[0]
    assert y.name == "MvBackward0" and y.source is not None and y.source["line"] == 5
    import torch
    assert shell.user_ns["torch"] is torch          # real torch in the cell


def test_a_cell_stopped_by_an_error_shows_the_graph_where_it_stopped(
        shell: Any, capsys: pytest.CaptureFixture[str]) -> None:
    shell.run_cell_magic("autograd", "", "import torch\n"
                                          "w = torch.randn(3, requires_grad=True)\n"
                                          "w += 1\n")
    rec = shell.user_ns["_autograd"]
    (snap,) = rec.snapshots
    assert snap.kind == "manual" and snap.error is not None
    assert snap.source is not None and snap.source["line"] == 4 and snap.source["code"] == "w += 1"
    out = capsys.readouterr()
    assert "a leaf Variable that requires grad" in out.out + out.err
    assert "nothing was recorded" not in out.out
    from graphviz_autograd import diagnose
    (d,) = diagnose(rec)
    assert d.kind == "raised" and d.fixes[0].key == "no_grad"
