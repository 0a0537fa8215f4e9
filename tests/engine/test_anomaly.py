"""Anomaly mode as PyTorch's: the state functions, the warning that names the node a backward
failed in with the stack of its forward call, the hint of the in-place error, and the nan check.
Each case runs on real torch and on the engine from the same frames, so the warnings' stacks
must be the same text."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import graphviz_autograd
import graphviz_autograd.torch as ours

from ._support import real_torch


def _observe(torch: ModuleType, body: Callable[[ModuleType], Any]) -> tuple[Any, ...]:
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            out: Any = ("ok", repr(body(torch)))
        except Exception as e:
            out = ("error", type(e).__name__, str(e))
        finally:
            torch.set_anomaly_enabled(False)
    return out, [(w.category.__name__, str(w.message)) for w in ws]


def _modified(torch: ModuleType) -> Any:
    with torch.autograd.set_detect_anomaly(True):
        w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        z = w.exp()
        z.add_(1)
        z.sum().backward()


def _twice(torch: ModuleType) -> Any:
    with torch.autograd.detect_anomaly():
        w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = (w * 2).sum()
        y.backward()
        y.backward()


def _nan(torch: ModuleType) -> Any:
    with torch.autograd.set_detect_anomaly(True):
        b = torch.tensor([0.0, 1.0], requires_grad=True)
        c = b.sqrt()
        (c * 0).sum().backward()


def _nan_unchecked(torch: ModuleType) -> Any:
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        b = torch.tensor([0.0, 1.0], requires_grad=True)
        (b.sqrt() * 0).sum().backward()
        return b.grad.tolist()


def _made_outside(torch: ModuleType) -> Any:
    b = torch.tensor([0.0, 1.0], requires_grad=True)
    c = b.sqrt()
    with torch.autograd.set_detect_anomaly(True):
        (c * 0).sum().backward()


def _nan_in_second_input(torch: ModuleType) -> Any:
    torch.autograd.set_detect_anomaly(True)
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, float("nan")], requires_grad=True)
    return torch.autograd.grad((a * b).sum(), [a, b])


def _grad_with_graph(torch: ModuleType) -> Any:
    with torch.autograd.detect_anomaly():
        x = torch.tensor([0.0, 4.0], requires_grad=True)
        (g,) = torch.autograd.grad(x.sqrt().sum(), [x], create_graph=True)
        return g.sum().backward()


def _fine(torch: ModuleType) -> Any:
    with torch.autograd.detect_anomaly():
        x = torch.tensor([1.0, 4.0], requires_grad=True)
        (x.sqrt() * x).sum().backward()
        return x.grad.tolist()


CASES = [_modified, _twice, _nan, _nan_unchecked, _made_outside, _nan_in_second_input,
         _grad_with_graph, _fine]


@pytest.mark.parametrize("body", CASES, ids=[c.__name__.strip("_") for c in CASES])
def test_anomaly_mode_as_pytorch(body: Callable[[ModuleType], Any]) -> None:
    # NB: both from the same line: the stacks in the warnings are then the same text
    theirs, mine = (_observe(module, body) for module in (real_torch(), ours))
    assert mine == theirs


def test_anomaly_state_as_pytorch() -> None:
    def states(torch: ModuleType) -> list[Any]:
        seen = [(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())]
        torch.autograd.set_detect_anomaly(True)
        seen.append((torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
        torch.autograd.set_detect_anomaly(False)
        with torch.autograd.detect_anomaly(check_nan=False):
            seen.append((torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
            with torch.autograd.set_detect_anomaly(False):
                seen.append((torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
            seen.append((torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
        seen.append((torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
        return seen

    theirs, mine = (_observe(module, states) for module in (real_torch(), ours))
    assert mine == theirs


def test_a_recording_keeps_the_error_of_a_backward_in_anomaly_mode() -> None:
    """The recorder and anomaly mode both listen to the engine: the failed snapshot carries the
    error with anomaly mode's hint, and the user's code gets it unchanged."""
    with graphviz_autograd.record() as rec, warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with ours.autograd.set_detect_anomaly(True):
            w = ours.tensor([0.5, -1.0], requires_grad=True)
            z = w.exp()
            z.mul_(2)
            with pytest.raises(RuntimeError, match="Good luck!") as caught:
                z.sum().backward()
    failed = rec.snapshots[-1]
    assert failed.kind == "backward_failed"
    assert failed.error is not None and failed.error["message"] == str(caught.value)
    assert any("Error detected in ExpBackward0" in str(w.message) for w in ws)
