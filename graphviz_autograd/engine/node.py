"""Graph nodes: ``grad_fn`` objects, their saved-tensor slots, and ``AccumulateGrad``.

A node holds strong links only downward (to its next nodes and to the inputs it saved); an
output saved by its own node is kept as a bare array, so a graph has no reference cycles and
dies as soon as its last tensor goes.
"""

from __future__ import annotations

import re
import sys
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import events
from . import messages as msg
from .saved_hooks import STACK as _HOOKS
from .tensor import Tensor, VersionCounter, new_uid

if TYPE_CHECKING:
    from .optable import Op

__all__ = ["Node", "AccumulateGrad", "SavedTensor", "DualSavedTensor", "HookedSavedTensor",
           "RemovableHandle", "node_class"]

# NB: how PyTorch names a producer in the in-place error: ExpBackward0 -> Exp, PowBackward1 -> Pow1
_SHORT = re.compile(r"Backward(?:0|(\d+))?$")
ACC_SEQ = sys.maxsize            # AccumulateGrad runs as soon as it is ready, as in PyTorch
_ATTR_DEFAULTS = {"alpha": 1, "beta": 1, "keepdim": False, "sparse_grad": False, "scale": 1,
                  "input_scale": 1}
# attributes PyTorch keeps as int64 and shows unsigned (a dim of -1 reads 18446744073709551615)
_INT64_ATTRS = frozenset({"dim", "dims", "dim0", "dim1", "index", "start", "end", "step",
                          "ignore_index", "shifts", "split_size", "padding_idx", "dim2", "offset",
                          "diagonal", "pad", "k", "dimension"})
_SIZE_ATTRS = ("self_sym_sizes", "self_sym_numel")
# a matrix product's inputs, named as PyTorch's _saved_<name>_sym_sizes / _sym_strides, by position
_MATRIX_INPUTS = {"mm": (("self", 0), ("mat2", 1)), "addmm": (("mat1", 1), ("mat2", 2))}
# the nodes PyTorch gives a _saved_self_sym_sizes (their input's shape)
_SIZED = frozenset({"sum", "sum_dim", "mean", "mean_dim", "max_dim", "min_dim", "median_dim",
                    "view",
                    "unsafe_view", "reshape_alias", "squeeze", "squeeze_dim", "squeeze_dims",
                    "squeeze_multi",
                    "expand", "select", "slice", "index", "repeat", "split", "split_with_sizes",
                    "unsafe_split", "index_select", "sort", "sort_stable", "topk", "kthvalue",
                    "mode", "diagonal", "diagonal_copy", "trace", "narrow_copy", "unfold",
                    "squeeze_inplace", "squeeze_inplace_dims"})


def storage_of(data: np.ndarray) -> np.ndarray:
    """The array that owns ``data``'s memory (PyTorch's storage): its base, through views and
    ``as_strided``'s wrappers."""
    while True:
        base = data.base
        if isinstance(base, np.ndarray):
            data = base
            continue
        inner = getattr(base, "base", None)
        if not isinstance(inner, np.ndarray):
            return data
        data = inner


