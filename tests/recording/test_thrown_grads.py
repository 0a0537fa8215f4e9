"""Gradient accumulation with ``opt.zero_grad()`` at each pass and ``opt.step()`` every few:
the gradients of the passes between two steps are cleared before any step uses them. Told
with both lines, on both engines; the fix (the clearing moved after the step, under its
condition) runs, and is told nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, run_script, torch_of

ACCUMULATE = """\
torch.manual_seed(0)
model = torch.nn.Linear(10, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
accum = 4
data = [(torch.randn(8, 10), torch.randn(8, 1)) for _ in range(12)]
for i, (x, y) in enumerate(data):
    {zero}
    loss = torch.nn.functional.mse_loss(model(x), y) / accum
    loss.backward()
    if (i + 1) % accum == 0:
        opt.step()
"""


@ON_BOTH_ENGINES
@pytest.mark.parametrize("zero", ["opt.zero_grad()", "opt.zero_grad(set_to_none=False)"])
def test_gradients_cleared_between_steps_of_an_accumulation_are_told(
        engine: str, zero: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    text = ACCUMULATE.format(zero=zero)
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "accum.py", text)
    (d,) = diagnose(rec)
    assert d.kind == "thrown_grad"
    assert d.summary.startswith(
        "9 of the 12 backwards at line 9 (`loss.backward()`) gave `model.weight`, `model.bias` "
        "gradients that were cleared before any step used them")
    assert f"(line 7: `{zero}`)" in d.summary
    assert "Line 11 (`opt.step()`) runs only under its condition." in d.summary
    assert fix_keys(d) == ["zero_grad"]
    assert d.fixes[0].detail.startswith(
        f"Move line 7 (`{zero}`) to right after line 11 (`opt.step()`), under the same "
        "condition")
    # NB: the fix put in: the step uses the four backwards' sum, and nothing is told
    fixed = text.replace(f"    {zero}\n", "").replace(
        "        opt.step()\n", f"        opt.step()\n        {zero}\n")
    with record(engine=engine) as again:
        run_script(torch, tmp_path / "fixed.py", fixed)
    assert diagnose(again) == []


@ON_BOTH_ENGINES
def test_a_step_at_every_backward_is_not_told(engine: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    text = ACCUMULATE.format(zero="opt.zero_grad()").replace("accum = 4", "accum = 1")
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "every.py", text)
    assert diagnose(rec) == []
