"""Snapshots as plain data: what the graph looked like at one moment (no tensor, no node).

The records are plain (slotted, not frozen, for speed); treat them as read-only: records of
one recording share their parts (a node's ``next`` and ``source``, its alive ``saved``, the
``roots`` of nodes reached from the same roots, a node's empty lists).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["SavedInfo", "NodeInfo", "TensorInfo", "Prediction", "Snapshot", "FORMAT", "VERSION"]

FORMAT = "graphviz-autograd/snapshot"
VERSION = 1


@dataclass(slots=True)
class SavedInfo:
    """One saved buffer of a node: ``alive``, ``freed`` (by backward ``released_by``) or
    ``modified`` in place since it was saved (``versions``: saved, current)."""

    name: str
    state: str
    shape: list[int]
    dtype: str
    nbytes: int
    released_by: int | None = None
    versions: list[int] | None = None
    modified_by: list[dict[str, Any]] | None = None    # the in-place edits, with their lines
    # kept as what a saved-tensor pack hook made of it (a non-reentrant checkpoint's empty
    # holder: recomputed in the backward); ``nbytes`` counts what the hook kept
    packed: bool = False


@dataclass(slots=True)
class NodeInfo:
    id: str
    name: str
    next: list[str | None]
    saved: list[SavedInfo]
    labels: list[str]
    source: dict[str, Any] | None
    executed_by: list[int]
    roots: list[str]
    shared: bool
    created_by: int = 0            # how many backwards had run when the node was made
    recorded: bool = False         # made while recording (else: found, made before)
    variable: str | None = None    # AccumulateGrad: the id of its leaf tensor


@dataclass(slots=True)
class TensorInfo:
    id: str
    label: str | None
    shape: list[int]
    dtype: str
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    grad: dict[str, Any] | None
    version: int = 0


@dataclass(frozen=True)
class Prediction:
    """Would a backward from ``root`` fail, where (``node``) and why."""

    will_fail: bool
    node: str | None
    reason: str
    root: str | None = None
    kind: str | None = None        # "freed" | "modified" | "no_derivative" | None
    buffers: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Snapshot:
    """The graph at one moment of a recording; ``to_dict()`` gives the JSON form."""

    index: int
    label: str
    kind: str                      # before_backward | after_backward | backward_failed | manual
    backward: int | None
    error: dict[str, str] | None
    nodes: list[NodeInfo]
    tensors: list[TensorInfo]
    prediction: Prediction | None
    memory: dict[str, int]
    predictions: list[Prediction] = field(default_factory=list)
    collected: list[str] = field(default_factory=list)   # node ids gone since the previous one
    source: dict[str, Any] | None = None                  # the user's line when it was taken
    failed_at: str | None = None                          # backward_failed: the node that raised

    def node(self, node_id: str) -> NodeInfo:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def nodes_labelled(self, label: str) -> list[NodeInfo]:
        """The nodes whose tensors the user's variable ``label`` is bound to."""
        return [n for n in self.nodes if label in n.labels]

    # -- pictures (the renderer is imported only when asked for) ------------------------------
    def to_dot(self) -> str:
        """DOT source of this snapshot (pure: same data, same text)."""
        from ..render import to_dot
        return to_dot(self)

    def render(self, format: str = "svg") -> str | bytes:
        """The picture: SVG or DOT text, PNG or PDF bytes (needs Graphviz's ``dot``)."""
        from ..render import render
        return render(self, format)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from ..render import MIMETYPES
        return {mime: self.render(fmt) for mime, fmt in MIMETYPES.items()
                if (include is None or mime in include) and not (exclude and mime in exclude)}

    def to_dict(self) -> dict[str, Any]:
        d = {"format": FORMAT, "version": VERSION}
        d.update(asdict(self))
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Snapshot:
        def pred(p: dict[str, Any] | None) -> Prediction | None:
            return Prediction(**p) if p is not None else None
        nodes = [NodeInfo(**{**n, "saved": [SavedInfo(**s) for s in n["saved"]]})
                 for n in d["nodes"]]
        return cls(index=d["index"], label=d["label"], kind=d["kind"], backward=d["backward"],
                   error=d["error"], nodes=nodes,
                   tensors=[TensorInfo(**t) for t in d["tensors"]],
                   prediction=pred(d.get("prediction")), memory=d["memory"],
                   predictions=[p for p in (pred(x) for x in d.get("predictions", []))
                                if p is not None],
                   collected=list(d.get("collected", [])), source=d.get("source"),
                   failed_at=d.get("failed_at"))
