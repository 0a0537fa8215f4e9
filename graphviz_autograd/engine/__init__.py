"""The autograd engine: PyTorch 2.13's autograd semantics on numpy.

Layers, bottom up: ``tensor`` (data + autograd metadata), ``node`` (grad_fn objects and saved
slots), ``optable`` with the ``ops_*`` families (the one table of ops), ``autograd`` (recording),
``functional`` / ``indexing`` / ``tensor_methods`` (the user-facing ops), ``executor`` (backward).
The engine imports nothing from the layers above it; they listen through ``events``.
"""

import warnings as _warnings

from . import autograd, executor, functional, tensor_methods  # noqa: F401 -- binds the methods
from .node import AccumulateGrad, Node
from .tensor import Size, Tensor

__all__ = ["Tensor", "Size", "Node", "AccumulateGrad"]

# NB: numpy's floating-point warnings (inf - inf, overflow, x / 0) from the package's own numpy
# calls: PyTorch computes those silently. A filter, consulted only when numpy warns (nothing on
# the hot path), matching numpy's texts from the package's modules only: the user's own numpy
# code still warns
_warnings.filterwarnings(
    "ignore", r"(invalid value|overflow|divide by zero|underflow) encountered in",
    RuntimeWarning, r"graphviz_autograd\.")
