"""``torch.optim``'s per-coordinate adaptive optimizers: RMSprop, Adagrad, Adadelta, Adamax,
NAdam and RAdam, each step PyTorch's single-tensor update, operation for operation, in the
parameter's dtype."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np

from ...engine.tensor import Tensor
from . import Optimizer, _check, _check_fused, _tensor
from ._arith import _addcmul, _fma, _fma_add, _lerp_fma

__all__ = ["RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"]


def _c(value: float, like: np.ndarray) -> Any:
    """A Python number as the scalar operand of an op on ``like`` (PyTorch computes in the
    tensor's dtype)."""
    return np.asarray(value, like.dtype)


def _step(st: dict[str, Any]) -> float:
    st["step"]._data += 1
    return float(st["step"]._data)


def _zeros(p: Tensor) -> Tensor:
    return _tensor(np.zeros_like(p._data))


def _decay(g: np.ndarray, p: Tensor, group: dict[str, Any]) -> np.ndarray:
    """``maximize`` and the (coupled) weight decay of the gradient."""
    if group["maximize"]:
        g = -g
    if group["weight_decay"] != 0:
        g = _fma(g, group["weight_decay"], p._data)
    return g


def _betas(betas: tuple[float, float]) -> None:
    _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
    _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")


class RMSprop(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False, foreach: Any = None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _check(alpha >= 0.0, f"Invalid alpha value: {alpha}")
        super().__init__(params, {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                                  "centered": centered, "weight_decay": weight_decay,
                                  "capturable": capturable, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable})

    _records_steps = True

    def _init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        st = self.state[p]
        if not st:
            st.update(step=_tensor(np.array(0.0, np.float32)), square_avg=_zeros(p))
            if group["momentum"] > 0:
                st["momentum_buffer"] = _zeros(p)
            if group["centered"]:
                st["grad_avg"] = _zeros(p)
        return st

    def _tensor_update(self, p: Tensor, group: dict[str, Any]) -> None:
        assert p.grad is not None
        st = self._init_state(p, group)
        g = -p.grad if group["maximize"] else p.grad
        step = st["step"]
        step += 1
        if group["weight_decay"] != 0:
            g = g.add(p, alpha=group["weight_decay"])
        alpha, sq = group["alpha"], st["square_avg"]
        sq.mul_(alpha).addcmul_(g, g, value=1 - alpha)
        if group["centered"]:
            ga = st["grad_avg"]
            ga.lerp_(g, 1 - alpha)
            avg = sq.addcmul(ga, ga, value=-1).sqrt_()
        else:
            avg = sq.sqrt()
        avg = avg.add(group["eps"])
        if group["momentum"] > 0:
            buf = st["momentum_buffer"]
            buf.mul_(group["momentum"]).addcdiv_(g, avg)
            p.add_(buf, alpha=-group["lr"])
        else:
            p.addcdiv_(g, avg, value=-group["lr"])

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        st = self._init_state(p, group)
        g = -g if group["maximize"] else g
        _step(st)
        if group["weight_decay"] != 0:
            g = _fma(g, group["weight_decay"], p._data)
        alpha, sq = group["alpha"], st["square_avg"]._data
        sq *= _c(alpha, sq)
        _addcmul(sq, 1 - alpha, g, g)
        if group["centered"]:
            ga = st["grad_avg"]._data
            _lerp_fma(ga, g, 1 - alpha)
            avg = np.sqrt(_fma(sq, -ga, ga))
        else:
            avg = np.sqrt(sq)
        avg += _c(group["eps"], avg)
        if group["momentum"] > 0:
            buf = st["momentum_buffer"]._data
            buf *= _c(group["momentum"], buf)
            buf += g / avg
            _fma_add(p._data, -group["lr"], buf)
        else:
            p._data += _c(-group["lr"], g) * g / avg
        return 1


class Adagrad(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: Any = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: Any = None) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(lr_decay >= 0.0, f"Invalid lr_decay value: {lr_decay}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _check(initial_accumulator_value >= 0.0,
               f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps,
                                  "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial_accumulator_value,
                                  "foreach": foreach, "maximize": maximize,
                                  "differentiable": differentiable, "fused": fused})
        _check_fused(fused, foreach, differentiable)
        for group in self.param_groups:       # NB: Adagrad's state exists from the start
            for p in group["params"]:
                self.state[p].update(
                    step=_tensor(np.array(0.0, np.float32)),
                    sum=_tensor(np.full_like(p._data, group["initial_accumulator_value"])))

    _records_steps = True

    def _tensor_update(self, p: Tensor, group: dict[str, Any]) -> None:
        assert p.grad is not None
        st = self.state[p]
        step = _step(st)
        g = -p.grad if group["maximize"] else p.grad
        if group["weight_decay"] != 0:
            g = g.add(p, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        st["sum"].addcmul_(g, g, value=1)
        std = st["sum"].sqrt() + group["eps"]
        p.addcdiv_(g, std, value=-clr)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        st = self.state[p]
        step = _step(st)
        g = _decay(g, p, group)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        s = st["sum"]._data
        _addcmul(s, 1, g, g)
        std = np.sqrt(s)
        std += _c(group["eps"], std)
        p._data += _c(-clr, g) * g / std
        return 1


class Adadelta(Optimizer):
    # NB: no xla in its list
    _capturable_devices: ClassVar[list[str]] = ["cuda", "xpu", "hpu", "privateuseone"]

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: Any = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize,
                                  "capturable": capturable, "foreach": foreach,
                                  "differentiable": differentiable})

    _records_steps = True

    def _init_state(self, p: Tensor) -> dict[str, Any]:
        st = self.state[p]
        if not st:
            st.update(step=_tensor(np.array(0.0, np.float32)), square_avg=_zeros(p),
                      acc_delta=_zeros(p))
        return st

    def _tensor_update(self, p: Tensor, group: dict[str, Any]) -> None:
        assert p.grad is not None
        st = self._init_state(p)
        step = st["step"]
        step += 1
        g = -p.grad if group["maximize"] else p.grad
        if group["weight_decay"] != 0:
            g = g.add(p, alpha=group["weight_decay"])
        rho, eps, sq, acc = group["rho"], group["eps"], st["square_avg"], st["acc_delta"]
        sq.mul_(rho).addcmul_(g, g, value=1 - rho)
        std = sq.add(eps).sqrt_()
        delta = acc.add(eps).sqrt_().clone()
        delta.div_(std).mul_(g)
        acc.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=-group["lr"])

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        st = self._init_state(p)
        _step(st)
        g = _decay(g, p, group)
        rho, eps = group["rho"], group["eps"]
        sq, acc = st["square_avg"]._data, st["acc_delta"]._data
        sq *= _c(rho, sq)
        _addcmul(sq, 1 - rho, g, g)
        std = np.sqrt(sq + _c(eps, sq))
        delta = np.sqrt(acc + _c(eps, acc)) / std * g
        acc *= _c(rho, acc)
        _addcmul(acc, 1 - rho, delta, delta)
        _fma_add(p._data, -group["lr"], delta)
        return 1


