"""The backward executor: PyTorch's engine, iteratively, with its scheduling and its freeing.

Nodes run when all their dependencies have delivered (dependency counts, no recursion), highest
sequence number first, ``AccumulateGrad`` as soon as ready: the order PyTorch's ready queue
gives, which decides what a failing backward has already done when it stops.
"""

from __future__ import annotations

import heapq
import itertools
import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import anomaly, events
from . import dtypes as dt
from . import messages as msg
from .autograd import CopySlices, edge, internal_overlap, writable_alias
from .batched_grads import batched_vjps, first_row_shape
from .events import ACCUMULATED, RAN
from .function import BackwardCFunction
from .grad_mode import enable_grad, no_grad
from .grad_mode import state as grad_state
from .graph_edges import GradientEdge
from .node import AccumulateGrad, HookedSavedTensor, Node, SavedTensor
from .optable import NP, TT
from .pre_write import WATCH as _WATCH
from .pre_write import before_write
from .tensor import DETACHED_INPLACE, LeafData, Tensor

__all__ = ["backward", "grad", "BackwardInfo", "current_graph_task_id", "will_engine_execute_node"]


@dataclass
class BackwardInfo:
    """What an event listener learns about a backward call."""

    api: str                                  # "backward" | "grad"
    roots: list[Tensor | GradientEdge]
    retain_graph: bool
    create_graph: bool
    inputs: list[Tensor | GradientEdge] | None = None
    failed_at: Node | None = None             # where a failing backward stopped


class GraphRoot(Node):
    """The dummy root a backward from several tensors starts at."""

    __slots__ = ("grads",)
    _name = "GraphRoot"
    grads: list[Any]


def _make_grads(outputs: Sequence[Tensor | GradientEdge], grads: Sequence[Any],
                batched: bool = False) -> list[Tensor | None]:
    """PyTorch's _make_grads: pairs outputs with gradients (extra gradients are dropped), makes
    the implicit ones, checks shapes (past a batch dimension when ``batched``); the engine then
    wants one gradient per output."""
    out: list[Tensor | None] = []
    for i, (o, g) in enumerate(zip(outputs, grads, strict=False)):
        if isinstance(o, Tensor):
            shape, dtype, npdtype, wanted = o._data.shape, o._dtype, o._data.dtype, o.requires_grad
            numel = o._data.size
        elif isinstance(o, GradientEdge):
            # NB: an edge's output is described by its node's input metadata
            shape, dtype = o.node._meta[o.output_nr]
            npdtype, wanted, numel = dtype.np, True, math.prod(shape)
        else:
            raise AssertionError("Expected output to be a torch.Tensor")
        if g is None:
            if wanted:
                if numel != 1:
                    raise RuntimeError(msg.NOT_SCALAR)
                one = np.empty(shape, npdtype)
                one.fill(1)
                out.append(Tensor._make(one, dtype))
            else:
                out.append(None)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
        gshape = g._data.shape
        if batched:
            gshape = first_row_shape(g)
        if gshape != shape:
            if batched:
                if isinstance(o, GradientEdge):
                    raise RuntimeError("Batched grads are not supported with GradientEdge")
                # NB: PyTorch names the shape of the first row with its first dimension dropped
                raise RuntimeError(msg.BATCHED_MISMATCH.format(
                    i, msg.shape_text(gshape[1:]), i, msg.shape_text(shape)))
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{msg.shape_text(gshape)} and output[{i}] has a shape of "
                               f"{msg.shape_text(shape)}.")
        out.append(g)
    if len(out) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(out)} gradients")
    return out


def _as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    if isinstance(x, Tensor | GradientEdge):
        return [x]
    return list(x)


def _roots_list(x: Any) -> list[Any]:
    """The tensors (or edges) a backward starts from: one, or an iterable of them."""
    return [x] if isinstance(x, Tensor | GradientEdge) else list(x)


def _inputs_list(x: Any, api: str) -> list[Any]:
    """``inputs`` as a list: a dict gives its values (PyTorch's ``dict(named_parameters())``)."""
    if type(x) is dict:
        return list(x.values())
    if isinstance(x, Mapping):
        raise TypeError(f"`inputs` argument to `{api}()` must be a dict, not {type(x).__name__}. "
                        "Other Mapping types are not supported.")
    return _as_list(x)


