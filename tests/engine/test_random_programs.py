"""Random programs (``_random_programs``) run on real PyTorch and on the engine: the oracle's
records of both (graphs with their saved buffers' states, errors word for word, warnings,
gradients) must not differ. Seeds are fixed, so a failure names its program."""

from __future__ import annotations

from pathlib import Path

import pytest
from _markers import HAS_TORCH

from ._op_examples import ORACLE, load_harness
from ._random_programs import program

if not HAS_TORCH:
    pytest.skip("needs PyTorch (pip install -e '.[torch]')", allow_module_level=True)
harness = load_harness()
if harness is None:
    pytest.skip(f"oracle not found at {ORACLE}", allow_module_level=True)

pytestmark = pytest.mark.torch

SEEDS_PER_CASE = 25
CASES = 24          # 600 programs


@pytest.mark.parametrize("case", range(CASES))
def test_random_programs_match_real_torch(case: int, tmp_path: Path) -> None:
    import torch

    import graphviz_autograd.torch as ours

    failures = []
    for seed in range(case * SEEDS_PER_CASE, (case + 1) * SEEDS_PER_CASE):
        source = program(seed)
        path = tmp_path / f"random_{seed}.py"
        path.write_text(source, encoding="utf-8")
        theirs, mine = harness.run_scenario(str(path), torch), harness.run_scenario(str(path), ours)
        # NB: where an uncaught error was raised differs by design: PyTorch's come from C++,
        # so their last frame is the program's line; the engine's last frame is its own
        differences = [d for d in harness.diff(theirs, mine)
                       if not d.split(":", 1)[0].endswith("/where")]
        if differences:
            failures.append(f"seed {seed}:\n{source}" + "\n".join("    " + d for d in differences))
    assert not failures, "\n\n".join(failures)



def test_in_place_edit_of_a_flip_leaves_its_input(tmp_path: Path) -> None:
    """``flip`` copies in PyTorch (numpy's flip is a view): editing its result in place must not
    change the input, nor the input's gradient (seed 767 of the generator's first version)."""
    import torch

    import graphviz_autograd.torch as ours

    path = tmp_path / "flip.py"
    path.write_text("b = torch.tensor([[1.5, 0.5], [2.0, -1.0]], requires_grad=True)\n"
                    "f = b.flip(0)\n"
                    "attempt('edit', lambda: f.zero_())\n"
                    "note('b', b)\n"
                    "b.max().backward()\n"
                    "grads('max', b=b)\n", encoding="utf-8")
    theirs, mine = harness.run_scenario(str(path), torch), harness.run_scenario(str(path), ours)
    assert not harness.diff(theirs, mine), harness.diff(theirs, mine)
