"""``torch.func``: composable function transforms (grad, vjp, jacobians, vmap, functional_call)
on the engine."""

from __future__ import annotations

from .calls import functional_call, stack_module_state
from .extras import debug_unwrap, functionalize, replace_all_batch_norm_modules_
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from .vmapping import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jacrev", "jacfwd", "hessian", "jvp", "vmap",
           "functional_call", "stack_module_state",
           "linearize", "functionalize", "replace_all_batch_norm_modules_", "debug_unwrap"]