def _check_inputs(inputs: list[Any] | None) -> None:
    for x in inputs or ():
        if not isinstance(x, Tensor | GradientEdge):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(x).__name__}")


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, grad_variables: Any = None, inputs: Any = None) -> None:
    """``torch.autograd.backward``: accumulate gradients of ``tensors`` into the leaves."""
    if grad_variables is not None:
        warnings.warn(msg.GRAD_VARIABLES, FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError(msg.GRAD_BOTH)
        grad_tensors = grad_variables
    given = _inputs_list(inputs, "backward") if inputs is not None else None
    roots = _roots_list(tensors)
    keep = create_graph if retain_graph is None else retain_graph
    info = BackwardInfo("backward", roots, keep, create_graph, given)
    _observed(info, lambda: _backward(info, grad_tensors, inputs))


def _backward(info: BackwardInfo, grad_tensors: Any, inputs: Any) -> None:
    roots = info.roots
    grads = _as_list(grad_tensors) if grad_tensors is not None else [None] * len(roots)
    if inputs is not None and not info.inputs:
        raise RuntimeError(msg.EMPTY_INPUTS)
    _check_inputs(info.inputs)
    if not roots:
        return
    made = _make_grads(roots, grads)
    if info.create_graph:
        msg.warn_once(msg.CREATE_GRAPH_CYCLE, UserWarning, stacklevel=6)
    _run(info, made, accumulate=True)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple[Any, ...]:
    """``torch.autograd.grad``: the gradients of ``outputs`` w.r.t. ``inputs``, as a tuple (as a
    dict with the same keys for a dict of ``inputs``)."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    keep = create_graph if retain_graph is None else retain_graph
    info = BackwardInfo("grad", _roots_list(outputs), keep, create_graph,
                        _inputs_list(inputs, "grad"))
    if allow_unused is None:
        allow_unused = materialize_grads
    if not only_inputs and info.inputs:
        warnings.warn(msg.ONLY_INPUTS, FutureWarning, stacklevel=2)
    out = _observed(info, lambda: _grad(info, grad_outputs, bool(allow_unused),
                                        materialize_grads, is_grads_batched))
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), out, strict=True))  # type: ignore[return-value]
    return out


def _grad(info: BackwardInfo, grad_outputs: Any, allow_unused: bool,
          materialize_grads: bool, batched: bool) -> tuple[Any, ...]:
    outs, ins = info.roots, info.inputs or []
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    _check_inputs(ins)
    grads = _as_list(grad_outputs) if grad_outputs is not None else [None] * len(outs)
    made = _make_grads(outs, grads, batched)
    if batched:
        result = batched_vjps(info, made, _run)
    else:
        result = _run(info, made, accumulate=False)
    if not allow_unused:
        for i, g in enumerate(result):
            if g is None:
                raise RuntimeError(msg.UNUSED_INPUT.format(i))
    if not materialize_grads:
        return tuple(result)
    if any(g is None and isinstance(t, GradientEdge) for t, g in zip(ins, result, strict=True)):
        raise RuntimeError("materialize_grads cannot be used when the given input is a "
                           "GradientEdge")
    final: list[Any] = []
    for t, g in zip(ins, result, strict=True):
        if g is None:
            assert isinstance(t, Tensor)
            g = Tensor._make(np.zeros_like(t._data), t._dtype)
            if info.create_graph:
                g.requires_grad_(True)
        final.append(g)
    return tuple(final)


# the backward calls running, innermost last (a reentrant checkpoint asks what runs it)
running: list[BackwardInfo] = []


def can_checkpoint() -> bool:
    """PyTorch's ``torch.autograd._is_checkpoint_valid``: not inside ``grad()`` or a
    ``backward(inputs=...)`` (those run only part of the graph)."""
    return not running or (running[-1].api == "backward" and not running[-1].inputs)


def _observed(info: BackwardInfo, body: Callable[[], Any]) -> Any:
    """Run a backward call between its started and finished (or failed) events."""
    if events.listeners:
        events.emit("backward_started", info)
    running.append(info)
    try:
        out = body()
    except Exception as e:
        # NB: trimmed first: the engine's frames (and what their locals held, the gradients
        # of a create_graph backward) are gone before anyone looks, as on PyTorch. No local
        # names it: the frame it is raised from would hold it in a cycle
        if events.listeners:
            events.emit("backward_failed", info, info.failed_at, _trimmed(e))
        raise _trimmed(e) from None
    finally:
        running.pop()
    if events.listeners:
        events.emit("backward_finished", info)
    return out


_ENGINE_DIR = os.path.dirname(os.path.abspath(__file__))


def _trimmed(e: BaseException) -> BaseException:
    """An error the engine raised itself loses the engine's frames (as PyTorch's come from C++);
    an error from the user's hook keeps its whole traceback."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None and os.path.dirname(os.path.abspath(tb.tb_frame.f_code.co_filename)) \
            == _ENGINE_DIR:
        return e.with_traceback(None)
    return e


