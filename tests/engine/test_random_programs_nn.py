"""Random programs of ``nn`` layers (``_random_programs_nn``: small models, a loss, backward
patterns, optimizer steps) run on real PyTorch and on the engine: the oracle's records of both
must not differ. A float32 program whose only differences are numbers (rounding, amplified by an
ill-conditioned layer) must match exactly in float64."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _markers import HAS_TORCH

from ._op_examples import ORACLE, load_harness
from ._random_programs_nn import program_nn

if not HAS_TORCH:
    pytest.skip("needs PyTorch (pip install -e '.[torch]')", allow_module_level=True)
harness = load_harness()
if harness is None:
    pytest.skip(f"oracle not found at {ORACLE}", allow_module_level=True)

pytestmark = pytest.mark.torch

SEEDS_PER_CASE = 25
CASES = 4           # 100 programs
_NUMBER = re.compile(r"^\S+: expected -?[0-9.e+-]+ got -?[0-9.e+-]+$")


def _run(source: str, tmp_path: Path, name: str) -> list[str]:
    import torch

    import graphviz_autograd.torch as ours

    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    theirs, mine = harness.run_scenario(str(path), torch), harness.run_scenario(str(path), ours)
    return [d for d in harness.diff(theirs, mine) if not d.split(":", 1)[0].endswith("/where")]


def _differences(seed: int, tmp_path: Path) -> list[str]:
    differences = _run(program_nn(seed), tmp_path, f"nn_{seed}")
    if differences and all(_NUMBER.match(d) for d in differences):
        return _run(program_nn(seed, double=True), tmp_path, f"nn_{seed}_64")
    return differences


@pytest.mark.parametrize("case", range(CASES))
def test_random_nn_programs_match_real_torch(case: int, tmp_path: Path) -> None:
    failures = []
    for seed in range(case * SEEDS_PER_CASE, (case + 1) * SEEDS_PER_CASE):
        differences = _differences(seed, tmp_path)
        if differences:
            failures.append(f"seed {seed}:\n{program_nn(seed)}"
                            + "\n".join("    " + d for d in differences))
    assert not failures, "\n\n".join(failures)


# NB: each one a difference the family found (the seed in its comment)
FOUND = {
    # every target ignored: a nan loss without a warning, a zero gradient (seed 20)
    "nll_every_target_ignored":
        "x = torch.tensor([[0.5, 1.0], [0.2, 0.3]], requires_grad=True)\n"
        "t = torch.tensor([0, 0])\n"
        "w = torch.tensor([0.5, 0.75])\n"
        "F = torch.nn.functional\n"
        "for i, loss in enumerate([F.cross_entropy(x, t, ignore_index=0),\n"
        "                          F.cross_entropy(x, t, weight=w, ignore_index=0),\n"
        "                          F.nll_loss(x, t, weight=w, ignore_index=0, reduction='sum'),\n"
        "                          F.nll_loss(x, t, ignore_index=0)]):\n"
        "    note(f'loss {i}', loss)\n"
        "    x.grad = None\n"
        "    attempt(f'backward {i}', lambda: loss.backward())\n"
        "    grads(f'x {i}', x=x)\n",
    # PReLU's weight is filled in place at construction: it starts at version 1 (seed 183)
    "prelu_weight_version":
        "m = torch.nn.PReLU(2)\n"
        "note('version', m.weight._version)\n"
        "x = torch.tensor([[-1.0, 2.0], [0.5, -3.0]], requires_grad=True)\n"
        "y = m(x).sum()\n"
        "with torch.no_grad():\n"
        "    m.weight.add_(1)\n"
        "probe('stale', y=y)\n"
        "attempt('stale', lambda: y.backward())\n"
        "m.reset_parameters()\n"
        "note('reset', m.weight._version)\n",
    # backward(inputs=...) retains each input's grad before checking it requires grad (seed 114)
    "backward_inputs_not_requiring_grad":
        "x = torch.tensor([1.0, 2.0])\n"
        "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "loss = (x * w).sum()\n"
        "attempt('method', lambda: loss.backward(inputs=[w, x], retain_graph=True))\n"
        "attempt('function', lambda: torch.autograd.backward(loss, inputs=[x * 2]))\n"
        "attempt('grad', lambda: torch.autograd.grad(loss, [w, x]))\n"
        "grads('w', w=w)\n",
    # LSTMCell's states: two for a batch, the first two of an unbatched input's (seed 960)
    "lstm_cell_states":
        "torch.manual_seed(0)\n"
        "c = torch.nn.LSTMCell(2, 3)\n"
        "with torch.no_grad():\n"
        "    for p in c.parameters():\n"
        "        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))\n"
        "z = torch.zeros(1, 3)\n"
        "attempt('four', lambda: c(torch.ones(1, 2), (z, z, z, z)))\n"
        "attempt('one', lambda: c(torch.ones(1, 2), (z,)))\n"
        "attempt('list', lambda: note('list', c(torch.ones(1, 2), [z, z + 1])))\n"
        "attempt('unbatched', lambda: note('u', c(torch.ones(2), (z[0], z[0] + 1, z[0]))))\n"
        "attempt('unbatched one', lambda: c(torch.ones(2), (z[0],)))\n",
    # an optimizer step that overflows gives inf without numpy's warnings (seed 1540)
    "optimizer_overflow":
        "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "(w * 1e30).sum().backward()\n"
        "for opt in (torch.optim.Adam([w], lr=0.1), torch.optim.RMSprop([w], lr=0.1),\n"
        "            torch.optim.Adagrad([w], lr=0.1), torch.optim.SGD([w], lr=1e10)):\n"
        "    opt.step()\n"
        "    note(type(opt).__name__, w)\n",
    # the target of a spatial input: its rank and shape checked before its bounds, with the
    # spatial kernels' weight message (seed 2158)
    "spatial_target_checks":
        "F = torch.nn.functional\n"
        "for shape, t in (((2, 1, 3), [2, 1]), ((2, 1, 3), [[0, 0], [0, 0]]),\n"
        "                 ((2, 1, 3), [[5, 0, 0], [0, 0, 0]]), ((2, 3, 2, 2), [5, 1]),\n"
        "                 ((2, 3, 2, 2), [[[5]], [[1]]]), ((2, 3, 2, 2, 1), [[[5]], [[1]]])):\n"
        "    x, t = torch.zeros(*shape), torch.tensor(t)\n"
        "    attempt(f'nll {shape}', lambda: F.nll_loss(x, t))\n"
        "    attempt(f'weight {shape}', lambda: F.nll_loss(x, t, weight=torch.ones(2)))\n"
        "    attempt(f'smoothed {shape}', lambda: F.cross_entropy(x, t, label_smoothing=0.1))\n",
    # float64 linear and cubic interpolation: positions and weights in float64 (seeds 19104,
    # 20238 under a checkpoint; magnified, as the difference was in the seventh digit)
    "float64_interpolation":
        "x = torch.tensor([[[[0.3, -1.2, 0.8], [1.1, 0.4, -0.7], [0.2, 0.9, -1.5]]]],\n"
        "                 dtype=torch.float64, requires_grad=True)\n"
        "F = torch.nn.functional\n"
        "for mode in ('bicubic', 'bilinear'):\n"
        "    for ac in (True, False):\n"
        "        for kw in ({'scale_factor': 2}, {'size': (5, 4)}, {'scale_factor': 1.7}):\n"
        "            y = F.interpolate(x, mode=mode, align_corners=ac, **kw)\n"
        "            note(f'{mode} {ac} {kw}', y * 1e6)\n"
        "            x.grad = None\n"
        "            (y * y).sum().backward()\n"
        "            note(f'grad {mode} {ac} {kw}', x.grad * 1e6)\n"
        "y = F.interpolate(x[0], size=5, mode='linear')\n"
        "note('linear', y * 1e6)\n",
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_differences_the_nn_family_found(name: str, tmp_path: Path) -> None:
    differences = _run(FOUND[name], tmp_path, name)
    assert not differences, differences


_SAME_PADDING = """
import json
import warnings
import {module} as torch
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for conv in (torch.nn.Conv2d(1, 1, 2, padding='same'),
                 torch.nn.Conv1d(1, 1, 2, padding='same')):
        conv(torch.ones(1, 1, 3, 3) if isinstance(conv, torch.nn.Conv2d) else torch.ones(1, 1, 3))
        conv(torch.ones(1, 1, 3, 3) if isinstance(conv, torch.nn.Conv2d) else torch.ones(1, 1, 3))
print(json.dumps([str(w.message) for w in caught]))
"""


def test_same_padding_of_an_even_kernel_warns_once_per_process() -> None:
    """(seed 340) PyTorch warns once per process, so a fresh process each."""
    out = [[harness.norm_message(m) for m in json.loads(subprocess.run(
        [sys.executable, "-c", _SAME_PADDING.format(module=module)],
        capture_output=True, text=True, check=True).stdout)]
        for module in ("torch", "graphviz_autograd.torch")]
    assert out[0] == out[1]
    assert len(out[0]) == 1
