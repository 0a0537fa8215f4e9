"""Flattening nested tuples, lists and dicts of tensors (PyTorch's pytrees) for ``torch.func``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Spec", "flatten", "unflatten", "tree_map", "spec_repr"]

LEAF = None


class Spec:
    """The structure of a tree: its node type, its dict keys and its children (``None``: a leaf)."""

    __slots__ = ("kind", "keys", "children")

    def __init__(self, kind: type | None, keys: list[Any] | None,
                 children: list[Spec]) -> None:
        self.kind, self.keys, self.children = kind, keys, children

    @property
    def is_leaf(self) -> bool:
        return self.kind is None

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Spec) and self.kind is other.kind and self.keys == other.keys
                and self.children == other.children)

    def __hash__(self) -> int:
        return hash((self.kind, len(self.children)))

    def __repr__(self) -> str:
        return spec_repr(self)


def _is_node(x: Any) -> bool:
    return isinstance(x, tuple | list | dict)


def flatten(tree: Any) -> tuple[list[Any], Spec]:
    """The leaves of ``tree`` in order, and its structure."""
    leaves: list[Any] = []

    def go(x: Any) -> Spec:
        if isinstance(x, dict):
            keys = list(x)
            return Spec(type(x), keys, [go(x[k]) for k in keys])
        if isinstance(x, tuple | list):
            return Spec(type(x), None, [go(v) for v in x])
        leaves.append(x)
        return Spec(None, None, [])
    return leaves, go(tree)


def unflatten(leaves: list[Any], spec: Spec) -> Any:
    """The tree of ``spec``'s structure holding ``leaves``."""
    it = iter(leaves)

    def go(s: Spec) -> Any:
        if s.kind is None:
            return next(it)
        vals = [go(c) for c in s.children]
        if s.keys is not None:
            return s.kind(zip(s.keys, vals, strict=True))
        if s.kind is tuple or s.kind is list:
            return s.kind(vals)
        if hasattr(s.kind, "_fields"):                  # a namedtuple
            return s.kind(*vals)
        return s.kind(vals)
    return go(spec)


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    leaves, spec = flatten(tree)
    return unflatten([fn(v) for v in leaves], spec)


def spec_repr(spec: Spec, depth: int = 0) -> str:
    """PyTorch's ``TreeSpec`` repr (``*`` for a leaf)."""
    if spec.kind is None:
        return "*"
    name = "namedtuple" if hasattr(spec.kind, "_fields") else spec.kind.__name__
    if spec.kind is not tuple and spec.kind is not list and spec.kind is not dict \
            and spec.keys is not None:
        name = spec.kind.__name__
    kids = [spec_repr(c, depth + 1) for c in spec.children]
    sep = ",\n" + " " * (2 * (depth + 1))
    return f"TreeSpec({name}, {spec.keys}, [{sep.join(kids)}])"
