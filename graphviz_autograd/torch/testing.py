"""``torch.testing.assert_close``: tensors, numbers and nested sequences / mappings of them
compared as PyTorch compares them, failing with PyTorch's messages word for word (and
``make_tensor``, from ``testing_creation``)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..engine import dtypes as _dt
from ..engine.tensor import Tensor
from .testing_creation import make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]

# (rtol, atol) by dtype; integers and bools compare exactly
_TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
               "bfloat16": (1.6e-2, 1e-5)}


class _MismatchError(Exception):
    def __init__(self, kind: type, text: str, path: tuple[Any, ...] = ()) -> None:
        self.kind, self.text, self.path = kind, text, path


def _diff_line(kind: str, diff: Any, idx: Any, tol: float) -> str:
    line = (f"{kind.title()} difference: {diff}" if idx is None
            else f"Greatest {kind} difference: {diff} at index {idx}")
    return line + (f" (up to {tol} allowed)" if tol > 0 else "") + "\n"


def _mismatch(identifier: str, extra: str, abs_diff: Any, abs_idx: Any, atol: float,
              rel_diff: Any, rel_idx: Any, rtol: float) -> str:
    equality = rtol == 0 and atol == 0
    text = f"{identifier} are not {'equal' if equality else 'close'}!\n\n{extra.strip()}\n"
    text += _diff_line("absolute", abs_diff, abs_idx, atol)
    text += _diff_line("relative", rel_diff, rel_idx, rtol)
    return text.strip()


def _scalar_mismatch(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol,
                     rel_diff, None, rtol)


def _greatest(values: np.ndarray) -> tuple[Any, int]:
    """The largest value and its first flat index, NaN first (as ``torch.max`` finds it)."""
    nans = np.flatnonzero(np.isnan(values)) if values.dtype.kind == "f" else np.zeros(0, int)
    i = int(nans[0]) if len(nans) else int(np.argmax(values))
    return values[i].item(), i


def _index(i: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(x) for x in np.unravel_index(i, shape)) if shape else ()


def _tolerances(dtypes: Sequence[_dt.DType], rtol: Any, atol: Any) -> tuple[float, float]:
    if rtol is not None:
        return rtol, atol
    pairs = [_TOLERANCES.get(d.name, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _compare_tensors(actual: Tensor, expected: Tensor, rtol: Any, atol: Any, equal_nan: bool,
                     check_dtype: bool, check_stride: bool) -> None:
    checks: list[tuple[str, Any, Any]] = [("shape", actual.shape, expected.shape)]
    if check_dtype:
        checks.append(("dtype", actual.dtype, expected.dtype))
    if check_stride:
        checks.append(("stride()", actual.stride(), expected.stride()))
    for name, got, want in checks:
        if got != want:
            raise _MismatchError(AssertionError, f"The values for attribute '{name}' do not "
                                                 f"match: {got} != {want}.")
    rtol, atol = _tolerances((actual._dtype, expected._dtype), rtol, atol)
    dtype = _dt.result_type([actual._dtype, expected._dtype], [], [])
    a = np.asarray(actual._data.astype(dtype.np))
    e = np.asarray(expected._data.astype(dtype.np))
    if dtype.is_floating_point:
        with np.errstate(all="ignore"):
            diff = np.abs(a - e)
            close = (a == e) | (np.isfinite(diff) & (diff <= atol + rtol * np.abs(e)))
        if equal_nan:
            close |= np.isnan(a) & np.isnan(e)
    else:
        close = a == e
    if close.all():
        return
    if a.ndim == 0:
        raise _MismatchError(AssertionError, _scalar_mismatch(a.item(), e.item(), rtol, atol))
    if not dtype.is_floating_point:
        a, e = a.astype(np.int64), e.astype(np.int64)
    flat_close = close.reshape(-1)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e).reshape(-1)
        abs_diff[flat_close] = 0
        rel_diff: Any = (abs_diff / np.abs(e.reshape(-1)) if dtype.is_floating_point
                         else abs_diff.astype(np.float32)
                         / np.abs(e.reshape(-1)).astype(np.float32))
        rel_diff[flat_close] = 0
    max_abs, abs_i = _greatest(abs_diff)
    max_rel, rel_i = _greatest(rel_diff)
    total, wrong = close.size, int(close.size - close.sum())
    extra = f"Mismatched elements: {wrong} / {total} ({wrong / total:.1%})"
    raise _MismatchError(AssertionError, _mismatch("Tensor-likes", extra, max_abs,
                                                   _index(abs_i, a.shape), atol, max_rel,
                                                   _index(rel_i, a.shape), rtol))


def _compare(actual: Any, expected: Any, path: tuple[Any, ...], **kw: Any) -> None:
    try:
        if isinstance(actual, Tensor) and isinstance(expected, Tensor):
            _compare_tensors(actual, expected, **kw)
        elif isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):
            _compare_tensors(Tensor._make(actual, _dt.from_numpy(actual.dtype)),
                             Tensor._make(expected, _dt.from_numpy(expected.dtype)), **kw)
        elif isinstance(actual, int | float) and isinstance(expected, int | float):
            if kw["check_dtype"] and type(actual) is not type(expected):
                raise _MismatchError(AssertionError, "The (d)types do not match: "
                                                     f"{type(actual)} != {type(expected)}.")
            exact = isinstance(actual, int) and isinstance(expected, int)
            rtol, atol = (kw["rtol"], kw["atol"]) if kw["rtol"] is not None else (
                (0.0, 0.0) if exact else (1e-7, 1e-7))
            nan_ok = kw["equal_nan"] and actual != actual and expected != expected
            if not nan_ok and not (actual == expected or abs(actual - expected)
                                   <= atol + rtol * abs(expected)):
                raise _MismatchError(AssertionError,
                                     _scalar_mismatch(actual, expected, rtol, atol))
        elif (isinstance(actual, Sequence) and isinstance(expected, Sequence)
              and not isinstance(actual, str) and not isinstance(expected, str)):
            if len(actual) != len(expected):
                raise _MismatchError(AssertionError, "The length of the sequences mismatch: "
                                                     f"{len(actual)} != {len(expected)}")
            for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
                _compare(a, e, (*path, i), **kw)
        elif isinstance(actual, Mapping) and isinstance(expected, Mapping):
            if set(actual) != set(expected):
                missing = sorted(set(expected) - set(actual), key=repr)
                extra = sorted(set(actual) - set(expected), key=repr)
                raise _MismatchError(AssertionError,
                                     "The keys of the mappings do not match:\n"
                                     f"Missing keys in the actual mapping: {missing}\n"
                                     f"Additional keys in the actual mapping: {extra}")
            for k in sorted(actual, key=repr):
                _compare(actual[k], expected[k], (*path, k), **kw)
        else:
            raise _MismatchError(TypeError, "No comparison pair was able to handle inputs of "
                                            f"type {type(actual)} and {type(expected)}.")
    except _MismatchError as f:
        if not f.path:
            f.path = path
        raise


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: float | None = None, atol: float | None = None, equal_nan: bool = False,
                 check_device: bool = True, check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Fail unless ``actual`` and ``expected`` are close (per dtype's default tolerances).

    >>> from graphviz_autograd import torch
    >>> assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-7]))
    """
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'rtol' if rtol is None else 'atol'}.")
    try:
        _compare(actual, expected, (), rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_dtype=check_dtype, check_stride=check_stride)
    except _MismatchError as f:
        if isinstance(msg, str):
            raise f.kind(msg) from None
        text = f.text
        if f.path:
            text += f"\n\nThe failure occurred for item {''.join(str([k]) for k in f.path)}"
        raise f.kind(msg(text) if callable(msg) else text) from None


_ALLCLOSE = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None,
                    atol: float | None = None, equal_nan: bool = True,
                    msg: str = "") -> None:
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be "
                  "removed in a future release. Please use `torch.testing.assert_close()` "
                  "instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=2)
    from . import tensor
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = max(_ALLCLOSE.get(d.name, (0.0, 0.0)) for d in (actual.dtype,
                                                                       expected.dtype))
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)
