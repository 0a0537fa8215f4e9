"""``nn.CrossMapLRN2d``: the legacy local response norm across channels, a custom autograd
Function as in PyTorch (its node ``CrossMapLRN2dBackward``, saving input and output), with
PyTorch's running-window sums (whose window at channel ``pre_pad`` still holds channel 0)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.function import Function
from ...engine.grad_mode import is_grad_enabled
from ...engine.tensor import Tensor
from .modules import Module

__all__ = ["CrossMapLRN2d"]


def _scale(x: np.ndarray, size: int, alpha: float, k: float) -> np.ndarray:
    """k + alpha / size * (the running window sum of squares over channels)."""
    channels = x.shape[1]
    square = x * x
    pre_pad = int((size - 1) / 2 + 1)
    scale = np.zeros_like(x)
    scale[:, 0] = square[:, :min(pre_pad, channels)].sum(axis=1)
    for c in range(1, channels):
        scale[:, c] = scale[:, c - 1]
        if c < channels - pre_pad + 1:
            scale[:, c] += square[:, c + pre_pad - 1]
        if c > pre_pad:
            scale[:, c] -= square[:, c - pre_pad]
    return scale * x.dtype.type(alpha / size) + x.dtype.type(k)


class CrossMapLRN2d(Function):
    @staticmethod
    def forward(ctx: Any, input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                k: float = 1) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             f"instead.")
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        x = input._data
        ctx.scale = _scale(x, size, alpha, k)
        out = np.power(ctx.scale, x.dtype.type(-beta)) * x
        output = Tensor._make(np.ascontiguousarray(out, x.dtype), input._dtype)
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Any, ...]:
        input, output = ctx.saved_tensors
        size, channels = ctx.size, input.shape[1]
        inverse_pre_pad = int(size - (size - 1) / 2)
        if inverse_pre_pad + channels > channels + size - 1:
            raise RuntimeError(f"start ({inverse_pre_pad}) + length ({channels}) exceeds "
                               f"dimension size ({channels + size - 1}).")
        if is_grad_enabled() and (grad_output.requires_grad or output.requires_grad):
            # NB: PyTorch's backward writes with out=, refused under create_graph
            raise RuntimeError("mul(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        x, y, g, scale = input._data, output._data, grad_output._data, ctx.scale
        ratio = x.dtype.type(2 * ctx.alpha * ctx.beta / size)
        grad = np.power(scale, x.dtype.type(-ctx.beta)) * g
        padded = np.zeros((x.shape[0], channels + size - 1, *x.shape[2:]), x.dtype)
        padded[:, inverse_pre_pad:inverse_pre_pad + channels] = g * y / scale
        accum = padded[:, :size - 1].sum(axis=1)
        for c in range(channels):
            accum = accum + padded[:, c + size - 1]
            grad[:, c] -= ratio * x[:, c] * accum
            accum = accum - padded[:, c]
        return Tensor._make(grad, input._dtype), None, None, None, None


# NB: the Function, so its node is CrossMapLRN2dBackward; the module below takes the name
_function = CrossMapLRN2d


class CrossMapLRN2d(Module):  # type: ignore[no-redef]
    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return _function.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
