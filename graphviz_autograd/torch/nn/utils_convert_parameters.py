"""``torch.nn.utils.convert_parameters``: parameters to one vector and back, as the submodule
PyTorch keeps them in."""

from __future__ import annotations

from .utils import parameters_to_vector, vector_to_parameters

__all__ = ["parameters_to_vector", "vector_to_parameters"]
