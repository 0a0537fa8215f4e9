"""``torch.signal.windows``: SciPy-style window functions, each built from the engine's ops in
PyTorch's order (a ``linspace`` of sample positions, then pointwise ops), so values, dtypes and,
with ``requires_grad=True``, graphs are PyTorch's."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ...engine import dtypes as _dt
from ...engine.tensor import Tensor

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _torch() -> Any:
    from ... import torch
    return torch


def _checked(name: str, M: int, dtype: Any, layout: Any) -> _dt.DType:
    torch = _torch()
    dtype = dtype or torch.get_default_dtype()
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and layout is not torch.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_dt.float32, _dt.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _empty(dtype: Any, requires_grad: bool) -> Tensor:
    return _torch().empty((0,), dtype=dtype, requires_grad=requires_grad)


def _ones(dtype: Any, requires_grad: bool) -> Tensor:
    return _torch().ones((1,), dtype=dtype, requires_grad=requires_grad)


def _positions(start: float, step: float, M: int, dtype: Any, requires_grad: bool) -> Tensor:
    """``M`` points from ``start`` spaced by ``step``, as ``torch.linspace`` lays them."""
    return _torch().linspace(start, start + (M - 1) * step, M, dtype=dtype,
                             requires_grad=requires_grad)


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True,
                dtype: Any = None, layout: Any = None, device: Any = None,
                requires_grad: bool = False) -> Tensor:
    """``exp(-|n - center| / tau)`` (the Poisson window)."""
    dtype = _checked("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _empty(dtype, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / tau
    k = _torch().linspace(-center * scale, (-center + (M - 1)) * scale, M, dtype=dtype,
                          requires_grad=requires_grad)
    return _torch().exp(-_torch().abs(k))


def cosine(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = None,
           device: Any = None, requires_grad: bool = False) -> Tensor:
    """``sin(pi (n + 0.5) / M)`` (the sine window)."""
    dtype = _checked("cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, requires_grad)
    scale = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _torch().linspace(0.5 * scale, (0.5 + (M - 1)) * scale, M, dtype=dtype,
                          requires_grad=requires_grad)
    return _torch().sin(k)


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype: Any = None,
             layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """``exp(-(n / (2 std))^2)`` around the centre."""
    dtype = _checked("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _empty(dtype, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / (std * math.sqrt(2))
    k = _torch().linspace(start * scale, (start + (M - 1)) * scale, M, dtype=dtype,
                          requires_grad=requires_grad)
    return _torch().exp(-k ** 2)


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype: Any = None,
           layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """``I0(sqrt(beta^2 - k^2)) / I0(beta)`` for ``k`` from ``-beta`` to ``beta``."""
    torch = _torch()
    dtype = _checked("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M == 0:
        return _empty(dtype, requires_grad)
    if M == 1:
        return _ones(dtype, requires_grad)
    b = torch.tensor(beta, dtype=dtype)
    start = -b
    step = 2.0 * b / (M if not sym else M - 1)
    end = torch.minimum(b, start + (M - 1) * step)
    k = torch.linspace(start.item(), end.item(), M, dtype=dtype, requires_grad=requires_grad)
    return torch.i0(torch.sqrt(b * b - torch.pow(k, 2))) / torch.i0(b)


def general_cosine(M: int, *, a: Iterable[float], sym: bool = True, dtype: Any = None,
                   layout: Any = None, device: Any = None,
                   requires_grad: bool = False) -> Tensor:
    """``sum_i (-1)^i a_i cos(i k)`` for ``k`` from 0 to 2 pi."""
    torch = _torch()
    dtype = _checked("general_cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, requires_grad)
    if M == 1:
        return _ones(dtype, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    k = _positions(0.0, 2 * math.pi / (M if not sym else M - 1), M, dtype, requires_grad)
    coeffs = torch.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype,
                          requires_grad=requires_grad)
    i = torch.arange(coeffs.shape[0], dtype=coeffs.dtype, requires_grad=coeffs.requires_grad)
    return (coeffs.unsqueeze(-1) * torch.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M: int, *, alpha: float = 0.54, sym: bool = True, dtype: Any = None,
                    layout: Any = None, device: Any = None,
                    requires_grad: bool = False) -> Tensor:
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          requires_grad=requires_grad)


def hamming(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = None,
            device: Any = None, requires_grad: bool = False) -> Tensor:
    """The Hamming window (``general_hamming`` with alpha 0.54).

    >>> [round(v, 4) for v in hamming(3).tolist()]
    [0.08, 1.0, 0.08]
    """
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = None,
         device: Any = None, requires_grad: bool = False) -> Tensor:
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout,
                           requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:
    dtype = _checked("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          requires_grad=requires_grad)


def bartlett(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:
    """``1 - |k|`` for ``k`` from -1 to 1 (the triangular window)."""
    dtype = _checked("bartlett", M, dtype, layout)
    if M == 0:
        return _empty(dtype, requires_grad)
    if M == 1:
        return _ones(dtype, requires_grad)
    k = _positions(-1, 2 / (M if not sym else M - 1), M, dtype, requires_grad)
    return 1 - _torch().abs(k)


def nuttall(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = None,
            device: Any = None, requires_grad: bool = False) -> Tensor:
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, requires_grad=requires_grad)
