"""Lifetime: deep graphs without recursion, saved buffers really released, and no reference
cycles (a graph dies as soon as its last user reference goes, with the cycle collector off)."""

from __future__ import annotations

import gc
import math
import weakref
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import graphviz_autograd.torch as ours

from ._support import BACKWARD_TWICE, Recorder, differential, engines, module_named

N = 100_000


# -- 100,000-node chains ------------------------------------------------------------------------
def test_100k_mul_chain_backward_without_recursion() -> None:
    x = ours.tensor(1.0, dtype=ours.float64, requires_grad=True)
    y = x
    for _ in range(N):
        y = y * 1.0001
    assert y.grad_fn is not None and y.grad_fn.name() == "MulBackward0"
    y.backward(retain_graph=True)
    expected = 1.0001 ** N
    assert x.grad is not None
    assert math.isclose(x.grad.item(), expected, rel_tol=1e-9)
    y.backward()                                  # the retained graph runs once more ...
    assert math.isclose(x.grad.item(), 2 * expected, rel_tol=1e-9)
    with pytest.raises(RuntimeError) as info:     # ... and is freed now
        y.backward()
    assert str(info.value) == BACKWARD_TWICE
    assert math.isclose(x.grad.item(), 2 * expected, rel_tol=1e-9)
    del y                                         # dropping a 100k-deep graph must not crash


def test_100k_add_chain_reusing_the_leaf_with_inputs() -> None:
    # y = x + x + ... + x: x's AccumulateGrad gets 100,001 incoming edges; backward(inputs=...)
    # walks the graph to find what is needed, which must not recurse either.
    x = ours.tensor([1.0, -2.0], dtype=ours.float64, requires_grad=True)
    w = ours.tensor([3.0, 4.0], dtype=ours.float64, requires_grad=True)
    y = x * w
    for _ in range(N):
        y = y + x
    y.sum().backward(inputs=[x])
    assert x.grad is not None
    assert x.grad.tolist() == [3.0 + N, 4.0 + N]
    assert w.grad is None


def test_100k_sin_chain_autograd_grad() -> None:
    x = ours.tensor(0.5, dtype=ours.float64, requires_grad=True)
    y = x
    for _ in range(N):
        y = y.sin()
    (g,) = ours.autograd.grad(y, x)
    # d/dx sin(sin(...sin(x))) = prod cos(v_k) over the chain's inputs v_0 = x, v_k = sin(v_k-1)
    v, expected = 0.5, 1.0
    for _ in range(N):
        expected *= math.cos(v)
        v = math.sin(v)
    assert math.isclose(y.item(), v, rel_tol=1e-9)
    assert math.isclose(g.item(), expected, rel_tol=1e-7)
    assert x.grad is None
    root = y.grad_fn
    assert root is not None
    with pytest.raises(RuntimeError) as info:     # autograd.grad freed the chain
        root._saved_self
    assert str(info.value) == BACKWARD_TWICE


# -- saved buffers are really released -------------------------------------------------------------
def _saved_arrays(node: Any) -> dict[str, np.ndarray]:
    """The numpy arrays a node's saved slots hold (engine internals)."""
    out: dict[str, np.ndarray] = {}
    for key, slot in (node._saved or {}).items():
        for i, s in enumerate(slot if isinstance(slot, list) else [slot]):
            if s is None:
                continue
            arr = s.array if s.array is not None else (
                s.tensor._data if s.tensor is not None else None)
            if arr is not None:
                out[key if not isinstance(slot, list) else f"{key}[{i}]"] = arr
    return out


def test_exp_result_array_dies_after_backward() -> None:
    x = ours.tensor([0.0, 1.0, 2.0], requires_grad=True)
    y = (x * 2).exp()
    s = y.sum()
    node = y.grad_fn
    assert node is not None and node.name() == "ExpBackward0"
    expected = np.exp(np.array([0.0, 2.0, 4.0], dtype=np.float32))
    del y                                          # now the node is the result's only owner
    arrays = _saved_arrays(node)
    assert set(arrays) == {"result"}
    np.testing.assert_allclose(arrays["result"], expected, rtol=1e-6)
    ref = weakref.ref(arrays["result"])
    del arrays
    assert ref() is not None
    np.testing.assert_allclose(node._saved_result.detach().numpy(), expected, rtol=1e-6)
    s.backward()
    assert ref() is None, "the freed result array is still referenced"
    with pytest.raises(RuntimeError) as info:
        node._saved_result
    assert str(info.value) == BACKWARD_TWICE
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), 2 * expected, rtol=1e-6)


def test_retain_graph_keeps_saved_array_until_plain_backward() -> None:
    x = ours.tensor([0.5, -1.0], requires_grad=True)
    y = (x * 2).tanh()
    s = y.sum()
    node = y.grad_fn
    del y
    ref = weakref.ref(_saved_arrays(node)["result"])
    s.backward(retain_graph=True)
    assert ref() is not None
    np.testing.assert_allclose(node._saved_result.detach().numpy(),
                               np.tanh(np.array([1.0, -2.0], dtype=np.float32)), rtol=1e-6)
    s.backward()
    assert ref() is None
    with pytest.raises(RuntimeError) as info:
        node._saved_result
    assert str(info.value) == BACKWARD_TWICE


