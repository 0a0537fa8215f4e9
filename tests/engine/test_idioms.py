"""The old idioms of the seed documents (pre-0.4 PyTorch code) as PyTorch 2.13 runs them:
``Variable``, ``loss.data[0]``, ``retain_variables``, ``.data``, ``float(loss)``."""

from __future__ import annotations

from typing import Any

import pytest

import graphviz_autograd.torch as ours

from ._support import Recorder, differential, engines, outcome, warnings_in_fresh_process

ZERO_DIM_INDEX = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                  "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
FLOAT_WARNING = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                 "behavior.\nConsider using tensor.detach() first.")


def _leaf_facts(t: Any) -> list[Any]:
    return [t, t.requires_grad, t.is_leaf, t.grad_fn, str(t.dtype)]


@pytest.mark.torch
def test_variable_with_requires_grad_is_a_leaf() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        Variable = torch.autograd.Variable
        a = Variable(torch.tensor([[1.0, 2.0, 3.0, 4.0]]), requires_grad=True)
        rec.note("a", _leaf_facts(a))
        rec.note("isinstance", [isinstance(a, torch.Tensor), isinstance(a, Variable),
                                isinstance(3.0, Variable), isinstance([a], Variable),
                                isinstance(torch.nn.Parameter(torch.ones(1)), Variable)])
        rec.note("type(a) is torch.Tensor", type(a) is torch.Tensor)
        b = a ** 2
        c = b * 2
        d = c.mean()
        e = c.sum()
        rec.graph("seed-002 graph", d=d, e=e, a=a)
        rec.attempt("d.backward()", lambda: d.backward())
        rec.attempt("e.backward()", lambda: e.backward())
        rec.grad("after", a=a)
        plain = Variable(torch.ones(2))
        rec.note("Variable(t)", _leaf_facts(plain))
        rec.attempt("Variable()", lambda: _leaf_facts(Variable()))
        rec.attempt("Variable(list)", lambda: Variable([1.0, 2.0]))
        rec.attempt("Variable(int tensor, requires_grad)", lambda: Variable(
            torch.tensor([1, 2]), requires_grad=True))
        rec.attempt("Variable(t, volatile=True)", lambda: _leaf_facts(
            Variable(torch.ones(2), volatile=True)))

    differential(snippet)


@pytest.mark.torch
def test_variable_of_a_non_leaf_detaches() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        Variable = torch.autograd.Variable
        x = torch.ones(2, requires_grad=True)
        h = x * 3
        wrapped = Variable(h)
        rec.note("wrapped", _leaf_facts(wrapped))
        rec.note("wrapped is h", wrapped is h)
        wrapped_rg = Variable(h, requires_grad=True)
        rec.note("wrapped with requires_grad", _leaf_facts(wrapped_rg))
        rec.note("is h", wrapped_rg is h)
        leaf = torch.tensor([1.0, 2.0], requires_grad=True)
        again = Variable(leaf)
        rec.note("Variable(leaf)", [_leaf_facts(again), again is leaf])
        wrapped.mul_(2)                        # shares memory (and the version counter?)
        rec.note("h after wrapped.mul_", [h, h._version, wrapped._version])
        rec.attempt("backward through h", lambda: (h * h).sum().backward())
        rec.grad("after", x=x)
        rec.attempt("backward through wrapped_rg",
                    lambda: (wrapped_rg * 2).sum().backward())
        rec.grad("wrapped_rg", wrapped_rg=wrapped_rg, x=x)

    differential(snippet)


@pytest.mark.torch
def test_loss_data_index_and_item_idioms() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = torch.tensor([2.0, 4.0])
        loss = torch.nn.MSELoss()(x, y)
        rec.attempt("loss.data[0]", lambda: loss.data[0])
        rec.attempt("loss[0]", lambda: loss[0])
        rec.attempt("loss.data[0] = 1", lambda: loss.data.__setitem__(0, 1.0))
        rec.note("loss.data", _leaf_facts(loss.data))
        rec.attempt("loss.item()", lambda: loss.item())
        rec.attempt("loss.data.item()", lambda: loss.data.item())
        rec.attempt("loss.data.tolist()", lambda: loss.data.tolist())
        rec.attempt("int(loss)", lambda: int(loss))
        rec.attempt("float(loss.data)", lambda: float(loss.data))
        rec.attempt("float(loss.detach())", lambda: float(loss.detach()))
        rec.attempt("loss.numpy()", lambda: loss.numpy())
        rec.attempt("backward after", lambda: loss.backward())
        rec.grad("x", x=x)
        vec = x * 2
        rec.attempt("vec.data[0]", lambda: vec.data[0])
        rec.attempt("vec.item()", lambda: vec.item())

    record = differential(snippet)
    assert outcome(record, "loss.data[0]")["outcome"] == {"error_type": "IndexError",
                                                           "message": ZERO_DIM_INDEX}


@pytest.mark.parametrize("engine", engines())
def test_float_of_a_tensor_requiring_grad_warns_once_per_process(engine: str) -> None:
    module = "torch" if engine == "torch" else "graphviz_autograd.torch"
    got = warnings_in_fresh_process(
        module,
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "loss = torch.nn.MSELoss()(x, torch.tensor([2.0, 4.0]))",
        ["float(loss.detach())", "loss.item()", "float(loss)", "float(loss)",
         "float(x.sum())"])
    assert got == [[], [], [FLOAT_WARNING], [], []]


