"""``torch.backends``: the flags scripts set for cuDNN, CUDA matmuls and MPS. The engine has none
of these backends: the flags are kept as PyTorch's CPU build keeps them and change nothing."""

from __future__ import annotations

from . import cpu, cuda, cudnn, mkl, mps

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mps"]
