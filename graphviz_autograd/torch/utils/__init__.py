"""``torch.utils``: the data loading utilities a training loop imports, and activation
checkpointing."""

from __future__ import annotations

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