def _op_exp(t: Any, a: Any, b: Any) -> Any:
    return a.exp()


def _op_sigmoid(t: Any, a: Any, b: Any) -> Any:
    return a.sigmoid()


def _op_relu(t: Any, a: Any, b: Any) -> Any:
    return a.relu()


def _op_softmax(t: Any, a: Any, b: Any) -> Any:
    return a.softmax(1)


def _op_mul(t: Any, a: Any, b: Any) -> Any:
    return a * b


def _op_mm(t: Any, a: Any, b: Any) -> Any:
    return a @ b.t()


def _op_sin(t: Any, a: Any, b: Any) -> Any:
    return a.sin()


def _op_pow(t: Any, a: Any, b: Any) -> Any:
    return a ** 3


def _op_div(t: Any, a: Any, b: Any) -> Any:
    return a / b


def _op_log_softmax(t: Any, a: Any, b: Any) -> Any:
    return t.nn.functional.log_softmax(a, dim=1)


def _op_mse(t: Any, a: Any, b: Any) -> Any:
    return t.nn.functional.mse_loss(a, b)


def _op_cat(t: Any, a: Any, b: Any) -> Any:
    return t.cat([a, b]) * 1.0


SAVING_OPS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "exp": _op_exp, "sigmoid": _op_sigmoid, "relu": _op_relu, "softmax": _op_softmax,
    "mul": _op_mul, "mm": _op_mm, "sin": _op_sin, "pow": _op_pow, "div": _op_div,
    "log_softmax": _op_log_softmax, "mse_loss": _op_mse,
}


@pytest.mark.parametrize("name", list(SAVING_OPS))
def test_saved_intermediates_are_released(name: str) -> None:
    op = SAVING_OPS[name]
    x = ours.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
    w = ours.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], requires_grad=True)
    a, b = x * 2, w + 1                           # intermediates only the node will own
    y = op(ours, a, b)
    node = y.grad_fn
    s = y.sum()
    del a, b, y
    arrays = _saved_arrays(node)
    assert arrays, f"{node.name()} saved nothing"
    refs = {k: weakref.ref(v) for k, v in arrays.items()}
    del arrays
    s.backward(retain_graph=True)
    assert all(r() is not None for r in refs.values()), "retain_graph released a buffer"
    s.backward()
    alive = [k for k, r in refs.items() if r() is not None]
    assert not alive, f"{node.name()}: saved {alive} still referenced after backward"


def test_autograd_grad_releases_saved_arrays() -> None:
    x = ours.tensor([0.5, 1.5], requires_grad=True)
    y = (x + 1).sigmoid()
    s = y.sum()
    node = y.grad_fn
    del y
    ref = weakref.ref(_saved_arrays(node)["result"])
    ours.autograd.grad(s, x, retain_graph=True)
    assert ref() is not None
    ours.autograd.grad(s, x)
    assert ref() is None


def test_copyslices_backward_drops_the_inner_node() -> None:
    x = ours.tensor([0.5, 1.0, 2.0], requires_grad=True)
    base = x * 1.0
    base[:2].exp_()
    cs = base.grad_fn
    assert cs is not None and cs.name() == "torch::autograd::CopySlices"
    inner = weakref.ref(cs.fn)
    s = base.sum()
    s.backward()
    assert inner() is None, "CopySlices still holds the in-place op's node after backward"
    with pytest.raises(RuntimeError) as info:
        s.backward()
    assert str(info.value) == BACKWARD_TWICE


def _freed_snippet(name: str) -> Callable[[Recorder], None]:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
        w = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], requires_grad=True)
        y = FREED_OPS[name](torch, x * 2, w + 1)
        s = y.sum()
        rec.graph("before", s=s, x=x, w=w)
        rec.attempt("retain", lambda: s.backward(retain_graph=True))
        rec.graph("after retain", s=s, x=x, w=w)
        rec.attempt("plain", lambda: s.backward())
        rec.graph("after plain", s=s, x=x, w=w)
        rec.attempt("again", lambda: s.backward())
        rec.grad("end", x=x, w=w)
    return snippet


FREED_OPS = {**SAVING_OPS, "cat": _op_cat}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(FREED_OPS))
def test_saved_states_after_backward_match_torch(name: str) -> None:
    differential(_freed_snippet(name))


# -- no reference cycles --------------------------------------------------------------------------
@pytest.fixture
def no_gc() -> Iterator[None]:
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Sentinel:
    """A node pre-hook that does nothing: it dies with the node that holds it, so it tells
    whether a node (even a torch C++ node, which has no weak references) is still alive."""

    def __call__(self, *args: Any) -> None:
        return None


