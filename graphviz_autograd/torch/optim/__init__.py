"""``torch.optim``: the ``Optimizer`` base (param groups, ``state_dict``), SGD, Adam and AdamW,
updating parameters in place (PyTorch's version bumps per step); the adaptive optimizers are in
``adaptive.py``, the learning-rate schedulers in ``lr_scheduler.py``."""

from __future__ import annotations

import copy
import math
import warnings
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import numpy as np

from ...engine import events
from ...engine.grad_mode import no_grad
from ...engine.tensor import Tensor

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "RAdam", "lr_scheduler"]


class Optimizer:
    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {params._dtype.legacy}")
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
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__module__.replace('builtins', '')}"
                                f"{'.' if type(p).__module__ != 'builtins' else ''}"
                                f"{type(p).__qualname__}")
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        if len({id(p) for p in group["params"]}) != len(group["params"]):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          UserWarning, stacklevel=3)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
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
                    g = p._grad
                    if g._grad_fn is not None:      # NB: a grad with a graph is detached first
                        g.detach_()
                    g._data[...] = 0
                    g._vc.v += 1

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
                        bumps = self._update(p, p._grad._data, group)
                        p._vc.v += bumps
                        if events.listeners and p._vc.saves:
                            events.emit("tensor_modified", p, None)
        return loss

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        """Update ``p`` in place; return how many in-place ops PyTorch does on it (versions)."""
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """PyTorch's layout: parameters numbered in group order; the state's tensors are the
        optimizer's own (not copies)."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: s for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state_dict = copy.deepcopy(state_dict)
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        by_id = {i: p for g, s in zip(self.param_groups, saved)
                 for i, p in zip(s["params"], g["params"])}
        self.state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k not in by_id:
                continue
            p = by_id[k]
            self.state[p] = {
                name: (value.to(p.dtype) if isinstance(value, Tensor) and name != "step"
                       and p.dtype.is_floating_point else value)
                for name, value in v.items()}
        self.param_groups = [{**s, "params": g["params"]}
                             for g, s in zip(self.param_groups, saved)]

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            # NB: PyTorch's groups each open with a newline: a blank line between two
            text += f"\nParameter Group {i}\n"
            text += "".join(f"    {k}: {group[k]}\n" for k in sorted(group) if k != "params")
        return text + ")"


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


def _tensor(arr: np.ndarray) -> Tensor:
    from ...engine import dtypes as dt
    return Tensor._make(arr, dt.from_numpy(arr.dtype))


class SGD(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False,
                 maximize: bool = False, **_: Any) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        _check(not nesterov or (momentum > 0 and dampening == 0),
               "Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize, "foreach": None,
                                  "differentiable": False, "fused": None})

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        dtype = p._data.dtype
        if group["maximize"]:
            g = -g
        if group["weight_decay"]:
            g = g + np.asarray(group["weight_decay"], dtype) * p._data
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
                buf += np.asarray(1 - group["dampening"], dtype) * g
            g = g + np.asarray(mom, dtype) * buf if group["nesterov"] else buf
        p._data -= np.asarray(group["lr"], dtype) * g
        return 1


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, maximize: bool = False,
                 **_: Any) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize, "foreach": None, "capturable": False,
                                  "differentiable": False, "fused": None,
                                  "decoupled_weight_decay": self._decoupled})

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        dtype = p._data.dtype
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if group["maximize"]:
            g = -g
        bumps = 1
        if wd:
            if self._decoupled:
                p._data *= np.asarray(1 - lr * wd, dtype)
                bumps = 2                 # NB: PyTorch's AdamW: param.mul_ then addcdiv_
            else:
                g = g + np.asarray(wd, dtype) * p._data
        st = self.state[p]
        if not st:
            st.update(step=_tensor(np.array(0.0, np.float32)),
                      exp_avg=_tensor(np.zeros_like(p._data)),
                      exp_avg_sq=_tensor(np.zeros_like(p._data)))
            if group["amsgrad"]:
                st["max_exp_avg_sq"] = _tensor(np.zeros_like(p._data))
        st["step"]._data += 1
        step = float(st["step"]._data)
        m, v = st["exp_avg"]._data, st["exp_avg_sq"]._data
        m += (g - m) * np.asarray(1 - b1, dtype)
        v *= np.asarray(b2, dtype)
        v += np.asarray(1 - b2, dtype) * g * g
        bc1 = 1 - b1 ** step
        bc2_sqrt = math.sqrt(1 - b2 ** step)
        if group["amsgrad"]:
            mx = st["max_exp_avg_sq"]._data
            np.maximum(mx, v, out=mx)
            v = mx
        denom = np.sqrt(v) / np.asarray(bc2_sqrt, dtype) + np.asarray(eps, dtype)
        p._data -= np.asarray(lr / bc1, dtype) * (m / denom)
        return bumps


class AdamW(Adam):
    _decoupled = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, **kw: Any) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, **kw)


from . import lr_scheduler  # noqa: E402 -- they build on the classes above
from .adaptive import Adadelta, Adagrad, Adamax, NAdam, RAdam, RMSprop  # noqa: E402
