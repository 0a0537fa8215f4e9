"""Reading the native engine's graph for the recorder, without changing it: no grad_fn is
regenerated, no accumulator created, no saved tensor unpacked."""

from __future__ import annotations

from typing import Any

from ..engine import events
from ..engine.autograd import CopySlices
from ..engine.node import AccumulateGrad, Node, SavedTensor
from ..engine.tensor import Tensor
from ..torch.nn.modules import Module

__all__ = ["NativeEngine"]


class NativeEngine:
    """The recorder's view of ``graphviz_autograd.torch``."""

    name = "native"

    @staticmethod
    def subscribe(fn: Any) -> None:
        events.subscribe(fn)

    @staticmethod
    def unsubscribe(fn: Any) -> None:
        events.unsubscribe(fn)

    @staticmethod
    def is_tensor(x: Any) -> bool:
        return isinstance(x, Tensor)

    @staticmethod
    def is_module(x: Any) -> bool:
        return isinstance(x, Module)

    @staticmethod
    def is_node(x: Any) -> bool:
        return isinstance(x, Node)

    # -- tensors ------------------------------------------------------------------------------
    @staticmethod
    def tensor_uid(t: Tensor) -> int:
        return t._uid

    @staticmethod
    def grad_fn(t: Tensor) -> Node | None:
        return t._grad_fn

    @staticmethod
    def accumulator(t: Tensor) -> Node | None:
        ref = t._acc
        return ref() if ref is not None else None

    @staticmethod
    def counter(t: Tensor) -> Any:
        """The version counter object (shared by views): what in-place edits are logged by."""
        return t._vc

    @staticmethod
    def is_parameter(t: Tensor) -> bool:
        from ..torch.nn.parameter import Parameter
        return isinstance(t, Parameter)

    @staticmethod
    def describe(t: Tensor) -> dict[str, Any]:
        g = t._grad
        return {"shape": list(t._data.shape), "dtype": str(t._dtype),
                "requires_grad": t._rg or t._grad_fn is not None, "is_leaf": t._grad_fn is None,
                "grad": {"shape": list(g._data.shape)} if g is not None else None,
                "version": t._vc.v}

    # -- nodes --------------------------------------------------------------------------------
    @staticmethod
    def node_uid(n: Node) -> int:
        return n._uid

    @staticmethod
    def seq(n: Node) -> int:
        return n._seq

    @staticmethod
    def node_name(n: Node) -> str:
        return n.name()

    @staticmethod
    def next_nodes(n: Node) -> list[Node | None]:
        return [e[0] for e in n._next]

    @staticmethod
    def variable(n: Node) -> Tensor | None:
        return n.variable if isinstance(n, AccumulateGrad) else None

    @staticmethod
    def saved(n: Node) -> list[dict[str, Any]]:
        """Each saved tensor: name, state, shape, dtype, nbytes, versions, and a key naming its
        memory (so buffers shared by several slots are counted once)."""
        out = []
        for name, s in n.saved_slots():
            out.append(_slot(name, s))
        return out

    @staticmethod
    def dead_end(n: Node) -> bool:
        """A node a backward can no longer run although it saves nothing (CopySlices)."""
        return isinstance(n, CopySlices) and n.fn is None


def _slot(name: str, s: SavedTensor) -> dict[str, Any]:
    if s.released:
        state, key = "freed", None
    elif s.vc.v != s.version:
        state = "modified"
        key = _key(s)
    else:
        state, key = "alive", _key(s)
    return {"name": name, "state": state, "shape": list(s.shape), "dtype": str(s.dtype),
            "nbytes": int(s.nbytes), "versions": [s.version, s.vc.v] if state == "modified"
            else None, "key": key, "counter": id(s.vc)}


def _key(s: SavedTensor) -> tuple[int, int] | None:
    arr = s.peek()
    if arr is None:
        return None
    return (int(arr.__array_interface__["data"][0]), int(arr.nbytes))
