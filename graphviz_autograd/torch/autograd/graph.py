"""``torch.autograd.graph``: the node type, gradient edges, multi-tensor hooks."""

from ...engine.graph_edges import (
           GradientEdge,
           get_gradient_edge,
           increment_version,
           register_multi_grad_hook,
)
from .graph_node import Node
from .graph_settings import (
           region_activation_memory_budget,
           set_override_stale_capture_stream,
           set_warn_on_accumulate_grad_stream_mismatch,
)

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "increment_version",
           "register_multi_grad_hook", "region_activation_memory_budget",
           "set_warn_on_accumulate_grad_stream_mismatch", "set_override_stale_capture_stream"]
