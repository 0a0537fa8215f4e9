"""``torch.nn.utils.init``: ``skip_init``, a module made without running its initialisation's
draws (the default generator is left as it was, as PyTorch's meta-device construction leaves
it)."""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["skip_init"]


def skip_init(module_cls: Any, *args: Any, **kwargs: Any) -> Any:
    """``module_cls(*args, **kwargs)``, leaving the random state untouched. PyTorch's
    parameters are then uninitialised memory; the engine's hold the values drawn (and
    forgotten) under a forked generator."""
    from ..random import fork_rng
    from .modules import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.pop("device", None)
    with fork_rng():
        return module_cls(*args, **kwargs)