def _node_liveness(node: Any) -> Callable[[], bool]:
    sentinel = _Sentinel()
    node.register_prehook(sentinel)
    ref = weakref.ref(sentinel)
    direct = weakref.ref(node) if type(node).__module__.startswith("graphviz_autograd") else None
    return lambda: ref() is not None or (direct is not None and direct() is not None)


def _g_exp(t: ModuleType, x: Any) -> Any:
    return (x * 2).exp()


def _g_tanh(t: ModuleType, x: Any) -> Any:
    return (x * 2).tanh()


def _g_sigmoid(t: ModuleType, x: Any) -> Any:
    return (x + 1).sigmoid()


def _g_relu(t: ModuleType, x: Any) -> Any:
    return (x - 1).relu()


def _g_softmax(t: ModuleType, x: Any) -> Any:
    return (x * 3).softmax(0)


def _g_exp_inplace(t: ModuleType, x: Any) -> Any:
    y = x * 2
    y.exp_()
    return y


def _g_sigmoid_tanh_inplace(t: ModuleType, x: Any) -> Any:
    y = x * 2
    y.sigmoid_()
    z = y + 1
    z.tanh_()
    return z


def _g_relu_inplace(t: ModuleType, x: Any) -> Any:
    y = x - 1
    y.relu_()
    return y


def _g_mul_inplace(t: ModuleType, x: Any) -> Any:
    y = x * 2
    y.mul_(x)
    return y


def _g_view(t: ModuleType, x: Any) -> Any:
    return (x * 2).view(3, 1)[1:]


def _g_view_inplace(t: ModuleType, x: Any) -> Any:
    y = x * 2
    y[:2].mul_(3)
    return y


def _g_setitem(t: ModuleType, x: Any) -> Any:
    y = x * 1
    y[0] = x[1] * 5
    return y


def _g_view_exp_inplace(t: ModuleType, x: Any) -> Any:
    y = x * 1
    y[:2].exp_()
    return y


def _g_view_sigmoid_inplace(t: ModuleType, x: Any) -> Any:
    y = x * 1
    v = y[1:]
    v.sigmoid_()
    return v


def _g_view_after_base_inplace(t: ModuleType, x: Any) -> Any:
    y = x * 2
    v = y[1:]
    y.mul_(2)
    v.grad_fn  # reading it regenerates the view's grad_fn
    return v


def _g_retain_grad(t: ModuleType, x: Any) -> Any:
    y = x.exp()
    y.retain_grad()
    return y


def _g_hook(t: ModuleType, x: Any) -> Any:
    y = x.tanh()
    y.register_hook(lambda g: g * 2)
    return y


def _g_leaf_hook(t: ModuleType, x: Any) -> Any:
    x.register_hook(lambda g: g + 1)
    return x.sigmoid() * x


def _g_multi_output(t: ModuleType, x: Any) -> Any:
    parts = (x * 2).split(1)
    return parts[0].exp() + parts[2]


def _g_max_dim(t: ModuleType, x: Any) -> Any:
    values, _ = (x * 2).view(3, 1).max(dim=1)
    return values


def _g_create_graph(t: ModuleType, x: Any) -> Any:
    (g,) = t.autograd.grad(x.tanh().sum(), x, create_graph=True)
    return g


def _g_create_graph_exp(t: ModuleType, x: Any) -> Any:
    (g,) = t.autograd.grad((x * 2).exp().sum(), x, create_graph=True)
    return g * 1


def _g_linear_mse(t: ModuleType, x: Any) -> Any:
    w = t.tensor([[0.5, -0.5, 1.0]], requires_grad=True)
    out = t.nn.functional.linear(x.view(1, 3), w)
    return t.nn.functional.mse_loss(out.relu(), t.tensor([[1.0]]))


GRAPHS: dict[str, Callable[[ModuleType, Any], Any]] = {
    name[3:]: fn for name, fn in list(globals().items()) if name.startswith("_g_")
}


@pytest.mark.parametrize("do_backward", [False, True], ids=["built", "backwarded"])
@pytest.mark.parametrize("graph", list(GRAPHS))
@pytest.mark.parametrize("engine", engines())
def test_graph_dies_without_cycle_collector(engine: str, graph: str, do_backward: bool,
                                            no_gc: None) -> None:
    torch = module_named(engine)
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    out = GRAPHS[graph](torch, x)
    node = out.grad_fn
    assert node is not None
    node_alive = _node_liveness(node)
    del node
    if do_backward:
        out.sum().backward()
        assert x.grad is not None
    out_ref = weakref.ref(out)
    del out
    assert out_ref() is None, f"{graph}: the output tensor is kept alive by a reference cycle"
    assert not node_alive(), f"{graph}: the output's grad_fn is kept alive by a reference cycle"
    x_ref = weakref.ref(x)
    del x
    assert x_ref() is None, f"{graph}: the leaf is kept alive"
