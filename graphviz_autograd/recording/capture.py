"""Taking a snapshot cheaply, and turning it into plain data later.

At the moment of a snapshot only what can change is read from the live graph: which nodes are
alive, the state of each saved buffer, the user's names for tensors. What a node is (its name,
next nodes, saved buffers' shapes, source line) never changes, so it is read once per node into a
static table. The full ``Snapshot`` (roots, sharing, predictions, labels) is derived from these
when first asked for.
"""

from __future__ import annotations

import gc
from collections.abc import Container
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from . import frames
from .predict import NO_DERIVATIVE, predict
from .snapshot import NodeInfo, Prediction, SavedInfo, Snapshot, TensorInfo

if TYPE_CHECKING:
    from types import CodeType, FrameType

    from .recorder import Recording

__all__ = ["Static", "Raw", "capture", "materialize", "static_of", "ALIVE", "FREED", "ALL_ALIVE",
           "ALL_FREED"]

_NEXT = itemgetter(1)            # a Static's next nodes

# NB: a saved buffer's state as (state, version saved, version now, counter id); only a
# modified one needs the last three, so the others share one tuple
FREED = ("freed", 0, 0, 0)
ALIVE = ("alive", 0, 0, 0)
# NB: and a node whose buffers are all alive (most nodes, most of the time) shares one tuple of
# them per count: no new object for the cycle collector to scan after each snapshot, and a
# snapshot's reader knows them by identity
ALL_ALIVE = [(ALIVE,) * k for k in range(64)]
# NB: and one whose buffers are all freed (every node a backward ran): its records are made once
ALL_FREED = [(FREED,) * k for k in range(64)]


class Static(NamedTuple):
    """What a node is, for as long as it lives. A tuple: a walk makes one per new node with
    ``tuple.__new__(Static, (...))``, no Python call (``static_of`` gives the fields)."""

    name: str
    next: tuple[int | None, ...]
    seq: int
    # name, shape, dtype, nbytes, packed (kept as what a saved-tensor hook made of it)
    slots: tuple[tuple[str, tuple[int, ...], Any, int, bool], ...]
    variable: int | None          # AccumulateGrad: its leaf's uid
    source: tuple[Any, int] | None
    created_by: int
    recorded: bool                # made while recording (else: found by a walk, made before)


@dataclass
class Raw:
    """A snapshot as taken: the changing part of the graph at that moment."""

    index: int
    label: str
    kind: str
    backward: int | None
    error: dict[str, str] | None
    source: tuple[Any, int] | None
    live: list[int]
    states: dict[int, tuple[tuple[Any, ...], ...]]    # uid -> per slot (state, saved_v, v, counter)
    dead_ends: set[int]
    tensors: list[tuple[Any, ...]]
    node_labels: dict[int, list[str]]
    memory: dict[str, int]
    collected: list[int]
    executed_until: int
    targets: list[int] | None = None          # the roots of the backward about to run
    # NB: per leaf with a gradient, which tensor it is and its version (not saved: a gradient
    # kept from one backward to the next, or cleared)
    grads: dict[int, tuple[int, int]] = field(default_factory=dict)
    cached: Snapshot | None = field(default=None, repr=False)


def _no_gc(fn: Any) -> Any:
    """Build many small records without the cycle collector scanning the whole heap midway
    (they make no cycles); it runs again afterwards."""
    def wrapped(*args: Any, **kw: Any) -> Any:
        if not gc.isenabled():
            return fn(*args, **kw)
        gc.disable()
        try:
            return fn(*args, **kw)
        finally:
            gc.enable()
    wrapped.__doc__ = fn.__doc__
    wrapped.__wrapped__ = fn  # type: ignore[attr-defined]
    return wrapped


