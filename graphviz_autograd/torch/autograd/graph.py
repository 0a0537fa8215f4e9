"""``torch.autograd.graph``: the node type, the saved-tensor hooks (``saved_tensors_hooks``,
``save_on_cpu``, ``disable_saved_tensors_hooks``), gradient edges and multi-tensor hooks."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from ...engine import saved_hooks
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

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "GradientEdge", "get_gradient_edge", "increment_version", "register_multi_grad_hook",
           "region_activation_memory_budget", "set_warn_on_accumulate_grad_stream_mismatch",
           "set_override_stale_capture_stream"]


class saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """Inside it, every tensor an operation saves for backward is kept as ``pack_hook(tensor)``,
    and turned back into a tensor by ``unpack_hook(packed)`` when a backward (or
    ``grad_fn._saved_<name>``) reads it. Only the innermost pair applies.

    >>> from graphviz_autograd import torch
    >>> a = torch.ones(2, requires_grad=True)
    >>> with saved_tensors_hooks(lambda t: t.detach() * 10, lambda p: p / 10):
    ...     y = a.exp()
    >>> y.grad_fn._raw_saved_result.data
    tensor([27.1828, 27.1828])
    """

    def __init__(self, pack_hook: Callable[[Any], Any],
                 unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        saved_hooks.push(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args: object) -> None:
        saved_hooks.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 (PyTorch's name)
    """Saved tensors are kept on the CPU: ``(device, tensor.cpu())``. On this engine every tensor
    is on the CPU already, so the tensor itself is kept, as PyTorch does for a CPU graph; with
    ``pin_memory=True`` a copy (PyTorch copies into memory it would pin if a device were
    there)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Any) -> tuple[Any, Any]:
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            packed = tensor.new_empty(tensor.size())
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed: tuple[Any, Any]) -> Any:
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Inside it, entering ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``;
    entering it while hooks are set raises that at once."""
    before = saved_hooks.disabled_message()
    try:
        saved_hooks.disable(error_message)
        yield
    finally:
        if before is None:
            saved_hooks.enable()
        else:
            saved_hooks.disable(before)
