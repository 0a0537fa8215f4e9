"""``torch.optim``: SGD and Adam, updating parameters in place (one version bump per step)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ...engine import events
from ...engine.grad_mode import no_grad
from ...engine.tensor import Tensor

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]


class Optimizer:
    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: dict[Tensor, dict[str, Any]] = {}
        self.param_groups: list[dict[str, Any]] = []
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, group: dict[str, Any]) -> None:
        group = dict(group)
        ps = group["params"]
        group["params"] = [ps] if isinstance(ps, Tensor) else list(ps)
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    p._grad._data[...] = 0
                    p._grad._vc.v += 1

    def step(self, closure: Any = None) -> Any:
        loss = None
        if closure is not None:
            from ...engine.grad_mode import enable_grad
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p._grad is not None:
                        self._update(p, p._grad._data, group)
                        p._vc.v += 1
                        if events.listeners:
                            events.emit("tensor_modified", p, None)
        return loss

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> None:
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        return {"state": self.state, "param_groups": self.param_groups}


class SGD(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 maximize: bool = False, **_: Any) -> None:
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize})

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> None:
        dtype = p._data.dtype
        if group["maximize"]:
            g = -g
        if group["weight_decay"]:
            g = g + np.asarray(group["weight_decay"], dtype) * p._data
        mom = group["momentum"]
        if mom:
            st = self.state.setdefault(p, {})
            buf = st.get("momentum_buffer")
            if buf is None:
                buf = st["momentum_buffer"] = g.copy()
            else:
                buf *= np.asarray(mom, dtype)
                buf += np.asarray(1 - group["dampening"], dtype) * g
            g = g + np.asarray(mom, dtype) * buf if group["nesterov"] else buf
        p._data -= np.asarray(group["lr"], dtype) * g


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, maximize: bool = False,
                 **_: Any) -> None:
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize})

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> None:
        dtype = p._data.dtype
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if group["maximize"]:
            g = -g
        if wd:
            if self._decoupled:
                p._data *= np.asarray(1 - lr * wd, dtype)
            else:
                g = g + np.asarray(wd, dtype) * p._data
        st = self.state.setdefault(p, {})
        if not st:
            st.update(step=0, exp_avg=np.zeros_like(p._data), exp_avg_sq=np.zeros_like(p._data))
            if group["amsgrad"]:
                st["max_exp_avg_sq"] = np.zeros_like(p._data)
        st["step"] += 1
        step = st["step"]
        m, v = st["exp_avg"], st["exp_avg_sq"]
        m += (g - m) * np.asarray(1 - b1, dtype)
        v *= np.asarray(b2, dtype)
        v += np.asarray(1 - b2, dtype) * g * g
        bc1 = 1 - b1 ** step
        bc2_sqrt = math.sqrt(1 - b2 ** step)
        if group["amsgrad"]:
            np.maximum(st["max_exp_avg_sq"], v, out=st["max_exp_avg_sq"])
            v = st["max_exp_avg_sq"]
        denom = np.sqrt(v) / np.asarray(bc2_sqrt, dtype) + np.asarray(eps, dtype)
        p._data -= np.asarray(lr / bc1, dtype) * (m / denom)


class AdamW(Adam):
    _decoupled = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, **kw: Any) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, **kw)
