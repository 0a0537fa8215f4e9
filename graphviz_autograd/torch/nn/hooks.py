"""``nn.Module`` hooks, as PyTorch 2.13 runs them.

Forward pre-hooks and forward hooks run around ``forward``. Full backward hooks (and backward
pre-hooks) go through ``BackwardHook``: the module's tensor inputs and outputs pass through the
custom Function ``BackwardHookFunction`` (identity, node ``BackwardHookFunctionBackward``), whose
node hooks capture the gradients of the outputs, then call the user's hook with those of the
inputs. Non-full backward hooks (``register_backward_hook``) hook the output's grad_fn.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from ...engine.function import Function
from ...engine.grad_mode import is_grad_enabled
from ...engine.tensor import Tensor

__all__ = ["RemovableHandle", "BackwardHookFunction", "BackwardHook", "HookMixin"]

Hook = Callable[..., Any]
MIXED = ("Cannot use both regular backward hooks and full backward hooks on a single Module. "
         "Please use only one of them.")


class RemovableHandle:
    """``torch.utils.hooks.RemovableHandle``: ``.remove()`` takes the hook out of its dicts."""

    next_id: int = 0

    def __init__(self, hooks_dict: OrderedDict[int, Any],
                 extra: Iterable[OrderedDict[int, Any]] = ()) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class BackwardHookFunction(Function):
    """The identity, as a custom Function: its node is where the module's hooks sit."""

    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *args: Any) -> Any:
        return args


class BackwardHook:
    """``torch.utils.hooks.BackwardHook``: pairs the gradients captured at the module's outputs
    with those reaching its inputs, and calls the user's full backward (pre-)hooks."""

    def __init__(self, module: Any, user_hooks: list[Hook], user_pre_hooks: list[Hook]) -> None:
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs: tuple[Any, ...] | None = None
        self.n_outputs = -1
        self.output_tensors_index: list[int] | None = None
        self.n_inputs = -1
        self.input_tensors_index: list[int] | None = None

    @staticmethod
    def _pack_with_none(indices: list[int], values: Iterable[Any], size: int) -> tuple[Any, ...]:
        res: list[Any] = [None] * size
        for idx, val in zip(indices, values, strict=True):
            res[idx] = val
        return tuple(res)

    def _set_user_hook(self, grad_fn: Any) -> None:
        def hook(grad_input: tuple[Any, ...], _: Any) -> Any:
            if self.grad_outputs is None:
                # the gradient reached the inputs without passing through the outputs
                return None
            assert self.input_tensors_index is not None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return tuple(res[i] for i in self.input_tensors_index)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn: Callable[[Any], None], args: tuple[Any, ...]
                          ) -> tuple[tuple[Any, ...], list[int] | None]:
        tensors_idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in tensors_idx]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors if t.grad_fn is not None
                    and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue with "
                               "a code sample to reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors, strict=True):
            arg_list[idx] = val
        return tuple(arg_list), tensors_idx

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, result: Any) -> Any:
        def fn(grad_fn: Any) -> None:
            def hook(_: Any, grad_output: tuple[Any, ...]) -> Any:
                assert self.output_tensors_index is not None
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                         self.n_outputs)
                for user_pre_hook in self.user_pre_hooks:
                    new = user_pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != len(self.grad_outputs):
                        raise RuntimeError(f"Backward pre hook returned an invalid number of "
                                           f"grad_output, got {len(new)}, but expected "
                                           f"{len(self.grad_outputs)}")
                    self.grad_outputs = new
                local = self.grad_outputs
                if self.input_tensors_index is None:
                    # no input requires grad: the user's hooks run here, with no grad_input
                    warnings.warn("Full backward hook is firing when gradients are computed with "
                                  "respect to module outputs since no inputs require gradients. "
                                  "See https://docs.pytorch.org/docs/main/generated/torch.nn."
                                  "Module.html#torch.nn.Module.register_full_backward_hook for "
                                  "more details.", UserWarning, stacklevel=5)
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple)
                                                    and all(el is None for el in res)):
                            raise RuntimeError("Backward hook for Modules where no input "
                                               "requires gradient should always return None or "
                                               "None for all gradients.")
                    self.grad_outputs = None
                if local is not None:
                    return tuple(local[i] for i in self.output_tensors_index)
                return None

            grad_fn.register_hook(hook)

        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]


class _WrappedHook:
    """A non-full backward hook on a grad_fn, called with its module first."""

    def __init__(self, hook: Hook, module: Any) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.module = weakref.ref(module)

    def __call__(self, *args: Any) -> Any:
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args)


_NON_FULL = (
    "Using a non-full backward hook when the forward contains multiple autograd Nodes is "
    "deprecated and will be removed in future versions. This hook will be missing some "
    "grad_input. Please use register_full_backward_hook to get the documented behavior.")