# -- the engine ----------------------------------------------------------------------------------
class _Task:
    """One backward call in flight."""

    __slots__ = ("keep", "create", "accumulate", "needed", "captures", "captured", "info", "owned",
                 "current", "sums", "id", "start", "deps")

    def __init__(self, info: BackwardInfo, accumulate: bool) -> None:
        self.info = info
        self.keep = info.retain_graph
        self.create = info.create_graph
        self.accumulate = accumulate
        self.needed: dict[Node, bool] | None = None
        self.captures: dict[Node, list[tuple[int, int]]] = {}
        self.captured: list[Any] = []
        self.owned: set[int] = set()        # ids of arrays given to a .grad in this backward
        self.current: Node | None = None    # the node running (where a failure stopped)
        self.sums: dict[Node, int] = {}     # gradients summed into a leaf's buffer
        self.id = -1                        # PyTorch's graph task id, given when it starts
        self.start: Node | None = None
        self.deps: dict[Node, int] = {}


# the backward calls whose graph runs, innermost last; and the id the next one gets
_tasks: list[_Task] = []
_task_ids = itertools.count()


def current_graph_task_id() -> int:
    """PyTorch's ``torch._C._current_graph_task_id``: the id of the backward running (one per
    ``backward`` / ``grad`` call, the innermost of nested ones), -1 outside a backward.

    >>> current_graph_task_id()
    -1
    """
    return _tasks[-1].id if _tasks else -1


def will_engine_execute_node(node: Any) -> bool:
    """PyTorch's ``torch._C._will_engine_execute_node``: whether the running backward will run
    ``node`` (it is in the graph, and on a path to an input where inputs were given)."""
    if not isinstance(node, Node):
        raise RuntimeError(f"_will_engine_execute_node expects an grad_fn, but got "
                           f"{type(node).__name__}")
    if not _tasks:
        raise RuntimeError("_get_should_execute_nodes should only be called during the backward "
                           "pass")
    task = _tasks[-1]
    if node is not task.start and node not in task.deps:
        return False
    needed = task.needed
    if needed is None:
        return True
    captured = node in task.captures
    if not (needed.get(node, False) or captured):
        return False
    if captured and not node._next:
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                           "currently running autograd.grad(). This is currently not supported.")
    return True


def _run(info: BackwardInfo, made: list[Tensor | None], accumulate: bool,
         keep: bool | None = None) -> list[Any]:
    roots = info.roots
    root_edges: list[tuple[Node | None, int]] = []
    metas = []
    for i, t in enumerate(roots):
        if isinstance(t, GradientEdge):
            root_edges.append((t.node, t.output_nr))
            metas.append(t.node._meta[t.output_nr])
            continue
        if not t.requires_grad:
            raise RuntimeError(msg.NO_GRAD_FN.format(i))
        root_edges.append(edge(t))
        metas.append((t._data.shape, t._dtype))
    task = _Task(info, accumulate)
    if keep is not None:
        task.keep = keep
    mode = TT if task.create else NP
    grads = [(g if task.create else g._data) if g is not None else None for g in made]
    if not task.create:
        # PyTorch casts each root's gradient to the root's dtype before the first node runs
        grads = [g.astype(m[1].np) if g is not None and g.dtype != m[1].np else g
                 for m, g in zip(metas, grads, strict=False)]
    task.owned.update(id(g) for g in grads)
    if len(root_edges) == 1:
        start: Node = root_edges[0][0]  # type: ignore[assignment]
        buffer: list[Any] = [None] * _num_outputs(start)
        buffer[root_edges[0][1]] = grads[0]
    else:
        start = GraphRoot()
        start._next = tuple(root_edges)
        start._meta = metas
        start.grads = grads
        buffer = []
    if info.inputs is not None:
        _prepare_inputs(task, info.inputs, start)
    deps = _dependencies(start)
    task.id, task.start, task.deps = next(_task_ids), start, deps
    if task.needed is not None and not task.needed.get(start, False) and start not in task.captures:
        return task.captured
    _tasks.append(task)
    try:
        with (enable_grad() if task.create else no_grad()), np.errstate(all="ignore"):
            _loop(task, start, buffer, deps, mode)
    except BaseException as e:
        info.failed_at = task.current
        if anomaly.state.enabled and task.current is not None:
            anomaly.failed(task.current, e)
        raise
    finally:
        _tasks.pop()
    return task.captured


