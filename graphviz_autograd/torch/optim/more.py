"""``torch.optim``'s Rprop, ASGD and Adafactor, each step PyTorch's single-tensor update (the
one a CPU machine runs), operation for operation, in the parameter's dtype; and SparseAdam's
checks."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ...engine.tensor import Tensor
from . import Optimizer, _check, _tensor
from ._arith import _fma, _fma_add, _lerp_fma, _sumsq
from .adaptive import _c, _step, _zeros

__all__ = ["Rprop", "ASGD", "Adafactor", "SparseAdam"]


def _scalar(value: float) -> Tensor:
    """A 0-d float32 state tensor (PyTorch's ``step``, ``eta``, ``mu``)."""
    return _tensor(np.array(value, np.float32))


class Rprop(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes,
                                  "foreach": foreach, "maximize": maximize,
                                  "differentiable": differentiable, "capturable": capturable})

    _records_steps = True

    def _init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        st = self.state[p]
        if not st:
            st.update(step=_scalar(0.0), prev=_zeros(p),
                      step_size=_tensor(np.full_like(p._data, group["lr"])))
        return st

    def _tensor_update(self, p: Tensor, group: dict[str, Any]) -> None:
        assert p.grad is not None
        st = self._init_state(p, group)
        g = -p.grad if group["maximize"] else p.grad
        _step(st)
        (eta_minus, eta_plus), (lo, hi) = group["etas"], group["step_sizes"]
        prev, size = st["prev"], st["step_size"]
        sign = g.mul(prev.clone()).sign()
        sign[sign.gt(0)] = eta_plus
        sign[sign.lt(0)] = eta_minus
        sign[sign.eq(0)] = 1
        size.mul_(sign).clamp_(lo, hi)
        g = g.clone()
        g[sign.eq(eta_minus)] = 0
        p.addcmul_(g.sign(), size, value=-1)
        prev.copy_(g)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        st = self._init_state(p, group)
        g = -g if group["maximize"] else g
        _step(st)
        (eta_minus, eta_plus), (lo, hi) = group["etas"], group["step_sizes"]
        prev, size = st["prev"]._data, st["step_size"]._data
        sign = np.sign(g * prev)
        # NB: the factors are the tensor's dtype, so the comparison with eta_minus below holds
        factor = np.where(sign > 0, _c(eta_plus, g),
                          np.where(sign < 0, _c(eta_minus, g), np.where(sign == 0, 1, sign)))
        factor = factor.astype(g.dtype, copy=False)
        size *= factor
        np.clip(size, _c(lo, size), _c(hi, size), out=size)
        g = np.where(factor == _c(eta_minus, g), np.zeros((), g.dtype), g)
        p._data -= np.sign(g) * size
        prev[...] = g
        return 1


class ASGD(Optimizer):
    _capturable_what = "params, mus, etas, and state_steps"

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    _records_steps = True

    def _init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        st = self.state[p]
        if not st:
            st.update(step=_scalar(0.0), eta=_scalar(group["lr"]), mu=_scalar(1.0),
                      ax=_zeros(p))
        return st

    def _tensor_update(self, p: Tensor, group: dict[str, Any]) -> None:
        assert p.grad is not None
        st = self._init_state(p, group)
        g = -p.grad if group["maximize"] else p.grad
        step = _step(st)
        lr, lambd = group["lr"], group["lambd"]
        if group["weight_decay"] != 0:
            g = g.add(p, alpha=group["weight_decay"])
        eta = st["eta"].item()
        p.mul_(1 - lambd * eta)
        p.add_(g, alpha=-eta)
        ax, mu = st["ax"], st["mu"]
        if mu.item() != 1:
            ax.add_(p.sub(ax).mul_(mu))
        else:
            ax.copy_(p)
        st["eta"]._data[...] = lr / ((1 + lambd * lr * step) ** group["alpha"])
        st["mu"]._data[...] = 1 / max(1, step - group["t0"])

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        st = self._init_state(p, group)
        g = -g if group["maximize"] else g
        step = _step(st)
        lr, lambd = group["lr"], group["lambd"]
        if group["weight_decay"] != 0:
            g = _fma(g, group["weight_decay"], p._data)
        eta = float(st["eta"]._data)
        p._data *= _c(1 - lambd * eta, p._data)
        _fma_add(p._data, -eta, g)
        ax, mu = st["ax"]._data, st["mu"]._data
        if float(mu) != 1:
            ax += (p._data - ax) * mu.astype(ax.dtype)
        else:
            ax[...] = p._data
        st["eta"]._data[...] = lr / ((1 + lambd * lr * step) ** group["alpha"])
        st["mu"]._data[...] = 1 / max(1, step - group["t0"])
        return 2


