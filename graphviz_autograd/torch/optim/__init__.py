"""``torch.optim``: the ``Optimizer`` base (param groups, ``state_dict``), SGD, Adam and AdamW,
updating parameters in place (PyTorch's version bumps per step); the adaptive optimizers are in
``adaptive.py``, the learning-rate schedulers in ``lr_scheduler.py``."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ...engine.tensor import Tensor
from . import optimizer
from ._arith import _addcdiv, _addcmul, _fma, _fma_add, _lerp_fma
from .optimizer import Optimizer

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "RAdam", "Rprop", "ASGD", "Adafactor", "LBFGS", "Muon", "SparseAdam",
           "lr_scheduler", "optimizer", "swa_utils"]


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


def _check_fused(fused: Any, foreach: Any, differentiable: bool) -> None:
    """PyTorch's checks of ``fused`` (a CPU machine has the fused kernels; the steps here are
    the single-tensor ones, equal to them up to rounding)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _maximum(a: Tensor, b: Tensor) -> Tensor:
    from ...engine import functional as F
    return F.binary("maximum", a, b)


def _tensor(arr: np.ndarray) -> Tensor:
    from ...engine import dtypes as dt
    return Tensor._make(arr, dt.from_numpy(arr.dtype))


class SGD(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _check(not nesterov or (momentum > 0 and dampening == 0),
               "Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize, "foreach": foreach,
                                  "differentiable": differentiable, "fused": fused})
        _check_fused(fused, foreach, differentiable)

    _records_steps = True

    def _tensor_update(self, p: Tensor, group: dict[str, Any]) -> None:
        assert p.grad is not None
        g = -p.grad if group["maximize"] else p.grad
        wd, mom, lr = group["weight_decay"], group["momentum"], group["lr"]
        if wd != 0:
            if isinstance(wd, Tensor) and wd.requires_grad:
                g = g.addcmul_(p.clone(), wd)
            else:
                g = g.add(p, alpha=wd)
        if mom != 0:
            buf = self.state[p].get("momentum_buffer")
            if buf is None:
                buf = self.state[p]["momentum_buffer"] = g.detach().clone()
            else:
                buf.mul_(mom).add_(g, alpha=1 - group["dampening"])
            g = g.add(buf, alpha=mom) if group["nesterov"] else buf
        if isinstance(lr, Tensor) and lr.requires_grad:
            p.addcmul_(g, lr, value=-1)
        else:
            p.add_(g, alpha=-lr)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        dtype = p._data.dtype
        if group["maximize"]:
            g = -g
        if group["weight_decay"]:
            g = _fma(g, group["weight_decay"], p._data)
        mom = group["momentum"]
        if mom:
            st = self.state[p]
            buf_t = st.get("momentum_buffer")
            if buf_t is None:
                buf_t = st["momentum_buffer"] = _tensor(g.copy())
                buf = buf_t._data
            else:
                buf = buf_t._data
                buf *= np.asarray(mom, dtype)
                _fma_add(buf, 1 - group["dampening"], g)
            g = _fma(g, mom, buf) if group["nesterov"] else buf
        _fma_add(p._data, -group["lr"], g)
        return 1


class Adam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize, "foreach": foreach,
                                  "capturable": capturable, "differentiable": differentiable,
                                  "fused": fused,
                                  "decoupled_weight_decay": decoupled_weight_decay})
        _check_fused(fused, foreach, differentiable)

    _records_steps = True

    def _tensor_update(self, p: Tensor, group: dict[str, Any]) -> None:
        assert p.grad is not None
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        g = -p.grad if group["maximize"] else p.grad
        st = self._init_state(p, group)
        step = st["step"]
        step += 1
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            elif isinstance(wd, Tensor) and wd.requires_grad:
                g = g.addcmul_(p.clone(), wd)
            else:
                g = g.add(p, alpha=wd)
        m, v = st["exp_avg"], st["exp_avg_sq"]
        m.lerp_(g, 1 - b1)
        v.mul_(b2).addcmul_(g, g, value=1 - b2)
        # NB: the differentiable path keeps the bias corrections as 0-d tensors of the step
        step_size_neg = (lr / (1 - b1 ** step)).neg()
        bc2_sqrt = (1 - b2 ** step).sqrt()
        if group["amsgrad"]:
            mx = st["max_exp_avg_sq"]
            mx.copy_(_maximum(mx.clone(), v))
            v = mx
        denom = (v.sqrt() / (bc2_sqrt * step_size_neg)).add_(eps / step_size_neg)
        p.addcdiv_(m.clone(), denom)

    def _init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        st = self.state[p]
        if not st:
            st.update(step=_tensor(np.array(0.0, np.float32)),
                      exp_avg=_tensor(np.zeros_like(p._data)),
                      exp_avg_sq=_tensor(np.zeros_like(p._data)))
            if group["amsgrad"]:
                st["max_exp_avg_sq"] = _tensor(np.zeros_like(p._data))
        return st

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        dtype = p._data.dtype
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if group["maximize"]:
            g = -g
        bumps = 1
        if wd:
            if group["decoupled_weight_decay"]:
                p._data *= np.asarray(1 - lr * wd, dtype)
                bumps = 2                 # NB: PyTorch's AdamW: param.mul_ then addcdiv_
            else:
                g = _fma(g, wd, p._data)
        st = self._init_state(p, group)
        st["step"]._data += 1
        step = float(st["step"]._data)
        m, v = st["exp_avg"]._data, st["exp_avg_sq"]._data
        _lerp_fma(m, g, 1 - b1)
        v *= np.asarray(b2, dtype)
        _addcmul(v, 1 - b2, g, g)
        bc1 = 1 - b1 ** step
        bc2_sqrt = math.sqrt(1 - b2 ** step)
        if group["amsgrad"]:
            mx = st["max_exp_avg_sq"]._data
            np.maximum(mx, v, out=mx)
            v = mx
        denom = np.sqrt(v) / np.asarray(bc2_sqrt, dtype) + np.asarray(eps, dtype)
        _addcdiv(p._data, -(lr / bc1), m, denom)
        return bumps


class AdamW(Adam):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


from . import lr_scheduler, swa_utils  # noqa: E402 -- they build on the classes above
from .adaptive import Adadelta, Adagrad, Adamax, NAdam, RAdam, RMSprop  # noqa: E402
from .lbfgs import LBFGS  # noqa: E402
from .more import ASGD, Adafactor, Rprop, SparseAdam  # noqa: E402
from .muon import Muon  # noqa: E402
