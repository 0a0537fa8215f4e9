"""Recording keeps nothing alive: it holds weak references only, and snapshots are plain data."""

from __future__ import annotations

import gc
import weakref

import graphviz_autograd
import graphviz_autograd.torch as torch


def test_recording_keeps_no_graph_alive() -> None:
    gc.disable()
    try:
        with graphviz_autograd.record() as rec:
            a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            y = (a * 2).exp()
            loss = (y * y).sum()
            refs = [weakref.ref(o) for o in (y, loss, loss.grad_fn, y.grad_fn)]
            saved = weakref.ref(y.grad_fn._saved["result"].array)
            loss.backward(retain_graph=True)
            rec.snapshot("kept")
            del y, loss
            rec.snapshot("dropped")
        assert all(r() is None for r in refs), "a tensor or node outlived its last reference"
        assert saved() is None, "a saved array outlived its graph"
        assert rec.snapshots[-1].nodes == [n for n in rec.snapshots[-1].nodes
                                           if n.name == "torch::autograd::AccumulateGrad"]
        assert rec.snapshots[-1].collected, "the dropped nodes are reported as collected"
    finally:
        gc.enable()


def test_snapshots_hold_plain_data_only() -> None:
    with graphviz_autograd.record() as rec:
        x = torch.tensor(2.0, requires_grad=True)
        (x * x).backward()
    seen: list[object] = []
    stack: list[object] = [s.to_dict() for s in rec.snapshots]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        else:
            seen.append(v)
    assert all(v is None or isinstance(v, str | int | float | bool) for v in seen)


def test_exception_reaches_the_user_unchanged() -> None:
    def run() -> RuntimeError:
        x = torch.tensor(2.0, requires_grad=True)
        y = x * x
        y.backward()
        try:
            y.backward()
        except RuntimeError as e:
            return e
        raise AssertionError("expected a RuntimeError")

    plain = run()
    with graphviz_autograd.record() as rec:
        recorded = run()
    assert type(recorded) is type(plain) and str(recorded) == str(plain)
    assert rec.snapshots[-1].kind == "backward_failed"
    assert rec.snapshots[-1].error == {"type": "RuntimeError", "message": str(plain)}


def test_full_collections_are_rarer_while_recording() -> None:
    """The collector's oldest generation waits longer while a recording runs (young ones as
    usual); its threshold is given back when the last recording stops (also when the block
    raises), and one the program set meanwhile is kept."""
    usual = gc.get_threshold()
    with graphviz_autograd.record():
        assert gc.get_threshold()[:2] == usual[:2] and gc.get_threshold()[2] >= 1000
        with graphviz_autograd.record():
            pass
        assert gc.get_threshold()[2] >= 1000, "an inner recording's end gave it back early"
    assert gc.get_threshold() == usual
    try:
        with graphviz_autograd.record():
            raise KeyError("x")
    except KeyError:
        pass
    assert gc.get_threshold() == usual
    try:
        with graphviz_autograd.record():
            gc.set_threshold(500, 5, 5)
        assert gc.get_threshold() == (500, 5, 5), "the program's own setting was undone"
    finally:
        gc.set_threshold(*usual)


class _Holder:
    """An object of the user's own class holding a module and a tensor (a trainer)."""

    def __init__(self) -> None:
        self.model = torch.nn.Linear(3, 1)
        self.last: object = None


def test_the_name_search_through_users_objects_keeps_nothing_alive() -> None:
    """The name search goes into the user's objects and the modules they hold; with the
    garbage collector off, what it found is still freed when the user drops it."""
    gc.disable()
    try:
        holder = _Holder()
        with graphviz_autograd.record() as rec:
            out = holder.model(torch.randn(2, 3)).tanh()
            holder.last = out
            refs = [weakref.ref(o) for o in (out, out.grad_fn)]
            out.sum().backward(retain_graph=True)
            labels = {t.label for t in rec.snapshots[-1].tensors}
            assert {"holder.last", "holder.model.weight"} <= labels
            holder.last = None
            del out
            rec.snapshot("dropped")
        assert all(r() is None for r in refs), "a tensor or node outlived its last reference"
    finally:
        gc.enable()
