"""``torch.compiler``: what library code asks of the compiler. The engine runs everything
eagerly, so nothing is ever being compiled or exported and the decorators give back what they
were given."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .environment import compile

__all__ = ["compile", "is_compiling", "is_dynamo_compiling", "is_exporting", "disable",
           "allow_in_graph", "assume_constant_result", "reset", "list_backends",
           "substitute_in_graph", "set_stance", "cudagraph_mark_step_begin"]


def is_compiling() -> bool:
    """``False``: code runs eagerly.

    >>> is_compiling(), is_dynamo_compiling(), is_exporting()
    (False, False, False)
    """
    return False


def is_dynamo_compiling() -> bool:
    return False


def is_exporting() -> bool:
    return False


def _given(fn: Any = None, *args: Any, **kw: Any) -> Any:
    if fn is None or not callable(fn):
        return lambda f: f
    return fn


disable = allow_in_graph = assume_constant_result = _given


def substitute_in_graph(original_fn: Callable[..., Any], *args: Any,
                        **kw: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return lambda f: f


def reset() -> None:
    pass


def cudagraph_mark_step_begin() -> None:
    pass


def set_stance(*args: Any, **kw: Any) -> None:
    pass


def list_backends(exclude_tags: Any = ("debug", "experimental")) -> list[str]:
    return []
