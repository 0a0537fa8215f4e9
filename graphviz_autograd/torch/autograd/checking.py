"""``torch.autograd.gradcheck``: finite differences against the Jacobians reverse mode (and,
with ``check_forward_ad``, forward mode) compute, element by element (PyTorch's slow mode)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ...engine import forward_ad as fw
from ...engine.executor import grad
from ...engine.grad_mode import no_grad
from ...engine.tensor import Tensor

__all__ = ["gradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when a Jacobian is not the numerical one."""


def _tensors(x: Any) -> list[Any]:
    return list(x) if isinstance(x, tuple | list) else [x]


def _float(t: Any) -> bool:
    return isinstance(t, Tensor) and (t._dtype.is_floating_point or t._dtype.is_complex)


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: bool | None = None) -> bool:
    """True where the analytical Jacobians match finite differences; else raises
    ``GradcheckError`` (or returns False with ``raise_exception=False``).

    >>> from graphviz_autograd import torch
    >>> x = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(torch.sin, (x,))
    True
    """
    args = _tensors(inputs)
    wrt = [i for i, a in enumerate(args) if _float(a) and a.requires_grad]
    for i in wrt:
        if args[i]._dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", stacklevel=2)
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    numerical = _numerical(func, args, wrt, eps)
    try:
        if check_backward_ad:
            _compare(_reverse(func, args, wrt), numerical, rtol, atol, "")
        if check_forward_ad:
            _compare(_forward(func, args, wrt), numerical, rtol, atol,
                     "computed with forward mode ")
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _outputs(func: Callable[..., Any], args: list[Any]) -> list[Any]:
    return [o for o in _tensors(func(*args)) if _float(o)]


def _numerical(func: Callable[..., Any], args: list[Any], wrt: list[int], eps: float
               ) -> dict[tuple[int, int], np.ndarray]:
    """Central differences, one input element at a time: J[(out, in)] of shape (n_in, n_out)."""
    out: dict[tuple[int, int], np.ndarray] = {}
    with no_grad():
        for i in wrt:
            data = args[i]._data
            cols: list[list[np.ndarray]] = []
            for j in range(data.size):
                # NB: in place, through the index (a reshape of a strided input would copy)
                at = np.unravel_index(j, data.shape)
                keep = data[at].copy()
                data[at] = keep + eps
                plus = [np.array(o._data, dtype=np.float64) for o in _outputs(func, args)]
                data[at] = keep - eps
                minus = [np.array(o._data, dtype=np.float64) for o in _outputs(func, args)]
                data[at] = keep
                cols.append([((p - m) / (2 * eps)).reshape(-1) for p, m in zip(plus, minus,
                                                                             strict=True)])
            for k in range(len(cols[0]) if cols else 0):
                out[(k, i)] = np.stack([c[k] for c in cols]) if cols else np.zeros((0, 0))
    return out


def _reverse(func: Callable[..., Any], args: list[Any], wrt: list[int]
             ) -> dict[tuple[int, int], np.ndarray]:
    outs = _outputs(func, args)
    res: dict[tuple[int, int], np.ndarray] = {}
    for k, o in enumerate(outs):
        mats = {i: np.zeros((args[i]._data.size, o._data.size)) for i in wrt}
        if o.requires_grad:
            for e in range(o._data.size):
                seed = np.zeros(o._data.shape, o._data.dtype)
                seed.reshape(-1)[e] = 1
                gs = grad([o], [args[i] for i in wrt], [Tensor._make(seed, o._dtype)],
                          retain_graph=True, allow_unused=True)
                for i, g in zip(wrt, gs, strict=True):
                    if g is not None:
                        mats[i][:, e] = g._data.reshape(-1)
        res.update({(k, i): m for i, m in mats.items()})
    return res


def _forward(func: Callable[..., Any], args: list[Any], wrt: list[int]
             ) -> dict[tuple[int, int], np.ndarray]:
    res: dict[tuple[int, int], np.ndarray] = {}
    for i in wrt:
        rows: list[list[np.ndarray]] = []
        for j in range(args[i]._data.size):
            seed = np.zeros(args[i]._data.shape, args[i]._data.dtype)
            seed.reshape(-1)[j] = 1
            with fw.dual_level():
                given = list(args)
                given[i] = fw.make_dual(args[i], Tensor._make(seed, args[i]._dtype))
                outs = _outputs(func, given)
                tans = [fw.unpack_dual(o).tangent for o in outs]
                rows.append([t._data.reshape(-1).astype(np.float64) if t is not None
                             else np.zeros(o._data.size) for t, o in zip(tans, outs,
                                                                         strict=True)])
        for k in range(len(rows[0]) if rows else 0):
            res[(k, i)] = np.stack([r[k] for r in rows])
    return res


def _compare(analytical: dict[tuple[int, int], np.ndarray],
             numerical: dict[tuple[int, int], np.ndarray], rtol: float, atol: float,
             mode: str) -> None:
    from ...engine.factories import tensor
    for (k, i), a in sorted(analytical.items()):
        n = numerical.get((k, i), np.zeros_like(a))
        if not np.allclose(a, n, rtol=rtol, atol=atol):
            raise GradcheckError(f"Jacobian {mode}mismatch for output {k:d} with respect to "
                                 f"input {i:d},\nnumerical:{tensor(n)}\nanalytical:{tensor(a)}\n")
