"""``torch.utils.data.StackDataset``: several datasets of one length read side by side, each
sample a tuple (datasets given positionally) or a dict (given by keyword)."""

from __future__ import annotations

from typing import Any

from .dataset import Dataset

__all__ = ["StackDataset"]


class StackDataset(Dataset):
    """``StackDataset(images, labels)[i] == (images[i], labels[i])``.

    >>> StackDataset(x=[1, 2], y=[3, 4])[1]
    {'x': 2, 'y': 4}
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets: tuple[Any, ...] | dict[str, Any] = args if args else kwargs

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list[int]) -> list[Any]:
        named = isinstance(self.datasets, dict)
        columns = {}
        for k, d in (self.datasets.items() if isinstance(self.datasets, dict)
                     else enumerate(self.datasets)):
            many = getattr(d, "__getitems__", None)
            items = many(indices) if callable(many) else [d[i] for i in indices]
            if len(items) != len(indices):
                raise ValueError(f"Nested dataset's output size mismatch. Expected "
                                 f"{len(indices)}, got {len(items)}")
            columns[k] = items
        rows = range(len(indices))
        if named:
            return [{k: col[r] for k, col in columns.items()} for r in rows]
        return [tuple(col[r] for col in columns.values()) for r in rows]

    def __len__(self) -> int:
        return self._length
