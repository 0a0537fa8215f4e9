"""``torch.utils.checkpoint``: ``checkpoint`` and ``checkpoint_sequential``. The reentrant form
is PyTorch's ``CheckpointFunction`` (one ``CheckpointFunctionBackward`` node; the function runs
without a graph, then again in the backward from the saved inputs and the forward's generator
state); the non-reentrant form builds the function's own graph, as PyTorch's does, with its
saved values packed as empty holders and recomputed in the backward (``checkpoint_frames``)."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ...engine import random as _random
from ...engine.executor import backward as _backward
from ...engine.executor import can_checkpoint as _can_checkpoint
from ...engine.function import Function
from ...engine.grad_mode import enable_grad, no_grad
from ...engine.tensor import Tensor
from .checkpoint_frames import (
    CheckpointError,
    GraphExecGroup,
    run_checkpointed,
    set_checkpoint_debug_enabled,
    set_checkpoint_early_stop,
)

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointFunction", "detach_variable",
           "check_backward_validity", "noop_context_fn", "CheckpointError", "GraphExecGroup",
           "set_checkpoint_early_stop", "set_checkpoint_debug_enabled"]


def detach_variable(inputs: Any) -> tuple[Any, ...]:
    if isinstance(inputs, tuple):
        out = []
        for inp in inputs:
            if not isinstance(inp, Tensor):
                out.append(inp)
                continue
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            out.append(x)
        return tuple(out)
    raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                       f"{type(inputs).__name__}")


def check_backward_validity(inputs: Iterable[Any]) -> None:
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


def noop_context_fn() -> tuple[Any, Any]:
    return contextlib.nullcontext(), contextlib.nullcontext()


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx: Any, run_function: Callable[..., Any], preserve_rng_state: bool,
                *args: Any) -> Any:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = _random.get_rng_state()
        ctx.inputs = []
        ctx.tensor_indices = []
        tensors = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensors)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple[Any, ...]:
        if not _can_checkpoint():
            raise RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible "
                               "with .grad() or passing an `inputs` parameter to .backward(). "
                               "To resolve this error, you can either set use_reentrant=False, "
                               "or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, idx in enumerate(ctx.tensor_indices):
            inputs[idx] = ctx.saved_tensors[i]
        # NB: the recomputation draws from the forward's generator state, and leaves the
        # generator as it found it (PyTorch's fork_rng)
        state = _random.get_rng_state() if ctx.preserve_rng_state else None
        try:
            if state is not None:
                _random.set_rng_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        finally:
            if state is not None:
                _random.set_rng_state(state)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        with_grad = [(o, g) for o, g in zip(outputs, grads, strict=False)
                     if isinstance(o, Tensor) and o.requires_grad]
        if not with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _backward([o for o, _ in with_grad], [g for _, g in with_grad])
        return (None, None, *(x.grad if isinstance(x, Tensor) else None for x in detached))


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable[[], tuple[Any, Any]] = noop_context_fn,
               determinism_check: str = "default", debug: bool = False,
               early_stop: bool = True, **kwargs: Any) -> Any:
    """``function(*args)`` whose activations PyTorch would recompute in the backward.

    >>> from graphviz_autograd import torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> checkpoint(lambda t: (t * 3).sum(), x, use_reentrant=False).backward()
    >>> x.grad
    tensor([3., 3.])
    """
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly. Starting in PyTorch 2.9, calling checkpoint without "
                      "use_reentrant will raise an exception. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return run_checkpointed(function, preserve, context_fn, determinism_check, debug,
                            early_stop, *args, **kwargs)


def checkpoint_sequential(functions: Any, segments: int, input: Any,
                          use_reentrant: bool | None = None, **kwargs: Any) -> Any:
    """The modules (or functions) in ``segments`` checkpointed runs, the last run plain."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
                      "parameter should be passed explicitly. In version 2.9 we will raise an "
                      "exception if use_reentrant is not passed. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run(start: int, end: int, fns: Any) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = fns[j](x)
            return x
        return forward

    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1, functions)(input)
