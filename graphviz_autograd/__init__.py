"""graphviz-autograd: makes PyTorch's autograd memory model visible.

``graphviz_autograd.torch`` is a numpy autograd engine that behaves like PyTorch 2.13 (node
names, saved tensors, freeing, errors, versions, gradients), so PyTorch snippets run on it
unchanged and every step of a backward can be observed.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