class Adamax(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: Any = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _betas(betas)
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    _records_steps = True

    def _init_state(self, p: Tensor) -> dict[str, Any]:
        st = self.state[p]
        if not st:
            st.update(step=_tensor(np.array(0.0, np.float32)), exp_avg=_zeros(p),
                      exp_inf=_zeros(p))
        return st

    def _tensor_update(self, p: Tensor, group: dict[str, Any]) -> None:
        from ... import torch as T
        assert p.grad is not None
        st = self._init_state(p)
        g = -p.grad if group["maximize"] else p.grad
        step = _step(st)
        if group["weight_decay"] != 0:
            g = g.add(p, alpha=group["weight_decay"])
        (b1, b2), m, u = group["betas"], st["exp_avg"], st["exp_inf"]
        m.lerp_(g, 1 - b1)
        # NB: the differentiable path takes the maximum as amax of a stack
        both = T.cat([u.mul_(b2).unsqueeze(0), g.abs().add_(group["eps"]).unsqueeze_(0)], 0)
        u.copy_(both.amax(0, keepdim=False))
        p.addcdiv_(m, u, value=-(group["lr"] / (1 - b1 ** step)))

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        st = self._init_state(p)
        g = _decay(g, p, group)
        step = _step(st)
        (b1, b2), m, u = group["betas"], st["exp_avg"]._data, st["exp_inf"]._data
        _lerp_fma(m, g, 1 - b1)
        u *= _c(b2, u)
        np.maximum(u, np.abs(g) + _c(group["eps"], g), out=u)
        clr = group["lr"] / (1 - b1 ** step)
        p._data += _c(-clr, m) * m / u
        return 1


class NAdam(Optimizer):
    _capturable_what = "params, mu_products and state_steps"

    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: Any = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _betas(betas)
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _check(momentum_decay >= 0.0, f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay,
                                  "momentum_decay": momentum_decay,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "maximize": maximize, "foreach": foreach,
                                  "capturable": capturable, "differentiable": differentiable})

    _records_steps = True

    def _init_state(self, p: Tensor) -> dict[str, Any]:
        st = self.state[p]
        if not st:
            st.update(step=_tensor(np.array(0.0, np.float32)),
                      mu_product=_tensor(np.array(1.0, np.float32)),
                      exp_avg=_zeros(p), exp_avg_sq=_zeros(p))
        return st

    def _tensor_update(self, p: Tensor, group: dict[str, Any]) -> None:
        assert p.grad is not None
        st = self._init_state(p)
        lr, (b1, b2), wd = group["lr"], group["betas"], group["weight_decay"]
        g = -p.grad if group["maximize"] else p.grad
        step = _step(st)
        bc2 = 1 - b2 ** step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                g = g.add(p, alpha=wd)
        md = group["momentum_decay"]
        mu = b1 * (1.0 - 0.5 * (0.96 ** (step * md)))
        mu_next = b1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * md)))
        mp = st["mu_product"]
        mp *= mu
        m, v = st["exp_avg"], st["exp_avg_sq"]
        m.lerp_(g, 1 - b1)
        v.mul_(b2).addcmul_(g, g, value=1 - b2)
        # NB: the differentiable path keeps mu_product a 0-d tensor in the arithmetic
        denom = v.div(bc2).sqrt().add(group["eps"])
        mp_next = mp * mu_next
        g = g * (-lr * (1.0 - mu) / (1.0 - mp))
        m = m * (-lr * mu_next / (1.0 - mp_next))
        p.addcdiv_(g, denom)
        p.addcdiv_(m, denom)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        st = self._init_state(p)
        lr, (b1, b2), wd = group["lr"], group["betas"], group["weight_decay"]
        g = -g if group["maximize"] else g
        step = _step(st)
        bc2 = 1 - b2 ** step
        bumps = 2
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p._data *= _c(1 - lr * wd, p._data)
                bumps = 3
            else:
                g = _fma(g, wd, p._data)
        md = group["momentum_decay"]
        mu = b1 * (1.0 - 0.5 * (0.96 ** (step * md)))
        mu_next = b1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * md)))
        mp_t = st["mu_product"]._data     # NB: a float32 scalar tensor, as PyTorch keeps it
        mp_t *= np.float32(mu)
        mp = float(mp_t)
        m, v = st["exp_avg"]._data, st["exp_avg_sq"]._data
        _lerp_fma(m, g, 1 - b1)
        v *= _c(b2, v)
        _addcmul(v, 1 - b2, g, g)
        denom = np.sqrt(v / _c(bc2, v))
        denom += _c(group["eps"], denom)
        p._data += _c(-lr * (1.0 - mu) / (1.0 - mp), g) * g / denom
        p._data += _c(-lr * mu_next / (1.0 - mp * mu_next), m) * m / denom
        return bumps