def _loop(task: _Task, start: Node, buffer: list[Any], deps: dict[Node, int],
          mode: Any) -> None:
    """Run nodes as they become ready, highest sequence number first."""
    needed, captures, sums = task.needed, task.captures, task.sums
    trace = events.trace
    release = not task.keep
    create = task.create
    # NB: an exact op's gradients are right as they come, unless a leaf's .data changed shape
    trust = mode is NP and not LeafData.changed
    nan_check = anomaly.state.enabled and anomaly.state.check_nan
    ctxs: dict[Any, Any] = {}
    push, pop = heapq.heappush, heapq.heappop
    ready: list[tuple[int, int, Node, list[Any]]] = []
    pending: dict[Node, list[Any]] = {}
    tick = 1
    node: Node | None = start
    inputs = buffer
    try:
        while node is not None:
            op = node.op
            if op is not None and needed is None and not node._hooked and op.n_outputs == 1 \
                    and type(node) is not CopySlices:
                # the common case, inline: run the formula, undo broadcasting, free the buffers
                saved = node._saved
                hooked = False
                if saved and DETACHED_INPLACE[0]:
                    hooked = _check_saved(node)
                elif saved:
                    # NB: PyTorch unpacks every saved value of a node it runs first, whether its
                    # formula reads it or not: a freed or modified one raises, in its order
                    for s in saved.values():
                        if type(s) is not SavedTensor or s.released or s.vc.v != s.version:
                            hooked = _check_saved(node)
                            break
                g = inputs[0]
                if g is None:
                    outputs: Any = [None] * len(node._next)
                else:
                    needs = node._needs
                    if needs is None:
                        needs = node._needs = _needs_of(node._next)
                    # NB: one context per op for the whole loop (a formula never keeps it)
                    ctx = ctxs.get(op)
                    if ctx is None:
                        ctx = ctxs[op] = op.ctx(node, create, needs)
                    else:
                        ctx.node, ctx.needs = node, needs
                    outputs = op.backward(ctx, g, mode)
                    # NB: (a value an unpack hook gave may have any shape or dtype)
                    if not (op.exact and trust and node._meta[0][0] and not hooked):
                        outputs = _validate(node, outputs, mode)
                if trace is not None:
                    trace.append((RAN, node._uid, node._name, g.shape if g is not None else None))
                if release and node._saved:
                    node.release_variables()
                elif hooked:
                    _forget_unpacked(node)
            elif type(node) is AccumulateGrad and needed is None and not node._hooked:
                if trace is not None:
                    g = inputs[0]
                    trace.append((RAN, node._uid, node._name, g.shape if g is not None else None))
                _accumulate(task, node, inputs[0])
                outputs = ()
            else:
                outputs = _evaluate(task, node, inputs, mode) or ()
            if nan_check and outputs:
                anomaly.check_nan(node, outputs)
            # hand each gradient to its next node; a node whose last input arrived is ready
            best: tuple[int, int, Node, list[Any]] | None = None
            for (nxt, nr), g in zip(node._next, outputs):
                if nxt is None:
                    continue
                d = deps[nxt] - 1
                if needed is not None and not needed.get(nxt, False) and nxt not in captures:
                    deps[nxt] = d
                    continue
                if d == 0:
                    buf = pending.pop(nxt, None)
                    if buf is None:
                        n = len(nxt._meta)
                        if n <= 1:
                            buf = [g]
                        else:
                            buf = [None] * n
                            buf[nr] = g
                    elif g is not None:
                        if buf[nr] is None:
                            buf[nr] = g
                        else:
                            _sum_into(buf, nr, g, nxt, mode, sums)
                    item = (-nxt._seq, tick, nxt, buf)
                    tick += 1
                    if best is None:
                        best = item
                    else:
                        if item < best:
                            best, item = item, best
                        push(ready, item)
                else:
                    deps[nxt] = d
                    buf = pending.get(nxt)
                    if buf is None:
                        buf = pending[nxt] = [None] * max(len(nxt._meta), 1)
                    if g is not None:
                        if buf[nr] is None:
                            buf[nr] = g
                        else:
                            _sum_into(buf, nr, g, nxt, mode, sums)
            # NB: the next node is the ready one with the highest sequence number; a node made
            # ready just now skips the heap when it beats everything waiting there
            if best is not None and (not ready or best < ready[0]):
                _, _, node, inputs = best
            else:
                if best is not None:
                    push(ready, best)
                if ready:
                    _, _, node, inputs = pop(ready)
                else:
                    node = None
    except BaseException as e:
        task.current = node
        if type(e) is ValueError:
            err = msg.from_numpy_error(e)
            if err is not None:
                raise err from None
        raise


# NB: the needs of one- and two-input nodes are shared tuples (no list, no tuple per node)
_NEEDS_1 = ((False,), (True,))
_NEEDS_2 = ((False, False), (True, False), (False, True), (True, True))


