"""Table entry the distributions need: ``torch.cholesky_inverse`` (CholeskyInverseBackward0,
MultivariateNormal.precision_matrix)."""

from __future__ import annotations

from typing import Any

import numpy as np

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


register(
    Op("cholesky_inverse", "CholeskyInverseBackward0", ("self",), _cholesky_inverse_fwd,
       _cholesky_inverse_bw, (Save("result"), Save("self")), ("upper",)),
)
