"""``torch.backends.mkl``: absent here."""

from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    return False
