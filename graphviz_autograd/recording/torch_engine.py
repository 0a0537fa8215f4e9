"""The recorder's view of real PyTorch: the same events and graph facts as the native engine's,
read through PyTorch's public mechanisms, without changing what the program does.

- Ops are seen as they run through a ``TorchFunctionMode``: a new ``grad_fn`` is a node created
  (with the user's line), an in-place op a tensor modified. ``Tensor.backward``,
  ``torch.autograd.backward`` and ``torch.autograd.grad`` pass through it too: a backward starts.
- During a backward, node pre- and post-hooks (removed when it ends) say which node runs, with
  which gradient, and when its saved tensors are released: the post-hook appends these to the
  recorder's trace, as the native engine does (``open_trace``).
- A node's saved tensors are its ``_raw_saved_*`` slots. Their state is read by unpacking
  ``_saved_*``: PyTorch raises when a buffer was freed or modified in place, and those errors are
  caught here, never let out.
- Ids: a node's is kept in its ``metadata`` dict (PyTorch keeps it for the node's life; nodes
  cannot be weakly referenced); a tensor's in a table of weak references. Nothing here keeps a
  tensor or a node alive, and no ``retain_graph`` is added.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import os
import re
import sys
import warnings
import weakref
from collections.abc import Callable, Container
from dataclasses import dataclass
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from ..engine.events import ACCUMULATED, RAN, RELEASED
from . import frames
from .capture import ALIVE, ALL_ALIVE, ALL_FREED, FREED, static_of

__all__ = ["TorchEngine"]

# NB: a node's id is kept in its metadata under a key of the engine's own: a graph an earlier
# recording saw is, to a later one, a graph made before it began (their ids would collide)
_KEY = "graphviz_autograd.uid"
_ENGINES = itertools.count(1)
_FREED = "Trying to backward through the graph a second time"
_MODIFIED = re.compile(r"is at version (\d+); expected version (\d+) instead")
_COPY_SLICES = "torch::autograd::CopySlices"
_VIEW_BASE_MODIFIED = "is a view and its base or another view of its base has been modified"
_BACKWARDS = {torch.Tensor.backward: "backward", torch.autograd.backward: "backward",
              torch.autograd.grad: "grad"}
# NB: ``Function.apply`` runs a custom Function's forward (with grad mode off), out of any torch
# function mode's sight: its node is found through the ops of that forward, which are seen
_APPLY = torch.autograd.Function.apply.__func__.__code__    # type: ignore[attr-defined]
_CUSTOM = torch.autograd.function.BackwardCFunction
_MAX_APPLIES = 1024       # custom Functions' lines kept until their nodes are found


@dataclass
class _Info:
    """What the recorder is told of a backward about to run."""

    roots: list[Any]
    api: str
    retain_graph: bool
    create_graph: bool
    inputs: list[Any] | None = None


class _Counter:
    """Stands for a storage's version counter (tensors sharing a storage share one). ``owner``:
    the user's tensor whose memory it is (a view's base), weakly: once that is gone, a tensor
    met at the same address has new memory, whose edits are not the old one's (a tensor met
    only by unpacking a saved value is one PyTorch made just then: not an owner)."""

    __slots__ = ("key", "owner", "__weakref__")

    def __init__(self, key: int, owner: torch.Tensor | None) -> None:
        self.key = key
        self.owner = weakref.ref(owner) if owner is not None else None

    def stale(self) -> bool:
        return self.owner is not None and self.owner() is None


class _Mode(TorchFunctionMode):
    def __init__(self, engine: TorchEngine) -> None:
        super().__init__()
        self.engine = engine

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None
                           ) -> Any:
        kwargs = kwargs or {}
        api = _BACKWARDS.get(func)
        if api is not None:
            return self.engine._backward(func, api, args, kwargs)
        out = func(*args, **kwargs)
        if self.engine._listeners:
            if torch.is_grad_enabled():
                self.engine._after_op(func, args, kwargs, out)
            else:
                if _INPLACE.get(func) != -1 or "out" in kwargs:
                    # NB: no node is made, but an in-place op may change a saved tensor
                    # (``optimizer.step()``, ``with torch.no_grad(): p -= lr * p.grad``)
                    self.engine._after_no_grad_op(func, args, kwargs)
                self.engine._in_custom_forward(sys._getframe(1))
        return out


# NB: per function: does it change its first argument in place: always (its name says so,
# ``add_``; or ``x[i] = v``), never (-1), or when its ``inplace`` argument, at this position,
# is true (``F.relu(x, inplace=True)``: PyTorch's modes see the functional call only). An
# embedding with ``max_norm`` renormalizes its weight in place, with grad mode off (_RENORM)
_RENORM = -2
_INPLACE: dict[Any, bool | int] = {torch.nn.functional.embedding: _RENORM,
                                   torch.nn.functional.embedding_bag: _RENORM}


def _renormed(func: Any, args: Any, kwargs: Any) -> Any:
    """The weight an embedding with ``max_norm`` renormalized, or None."""
    try:
        bound = inspect.signature(func).bind(*args, **kwargs).arguments
    except TypeError:
        return None
    return bound.get("weight") if bound.get("max_norm") is not None else None


def _is_inplace(func: Any) -> bool | int:
    name = getattr(func, "__name__", "")
    if (name.endswith("_") and not name.endswith("__")) or name == "__setitem__":
        return True
    try:
        params = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return -1
    return params.index("inplace") if "inplace" in params else -1


def _inplace_target(func: Any, args: Any, kwargs: Any) -> Any:
    """What an op changes in place (its first argument, or ``out=``), or None."""
    inplace = _INPLACE.get(func)
    if inplace is None:
        inplace = _INPLACE[func] = _is_inplace(func)
    if inplace == _RENORM:
        return None
    if inplace is not True and inplace >= 0:
        inplace = bool(kwargs["inplace"] if "inplace" in kwargs else
                       len(args) > inplace and args[inplace])
    if inplace is True or "out" in kwargs:
        if "out" in kwargs:
            return kwargs["out"]
        if args:
            return args[0]
        # NB: a Python function passing itself on by keyword (``nn.init.constant_(tensor=t,
        # val=v)``): its first argument
        return next(iter(kwargs.values()), None)
    return None


def _storage_key(t: torch.Tensor) -> int:
    try:
        return int(t.untyped_storage().data_ptr())
    except RuntimeError:
        return id(t)


class TorchEngine:
    """The recorder's adapter for real ``torch`` tensors (``record(engine=TorchEngine())``)."""

    name = "torch"
    tensor_types = (torch.Tensor,)

    def __init__(self, uid_base: int = 0) -> None:
        self._listeners: list[Callable[..., None]] = []
        self._mode: _Mode | None = None
        self._next_uid = uid_base
        self._key = f"{_KEY}.{next(_ENGINES)}"
        self._tensor_uids: dict[int, tuple[weakref.ref[torch.Tensor], int]] = {}
        self._counters: dict[int, _Counter] = {}
        self._slots: dict[int, tuple[tuple[str, tuple[int, ...], Any, int, bool], ...]] = {}
        # per node, per saved slot: its storage's counter and its version when read
        self._slot_counters: dict[int, tuple[tuple[_Counter | None, int], ...]] = {}
        # per storage: how many saved values read alive and not released by a backward use it
        # (an in-place op with grad mode off is told only for these, as the native engine's)
        self._live: dict[int, int] = {}
        self._hooked: dict[int, set[str]] = {}     # per node, its slots a pack hook packed
        self._names: dict[type, tuple[tuple[str, str], ...]] = {}
        self._freed: set[int] = set()          # nodes whose saved tensors a backward released
        # NB: CopySlices nodes a backward ran without retaining the graph: PyTorch drops the
        # op they wrap, and running one again raises, though it saves nothing
        self._dead: set[int] = set()
        self._trace: list[tuple[Any, ...]] | None = None
        # NB: nodes made before this sequence number were made before the recording began
        self._seq_start = 0
        # per custom Function node whose forward ran an op seen here (by its id; by -2 less its
        # sequence number where the forward has no ``ctx``): the forward's code and the user's
        # line that applied it, until the node is found (and a weak reference to the node)
        self._applies: dict[int, tuple[Any, Any, Any]] = {}
        frames.add_internal(os.path.dirname(os.path.abspath(torch.__file__)) + os.sep)

    def forget(self, keep: Container[int]) -> None:
        """Drop what it read of nodes the recording no longer needs (``keep``: the ids it
        still shows or may show), so a long loop recorded with ``keep_last`` stays bounded. A
        node dropped here and met again is read afresh."""
        self._slots = {u: s for u, s in self._slots.items() if u in keep}
        self._slot_counters = {u: c for u, c in self._slot_counters.items() if u in keep}
        self._hooked = {u: h for u, h in self._hooked.items() if u in keep}
        self._freed = {u for u in self._freed if u in keep}
        self._dead = {u for u in self._dead if u in keep}
        used = {id(c) for cs in self._slot_counters.values() for c, _ in cs}
        self._counters = {k: c for k, c in self._counters.items() if id(c) in used}
        live: dict[int, int] = {}
        for u, cs in self._slot_counters.items():
            if u not in self._freed:
                for c, _ in cs:
                    if c is not None:
                        live[c.key] = live.get(c.key, 0) + 1
        self._live = live

    # -- events -------------------------------------------------------------------------------
    def subscribe(self, fn: Callable[..., None]) -> None:
        self._listeners.append(fn)
        if self._mode is None:
            self._seq_start = torch._C._autograd._get_sequence_nr()
            self._mode = _Mode(self)
            self._mode.__enter__()
            self._shown = warnings.showwarning
            warnings.showwarning = self._show_warning

    def unsubscribe(self, fn: Callable[..., None]) -> None:
        if fn in self._listeners:
            self._listeners.remove(fn)
        if not self._listeners and self._mode is not None:
            self._mode.__exit__(None, None, None)
            self._mode = None
            if warnings.showwarning == self._show_warning:    # (unless replaced since)
                warnings.showwarning = self._shown

    def _show_warning(self, message: Any, category: Any, filename: str, lineno: int,
                      file: Any = None, line: str | None = None) -> None:
        """A warning raised inside an op the mode ran (PyTorch's own, from C++: at the
        innermost Python frame, the mode's) is shown at the user's line, as without it."""
        if filename == __file__:
            user = next((f for f in frames.user_frames(sys._getframe(1))
                         if f.f_code.co_filename != warnings.__file__), None)
            if user is not None:
                filename, lineno, line = user.f_code.co_filename, user.f_lineno, None
            del user
        self._shown(message, category, filename, lineno, file, line)

    def _emit(self, event: str, *args: Any) -> None:
        for fn in list(self._listeners):
            fn(event, *args)

    # -- the backward's trace (as the native engine's: see ``engine.events``) -----------------
    def open_trace(self) -> tuple[list[tuple[Any, ...]], bool]:
        if self._trace is not None:
            return self._trace, False
        self._trace = []
        return self._trace, True

    def use_trace(self, trace: list[tuple[Any, ...]]) -> None:
        """Log to another engine's open trace (recording both engines: one trace)."""
        self._trace = trace

    def close_trace(self) -> None:
        self._trace = None

    def _after_op(self, func: Any, args: Any, kwargs: Any, out: Any) -> None:
        if _INPLACE.get(func) == _RENORM:
            self._after_no_grad_op(func, args, kwargs)
        if isinstance(out, torch.Tensor):
            fn = out.grad_fn
            if fn is not None:
                self._new_nodes(fn, out)
        elif isinstance(out, (tuple, list)):
            for t in out:
                if isinstance(t, torch.Tensor) and t.grad_fn is not None:
                    self._new_nodes(t.grad_fn, t)
        target = _inplace_target(func, args, kwargs)
        if isinstance(target, torch.Tensor):
            if out is target:
                self._emit("tensor_modified", target, _grad_fn(target))
                return
            # NB: ``x[i] = v`` returns nothing: the node it made is found through the tensor
            # it changed; of a view, through its base (its CopySlices): the view's own
            # grad_fn is made afresh only when next read, as on the native engine
            base = target._base
            owner = base if base is not None else target
            fn = _grad_fn(owner)
            if fn is not None:
                self._new_nodes(fn, owner)
            self._emit("tensor_modified", target, fn)

    def _after_no_grad_op(self, func: Any, args: Any, kwargs: Any) -> None:
        """An op run with grad mode off: an in-place change of a tensor whose storage a saved
        value not yet released shares (as the native engine, which tells only those); a
        ``_foreach_*_`` op's each tensor."""
        target = _renormed(func, args, kwargs) if _INPLACE.get(func) == _RENORM else \
            _inplace_target(func, args, kwargs)
        if target is None:
            return
        live, known = self._live, self._counters
        for x in (target,) if isinstance(target, torch.Tensor) else target:
            if isinstance(x, torch.Tensor):
                key = _storage_key(x)
                # NB: or memory never met, of a tensor that requires grad (a parameter an
                # optimizer steps): a graph built before the recording may have saved it
                if key in live or (key not in known and x.requires_grad):
                    self._emit("tensor_modified", x, None)

    def _in_custom_forward(self, f: Any) -> None:
        """An op with grad mode off, called from ``f``: if a custom Function's forward runs it
        (directly or through a few calls), note the line that applied that Function for its
        node (made before the forward runs: the last sequence number taken)."""
        below = f
        for _ in range(5):
            if f is None:
                return
            if f.f_code is _APPLY:
                code = below.f_code
                # NB: the node is the forward's ``ctx``; a forward without one (the
                # ``setup_context`` form) has its node made just before it runs: the last
                # sequence number taken, unless it applied another Function first
                ctx = below.f_locals.get(code.co_varnames[0]) if code.co_argcount else None
                if isinstance(ctx, _CUSTOM):
                    # NB: by id, with a weak reference to tell a dead node's id reused
                    key, ref = id(ctx), weakref.ref(ctx)
                else:
                    key, ref = -1 - torch._C._autograd._get_sequence_nr(), None
                known = self._applies.get(key)
                if known is None or (known[2] is not None and known[2]() is None):
                    if len(self._applies) >= _MAX_APPLIES:
                        for old in list(self._applies)[:_MAX_APPLIES // 2]:
                            del self._applies[old]
                    self._applies[key] = (code, frames.where(start=f.f_back), ref)
                return
            below, f = f, f.f_back

    def _new_nodes(self, node: Any, tensor: Any, here: bool = True) -> None:
        """Give ids to the nodes an op made (a composite op makes several) and report them
        (``here``: made by the op running now; False for a backward's roots)."""
        stack, found, seen = [(node, tensor)], [], set()
        key = self._key
        # NB: a node just made has hook-packed values only if saved-tensor hooks are set now
        hooks = _top_hooks(False) is not None
        while stack:
            n, t = stack.pop()
            if n is None or key in n.metadata or id(n) in seen:
                continue
            seen.add(id(n))
            found.append((n, t))
            stack.extend((m, None) for m, _ in n.next_functions)
        if len(found) > 1:
            # NB: ids in the order the nodes were made (as the native engine's), not the walk's
            found.sort(key=lambda e: self.seq(e[0]))
        made = []
        for n, t in found:
            # NB: now, before anything changes them
            self._read_slots(n, self.node_uid(n), hooks)
            if getattr(n, "variable", None) is None:     # a leaf's accumulator is no new op
                made.append((n, t))
        for n, t in made:
            seq = self.seq(n)
            if 0 <= seq < self._seq_start:
                # NB: made before the recording began (an earlier notebook cell, an enclosing
                # recording): found behind an op, a backward's root built then, or the output
                # of an op that made no node (``x.contiguous()``, ``x._base``). (A node with
                # no sequence number, NotImplemented's, is told by how it was found.)
                continue
            if seq < 0 and t is None:
                continue
            if isinstance(n, _CUSTOM):
                # NB: a custom Function's node, made by an earlier ``apply`` that no torch
                # function mode sees: found only now, behind this op; its line is the one noted
                # when its forward ran an op, if it ran one
                forward = getattr(getattr(n, "_forward_cls", None), "forward", None)
                made_at = self._applies.pop(id(n), None)
                if made_at is None or made_at[2] is None or made_at[2]() is not n:
                    made_at = self._applies.pop(-2 - seq, None)
                if made_at is not None and made_at[0] is getattr(forward, "__code__", None):
                    self._emit("node_created", n, t, made_at[1])
                else:
                    self._emit("node_created", n, t, here and t is not None)
            else:
                self._emit("node_created", n, t, here)

    def node_ref(self, node: Any, tensor: Any) -> Callable[[], Any]:
        """A weak way back to a node (nodes take no weak references): through its tensor."""
        if tensor is None:
            return lambda: None
        ref = weakref.ref(tensor)
        key = self._key

        def get() -> Any:
            t = ref()
            if t is None:
                return None
            fn = _grad_fn(t)
            # NB: a view whose base changed since gets a fresh grad_fn when read (here): not a
            # node the program made, and no longer the way back to this one (as the native
            # engine's, whose way back is the node itself)
            return fn if fn is not None and key in fn.metadata else None
        return get

    @staticmethod
    def node_of_ref(obj: Any) -> Any:
        """What ``node_ref``'s function gives back is the node already."""
        return obj

    def _backward(self, func: Any, api: str, args: Any, kwargs: Any) -> Any:
        if not self._listeners:
            return func(*args, **kwargs)
        roots = _roots(args, kwargs, api)
        retain = kwargs.get("retain_graph")
        create = bool(kwargs.get("create_graph", False))
        if retain is None:
            retain = create
        info = _Info(roots, api, bool(retain), create, _inputs(args, kwargs, api))
        for t in roots:
            # NB: a root's node no op seen here made (``loss = MyLoss.apply(out, y)``)
            fn = _grad_fn(t) if isinstance(t, torch.Tensor) else None
            if fn is not None and self._key not in fn.metadata:
                self._new_nodes(fn, t, False)
        self._emit("backward_started", info)
        running: list[Any] = []                # the nodes started and not yet finished
        handles = []
        nodes = self._reachable(roots)
        push = running.append
        for node in nodes:
            handles.append(node.register_prehook(functools.partial(_pre_hook, push, node)))
            handles.append(node.register_hook(self._post_hook(node, self.node_uid(node), running,
                                                              info)))
        leaves = [n.variable for n in nodes if getattr(n, "variable", None) is not None]
        trace = self._trace
        start = len(trace) if trace is not None else 0
        try:
            out = func(*args, **kwargs)
        except BaseException as e:
            # NB: the node that raised (its post-hook never ran): where the backward stopped,
            # not a step it ran; the node anomaly mode found returning nan; or, where a hook
            # on its gradient raised before it started (a tensor's hook runs before a node's
            # pre-hooks), the next node to run; none for PyTorch's own errors raised outside
            # any node (an input that needs no grad)
            failed = running[-1] if running else self._nan_node(e, nodes) \
                if isinstance(e, RuntimeError) else \
                _next_to_run(self, nodes, trace[start:] if trace is not None else [])
            self._emit("backward_failed", info, failed, e)
            raise
        finally:
            for h in handles:
                h.remove()
        if create:
            # NB: the gradients' own graph was built inside the backward, out of our sight
            made = list(out) if isinstance(out, (tuple, list)) else []
            made += [v.grad for v in leaves if v.grad is not None]
            for g in made:
                if isinstance(g, torch.Tensor) and g.grad_fn is not None:
                    self._new_nodes(g.grad_fn, g)
        self._emit("backward_finished", info)
        return out

    def _nan_node(self, e: BaseException, nodes: list[Any]) -> Any:
        """The node anomaly mode found returning nan (checked after its post-hook ran, so no
        longer the one running): the last of that name the backward ran."""
        found = _NAN.search(str(e))
        if found is None:
            return None
        ran = [entry[1] for entry in self._trace or () if entry[0] == RAN and
               entry[2] == found.group(1)]
        named = [n for n in nodes if self.node_name(n) == found.group(1)]
        if ran:
            named = [n for n in named if self.node_uid(n) == ran[-1]]
        return named[-1] if named else None

    def _released(self, uid: int) -> None:
        """A backward released the node's saved values: their storages are used one less."""
        live = self._live
        for c, _ in self._slot_counters.get(uid, ()):
            if c is not None:
                n = live.get(c.key, 0) - 1
                if n > 0:
                    live[c.key] = n
                else:
                    live.pop(c.key, None)

    def _post_hook(self, node: Any, uid: int, running: list[Any], info: _Info
                   ) -> Callable[..., None]:
        """The node's step, once it has run: the gradient that flowed in, the buffers released,
        the leaf gradient accumulated."""
        name = self.node_name(node)
        var = getattr(node, "variable", None)
        leaf = self.tensor_uid(var) if var is not None else None
        retain = info.retain_graph
        dead = self._dead if name == _COPY_SLICES and not retain else None

        def hook(grad_inputs: Any, grad_outputs: Any) -> None:
            if running and running[-1] is node:
                running.pop()
            trace = self._trace
            if trace is None:
                return
            shape = _first_shape(grad_outputs)
            trace.append((RAN, uid, name, shape))
            if not retain and uid not in self._freed:
                # NB: (a node already released runs again only if it reads nothing it saved:
                # a custom Function's backward that does not read ``saved_tensors``)
                slots = self._read_slots(node, uid)
                if slots:
                    self._freed.add(uid)
                    self._released(uid)
                for slot, _shape, _dtype, nbytes, _packed in slots:
                    trace.append((RELEASED, uid, slot, nbytes))
            if leaf is not None and shape is not None:
                trace.append((ACCUMULATED, leaf, shape))
            if dead is not None:
                dead.add(uid)
        return hook

    def _reachable(self, roots: list[Any]) -> list[Any]:
        seen: set[int] = set()
        out = []
        stack = [_root_node(t) for t in roots if isinstance(t, torch.Tensor)]
        while stack:
            n = stack.pop()
            if n is None:
                continue
            uid = self.node_uid(n)
            if uid in seen:
                continue
            seen.add(uid)
            out.append(n)
            stack.extend(m for m, _ in n.next_functions)
        return out

    # -- tensors ------------------------------------------------------------------------------
    @staticmethod
    def is_tensor(x: Any) -> bool:
        return isinstance(x, torch.Tensor)

    @staticmethod
    def is_module(x: Any) -> bool:
        return isinstance(x, torch.nn.Module)

    @staticmethod
    def is_node(x: Any) -> bool:
        return hasattr(x, "next_functions") and hasattr(x, "metadata")

    def tensor_uid(self, t: torch.Tensor) -> int:
        entry = self._tensor_uids.get(id(t))
        if entry is not None and entry[0]() is t:
            return entry[1]
        self._next_uid += 1
        key = id(t)
        table = self._tensor_uids

        def gone(_ref: Any, key: int = key) -> None:
            if key in table and table[key][0]() is None:
                del table[key]
        self._tensor_uids[key] = (weakref.ref(t, gone), self._next_uid)
        return self._next_uid

    @staticmethod
    def grad_fn(t: torch.Tensor) -> Any:
        return _grad_fn(t)

    @staticmethod
    def accumulator(t: torch.Tensor) -> Any:
        return None          # NB: asking PyTorch for it would make one; the walk finds it

    def counter(self, t: torch.Tensor, kept: bool = True) -> _Counter:
        """The counter of ``t``'s storage; ``kept=False``: ``t`` may be a tensor PyTorch made
        just now (to unpack a saved value), which says nothing of the memory's life."""
        key = _storage_key(t)
        c = self._counters.get(key)
        if c is None or c.stale():
            base = t._base
            c = self._counters[key] = _Counter(key, base if base is not None or not kept
                                               else t)
        elif c.owner is None and kept:
            base = t._base
            c.owner = weakref.ref(base if base is not None else t)
        return c

    @staticmethod
    def is_parameter(t: torch.Tensor) -> bool:
        return isinstance(t, torch.nn.Parameter)

    @staticmethod
    def version(t: torch.Tensor) -> int:
        return _version(t)

    @staticmethod
    def describe(t: torch.Tensor) -> tuple[Any, ...]:
        """(shape, dtype, requires_grad, is_leaf, grad's shape or None, version)."""
        # NB: reading .grad of a non-leaf warns; only leaves (and retain_grad) have one
        fn = _grad_fn(t, _UNREADABLE)
        leaf = fn is None
        g = t.grad if leaf or (fn is not _UNREADABLE and t.retains_grad) else None
        return (tuple(t.shape), t.dtype, t.requires_grad, leaf,
                tuple(g.shape) if g is not None else None, _version(t))

    def grad_identity(self, t: torch.Tensor) -> tuple[int, int] | None:
        """As ``NativeEngine.grad_identity`` (for a leaf: a non-leaf's ``.grad`` warns)."""
        g = t.grad
        return (self.tensor_uid(g), _version(g)) if g is not None else None

    # -- nodes --------------------------------------------------------------------------------
    def node_uid(self, n: Any) -> int:
        uid = n.metadata.get(self._key)
        if uid is None:
            self._next_uid += 1
            uid = n.metadata[self._key] = self._next_uid
        return int(uid)

    @staticmethod
    def seq(n: Any) -> int:
        s = int(n._sequence_nr())
        return -1 if s >= 1 << 63 else s     # AccumulateGrad: runs as soon as it is ready

    @staticmethod
    def node_name(n: Any) -> str:
        return str(n.name())

    def next_uids(self, n: Any) -> tuple[int | None, ...]:
        return tuple(self.node_uid(m) if m is not None else None for m, _ in n.next_functions)

    @staticmethod
    def variable(n: Any) -> Any:
        return getattr(n, "variable", None)

    def static_facts(self, n: Any, uid: int) -> tuple[Any, ...]:
        """What a node is for its whole life: name, next nodes' ids, sequence number, saved
        tensors (name, shape, dtype, bytes), its leaf's id (an accumulator)."""
        var = self.variable(n)
        return (self.node_name(n), self.next_uids(n), self.seq(n),
                self._read_slots(n, uid),
                self.tensor_uid(var) if var is not None else None)

    def _slot_names(self, n: Any) -> tuple[tuple[str, str], ...]:
        """(slot name, attribute to unpack it by) per saved tensor of the node's class."""
        names = self._names.get(type(n))
        if names is None:
            names = self._names[type(n)] = tuple(
                _custom_slot(n, k) or (k[len("_raw_saved_"):], "_saved_" + k[len("_raw_saved_"):])
                for k in dir(n) if k.startswith("_raw_saved_"))
        return names

    def _read_slots(self, n: Any, uid: int, hooks: bool = True
                    ) -> tuple[tuple[str, tuple[int, ...], Any, int, bool], ...]:
        """Each saved tensor's name, shape, dtype and bytes, read while it is alive (once).
        ``hooks=False``: the node was just made with no saved-tensor hooks set, so none of its
        values is packed (a hook a user registers on one later is not seen)."""
        known = self._slots.get(uid)
        if known is not None:
            return known
        slots, counters = [], []
        hooked: set[str] = set()
        for name, attr in self._slot_names(n):
            raws = _hooked_raws(n, name) if hooks else None
            if raws is not None:
                # NB: kept as what a saved-tensor pack hook made of it (a checkpoint's empty
                # holder, a copy): unpacking would call the user's unpack hook (and recompute a
                # checkpointed region), so its shape, dtype and bytes are the packed tensor's
                hooked.add(name)
                for slot, raw in raws:
                    packed = _packed_tensor(raw.data)
                    slots.append((slot, tuple(packed.shape) if packed is not None else (),
                                  packed.dtype if packed is not None else "packed",
                                  _nbytes(packed) if packed is not None else 0, True))
                    counters.append((self.counter(packed, False) if packed is not None
                                     else None, 0))
                continue
            at = None                   # the version it was saved at, if not now's
            try:
                t = getattr(n, attr)
            except (RuntimeError, AttributeError) as e:
                text = str(e)
                if _FREED in text:
                    # NB: freed before the recording saw the node (a backward run before it
                    # began): freed, of a shape and dtype no longer known
                    slots.append((name, (), "unknown", 0, False))
                    counters.append((None, 0))
                    self._freed.add(uid)
                    continue
                # NB: changed in place before the recording saw the node: read unchecked; the
                # version it was saved at is the one PyTorch expects
                m = _MODIFIED.search(text)
                t = _unchecked(n, name) if m is not None or _VIEW_BASE_MODIFIED in text \
                    else None
                if t is None:
                    continue
                at = int(m.group(2)) if m is not None else -1
            # NB: a list (``indices``): a slot per member, named by position, as the native
            # engine names them
            for slot, x in _members(name, t):
                slots.append((slot, tuple(x.shape), x.dtype, _nbytes(x), False))
                c = self.counter(x, False)
                v = int(x._version)
                counters.append((c, v if at is None else at if at >= 0 else max(v - 1, 0)))
                self._live[c.key] = self._live.get(c.key, 0) + 1
        found = self._slots[uid] = tuple(slots)
        self._slot_counters[uid] = tuple(counters)
        if hooked:
            self._hooked[uid] = hooked
        return found

    def _states(self, n: Any, uid: int
                ) -> tuple[tuple[tuple[Any, ...], ...], list[tuple[int, int, bool]]]:
        slots = self._read_slots(n, uid)
        if uid in self._freed:         # NB: freed stays freed: no need to ask PyTorch again
            k = len(slots)
            return (ALL_FREED[k] if k < 64 else (FREED,) * k), [(0, s[3], True) for s in slots]
        counters = self._slot_counters.get(uid, ())
        out, mem = [], []
        unpacked: dict[str, Any] = {}          # attribute -> its value
        refused: dict[str, str] = {}           # attribute -> the error it raised, as text
        how = dict(self._slot_names(n))        # slot name -> attribute to unpack it by
        hooked = self._hooked.get(uid, ())
        for i, (name, _shape, _dtype, nbytes, _packed) in enumerate(slots):
            c, saved_v = counters[i] if i < len(counters) else (None, 0)
            cid = id(c) if c is not None else 0
            attr, _, member = name.partition("[")
            if attr in hooked:
                # NB: read without unpacking: freed once PyTorch dropped the packed value
                raws = _hooked_raws(n, attr)
                raw = dict(raws).get(name) if raws is not None else None
                if raw is None or raw.unpack_hook is None:
                    out.append(FREED)
                    mem.append((0, nbytes, True))
                else:
                    out.append(ALIVE)
                    mem.append((c.key if c is not None else 0, nbytes, False))
                continue
            if attr not in unpacked and attr not in refused:
                try:
                    unpacked[attr] = getattr(n, how.get(attr, "_saved_" + attr))
                except (RuntimeError, AttributeError) as e:
                    # NB: its text only: the error's traceback holds this frame (a cycle)
                    refused[attr] = str(e)
            if attr in refused:
                text = refused[attr]
                m = _MODIFIED.search(text)
                # NB: a multi-output view (unbind, split) whose base changed since: PyTorch
                # refuses it before comparing versions; its version now, unchecked
                versions = (int(m.group(2)), int(m.group(1))) if m is not None else \
                    (saved_v, _version_now(n, attr, member, saved_v)) \
                    if _VIEW_BASE_MODIFIED in text else None
                if versions is not None:
                    out.append(("modified", *versions, cid))
                    mem.append((c.key if c is not None else 0, nbytes, False))
                else:
                    out.append(FREED)
                    mem.append((0, nbytes, True))
                continue
            out.append(ALIVE)               # NB: (unpacked: neither freed nor modified)
            mem.append((c.key if c is not None else 0, nbytes, False))
        k = len(out)
        if k < 64:
            # NB: all alive, or all freed: shared tuples, as the native engine's (known by
            # identity)
            alive = out.count(ALIVE)
            if alive == k:
                return ALL_ALIVE[k], mem
            if alive == 0 and out.count(FREED) == k:
                return ALL_FREED[k], mem
        return tuple(out), mem

    def tensor_facts(self, t: Any) -> tuple[int, Any, int | None, tuple[Any, ...]]:
        """As ``NativeEngine.tensor_facts``: uid, node to walk from, grad_fn's uid, describe."""
        fn = self.grad_fn(t)
        node = fn if fn is not None else self.accumulator(t)
        return (self.tensor_uid(t), node, self.node_uid(fn) if fn is not None else None,
                self.describe(t))

    def walk(self, starts: list[Any], static: dict[int, Any], metas: dict[int, Any]
             ) -> tuple[Any, ...]:
        """Everything reachable from ``starts``, as ``NativeEngine.walk`` gives it."""
        states: dict[int, tuple[tuple[Any, ...], ...]] = {}
        leaves: dict[int, Any] = {}
        alive: dict[int, int] = {}
        freed = 0
        dead = self._dead
        dead_ends: set[int] = set()
        stack = list(starts)
        while stack:
            n = stack.pop()
            if n is None:
                continue
            uid = self.node_uid(n)
            if uid in states:
                continue
            if uid not in static:
                static[uid] = static_of(metas.get(uid), *self.static_facts(n, uid))
            st, mem = self._states(n, uid)
            states[uid] = st
            if dead and uid in dead:
                dead_ends.add(uid)
            for key, nbytes, was_freed in mem:
                if was_freed:
                    freed += nbytes
                else:
                    alive[key or id(st)] = nbytes
            var = getattr(n, "variable", None)
            if var is not None:
                leaves[self.tensor_uid(var)] = var
            stack.extend(m for m, _ in n.next_functions if m is not None)
        return states, dead_ends, leaves, alive, freed


_UNREADABLE = object()


def _grad_fn(t: torch.Tensor, unreadable: Any = None) -> Any:
    """``t.grad_fn``, or ``unreadable`` where PyTorch raises instead (one of several views that
    ``unbind``/``split`` returned, whose base changed in place): never an error for the user."""
    try:
        return t.grad_fn
    except RuntimeError:
        return unreadable


def _version(t: torch.Tensor) -> int:
    """``t._version``; 0 for an inference tensor (made under ``inference_mode``), which has
    none: PyTorch raises, the native engine's stays 0."""
    try:
        return int(t._version)
    except RuntimeError:
        return 0


def _root_node(t: torch.Tensor) -> Any:
    """The node a backward from ``t`` starts at: its grad_fn; for a leaf that requires grad
    (``leaf.backward()``) its accumulator, which that backward would make anyway."""
    fn = _grad_fn(t, _UNREADABLE)
    if fn is _UNREADABLE:
        return None
    if fn is None and t.requires_grad:
        return torch.autograd.graph.get_gradient_edge(t).node
    return fn


def _next_to_run(engine: TorchEngine, nodes: list[Any], trace: list[tuple[Any, ...]]) -> Any:
    """The node a backward would have run next, given the steps it ran (``trace``): of those
    whose every user in the graph has run, the first in PyTorch's order (an accumulator first,
    then the highest sequence number). For an error no node raised and PyTorch did not (a
    hook's on a tensor's gradient, which runs before the node's pre-hooks)."""
    done = {e[1] for e in trace if e[0] == RAN}
    waiting: dict[int, int] = {}
    for n in nodes:
        if engine.node_uid(n) in done:
            continue
        for m, _ in n.next_functions:
            if m is not None:
                u = engine.node_uid(m)
                waiting[u] = waiting.get(u, 0) + 1
    ready = [n for n in nodes if engine.node_uid(n) not in done and
             not waiting.get(engine.node_uid(n))]
    if not ready:
        return None
    return max(ready, key=lambda n: (1 << 63) if getattr(n, "variable", None) is not None
               else engine.seq(n))


_NAN = re.compile(r"Function '(.+)' returned nan values in its \d+th output")


def _pre_hook(push: Callable[[Any], None], node: Any, grad_outputs: Any) -> None:
    push(node)                       # NB: the node running, should it raise


def _custom_slot(n: Any, raw: str) -> tuple[str, str] | None:
    """A custom ``autograd.Function``'s node: what ``ctx.save_for_backward`` saved is unpacked
    by ``saved_tensors`` (there is no ``_saved_tensors``), named as the native engine names it."""
    if raw == "_raw_saved_tensors" and isinstance(n, torch.autograd.function.BackwardCFunction):
        return ("saved_tensors", "saved_tensors")
    return None


_top_hooks = torch._C._autograd._top_saved_tensors_default_hooks


def _hooked_raws(n: Any, name: str) -> list[tuple[str, Any]] | None:
    """(slot name, PyTorch's ``SavedTensor``) of a saved value a saved-tensor hook packed, or
    None for one kept as is (read through ``_raw_saved_*``, which calls no hook)."""
    try:
        raw = getattr(n, "_raw_saved_tensors" if name == "saved_tensors" else
                      "_raw_saved_" + name)
    except (RuntimeError, AttributeError):
        return None
    if type(raw) is not tuple and type(raw) is not list:
        # NB: the common case, once per saved value of each node made: one attribute read
        if getattr(raw, "unpack_hook", None) is None:
            return None
        return [(name, raw)] if raw.data is not None else []
    pairs = [(f"{name}[{i}]", r) for i, r in enumerate(raw)]
    for _, r in pairs:
        if getattr(r, "unpack_hook", None) is not None:
            return [(slot, r) for slot, r in pairs if r.data is not None]
    return None


def _packed_tensor(packed: Any) -> torch.Tensor | None:
    """The tensor a pack hook returned, alone or in a tuple (``save_on_cpu``'s), if any."""
    if isinstance(packed, torch.Tensor):
        return packed
    if isinstance(packed, (tuple, list)):
        return next((p for p in packed if isinstance(p, torch.Tensor)), None)
    return None


def _unchecked(n: Any, name: str) -> Any:
    """A saved value read without PyTorch's version check (its ``SavedTensor``'s data), or
    None."""
    try:
        raw = getattr(n, "_raw_saved_tensors" if name == "saved_tensors" else
                      "_raw_saved_" + name)
        if isinstance(raw, (tuple, list)):
            return [r.data for r in raw]
        return raw.data
    except (RuntimeError, AttributeError):
        return None


def _version_now(n: Any, attr: str, member: str, saved_v: int) -> int:
    """A saved tensor's version now, read through its raw form (no check), or one past the
    version it was saved at where even that is refused."""
    try:
        raw = getattr(n, "_raw_saved_tensors" if attr == "saved_tensors" else
                      "_raw_saved_" + attr)
        if member:
            raw = raw[int(member[:-1])]
        return int(raw.data._version)
    except (RuntimeError, AttributeError, IndexError, TypeError):
        return saved_v + 1


def _members(name: str, saved: Any) -> list[tuple[str, torch.Tensor]]:
    """The tensors of an unpacked saved value with their slot names: a tensor (``name``), or a
    list or tuple of them (``name[i]``, None members skipped)."""
    if isinstance(saved, torch.Tensor):
        return [(name, saved)]
    if isinstance(saved, (tuple, list)):
        return [(f"{name}[{i}]", x) for i, x in enumerate(saved) if isinstance(x, torch.Tensor)]
    return []


def _first_shape(grads: Any) -> Any:
    for g in grads:
        if g is not None:
            # NB: a plain tuple of ints (a ``torch.Size`` is one the collector keeps tracking)
            return tuple(getattr(g, "shape", ()))
    return None


def _nbytes(t: torch.Tensor) -> int:
    try:
        return int(t.untyped_storage().nbytes())
    except RuntimeError:
        return int(t.numel() * t.element_size())


def _inputs(args: Any, kwargs: Any, api: str) -> list[Any] | None:
    """The tensors a backward is asked the gradients of (``autograd.grad``'s inputs, or
    ``backward``'s ``inputs=``), where they are a tensor or a list or tuple of them (a
    generator is not read: that would use it up)."""
    given = kwargs.get("inputs", args[1] if api == "grad" and len(args) > 1 else None)
    if isinstance(given, torch.Tensor):
        return [given]
    if isinstance(given, (list, tuple)) and all(isinstance(t, torch.Tensor) for t in given):
        return list(given)
    return None


def _roots(args: Any, kwargs: Any, api: str) -> list[Any]:
    first = kwargs.get("outputs" if api == "grad" else "tensors", args[0] if args else None)
    if isinstance(first, torch.Tensor):
        return [first]
    return [t for t in (first or ()) if isinstance(t, torch.Tensor)]
