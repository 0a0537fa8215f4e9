"""``torch.utils``: the data loading utilities a training loop imports."""

from __future__ import annotations

from . import data

__all__ = ["data"]
