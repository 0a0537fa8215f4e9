"""``torch.nn.utils.memory_format``: the convolutions' weights re-laid out in a memory format.
The engine keeps every tensor in one layout, so the weights are fresh copies of the same values
(as PyTorch's are fresh tensors)."""

from __future__ import annotations

from typing import Any, cast

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module: Any, kinds: tuple[type, ...], memory_format: Any) -> Any:
    if isinstance(module, kinds):
        weight = cast(Any, module).weight
        weight.data = weight.detach().clone()
    for child in module.children():
        _convert(child, kinds, memory_format)
    return module


def convert_conv2d_weight_memory_format(module: Any, memory_format: Any) -> Any:
    from .conv import Conv2d, ConvTranspose2d
    return _convert(module, (Conv2d, ConvTranspose2d), memory_format)


def convert_conv3d_weight_memory_format(module: Any, memory_format: Any) -> Any:
    from .conv import Conv3d
    from .modules_more import ConvTranspose3d
    return _convert(module, (Conv3d, ConvTranspose3d), memory_format)
