"""The engine's event hook: what happened in the graph, for whoever listens (the recorder).

The engine calls ``emit`` only after checking ``listeners`` is non-empty, so an engine nobody
listens to pays one truthiness test per event site.

Events (name, then arguments):
    node_created(node, tensor)           a forward op made ``node``, the grad_fn of ``tensor``
    tensor_modified(tensor, node)        an in-place op bumped ``tensor``'s version (node: None)
    backward_started(info)               info: BackwardInfo (roots, flags); before any work
    node_executed(node, grad)            ``node`` ran; ``grad`` is what flowed into it (or None)
    buffer_released(node, name, array)   a saved slot of ``node`` was released
    grad_accumulated(tensor, grad)       a leaf's .grad was updated
    backward_finished(info)
    backward_failed(info, node, error)   ``node`` is where it stopped (None: before any node ran)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["listeners", "emit", "subscribe", "unsubscribe"]

Listener = Callable[..., Any]
listeners: list[Listener] = []


def emit(event: str, *args: Any) -> None:
    for fn in tuple(listeners):
        fn(event, *args)


def subscribe(fn: Listener) -> None:
    listeners.append(fn)


def unsubscribe(fn: Listener) -> None:
    if fn in listeners:
        listeners.remove(fn)
