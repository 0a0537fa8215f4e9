"""``torch.version``: the build's version strings, as a CPU-only build has them (no CUDA,
ROCm or XPU)."""

from __future__ import annotations

from .torch_version import internal_version

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

__version__ = str(internal_version)
cuda: str | None = None
hip: str | None = None
rocm: str | None = None
xpu: str | None = None
debug = False
git_version = "graphviz-autograd"
