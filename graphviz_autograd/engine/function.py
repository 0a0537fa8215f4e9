"""Custom autograd functions: ``torch.autograd.Function`` and the node its ``apply`` records.

As in PyTorch, the ``ctx`` a custom ``forward`` receives IS the node (``y.grad_fn``): an
instance of ``<ClassName>Backward``, a subclass of ``BackwardCFunction`` made for each Function
subclass. Its ``_next`` holds one edge per tensor argument; its saved tensors are ordinary
``SavedTensor`` slots (``_saved["saved_tensors"]``), freed by a backward like any node's, after
which ``ctx.saved_tensors`` raises PyTorch's backward-twice error. The executor runs the user's
``backward`` on tensors (``run_backward``), under grad mode only with ``create_graph=True``.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import events
from . import messages as msg
from .autograd import _move_retain, apply, edge
from .grad_mode import no_grad
from .grad_mode import state as grad_state
from .node import Node, SavedTensor, raw_saved
from .optable import TABLE
from .tensor import Tensor

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


class FunctionCtx:
    """What ``forward`` / ``setup_context`` call on ``ctx`` to describe the op."""

    to_save: tuple[Any, ...] | None = None
    dirty_tensors: tuple[Tensor, ...] | None = None
    non_differentiable: tuple[Tensor, ...] | None = None
    saved_for_forward: tuple[Any, ...] | None = None
    materialize_grads: bool = True

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        self.to_save = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        for t in tensors:
            if not (isinstance(t, Tensor) or t is None):
                raise AssertionError("save_for_forward expects all arguments to be tensors; you "
                                     "should save non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: Tensor) -> None:
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args: Tensor) -> None:
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node of a custom Function (and its ``ctx``)."""

    __slots__ = ()
    _forward_cls: type[Function]
    _freed = False
    needs_input_grad: tuple[bool, ...] = ()
    _is_variable_input: tuple[bool, ...] = ()
    _tensor_outputs: tuple[bool, ...] = ()

    def __repr__(self) -> str:
        # NB: PyTorch's custom-Function node classes live in torch.autograd.function
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    _in_jvp = False             # NB: the user's jvp reads what save_for_forward saved

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        if self._in_jvp:
            return tuple(self.saved_for_forward or ())
        if self._freed:
            raise RuntimeError(msg.BACKWARD_TWICE)
        slots = (self._saved or {}).get("saved_tensors")
        if not isinstance(slots, list):
            return ()
        return tuple(s.unpack(self, True) if s is not None else None for s in slots)

    saved_variables = saved_tensors

    @property
    def _raw_saved_tensors(self) -> tuple[Any, ...]:
        """What ``save_for_backward`` saved, as slots (PyTorch's ``SavedTensor`` objects)."""
        if self._freed:
            raise RuntimeError(msg.BACKWARD_TWICE)
        slots = (self._saved or {}).get("saved_tensors")
        return raw_saved(slots) if isinstance(slots, list) else ()

    def release_variables(self) -> None:
        super().release_variables()
        self._freed = True

    def apply(self, *grads: Any) -> Any:
        """The user's backward on these gradients (as ``grad_fn.apply`` in PyTorch)."""
        cls = self._forward_cls
        fn = cls.vjp if cls.vjp is not Function.vjp else cls.backward
        return fn(self, *grads)

    def run_backward(self, grads: Sequence[Any], as_tensors: bool) -> list[Any]:
        """One gradient per input edge, from the incoming ``grads`` (one per output; arrays, or
        tensors with ``create_graph``): PyTorch's PyNode::apply with its checks."""
        ins: list[Tensor | None] = []
        for g, meta, is_tensor in zip(grads, self._meta, self._tensor_outputs, strict=True):
            if g is None:
                ins.append(_zeros(meta) if is_tensor and self.materialize_grads else None)
            elif isinstance(g, Tensor):
                ins.append(g)
            else:
                arr = np.asarray(g)
                ins.append(Tensor._make(arr, meta[1]))
        res = self.apply(*ins)
        out = list(res) if isinstance(res, tuple) else [res]
        n = len(self._is_variable_input)
        if len(out) > n and all(o is None for o in out[n:]):
            del out[n:]
        if len(out) != n:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {n}, got {len(out)})")
        grads_out: list[Any] = []
        for i, (g, is_var) in enumerate(zip(out, self._is_variable_input, strict=True)):
            if g is not None and not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            if not is_var:
                if g is not None:
                    raise RuntimeError(f"function {self.name()} returned a gradient different "
                                       f"than None at position {i + 1}, but the corresponding "
                                       "forward input was not a Variable")
                continue
            grads_out.append(g if g is None or as_tensors else g._data)
        return grads_out


