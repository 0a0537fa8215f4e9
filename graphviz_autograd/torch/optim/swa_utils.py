"""``torch.optim.swa_utils``: stochastic weight averaging and exponential moving averages of a
model's weights (``AveragedModel`` and its averaging functions), the ``SWALR`` schedule, and
``update_bn`` to recompute BatchNorm statistics for averaged weights."""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any

from ...engine.grad_mode import no_grad
from ...engine.tensor import Tensor
from ..nn.modules import Module, _BatchNorm
from ..nn.norm import _InstanceNorm
from .lr_scheduler import LRScheduler, _per_group
from .optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _floating(t: Tensor) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[..., None]:
    """An in-place update of lists of averaged tensors: ``ema <- lerp(ema, current, 1-decay)``."""
    _check_decay(decay)

    def ema_update(ema_param_list: Any, current_param_list: Any, _: Any) -> None:
        with no_grad():
            if _floating(ema_param_list[0]):
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.lerp_(p_model, 1 - decay)
            else:
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn() -> Callable[..., None]:
    """An in-place update of lists of averaged tensors to the running mean of the models."""
    def swa_update(averaged_param_list: Any, current_param_list: Any,
                   num_averaged: Any) -> None:
        with no_grad():
            pairs = list(zip(averaged_param_list, current_param_list))
            if _floating(averaged_param_list[0]):
                weight = 1 / (num_averaged + 1)
                weight = float(weight) if isinstance(weight, Tensor) else weight
                for p_avg, p_model in pairs:
                    p_avg.lerp_(p_model, weight)
            else:
                diffs = [p_model - p_avg for p_avg, p_model in pairs]
                for (p_avg, _), diff in zip(pairs, diffs):
                    if isinstance(num_averaged, Tensor):
                        p_avg.addcdiv_(diff, num_averaged + 1)
                    else:
                        p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable[..., Tensor]:
    """``decay * ema + (1 - decay) * current``, a new tensor.

    >>> from graphviz_autograd import torch
    >>> get_ema_avg_fn(0.5)(torch.tensor([0.0]), torch.tensor([1.0]), 1)
    tensor([0.5000])
    """
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn() -> Callable[..., Tensor]:
    """The running mean after one more model: ``avg + (current - avg) / (n + 1)``.

    >>> from graphviz_autograd import torch
    >>> get_swa_avg_fn()(torch.tensor([1.0]), torch.tensor([4.0]), 2)
    tensor([2.])
    """
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and, with ``use_buffers``, buffers) are a running
    average of the models passed to ``update_parameters``; ``n_averaged`` counts them.

    >>> from graphviz_autograd import torch
    >>> model = torch.nn.Linear(1, 1, bias=False)
    >>> swa = AveragedModel(model)
    >>> for w in (1.0, 2.0, 6.0):
    ...     _ = model.weight.data.fill_(w)
    ...     swa.update_parameters(model)
    >>> swa.module.weight.item(), swa.n_averaged.item()
    (3.0, 3)
    """

    def __init__(self, model: Module, device: Any = None,
                 avg_fn: Callable[..., Tensor] | None = None,
                 multi_avg_fn: Callable[..., None] | None = None,
                 use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        from ...engine.dtypes import int64
        from .. import tensor
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        if self.use_buffers:
            mine: Iterable[Tensor] = itertools.chain(self.module.parameters(),
                                                     self.module.buffers())
            theirs: Iterable[Tensor] = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        n = self.n_averaged
        first = bool(n == 0)
        averaged: list[Tensor] = []
        current: list[Tensor] = []
        for p_avg, p_model in zip(mine, theirs):
            averaged.append(p_avg.detach())
            current.append(p_model.detach())
            if first:
                p_avg.detach().copy_(p_model.detach())
        if n > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                # NB: grouped by dtype, as PyTorch groups the tensors it averages together
                groups: dict[Any, tuple[list[Tensor], list[Tensor]]] = {}
                for a, c in zip(averaged, current):
                    mine_g, theirs_g = groups.setdefault(a.dtype, ([], []))
                    mine_g.append(a)
                    theirs_g.append(c)
                for mine_g, theirs_g in groups.values():
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(mine_g, theirs_g, n)
                    else:       # NB: a CPU has no foreach kernels: one tensor at a time
                        avg = get_swa_avg_fn()
                        for a, c in zip(mine_g, theirs_g):
                            a.copy_(avg(a, c, n))
            else:
                for a, c in zip(averaged, current):
                    a.detach().copy_(self.avg_fn(a.detach(), c, n))
        if not self.use_buffers:
            # the buffers (BatchNorm statistics) follow the latest model
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach())
        with no_grad():
            self.n_averaged += 1


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """One pass over ``loader`` in training mode with every BatchNorm's statistics reset and
    accumulated as a plain average (momentum None); the model's mode is restored."""
    with no_grad():
        momenta: dict[Module, Any] = {}
        for module in model.modules():
            # NB: PyTorch's instance norms are no _BatchNorm (the engine's derive from it)
            if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's rate to its ``swa_lr`` over ``anneal_epochs`` (cosine or linear),
    then holds it."""

    def __init__(self, optimizer: Optimizer, swa_lr: Any, anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1) -> None:
        for lr, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError("anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[Any]:
        self._warn_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        # NB: the rate before annealing is recovered from the current one, so the schedule
        # composes with changes other schedulers made in between
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha)
                    for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha)
                for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
