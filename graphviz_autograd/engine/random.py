"""The engine's random number generator (``torch.manual_seed``)."""

from __future__ import annotations

import secrets

import numpy as np

__all__ = ["generator", "manual_seed", "seed"]

_state = {"gen": np.random.default_rng(0)}


def generator() -> np.random.Generator:
    return _state["gen"]


def manual_seed(seed: int) -> np.random.Generator:
    """Reseed; the sequence is the engine's own (it does not reproduce PyTorch's numbers)."""
    _state["gen"] = np.random.default_rng(int(seed))
    return _state["gen"]


def seed() -> int:
    s = secrets.randbits(63)
    manual_seed(s)
    return s