def _needs_of(edges: tuple[tuple[Node | None, int], ...]) -> tuple[bool, ...]:
    """Which inputs of a node want a gradient: those with a next node."""
    n = len(edges)
    if n == 2:
        return _NEEDS_2[(edges[0][0] is not None) + 2 * (edges[1][0] is not None)]
    if n == 1:
        return _NEEDS_1[edges[0][0] is not None]
    return tuple([e is not None for e, _ in edges])


def _sum_into(buf: list[Any], nr: int, g: Any, nxt: Node, mode: Any,
              sums: dict[Node, int]) -> None:
    """A second gradient for the same input of ``nxt``: add it; count the sums into a leaf's
    buffer (PyTorch sums in place, and the resulting .grad's version shows it)."""
    buf[nr] = _add(buf[nr], g, mode)
    if type(nxt) is AccumulateGrad:
        sums[nxt] = sums.get(nxt, 0) + 1


def _num_outputs(node: Node) -> int:
    return max(len(node._meta), 1)


def _add(a: Any, b: Any, mode: Any) -> Any:
    if mode is NP:
        s = a + b
        # NB: numpy gives a scalar for two 0-d arrays; a formula indexes its gradient
        return s if type(s) is np.ndarray else np.asarray(s)
    return mode.add(a, b)


def _dependencies(start: Node) -> dict[Node, int]:
    """How many edges point at each node reachable from ``start`` (iteratively)."""
    deps: dict[Node, int] = {}
    get = deps.get
    stack = [start]
    while stack:
        for nxt, _ in stack.pop()._next:
            if nxt is not None:
                c = get(nxt)
                if c is None:
                    deps[nxt] = 1
                    stack.append(nxt)
                else:
                    deps[nxt] = c + 1
    return deps


def _prepare_inputs(task: _Task, inputs: list[Tensor | GradientEdge], start: Node) -> None:
    """Mark the nodes on a path to an input; for ``grad``, where to capture each input's grad.
    ``backward(inputs=[h])`` on a non-leaf ``h`` fills ``h.grad`` (PyTorch retains its grad);
    an edge's node runs there, and nothing is kept."""
    targets: dict[Node, list[tuple[int, int]]] = {}
    for i, t in enumerate(inputs):
        if isinstance(t, GradientEdge):
            targets.setdefault(t.node, []).append((t.output_nr, i))
            continue
        if not t.requires_grad:
            # NB: backward retains each input's grad before this check, as PyTorch
            raise RuntimeError(msg.RETAIN_NO_GRAD if task.accumulate else msg.INPUT_NO_GRAD)
        fn, nr = edge(t)
        assert fn is not None
        if task.accumulate and not isinstance(fn, AccumulateGrad):
            t.retain_grad()
        targets.setdefault(fn, []).append((nr, i))
    task.captured = [None] * len(inputs)
    if not task.accumulate:
        task.captures = targets
    needed: dict[Node, bool] = {}
    # iterative post-order: a node is needed if it is a target (backward) or reaches one
    for root in (start,):
        stack: list[tuple[Node, int]] = [(root, 0)]
        on_path: set[Node] = set()
        while stack:
            node, i = stack.pop()
            if node in needed and i == 0:
                continue
            if i == 0:
                on_path.add(node)
            if i < len(node._next):
                stack.append((node, i + 1))
                nxt = node._next[i][0]
                if nxt is not None and nxt not in needed and nxt not in on_path:
                    stack.append((nxt, 0))
                continue
            hit = (task.accumulate and node in targets) or any(
                needed.get(n, False) or n in targets for n, _ in node._next if n is not None)
            needed[node] = hit
            on_path.discard(node)
    task.needed = needed


def _shape_of(inputs: list[Any]) -> Any:
    """The shape of the first gradient flowing into a node (for the trace; of a multi-output
    node, the first of its outputs that got one), or None."""
    for g in inputs:
        if g is not None:
            return g.shape
    return None