@_no_gc
def capture(rec: Recording, kind: str, label: str, backward: int | None,
            error: dict[str, str] | None, targets: list[Any] | None,
            at: tuple[FrameType, int] | None = None) -> Raw:
    E = rec.engine
    cached = rec._names_cache
    if at is not None:
        # NB: where an exception left the user's code (its frame, and the instruction that
        # raised): the names are those of that frame and the frames that called it
        user = list(frames.user_frames(at[0]))
        here: tuple[CodeType, int] | None = (at[0].f_code, at[1])
        named = frames.find_names(user, E.tensor_types, E.is_module) if rec.names else {}
        del user
    elif cached is not None and kind in ("after_backward", "backward_failed"):
        # NB: the snapshot after a backward: the user's code is where it was before it, and a
        # backward does not rebind the user's names
        here, named = cached
    else:
        user = list(frames.user_frames())
        here = (user[0].f_code, user[0].f_lasti) if user else None
        named = frames.find_names(user, E.tensor_types, E.is_module) if rec.names else {}
        del user
    if kind == "before_backward":
        rec._names_cache = (here, named)
    elif kind != "manual":
        rec._names_cache = None

    # NB: the named tensors first: reading a view's grad_fn may replace it (its base changed),
    # and the node it replaces must not be held here while the live nodes are gathered
    node_labels: dict[int, list[str]] = {}
    tensors = []
    grads: dict[int, Any] = {}
    named_starts = []
    facts = E.tensor_facts
    for t, names in named.values():
        uid, node, fn_uid, described = facts(t)
        if node is not None:
            named_starts.append(node)
            if fn_uid is not None:
                node_labels.setdefault(fn_uid, []).extend(names)
        tensors.append((uid, names, described, fn_uid))
        if described[3] and described[4] is not None:
            grads[uid] = E.grad_identity(t)
    starts: list[Any] = []
    dead = []
    gone = []
    node_of = E.node_of_ref
    for uid, meta in rec._meta.items():
        obj = meta[0]()
        if obj is None:
            gone.append(uid)
            continue
        n = node_of(obj)
        if n is None:
            dead.append(uid)
        else:
            starts.append(n)
    starts += named_starts
    target_uids = None
    if targets is not None:
        target_uids = []
        for t in targets:
            node = E.grad_fn(t) if E.is_tensor(t) else t[0] if isinstance(t, tuple) else None
            if node is not None:
                starts.append(node)
                target_uids.append(E.node_uid(node))

    walked = E.walk(starts, rec._static, rec._meta)
    states, dead_ends, leaves, alive_bytes, freed_bytes = walked
    metas = rec._meta
    for uid in gone:
        # NB: a way back whose tensor is gone gives nothing ever again: a node the walk
        # reached has its static record (made by this walk) and is found through others
        del metas[uid]
    for uid in dead:
        # NB: a node with no way back of its own now (a view whose base changed: its way back
        # gives the fresh grad_fn later) is still alive if the walk reached it
        if uid not in states:
            del metas[uid]
    known = {t[0] for t in tensors}
    for vid, var in leaves.items():
        if vid not in known:
            described = E.describe(var)
            tensors.append((vid, [], described, None))
            if described[4] is not None:
                grads[vid] = E.grad_identity(var)
    live = sorted(states)
    collected = sorted(rec._previous_live - states.keys())
    rec._previous_live = states.keys()
    return Raw(index=rec._count, label=label, kind=kind, backward=backward, error=error,
               source=here, live=live, states=states, dead_ends=dead_ends, tensors=tensors,
               node_labels=node_labels,
               memory={"saved_bytes_alive": sum(alive_bytes.values()),
                       "saved_bytes_freed": freed_bytes},
               collected=collected, executed_until=len(rec._executed_log),
               targets=target_uids, grads=grads)


def static_of(meta: tuple[Any, ...] | None, name: str, nxt: tuple[int | None, ...], seq: int,
              slots: tuple[Any, ...], var: int | None) -> Static:
    """A node's ``Static``, with the source and backward count the recorder noted when it was
    made (``meta``: the recorder's record of it; None: made before recording began)."""
    if meta is None:
        return Static(name, nxt, seq, slots, var, None, 0, False)
    return Static(name, nxt, seq, slots, var, meta[1], meta[2], True)


