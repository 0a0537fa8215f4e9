"""The non-reentrant ``checkpoint``: PyTorch's activation checkpointing by saved-tensor hooks.

While the checkpointed function runs, every tensor an op saves for backward is packed as an
empty holder, so the region's activations are not kept: only its inputs are (as saved tensors of
the region's frame). The first unpack of a backward runs the function again from those inputs,
under hooks that hand each value it saves to the holder of the same rank, and stops as soon as
the last one needed is made (early stop). Each recomputed value is dropped once unpacked, even
with ``retain_graph=True``; a later backward recomputes again. The recomputation must save the
same number of tensors, of the same shapes, dtypes and devices, as the original forward
(``determinism_check``), else a ``CheckpointError``. Checkpoints nest: an inner region's
inputs are saved tensors of the outer region's frame, so unpacking them recomputes the outer
region first."""

from __future__ import annotations

import contextlib
import itertools
import weakref
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from ...engine import random as _random
from ...engine.executor import current_graph_task_id
from ...engine.grad_mode import enable_grad, is_grad_enabled, no_grad
from ...engine.node import SavedTensor
from ...engine.tensor import Tensor
from ..autograd.graph import saved_tensors_hooks

__all__ = ["CheckpointError", "GraphExecGroup", "set_checkpoint_early_stop",
           "set_checkpoint_debug_enabled", "run_checkpointed"]

DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""
_INTERNAL = ("Something went unexpectedly wrong in activation checkpoint. Please report this "
             "bug by filing an issue to PyTorch.")


class CheckpointError(RuntimeError):
    """What a checkpointed region raises when its recomputation differs from its forward."""


class GraphExecGroup:
    """The backwards run inside it recompute each checkpointed region at most once (they must
    need disjoint saved values)."""

    _current: GraphExecGroup | None = None

    def __enter__(self) -> GraphExecGroup:
        if GraphExecGroup._current is not None:
            raise RuntimeError("GraphExecGroup contexts cannot be nested. Already inside group "
                               f"{GraphExecGroup._current!r}")
        GraphExecGroup._current = self
        return self

    def __exit__(self, *args: object) -> None:
        GraphExecGroup._current = None

    @classmethod
    def _get_current_group(cls) -> GraphExecGroup | None:
        return cls._current


_early_stop: list[bool | None] = [None]
_debug: list[bool | None] = [None]


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """Checkpoints run in it stop (or not) their recomputation once it made what is needed."""
    before = _early_stop[0]
    _early_stop[0] = enable
    try:
        yield
    finally:
        _early_stop[0] = before


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> Iterator[None]:
    before = _debug[0]
    _debug[0] = enabled
    try:
        yield
    finally:
        _debug[0] = before


def _check(condition: bool) -> None:
    if not condition:
        raise AssertionError(_INTERNAL)


def _metadata(x: Tensor) -> dict[str, Any]:
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_DETERMINISM: dict[str, Callable[[Tensor], Any] | None] = {"default": _metadata, "none": None}


class _Handle:
    """The key of one recomputed value: dropped when the value is unpacked."""


class _Holder:
    """What a checkpointed region's saved tensor is packed as: per backward, the handle of its
    recomputed value (None once unpacked)."""

    def __init__(self) -> None:
        # NB: keyed by the backward (its graph task id, or a GraphExecGroup)
        self.handles: dict[Hashable, _Handle | None] = {}


class _StopRecomputationError(Exception):
    pass


class _Frame:
    """One checkpointed call: its inputs, the holders its forward packed, what each backward
    recomputed."""

    def __init__(self, recompute: Callable[..., Any], early_stop: bool,
                 metadata: Callable[[Tensor], Any] | None) -> None:
        self.recompute = recompute
        self.early_stop = early_stop
        self.metadata = metadata
        self.saved_args: list[Any] = []
        self.weak_holders: list[weakref.ref[_Holder]] = []
        self.recomputed: defaultdict[Hashable, weakref.WeakKeyDictionary[_Handle, Tensor]] = \
            defaultdict(weakref.WeakKeyDictionary)
        self.recomp_counter: defaultdict[Hashable, int] = defaultdict(int)
        self.is_recomputed: defaultdict[Hashable, bool] = defaultdict(bool)
        self.x_metadatas: list[Any] = []
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def save_inputs(self, *args: Any) -> None:
        # NB: saved as a node saves its inputs: version-checked when read, and packed by an
        # enclosing checkpoint's hooks
        self.saved_args = [SavedTensor(a, False) if isinstance(a, Tensor) else a for a in args]

    def get_inputs(self) -> list[Any]:
        return [a.unpack() if isinstance(a, SavedTensor) else a for a in self.saved_args]

    def check_recomputed(self, gid: Hashable) -> None:
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != self.recomp_counter[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.recomp_counter[gid]}.\n"
                f"{DEBUG_TIP}")
        different = []
        assert self.metadata is not None or not self.x_metadatas
        for i, ref in enumerate(self.weak_holders):
            holder = ref()
            if holder is None or self.metadata is None:
                continue
            handle = holder.handles.get(gid)
            _check(handle is not None and handle in self.recomputed[gid])
            assert handle is not None
            now = self.metadata(self.recomputed[gid][handle])
            if self.x_metadatas[i] != now:
                different.append((i, self.x_metadatas[i], now))
        if different:
            listed = "".join(f"tensor at position {i}:\nsaved metadata: {before}\n"
                             f"recomputed metadata: {now}\n" for i, before, now in different)
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{listed}.\n{DEBUG_TIP}")


