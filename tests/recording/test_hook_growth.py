"""A forward hook that keeps each step's activation (``acts.append(o)``): the graphs of every
step stay alive, held by the list. The fix rewrites the hook's line, not the loss's."""

from __future__ import annotations

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, here, torch_of


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
