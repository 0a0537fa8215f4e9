"""``torch.autograd.graph``'s edges and multi-tensor hooks: ``GradientEdge``,
``get_gradient_edge``, ``increment_version`` and ``register_multi_grad_hook``.

A ``GradientEdge`` names where a gradient enters the graph (a node and the number of its input);
``backward`` and ``grad`` take one wherever they take a tensor (see ``executor``).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from .device import CPU
from .grad_mode import enable_grad
from .node import Node, RemovableHandle, get_accumulator
from .tensor import Tensor

__all__ = ["GradientEdge", "get_gradient_edge", "increment_version", "register_multi_grad_hook",
           "node_of", "InputMetadata", "input_metadata", "node_metadata"]


class GradientEdge(NamedTuple):
    """Object representing a given gradient edge within the autograd graph.

    To get the gradient edge where a given Tensor gradient will be computed,
    you can do ``edge = autograd.graph.get_gradient_edge(tensor)``.

    >>> import graphviz_autograd.torch as torch
    >>> a = torch.ones(2, requires_grad=True)
    >>> b = a.exp()
    >>> torch.autograd.grad((b * 2).sum(), torch.autograd.graph.get_gradient_edge(b))
    (tensor([2., 2.]),)
    """

    node: Node
    output_nr: int
    # NB: PyTorch keeps a custom Function's graph alive through this; here the node does that
    ownership_token: Node | None = None


def node_of(t: Tensor | GradientEdge) -> Node:
    """The node a tensor's gradient enters: its ``grad_fn``, or its leaf's ``AccumulateGrad``."""
    if isinstance(t, GradientEdge):
        return t.node
    if t.requires_grad and t.grad_fn is None:
        return get_accumulator(t)
    node = t.grad_fn
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return node


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """Get the gradient edge for computing the gradient of the given Tensor.

    ``autograd.grad(loss, input)`` and ``autograd.grad(loss, get_gradient_edge(input))`` give the
    same gradient.

    >>> import graphviz_autograd.torch as torch
    >>> a = torch.ones(2, requires_grad=True)
    >>> torch.autograd.graph.get_gradient_edge(a).node.name()
    'torch::autograd::AccumulateGrad'
    """
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    node = node_of(tensor)
    token = None
    from .function import BackwardCFunction
    if isinstance(node, BackwardCFunction):
        # NB: as PyTorch, a custom Function's edge carries a view's node as its token
        from .functional import view
        with enable_grad():
            token = view(tensor, *tensor._data.shape).grad_fn
    return GradientEdge(node, tensor.output_nr, token)


def increment_version(tensor: Tensor | Iterable[Tensor]) -> None:
    """Bump the version counter of a tensor (or of each tensor of an iterable), as an in-place
    op PyTorch does not see would; inference tensors have none and are skipped.

    >>> import graphviz_autograd.torch as torch
    >>> a = torch.zeros(2)
    >>> torch.autograd.graph.increment_version(a)
    >>> a._version
    1
    """
    if isinstance(tensor, Tensor):
        tensor = (tensor,)
    try:
        items = iter(tensor)
    except TypeError:
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
    # NB: as PyTorch, the tensors before a non-tensor are bumped when it raises
    for t in items:
        if not isinstance(t, Tensor):
            raise RuntimeError("increment_version expects each element of the iterable to be a "
                               "tensor")
        if not t._inference:
            t._vc.v += 1


class MultiHandle(RemovableHandle):
    """What ``register_multi_grad_hook`` returns: ``.remove()`` removes every tensor's hook."""

    __slots__ = ("handles",)

    def __init__(self, handles: tuple[RemovableHandle, ...]) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors: Sequence[Tensor], fn: Callable[..., None], *,
                             mode: str = "all") -> RemovableHandle:
    """Register a hook called once per backward for several tensors: in ``"all"`` mode with the
    list of their gradients (None for those this backward does not compute) once all it computes
    have arrived, in ``"any"`` mode with the first gradient that arrives.

    >>> import graphviz_autograd.torch as torch
    >>> a = torch.ones(2, requires_grad=True)
    >>> b = torch.ones(2, requires_grad=True)
    >>> c = a * b
    >>> h = torch.autograd.graph.register_multi_grad_hook(
    ...     (a, b), lambda gs: print([g is not None for g in gs]))
    >>> c.sum().backward(inputs=(a,))
    [True, False]
    >>> h.remove()
    """
    from .executor import current_graph_task_id, will_engine_execute_node
    supported = ("all", "any")
    if mode not in supported:
        raise ValueError(f"Expects mode to be one of {supported} but got {mode}")
    if mode == "all":
        nodes = [node_of(t) for t in tensors]
        n = len(tensors)
        count: dict[int, int] = {}
        buffer: dict[int, list[Any]] = {}
        # NB: as PyTorch, how many gradients to wait for is counted again at the first one of
        # each backward (and shared by the backwards in flight)
        expected = [0]

        def inner(idx: int) -> Callable[[Tensor], None]:
            def hook(grad: Tensor) -> None:
                task = current_graph_task_id()
                if task == -1:
                    raise AssertionError("expected this hook to be called inside a backward call")
                seen = count.get(task, 0)
                count[task] = seen + 1
                grads = buffer.setdefault(task, [None] * n)
                if seen == 0:
                    expected[0] = sum(map(will_engine_execute_node, nodes))
                grads[idx] = grad
                if seen == expected[0] - 1:
                    fn(grads)
                    del count[task]
                    del buffer[task]
            return hook

        return MultiHandle(tuple(t.register_hook(inner(i)) for i, t in enumerate(tensors)))
    ran: defaultdict[int, bool] = defaultdict(bool)

    @functools.wraps(fn)
    def first(grad: Tensor) -> None:
        task = current_graph_task_id()
        if task == -1:
            raise AssertionError("expected this hook to be called inside a backward call")
        if ran[task]:
            return
        ran[task] = True
        fn(grad)

    return MultiHandle(tuple(t.register_hook(first) for t in tensors if t.requires_grad))


class InputMetadata:
    """PyTorch's ``_InputMetadata``: what a node knows of the gradient each of its inputs takes
    (the shape, dtype and device of its forward op's output)."""

    __slots__ = ("shape", "dtype", "device", "is_nested_tensor", "is_cpp_nested_tensor")

    def __init__(self, shape: tuple[int, ...], dtype: Any) -> None:
        self.shape = list(shape)                 # NB: a list, as PyTorch gives it
        self.dtype = dtype
        self.device = CPU
        self.is_nested_tensor = self.is_cpp_nested_tensor = False


def input_metadata(node: Node) -> tuple[InputMetadata, ...]:
    """``Node._input_metadata``: one ``InputMetadata`` per gradient the node takes.

    >>> import graphviz_autograd.torch as torch
    >>> y = torch.ones(3, 2, requires_grad=True) * 2
    >>> input_metadata(y.grad_fn)[0].shape
    [3, 2]
    """
    return tuple(InputMetadata(shape, dtype) for shape, dtype in node._meta)


def node_metadata(node: Node) -> dict[Any, Any]:
    """``Node.metadata``: a dict of the node's own, the same one on every read (for the user's
    annotations)."""
    meta = node.__dict__.get("_metadata")
    if meta is None:
        meta = node.__dict__["_metadata"] = {}
    return meta