def _warn_non_full(inputs: tuple[Any, ...], result: Any, grad_fn: Any) -> None:
    """PyTorch's _maybe_warn_non_full_backward_hook."""
    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            warnings.warn("Using non-full backward hooks on a Module that does not return a single "
                          "Tensor or a tuple of Tensors is deprecated and will be removed in "
                          "future versions. This hook will be missing some of the grad_output. "
                          "Please use register_full_backward_hook to get the documented "
                          "behavior.", FutureWarning, stacklevel=4)
            return
    else:
        result = (result,)
    if not all(isinstance(i, Tensor) for i in inputs):
        warnings.warn("Using non-full backward hooks on a Module that does not take as input a "
                      "single Tensor or a tuple of Tensors is deprecated and will be removed in "
                      "future versions. This hook will be missing some of the grad_input. Please "
                      "use register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=4)
        return
    out_fns = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_fns or (len(out_fns) == 1 and grad_fn not in out_fns):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data "
                      "structure is deprecated and will be removed in future versions. This hook "
                      "will be missing some grad_output.", FutureWarning, stacklevel=4)
    elif len(out_fns) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different "
                      "autograd Nodes is deprecated and will be removed in future versions. This "
                      "hook will be missing some grad_output. Please use "
                      "register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=4)
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != {
            n for n, _ in grad_fn.next_functions}:
        warnings.warn(_NON_FULL, FutureWarning, stacklevel=4)


class HookMixin:
    """The hook registries of a Module and the call that runs them (``_call_impl``)."""

    _forward_hooks: OrderedDict[int, Hook]
    _forward_hooks_with_kwargs: OrderedDict[int, bool]
    _forward_hooks_always_called: OrderedDict[int, bool]
    _forward_pre_hooks: OrderedDict[int, Hook]
    _forward_pre_hooks_with_kwargs: OrderedDict[int, bool]
    _backward_hooks: OrderedDict[int, Hook]
    _backward_pre_hooks: OrderedDict[int, Hook]
    _is_full_backward_hook: bool | None

    def _init_hooks(self) -> None:
        for name in ("_forward_hooks", "_forward_hooks_with_kwargs",
                     "_forward_hooks_always_called", "_forward_pre_hooks",
                     "_forward_pre_hooks_with_kwargs", "_backward_hooks", "_backward_pre_hooks"):
            object.__setattr__(self, name, OrderedDict())
        object.__setattr__(self, "_is_full_backward_hook", None)

    def register_forward_pre_hook(self, hook: Hook, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        handle = RemovableHandle(self._forward_pre_hooks, [self._forward_pre_hooks_with_kwargs])
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Hook, *, prepend: bool = False,
                              with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        handle = RemovableHandle(self._forward_hooks, [self._forward_hooks_with_kwargs,
                                                       self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook: Hook,
                                        prepend: bool = False) -> RemovableHandle:
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Hook, prepend: bool = False) -> RemovableHandle:
        if self._is_full_backward_hook is False:
            raise RuntimeError(MIXED)
        object.__setattr__(self, "_is_full_backward_hook", True)
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Hook) -> RemovableHandle:
        if self._is_full_backward_hook is True:
            raise RuntimeError(MIXED)
        object.__setattr__(self, "_is_full_backward_hook", False)
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def forward(self, *args: Any, **kw: Any) -> Any:
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                or self._forward_pre_hooks):
            return self.forward(*args, **kwargs)
        called: set[int] = set()
        try:
            return self._call_with_hooks(args, kwargs, called)
        except Exception:
            for hook_id, hook in self._forward_hooks.items():
                if hook_id in self._forward_hooks_always_called and hook_id not in called:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            hook(self, args, kwargs, None)
                        else:
                            hook(self, args, None)
                    except Exception as e:
                        warnings.warn("module forward hook with ``always_call=True`` raised an "
                                      "exception that was silenced as another error was raised "
                                      f"in forward: {e}", stacklevel=2)
            raise

    def _call_with_hooks(self, args: tuple[Any, ...], kwargs: dict[str, Any],
                         called: set[int]) -> Any:
        full = self._is_full_backward_hook is True
        full_hooks = list(self._backward_hooks.values()) if full else []
        non_full = list(self._backward_hooks.values()) if \
            self._is_full_backward_hook is False else []
        pre_hooks = list(self._backward_pre_hooks.values())
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if isinstance(res, tuple) and len(res) == 2:
                        args, kwargs = res
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {res}.")
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        bw_hook = None
        if full_hooks or pre_hooks:
            bw_hook = BackwardHook(self, full_hooks, pre_hooks)
            args = bw_hook.setup_input_hook(args)
        result = self.forward(*args, **kwargs)
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_always_called:
                called.add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs:
                hook_result = hook(self, args, kwargs, result)
            else:
                hook_result = hook(self, args, result)
            if hook_result is not None:
                result = hook_result
        if bw_hook is not None:
            if not isinstance(result, Tensor | tuple):
                warnings.warn("For backward hooks to be called, module output should be a Tensor "
                              f"or a tuple of Tensors but received {type(result)}", stacklevel=3)
            result = bw_hook.setup_output_hook(result)
        if non_full:
            var = result
            while not isinstance(var, Tensor):
                var = next(v for v in var.values() if isinstance(v, Tensor)) \
                    if isinstance(var, dict) else var[0]
            grad_fn = var.grad_fn
            if grad_fn is not None:
                for hook in non_full:
                    grad_fn.register_hook(_WrappedHook(hook, self))
                _warn_non_full(args, result, grad_fn)
        return result
