"""The recorder: listens to the engine, snapshots the graph around every backward, logs each
backward step by step. It holds weak references only: recording never keeps a graph alive."""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import frames
from .predict import predict
from .snapshot import NodeInfo, Prediction, SavedInfo, Snapshot, TensorInfo

__all__ = ["record", "Recording", "BackwardRecord", "Step", "load", "RECORDING_FORMAT"]

RECORDING_FORMAT = "graphviz-autograd/recording"


@dataclass
class Step:
    """One node run by a backward: what flowed in, what it released, what it accumulated."""

    node: str
    name: str
    grad_shape: list[int] | None
    released: list[dict[str, Any]] = field(default_factory=list)     # {name, nbytes}
    accumulated: dict[str, Any] | None = None                         # {tensor, grad_shape}


@dataclass
class BackwardRecord:
    """One backward call (``Tensor.backward``, ``autograd.backward`` or ``autograd.grad``)."""

    number: int
    api: str
    retain_graph: bool
    create_graph: bool
    roots: list[str]
    source: dict[str, Any] | None = None
    steps: list[Step] = field(default_factory=list)
    failed_at: str | None = None
    error: dict[str, str] | None = None
    snapshot_before: int | None = None
    snapshot_after: int | None = None


class _Meta:
    """What the recorder remembers of a node it saw created (weakly)."""

    __slots__ = ("ref", "name", "source", "created_by")

    def __init__(self, ref: Any, name: str, source: tuple[str, int] | None, created_by: int):
        self.ref = ref
        self.name = name
        self.source = source
        self.created_by = created_by


