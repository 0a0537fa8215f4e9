"""``torch.autograd.grad_mode``: the grad-mode context managers (the engine's)."""

from ...engine.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"]
