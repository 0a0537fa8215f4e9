"""``torch.autograd.graph``'s switches for compiled and CUDA-graph code: checked as PyTorch checks
them, with nothing to switch in an eager CPU engine."""

from __future__ import annotations

from typing import Any

__all__ = ["region_activation_memory_budget", "set_warn_on_accumulate_grad_stream_mismatch",
           "set_override_stale_capture_stream"]

_NAME = "torch.autograd.graph.region_activation_memory_budget"


def region_activation_memory_budget(budget: float) -> Any:
    """The activation memory budget of a compiled region: outside ``torch.compile`` (always,
    here) PyTorch refuses it.

    >>> region_activation_memory_budget(2.0)
    Traceback (most recent call last):
    ...
    ValueError: torch.autograd.graph.region_activation_memory_budget: must be in [0, 1], got 2.0
    """
    if isinstance(budget, bool) or not isinstance(budget, int | float):
        raise TypeError(f"{_NAME}: expects a float, got {type(budget).__name__}")
    if not 0.0 <= budget <= 1.0:
        raise ValueError(f"{_NAME}: must be in [0, 1], got {budget}")
    raise RuntimeError(f"{_NAME} can only be used inside a torch.compile region; it has no "
                       "effect in eager mode.")


def _check_bool(enabled: Any) -> None:
    if not isinstance(enabled, bool):
        raise RuntimeError(f"enabled must be a bool, but got {type(enabled).__name__}")


def set_warn_on_accumulate_grad_stream_mismatch(enabled: bool) -> None:
    """Whether to warn when a leaf's gradient arrives on another CUDA stream (there are none)."""
    _check_bool(enabled)


def set_override_stale_capture_stream(enabled: bool) -> None:
    """How a CUDA graph capture treats a stale stream (there are none)."""
    _check_bool(enabled)
