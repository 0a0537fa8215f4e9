"""``torch.autograd.graph.Node``: the abstract node type; every engine node is one of its virtual
subclasses (``isinstance(t.grad_fn, Node)``), and it cannot be made itself."""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any

from ...engine import node as engine_node

__all__ = ["Node"]


class Node(abc.ABC):
    """The type of ``grad_fn`` objects.

    >>> import graphviz_autograd.torch as torch
    >>> b = torch.tensor([0.0, 0.0], requires_grad=True).clone()
    >>> isinstance(b.grad_fn, torch.autograd.graph.Node), b.grad_fn.name()
    (True, 'CloneBackward0')
    """

    @abc.abstractmethod
    def name(self) -> str:
        """Return the name."""
        raise NotImplementedError

    @property
    @abc.abstractmethod
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        raise NotImplementedError

    @abc.abstractmethod
    def metadata(self) -> dict[Any, Any]:
        """Return the metadata."""
        raise NotImplementedError

    @abc.abstractmethod
    def _sequence_nr(self) -> int:
        raise NotImplementedError

    @property
    @abc.abstractmethod
    def _input_metadata(self) -> list[Any]:
        raise NotImplementedError

    @abc.abstractmethod
    def _register_hook_dict(self, tensor: Any) -> None:
        raise NotImplementedError

    @abc.abstractmethod
    def register_hook(self, fn: Callable[..., Any]) -> Any:
        """Register a backward hook, called with the node's gradients in and out."""
        raise NotImplementedError

    @abc.abstractmethod
    def register_prehook(self, fn: Callable[..., Any]) -> Any:
        """Register a backward pre-hook, called with the node's incoming gradients."""
        raise NotImplementedError

    @classmethod
    def __subclasshook__(cls, subclass: type) -> bool:
        if cls is Node and issubclass(subclass, engine_node.Node):
            return True
        return NotImplemented