# -- from a raw capture to plain data -------------------------------------------------------------
@_no_gc
def materialize(rec: Recording, raw: Raw) -> Snapshot:
    if raw.cached is not None:
        return raw.cached
    static = rec._static
    order = raw.live
    live = raw.states             # its keys: the live nodes
    # NB: every live node's next nodes, in one pass of C loops
    below = set(chain.from_iterable(map(_NEXT, map(static.__getitem__, order))))
    roots = [uid for uid in order if uid not in below]
    # NB: in a graph (acyclic) every node is reached from a root: with one root, from it
    reach = _reach(static, order, live, roots) if len(roots) > 1 else {}
    runs_of = rec.runs_index().get
    until = raw.executed_until
    tensor_labels = {t[0]: t[1] for t in raw.tensors}
    saved_infos: dict[int, list[SavedInfo]] = {}
    nodes: list[NodeInfo] = []
    append = nodes.append
    states, node_labels = raw.states, raw.node_labels
    dead_ends = raw.dead_ends
    made = rec._ids               # uid -> what a node's records always say, made once per node
    made_of = made.get
    known = rec._alive_infos      # NB: alive buffers alike (a layer's input in every layer)
    code_get, source_dict = rec._code.get, rec._source_dict
    # NB: nodes reached from the same roots share one list of their ids (read-only)
    root_names = [f"n{r}" for r in roots]
    # NB: and the last backward count when one of them was made (a node run by a backward
    # before that is reused by their graph)
    by_bits = {1 << i: ([r], [name], static[r].created_by)
               for i, (r, name) in enumerate(zip(roots, root_names, strict=True))}
    only = by_bits[1] if len(roots) == 1 else None
    failing = 0                   # the roots that reach a freed, modified or dead-end node
    stops: list[int] = []         # nodes with no derivative (a backward raises there)
    all_alive, all_freed = ALL_ALIVE, ALL_FREED
    freed = rec._freed_saved
    freed_of = freed.get
    released_of = rec._released.get
    # NB: by the alive record's id, kept with it (so the id is not reused while here)
    twins_by_id = rec._freed_infos
    if len(twins_by_id) > 4096:
        twins_by_id.clear()
    twins_of = twins_by_id.get
    last = rec._infos
    last_get = last.get
    # NB: the hot loop of reading a snapshot: about a microsecond a node
    for uid in order:
        st = static[uid]
        name, _, _, slots, var, src, created_by, recorded = st
        if only is not None:
            bits = 1
            root_ids, names, made_after = only
        else:
            bits = reach[uid]
            one = by_bits.get(bits)
            if one is None:
                ids = [roots[i] for i in range(len(roots)) if bits >> i & 1]
                one = by_bits[bits] = (
                    ids, [root_names[i] for i in range(len(roots)) if bits >> i & 1],
                    max(static[r].created_by for r in ids))
            root_ids, names, made_after = one
        m = made_of(uid)
        if m is None:
            # NB: _made, inline (once per node of a recording)
            nxt: list[str | None] = []
            for n in st.next:
                if n is None:
                    nxt.append(None)
                else:
                    # NB: a next node's uid is smaller (made before): its id is made already
                    got = made_of(n)
                    nxt.append(got[0] if got is not None else f"n{n}")
            if slots:
                if len(known) > 4096:
                    known.clear()
                alive: list[SavedInfo] = []
                for slot in slots:
                    info = known.get(slot)
                    if info is None:
                        info = known[slot] = _alive_info(slot)
                    alive.append(info)
            else:
                alive = []
            if src is None:
                where = None
            else:
                place = code_get((id(src[0]), src[1]))
                where = place[1] if place is not None else source_dict(src)
            m = made[uid] = (f"n{uid}", nxt, where, alive, None if var is None else f"t{var}",
                             [], name == NO_DERIVATIVE)
        none = m[5]
        # NB: the backwards that had run it when the snapshot was taken (its entries of the
        # run log before the snapshot's place in it)
        runs = runs_of(uid)
        if runs is None:
            ex = None
        elif len(runs) == 1:
            ex = [runs[0][1]] if runs[0][0] < until else None
        else:
            ex = [k for pos, k in runs if pos < until]
        if not ex:
            ex, reused = none, False
        else:
            # NB: run (first, the list is in order) by a backward before a root was made
            reused = var is None and ex[0] <= made_after
        saved = m[3]
        if saved:
            # NB: all alive (known by identity): the node's records as made; all freed: as
            # made the first time; else the buffers' states. Kept for the dry run
            now = states[uid]
            k = len(now)
            if k >= 64 or now is not all_alive[k]:
                if k < 64 and now is all_freed[k]:
                    twins_now = freed_of(uid)
                    if twins_now is None:
                        # NB: each alive record's freed twin, per backward that freed it (shared,
                        # as the alive ones are); kept per node unless read during the backward
                        # that frees them, before its log says which it is
                        twins_now = []
                        complete = True
                        for info in saved:
                            released = released_of((uid, info.name))
                            twins = twins_of(id(info))
                            if twins is None:
                                twins = twins_by_id[id(info)] = (info, {})
                            twin = twins[1].get(released)
                            if twin is None:
                                twin = twins[1][released] = _freed_twin(info, released)
                            twins_now.append(twin)
                            complete = complete and released is not None
                        if complete:
                            freed[uid] = twins_now
                    saved = saved_infos[uid] = twins_now
                    failing |= bits
                else:
                    for state in now:
                        if state[0] != "alive":
                            saved = saved_infos[uid] = _saved(rec, uid, st, now)
                            failing |= bits
                            break
        if m[6]:
            failing |= bits
            stops.append(uid)
        elif uid in dead_ends:
            failing |= bits
        if var is not None:
            found = tensor_labels.get(var)
            labels = list(found) if found else none
        else:
            found = node_labels.get(uid) if node_labels else None
            labels = list(dict.fromkeys(found)) if found else none
        shared = len(root_ids) > 1 or reused
        # NB: the node's record in the last snapshot that read it, when nothing in it changed
        # (records are read-only): no new object for most nodes of a later snapshot
        node = last_get(uid)
        if node is None or node.saved is not saved or node.shared is not shared or \
                node.roots != names or node.labels != labels or node.executed_by != ex:
            node = last[uid] = NodeInfo(m[0], name, m[1], saved, labels, m[2], ex, names,
                                        shared, created_by, recorded, m[4])
        append(node)
    tensors = [TensorInfo(id=f"t{uid}", label=names[0] if names else None, shape=list(shape),
                          dtype=_text(dtype), requires_grad=bool(rg), is_leaf=bool(leaf),
                          grad_fn=f"n{fn}" if fn is not None else None,
                          grad={"shape": list(grad)} if grad is not None else None,
                          version=int(version))
               for uid, names, (shape, dtype, rg, leaf, grad, version), fn
               in sorted(raw.tensors, key=lambda t: t[0])]
    # NB: a backward can only fail at a freed, modified, dead-end or underivable node: the
    # dry run is needed only where one is reachable
    if stops:
        dead_ends = dead_ends | set(stops)
    predictions = [predict(static, dead_ends, [r], saved_infos) if failing >> i & 1 else
                   Prediction(False, None, "", name)
                   for i, (r, name) in enumerate(zip(roots, root_names, strict=True))]
    prediction: Prediction | None = None
    if raw.kind == "before_backward" and raw.targets:
        prediction = predict(static, dead_ends, raw.targets, saved_infos) if failing else \
            Prediction(False, None, "", f"n{raw.targets[0]}" if len(raw.targets) == 1 else None)
    elif raw.kind == "before_backward" and raw.targets is not None:
        # NB: a backward whose roots have no node (a loss with no graph, a leaf): it fails at
        # no node of this graph, whatever another root's backward would do
        prediction = Prediction(False, None, "", None)
    elif predictions:
        # NB: the newest root's, by sequence number: nodes made before the recording began
        # get their ids on real torch in the order its walks meet them
        def made_when(p: Prediction) -> tuple[int, int]:
            if not p.root:
                return (-2, -1)
            uid = int(p.root[1:])
            st = static.get(uid)
            seq = st.seq if st is not None else -1
            return (seq if 0 <= seq < 1 << 62 else -1, uid)
        prediction = max(predictions, key=made_when)
    snap = Snapshot(index=raw.index, label=raw.label, kind=raw.kind, backward=raw.backward,
                    error=raw.error, nodes=nodes, tensors=tensors, prediction=prediction,
                    memory=raw.memory, predictions=predictions,
                    collected=[f"n{u}" for u in raw.collected],
                    source=rec._source_dict(raw.source), failed_at=_failed_at(rec, raw))
    raw.cached = snap
    return snap


