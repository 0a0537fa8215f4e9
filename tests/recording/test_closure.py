"""An optimizer that calls a closure several times a step (LBFGS), over a part built once
outside it: the fix is to build that part inside the closure, and nothing else (retained or
detached, it would stay as the parameters were before the step changed them)."""

from __future__ import annotations

from typing import Any

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, torch_of

BACKWARD_TWICE = "Trying to backward through the graph a second time"


def _fit(torch: Any, inside: bool) -> float:
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Linear(3, 1)
    opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=4)
    x, y = torch.randn(20, 3), torch.randn(20, 1)
    for _ in range(2):
        out = model(x)

        def closure() -> Any:
            opt.zero_grad()
            # NB: the bug under test: `out` from outside the closure
            loss = nn.functional.mse_loss(model(x) if inside else out, y)  # noqa: B023
            loss.backward()
            return loss

        opt.step(closure)
    return float(nn.functional.mse_loss(model(x), y).item())


@ON_BOTH_ENGINES
def test_a_part_built_outside_the_closure_is_to_be_built_inside(engine: str) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=BACKWARD_TWICE):
        _fit(torch, inside=False)
    (d,) = diagnose(rec)
    assert d.built_by["labels"] == ["out"]
    assert "`opt.step(closure)` at line " in d.summary
    assert "calls `closure` several times in one step" in d.summary
    assert "which line " in d.summary and "(`out = model(x)`) built once, outside `closure`" \
        in d.summary
    assert fix_keys(d) == ["recompute"]
    assert d.fixes[0].title == "Build `out` inside `closure`"
    assert d.fixes[0].detail.startswith("Move line ")


@ON_BOTH_ENGINES
def test_built_inside_the_closure_the_fit_runs(engine: str) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        _fit(torch, inside=True)
    assert len(rec.backwards) > 2 and not any(b.error for b in rec.backwards)
    assert not [d for d in diagnose(rec) if d.kind == "freed"]
