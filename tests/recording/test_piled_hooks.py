"""A hook registered at each pass of a training loop on a tensor the loop does not make anew
(``model.weight.register_hook(...)``, or each of a model's parameters): hooks stay until
removed, so they pile up, one more each step, with no error. Told with the loop; each fix, put
in, runs and is told nothing. A hook on a tensor the pass makes (``h.register_hook``) or under
an ``if`` is not told."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, run_script, torch_of

CLIPPED = """\
torch.manual_seed(0)
model = torch.nn.Linear(10, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(64, 10), torch.randn(64, 1)
for step in range(5):
    {register}
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""
ONE = "model.weight.register_hook(lambda g: g.clamp(-0.5, 0.5))"
EACH = "for p in model.parameters(): p.register_hook(lambda g: g * 0.5)"


@ON_BOTH_ENGINES
@pytest.mark.parametrize(("register", "owner", "named"), [
    (ONE, "model.weight", "`model.weight`"), (EACH, "p", "each `p` of `model.parameters()`")])
def test_a_hook_registered_at_each_step_is_told_to_be_registered_once(
        engine: str, register: str, owner: str, named: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    text = CLIPPED.format(register=register)
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "clip.py", text)
    (d,) = diagnose(rec)
    assert d.kind == "piled_hooks"
    assert f"registers a hook on {named} at each pass of the loop at line 5" in d.summary
    assert (f"at backward #5 (line 9), 5 of them run on the gradient of `{owner}`, one after "
            "the other") in d.summary
    assert fix_keys(d) == ["hook_once", "hook_once"]
    assert d.fixes[0].detail.startswith("Move line 6 above line 5")
    assert "`handle.remove()` after line 9 (`loss.backward()`)" in d.fixes[1].detail
    lines = text.splitlines()
    once = "\n".join([*lines[:4], lines[5].strip(), lines[4], *lines[6:]]) + "\n"
    with record(engine=engine) as again:
        run_script(torch, tmp_path / "once.py", once)
    assert diagnose(again) == []
    if register == ONE:
        removed = text.replace(f"    {ONE}\n", f"    handle = {ONE}\n").replace(
            "    loss.backward()\n", "    loss.backward()\n    handle.remove()\n")
        with record(engine=engine) as again:
            run_script(torch, tmp_path / "removed.py", removed)
        assert diagnose(again) == []


@ON_BOTH_ENGINES
@pytest.mark.parametrize("register", [
    "h = model(x); h.register_hook(lambda g: g * 0.5)",
    "if step == 0: model.weight.register_hook(lambda g: g * 0.5)"])
def test_a_hook_on_a_new_tensor_or_registered_once_is_not_told(
        engine: str, register: str, tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "fine.py", CLIPPED.format(register=register))
    assert diagnose(rec) == []