class Adafactor(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        _check(lr >= 0.0, f"Learning rate should be >= 0 but is: {lr}")
        _check(beta2_decay <= 0.0, f"beta2_decay should be <= 0 but is: {beta2_decay}")
        _check(eps[0] is None or eps[0] >= 0.0, f"epsilon1 should be >= 0 but is: {eps[0]}")
        _check(eps[1] >= 0.0, f"epsilon2 should be >= 0 but is: {eps[1]}")
        _check(d >= 1.0, f"Clipping threshold d should be >= 1 but is: {d}")
        _check(weight_decay >= 0.0, f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "maximize": maximize})

    def step(self, closure: Any = None) -> Any:
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None and p.dtype.is_complex:
                    raise RuntimeError("Adafactor does not support complex parameters")
        return super().step(closure)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        st = self.state[p]
        if not st:
            st["step"] = _scalar(0.0)
            if g.ndim > 1:
                st["row_var"] = _tensor(np.zeros((*g.shape[:-1], 1), g.dtype))
                st["col_var"] = _tensor(np.zeros((*g.shape[:-2], 1, *g.shape[-1:]), g.dtype))
            else:
                st["variance"] = _zeros(p)
        g = -g if group["maximize"] else g
        eps1 = group["eps"][0]
        if eps1 is None:
            eps1 = self._first_eps1(group)
        eps2, lr, x = group["eps"][1], group["lr"], p._data
        step = _step(st)
        beta2_t = step ** group["beta2_decay"]
        rho = min(lr, 1 / (step ** 0.5))
        alpha = max(eps2, math.sqrt(float(_sumsq(x))) / (x.size ** 0.5)) * rho
        bumps = 1
        if group["weight_decay"] != 0:
            x *= _c(1 - lr * group["weight_decay"], x)
            bumps = 2
        if g.ndim > 1:
            row, col = st["row_var"]._data, st["col_var"]._data
            _lerp_fma(row, np.sqrt(_sumsq(g, -1)) ** 2 / _c(g.shape[-1], g), beta2_t)
            _lerp_fma(col, np.sqrt(_sumsq(g, -2)) ** 2 / _c(g.shape[-2], g), beta2_t)
            var = row @ col
            var /= np.maximum(row.mean(axis=-2, keepdims=True), _c(eps1, row))
        else:
            v = st["variance"]._data
            _lerp_fma(v, g * g, beta2_t)
            var = v.copy()
        update = 1 / np.sqrt(np.maximum(var, _c(eps1 * eps1, var)))
        update *= g
        denom = max(1.0, math.sqrt(float(_sumsq(update))) / ((update.size ** 0.5) * group["d"]))
        _fma_add(x, -alpha / denom, update)
        return bumps

    def _first_eps1(self, group: dict[str, Any]) -> float:
        # NB: PyTorch takes a missing eps1 from the group's first parameter, for them all
        first = next(q for q in group["params"] if q._grad is not None)
        return float(np.finfo(first._data.dtype).eps)


class SparseAdam(Optimizer):
    """Adam for sparse gradients. The engine has no sparse tensors, so a step with a gradient
    fails as PyTorch's does for a dense one."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        _check(lr > 0.0, f"Invalid learning rate: {lr}")
        _check(eps > 0.0, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p.dtype.is_complex]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not "
                             "support complex parameters")

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam "
                           "instead")
