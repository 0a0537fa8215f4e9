"""``torch.nn.utils.clip_grad``: the gradient-clipping functions, as the submodule PyTorch
keeps them in."""

from __future__ import annotations

from .utils import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm"]
