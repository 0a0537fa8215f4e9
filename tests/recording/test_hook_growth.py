"""A forward hook that keeps each step's activation (``acts.append(o)``): the graphs of every
step stay alive, held by the list. The fix rewrites the hook's line, not the loss's."""

from __future__ import annotations

from pathlib import Path

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, here, run_script, torch_of


@ON_BOTH_ENGINES
def test_a_hook_keeping_activations_is_told_to_keep_them_detached(engine: str) -> None:
    torch = torch_of(engine)
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    acts = []
    line = here() + 1
    model[1].register_forward_hook(lambda m, i, o: acts.append(o))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with record(engine=engine) as rec:
        for _ in range(6):
            loss = nn.functional.mse_loss(model(torch.randn(3, 4)), torch.randn(3, 1))
            opt.zero_grad()
            loss.backward()
            opt.step()
    (d,) = diagnose(rec)
    assert d.kind == "growth" and "held by `acts`" in d.summary
    assert fix_keys(d) == ["detach"]
    assert d.fixes[0].title == "Keep `o.detach()` in `acts`"
    assert d.fixes[0].detail == (
        "`acts` keeps each step's `o` with its graph: `model[1].register_forward_hook(lambda "
        f"m, i, o: acts.append(o.detach()))` at line {line} keeps the values only.")
    assert "loss.detach()" not in d.text()



_PENALISED = """\
torch.manual_seed(0)
nn = torch.nn
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
acts = []
model[1].register_forward_hook(lambda m, i, o: acts.append(o))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for _ in range(6):
    out = model(torch.randn(3, 4))
    penalty = acts[-1].pow(2).mean()
    loss = nn.functional.mse_loss(out, torch.randn(3, 1)) + 1e-3 * penalty
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@ON_BOTH_ENGINES
def test_a_hooked_list_the_loss_reads_is_told_to_be_emptied_not_detached(
        engine: str, tmp_path: Path) -> None:
    """The loss reads the list (an activation penalty): a detached entry would take the
    penalty's gradient away, so the fix is to empty the list after each backward; done (the
    fix's line put in), the memory no longer grows."""
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        run_script(torch, tmp_path / "penalty.py", _PENALISED)
    (d,) = diagnose(rec)
    assert d.kind == "growth" and "held by `acts`" in d.summary
    assert "This step's loss reads `acts` (line 9: `penalty = acts[-1].pow(2).mean()`)" \
        in d.summary
    assert fix_keys(d) == ["fresh_list"]
    assert d.fixes[0].title == "Empty `acts` at each step"
    assert d.fixes[0].detail.startswith("`acts.clear()` after line 12 (`loss.backward()`)")
    fixed = _PENALISED.replace("    loss.backward()\n", "    loss.backward()\n    acts.clear()\n")
    with record(engine=engine) as again:
        run_script(torch, tmp_path / "fixed.py", fixed)
    assert not diagnose(again)
