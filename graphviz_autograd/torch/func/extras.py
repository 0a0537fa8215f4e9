"""``torch.func``'s small helpers: ``functionalize``, ``replace_all_batch_norm_modules_`` and
``debug_unwrap``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["functionalize", "replace_all_batch_norm_modules_", "debug_unwrap"]


def functionalize(func: Callable[..., Any], *, remove: str = "mutations") -> Callable[..., Any]:
    """``torch.func.functionalize``: ``func`` itself (its values are those of the functionalized
    program; the engine runs eagerly and has no program to rewrite).

    >>> import graphviz_autograd.torch as torch
    >>> functionalize(lambda a: a.add_(1))(torch.zeros(2))
    tensor([1., 1.])
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for "
                           f"remove={remove}. Valid options are:\n"
                           "     remove='mutations': all inplace and out= operators will be "
                           "removed from the program, and replaced with their out-of-place "
                           "equivalents.\n"
                           "     remove='mutations_and_views': In addition to the above, all "
                           "aliasing operators {view} will be replaced with their non-aliasing "
                           "counterparts, {view}_copy.\n")
    return func


def replace_all_batch_norm_modules_(root: Any) -> Any:
    """``torch.func.replace_all_batch_norm_modules_``: every batch norm under ``root`` stops
    tracking running statistics (in place); returns ``root``."""
    from ..nn.modules import Module, _BatchNorm

    assert isinstance(root, Module)
    for m in root.modules():
        if isinstance(m, _BatchNorm):
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root


def debug_unwrap(tensor: Any, *, recurse: bool = True) -> Any:
    """``torch.func.debug_unwrap``: the tensor itself (the engine's transforms wrap nothing)."""
    return tensor
