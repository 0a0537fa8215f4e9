"""``repr(tensor)`` in PyTorch's layout: ``tensor([1., 2.], requires_grad=True)``.

PyTorch's default print options (``set_printoptions`` changes them): 4 digits, lines of 80
characters, and tensors of more than 1,000 elements summarised by their first and last 3 items
along each dimension. One format is chosen for all the elements shown, from their nonzero finite
values: whole numbers print as ``3.``, others with 4 decimals, and scientific notation is used
when the largest is over 1e8 or over 1,000 times the smallest (or, for non-whole numbers, the
smallest is under 1e-4).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .tensor import Tensor



class PrintOptions:
    """``torch.set_printoptions``'s settings (PyTorch's ``PRINT_OPTS``); ``sci_mode`` None lets
    each tensor choose."""

    def __init__(self) -> None:
        self.precision: int = 4
        self.threshold: float = 1000
        self.edgeitems: int = 3
        self.linewidth: int = 80
        self.sci_mode: bool | None = None


OPTS = PrintOptions()
PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
            "full": (4, math.inf, 3, 80)}


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """``torch.set_printoptions``: a profile (an unknown name is ignored, as PyTorch does),
    then the options given; ``sci_mode`` is always set (None: automatic).

    >>> from graphviz_autograd import torch
    >>> torch.set_printoptions(precision=2)
    >>> torch.tensor([1.23456])
    tensor([1.23])
    >>> torch.set_printoptions(profile="default")
    """
    if profile in PROFILES:
        OPTS.precision, OPTS.threshold, OPTS.edgeitems, OPTS.linewidth = PROFILES[profile]
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(OPTS, name, value)
    OPTS.sci_mode = sci_mode


class _Format:
    """How every element of one printed tensor is written, and its common width."""

    def __init__(self, shown: np.ndarray) -> None:
        self.floating = shown.dtype.kind == "f"
        self.whole, self.sci, self.width = True, False, 1
        flat = shown.reshape(-1)
        if not self.floating:
            self.width = max((len(str(v)) for v in flat.tolist()), default=1)
            return
        values = flat.astype(np.float64)
        finite = values[np.isfinite(values) & (values != 0)]
        if not finite.size:
            return
        big, small = float(np.abs(finite).max()), float(np.abs(finite).min())
        self.whole = bool(np.all(finite == np.ceil(finite)))
        self.sci = big / small > 1000.0 or big > 1.0e8 or (not self.whole and small < 1.0e-4)
        if OPTS.sci_mode is not None:
            self.sci = OPTS.sci_mode
        if self.sci:
            texts = [f"{v:.{OPTS.precision}e}" for v in finite.tolist()]
        elif self.whole:
            texts = [f"{v:.0f}." for v in finite.tolist()]
        else:
            texts = [f"{v:.{OPTS.precision}f}" for v in finite.tolist()]
        self.width = max(len(t) for t in texts)

    def __call__(self, value: Any) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci:
            text = f"{value:{self.width}.{OPTS.precision}e}"
        elif self.whole:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{OPTS.precision}f}"
        return text.rjust(self.width)


def _summary(arr: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows: the first and last ``EDGE`` along each dim."""
    edge = OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.shape[0] > 2 * edge:
        arr = np.concatenate([arr[:edge], arr[-edge:]])
    if arr.ndim == 1:
        return arr
    return np.stack([_summary(x) for x in arr])


def _vector(arr: np.ndarray, indent: int, summarize: bool, fmt: _Format) -> str:
    per_line = max(1, (OPTS.linewidth - indent) // (fmt.width + 2))
    edge = OPTS.edgeitems
    if summarize and arr.shape[0] > 2 * edge:
        items = ([fmt(v) for v in arr[:edge].tolist()] + [" ..."]
                 + [fmt(v) for v in arr[-edge:].tolist()])
    else:
        items = [fmt(v) for v in arr.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(arr: np.ndarray, indent: int, summarize: bool, fmt: _Format) -> str:
    if arr.ndim == 0:
        return fmt(arr.item())
    if arr.ndim == 1:
        return _vector(arr, indent, summarize, fmt)
    n, edge = arr.shape[0], OPTS.edgeitems
    rows = range(n) if not summarize or n <= 2 * edge else [*range(edge), -1,
                                                           *range(n - edge, n)]
    parts = ["..." if i == -1 else _nested(arr[i], indent + 1, summarize, fmt) for i in rows]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """``, dtype=...`` and the like after the values, on a new line where they do not fit."""
    out = [text]
    line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line + len(suffix) + 2 > OPTS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            line = indent + len(suffix)
        else:
            out.append(", " + suffix)
            line += len(suffix) + 2
    return "".join(out) + ")"


def tensor_repr(t: Tensor) -> str:
    from .dtypes import float32, int64
    prefix = "tensor("
    indent = len(prefix)
    arr = t._data
    suffixes = []
    if arr.size == 0:
        # NB: an empty tensor shows its size unless it is (0,), and any dtype but the default
        # (no element tells int64 or bool apart)
        body = "[]"
        if arr.ndim != 1:
            suffixes.append(f"size={tuple(arr.shape)}")
        if t._dtype is not float32:
            suffixes.append(f"dtype={t._dtype}")
    else:
        if arr.dtype == np.float16 or arr.dtype.kind == "V":   # NB: V: bfloat16
            arr = arr.astype(np.float32)
        summarize = arr.size > OPTS.threshold
        fmt = _Format(_summary(arr) if summarize else arr)
        body = _nested(arr, indent, summarize, fmt)
        if t._dtype not in (float32, int64) and t._dtype.name != "bool":
            suffixes.append(f"dtype={t._dtype}")
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name().rsplit('::', 1)[-1]}>")
    elif t._rg:
        suffixes.append("requires_grad=True")
    if t._fw_grad is not None or t._base is not None:
        from .forward_ad import tangent_of
        from .grad_mode import state
        tangent = tangent_of(t) if state.dual else None
        if tangent is not None:
            suffixes.append(f"tangent={tensor_repr(tangent)}")
    return _with_suffixes(prefix + body, suffixes, indent)