def _evaluate(task: _Task, node: Node, inputs: list[Any], mode: Any) -> list[Any] | None:
    # tensor pre-hooks (register_hook on a non-leaf), then retain_grad, then capture
    if node._tensor_pre_hooks or node._retain_hooks:
        inputs = _tensor_hooks(node, inputs, task)
    if isinstance(node, AccumulateGrad) and node.variable._hooks:
        inputs = [_leaf_hooks(task, node, inputs[0])]
    caps = task.captures.get(node)
    if caps:
        for nr, i in caps:
            g = inputs[nr]
            task.captured[i] = _to_tensor(g, node._meta[nr][1]) if g is not None else None
    if task.needed is not None and not task.needed.get(node, False):
        return None
    if node._pre_hooks:
        for hook in node._pre_hooks:
            res = hook(tuple(_to_tensor(g, m[1]) if g is not None else None
                             for g, m in zip(inputs, node._meta, strict=False)))
            if res is not None:
                _check_count(hook, res, len(inputs))
                inputs = [r._data if (r is not None and mode is NP) else r for r in res]
    trace = events.trace
    if isinstance(node, AccumulateGrad):
        if trace is not None:
            trace.append((RAN, node._uid, node._name, _shape_of(inputs)))
        _accumulate(task, node, inputs[0], hooked=True)
        outputs: list[Any] = []
    else:
        if isinstance(node, GraphRoot):
            outputs = node.grads        # NB: not a step: PyTorch's GraphRoot is never shown
        else:
            outputs = _call(task, node, inputs, mode)
            if trace is not None:
                trace.append((RAN, node._uid, node._name, _shape_of(inputs)))
    if not task.keep:
        node.release_variables()
    if node._post_hooks:
        for hook in node._post_hooks:
            ins = tuple(_to_tensor(g, None) if g is not None else None for g in outputs)
            outs = tuple(_to_tensor(g, None) if g is not None else None for g in inputs)
            res = hook(ins, outs)
            if res is not None:
                _check_count(hook, res, len(ins))
                outputs = [r._data if (r is not None and mode is NP) else r for r in res]
    return outputs


def _check_count(hook: Any, res: Any, expected: int) -> None:
    got = len(res) if isinstance(res, tuple | list) else 1
    if got != expected:
        raise RuntimeError(f"hook '{getattr(hook, '__name__', 'hook')}' has returned an "
                           f"incorrect number of values (got {got}, but expected {expected})")


def _needs(task: _Task, node: Node) -> tuple[bool, ...]:
    needed = task.needed
    if needed is None:
        return _needs_of(node._next)
    return tuple(n is not None and (needed.get(n, False) or n in task.captures)
                 for n, _ in node._next)


def _call(task: _Task, node: Node, inputs: list[Any], mode: Any) -> list[Any]:
    needs = _needs(task, node)
    if isinstance(node, CopySlices):
        return _copy_slices_backward(task, node, inputs, mode, needs)
    op = node.op
    if op is None and isinstance(node, BackwardCFunction):
        # a custom Function: its user-written backward, on tensors
        return _validate(node, node.run_backward(inputs, task.create), mode)
    assert op is not None
    hooked = _check_saved(node)
    if all(g is None for g in inputs):
        grads: Any = [None] * len(node._next)
    elif op.n_outputs == 1:
        g = inputs[0]
        if g is None:
            g = _zeros(node._meta[0], mode)
        grads = _validate(node, list(op.backward(op.ctx(node, task.create, needs), g, mode)),
                          mode)
    else:
        grads = _validate(node, list(op.backward(op.ctx(node, task.create, needs), inputs,
                                                 mode)), mode)
    if hooked:
        _forget_unpacked(node)
    return grads


def _check_saved(node: Node) -> bool:
    """Unpack each saved value as PyTorch does when a node runs, before its formula and in its
    order: a freed or modified one raises. True when a saved-tensor unpack hook ran: its
    tensor is kept for the formula until ``_forget_unpacked``."""
    saved = node._saved
    if not saved or node.op is None:
        return False
    hooked = False
    for name in node.op.unpack_order:
        slot: Any = saved.get(name)
        for s in [slot] if isinstance(slot, SavedTensor) else slot or ():
            if type(s) is HookedSavedTensor:
                s.unpack_for_run(node)
                hooked = True
            elif s is not None:
                s.unpack(node, False)
                t = s.tensor
                if t is not None and t._grad_fn is None and type(s) is SavedTensor and \
                        s.had_fn:
                    raise RuntimeError(msg.SAVED_DETACHED)
    return hooked


def _forget_unpacked(node: Node) -> None:
    """Drop what the unpack hooks gave the node's run (a retained graph unpacks again)."""
    for slot in (node._saved or {}).values():
        for s in slot if isinstance(slot, list) else (slot,):
            if type(s) is HookedSavedTensor:
                s.forget()


def _zeros(meta: tuple[tuple[int, ...], dt.DType], mode: Any) -> Any:
    arr = np.zeros(meta[0], dtype=meta[1].np)
    return arr if mode is NP else Tensor._make(arr, meta[1])