class SavedTensor:
    """One saved value with its lifecycle: alive -> released (freed) or stale (modified).

    It is also what a node's ``_raw_saved_<name>`` gives (PyTorch's ``SavedTensor``): ``data``,
    ``unpack()``, ``unpack_hook`` and ``register_hooks(pack_hook, unpack_hook)``."""

    __slots__ = ("tensor", "array", "dtype", "vc", "version", "output_nr", "requires_grad",
                 "released", "shape", "nbytes", "storage", "view_grad_fn", "fw_grad",
                 "packed", "hook", "saved_fn", "acc", "had_fn", "__weakref__")

    # set only on a HookedSavedTensor: what its pack hook returned, its unpack hook, and what
    # PyTorch keeps of the tensor to give the unpacked one its history (the input's grad_fn, a
    # leaf's AccumulateGrad)
    packed: Any
    hook: Callable[[Any], Any] | None
    saved_fn: Node | None
    acc: AccumulateGrad | None

    # set only for the output of an in-place op on a view (unset elsewhere: read with getattr)
    view_grad_fn: weakref.ref[Node]
    # set only on a DualSavedTensor: the tangent its output had at the open dual level
    fw_grad: Tensor

    def __init__(self, t: Tensor, is_output: bool) -> None:
        if t._inference:
            raise RuntimeError(msg.INFERENCE_SAVED)
        self.vc: VersionCounter = t._vc
        self.version = t._vc.v
        t._vc.saves += 1
        self.released = False
        data = t._data
        self.shape, self.dtype = data.shape, t._dtype                    # kept when freed
        # NB: what saving it keeps alive is its whole storage (a view's base), as in PyTorch
        owner = data if data.base is None else storage_of(data)
        self.nbytes, self.storage = owner.nbytes, id(owner)
        if is_output and t._grad_fn is not None:
            # NB: an output saved by its own node keeps only the array: no cycle back.
            self.tensor: Tensor | None = None
            self.array: np.ndarray | None = data
            self.output_nr = t._output_nr
            self.requires_grad = True
        else:
            self.tensor = t
            self.array = None
            # NB: an input with a history when saved: detached in place since (``detach_``),
            # the node that runs reads it no more (PyTorch refuses it)
            self.had_fn = t._grad_fn is not None
        if _HOOKS and not t._wrapped:
            self._pack(t, *_HOOKS[-1])

    @classmethod
    def of_array(cls, t: Tensor, owner: Node) -> SavedTensor:
        """Keep ``t``'s memory and version counter, not ``t`` itself."""
        s = cls.__new__(cls)
        s.vc, s.version, s.released = t._vc, t._vc.v, False
        t._vc.saves += 1
        s.tensor, s.array, s.dtype = None, t._data, t._dtype
        data = t._data
        kept = data if data.base is None else storage_of(data)
        s.shape, s.nbytes, s.storage = data.shape, kept.nbytes, id(kept)
        s.output_nr, s.requires_grad = 0, True
        return s

    def stale(self) -> bool:
        return not self.released and self.vc.v != self.version

    def peek(self) -> np.ndarray | None:
        """The saved array, without checks (None once released)."""
        if self.released:
            return None
        return self.tensor._data if self.tensor is not None else self.array

    def unpack(self, owner: Node | None = None, as_tensor: bool = True) -> Any:
        """The saved value as its node's formula reads it (``owner``: that node); with no
        argument, PyTorch's ``SavedTensor.unpack()``."""
        if self.released:
            raise RuntimeError(msg.BACKWARD_TWICE)
        if self.vc.v != self.version:
            raise RuntimeError(self._version_message(owner))
        t = self.tensor
        if t is not None:
            return t if as_tensor else t._data
        if self.array is None:
            return None                         # a slot saved from None
        if not as_tensor:
            return self.array
        if owner is None:
            raise RuntimeError(msg.SAVED_DETACHED)
        out = Tensor._make(self.array, self.dtype)
        out._vc = self.vc
        out._grad_fn = owner
        out._output_nr = self.output_nr
        return out

    def _version_message(self, owner: Node | None) -> str:
        name: str | None
        if self.tensor is not None:
            t = self.tensor
            shape, legacy, nr = t._data.shape, t._dtype.legacy, t._output_nr
            if t._base is not None and t._view_version != t._vc.v:
                # NB: a view whose base changed: the AsStridedBackward0 its grad_fn would be,
                # named without making one (a node no user code can reach)
                from .autograd import regenerated_view_name
                name = regenerated_view_name(t)
                return msg.version_error(legacy, shape, name, nr, self.vc.v, self.version)
            producer = t.grad_fn
        else:
            assert self.array is not None
            producer, shape, legacy, nr = owner, self.array.shape, self.dtype.legacy, self.output_nr
            # NB: the output of an in-place op on a view: PyTorch names the view's grad_fn of
            # that moment while something still holds it, else the node that saved it
            ref = getattr(self, "view_grad_fn", None)
            held = ref() if ref is not None else None
            if held is not None:
                producer = held
        name = None if producer is None else _SHORT.sub(r"\1", producer.name())
        return msg.version_error(legacy, shape, name, nr, self.vc.v, self.version)

    def release(self) -> None:
        if not self.released:
            self.vc.saves -= 1
        self.tensor = None
        self.array = None
        self.released = True

    # -- PyTorch's SavedTensor (a node's _raw_saved_<name>) ---------------------------------------
    def __repr__(self) -> str:
        return f"<SavedTensor object at {id(self):#x}>"

    @property
    def data(self) -> Any:
        """The saved tensor (an output's without its history), what a pack hook returned, or
        None once freed."""
        if self.released:
            return None
        if self.tensor is not None:
            return self.tensor
        return None if self.array is None else Tensor._make(self.array, self.dtype)

    @property
    def unpack_hook(self) -> Callable[[Any], Any] | None:
        return None

    def register_hooks(self, pack_hook: Callable[[Any], Any],
                       unpack_hook: Callable[[Any], Any] | None = None) -> None:
        """From now on keep ``pack_hook(tensor)`` instead of the tensor, and unpack it with
        ``unpack_hook``."""
        for hook in (pack_hook, unpack_hook):
            if not callable(hook):
                shown = ", ".join(repr(h) for h in (pack_hook, unpack_hook) if h is not None)
                raise TypeError(
                    "register_hooks(): incompatible function arguments. The following argument "
                    "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                    "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\n"
                    f"Invoked with: {self!r}, {shown}")
        assert unpack_hook is not None
        if self.released:
            raise RuntimeError(msg.HOOKS_FREED)
        if type(self) is HookedSavedTensor:
            raise RuntimeError(msg.HOOKS_TWICE)
        t = self.tensor
        if t is None:
            if self.array is None:
                raise RuntimeError(msg.HOOKS_NONE)
            t = Tensor._make(self.array, self.dtype)     # an output: its data, detached
            t._vc = self.vc
        self._pack(t, pack_hook, unpack_hook)

    def _pack(self, t: Tensor, pack_hook: Callable[[Any], Any],
              unpack_hook: Callable[[Any], Any]) -> None:
        """Become a HookedSavedTensor keeping ``pack_hook(t)``, as PyTorch saves a tensor while
        saved-tensor hooks are set: ``t`` itself is not kept, nor checked for in-place changes
        when unpacked."""
        from .grad_mode import no_grad
        vc, version = self.vc, self.vc.v
        self.__class__ = HookedSavedTensor
        self.saved_fn = self.acc = None
        if self.tensor is not None:
            if t._grad_fn is not None:
                self.saved_fn, self.output_nr = t._grad_fn, t._output_nr
            else:
                self.requires_grad = t._rg
                if t._rg:
                    self.acc = get_accumulator(t)
        with no_grad():
            packed = pack_hook(t)
        if vc.v != version:
            raise RuntimeError(msg.PACK_INPLACE)
        vc.saves -= 1
        self.tensor = self.array = None
        self.packed, self.hook = packed, unpack_hook
        self.vc = own = VersionCounter()         # NB: never bumped: a packed value never goes stale
        own.saves = 1
        self.version = 0
        kept = packed if isinstance(packed, Tensor) else next(
            (p for p in packed if isinstance(p, Tensor)), None) \
            if isinstance(packed, tuple | list) else None
        if kept is not None:
            owner = storage_of(kept._data)
            self.nbytes, self.storage = owner.nbytes, id(owner)
        else:
            self.nbytes, self.storage = 0, id(self)


