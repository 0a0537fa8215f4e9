"""Make ``import torch`` (and ``torch.nn``, ``torch.optim``, ...) resolve to the native engine
while a script runs, and undo it afterwards."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

__all__ = ["native_torch", "ALIASES"]

# the modules a PyTorch script imports, and the engine modules that stand in for them
ALIASES = {
    "torch": "graphviz_autograd.torch",
    "torch.nn": "graphviz_autograd.torch.nn",
    "torch.nn.functional": "graphviz_autograd.torch.nn.functional",
    "torch.nn.init": "graphviz_autograd.torch.nn.init",
    "torch.nn.utils": "graphviz_autograd.torch.nn.utils",
    "torch.nn.utils.rnn": "graphviz_autograd.torch.nn.utils_rnn",
    "torch.nn.utils.parametrize": "graphviz_autograd.torch.nn.utils_parametrize",
    "torch.nn.utils.parametrizations": "graphviz_autograd.torch.nn.utils_parametrizations",
    "torch.nn.utils.prune": "graphviz_autograd.torch.nn.utils_prune",
    "torch.nn.utils.stateless": "graphviz_autograd.torch.nn.utils_stateless",
    "torch.nn.utils.clip_grad": "graphviz_autograd.torch.nn.utils_clip_grad",
    "torch.nn.utils.convert_parameters": "graphviz_autograd.torch.nn.utils_convert_parameters",
    "torch.nn.utils.fusion": "graphviz_autograd.torch.nn.utils_fusion",
    "torch.nn.utils.init": "graphviz_autograd.torch.nn.utils_init",
    "torch.nn.utils.memory_format": "graphviz_autograd.torch.nn.utils_memory_format",
    "torch.random": "graphviz_autograd.torch.random",
    "torch.accelerator": "graphviz_autograd.torch.accelerator",
    "torch.compiler": "graphviz_autograd.torch.compiler",
    "torch.signal": "graphviz_autograd.torch.signal",
    "torch.overrides": "graphviz_autograd.torch.overrides",
    "torch.signal.windows": "graphviz_autograd.torch.signal.windows",
    "torch.distributed": "graphviz_autograd.torch.distributed",
    "torch.version": "graphviz_autograd.torch.version",
    "torch.torch_version": "graphviz_autograd.torch.torch_version",
    "torch.profiler": "graphviz_autograd.torch.profiler",
    "torch.autograd.profiler": "graphviz_autograd.torch.autograd.profiler",
    "torch.nn.parameter": "graphviz_autograd.torch.nn.parameter",
    "torch.nn.modules": "graphviz_autograd.torch.nn.modules",
    "torch.optim": "graphviz_autograd.torch.optim",
    "torch.optim.lr_scheduler": "graphviz_autograd.torch.optim.lr_scheduler",
    "torch.optim.optimizer": "graphviz_autograd.torch.optim.optimizer",
    "torch.optim.swa_utils": "graphviz_autograd.torch.optim.swa_utils",
    # NB: PyTorch's one module per optimizer (``from torch.optim.adam import Adam``)
    **{f"torch.optim.{m}": "graphviz_autograd.torch.optim"
       for m in ("sgd", "adam", "adamw", "rmsprop", "adagrad", "adadelta", "adamax", "nadam",
                 "radam", "rprop", "asgd", "lbfgs", "sparse_adam")},
    "torch.special": "graphviz_autograd.torch.special",
    "torch.autograd": "graphviz_autograd.torch.autograd",
    "torch.linalg": "graphviz_autograd.torch.linalg",
    "torch.func": "graphviz_autograd.torch.func",
    "torch.autograd.graph": "graphviz_autograd.torch.autograd.graph",
    "torch.autograd.gradcheck": "graphviz_autograd.torch.autograd.gradcheck",
    "torch.autograd.grad_mode": "graphviz_autograd.torch.autograd.grad_mode",
    "torch.autograd.anomaly_mode": "graphviz_autograd.torch.autograd.anomaly_mode",
    "torch.autograd.variable": "graphviz_autograd.torch.autograd.variable",
    "torch.autograd.function": "graphviz_autograd.torch.autograd.function",
    "torch.autograd.functional": "graphviz_autograd.torch.autograd.functional",
    "torch.autograd.forward_ad": "graphviz_autograd.torch.autograd.forward_ad",
    "torch.utils": "graphviz_autograd.torch.utils",
    "torch.utils.data": "graphviz_autograd.torch.utils.data",
    "torch.utils.checkpoint": "graphviz_autograd.torch.utils.checkpoint",
    "torch.utils.data.dataset": "graphviz_autograd.torch.utils.data.dataset",
    "torch.utils.data.sampler": "graphviz_autograd.torch.utils.data.sampler",
    "torch.utils.data.dataloader": "graphviz_autograd.torch.utils.data.dataloader",
    "torch.utils.data.distributed": "graphviz_autograd.torch.utils.data.distributed",
    "torch.testing": "graphviz_autograd.torch.testing",
    "torch.amp": "graphviz_autograd.torch.amp",
    "torch.backends": "graphviz_autograd.torch.backends",
    "torch.backends.cudnn": "graphviz_autograd.torch.backends.cudnn",
    "torch.backends.cuda": "graphviz_autograd.torch.backends.cuda",
    "torch.backends.mps": "graphviz_autograd.torch.backends.mps",
    **{f"torch.distributions{m}": f"graphviz_autograd.torch.distributions{m}"
       for m in ("", ".constraints", ".kl", ".utils", ".distribution", ".normal", ".categorical",
                 ".bernoulli", ".uniform", ".independent", ".multivariate_normal",
                 ".one_hot_categorical", ".laplace", ".exponential", ".transforms",
                 ".transformed_distribution", ".mixture_same_family", ".gamma", ".poisson",
                 ".multinomial", ".cauchy", ".relaxed", ".constraint_registry",
                 ".lowrank_multivariate_normal", ".continuous_bernoulli", ".more_transformed",
                 ".von_mises", ".generalized_pareto", ".lkj_cholesky",
                 ".transforms_structured", ".kl_cross")},
}


@contextmanager
def native_torch() -> Iterator[ModuleType]:
    """Within the block, ``import torch`` gives ``graphviz_autograd.torch``.

    >>> with native_torch():
    ...     import torch
    ...     torch.__name__
    'graphviz_autograd.torch'
    """
    saved = {name: sys.modules.get(name) for name in ALIASES}
    for name, target in ALIASES.items():
        sys.modules[name] = importlib.import_module(target)
    try:
        yield sys.modules["torch"]
    finally:
        for name, mod in saved.items():
            if mod is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = mod
