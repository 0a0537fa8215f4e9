"""Table entries the distributions need: ``torch.cholesky_inverse`` (CholeskyInverseBackward0,
MultivariateNormal.precision_matrix) and ``torch.mvlgamma`` (MvlgammaBackward0, LKJCholesky)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import special_math as sm
from .optable import Op, Save, no_double_backward, register


def _mT(x: Any) -> Any:
    return np.swapaxes(x, -1, -2)


def _cholesky_inverse_fwd(factor: Any, upper: bool = False) -> Any:
    a = _mT(factor) @ factor if upper else factor @ _mT(factor)
    return np.linalg.inv(a).astype(factor.dtype)


def _cholesky_inverse_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: -(inv (g + g^T) inv) L for a lower factor, -L (...) for an upper one
    if D.tensor_mode:
        raise no_double_backward("CholeskyInverseBackward0")
    inverse, factor = c.result, c.self
    common = inverse @ ((g + _mT(g)) @ inverse)
    return (-(factor @ common) if c.attrs.get("upper", False) else -(common @ factor),)


def _mvlgamma_fwd(x: Any, p: int) -> Any:
    """log of the multivariate gamma function: p(p-1)/4 log(pi) + sum_i lgamma(x - i/2)."""
    args = x[..., None] + np.arange(-p / 2.0 + 0.5, 0.5, 0.5)
    total = sm.lgamma(args).sum(-1)
    return (total + p * (p - 1) / 4 * math.log(math.pi)).astype(x.dtype)


def _mvlgamma_bw(c: Any, g: Any, D: Any) -> tuple[Any, ...]:
    # NB: grad * sum_i digamma(self - i/2); PyTorch's double backward runs an in-place
    # digamma_ on that argument grid
    if D.tensor_mode:
        raise no_double_backward("MvlgammaBackward0")
    p = c.attrs["p"]
    x = c.self
    args = x[..., None] + np.arange(-p / 2.0 + 0.5, 0.5, 0.5)
    return ((g * sm.digamma(args).sum(-1)).astype(x.dtype),)


register(
    Op("mvlgamma", "MvlgammaBackward0", ("self",), _mvlgamma_fwd, _mvlgamma_bw,
       (Save("self"),), ("p",)),
    Op("cholesky_inverse", "CholeskyInverseBackward0", ("self",), _cholesky_inverse_fwd,
       _cholesky_inverse_bw, (Save("result"), Save("self")), ("upper",)),
)