@pytest.mark.parametrize("engine", engines())
def test_a_list_of_tensors_requiring_grad_made_a_tensor_warns_as_float_does(engine: str) -> None:
    """``torch.tensor([x[0], x[1]])`` reads each element as a number: float()'s warning, once."""
    module = "torch" if engine == "torch" else "graphviz_autograd.torch"
    got = warnings_in_fresh_process(
        module, "x = torch.tensor([1.0, 2.0], requires_grad=True)",
        ["torch.tensor([x[0].detach(), 2.0])", "torch.tensor([[x[0]], [x[1]]])",
         "torch.as_tensor([x[0], x[1]])", "float(x[0])"])
    assert got == [[], [FLOAT_WARNING], [], []]


@pytest.mark.parametrize("engine", engines())
def test_float_of_several_elements_requiring_grad_warns_before_it_raises(engine: str) -> None:
    module = "torch" if engine == "torch" else "graphviz_autograd.torch"
    got = warnings_in_fresh_process(
        module, "x = torch.tensor([1.0, 2.0], requires_grad=True)",
        ["try:\n    int(x)\nexcept ValueError:\n    pass",
         "try:\n    float(x)\nexcept ValueError:\n    pass",
         "try:\n    float(x)\nexcept ValueError:\n    pass"])
    assert got == [[], [FLOAT_WARNING], []]


@pytest.mark.torch
def test_retain_variables_keyword() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        loss = (x * x).sum()
        rec.attempt("loss.backward(retain_variables=True)",
                    lambda: loss.backward(retain_variables=True))
        rec.graph("untouched", loss=loss, x=x)
        rec.grad("untouched", x=x)
        rec.attempt("autograd.backward(loss, retain_variables=True)",
                    lambda: torch.autograd.backward(loss, retain_variables=True))
        rec.attempt("autograd.grad(loss, x, retain_variables=True)",
                    lambda: torch.autograd.grad(loss, x, retain_variables=True))
        rec.attempt("loss.backward(retain_graph=True)", lambda: loss.backward(retain_graph=True))
        rec.attempt("positional: loss.backward(None, True)", lambda: loss.backward(None, True))
        rec.attempt("loss.backward()", lambda: loss.backward())
        rec.grad("end", x=x)

    record = differential(snippet)
    assert outcome(record, "loss.backward(retain_variables=True)")["outcome"] == {
        "error_type": "TypeError",
        "message": "Tensor.backward() got an unexpected keyword argument 'retain_variables'"}


@pytest.mark.torch
def test_autograd_backward_grad_variables_keyword() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        rec.attempt("grad_variables=", lambda: torch.autograd.backward(
            y, grad_variables=torch.tensor([1.0, 10.0]), retain_graph=True))
        rec.grad("after grad_variables", x=x)
        rec.attempt("both grad_tensors and grad_variables", lambda: torch.autograd.backward(
            y, grad_tensors=torch.ones(2), grad_variables=torch.ones(2)))
        rec.attempt("autograd.backward list + grad_tensors", lambda: torch.autograd.backward(
            [y], [torch.tensor([2.0, 0.0])]))
        rec.grad("end", x=x)

    differential(snippet)


@pytest.mark.torch
def test_data_does_not_share_the_version_counter() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        d = w.data
        rec.note("w.data", _leaf_facts(d))
        d.mul_(2)
        rec.note("after w.data.mul_", [w, w._version, d._version])
        w.data.add_(1)
        w.data[0] = 0.0
        rec.note("after more .data writes", [w, w._version])
        det = w.detach()
        det.add_(1)
        rec.note("detach shares it", [w, w._version, det._version])
        y = w * w
        s = y.sum()
        w.data.sub_(1)                         # invisible to autograd: no version error
        rec.attempt("backward after .data change", lambda: s.backward(retain_graph=True))
        rec.grad("grad uses the changed value", w=w)
        w.detach().add_(1)                     # visible: the version check fires
        rec.attempt("backward after detach() change", lambda: s.backward())
        w.grad.data.zero_()                    # the old zero-the-grad idiom
        rec.note("grad after .grad.data.zero_()", [w.grad, w.grad._version])
        w.grad.zero_()
        rec.note("grad after .grad.zero_()", [w.grad._version])
        lr = 0.1
        w.data -= lr * w.grad.data             # the old manual SGD step
        rec.note("after w.data -= ...", [w, w._version, w.requires_grad, w.is_leaf])
        w.data = torch.tensor([7.0, 8.0, 9.0])
        rec.note("after w.data = ...", [w, w._version, w.requires_grad, w.is_leaf])
        h = w * 2
        rec.note("non-leaf .data", [_leaf_facts(h.data), h.data._version])

    differential(snippet)


@pytest.mark.torch
def test_legacy_constructors_and_in_place_zeroing() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        rec.note("Tensor(list)", _leaf_facts(torch.Tensor([1, 2, 3])))
        rec.note("Tensor(sizes)", [torch.Tensor(2, 3).shape, str(torch.Tensor(2, 3).dtype)])
        rec.note("FloatTensor", _leaf_facts(torch.FloatTensor([1, 2])))
        a = torch.Tensor([1.0, 2.0])
        a.requires_grad = True
        rec.note("a", _leaf_facts(a))
        for _ in range(3):
            (a * a).sum().backward()
        rec.note("accumulated", a.grad)
        a.grad.zero_()
        rec.note("zeroed", [a.grad, a.grad._version])
        rec.attempt("x.grad.data.zero_() with no grad", lambda: torch.ones(
            1, requires_grad=True).grad.data.zero_())

    differential(snippet)


def test_variable_is_not_a_distinct_type() -> None:
    # ours only: the ``Variable`` result must be a plain engine Tensor
    v = ours.autograd.Variable(ours.ones(2), requires_grad=True)
    assert type(v) is ours.Tensor
    assert v.is_leaf and v.requires_grad
    assert isinstance(v, ours.autograd.Variable)
    assert not isinstance(object(), ours.autograd.Variable)