def _reach(static: dict[int, Static], order: list[int], live: Container[int], roots: list[int]
           ) -> dict[int, int]:
    """Per node, the roots it is reached from, as bits (root ``i``: ``1 << i``)."""
    indeg = dict.fromkeys(order, 0)
    for uid in order:
        for m in static[uid].next:
            if m is not None and m in live:
                indeg[m] += 1
    reach = dict.fromkeys(order, 0)
    for i, r in enumerate(roots):
        reach[r] = 1 << i
    queue = list(roots)
    while queue:
        uid = queue.pop()
        for m in static[uid].next:
            if m is None or m not in live:
                continue
            reach[m] |= reach[uid]
            indeg[m] -= 1
            if indeg[m] == 0:
                queue.append(m)
    return reach


def _failed_at(rec: Recording, raw: Raw) -> str | None:
    if raw.kind != "backward_failed":
        return None
    return next((b.failed_at for b in rec.backwards if b.number == raw.backward), None)


def _alive_info(slot: tuple[str, tuple[int, ...], Any, int, bool]) -> SavedInfo:
    """The record of an alive buffer, shared by the nodes whose slot is alike (read-only)."""
    name, shape, dtype, nbytes, packed = slot
    return SavedInfo(name, "alive", list(shape), _text(dtype), int(nbytes), packed=packed)


