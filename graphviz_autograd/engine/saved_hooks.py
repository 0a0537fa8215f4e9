"""The default saved-tensor hooks: the stack of ``(pack_hook, unpack_hook)`` pairs that every
tensor saved for backward goes through while one is pushed (``saved_tensors_hooks``), and the
switch that forbids pushing one (``disable_saved_tensors_hooks``), as PyTorch keeps them.

Only the innermost pair applies. The saved slot that packs a tensor is
``node.HookedSavedTensor``; this module holds the state alone, so that ``node`` can read it on
every save."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["STACK", "push", "pop", "disable", "enable", "disabled_message"]

Hooks = tuple[Callable[[Any], Any], Callable[[Any], Any]]

STACK: list[Hooks] = []           # NB: read on every save: empty unless a context is open
_disabled: list[str | None] = [None]   # the error message while pushing is disabled


def push(pack_hook: Any, unpack_hook: Any) -> None:
    """Make ``(pack_hook, unpack_hook)`` the pair that saved tensors go through."""
    for hook in (pack_hook, unpack_hook):
        if not callable(hook):
            raise TypeError(
                "_push_saved_tensors_default_hooks(): incompatible function arguments. The "
                "following argument types are supported:\n    1. (arg0: collections.abc.Callable,"
                " arg1: collections.abc.Callable) -> None\n\nInvoked with: "
                f"{pack_hook!r}, {unpack_hook!r}")
    message = _disabled[0]
    if message is not None:
        raise RuntimeError(message)
    STACK.append((pack_hook, unpack_hook))


def pop() -> None:
    STACK.pop()


def disable(message: str) -> None:
    """Refuse any pair pushed from now on with ``message``; raise it now if one is active."""
    _disabled[0] = message
    if STACK:
        raise RuntimeError(message)


def enable() -> None:
    _disabled[0] = None


def disabled_message() -> str | None:
    return _disabled[0]
