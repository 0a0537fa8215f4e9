"""``torch.backends.cudnn``: PyTorch's flags, settable, unused (there is no cuDNN here)."""

from __future__ import annotations

__all__ = ["benchmark", "deterministic", "enabled", "allow_tf32", "is_available", "version"]

benchmark = False
deterministic = False
enabled = True
allow_tf32 = True
benchmark_limit = 10


def is_available() -> bool:
    return False


def version() -> None:
    return None
