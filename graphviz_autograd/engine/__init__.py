"""The autograd engine: PyTorch 2.13's autograd semantics on numpy.

Layers, bottom up: ``tensor`` (data + autograd metadata), ``node`` (grad_fn objects and saved
slots), ``optable`` with the ``ops_*`` families (the one table of ops), ``autograd`` (recording),
``functional`` / ``indexing`` / ``tensor_methods`` (the user-facing ops), ``executor`` (backward).
The engine imports nothing from the layers above it; they listen through ``events``.
"""

from . import autograd, executor, functional, tensor_methods  # noqa: F401 -- binds the methods
from .node import AccumulateGrad, Node
from .tensor import Size, Tensor

__all__ = ["Tensor", "Size", "Node", "AccumulateGrad"]
