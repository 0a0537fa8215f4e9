"""An error that stops the recorded code outside any backward: the graph where it stopped is the
recording's last snapshot (nothing lost), and the autograd errors a forward or an update line
raises are explained from that line, on both engines."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from graphviz_autograd import diagnose, record
from graphviz_autograd.recording import schema

from ._support import ON_BOTH_ENGINES, fix_keys, run_script, torch_of

BACKWARD_TWICE = "Trying to backward through the graph a second time"


def _leaf_changed(t: Any) -> None:
    w = t.randn(3, requires_grad=True)
    x = t.randn(3)
    (w * x).sum().backward()
    w -= 0.1 * w.grad


def _view_of_leaf_changed(t: Any) -> None:
    w = t.randn(2, 3, requires_grad=True)
    w[0] = 1.0


def _several_views_changed(t: Any) -> None:
    x = t.randn(4, 3, requires_grad=True)
    a, _ = (x * 2).unbind(0)[:2]
    a.mul_(2)


def _no_grad_view_changed(t: Any) -> None:
    y = t.randn(4, 3, requires_grad=True) * 2
    with t.no_grad():
        v = y[0]
    v.mul_(3)


def _numpy_of_a_graph(t: Any) -> None:
    x = t.randn(3, requires_grad=True)
    y = x.exp()
    arr = y.numpy()  # noqa: F841


def _flag_of_a_non_leaf(t: Any) -> None:
    x = t.randn(3, requires_grad=True)
    h = x.exp()
    h.requires_grad = True


def _optimizer_of_a_non_leaf(t: Any) -> None:
    w = t.randn(3, 3, requires_grad=True) / 3
    t.optim.SGD([w], lr=0.1)


def _grad_of_a_non_leaf(t: Any) -> None:
    w = t.randn(3, requires_grad=True).double()
    x = t.randn(5, 3).double()
    (x @ w).pow(2).mean().backward()
    with t.no_grad():
        w -= 0.1 * w.grad


def _grad_before_backward(t: Any) -> None:
    w = t.randn(3, requires_grad=True)
    print(w.grad.norm())


def _grad_of_an_intermediate(t: Any) -> None:
    x = t.randn(5, 3, requires_grad=True)
    h = x * 2
    t.nn.Linear(3, 1)(h).sum().backward()
    print(h.grad.norm())


def _grad_zeroed_before_backward(t: Any) -> None:
    w = t.randn(3, requires_grad=True)
    for _ in range(2):
        w.grad.zero_()
        (w * 2).sum().backward()


def _inference_tensor_saved(t: Any) -> None:
    lin = t.nn.Linear(3, 2)
    with t.inference_mode():
        feats = t.randn(4, 3) * 2
    out = lin(feats)  # noqa: F841


def _inference_tensor_changed(t: Any) -> None:
    with t.inference_mode():
        x = t.ones(3)
    w = t.ones(3, requires_grad=True)
    x.add_(w)


def _integer_requires_grad(t: Any) -> None:
    idx = t.arange(3)
    idx.requires_grad = True


def _integer_made_to_require_grad(t: Any) -> None:
    labels = t.tensor([1, 2, 3], requires_grad=True)  # noqa: F841


CASES = [  # the program, the error, the tensor named, words of the summary, the fixes
    (_leaf_changed, RuntimeError, "w", "`w` is a leaf that requires grad", ["no_grad",
                                                                             "out_of_place"]),
    (_view_of_leaf_changed, RuntimeError, "w", "changed a view of `w` in place",
     ["no_grad", "out_of_place"]),
    (_several_views_changed, RuntimeError, "a", "one of several views that one op",
     ["out_of_place", "clone"]),
    (_no_grad_view_changed, RuntimeError, "v", "a view made under `torch.no_grad()`",
     ["view_with_grad", "out_of_place"]),
    (_numpy_of_a_graph, RuntimeError, "y", "made a NumPy array of `y`", ["detach"]),
    (_flag_of_a_non_leaf, RuntimeError, "h", "set `requires_grad` of `h`, which is not a leaf",
     ["retain_grad", "new_leaf"]),
    (_optimizer_of_a_non_leaf, ValueError, "w", "gave the optimizer `w`, which is not a leaf",
     ["make_leaf", "parameter"]),
    (_grad_of_a_non_leaf, TypeError, "w", "`w.grad` is None", ["make_leaf", "parameter"]),
    (_grad_before_backward, AttributeError, "w", "no backward ran before this line",
     ["backward_first"]),
    (_grad_of_an_intermediate, AttributeError, "h", "It is an intermediate value: the "
     "gradient flows through it into `x`.", ["retain_grad", "make_leaf"]),
    (_grad_zeroed_before_backward, AttributeError, "w", "no backward ran before this line",
     ["zero_grad", "backward_first"]),
    (_inference_tensor_saved, RuntimeError, "feats", "used `feats`, in a computation that saves "
     "it for backward, and `feats` was made under `torch.inference_mode()`", ["no_grad", "clone"]),
    (_inference_tensor_changed, RuntimeError, "x", "outside that block an inference tensor "
     "cannot be changed in place", ["no_grad", "clone"]),
    (_integer_requires_grad, RuntimeError, "idx", "asked an integer (or boolean) tensor, `idx`",
     ["requires_grad", "float"]),
]


@ON_BOTH_ENGINES
@pytest.mark.parametrize(("program", "error", "name", "words", "fixes"), CASES,
                         ids=[c[0].__name__.strip("_") for c in CASES])
def test_an_autograd_error_outside_a_backward_is_explained_from_its_line(
        engine: str, program: Any, error: type[Exception], name: str, words: str,
        fixes: list[str]) -> None:
    t = torch_of(engine)
    with pytest.raises(error) as raised, record(engine=engine) as rec:
        program(t)
    last = rec.snapshots[-1]
    assert last.kind == "manual" and last.error is not None
    assert last.error == {"type": error.__name__, "message": str(raised.value)}
    # NB: the line that raised, found in the traceback (not the `with` line)
    assert last.source is not None and last.source["code"] is not None
    assert name in last.source["code"]
    assert any(t.label == name for t in last.tensors)       # the names of the frame that raised
    (d,) = [d for d in diagnose(rec) if d.kind == "raised"]
    assert words in d.summary and fix_keys(d) == fixes
    assert d.built_by["labels"] == [name] and d.snapshot == last.index


@ON_BOTH_ENGINES
def test_the_fixes_rewrite_the_line(engine: str) -> None:
    t = torch_of(engine)
    with pytest.raises(RuntimeError), record(engine=engine) as rec:
        _numpy_of_a_graph(t)
    (d,) = diagnose(rec)
    assert d.fixes[0].detail.startswith("`arr = y.detach().numpy()`")
    with pytest.raises(TypeError), record(engine=engine) as rec:
        _grad_of_a_non_leaf(t)
    (d,) = diagnose(rec)
    assert d.fixes[0].detail.startswith("`w = t.randn(3).double().requires_grad_()`")
    with pytest.raises(RuntimeError), record(engine=engine) as rec:
        _leaf_changed(t)
    (d,) = diagnose(rec)
    assert "`with torch.no_grad(): w -= 0.1 * w.grad`" in d.fixes[0].detail


@ON_BOTH_ENGINES
def test_the_fixes_for_inference_and_integer_tensors_rewrite_the_lines(engine: str) -> None:
    """The ``with`` line that made the inference tensor, and the line that used it, rewritten;
    an integer tensor made to require grad: the line without it (labels), or as floats."""
    t = torch_of(engine)
    with pytest.raises(RuntimeError), record(engine=engine) as rec:
        _inference_tensor_saved(t)
    (d,) = diagnose(rec)
    made = _inference_tensor_saved.__code__.co_firstlineno + 2
    assert f"(line {made}: `with t.inference_mode():`)" in d.summary
    assert d.fixes[0].detail.startswith(f"Line {made}: `with t.no_grad():`")
    assert d.fixes[1].detail.startswith("`out = lin(feats.clone())`")
    with pytest.raises(RuntimeError), record(engine=engine) as rec:
        _integer_made_to_require_grad(t)
    (d,) = diagnose(rec)
    assert fix_keys(d) == ["requires_grad", "float"]
    assert d.fixes[0].detail.startswith("`labels = t.tensor([1, 2, 3])`")
    assert d.fixes[1].detail == \
        "`labels = t.tensor([1, 2, 3], requires_grad=True, dtype=t.float32)`"
    with pytest.raises(RuntimeError), record(engine=engine) as rec:
        w = t.arange(3).requires_grad_()  # noqa: F841
    (d,) = diagnose(rec)
    assert fix_keys(d) == ["float", "requires_grad"]
    assert d.fixes[0].detail == "`w = t.arange(3).float().requires_grad_()`"
    assert d.fixes[1].detail.startswith("`w = t.arange(3)`")


@ON_BOTH_ENGINES
def test_a_failed_backward_leaving_the_block_gets_no_second_snapshot(engine: str) -> None:
    t = torch_of(engine)
    with pytest.raises(RuntimeError, match=BACKWARD_TWICE), record(engine=engine) as rec:
        x = t.ones(2, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()
    assert [s.kind for s in rec.snapshots] == ["before_backward", "after_backward",
                                               "before_backward", "backward_failed"]


@ON_BOTH_ENGINES
def test_any_error_leaves_its_snapshot_and_other_errors_get_no_diagnosis(engine: str) -> None:
    t = torch_of(engine)
    with pytest.raises(KeyError), record(engine=engine) as rec:
        x = t.ones(2, requires_grad=True)
        loss = (x * x).sum()
        {}["missing"]
    last = rec.snapshots[-1]
    assert last.kind == "manual" and last.label == "KeyError raised"
    assert last.nodes_labelled("loss")              # the graph alive when it stopped
    assert last.prediction is not None and not last.prediction.will_fail
    assert diagnose(rec) == []
    del loss
    data = json.loads(json.dumps(rec.to_dict()))
    jsonschema.validate(data, schema())


@ON_BOTH_ENGINES
def test_an_error_caught_inside_the_block_takes_no_snapshot(engine: str) -> None:
    t = torch_of(engine)
    with record(engine=engine) as rec:
        w = t.randn(3, requires_grad=True)
        with contextlib.suppress(RuntimeError):
            w += 1
    assert list(rec.snapshots) == []


USED_UP = """\
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
params = model.parameters()
opt = torch.optim.SGD(params, lr=0.1)
x, y = torch.randn(32, 5), torch.randn(32, 1)
for step in range(3):
    loss = torch.nn.functional.mse_loss(model(x), y)
    grads = torch.autograd.grad(loss, params)
    for p, g in zip(model.parameters(), grads):
        p.grad = g
    opt.step()
