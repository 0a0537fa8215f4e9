"""A custom ``Function`` whose backward returns too few gradients, or one of another shape
than its input, and a tensor hook that returns a gradient of another size: the explanation
reads the class (or the hook's line) in the user's file and says what to return; the
rewritten ``return`` line is run."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, run_script, torch_of

SCALE = """\
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k

x = torch.randn(3, requires_grad=True)
y = Scale.apply(x, 2.0)
y.sum().backward()
"""

ROW_SUM = """\
class RowSum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sum(1)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g

x = torch.randn(4, 3, requires_grad=True)
RowSum.apply(x).sum().backward()
"""

HOOK = """\
x = torch.randn(4, 3, requires_grad=True)
h = x * 2
h.register_hook(lambda g: g.sum(0))
h.sum().backward()
"""


@ON_BOTH_ENGINES
def test_too_few_gradients_are_told_with_the_return_line_rewritten(engine: str,
                                                                   tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match="incorrect number"):
        run_script(torch, tmp_path / "scale.py", SCALE)
    (d,) = diagnose(rec)
    assert d.kind == "other"
    assert "`Scale.backward` (line 9: `return g * ctx.k`) returns 1 gradient, but " \
        "`Scale.forward` takes 2 inputs (`x`, `k`)" in d.summary
    assert fix_keys(d) == ["function_gradients"]
    assert d.fixes[0].title == "Return `None` for `k`"
    assert d.fixes[0].detail.startswith("`return g * ctx.k, None` at line 9: ")
    fixed = SCALE.replace("        return g * ctx.k\n", "        return g * ctx.k, None\n")
    scope = run_script(torch, tmp_path / "fixed.py", fixed)
    assert scope["x"].grad.tolist() == [2.0, 2.0, 2.0]


@ON_BOTH_ENGINES
def test_a_gradient_of_another_shape_is_told_with_its_input(engine: str,
                                                            tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match="invalid gradient"):
        run_script(torch, tmp_path / "rows.py", ROW_SUM)
    (d,) = diagnose(rec)
    assert "`RowSum.backward` (line 10: `return g`) returned, for `x`, a gradient of shape " \
        "[4], where `x` has shape [4, 3]" in d.summary
    assert d.fixes[0].title == "Return a gradient of `x`'s shape"
    assert "`g.unsqueeze(1).expand_as(x)`" in d.fixes[0].detail
    fixed = ROW_SUM.replace("        return g\n", "        return g.unsqueeze(1).expand_as(x)\n")
    scope = run_script(torch, tmp_path / "fixed.py", fixed)
    assert scope["x"].grad.tolist() == [[1.0] * 3] * 4


@ON_BOTH_ENGINES
def test_a_hook_that_reduces_the_gradient_is_told_at_its_line(engine: str,
                                                              tmp_path: Path) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match="changed the size"):
        run_script(torch, tmp_path / "hook.py", HOOK)
    (d,) = diagnose(rec)
    # NB: (on real torch the tensor's hook runs before the recorder's on the node: the node is
    # found from the line that registers it)
    assert d.summary.startswith("Backward #1 at line 4 (`h.sum().backward()`) failed at "
                                "MulBackward0 of `h` (line 2: `h = x * 2`): RuntimeError: hook")
    assert "`<lambda>` returned one of another shape" in d.summary
    assert fix_keys(d) == ["hook_shape"]
    assert d.fixes[0].detail.startswith(
        "The hook at line 3 (`h.register_hook(lambda g: g.sum(0))`) must return None")
