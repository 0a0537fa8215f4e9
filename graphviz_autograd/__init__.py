"""graphviz-autograd: makes PyTorch's autograd memory model visible.

``graphviz_autograd.torch`` is a numpy autograd engine that behaves like PyTorch 2.13 (node
names, saved tensors, freeing, errors, versions, gradients), so PyTorch snippets run on it
unchanged and every step of a backward can be observed.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "record", "load", "Recording", "Snapshot", "diagnose", "explain",
           "load_ipython_extension"]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext graphviz_autograd``: registers the ``%%autograd`` cell magic."""
    from .jupyter import load_ipython_extension as load
    load(ipython)


def __getattr__(name: str) -> Any:
    # NB: lazy, so `import graphviz_autograd.torch` does not load the recorder
    if name in ("record", "load", "Recording", "Snapshot", "diagnose", "explain"):
        from . import recording
        return getattr(recording, name)
    raise AttributeError(f"module 'graphviz_autograd' has no attribute {name!r}")
