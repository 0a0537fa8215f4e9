"""The one table of differentiable ops, and the two backends their backward formulas run on.

Each entry (an ``Op``) names, in PyTorch's words, the node it creates (``MulBackward0``), its
differentiable inputs in ``next_functions`` order, its numpy forward, its backward formula, and
the values it saves with the condition under which it saves them. The entries live in the family
modules (``ops_pointwise``, ``ops_reduce``, ``ops_linalg``, ``ops_shape``, ``ops_loss``) and are
gathered here into ``TABLE``.

A backward formula is ``backward(ctx, grad, D) -> tuple`` (one gradient or None per input). ``D``
is a backend: ``NP`` computes on bare numpy arrays (the fast path), ``TT`` calls the table's own
ops on tensors, so with ``create_graph=True`` the backward builds a differentiable graph.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .node import SavedTensor

__all__ = ["Op", "Save", "TABLE", "NP", "TT", "Ctx", "register", "no_double_backward"]

Backward = Callable[..., tuple[Any, ...]]


@dataclass(frozen=True)
class Save:
    """A saved value: ``name`` as PyTorch names it (``self``, ``other``, ``result``, ``mat2``).

    ``needed_by`` lists the input positions whose gradient formula uses it: the value is saved
    only when one of those inputs requires grad (empty: always saved). The value is the input of
    that name, the op's output for ``result`` (``result1``: its second output), else a tensor
    argument or a forward extra.
    """

    name: str
    needed_by: tuple[int, ...] = ()
    output: int = -1            # the op's output of that index, under a name of its own


@dataclass(eq=False)
class Op:
    key: str                                # the table key, e.g. "mul"
    name: str                               # the node's name(), e.g. "MulBackward0"
    inputs: tuple[str, ...]                 # differentiable inputs, next_functions order
    forward: Callable[..., Any]             # numpy: (*arrays, **attrs) -> array [, extras]
    backward: Backward
    saves: tuple[Save, ...] = ()
    attr_names: tuple[str, ...] = ()        # non-tensor values shown as _saved_<name>
    view: bool = False                      # the output is a view of input 0
    extras: tuple[str, ...] = ()            # extra arrays the forward returns, saved as tensors
    list_saves: tuple[str, ...] = ()        # saved values that are lists of tensors
    n_outputs: int = 1
    attrs_only: bool = False                # the keywords describe the node, forward takes none
    # the backward gives each input's gradient as an array of that input's shape and dtype when
    # the output is not 0-d (no attribute can change a dtype): the executor skips validating it
    exact: bool = False
    # dims count a 0-d input as one dim of size 1 (dim 0 or -1), as in PyTorch: the forward runs
    # on shape (1,) and gives 0-d results
    lift_0d: bool = False
    # the output takes this input's dtype, not the inputs' promoted one (PyTorch's loss
    # ``*_backward`` kernels give self's dtype); -1: promoted
    dtype_of: int = -1
    # the outputs' names where PyTorch's node saves them by name (``output``, ``logsumexp``),
    # not as ``result``/``result1``
    result_names: tuple[str, ...] = ()
    # the floating outputs PyTorch gives no history (a mean and inverse deviation, a permutation,
    # a log-sum-exp): as such a saved-tensor pack hook sees them (integer outputs: always)
    nondiff: tuple[int, ...] = ()
    # filled by register(): the node and context classes, and the save plan as
    # (name, needed_by, kind, index)
    cls: Any = field(default=None, repr=False)
    ctx: Any = field(default=None, repr=False)
    plan: tuple[tuple[str, tuple[int, ...], int, int], ...] = field(default=(), repr=False)
    tensor_kw: tuple[str, ...] = field(default=(), repr=False)
    # the order PyTorch unpacks saved values in when a node runs: inputs, then outputs, each
    # by name (its generated code sorts them so)
    unpack_order: tuple[str, ...] = field(default=(), repr=False)
    # the save plan in that order: PyTorch's saved-tensor pack hooks see the values so
    pack_plan: tuple[tuple[str, tuple[int, ...], int, int], ...] = field(default=(), repr=False)

    def saved_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.saves)


def no_double_backward(node_name: str, hint: str = "") -> NotImplementedError:
    """The error of a backward formula written on arrays only, when ``create_graph`` asks for
    its graph (PyTorch makes a double-backward node there)."""
    return NotImplementedError(f"create_graph through {node_name} is not supported by "
                               "graphviz_autograd (PyTorch would make its double-backward node "
                               f"there){hint}")


INPUT, RESULT, EXTRA, KWARG = range(4)      # where a saved value comes from


TABLE: dict[str, Op] = {}


def register(*ops: Op) -> None:
    from .node import node_class
    for op in ops:
        if op.key in TABLE:
            raise ValueError(f"op {op.key!r} registered twice")
        plan = []
        for s in op.saves:
            if s.name in op.inputs:
                plan.append((s.name, s.needed_by, INPUT, op.inputs.index(s.name)))
            elif s.output >= 0:
                plan.append((s.name, s.needed_by, RESULT, s.output))
            elif s.name in op.extras:
                plan.append((s.name, s.needed_by, EXTRA, 0))
            elif s.name in op.result_names:
                plan.append((s.name, s.needed_by, RESULT, op.result_names.index(s.name)))
            elif s.name == "result":
                plan.append((s.name, s.needed_by, RESULT, 0))
            elif s.name[:6] == "result" and s.name[6:].isdigit():
                # NB: one output of several (``result1``: the second)
                plan.append((s.name, s.needed_by, RESULT, int(s.name[6:])))
            else:
                plan.append((s.name, s.needed_by, KWARG, 0))
        op.plan = tuple(plan)
        op.unpack_order = (tuple(sorted(p[0] for p in plan if p[2] in (INPUT, KWARG)))
                           + tuple(sorted(p[0] for p in plan if p[2] in (RESULT, EXTRA))))
        op.pack_plan = tuple(sorted(plan, key=lambda p: op.unpack_order.index(p[0])))
        if op.lift_0d:
            op.forward = _lifted(op.forward)
        op.tensor_kw = tuple(p[0] for p in plan if p[2] == KWARG)
        op.cls = node_class(op)
        op.ctx = ctx_class(op)
        TABLE[op.key] = op


def _lifted(fwd: Callable[..., Any]) -> Callable[..., Any]:
    """``fwd`` on a 0-d input: numpy has no axis 0 there, PyTorch gives it one of size 1."""
    def lifted(x: Any, *args: Any, **kw: Any) -> Any:
        if x.ndim:
            return fwd(x, *args, **kw)
        out = fwd(x.reshape(1), *[_one(a) for a in args], **{k: _one(v) for k, v in kw.items()})
        if isinstance(out, tuple):
            value, extras = out
            return np.reshape(value, ()), {k: np.reshape(v, ()) for k, v in extras.items()}
        return np.reshape(out, ())
    return lifted


def _one(a: Any) -> Any:
    return a.reshape(1) if isinstance(a, np.ndarray) and a.ndim == 0 else a


def strides_key(name: str) -> str:
    return f"@{name}_sym_strides"


def keep_strides(out: Any, a: Any, b: Any, keys: tuple[str, str]) -> Any:
    """The strides of a matrix product's inputs ``a``, ``b`` (numpy's, in bytes), on its node
    under ``keys`` (``strides_key``): PyTorch keeps them (``_saved_self_sym_strides``, in
    elements) and differentiates a column-major input transposed. ``element_strides`` reads
    them."""
    fn = out._grad_fn
    if fn is not None:
        # NB: on every linear layer's node: two reads, no test
        attrs = fn._attrs
        if attrs is None:
            fn._attrs = {keys[0]: a._data.strides, keys[1]: b._data.strides}
        else:
            attrs[keys[0]] = a._data.strides
            attrs[keys[1]] = b._data.strides
    return out


def element_strides(node: Any, key: str, i: int) -> tuple[int, ...]:
    """Input ``i``'s strides in elements, as PyTorch shows them: () where it needs no grad."""
    strides = (node._attrs or {}).get(key)
    meta = node._in_meta[i] if node._in_meta else None
    if strides is None or meta is None or node._next[i][0] is None:
        return ()
    size = np.dtype(meta[1].np).itemsize
    return tuple(s // size for s in strides)


def keep_given(out: Any, attrs: dict[str, Any], D: Backend) -> Any:
    """On the node a formula made (``create_graph``), the arguments as the forward's caller gave
    them (its ``@``-keys: a negative dim, an open slice end), which PyTorch's node shows."""
    fn = getattr(out, "_grad_fn", None) if D.tensor_mode else None
    if fn is not None and fn._attrs is not None:
        fn._attrs.update((k, v) for k, v in attrs.items() if k[0] == "@")
    return out


class Ctx:
    """What a backward formula sees: saved values by name (``ctx.self``), ``ctx.attrs``,
    ``ctx.need(i)`` and ``ctx.shape(i)`` (the shape of input i).

    Each op has its own subclass (``Op.ctx``) with one property per saved value. NB: not a
    ``__getattr__``: on Python 3.11 that would leave every attribute read on a context
    unspecialized, and formulas read them on every node."""

    __slots__ = ("node", "tensor_mode", "needs")

    def __init__(self, node: Any, tensor_mode: bool, needs: tuple[bool, ...]) -> None:
        self.node = node
        self.tensor_mode = tensor_mode
        self.needs = needs

    @property
    def attrs(self) -> dict[str, Any]:
        return self.node._attrs or {}

    def need(self, i: int) -> bool:
        return self.needs[i]

    def shape(self, i: int = 0) -> tuple[int, ...]:
        meta = self.node._in_meta[i]
        return meta[0] if meta is not None else ()

    def dtype(self, i: int = 0) -> Any:
        meta = self.node._in_meta[i]
        return meta[1] if meta is not None else None


def _ctx_getter(name: str) -> Callable[[Ctx], Any]:
    def get(ctx: Ctx) -> Any:
        saved = ctx.node._saved
        slot = saved.get(name) if saved else None
        if slot is None:
            raise AttributeError(f"{ctx.node.name()} did not save {name!r}")
        if not ctx.tensor_mode and type(slot) is SavedTensor and not slot.released \
                and slot.vc.v == slot.version:
            t = slot.tensor        # the fast path of unpack(): an array, checks passed
            return t._data if t is not None else slot.array
        if isinstance(slot, list):
            return [s.unpack(ctx.node, ctx.tensor_mode) if s is not None else None for s in slot]
        return slot.unpack(ctx.node, ctx.tensor_mode)
    return get


def ctx_class(op: Op) -> type[Ctx]:
    """The context class of ``op``'s backward formula: a property per saved value."""
    ns: dict[str, Any] = {"__slots__": ()}
    ns.update({name: property(_ctx_getter(name)) for name in op.saved_names()})
    return type(f"{op.name}Ctx", (Ctx,), ns)


class Backend:
    """A namespace of functions: one per table op plus a few non-differentiable helpers."""

    def __init__(self, tensor_mode: bool) -> None:
        self.tensor_mode = tensor_mode

    if TYPE_CHECKING:
        def __getattr__(self, name: str) -> Any: ...


NP = Backend(False)
TT = Backend(True)


def _compare(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A comparison of two saved values as PyTorch promotes them: a 0-d operand of the same
    kind as a dimensioned one takes its dtype (a float32 tensor against a 0-d float64 compares
    in float32, where numpy would widen both)."""
    def compare(x: Any, y: Any) -> Any:
        if type(x) is np.ndarray and type(y) is np.ndarray and x.dtype != y.dtype \
                and (x.ndim == 0) != (y.ndim == 0) and x.dtype.kind == y.dtype.kind:
            if x.ndim == 0:
                x = x.astype(y.dtype)
            else:
                y = y.astype(x.dtype)
        return fn(x, y)
    return compare


def _np_helpers() -> dict[str, Callable[..., Any]]:
    """Non-differentiable helpers, on arrays."""
    return {
        "zeros": lambda shape, like: np.zeros(shape, dtype=like.dtype),
        "zeros_like": lambda x: np.zeros_like(x),
        "ones_like": lambda x: np.ones_like(x),
        "gt": _compare(np.greater), "ge": _compare(np.greater_equal), "lt": _compare(np.less),
        "le": _compare(np.less_equal), "eq": _compare(np.equal), "ne": _compare(np.not_equal),
        "isnan": np.isnan,
        "logical_and": np.logical_and, "logical_or": np.logical_or,
        "sign_nograd": np.sign,
        "numel": lambda x: int(np.size(x)),
        "nondiff": lambda x: x,         # NB: in TT, a new tensor of no graph (a detached output)
    }


def build_backends(call: Callable[..., Any], wrap: Callable[[Any], Any],
                   unwrap: Callable[[Any], Any]) -> None:
    """Fill NP and TT once the table and the tensor layer exist (called by ``autograd``)."""
    for key, op in TABLE.items():
        setattr(NP, key, _np_forward(op))
        setattr(TT, key, _tt_call(call, op))
    for key, fn in _np_helpers().items():
        setattr(NP, key, fn)
        setattr(TT, key, _tt_nograd(fn, wrap, unwrap))


def _np_forward(op: Op) -> Callable[..., Any]:
    fwd = op.forward
    if not op.extras:
        return fwd

    def first(*args: Any, **kw: Any) -> Any:
        return fwd(*args, **kw)[0]
    return first


def _tt_call(call: Callable[..., Any], op: Op) -> Callable[..., Any]:
    def f(*args: Any, **kw: Any) -> Any:
        return call(op, args, kw)
    return f


def _tt_nograd(fn: Callable[..., Any], wrap: Callable[[Any], Any],
               unwrap: Callable[[Any], Any]) -> Callable[..., Any]:
    def f(*args: Any, **kw: Any) -> Any:
        out = fn(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kw.items()})
        return wrap(out) if isinstance(out, np.ndarray | np.generic) else out
    return f
