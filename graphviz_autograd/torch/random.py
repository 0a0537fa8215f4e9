"""``torch.random``: the default generator's seeding and state, and ``fork_rng`` (the state
saved on entry and put back on exit)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..engine.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed",
           "manual_seed", "seed", "set_rng_state"]


@contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: Any = None) -> Iterator[None]:
    """Draws inside leave the default generator as they found it (the engine has only the CPU
    generator to fork).

    >>> import graphviz_autograd.torch as torch
    >>> _ = torch.manual_seed(0)
    >>> with torch.random.fork_rng():
    ...     _ = torch.rand(2)
    >>> first = torch.rand(1)
    >>> _ = torch.manual_seed(0)
    >>> bool(torch.rand(1) == first)
    True
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
