"""Anomaly mode, as PyTorch's: each node made while it is on keeps the Python stack of its
forward call; a backward that fails in a node warns with that stack first, and with ``check_nan``
a node whose gradient holds a nan fails. The engine pays nothing while it is off."""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any

import numpy as np

from . import events
from . import messages as msg

__all__ = ["state", "set_enabled", "failed", "check_nan"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_FROM = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/" \
        "python_anomaly_mode.cpp:{}.)"
_HINT_ON = (" Hint: the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. Good "
            "luck!")


class _State:
    __slots__ = ("enabled", "check_nan")

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


state = _State()


_RUNNER = _PACKAGE + "runner.py"


def _forward_stack() -> str:
    """The Python stack of the op being made, as PyTorch keeps it: without the engine's frames
    (they stand for PyTorch's C++ ones), and for a script run by ``graphviz-autograd`` from the
    script's own first frame, as ``python SCRIPT.py`` would have it."""
    frames: list[traceback.FrameSummary] = []
    for f in traceback.extract_stack(sys._getframe(2)):
        if f.filename == _RUNNER:
            frames = []
        elif not f.filename.startswith(_PACKAGE):
            frames.append(f)
    return "".join(traceback.format_list(frames))


def _made(node: Any, tensor: Any) -> None:
    node._anomaly_stack = _forward_stack()


_LISTENER = events.Dispatch({"node_created": _made})


def set_enabled(enabled: bool, check_nan: bool = True) -> None:
    """``torch.set_anomaly_enabled``: from now on, nodes keep their forward stack."""
    was = state.enabled
    state.enabled, state.check_nan = bool(enabled), bool(check_nan)
    if state.enabled and not was:
        events.subscribe(_LISTENER)
    elif was and not state.enabled:
        events.unsubscribe(_LISTENER)


def failed(node: Any, error: BaseException) -> None:
    """A backward failed in ``node``: warn with the stack of its forward call, and point the
    error's hint at that stack (PyTorch's words)."""
    stack = node.__dict__.get("_anomaly_stack") if hasattr(node, "__dict__") else None
    if stack is None:
        text = (f"Error detected in {node.name()}. No forward pass information available. "
                f"Enable detect anomaly during forward pass for more information."
                + _FROM.format(100))
    else:
        text = (f"Error detected in {node.name()}. Traceback of forward call that caused the "
                f"error:\n{stack}" + _FROM.format(122))
    msg.warn_user(text)
    if isinstance(error, RuntimeError) and error.args and isinstance(error.args[0], str) \
            and error.args[0].endswith(msg.VERSION_HINT):
        error.args = (error.args[0][:-len(msg.VERSION_HINT)] + _HINT_ON, *error.args[1:])


def check_nan(node: Any, outputs: Any) -> None:
    """PyTorch's check of a node's gradients (those an input wants) for nan."""
    for i, ((nxt, _), g) in enumerate(zip(node._next, outputs)):
        if nxt is None or g is None:
            continue
        data = getattr(g, "_data", g)
        if isinstance(data, np.ndarray | np.generic) and data.dtype.kind == "f" \
                and np.isnan(data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               f"output.")