def _validate(node: Node, grads: Any, mode: Any) -> Any:
    """Reduce each gradient to its input's shape and cast it to its dtype (PyTorch does this
    in validate_outputs); the one place broadcasting is undone."""
    metas = node._in_meta
    edges = node._next
    changed = LeafData.changed
    out = None
    i = -1
    for g in grads:
        i += 1
        if g is None:
            continue
        meta = metas[i]
        if meta is None:
            continue
        nxt = edges[i][0] if i < len(edges) else None
        if type(nxt) is AccumulateGrad:
            meta = nxt._meta[0]   # NB: the leaf's shape when its accumulator was made (.data)
        elif changed and nxt is not None and edges[i][1] < len(nxt._meta):
            # NB: a tensor whose shape changed under no_grad (``x.unsqueeze_(0)``): the shape
            # its grad_fn made, as PyTorch checks each gradient against the next node's
            meta = nxt._meta[edges[i][1]] or meta
        shape, dtype = meta
        if mode is NP:
            if type(g) is np.ndarray and g.shape == shape and g.dtype is dtype.np:
                continue
            g = np.asarray(g)
            if g.shape != shape:
                g = _sum_to(node, i, g, shape)
            if g.dtype != dtype.np:
                g = g.astype(dtype.np)
        else:
            if g._data.shape == shape and g._dtype is dtype:
                continue
            if g._data.shape != shape:
                _sum_plan(node, i, g._data.shape, shape)
                g = mode.sum_to(g, shape)
            if g._dtype is not dtype:
                g = mode.to_copy(g, dtype=dtype.np)
        if out is None:
            out = list(grads)
        out[i] = g
    return grads if out is None else out


# (gradient shape, input shape) -> (the axes to sum, whether they are all leading axes)
_AXES: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], bool] | None] = {}


def _sum_plan(node: Node, i: int, gshape: tuple[int, ...], shape: tuple[int, ...]
               ) -> tuple[tuple[int, ...], bool]:
    """How a gradient of ``gshape`` reduces to its input's ``shape``; PyTorch's error where it
    cannot."""
    key = (gshape, shape)
    try:
        plan = _AXES[key]
    except KeyError:
        lead = len(gshape) - len(shape)
        ok = lead >= 0 and all(s == 1 or s == gs for s, gs in zip(shape, gshape[lead:],
                                                                   strict=True))
        plan = None
        if ok:
            axes = tuple(range(lead)) + tuple(lead + k for k, s in enumerate(shape)
                                              if s == 1 and gshape[lead + k] != 1)
            # NB: a 0-d target keeps the reshape: summing everything gives a numpy scalar
            plan = (axes, bool(shape) and all(a < lead for a in axes))
        if len(_AXES) < 4096:
            _AXES[key] = plan
    if plan is None:
        raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - "
                           f"got [{', '.join(map(str, gshape))}] but expected shape compatible "
                           f"with [{', '.join(map(str, shape))}]")
    return plan


