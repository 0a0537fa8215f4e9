"""``torch.autograd.graph``: the node type, gradient edges, multi-tensor hooks."""

from ...engine.graph_edges import (
           GradientEdge,
           get_gradient_edge,
           increment_version,
           register_multi_grad_hook,
)
from ...engine.node import Node

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "increment_version",
           "register_multi_grad_hook"]
