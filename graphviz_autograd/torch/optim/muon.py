"""``torch.optim.Muon``: momentum whose update is orthogonalised by a Newton-Schulz iteration,
for 2-d parameters. PyTorch runs the iteration in bfloat16 (which the engine has no dtype
for): here float32 arrays rounded to bfloat16 after every op, as PyTorch's kernels round their
float32 results."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ...engine.tensor import Tensor
from . import Optimizer, _check, _tensor
from ._arith import _fma_add, _lerp_fma

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.775, 2.0315
DEFAULT_NS_STEPS = 5


def _bf16(x: Any) -> np.ndarray:
    """float32 values rounded (to nearest, ties to even) to bfloat16's 8-bit significand."""
    x = np.ascontiguousarray(x, np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    out = u.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, out)


def _mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A bfloat16 matrix product's float32 accumulation (products of bfloat16 are exact)."""
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def _zeropower_via_newtonschulz(grad: np.ndarray, ns_coefficients: tuple[float, float, float],
                                ns_steps: int, eps: float) -> np.ndarray:
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = (np.float32(v) for v in ns_coefficients)
    x = _bf16(grad)
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    norm = _bf16(np.sqrt(np.sum(x.astype(np.float64) ** 2)).astype(np.float32))
    x = _bf16(x / np.maximum(norm, _bf16(np.float32(eps))))
    for _ in range(ns_steps):
        gram = _bf16(_mm(x, x.T))
        gram_update = _bf16(b * gram + c * _mm(gram, gram))
        x = _bf16(a * x + _mm(gram_update, x))
    return x.T if tall else x


def _adjust_lr(lr: float, adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B,
                                                                DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS,
                 adjust_lr_fn: str | None = None) -> None:
        _check(lr >= 0.0, f"Learning rate should be >= 0 but is: {lr}")
        _check(momentum >= 0.0, f"momentum should be >= 0 but is: {momentum}")
        _check(weight_decay >= 0.0, f"weight decay should be >= 0 but is: {weight_decay}")
        _check(adjust_lr_fn is None or adjust_lr_fn in ["original", "match_rms_adamw"],
               f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                                  "nesterov": nesterov, "ns_coefficients": ns_coefficients,
                                  "eps": eps, "ns_steps": ns_steps,
                                  "adjust_lr_fn": adjust_lr_fn})
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def step(self, closure: Any = None) -> Any:
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None and p.dtype.is_complex:
                    raise RuntimeError("Muon does not support complex parameters")
        return super().step(closure)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        st = self.state[p]
        if "momentum_buffer" not in st:
            st["momentum_buffer"] = _tensor(np.zeros_like(g))
        if g.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        momentum, lr = group["momentum"], group["lr"]
        buf = st["momentum_buffer"]._data
        _lerp_fma(buf, g, 1 - momentum)
        if group["nesterov"]:
            update = g.copy()
            _lerp_fma(update, buf, momentum)
        else:
            update = buf
        ortho = _zeropower_via_newtonschulz(update, group["ns_coefficients"],
                                            group["ns_steps"], group["eps"])
        adjusted = _adjust_lr(lr, group["adjust_lr_fn"], p._data.shape)
        p._data *= np.asarray(1 - lr * group["weight_decay"], p._data.dtype)
        _fma_add(p._data, -adjusted, ortho.astype(p._data.dtype))
        return 2
