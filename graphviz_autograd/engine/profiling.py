"""The profiler's clock: while a profile runs, every table op's forward (named as ATen's op,
``aten::mm``, from its node's name) and backward (named by its node, ``MmBackward0``) is timed,
and ``record_function`` ranges are timed around them, as a tree of spans. Nothing is timed when
no profile runs: the ops' functions are wrapped on start and put back on stop, so the hot path
pays nothing otherwise."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .optable import TABLE, Op

__all__ = ["Span", "Collector", "active", "start", "stop", "push", "pop"]


@dataclass(eq=False)
class Span:
    """One timed range: an op's forward, a node's backward, or a user's ``record_function``."""

    name: str
    start_ns: int
    end_ns: int = 0
    kind: str = "op"                        # "op", "backward" or "user"
    input_shapes: list[list[int]] = field(default_factory=list)
    parent: Span | None = None
    children: list[Span] = field(default_factory=list)


@dataclass(eq=False)
class Collector:
    record_shapes: bool = False
    spans: list[Span] = field(default_factory=list)       # in the order they started
    stack: list[Span] = field(default_factory=list)
    saved: dict[Op, tuple[Any, Any]] = field(default_factory=dict)


active: Collector | None = None


def push(name: str, kind: str = "user", shapes: list[list[int]] | None = None) -> Span | None:
    c = active
    if c is None:
        return None
    parent = c.stack[-1] if c.stack else None
    span = Span(name, time.perf_counter_ns(), kind=kind, input_shapes=shapes or [],
                parent=parent)
    if parent is not None:
        parent.children.append(span)
    c.spans.append(span)
    c.stack.append(span)
    return span


def pop(span: Span | None) -> None:
    c = active
    if span is None or c is None:
        return
    span.end_ns = time.perf_counter_ns()
    while c.stack:
        if c.stack.pop() is span:
            break


def _shapes(args: tuple[Any, ...]) -> list[list[int]]:
    return [list(a.shape) if isinstance(a, np.ndarray) else [] for a in args]


def row_name(op: Op) -> str:
    """``aten::<op>`` from the node's name (``NativeLayerNormBackward0``:
    ``aten::native_layer_norm``); the table key where the node has no such name."""
    found = re.match(r"([A-Z][A-Za-z0-9]*)Backward\d+(_copy)?$", op.name)
    if found is None:
        return op.key
    words = re.sub(r"(\d)D(?=[A-Z]|$)", r"\1d", found.group(1))
    return ("aten::" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", words).lower()
            + (found.group(2) or ""))


def _timed_forward(key: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def f(*args: Any, **kw: Any) -> Any:
        c = active
        span = push(key, "op", _shapes(args) if c is not None and c.record_shapes else None)
        try:
            return fn(*args, **kw)
        finally:
            pop(span)
    return f


def _timed_backward(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def f(ctx: Any, grad: Any, mode: Any) -> Any:
        span = push(name, "backward")
        try:
            return fn(ctx, grad, mode)
        finally:
            pop(span)
    return f


def start(record_shapes: bool = False) -> Collector:
    """Begin timing (one profile at a time, as PyTorch's)."""
    global active
    c = Collector(record_shapes)
    if active is not None:
        # NB: PyTorch's inner profile of two nested ones records nothing (and stops the outer)
        return c
    for op in {id(o): o for o in TABLE.values()}.values():
        c.saved[op] = (op.forward, op.backward)
        op.forward = _timed_forward(row_name(op), op.forward)
        op.backward = _timed_backward(op.name, op.backward)
    active = c
    return c


def stop() -> Collector | None:
    """End timing and put the ops' own functions back (once: a nested profile's stop ends the
    outer one, as PyTorch's does)."""
    global active
    c = active
    if c is None or not c.saved:
        return None
    for op, (fwd, bwd) in c.saved.items():
        op.forward, op.backward = fwd, bwd
    c.saved.clear()
    now = time.perf_counter_ns()
    for span in c.stack:                    # NB: a range still open ends with the profile
        span.end_ns = now
    c.stack.clear()
    active = None
    return c