class HookedSavedTensor(SavedTensor):
    """A saved value kept as what a saved-tensor pack hook made of it. Unpacking calls the
    unpack hook and gives the result the saved tensor's history; a node's run unpacks each once
    (``unpack_for_run``) and its formula reads that (``tensor``, until ``forget``)."""

    __slots__ = ()

    def unpack(self, owner: Node | None = None, as_tensor: bool = True) -> Any:
        if self.released:
            raise RuntimeError(msg.BACKWARD_TWICE)
        t = self.tensor
        if t is None:
            t = self._unpacked(owner)
        return t if as_tensor else t._data

    def unpack_for_run(self, owner: Node) -> None:
        if self.released:
            raise RuntimeError(msg.BACKWARD_TWICE)
        self.tensor = self._unpacked(owner)

    def forget(self) -> None:
        self.tensor = None

    def _unpacked(self, owner: Node | None) -> Tensor:
        fn = self.saved_fn
        if fn is None and self.requires_grad and self.acc is None:
            # an output: its history is the node that saved it; the output of an in-place op on
            # a view: the view's grad_fn of that moment while something still holds it
            ref = getattr(self, "view_grad_fn", None)
            fn = ref() if ref is not None else None
        if fn is None and self.requires_grad and self.acc is None:
            if owner is None:
                raise RuntimeError(msg.SAVED_DETACHED)
            fn = owner
        assert self.hook is not None
        data = self.hook(self.packed)
        if not isinstance(data, Tensor):
            raise TypeError(msg.UNPACK_NOT_TENSOR.format(type(data).__name__))
        out = Tensor._make(data._data, data._dtype)
        out._vc = data._vc
        if fn is not None:
            out._grad_fn, out._output_nr = fn, self.output_nr
        elif self.requires_grad:
            out._rg = True
            if self.acc is not None:
                out._acc = weakref.ref(self.acc)
        return out

    @property
    def data(self) -> Any:
        return None if self.released else self.packed

    @property
    def unpack_hook(self) -> Callable[[Any], Any] | None:
        return None if self.released else self.hook

    def release(self) -> None:
        if not self.released:
            self.vc.saves -= 1
        self.tensor = self.array = None
        self.packed = self.hook = self.saved_fn = self.acc = None
        self.released = True