def _freed_twin(info: SavedInfo, released: int | None) -> SavedInfo:
    """An alive buffer's record once freed (by backward ``released``)."""
    return SavedInfo(info.name, "freed", info.shape, info.dtype, info.nbytes, released,
                     packed=info.packed)


def _saved(rec: Recording, uid: int, st: Static, states: tuple[tuple[Any, ...], ...]
           ) -> list[SavedInfo]:
    out = []
    for slot, (state, saved_v, v, counter) in zip(st.slots, states, strict=False):
        if state == "alive":
            info = rec._alive_infos.get(slot)
            out.append(info if info is not None else _alive_info(slot))
            continue
        name, shape, dtype, nbytes, packed = slot
        text = _text(dtype)
        released = rec._released.get((uid, name)) if state == "freed" else None
        versions = [saved_v, v] if state == "modified" else None
        edits = rec._edits_since(counter, saved_v) if state == "modified" else None
        out.append(SavedInfo(name, state, list(shape), text, int(nbytes), released, versions,
                             edits, packed))
    return out


# NB: a dtype's text, once per dtype object (the engines' dtypes are few and long-lived)
_DTYPE_TEXT: dict[Any, str] = {}


def _text(dtype: Any) -> str:
    text = _DTYPE_TEXT.get(dtype)
    if text is None:
        text = _DTYPE_TEXT[dtype] = str(dtype)
    return text
