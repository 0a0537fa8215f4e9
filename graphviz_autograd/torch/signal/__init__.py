"""``torch.signal``: the ``windows`` of signal processing."""

from __future__ import annotations

from . import windows

__all__ = ["windows"]