class DualSavedTensor(SavedTensor):
    """An output's slot given the output's tangent (``fw_grad``) while a dual level is open: its
    unpacked tensor carries that tangent, as PyTorch's saved outputs do.

    NB: a slot becomes one (``__class__`` set) only when forward AD gives its output a tangent,
    and turns back when the level closes: a slot made or read outside forward AD pays nothing."""

    __slots__ = ()

    def unpack(self, owner: Node | None = None, as_tensor: bool = True) -> Any:
        out = SavedTensor.unpack(self, owner, as_tensor)
        if as_tensor and self.tensor is None:
            from .forward_ad import set_tangent
            set_tangent(out, self.fw_grad)
        return out

    def release(self) -> None:
        SavedTensor.release(self)
        drop_tangent(self)


def drop_tangent(slot: SavedTensor) -> None:
    """``slot`` as a plain slot again, without a tangent (its dual level closed)."""
    if type(slot) is DualSavedTensor:
        del slot.fw_grad
        slot.__class__ = SavedTensor  # type: ignore[assignment]


class RemovableHandle:
    """What ``register_hook`` returns: ``.remove()`` takes the hook out again."""

    __slots__ = ("_ref", "_item")

    def __init__(self, hooks: list[Any], item: Any) -> None:
        self._ref = hooks
        self._item = item

    def remove(self) -> None:
        if self._item in self._ref:
            self._ref.remove(self._item)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class Node:
    """A backward function: ``name()``, ``next_functions``, ``_saved_<name>``, hooks."""

    # NB: hooks are rare: class defaults, overridden in the instance __dict__ when registered
    __slots__ = ("_next", "_seq", "_uid", "_saved", "_attrs", "_meta", "_in_meta", "_needs",
                 "__weakref__", "__dict__")

    op: Op | None = None
    _name = "Node"
    _hooked = False                       # any hook below registered
    _pre_hooks: list[Any] | None = None
    _post_hooks: list[Any] | None = None
    _tensor_pre_hooks: dict[int, list[Any]] | None = None
    _retain_hooks: dict[int, Any] | None = None

    def __init__(self) -> None:
        self._uid = self._seq = new_uid()
        self._next: tuple[tuple[Node | None, int], ...] = ()
        self._saved: dict[str, SavedTensor | list[SavedTensor] | None] | None = None
        self._attrs: dict[str, Any] | None = None
        self._meta: list[tuple[tuple[int, ...], Any]] = []     # per output: (shape, dtype)
        self._in_meta: tuple[tuple[tuple[int, ...], Any] | None, ...] = ()   # per input
        self._needs: tuple[bool, ...] | None = None

    # -- PyTorch's introspection -----------------------------------------------------------------
    def name(self) -> str:
        return self._name

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        return self._next

    @property
    def metadata(self) -> dict[Any, Any]:
        """A dict of the node's own (the same one on every read), for the user's annotations."""
        from .graph_edges import node_metadata
        return node_metadata(self)

    @property
    def _input_metadata(self) -> tuple[Any, ...]:
        from .graph_edges import input_metadata
        return input_metadata(self)

    @property
    def requires_grad(self) -> bool:
        return True

    def _sequence_nr(self) -> int:
        return self._seq

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    # -- hooks -------------------------------------------------------------------------------------
    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        if self._post_hooks is None:
            self._post_hooks = []
        self._hooked = True
        self._post_hooks.append(fn)
        return RemovableHandle(self._post_hooks, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._hooked = True
        self._pre_hooks.append(fn)
        return RemovableHandle(self._pre_hooks, fn)

    # -- saved slots -----------------------------------------------------------------------------
    def saved_slots(self) -> list[tuple[str, SavedTensor]]:
        """(name, slot) for every saved tensor, list members named ``name[i]``."""
        out: list[tuple[str, SavedTensor]] = []
        for key, slot in (self._saved or {}).items():
            if isinstance(slot, list):
                out += [(f"{key}[{i}]", s) for i, s in enumerate(slot) if s is not None]
            elif slot is not None:
                out.append((key, slot))
        return out

    def release_variables(self) -> None:
        saved = self._saved
        if saved:
            trace = events.trace
            if trace is not None:
                for key, slot in saved.items():
                    if isinstance(slot, list):
                        # NB: list members are slots of their own, named by position
                        for i, s in enumerate(slot):
                            if s is not None and not s.released:
                                trace.append((events.RELEASED, self._uid, f"{key}[{i}]",
                                              s.nbytes))
                                s.release()
                    elif slot is not None and not slot.released:
                        trace.append((events.RELEASED, self._uid, key, slot.nbytes))
                        slot.release()
            else:
                for slot in saved.values():
                    if slot is None:
                        continue
                    if type(slot) is list:
                        for s in slot:
                            if s is not None:
                                s.release()
                    elif not slot.released:  # type: ignore[union-attr]
                        if type(slot) is not SavedTensor:
                            slot.release()  # type: ignore[union-attr]
                            continue
                        slot.tensor = slot.array = None
                        slot.released = True
                        slot.vc.saves -= 1


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds the incoming gradient into ``.grad``."""

    __slots__ = ("variable",)
    _name = "torch::autograd::AccumulateGrad"

    def __init__(self, variable: Tensor) -> None:
        # NB: Node.__init__'s fields, set here without calling it: a leaf's accumulator is made
        # once per graph, on the hot path of every training step
        self._uid = new_uid()
        self._seq = ACC_SEQ
        self._next = ()
        self._saved = self._attrs = self._needs = None
        self._in_meta = ()
        self._meta = [(variable._data.shape, variable._dtype)]
        self.variable = variable


_CLASSES: dict[str, type[Node]] = {}


def node_class(op: Op) -> type[Node]:
    """One Node subclass per op entry, named as PyTorch names it (``MulBackward0``), with a
    ``_saved_<name>`` property per saved value and attribute.

    NB: properties, not a ``__getattr__``: on Python 3.11 a class with ``__getattr__`` gets no
    specialized attribute access, and the executor reads node fields on every step."""
    cls = _CLASSES.get(op.key)
    if cls is None:
        pyname = op.name.replace("torch::autograd::", "")
        ns: dict[str, Any] = {"__slots__": (), "op": op, "_name": op.name}
        for name, i in _MATRIX_INPUTS.get(op.key, ()):
            ns[f"_saved_{name}_sym_sizes"] = property(_matrix_size_getter(i))
            ns[f"_saved_{name}_sym_strides"] = property(_matrix_stride_getter(name, i))
        if op.key.split(":")[0] in _SIZED:      # NB: a view's copying twin (``view:copy``) too
            sizes = _SIZE_ATTRS if op.key.startswith("mean") else _SIZE_ATTRS[:1]
            ns.update({"_saved_" + key: property(_size_getter(key)) for key in sizes})
        if op.name == "torch::autograd::NotImplemented":
            # NB: PyTorch's NotImplemented node has no sequence number (the largest): a backward
            # runs it as soon as it is ready; the one written when it is made is ignored
            ns["_seq"] = property(lambda self: ACC_SEQ, lambda self, value: None)
        ns.update({"_saved_" + key: property(_attr_getter(key)) for key in op.attr_names})
        for key in op.saved_names():
            # NB: as in PyTorch, only saved tensors also have a _raw_saved_ form
            ns["_saved_" + key] = property(_saved_getter(key))
            ns["_raw_saved_" + key] = property(_raw_getter(key))
        cls = type(pyname, (Node,), ns)
        _CLASSES[op.key] = cls
    return cls


def _saved_getter(key: str) -> Callable[[Node], Any]:
    def get(node: Node) -> Any:
        slot = (node._saved or {}).get(key)
        if slot is None:
            return None
        if isinstance(slot, list):
            return [s.unpack(node, True) if s is not None else None for s in slot]
        return slot.unpack(node, True)
    return get


def _raw_getter(key: str) -> Callable[[Node], Any]:
    def get(node: Node) -> Any:
        return raw_saved((node._saved or {}).get(key))
    return get


def raw_saved(slot: Any) -> Any:
    """A saved value as ``_raw_saved_<name>`` gives it: its slot (a tuple of them for a list),
    and for None a slot saved from None, as PyTorch's."""
    if isinstance(slot, list):
        return tuple(raw_saved(s) for s in slot)
    if slot is not None:
        return slot
    empty = SavedTensor.__new__(SavedTensor)
    empty.tensor = empty.array = None
    empty.released = False
    empty.vc, empty.version = VersionCounter(), 0
    return empty


def _attr_getter(key: str) -> Callable[[Node], Any]:
    given, unsigned = "@" + key, key in _INT64_ATTRS

    def get(node: Node) -> Any:
        attrs = node._attrs or {}
        value = attrs[given] if given in attrs else attrs.get(key, _ATTR_DEFAULTS.get(key))
        return _unsigned(value) if unsigned else value
    return get


def _unsigned(value: Any) -> Any:
    """An int64 attribute as PyTorch shows it: a negative one as an unsigned 64-bit number."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value + (1 << 64) if value < 0 else value
    if isinstance(value, tuple):
        return tuple(_unsigned(v) for v in value)
    return value


def _matrix_size_getter(i: int) -> Callable[[Node], Any]:
    def get(node: Node) -> Any:
        meta = node._in_meta[i] if node._in_meta else None
        return tuple(meta[0]) if meta is not None else ()
    return get


def _matrix_stride_getter(name: str, i: int) -> Callable[[Node], Any]:
    from .optable import element_strides, strides_key
    key = strides_key(name)

    def get(node: Node) -> Any:
        return element_strides(node, key, i)
    return get


def _size_getter(key: str) -> Callable[[Node], Any]:
    def get(node: Node) -> Any:
        if not node._in_meta:
            raise AttributeError(f"'{type(node).__name__}' object has no attribute '_saved_{key}'")
        shape = node._in_meta[0][0] if node._in_meta[0] is not None else ()
        return tuple(shape) if key == "self_sym_sizes" else int(np.prod(shape))
    return get


def get_accumulator(t: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad; the leaf holds it weakly, as PyTorch does."""
    ref = t._acc
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._acc = weakref.ref(acc)
    return acc
