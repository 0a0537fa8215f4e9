"""``torch.func``: composable function transforms (grad, vjp, jacobians, vmap, functional_call)
on the engine."""

from __future__ import annotations

from .calls import functional_call, stack_module_state
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from .vmapping import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jacrev", "jacfwd", "hessian", "jvp", "vmap",
           "functional_call", "stack_module_state"]
