"""``torch.jit`` in eager code: the checks and decorators behave as PyTorch's outside
TorchScript; compiling is refused with the reason and what to do instead."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from _markers import requires_torch

import graphviz_autograd.torch as ours


def _eager_uses(torch: Any) -> list[Any]:
    """What model code outside TorchScript sees of ``torch.jit``."""
    jit = torch.jit

    @jit.ignore
    def helper(x: int) -> int:
        return x + 1

    @jit.unused
    def unused(x: int) -> int:
        return x * 2

    class M:
        @jit.export
        def f(self) -> int:
            return 3

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dropped = jit.ignore(drop=True)(lambda: 4)
    return [jit.is_scripting(), jit.is_tracing(), helper(1), unused(2), M().f(), dropped(),
            [(w.category.__name__, str(w.message)) for w in caught],
            tuple(jit.Attribute(5, int)), jit.Attribute(5, int).type, jit.annotate(list, [6]),
            jit.Final, issubclass(jit.Error, Exception), issubclass(jit.Error, RuntimeError),
            issubclass(jit.TracerWarning, Warning)]


@requires_torch
def test_eager_uses_are_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    assert _eager_uses(ours) == _eager_uses(torch)


@pytest.mark.parametrize("name", ["script", "trace", "trace_module", "freeze", "save", "load"])
def test_compiling_is_refused_saying_what_to_do(name: str) -> None:
    with pytest.raises(NotImplementedError, match=f"torch.jit.{name} is not supported") as e:
        getattr(ours.jit, name)(lambda x: x)
    assert "--engine torch" in str(e.value) and "record(engine='torch')" in str(e.value)


def test_a_scripted_function_stops_a_script_with_that_message(tmp_path: Path) -> None:
    """As the user meets it: ``graphviz-autograd run`` on a script that scripts a function."""
    script = tmp_path / "scripted.py"
    script.write_text("import torch\n\n@torch.jit.script\ndef f(x):\n    return x * 2\n")
    done = subprocess.run([sys.executable, "-m", "graphviz_autograd", "run", str(script)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "torch.jit.script is not supported by graphviz-autograd's engine" in done.stderr