def _zeros(meta: tuple[tuple[int, ...], Any]) -> Tensor:
    return Tensor._make(np.zeros(meta[0], dtype=meta[1].np), meta[1])


class Function:
    """Base class of custom differentiable ops: subclass it with staticmethods ``forward`` (and
    optionally ``setup_context``) and ``backward``, then call ``YourFunction.apply(...)``.

    >>> from graphviz_autograd import torch
    >>> class Double(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         return x * 2
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         return g * 2
    >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> y = Double.apply(x)
    >>> y.grad_fn.name()
    'DoubleBackward'
    >>> y.sum().backward()
    >>> x.grad
    tensor([2., 2.])
    """

    _backward_cls: type[BackwardCFunction]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._backward_cls = _backward_class(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions "
                      "are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    @staticmethod
    def vjp(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        return _apply(cls, args, kwargs)


def _backward_class(cls: type[Function]) -> type[BackwardCFunction]:
    name = cls.__name__ + "Backward"
    return type(name, (BackwardCFunction,), {"__slots__": (), "_forward_cls": cls, "_name": name,
                                             "__module__": "torch.autograd.function"})


Function._backward_cls = _backward_class(Function)


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """PyTorch's decorator: the backward runs without recording a graph; under create_graph its
    results hang off an ``Error`` node, so differentiating them again raises."""
    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with no_grad():
            outputs = fn(ctx, *args)
        if not grad_state.enabled or not any(isinstance(a, Tensor) and a.requires_grad
                                             for a in args):
            return outputs
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        return _delayed_error(outs)
    return wrapper


class _Error(BackwardCFunction):
    """PyTorch's DelayedError node: differentiating through it raises."""

    __slots__ = ()
    _name = "torch::autograd::Error"

    def run_backward(self, grads: Sequence[Any], as_tensors: bool) -> list[Any]:
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")


def _delayed_error(outputs: tuple[Any, ...]) -> tuple[Any, ...]:
    fakes = [v.detach().requires_grad_() if isinstance(v, Tensor) else None for v in outputs]
    node = _Error()
    node._next = tuple(edge(v) if v is not None else (None, 0) for v in fakes)
    node._in_meta = tuple((v._data.shape, v._dtype) if v is not None else None for v in fakes)
    res: list[Any] = []
    for nr, v in enumerate(fakes):
        if v is None:
            res.append(None)
            continue
        t = Tensor._make(v._data, v._dtype)
        t._grad_fn, t._output_nr = node, nr
        res.append(t)
    node._meta = [(v._data.shape, v._dtype) if v is not None else ((), None) for v in fakes]
    return tuple(res)


# -- apply ---------------------------------------------------------------------------------------
def _apply(cls: type[Function], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    with_setup = cls.setup_context is not Function.setup_context
    if with_setup:
        bound = inspect.signature(cls.forward).bind(*args, **kwargs)
        bound.apply_defaults()
        args, kwargs = bound.args, bound.kwargs
    node = cls._backward_cls()
    tensors = [a for a in args if isinstance(a, Tensor)]
    node._is_variable_input = tuple(isinstance(a, Tensor) for a in args)
    node.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
    executable = grad_state.enabled and any(t.requires_grad for t in tensors)
    if executable:
        node._next = tuple(edge(t) for t in tensors)
        node._in_meta = tuple((t._data.shape, t._dtype) if e[0] is not None else None
                              for t, e in zip(tensors, node._next, strict=True))
    dual = grad_state.dual
    grad_state.dual = False         # NB: the forward sees no tangents (the jvp gives them)
    try:
        with no_grad():
            if with_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, outputs)
            else:
                outputs = cls.forward(node, *args, **kwargs)
    finally:
        grad_state.dual = dual
    is_tuple = isinstance(outputs, tuple)
    raw = list(outputs) if is_tuple else [outputs]
    wrapped = _wrap_outputs(node, raw, tensors, executable)
    result = tuple(wrapped) if is_tuple else wrapped[0]
    if dual:
        from .forward_ad import custom_function_jvp
        custom_function_jvp(cls, node, args, result)
    return result


def _wrap_outputs(node: BackwardCFunction, raw: list[Any], inputs: list[Tensor],
                  executable: bool) -> list[Any]:
    """PyTorch's _wrap_outputs: give each tensor output its history (or none)."""
    input_ids = {id(t) for t in inputs}
    dirty = {id(t) for t in node.dirty_tensors or ()}
    for t in node.dirty_tensors or ():
        t._vc.v += 1                    # NB: PyTorch's _mark_dirty bumps each version once more
        if events.listeners and t._vc.saves:
            events.emit("tensor_modified", t, None)
    nondiff = {id(t) for t in node.non_differentiable or ()}
    fn_name = type(node)._forward_cls.__name__
    out: list[Any] = []
    metas: list[tuple[tuple[int, ...], Any]] = []
    first: Tensor | None = None
    for nr, o in enumerate(raw):
        if not isinstance(o, Tensor):
            out.append(o)
            metas.append(((), None))
            continue
        is_input, is_modified = id(o) in input_ids, id(o) in dirty
        differentiable = executable and id(o) not in nondiff and o._dtype.is_floating_point
        if not differentiable:
            if not o.requires_grad:
                if is_input and not is_modified:
                    o = _view_as_self(o)
            elif is_input:
                o = o.detach()
            elif o._base is None:
                o.detach_()
        elif is_modified:
            if o._grad_fn is None and o._base is None and o._rg:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")
            if not is_input:
                warnings.warn("Only input Tensors should be given to ctx.mark_dirty(). If a "
                              "Tensor is not an input, there is no need to pass it to "
                              "mark_dirty().", UserWarning, stacklevel=4)
            if o._base is not None:
                raise NotImplementedError("mark_dirty on a view is not supported by this engine")
            old_fn, old_nr = o._grad_fn, o._output_nr
            o._grad_fn, o._output_nr = node, nr
            _move_retain(o, old_fn, old_nr)
        else:
            if is_input:
                o = _view_as_self(o)
            if o._base is not None:
                # NB: PyTorch forbids modifying such a view in place (CreationMeta::
                # IN_CUSTOM_FUNCTION): the view+inplace logic would bypass the custom backward
                o._creation = ("custom", nr, fn_name)
            o._grad_fn, o._output_nr = node, nr
        if first is None and o._grad_fn is node:
            first = o
        out.append(o)
        metas.append((o._data.shape, o._dtype))
    node._meta = metas
    node._tensor_outputs = tuple(isinstance(o, Tensor) for o in raw)
    _save(node)          # NB: before the node is reported, so its record lists what it saved
    if first is not None and events.listeners:
        events.emit("node_created", node, first)
    return out


def _view_as_self(t: Tensor) -> Tensor:
    """``t.view_as(t)`` made in no_grad mode, as PyTorch returns an input given back as is."""
    with no_grad():
        return apply(TABLE["alias"], (t,))


def _save(node: BackwardCFunction) -> None:
    """Pack ``ctx.to_save`` into saved slots once the outputs have their history; an output
    keeps only its array (no cycle through its own node), as SavedTensor does for outputs."""
    to_save = node.to_save
    if to_save is None:
        return
    slots: list[SavedTensor | None] = []
    for i, t in enumerate(to_save):
        if t is None:
            slots.append(None)
        elif not isinstance(t, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is of "
                            f"type {type(t).__name__}")
        else:
            slots.append(SavedTensor(t, t._grad_fn is node))
    node._saved = {"saved_tensors": slots}  # type: ignore[dict-item]
    node.to_save = None