_UNPACK_IDS = itertools.count(1 << 62)      # NB: an unpack outside any backward: an id of its own


class _CheckpointHooks(saved_tensors_hooks):
    """The region's forward: each saved tensor is packed as an empty holder."""

    def __init__(self, frame: _Frame) -> None:
        def pack(x: Tensor) -> _Holder:
            holder = _Holder()
            frame.weak_holders.append(weakref.ref(holder))
            if frame.metadata is not None:
                with no_grad():
                    frame.x_metadatas.append(frame.metadata(x))
            return holder

        def unpack(holder: _Holder) -> Tensor:
            group = GraphExecGroup._current
            gid: Any = group if group is not None else current_graph_task_id()
            if gid == -1:
                gid = next(_UNPACK_IDS)
            if not frame.is_recomputed[gid]:
                args = frame.get_inputs()
                try:
                    with _RecomputeHooks(weakref.ref(frame), gid), enable_grad():
                        frame.recompute(*args)
                except _StopRecomputationError:
                    pass
                frame.is_recomputed[gid] = True
                frame.check_recomputed(gid)
            _check(gid in holder.handles)
            handle = holder.handles[gid]
            if handle is None:
                extra = "" if group is None else (
                    "Performing two backward calls that overlap (i.e. require the same saved "
                    "activation in order to compute gradients) is not allowed while under the "
                    "torch.utils.checkpoint.GraphExecGroup context. ")
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                    f"already unpacked once. {extra}If you are calling ctx.saved_tensors in "
                    "backward, make sure to do so only once. Otherwise please open an issue with "
                    "details on your use case.")
            _check(handle in frame.recomputed[gid])
            value = frame.recomputed[gid][handle]
            holder.handles[gid] = None
            return value

        super().__init__(pack, unpack)


class _RecomputeHooks(saved_tensors_hooks):
    """The recomputation: each value saved goes to the holder of the same rank."""

    def __init__(self, frame_ref: weakref.ref[_Frame], gid: Hashable) -> None:
        def pack(x: Tensor) -> Tensor:
            x = x.detach() if x.requires_grad else x
            frame = frame_ref()
            _check(frame is not None)
            assert frame is not None
            index = frame.recomp_counter[gid]
            frame.recomp_counter[gid] += 1
            if index >= len(frame.weak_holders):
                _check(not frame.early_stop)
                if not frame.forward_completed:
                    # a backward inside the region, without early stop
                    frame.ignore_saved_mismatch = True
                    return x
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during recomputation "
                    f"than during the original forward pass.\n{DEBUG_TIP}")
            holder = frame.weak_holders[index]()
            if holder is not None:      # NB: None: a backward inside the region freed it
                _check(holder.handles.get(gid) is None)
                handle = holder.handles[gid] = _Handle()
                frame.recomputed[gid][handle] = x
            if frame.early_stop and frame.recomp_counter[gid] == len(frame.weak_holders):
                raise _StopRecomputationError
            return x

        super().__init__(pack, lambda x: x)


def run_checkpointed(function: Callable[..., Any], preserve_rng_state: bool,
                     context_fn: Callable[[], tuple[Any, Any]], determinism_check: str,
                     debug: bool, early_stop: bool, *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` under a new frame's hooks (PyTorch's
    ``_checkpoint_without_reentrant_generator`` around the call)."""
    from . import checkpoint as _api
    if (_debug[0] if _debug[0] is not None else debug) and context_fn is not _api.noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in _DETERMINISM:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM)}, but got "
                         f"{determinism_check}")
    metadata = _DETERMINISM[determinism_check]
    forward_context, recompute_context = context_fn()
    from .. import amp
    autocast_kw = {"enabled": amp.is_autocast_enabled("cpu"),
                   "dtype": amp.get_autocast_dtype("cpu"),
                   "cache_enabled": amp.is_autocast_cache_enabled()}
    rng_state = _random.get_rng_state() if preserve_rng_state else None

    def recompute(*inputs: Any) -> None:
        before = _random.get_rng_state() if preserve_rng_state else None
        try:
            if rng_state is not None:
                _random.set_rng_state(rng_state)
            with amp.autocast("cpu", **autocast_kw), recompute_context:
                function(*inputs, **kwargs)
        finally:
            if before is not None:
                _random.set_rng_state(before)

    frame = _Frame(recompute, _early_stop[0] if _early_stop[0] is not None else early_stop,
                   metadata)
    if not is_grad_enabled():
        return function(*args, **kwargs)
    frame.save_inputs(*args)
    suppressed = True
    with _CheckpointHooks(frame), forward_context:
        out = function(*args, **kwargs)
        suppressed = False
    if suppressed:
        raise RuntimeError(
            "torch.utils.checkpoint: the forward context provided by context_fn suppressed an "
            "exception raised during the checkpointed forward. This is not supported because "
            "checkpoint cannot return a value for a failed forward.")
    frame.forward_completed = True
    return out
