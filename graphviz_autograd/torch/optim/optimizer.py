"""``torch.optim.optimizer``: the ``Optimizer`` base class (param groups, ``state_dict`` and
``load_state_dict`` in PyTorch's layout, ``zero_grad``, step / state-dict hooks, per-optimizer
and global) and the ``required`` marker for defaults a group must give."""

from __future__ import annotations

import functools
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any, ClassVar

import numpy as np

from ...engine import events
from ...engine.grad_mode import enable_grad, no_grad
from ...engine.pre_write import WATCH as _WATCH
from ...engine.pre_write import before_write
from ...engine.tensor import Tensor
from ..nn.hooks import HookTable, RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook",
           "required", "ParamsT", "StateDict"]

# PyTorch's aliases, for scripts' type hints
ParamsT = Iterable[Any]
StateDict = dict[str, Any]
Args = tuple[Any, ...]
Kwargs = dict[str, Any]


class _RequiredParameter:
    """The default of a hyperparameter that every param group must give."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_optimizer_pre_hooks = HookTable()
_global_optimizer_post_hooks = HookTable()


def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` before every optimizer's ``step``.

    >>> from graphviz_autograd import torch
    >>> handle = register_optimizer_step_pre_hook(lambda opt, a, k: print(type(opt).__name__))
    >>> torch.optim.SGD([torch.zeros(1, requires_grad=True)]).step()
    SGD
    >>> handle.remove()
    """
    return _global_optimizer_pre_hooks.add(hook)


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` after every optimizer's ``step``."""
    return _global_optimizer_post_hooks.add(hook)


def _typename(obj: Any) -> str:
    from ..environment import typename
    return typename(obj)


def _hooked_step(func: Callable[..., Any]) -> Callable[..., Any]:
    """``step`` wrapped so that the global and the optimizer's pre hooks (which may replace the
    arguments) run before it and the post hooks after, in PyTorch's order."""
    @functools.wraps(func)
    def step(*args: Any, **kwargs: Any) -> Any:
        self = args[0]
        for pre in chain(list(_global_optimizer_pre_hooks.values()),
                         list(self._optimizer_step_pre_hooks.values())):
            result = pre(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{func} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
        out = func(*args, **kwargs)
        self._optimizer_step_code()
        for post in chain(list(self._optimizer_step_post_hooks.values()),
                          list(_global_optimizer_post_hooks.values())):
            post(self, args, kwargs)
        return out
    step.hooked = True  # type: ignore[attr-defined]
    return step


class Optimizer:
    """The base of every optimizer. Element-wise optimizers implement ``_update``, which the
    base ``step`` runs once per parameter that has a gradient; others override ``step``."""

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks = HookTable()
        self._optimizer_step_post_hooks = HookTable()
        self._optimizer_state_dict_pre_hooks = HookTable()
        self._optimizer_state_dict_post_hooks = HookTable()
        self._optimizer_load_state_dict_pre_hooks = HookTable()
        self._optimizer_load_state_dict_post_hooks = HookTable()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {_typename(params)}")
        self.state: defaultdict[Any, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)
        self._warned_capturable_if_run_uncaptured = True

    # -- pickling (PyTorch keeps only these three) ------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, HookTable())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            # NB: PyTorch's groups each open with a newline: a blank line between two
            text += f"\nParameter Group {i}\n"
            text += "".join(f"    {k}: {group[k]}\n" for k in sorted(group) if k != "params")
        return text + ")"

    # -- step and its hooks ------------------------------------------------------------------
    def _patch_step_function(self) -> None:
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"
        cls = type(self)
        if not getattr(cls.step, "hooked", None):
            cls.step = _hooked_step(cls.step)  # type: ignore[method-assign]

    profile_hook_step = staticmethod(_hooked_step)

    def _optimizer_step_code(self) -> None:
        """Runs after each ``step`` (a profiler's hook point in PyTorch)."""

    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        return self._optimizer_step_pre_hooks.add(hook)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        return self._optimizer_step_post_hooks.add(hook)

    def register_state_dict_pre_hook(self, hook: Callable[..., Any],
                                     prepend: bool = False) -> RemovableHandle:
        return self._optimizer_state_dict_pre_hooks.add(hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable[..., Any],
                                      prepend: bool = False) -> RemovableHandle:
        return self._optimizer_state_dict_post_hooks.add(hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any],
                                          prepend: bool = False) -> RemovableHandle:
        return self._optimizer_load_state_dict_pre_hooks.add(hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any],
                                           prepend: bool = False) -> RemovableHandle:
        return self._optimizer_load_state_dict_post_hooks.add(hook, prepend)

    #: what PyTorch's capturable check names (a CPU step with capturable=True fails it)
    _capturable_what = "params and state_steps"
    #: whether ``_tensor_update`` takes a ``differentiable=True`` step with recorded ops
    _records_steps = False
    _capturable_devices: ClassVar[list[str]] = ["cuda", "xpu", "hpu", "privateuseone", "xla"]

    def _check_flags(self, group: dict[str, Any]) -> None:
        """PyTorch's failures on a CPU machine: a capturable step, and an in-place update of a
        leaf under ``differentiable=True`` (which steps with grad mode on)."""
        live = [p for p in group["params"] if p._grad is not None]
        if not live:
            return
        if group.get("capturable", False):
            raise AssertionError(f"If capturable=True, {self._capturable_what} must be on "
                                 f"supported devices: {self._capturable_devices}.")
        if group.get("differentiable", False) and not self._records_steps:
            from ...engine import messages
            if any(p.requires_grad and p.is_leaf for p in live):
                raise RuntimeError(messages.LEAF_INPLACE)
            if any(p.requires_grad for p in live):
                raise NotImplementedError("differentiable=True: the engine does not record an "
                                          "optimizer step in the graph")

    def step(self, closure: Any = None) -> Any:
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._check_flags(group)
                if self._records_steps and group.get("differentiable", False):
                    with enable_grad():       # NB: PyTorch steps with grad mode on
                        for p in group["params"]:
                            if p._grad is not None:
                                self._tensor_update(p, group)
                    continue
                for p in group["params"]:
                    if p._grad is not None:
                        if _WATCH:
                            before_write(p)
                        # NB: an overflow gives inf silently, as PyTorch's kernels
                        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                            bumps = self._update(p, p._grad._data, group)
                        p._vc.v += bumps
                        if events.listeners and p._vc.saves:
                            events.emit("tensor_modified", p, None)
        return loss

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> int:
        """Update ``p`` in place; return how many in-place ops PyTorch does on it (versions)."""
        raise NotImplementedError

    def _tensor_update(self, p: Tensor, group: dict[str, Any]) -> None:
        """A ``differentiable=True`` step of ``p``: PyTorch's ops, recorded in the graph."""
        raise NotImplementedError

    # -- groups and gradients ------------------------------------------------------------------
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        ps = param_group["params"]
        if isinstance(ps, Tensor):
            param_group["params"] = [ps]
        elif isinstance(ps, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(ps)
        tensors, names = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf
                                                                      or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          UserWarning, stacklevel=3)
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if any(id(p) in seen for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                    continue
                if g._grad_fn is not None:      # NB: a grad with a graph is detached first
                    g.detach_()
                else:
                    g.requires_grad_(False)
                if _WATCH:
                    before_write(g)
                g._data[...] = 0
                g._vc.v += 1

    # -- state dicts ---------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """PyTorch's layout: parameters numbered in group order (a group's numbers start after
        the previous group's); the state's tensors are the optimizer's own (not copies)."""
        for pre in list(self._optimizer_state_dict_pre_hooks.values()):
            pre(self)
        index: dict[int, int] = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {index[id(k)] if isinstance(k, Tensor) else k: v for k, v in self.state.items()}
        out: dict[str, Any] = {"state": state, "param_groups": groups}
        for post in list(self._optimizer_state_dict_post_hooks.values()):
            result = post(self, out)
            if result is not None:
                out = result
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state_dict = state_dict.copy()
        for pre in list(self._optimizer_load_state_dict_pre_hooks.values()):
            result = pre(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(s["params"] for s in saved),
                          chain.from_iterable(g["params"] for g in groups)))
        state: defaultdict[Any, Any] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                p = id_map[k]
                state[p] = _cast(p, v, k, state_dict["param_groups"])
            else:
                state[k] = v
        new_groups = []
        for g, s in zip(groups, saved):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
            new_groups.append(s)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for post in list(self._optimizer_load_state_dict_post_hooks.values()):
            post(self)


def _cast(p: Tensor, value: Any, param_id: Any, groups: list[dict[str, Any]],
          key: Any = None) -> Any:
    """A loaded state value for parameter ``p``: tensors take ``p``'s floating dtype (a
    ``step`` stays as it is unless the group is fused or capturable, then float32); containers
    are cast item by item."""
    if isinstance(value, Tensor):
        if key == "step":
            flags = next((g for g in groups if param_id in g["params"]), {})
            if flags.get("fused", False) or flags.get("capturable", False):
                from ...engine import dtypes as dt
                return value.to(dt.float32)
            return value
        return value.to(p.dtype) if p.dtype.is_floating_point else value
    if isinstance(value, dict):
        return {k: _cast(p, v, param_id, groups, k) for k, v in value.items()}
    if isinstance(value, Iterable):
        return type(value)(_cast(p, v, param_id, groups) for v in value)  # type: ignore[call-arg]
    return value
