"""The engine's event hook: what happened in the graph, for whoever listens (the recorder).

The engine calls ``emit`` only after checking ``listeners`` is non-empty, so an engine nobody
listens to pays one truthiness test per event site.

Events (name, then arguments):
    node_created(node, tensor)           a forward op made ``node``, the grad_fn of ``tensor``
    tensor_modified(tensor, node)        an in-place op bumped the version of a tensor that a
                                         node saved and still holds (node: None); an edit no
                                         saved tensor can see is not an event
    backward_started(info)               info: BackwardInfo (roots, flags); before any work
    backward_finished(info)
    backward_failed(info, node, error)   ``node`` is where it stopped (None: before any node ran)

What a backward does node by node is not an event (a call per node would cost more than the
node): while ``trace`` is a list, the engine appends one tuple per happening to it, in order:
    (RAN, node uid, node name, grad shape)   a node ran; the shape of what flowed in (or None)
    (RELEASED, node uid, slot name, nbytes)  a saved slot of that node was released
    (ACCUMULATED, tensor uid, shape)         a leaf's .grad was updated (the shape of .grad)
A listener sets ``trace`` in ``backward_started`` and resets it when the backward is over.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["listeners", "emit", "subscribe", "unsubscribe", "unseen", "Dispatch", "trace", "RAN",
           "RELEASED", "ACCUMULATED"]

Listener = Callable[..., Any]
# NB: replaced, never changed in place, so emit walks it without a copy while a listener
# subscribes or unsubscribes
listeners: list[Listener] = []
trace: list[tuple[Any, ...]] | None = None
RAN, RELEASED, ACCUMULATED = 0, 1, 2


class Dispatch(dict[str, Callable[..., Any]]):
    """A listener that is a table, event -> handler(*args): ``emit`` calls the handler itself
    (one call per event, not two); called as a plain listener, it dispatches the same way."""

    def __call__(self, event: str, *args: Any) -> None:
        handler = self.get(event)
        if handler is not None:
            handler(*args)


def emit(event: str, *args: Any) -> None:
    for fn in listeners:
        if type(fn) is Dispatch:
            handler = fn.get(event)
            if handler is not None:
                handler(*args)
        else:
            fn(event, *args)


@contextmanager
def unseen() -> Iterator[None]:
    """Nodes made inside are the engine's own (the clone an in-place op saves of the input it
    overwrites, made inside PyTorch's kernel): no event, as no hook sees them on PyTorch."""
    global listeners
    kept = listeners
    listeners = []
    try:
        yield
    finally:
        listeners = kept


def subscribe(fn: Listener) -> None:
    global listeners
    listeners = [*listeners, fn]


def unsubscribe(fn: Listener) -> None:
    global listeners
    if fn in listeners:
        rest = list(listeners)
        rest.remove(fn)
        listeners = rest