def _sum_to(node: Node, i: int, g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    axes, leading = _sum_plan(node, i, g.shape, shape)
    if axes:
        if leading:
            # NB: summing leading axes away gives the shape itself, as a fresh array (no view
            # for AccumulateGrad to copy)
            return np.add.reduce(g, axis=axes)
        g = np.add.reduce(g, axis=axes, keepdims=True)
    return g.reshape(shape)


def _copy_slices_backward(task: _Task, node: CopySlices, inputs: list[Any], mode: Any,
                          needs: tuple[bool, ...]) -> list[Any]:
    if node.fn is None:
        raise RuntimeError(msg.BACKWARD_TWICE)
    if mode is not NP:
        # NB: with nothing requiring grad (a constant gradient, no saved value that does) the
        # result needs no graph: computed on arrays, as PyTorch's is a tensor with no grad_fn
        if _any_requires_grad(inputs, node.fn):
            raise NotImplementedError("create_graph through an in-place op on a view is not "
                                      "supported by this engine")
        arrays = [g._data if isinstance(g, Tensor) else g for g in inputs]
        out = _copy_slices_backward(task, node, arrays, NP, needs)
        return [None if r is None or m is None else Tensor._make(np.asarray(r), m[1])
                for r, m in zip(out, node._in_meta, strict=False)]
    fn = node.fn
    g = inputs[0] if inputs[0] is not None else _zeros(node._meta[0], mode)
    order = node.order
    if order is None:
        result = np.array(g, copy=True)
    else:
        g = np.asarray(g)
        result = np.empty(tuple(g.shape[d] for d in order), g.dtype).transpose(
            tuple(order.index(d) for d in range(len(order))))
        result[...] = g
    part = node.view_fn(result)
    fn_needs = (True, *needs[1:])
    assert fn.op is not None
    hooked = _check_saved(fn)
    res = list(fn.op.backward(fn.op.ctx(fn, False, fn_needs), part.copy(), mode))
    if hooked:
        _forget_unpacked(fn)
    res = _validate(fn, res, mode)
    if not part.flags.writeable:
        # NB: a part of an expanded view: PyTorch's copy_ refuses it where elements share memory
        if internal_overlap(part):
            raise RuntimeError(msg.OVERLAPPING_WRITE)
        part = writable_alias(result, part)
    part[...] = 0 if res[0] is None else res[0]
    return [result, *res[1:]]


def _any_requires_grad(inputs: list[Any], fn: Node) -> bool:
    # NB: a saved output (no tensor kept) is its node's output: it requires grad
    return any(isinstance(g, Tensor) and g.requires_grad for g in inputs) or any(
        s.tensor is None or s.tensor.requires_grad for _, s in fn.saved_slots())


def _tensor_hooks(node: Node, inputs: list[Any], task: _Task) -> list[Any]:
    inputs = list(inputs)
    for nr, hooks in (node._tensor_pre_hooks or {}).items():
        for hook in list(hooks):
            # NB: as PyTorch, a hook sees a gradient that is not computed, as None
            g = inputs[nr]
            res = hook(_to_tensor(g, node._meta[nr][1]) if g is not None else None)
            if res is not None:
                _check_hook_result(hook, g, res)
                inputs[nr] = res if task.create else res._data
    for nr, ref in (node._retain_hooks or {}).items():
        owner = ref()
        g = inputs[nr]
        if owner is None or g is None:
            continue
        new = np.array(g._data if isinstance(g, Tensor) else g, copy=True)
        if owner._grad is None:
            owner._grad = Tensor._make(new, owner._dtype)
        else:
            owner._grad = Tensor._make(owner._grad._data + new, owner._dtype)
    return inputs


def _to_tensor(g: Any, dtype: dt.DType | None) -> Tensor:
    if isinstance(g, Tensor):
        return g
    arr = np.asarray(g)
    return Tensor._make(arr, dtype if dtype is not None else dt.from_numpy(arr.dtype))


def _leaf_hooks(task: _Task, node: AccumulateGrad, g: Any) -> Any:
    var = node.variable
    for hook in list(var._hooks or ()):
        res = hook(_to_tensor(g, var._dtype) if g is not None else None)
        if res is not None:
            _check_hook_result(hook, g, res)
            g = res if task.create else res._data
    return g


def _check_hook_result(hook: Any, g: Any, res: Any) -> None:
    if g is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    shape = g._data.shape if isinstance(g, Tensor) else np.shape(g)
    if not isinstance(res, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(res).__name__}'")
    if res._data.shape != shape:
        raise RuntimeError(f"hook '{getattr(hook, '__name__', 'hook')}' has changed the size of "
                           "value")


def _accumulate(task: _Task, node: AccumulateGrad, g: Any, hooked: bool = False) -> None:
    var = node.variable
    if var._hooks and not hooked:
        g = _leaf_hooks(task, node, g)
    dtype = var._dtype
    if LeafData.changed and g is not None and not isinstance(g, Tensor) and g.dtype != dtype.np:
        # NB: a graph made before the leaf's .data changed dtype: its gradients keep the old one
        dtype = dt.from_numpy(g.dtype)
    for _, i in task.captures.get(node, ()):
        task.captured[i] = _to_tensor(g, dtype) if g is not None else None
    if not task.accumulate:
        return
    if g is None:
        # NB: as PyTorch, a leaf reached without a gradient still calls its post-accumulate hooks
        for hook in list(var._post_acc_hooks or ()):
            hook(var)
        return
    if task.create:
        new = g if isinstance(g, Tensor) else _to_tensor(g, dtype)
        if var._grad is None:
            # NB: PyTorch copies the first gradient into a new tensor (CopyBackwards)
            from .indexing import copy_
            var._grad = copy_(Tensor._make(np.empty_like(new._data), new._dtype), new)
            var._grad._vc.v = 0
        else:
            var._grad = var._grad + new
    elif var._grad is None:
        # NB: keep the array unless something else may hold it too (a view, a gradient handed to
        # several leaves, the caller's own gradient): then copy, so no two .grad share memory
        if g.base is not None or id(g) in task.owned or not g.flags.writeable:
            g = np.array(g, dtype=dtype.np, copy=True)
            bumps = 0
        else:
            # PyTorch sums several incoming gradients in place and keeps that tensor: its
            # version counts those sums
            bumps = task.sums.get(node, 0)
        task.owned.add(id(g))
        var._grad = Tensor._make(g, dtype)
        var._grad._vc.v = bumps
    else:
        old = var._grad
        if _WATCH:
            before_write(old)
        old._data += g
        old._vc.v += 1
    trace = events.trace
    if trace is not None:
        trace.append((ACCUMULATED, var._uid, var._grad._data.shape))
    if var._post_acc_hooks:
        for hook in list(var._post_acc_hooks):
            hook(var)


_ = grad_state
