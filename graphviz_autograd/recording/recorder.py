"""The recorder: listens to the engine, snapshots the graph around every backward, logs each
backward step by step. It holds weak references only: recording never keeps a graph alive."""

from __future__ import annotations

import gc
import itertools
import json
import warnings
import weakref
from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from ..engine.events import RAN, RELEASED, Dispatch
from . import frames
from .capture import Raw, Static, capture, materialize
from .native import NativeEngine, static_record
from .snapshot import NodeInfo, SavedInfo, Snapshot

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
    # NB: the library function the user's line called that ran this backward (``hessian``,
    # ``vmap``'s wrapper), or None where the line called ``backward`` / ``grad`` itself
    via: str | None = None
    # NB: the user's lines that called the function ``source`` is in, innermost first (a
    # ``d_step()`` call in the training loop), or None where ``source`` is the outermost
    callers: list[dict[str, Any]] | None = None
    # NB: the tensors (``t<id>``) it was asked the gradients of (``autograd.grad``'s inputs,
    # ``backward(inputs=...)``), in the call's order; None where it names none
    inputs: list[str] | None = None


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
        if engine is None or isinstance(engine, str):
            from .engines import engine_named
            engine = engine_named(engine)
        self.engine = engine
        self.names = names
        self.sources = sources
        self.keep_last = keep_last
        self._raws: list[Raw | Snapshot] = []
        self._loaded_gradients: dict[int, dict[int, tuple[int, int]]] = {}
        self._backwards: list[BackwardRecord] = []
        # NB: each backward's steps as logged (lists: [node uid, name, grad shape, released,
        # accumulated]), made into Steps when ``backwards`` is read
        self._logs: list[tuple[BackwardRecord, list[Any]]] = []
        self._log: list[Any] | None = None
        # NB: per node seen made: (weak reference, source, backwards run before it was made,
        # and, from the native engine, its static record until a walk first finds the node)
        self._meta: dict[int, tuple[Any, ...]] = {}
        self._static: dict[int, Static] = {}
        self._ids: dict[int, tuple[Any, ...]] = {}   # capture._made, per node
        self._infos: dict[int, NodeInfo] = {}        # per node, its last snapshot record
        self._freed_saved: dict[int, list[SavedInfo]] = {}   # per node: all freed, its records
        # per alive record (by id, kept with it): its freed twins, per backward that freed it
        self._freed_infos: dict[int, tuple[SavedInfo, dict[int | None, SavedInfo]]] = {}
        self._released: dict[tuple[int, str], int] = {}
        self._executed_log: list[tuple[int, int]] = []
        # per node, its entries of the log: (position, backward), so a snapshot reads only its
        # live nodes' runs (not the whole log, which grows with every backward); made from the
        # log when a snapshot is read (``runs_index``), up to ``_runs_upto`` entries
        self._runs: dict[int, list[tuple[int, int]]] = {}
        self._runs_upto = 0
        # in-place edits, per version counter: (version, after_backward, source, tensor uid,
        # parameter?), made into dicts only when a snapshot that shows them is read
        self._edits: dict[int, tuple[Any, list[tuple[Any, ...]]]] = {}
        self._current: BackwardRecord | None = None
        self._nested = 0          # backwards running inside the current one (see _backward_started)
        # NB: the native engine logs a backward's nodes in a trace (a list) rather than calling
        # a handler per node; it is read into the step log when the backward is over (or its
        # steps are asked for before)
        self._traces = hasattr(self.engine, "open_trace")
        self._trace: list[tuple[Any, ...]] | None = None
        self._trace_read = 0
        self._trace_owned = False
        self._previous_live: AbstractSet[int] = set()   # the last snapshot's live nodes
        self._count = 0
        self._n_backwards = 0            # backward calls seen (their numbers are 1-based)
        self._names_cache: tuple[Any, dict[int, tuple[Any, list[str]]]] | None = None
        self._code: dict[tuple[int, int], tuple[Any, dict[str, Any]]] = {}
        self._alive_infos: dict[tuple[Any, ...], SavedInfo] = {}   # slot -> its record
        # NB: a table the native engine calls into directly (one call per event)
        native = type(self.engine) is NativeEngine
        self._on_event = Dispatch({
            "node_created": self._native_node_created if native else self._node_created,
            "tensor_modified": self._tensor_modified,
            "backward_started": self._backward_started,
            "backward_finished": self._backward_finished, "backward_failed": self._backward_failed,
        })
        self._active = False
        self._uid: Any = getattr(self.engine, "node_uid", None)
        self._node_name: Any = getattr(self.engine, "node_name", None)
        # NB: an engine whose nodes take no weak references says how to find them again
        self._ref: Any = getattr(self.engine, "node_ref", None)

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> Recording:
        if not self._active:
            self.engine.subscribe(self._on_event)
            self._active = True
            _rarer_full_collections()
        return self

    def stop(self) -> None:
        self._end_trace()
        self._names_cache = None       # (a backward interrupted: it holds the user's tensors)
        if self._active:
            self.engine.unsubscribe(self._on_event)
            self._active = False
            _usual_collections()

    # -- events ---------------------------------------------------------------------------------
    def _node_created(self, node: Any, tensor: Any, here: Any = True) -> None:
        # NB: the hot path while recording: once per op; the rest is read at the next snapshot
        # (``here``: False where the node was made at some earlier line, unknown; or that
        # line, as ``frames.where`` gives it)
        ref = self._ref(node, tensor) if self._ref is not None else weakref.ref(node)
        # NB: the three frames above the caller are always the engines' own, skipped unread
        # (real torch: _emit, _new_nodes, _after_op or _backward, before __torch_function__;
        # the native engine: as in _native_node_created)
        src = (frames.where(6) if here is True else here or None) if self.sources else None
        self._meta[self._uid(node)] = (ref, src, self._n_backwards)

    def _native_node_created(self, node: Any, tensor: Any) -> None:
        # NB: the same for the native engine's nodes: their id is an attribute, and they take
        # weak references. The three frames above the handler's caller (emit) are always the
        # engine's (record, apply, an op; _copy_slices, apply_inplace, an op; _wrap_outputs,
        # _apply, Function.apply): skipped unread, as reading a frame makes an object of it
        # NB: found again through its tensor (as on real torch, whose nodes take no weak
        # references): a node only some hidden holder keeps (a saved clone, a rebased view's
        # old grad_fn) is out of reach on both engines
        # NB: and what it is (its static record), made now rather than by the next snapshot's
        # walk: the same work, once per node either way, but a snapshot of a graph built while
        # recording only reads what changed. Kept in the node's record until a walk first finds
        # the node (so a node dead before any snapshot leaves nothing behind)
        src = frames.where(6) if self.sources else None
        self._meta[node._uid] = (weakref.ref(tensor if tensor is not None else node), src,
                                 self._n_backwards,
                                 static_record(node, src, self._n_backwards, True))

    def _tensor_modified(self, tensor: Any, node: Any) -> None:
        E = self.engine
        src = frames.where(3) if self.sources else None
        counter = E.counter(tensor)
        edit = (E.version(tensor), self._n_backwards, src, E.tensor_uid(tensor),
                E.is_parameter(tensor))
        # NB: keyed by the version counter (shared by views); the counter is kept, a small int
        entry = self._edits.get(id(counter))
        if entry is None:
            entry = self._edits[id(counter)] = (counter, [])
        entry[1].append(edit)

    def _backward_started(self, info: Any) -> None:
        if self._current is not None:
            # NB: a backward inside a running one (a reentrant checkpoint's, a custom
            # Function's backward calling backward): part of the user's backward, as on real
            # torch, whose hooks see only the graph the user's backward runs; its own steps are
            # not the user's graph's
            self._read_trace()
            self._nested += 1
            return
        E = self.engine
        self._n_backwards += 1
        number = self._n_backwards
        roots = []
        for t in info.roots:
            # NB: a root may be a gradient edge (node, output_nr, token): its node is the root
            fn = E.grad_fn(t) if E.is_tensor(t) else t[0] if isinstance(t, tuple) else None
            if fn is None and E.is_tensor(t):
                fn = E.accumulator(t)
            roots.append(f"n{E.node_uid(fn)}" if fn is not None else f"t{E.tensor_uid(t)}")
        src, via = frames.entry(3)
        given = getattr(info, "inputs", None)
        rec = BackwardRecord(number, info.api, bool(info.retain_graph), bool(info.create_graph),
                             roots, self._source_dict(src), via=via,
                             callers=[d for c in frames.callers(3)
                                      if (d := self._source_dict(c)) is not None] or None,
                             inputs=[f"t{E.tensor_uid(t)}" for t in given
                                     if E.is_tensor(t)] or None if given else None)
        self._backwards.append(rec)
        self._read_trace()             # a backward inside a backward: the outer's steps so far
        self._current = rec
        self._log = []
        self._logs.append((rec, self._log))
        if self._traces:
            if self._trace is None:
                self._trace, self._trace_owned = self.engine.open_trace()
            self._trace_read = len(self._trace)
        rec.snapshot_before = self._take("before_backward", f"before backward #{number}", rec,
                                         targets=list(info.roots))

    def _read_trace(self) -> None:
        """Log what the engine traced since the last read: steps, releases, accumulations."""
        trace, log = self._trace, self._log
        if trace is None or log is None or self._trace_read == len(trace):
            return
        start = self._trace_read
        self._trace_read = len(trace)
        number = self._current.number if self._current is not None else self._n_backwards
        self._log_entries(itertools.islice(trace, start, self._trace_read), number)

    def _log_entries(self, entries: Iterable[tuple[Any, ...]], number: int) -> None:
        """Add trace entries (``events.trace``'s tuples) of backward ``number`` to its step log:
        a step per node run; its releases and accumulation go on the step before them."""
        log = self._log
        assert log is not None
        executed, released = self._executed_log, self._released
        for entry in entries:
            kind = entry[0]
            if kind == RAN:                # uid, name, grad shape
                log.append([entry[1], entry[2], entry[3], None, None])
                executed.append((entry[1], number))
            elif kind == RELEASED:         # uid, slot name, nbytes
                uid = entry[1]
                released[(uid, entry[2])] = number
                if log and log[-1][0] == uid:
                    last = log[-1]
                    if last[3] is None:
                        last[3] = [(entry[2], entry[3])]
                    else:
                        last[3].append((entry[2], entry[3]))
            elif log:                      # accumulated: tensor uid, shape
                log[-1][4] = (entry[1], entry[2])

    def _end_trace(self) -> None:
        """Read the trace, and stop the engine logging to it. The backward's step log is then
        final: its entries become tuples of plain values, which the garbage collector stops
        tracking (a long recording's logs would otherwise make each full collection slower)."""
        self._read_trace()
        log = self._log
        if log:
            log[:] = [tuple(e) if e[3] is None else (e[0], e[1], e[2], tuple(e[3]), e[4])
                      for e in log]
        if self._trace_owned:
            self.engine.close_trace()
        self._trace, self._trace_owned, self._trace_read = None, False, 0

    @property
    def backwards(self) -> list[BackwardRecord]:
        """Each backward call, with its steps."""
        self._read_trace()
        if self._logs:
            done = []
            for rec, log in self._logs:
                # NB: in place (a viewer may hold the list); the backward still running may add
                # to its last step, so its steps are made again at each read, and once more
                # when it is over
                rec.steps[:] = [_step(entry) for entry in log]
                if log is not self._log:
                    done.append(rec)
            if done:
                self._logs = [(r, log) for r, log in self._logs if log is self._log]
        return self._backwards

    def _nested_ended(self) -> bool:
        """A nested backward ended (see ``_backward_started``): its steps are skipped."""
        if not self._nested:
            return False
        self._nested -= 1
        if self._trace is not None:
            self._trace_read = len(self._trace)
        return True

    def _backward_finished(self, info: Any) -> None:
        if self._nested_ended():
            return
        self._end_trace()
        rec = self._current
        if rec is None:
            return
        rec.snapshot_after = self._take("after_backward", f"after backward #{rec.number}", rec)
        self._current = None
        self._log = None

    def _backward_failed(self, info: Any, node: Any, error: BaseException) -> None:
        if self._nested_ended():
            return
        self._end_trace()
        rec = self._current
        if rec is None:
            return
        rec.error = {"type": type(error).__name__, "message": str(error)}
        if node is not None:
            rec.failed_at = f"n{self.engine.node_uid(node)}"
        rec.snapshot_after = self._take("backward_failed", f"backward #{rec.number} failed",
                                        rec, error=rec.error)
        self._current = None
        self._log = None

    # -- snapshots ------------------------------------------------------------------------------
    @property
    def snapshots(self) -> Sequence[Snapshot]:
        """The snapshots, as plain data (each is derived when first read)."""
        return _Snapshots(self)

    def snapshot(self, label: str | None = None) -> Snapshot:
        """Take a snapshot by hand (e.g. after ``del y``)."""
        self._take("manual", label or f"snapshot {self._count}", None)
        return self.snapshots[-1]

    def _raised(self, error: BaseException) -> None:
        """A snapshot of the graph where the recorded code stopped at ``error`` (kind
        ``manual``, carrying the error; its place is the user's line that raised), unless it is
        a failed backward's own error, which has its snapshot already."""
        if isinstance(error, (SystemExit, GeneratorExit)) or not self._active:
            return
        info = {"type": type(error).__name__, "message": str(error)}
        last = self._raws[-1] if self._raws else None
        if last is not None and last.kind == "backward_failed" and last.error == info:
            return
        at = None
        tb = error.__traceback__
        while tb is not None:
            if not frames.is_internal(tb.tb_frame.f_code.co_filename):
                at = (tb.tb_frame, tb.tb_lasti)
            tb = tb.tb_next
        if at is None:
            # NB: raised before any of the user's code ran (a script that does not compile)
            return
        try:
            self._end_trace()
            self._take("manual", f"{info['type']} raised", None, error=info, at=at)
        except Exception as e:
            # NB: the user's error is what propagates: the recorder's own only warns
            warnings.warn(f"graphviz-autograd: no snapshot of the {info['type']} raised: "
                          f"{type(e).__name__}: {e}", RuntimeWarning, stacklevel=2)

    def _source_dict(self, src: tuple[Any, int] | None) -> dict[str, Any] | None:
        """{file, line, code} of a place ``frames.where`` found: (code object, offset)."""
        if src is None:
            return None
        # NB: one dict per place, shared by the records that point at it (read-only); keyed
        # by the code's id (hashing a code object hashes its contents), kept alive by the key
        # tuple in the value
        code, offset = src
        key = (id(code), offset)
        entry = self._code.get(key)
        if entry is None:
            # NB: a statement written over several lines is given by its first line and its
            # whole code, on one line, whichever of its lines the op ran on
            line, _, text = frames.statement_at(code.co_filename, frames.line_of(code, offset))
            entry = self._code[key] = (src, {"file": code.co_filename, "line": line,
                                             "code": text})
        return entry[1]

    def _edits_since(self, counter: int, saved_at: int) -> list[dict[str, Any]] | None:
        """The in-place edits that moved a saved tensor past the version it was saved at."""
        entry = self._edits.get(counter)
        if entry is None:
            return None
        return [{"version": v, "after_backward": after, "source": self._source_dict(src),
                 "tensor": f"t{tensor}", "parameter": parameter}
                for v, after, src, tensor, parameter in entry[1] if v > saved_at] or None

    def _take(self, kind: str, label: str, rec: BackwardRecord | None,
              error: dict[str, str] | None = None, targets: list[Any] | None = None,
              at: tuple[FrameType, int] | None = None) -> int:
        raw = capture(self, kind, label, rec.number if rec is not None else None, error,
                      targets, at)
        self._raws.append(raw)
        self._count += 1
        if self.keep_last is not None and len(self._raws) > self.keep_last:
            del self._raws[: len(self._raws) - self.keep_last]
            if self._count % max(self.keep_last, 16) == 0:
                self._forget()
        return raw.index

    def _forget(self) -> None:
        """Drop what only the snapshots dropped by ``keep_last`` needed: memory stays bounded
        by the snapshots kept and the nodes alive."""
        first_kept = self._raws[0].index if self._raws else self._count
        self._backwards = [b for b in self._backwards
                           if (b.snapshot_after if b.snapshot_after is not None else self._count)
                           >= first_kept]
        kept = {id(b) for b in self._backwards}
        self._logs = [(b, log) for b, log in self._logs if id(b) in kept]
        for key, (counter, edits) in list(self._edits.items()):
            if len(edits) > 64:
                self._edits[key] = (counter, edits[-64:])
        keep = set(self._meta) | self._previous_live
        for r in self._raws:
            if isinstance(r, Raw):
                keep.update(r.live)
        self._static = {u: st for u, st in self._static.items() if u in keep}
        self._ids = {u: ids for u, ids in self._ids.items() if u in keep}
        self._infos = {u: info for u, info in self._infos.items() if u in keep}
        self._freed_saved = {u: saved for u, saved in self._freed_saved.items() if u in keep}
        self._released = {k: v for k, v in self._released.items() if k[0] in keep}
        self._compact_log(keep)
        forget = getattr(self.engine, "forget", None)
        if forget is not None:
            forget(keep)              # NB: an engine that keeps records of its own nodes

    def runs_index(self) -> dict[int, list[tuple[int, int]]]:
        """Per node, its entries of the run log, (position, backward): the log's new entries
        indexed now (nothing is paid while recording; a snapshot read indexes what it needs)."""
        log, runs = self._executed_log, self._runs
        for pos in range(self._runs_upto, len(log)):
            uid, k = log[pos]
            got = runs.get(uid)
            if got is None:
                runs[uid] = [(pos, k)]
            else:
                got.append((pos, k))
        self._runs_upto = len(log)
        return runs

    def _compact_log(self, keep: set[int]) -> None:
        """Keep the log entries the kept snapshots can show: nodes still known, run by a kept
        backward, or a node's first run (all that reuse needs: run before a root was made). A
        node that lives across the whole loop (a leaf's accumulator) would otherwise add an
        entry per step for ever."""
        oldest = min((b.number for b in self._backwards), default=self._n_backwards + 1)
        first_run: set[int] = set()
        old = self._executed_log
        log: list[tuple[int, int]] = []
        # NB: executed_until counts entries of the log; kept[i] = entries kept among old[:i]
        kept = [0] * (len(old) + 1)
        for i, (uid, k) in enumerate(old):
            if uid in keep and (k >= oldest or uid not in first_run):
                log.append((uid, k))
            first_run.add(uid)
            kept[i + 1] = len(log)
        if len(log) != len(old):
            for r in self._raws:
                if isinstance(r, Raw):
                    r.executed_until = kept[r.executed_until]
            self._executed_log = log
            self._runs, self._runs_upto = {}, 0      # (made again when next read)

    # -- persistence ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"format": RECORDING_FORMAT, "version": 1,
                "snapshots": [s.to_dict() for s in self.snapshots],
                "backwards": [asdict(b) for b in self.backwards],
                # NB: which tensor each leaf's gradient was, per snapshot (a gradient kept
                # from one backward to the next)
                "gradients": {str(i): {f"t{uid}": list(g) for uid, g in grads.items()}
                              for i, grads in self._gradients().items() if grads}}

    def _gradients(self) -> dict[int, dict[int, tuple[int, int]]]:
        """Per snapshot kept, per leaf with a gradient: (which tensor it is, its version)."""
        out = {r.index: r.grads for r in self._raws if isinstance(r, Raw)}
        for index, grads in self._loaded_gradients.items():
            out.setdefault(index, grads)
        kept = {r.index for r in self._raws}
        return {i: g for i, g in out.items() if i in kept}

    def save(self, path: str | Path) -> None:
        """Write the recording as JSON (``graphviz_autograd.load`` reads it back)."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Recording:
        if d.get("format") != RECORDING_FORMAT:
            raise ValueError(f"not a graphviz-autograd recording (format {d.get('format')!r})")
        rec = cls(engine=_Offline())
        rec._raws = [Snapshot.from_dict(s) for s in d["snapshots"]]
        rec._count = max((s.index for s in rec._raws), default=-1) + 1
        rec._backwards = [BackwardRecord(**{**b, "steps": [Step(**s) for s in b["steps"]]})
                          for b in d["backwards"]]
        rec._n_backwards = max((b.number for b in rec._backwards), default=0)
        rec._loaded_gradients = {
            int(i): {int(t[1:]): (int(g[0]), int(g[1])) for t, g in grads.items()}
            for i, grads in d.get("gradients", {}).items()}
        return rec

    # -- display ------------------------------------------------------------------------------
    def widget(self) -> Any:
        """The stepper widget (Jupyter; needs ipywidgets): snapshots, backward steps, toggles,
        details; drawn on one layout."""
        from ..jupyter.widget import Stepper
        return Stepper(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        try:
            bundle: dict[str, Any] = self.widget()._repr_mimebundle_(include=include,
                                                                     exclude=exclude)
        except ImportError:
            last = self.snapshots[-1] if len(self.snapshots) else None
            bundle = {"text/plain": repr(self)}
            if last is not None:
                bundle["image/svg+xml"] = last.render("svg")
        return bundle

    def __repr__(self) -> str:
        return (f"<Recording: {len(self.snapshots)} snapshots, {len(self.backwards)} "
                f"backward calls>")


# NB: while recording, full collections of the garbage collector are made rarer (its oldest
# generation's threshold raised to _FULL, young generations as usual): a recording makes many
# small records, and each full collection they trigger walks every object of the process (a
# few hundred thousand once torch is imported: about 0.2 s each, every few steps of a real
# model). The threshold is given back when the last recording stops, unless the program set
# another meanwhile
_FULL = 1000
_gc_state: list[Any] = [0, None]       # recordings active, the thresholds they replaced


def _rarer_full_collections() -> None:
    if _gc_state[0] == 0:
        _gc_state[1] = before = gc.get_threshold()
        gc.set_threshold(before[0], before[1], max(before[2], _FULL))
    _gc_state[0] += 1


def _usual_collections() -> None:
    _gc_state[0] -= 1
    before = _gc_state[1]
    if _gc_state[0] == 0 and before is not None:
        _gc_state[1] = None
        if gc.get_threshold() == (before[0], before[1], max(before[2], _FULL)):
            gc.set_threshold(*before)


def _step(entry: Sequence[Any]) -> Step:
    uid, name, shape, released, accumulated = entry
    return Step(f"n{uid}", name, list(shape) if shape is not None else None,
                [{"name": n, "nbytes": b} for n, b in released] if released else [],
                {"tensor": f"t{accumulated[0]}", "grad_shape": list(accumulated[1])}
                if accumulated is not None else None)


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
    except BaseException as e:
        # NB: nothing lost: the graph where the block stopped is its last snapshot
        rec._raised(e)
        raise
    finally:
        rec.stop()


class _Snapshots(Sequence[Snapshot]):
    """The recording's snapshots, derived from their raw captures on first access."""

    def __init__(self, rec: Recording) -> None:
        self._rec = rec

    def __len__(self) -> int:
        return len(self._rec._raws)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        item = self._rec._raws[i]
        if isinstance(item, Snapshot):
            return item
        return materialize(self._rec, item)

    def __iter__(self) -> Iterator[Snapshot]:
        rec = self._rec
        for item in list(rec._raws):
            yield item if isinstance(item, Snapshot) else materialize(rec, item)