class Recording:
    """Snapshots and backward logs of the code run inside ``record()``.

    >>> import graphviz_autograd.torch as torch
    >>> from graphviz_autograd import record
    >>> with record() as rec:
    ...     x = torch.tensor(2.0, requires_grad=True)
    ...     y = x * x
    ...     y.backward()
    >>> [s.kind for s in rec.snapshots]
    ['before_backward', 'after_backward']
    >>> [s.state for s in rec.snapshots[1].nodes_labelled("y")[0].saved]
    ['freed', 'freed']
    """

    def __init__(self, engine: Any = None, names: bool = True, sources: bool = True,
                 keep_last: int | None = None) -> None:
        if engine is None:
            from .native import NativeEngine
            engine = NativeEngine()
        self.engine = engine
        self.names = names
        self.sources = sources
        self.keep_last = keep_last
        self.snapshots: list[Snapshot] = []
        self.backwards: list[BackwardRecord] = []
        self._meta: dict[int, _Meta] = {}
        self._released: dict[tuple[int, str], int] = {}
        self._executed: dict[int, list[int]] = {}
        self._edits: dict[int, tuple[Any, list[dict[str, Any]]]] = {}   # in-place edits
        self._current: BackwardRecord | None = None
        self._previous_ids: set[str] = set()
        self._count = 0
        self._handlers: dict[str, Any] = {
            "node_created": self._node_created, "tensor_modified": self._tensor_modified,
            "backward_started": self._backward_started, "node_executed": self._node_executed,
            "buffer_released": self._buffer_released, "grad_accumulated": self._grad_accumulated,
            "backward_finished": self._backward_finished, "backward_failed": self._backward_failed,
        }
        self._active = False

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> Recording:
        if not self._active:
            self.engine.subscribe(self._on_event)
            self._active = True
        return self

    def stop(self) -> None:
        if self._active:
            self.engine.unsubscribe(self._on_event)
            self._active = False

    def _on_event(self, event: str, *args: Any) -> None:
        handler = self._handlers.get(event)
        if handler is not None:
            handler(*args)

    # -- events ---------------------------------------------------------------------------------
    def _node_created(self, node: Any, tensor: Any) -> None:
        E = self.engine
        src = frames.where(3) if self.sources else None
        self._meta[E.node_uid(node)] = _Meta(weakref.ref(node), E.node_name(node), src,
                                              len(self.backwards))

    def _tensor_modified(self, tensor: Any, node: Any) -> None:
        E = self.engine
        src = frames.where(3) if self.sources else None
        counter = E.counter(tensor)
        edit = {"version": E.describe(tensor)["version"], "after_backward": len(self.backwards),
                "source": self._source_dict(src), "tensor": f"t{E.tensor_uid(tensor)}",
                "parameter": E.is_parameter(tensor)}
        # NB: keyed by the version counter (shared by views); the counter is kept, a small int
        entry = self._edits.setdefault(id(counter), (counter, []))
        entry[1].append(edit)

    def _backward_started(self, info: Any) -> None:
        E = self.engine
        number = len(self.backwards) + 1
        roots = []
        for t in info.roots:
            fn = E.grad_fn(t) if E.is_tensor(t) else None
            if fn is None and E.is_tensor(t):
                fn = E.accumulator(t)
            roots.append(f"n{E.node_uid(fn)}" if fn is not None else f"t{E.tensor_uid(t)}")
        src = frames.where(3)
        rec = BackwardRecord(number, info.api, bool(info.retain_graph), bool(info.create_graph),
                             roots, self._source_dict(src))
        self.backwards.append(rec)
        self._current = rec
        snap = self._take("before_backward", f"before backward #{number}", rec, info=info)
        rec.snapshot_before = snap.index

    def _node_executed(self, node: Any, grad: Any) -> None:
        rec = self._current
        if rec is None:
            return
        E = self.engine
        uid = E.node_uid(node)
        shape = list(getattr(grad, "shape", ())) if grad is not None else None
        rec.steps.append(Step(f"n{uid}", E.node_name(node), shape))
        self._executed.setdefault(uid, []).append(rec.number)

    def _buffer_released(self, node: Any, name: str, array: Any) -> None:
        rec = self._current
        if rec is None:
            return
        uid = self.engine.node_uid(node)
        self._released[(uid, name)] = rec.number
        nbytes = int(getattr(array, "nbytes", 0)) if array is not None else 0
        if rec.steps and rec.steps[-1].node == f"n{uid}":
            rec.steps[-1].released.append({"name": name, "nbytes": nbytes})

    def _grad_accumulated(self, tensor: Any, grad: Any) -> None:
        rec = self._current
        if rec is None or not rec.steps:
            return
        rec.steps[-1].accumulated = {"tensor": f"t{self.engine.tensor_uid(tensor)}",
                                     "grad_shape": list(getattr(grad, "shape", ()))}

    def _backward_finished(self, info: Any) -> None:
        rec = self._current
        if rec is None:
            return
        snap = self._take("after_backward", f"after backward #{rec.number}", rec)
        rec.snapshot_after = snap.index
        self._current = None

    def _backward_failed(self, info: Any, node: Any, error: BaseException) -> None:
        rec = self._current
        if rec is None:
            return
        rec.error = {"type": type(error).__name__, "message": str(error)}
        if node is not None:
            rec.failed_at = f"n{self.engine.node_uid(node)}"
        snap = self._take("backward_failed", f"backward #{rec.number} failed", rec,
                          error=rec.error)
        rec.snapshot_after = snap.index
        self._current = None

    # -- snapshots ------------------------------------------------------------------------------
    def snapshot(self, label: str | None = None) -> Snapshot:
        """Take a snapshot by hand (e.g. after ``del y``)."""
        return self._take("manual", label or f"snapshot {self._count}", None)

    def _source_dict(self, src: tuple[str, int] | None) -> dict[str, Any] | None:
        if src is None:
            return None
        return {"file": src[0], "line": src[1], "code": frames.code_at(*src)}

    def _take(self, kind: str, label: str, rec: BackwardRecord | None, info: Any = None,
              error: dict[str, str] | None = None) -> Snapshot:
        snap = _build(self, kind, label, rec, info, error)
        self.snapshots.append(snap)
        self._count += 1
        if self.keep_last is not None and len(self.snapshots) > self.keep_last:
            del self.snapshots[: len(self.snapshots) - self.keep_last]
        return snap

    # -- persistence ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"format": RECORDING_FORMAT, "version": 1,
                "snapshots": [s.to_dict() for s in self.snapshots],
                "backwards": [asdict(b) for b in self.backwards]}

    def save(self, path: str | Path) -> None:
        """Write the recording as JSON (``graphviz_autograd.load`` reads it back)."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Recording:
        if d.get("format") != RECORDING_FORMAT:
            raise ValueError(f"not a graphviz-autograd recording (format {d.get('format')!r})")
        rec = cls.__new__(cls)
        rec.__init__(engine=_Offline())  # type: ignore[misc]
        rec.snapshots = [Snapshot.from_dict(s) for s in d["snapshots"]]
        rec.backwards = [BackwardRecord(**{**b, "steps": [Step(**s) for s in b["steps"]]})
                         for b in d["backwards"]]
        return rec

    def __repr__(self) -> str:
        return (f"<Recording: {len(self.snapshots)} snapshots, {len(self.backwards)} "
                f"backward calls>")


class _Offline:
    """The engine of a recording read back from JSON: none."""

    name = "offline"


def load(path: str | Path) -> Recording:
    """Read a recording saved with ``Recording.save``."""
    return Recording.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


@contextmanager
def record(engine: Any = None, names: bool = True, sources: bool = True,
           keep_last: int | None = None) -> Iterator[Recording]:
    """Record every backward run inside the block: a snapshot just before and just after each
    (a failure snapshot if it raises; the exception still reaches your code), and its steps."""
    rec = Recording(engine, names, sources, keep_last).start()
    try:
        yield rec
    finally:
        rec.stop()


# -- building a snapshot ---------------------------------------------------------------------------
def _edits_of(rec: Recording, slot: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The in-place edits that moved a saved tensor past the version it was saved at."""
    entry = rec._edits.get(slot.get("counter", -1))
    if entry is None or slot["versions"] is None:
        return None
    saved_at = slot["versions"][0]
    return [e for e in entry[1] if e["version"] > saved_at] or None


