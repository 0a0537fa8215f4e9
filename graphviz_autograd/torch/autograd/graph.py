"""``torch.autograd.graph``: the node type, for ``isinstance`` checks."""

from ...engine.node import Node

__all__ = ["Node"]
