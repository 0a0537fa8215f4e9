"""Small result types PyTorch returns (``torch.return_types.max``)."""

from __future__ import annotations

from typing import Any, NamedTuple


class MaxMinResult(NamedTuple):
    values: Any
    indices: Any