"""


@ON_BOTH_ENGINES
def test_a_generator_of_parameters_an_optimizer_used_up_is_made_a_list(
        engine: str, tmp_path: Path) -> None:
    """``params = model.parameters()`` given to an optimizer, then to ``autograd.grad``: the
    generator yields nothing any more, and the call has no input. Real torch raises before a
    backward starts (nothing recorded), the native engine in its first backward: both tell the
    same story, and the fix, put in, runs."""
    torch = torch_of(engine)
    with pytest.raises(RuntimeError, match="cannot be empty"), record(engine=engine) as rec:
        run_script(torch, tmp_path / "sam.py", USED_UP)
    (d,) = diagnose(rec)
    assert ("asks for the gradients of `params`, which is a generator (`model.parameters()`, "
            "line 3), and line 4 (`opt = torch.optim.SGD(params, lr=0.1)`) read it to its "
            "end: it yields nothing now, so the call has no input.") in d.summary
    assert d.summary.startswith("Backward #1 at line 8" if engine == "native" else "Line 8")
    assert fix_keys(d) == ["list"]
    assert d.fixes[0].detail.startswith("`params = list(model.parameters())` at line 3: ")
    with record(engine=engine) as again:
        run_script(torch, tmp_path / "fixed.py", USED_UP.replace(
            "params = model.parameters()", "params = list(model.parameters())"))
    assert len(again.backwards) == 3 and not diagnose(again)


FROZEN_OUTPUT = """\
torch.manual_seed(0)
encoder, head = torch.nn.Linear(10, 32), torch.nn.Linear(32, 2)
opt = torch.optim.Adam(head.parameters(), lr=1e-2)
x, y = torch.randn(50, 10), torch.randint(0, 2, (50,))
for step in range(3):
    feats = encoder(x)
    feats.requires_grad = False
    loss = torch.nn.functional.cross_entropy(head(feats), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@ON_BOTH_ENGINES
def test_a_non_leaf_told_not_to_require_grad_is_detached(engine: str, tmp_path: Path) -> None:
    """``feats.requires_grad = False`` on an encoder's output, to keep the encoder fixed: the
    fix is ``feats = feats.detach()`` (not ``retain_grad()``, which leaves the gradient
    flowing into the encoder). Put in, it runs, and the encoder, which no optimizer is given,
    is not reported as unreached."""
    torch = torch_of(engine)
    with pytest.raises(RuntimeError, match="leaf variables"), record(engine=engine) as rec:
        run_script(torch, tmp_path / "probe.py", FROZEN_OUTPUT)
    (d,) = diagnose(rec)
    assert "To keep the gradient from flowing back past `feats`" in d.summary
    assert fix_keys(d) == ["detach"]
    assert d.fixes[0].detail.startswith("`feats = feats.detach()` in place of line 7")
    with record(engine=engine) as again:
        scope = run_script(torch, tmp_path / "fixed.py", FROZEN_OUTPUT.replace(
            "feats.requires_grad = False", "feats = feats.detach()"))
    assert diagnose(again) == []
    assert scope["encoder"].weight.grad is None and scope["head"].weight.grad is not None
    # NB: given to the optimizer too, the cut encoder is told as unreached
    both = FROZEN_OUTPUT.replace("feats.requires_grad = False", "feats = feats.detach()").replace(
        "torch.optim.Adam(head.parameters()",
        "torch.optim.Adam(list(encoder.parameters()) + list(head.parameters())")
    with record(engine=engine) as again:
        run_script(torch, tmp_path / "both.py", both)
    assert [x.kind for x in diagnose(again)] == ["unreached"]


@ON_BOTH_ENGINES
@pytest.mark.parametrize("line", ["emb.weight[0] = 0.0",
                                  "for p in emb.parameters(): p.clamp_(-0.01, 0.01)"])
def test_a_module_parameter_changed_in_place_is_only_told_no_grad(
        engine: str, line: str, tmp_path: Path) -> None:
    """A module's parameter (``emb.weight``, each ``p`` of ``emb.parameters()``) changed in
    place with gradients on: the fix is ``torch.no_grad()``; a new tensor in its place (a clone,
    ``p = p.clamp(...)``) would not be the module's parameter, so it is not offered."""
    torch = torch_of(engine)
    text = f"emb = torch.nn.Embedding(10, 4)\n{line}\n"
    with pytest.raises(RuntimeError, match="leaf Variable"), record(engine=engine) as rec:
        run_script(torch, tmp_path / "pad.py", text)
    (d,) = diagnose(rec)
    assert fix_keys(d) == ["no_grad"]
    fixed = text.replace(line, f"with torch.no_grad():\n    {line}" if "for" not in line else
                         "for p in emb.parameters():\n    with torch.no_grad(): "
                         "p.clamp_(-0.01, 0.01)")
    run_script(torch, tmp_path / "fixed.py", fixed)
