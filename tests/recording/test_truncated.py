"""Truncated backpropagation through time whose detach and backwards do not match: the hidden
state is detached once per window (under ``if i % 5 == 0:``) while each step backwards its own
loss, so the second step's backward runs into the first step's freed graph. The conditional
detach is named, and both ways out are run."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, run_script, torch_of

START = """\
torch.manual_seed(0)
cell = torch.nn.RNNCell(3, 8)
head = torch.nn.Linear(8, 1)
opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.01)
xs, ys = torch.randn(10, 4, 3), torch.randn(10, 4, 1)
h = torch.zeros(4, 8)
"""

TBPTT = START + """\
for i in range(10):
    if i % 5 == 0:
        h = h.detach()
    h = cell(xs[i], h)
    loss = ((head(h) - ys[i]) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

# NB: the other way out: one backward (and step) per window, of the window's losses summed
WINDOWED = START + """\
total = 0
for i in range(10):
    if i % 5 == 0:
        if i:
            opt.zero_grad()
            total.backward()
            opt.step()
            total = 0
        h = h.detach()
    h = cell(xs[i], h)
    total = total + ((head(h) - ys[i]) ** 2).mean()
"""


@ON_BOTH_ENGINES
def test_a_detach_once_per_window_with_a_backward_per_step_is_named(engine: str,
                                                                   tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match="a second time"):
        run_script(torch, tmp_path / "tbptt.py", TBPTT)
    (d,) = diagnose(rec)
    assert d.backward == 2
    assert ("Line 9 (`h = h.detach()`) detaches `h` only when `i % 5 == 0` (line 8), but "
            "line 13 (`loss.backward()`) runs at every step.") in d.summary
    assert fix_keys(d)[0] == "detach"
    assert d.fixes[0].title == "Detach `h` at every step"
    assert d.fixes[0].detail.startswith("Take line 9 out of that `if` (dedented; drop the `if` "
                                        "if nothing else is under it)")
    with record(engine=engine) as again:
        run_script(torch, tmp_path / "fixed.py",
                   TBPTT.replace("    if i % 5 == 0:\n        h = h.detach()",
                                 "    h = h.detach()"))
    assert len(again.backwards) == 10 and diagnose(again) == []
    with record(engine=engine) as windowed:
        run_script(torch, tmp_path / "windowed.py", WINDOWED)
    assert len(windowed.backwards) == 1 and diagnose(windowed) == []



@ON_BOTH_ENGINES
def test_a_detach_under_a_flag_that_never_holds_is_not_named(engine: str,
                                                             tmp_path: Path) -> None:
    """``if detach_state:`` set once before the loop may never hold: the detach is not said to
    run once per window (the general detach fix)."""
    torch = torch_of(engine)
    text = "detach_state = False\n" + TBPTT.replace("if i % 5 == 0:", "if detach_state:")
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match="a second time"):
        run_script(torch, tmp_path / "flag.py", text)
    (d,) = diagnose(rec)
    assert "detaches `h` only when" not in d.summary
    assert d.fixes[0].title == "Detach `h` before feeding it back"