class RAdam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: Any = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _betas(betas)
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize,
                                  "foreach": foreach, "capturable": capturable,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "differentiable": differentiable})

    _records_steps = True

    def _init_state(self, p: Tensor) -> dict[str, Any]:
        st = self.state[p]
        if not st:
            st.update(step=_tensor(np.array(0.0, np.float32)), exp_avg=_zeros(p),
                      exp_avg_sq=_zeros(p))
        return st

    def _tensor_update(self, p: Tensor, group: dict[str, Any]) -> None:
        assert p.grad is not None
        st = self._init_state(p)
        lr, (b1, b2), wd = group["lr"], group["betas"], group["weight_decay"]
        g = -p.grad if group["maximize"] else p.grad
        step = _step(st)
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                g = g.add(p, alpha=wd)
        m, v = st["exp_avg"], st["exp_avg_sq"]
        m.lerp_(g, 1 - b1)
        v.mul_(b2).addcmul_(g, g, value=1 - b2)
        bc1, bc2 = 1 - b1 ** step, 1 - b2 ** step
        corrected = m / bc1
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * step * (b2 ** step) / bc2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bc2 ** 0.5) / v.sqrt().add(group["eps"])
            p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            p.add_(corrected * lr, alpha=-1.0)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        st = self._init_state(p)
        lr, (b1, b2), wd = group["lr"], group["betas"], group["weight_decay"]
        g = -g if group["maximize"] else g
        step = _step(st)
        bumps = 1
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p._data *= _c(1 - lr * wd, p._data)
                bumps = 2
            else:
                g = _fma(g, wd, p._data)
        m, v = st["exp_avg"]._data, st["exp_avg_sq"]._data
        _lerp_fma(m, g, 1 - b1)
        v *= _c(b2, v)
        _addcmul(v, 1 - b2, g, g)
        bc1, bc2 = 1 - b1 ** step, 1 - b2 ** step
        update = m / _c(bc1, m) * _c(lr, m)
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * step * (b2 ** step) / bc2
        if rho_t > 5.0:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            root = np.sqrt(v)
            root += _c(group["eps"], root)
            update = update * (_c(bc2 ** 0.5, root) / root) * _c(rect, m)
        p._data -= update
        return bumps
