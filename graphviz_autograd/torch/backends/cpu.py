"""``torch.backends.cpu``: the vector extension PyTorch reports (the engine uses numpy)."""

from __future__ import annotations

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    return "DEFAULT"