def _build(rec: Recording, kind: str, label: str, brec: BackwardRecord | None, info: Any,
           error: dict[str, str] | None) -> Snapshot:
    E = rec.engine
    user = list(frames.user_frames())
    here = (user[0].f_code.co_filename, user[0].f_lineno) if user else None
    named = frames.find_names(user, E.is_tensor, E.is_module) if rec.names else {}
    del user

    # the live graph: nodes seen created (still alive), those of named tensors, and below them
    starts: list[Any] = []
    dead: list[int] = []
    for uid, meta in rec._meta.items():
        n = meta.ref()
        if n is None:
            dead.append(uid)
        else:
            starts.append(n)
    tensor_labels: dict[int, list[str]] = {}
    node_labels: dict[int, list[str]] = {}
    tensors: dict[int, Any] = {}
    for t, names in named.values():
        tid = E.tensor_uid(t)
        tensor_labels[tid] = names
        tensors[tid] = t
        fn = E.grad_fn(t) or E.accumulator(t)
        if fn is not None:
            starts.append(fn)
            node_labels.setdefault(E.node_uid(fn), []).extend(names)
    if info is not None:
        for t in info.roots:
            if E.is_tensor(t):
                fn = E.grad_fn(t) or E.accumulator(t)
                if fn is not None:
                    starts.append(fn)
    nodes: dict[int, Any] = {}
    stack = starts
    while stack:
        n = stack.pop()
        uid = E.node_uid(n)
        if uid in nodes:
            continue
        nodes[uid] = n
        stack.extend(m for m in E.next_nodes(n) if m is not None)

    order = sorted(nodes)
    nexts = {uid: [E.node_uid(m) if m is not None else None for m in E.next_nodes(nodes[uid])]
             for uid in order}
    saved = {uid: E.saved(nodes[uid]) for uid in order}

    # roots and what reaches what (bitmasks over roots, in topological order)
    indeg = dict.fromkeys(order, 0)
    for uid in order:
        for m in nexts[uid]:
            if m is not None:
                indeg[m] += 1
    roots = [uid for uid in order if indeg[uid] == 0]
    reach = {uid: 0 for uid in order}
    for i, r in enumerate(roots):
        reach[r] = 1 << i
    pending = dict(indeg)
    queue = list(roots)
    while queue:
        uid = queue.pop()
        for m in nexts[uid]:
            if m is None:
                continue
            reach[m] |= reach[uid]
            pending[m] -= 1
            if pending[m] == 0:
                queue.append(m)

    def meta_of(uid: int) -> _Meta | None:
        return rec._meta.get(uid)

    created = {uid: (m.created_by if (m := meta_of(uid)) is not None else 0) for uid in order}
    node_infos = []
    for uid in order:
        n = nodes[uid]
        bits = reach[uid]
        root_ids = [roots[i] for i in range(len(roots)) if bits >> i & 1]
        executed = rec._executed.get(uid, [])
        var = E.variable(n)
        # NB: a leaf's accumulator is reused by every graph over it, harmlessly: not "shared"
        reused = var is None and any(created[r] >= k for k in executed for r in root_ids)
        known = meta_of(uid)
        src = rec._source_dict(known.source) if known is not None else None
        if var is not None:
            vid = E.tensor_uid(var)
            tensors.setdefault(vid, var)
            labels = list(tensor_labels.get(vid, []))
        else:
            labels = list(dict.fromkeys(node_labels.get(uid, [])))
        node_infos.append(NodeInfo(
            id=f"n{uid}", name=E.node_name(n),
            next=[f"n{m}" if m is not None else None for m in nexts[uid]],
            saved=[SavedInfo(s["name"], s["state"], s["shape"], s["dtype"], s["nbytes"],
                             rec._released.get((uid, s["name"])), s["versions"],
                             _edits_of(rec, s) if s["state"] == "modified" else None)
                   for s in saved[uid]],
            labels=labels, source=src, executed_by=list(executed),
            roots=[f"n{r}" for r in root_ids], shared=len(root_ids) > 1 or reused,
            created_by=created[uid], recorded=known is not None,
            variable=f"t{E.tensor_uid(var)}" if var is not None else None))

    tensor_infos = []
    for tid in sorted(tensors):
        t = tensors[tid]
        d = E.describe(t)
        fn = E.grad_fn(t)
        tnames = tensor_labels.get(tid)
        tensor_infos.append(TensorInfo(
            id=f"t{tid}", label=tnames[0] if tnames else None, shape=d["shape"], dtype=d["dtype"],
            requires_grad=d["requires_grad"], is_leaf=d["is_leaf"],
            grad_fn=f"n{E.node_uid(fn)}" if fn is not None else None, grad=d["grad"],
            version=d["version"]))

    alive_keys: dict[Any, int] = {}
    freed = 0
    for uid in order:
        for s in saved[uid]:
            if s["state"] == "freed":
                freed += s["nbytes"]
            elif s["key"] is not None:
                alive_keys[s["key"]] = s["nbytes"]
    memory = {"saved_bytes_alive": sum(alive_keys.values()), "saved_bytes_freed": freed}

    states = {f"n{uid}": node_infos[i].saved for i, uid in enumerate(order)}
    released = {k: v for k, v in rec._released.items() if k[0] in nodes}
    predictions = [predict(E, [nodes[r]], states, released) for r in roots]
    prediction: Prediction | None = None
    if brec is not None and kind == "before_backward" and info is not None:
        targets = [nodes[int(r[1:])] for r in brec.roots if r.startswith("n") and
                   int(r[1:]) in nodes]
        prediction = predict(E, targets, states, released) if targets else None
    elif predictions:
        prediction = max(predictions, key=lambda p: int(p.root[1:]) if p.root else -1)

    ids = {f"n{uid}" for uid in order}
    collected = sorted(rec._previous_ids - ids, key=lambda s: int(s[1:]))
    rec._previous_ids = ids
    for uid in dead:
        rec._meta.pop(uid, None)
        rec._executed.pop(uid, None)
    for key in [k for k in rec._released if k[0] in dead]:
        del rec._released[key]
    return Snapshot(index=rec._count, label=label, kind=kind,
                    backward=brec.number if brec is not None else None, error=error,
                    nodes=node_infos, tensors=tensor_infos, prediction=prediction, memory=memory,
                    predictions=predictions, collected=collected,
                    source=rec._source_dict(here))
