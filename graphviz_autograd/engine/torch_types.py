"""Small result types PyTorch returns (``torch.return_types.max``): named tuples of values
and indices, shown as PyTorch shows them."""

from __future__ import annotations

from typing import Any, NamedTuple


class _ValuesIndices(NamedTuple):
    values: Any
    indices: Any


def _return_type(name: str) -> type[_ValuesIndices]:
    def show(self: Any) -> str:
        return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"
    return type(name, (_ValuesIndices,), {"__slots__": (), "__repr__": show, "__str__": show,
                                          "__module__": "torch.return_types"})


RETURN_TYPES = {name: _return_type(name) for name in (
    "max", "min", "median", "sort", "topk", "kthvalue", "mode", "cummax", "cummin", "nanmedian")}

