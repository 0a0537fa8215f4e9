"""``repr(tensor)`` in PyTorch's layout: ``tensor([1., 2.], requires_grad=True)``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .tensor import Tensor


def _fmt_float(arr: np.ndarray) -> tuple[str, ...]:
    finite = arr[np.isfinite(arr)]
    if finite.size and np.all(finite == np.round(finite)) and np.max(np.abs(finite)) < 1e8:
        return tuple(f"{v:.0f}." if np.isfinite(v) else str(v) for v in arr.flat)
    big = np.max(np.abs(finite)) if finite.size else 0
    small = np.min(np.abs(finite[finite != 0])) if np.any(finite != 0) else 1
    if big >= 1e8 or small < 1e-4 or (small and big / small > 1e4 and big >= 1000):
        return tuple(f"{v:.4e}" for v in arr.flat)
    return tuple(f"{v:.4f}" for v in arr.flat)


def _body(t: Tensor) -> str:
    arr = t._data
    if arr.dtype.kind == "f":
        items = _fmt_float(arr.astype(np.float64))
    elif arr.dtype.kind == "b":
        items = tuple(str(bool(v)) for v in arr.flat)
    else:
        items = tuple(str(int(v)) for v in arr.flat)
    if arr.ndim == 0:
        return items[0]
    width = max((len(s) for s in items), default=0)
    cells = [s.rjust(width) for s in items]
    return _nest(cells, arr.shape, 0, 8)


def _nest(cells: list[str], shape: tuple[int, ...], depth: int, indent: int) -> str:
    if len(shape) == 1:
        return "[" + ", ".join(cells) + "]"
    step = len(cells) // shape[0] if shape[0] else 0
    rows = [_nest(cells[i * step:(i + 1) * step], shape[1:], depth + 1, indent)
            for i in range(shape[0])]
    sep = "," + "\n" * (len(shape) - 1) + " " * (indent + depth)
    return "[" + sep.join(rows) + "]"


def tensor_repr(t: Tensor) -> str:
    from .dtypes import float32, int64
    extras = []
    if t._data.size == 0:
        # NB: as PyTorch: an empty tensor shows its size unless it is (0,), and any dtype but
        # the default (no element tells int64 or bool apart)
        body = "[]"
        if t._data.ndim != 1:
            extras.append(f"size={tuple(t._data.shape)}")
        if t._dtype is not float32:
            extras.append(f"dtype={t._dtype}")
    else:
        body = _body(t)
        if t._dtype not in (float32, int64) and t._dtype.name != "bool":
            extras.append(f"dtype={t._dtype}")
    if t._grad_fn is not None:
        extras.append(f"grad_fn=<{t._grad_fn.name().rsplit('::', 1)[-1]}>")
    elif t._rg:
        extras.append("requires_grad=True")
    head = "tensor(" + body
    return head + "".join(", " + e for e in extras) + ")"
