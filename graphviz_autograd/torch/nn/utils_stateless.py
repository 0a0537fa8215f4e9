"""``torch.nn.utils.stateless.functional_call``: PyTorch's deprecated form (a FutureWarning) of
``torch.func.functional_call``, one dict of tensors swapped in for the call."""

from __future__ import annotations

import warnings
from typing import Any

from .modules import Module

__all__ = ["functional_call"]


def functional_call(module: Module, parameters_and_buffers: dict[str, Any], args: Any = None,
                    kwargs: Any = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """Run ``module`` with the given tensors in place of its parameters and buffers."""
    from ..func.calls import functional_call as call
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                strict=strict)
