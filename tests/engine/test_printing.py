"""``repr(tensor)`` is PyTorch's, character for character: one format for all the elements
(whole numbers, 4 decimals or scientific), lines of 80 characters, summaries of large tensors,
suffixes (dtype, size of an empty tensor, grad_fn, requires_grad) wrapped like PyTorch's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import graphviz_autograd.torch as ours

from ._support import real_torch


def _arrays(n: int) -> Iterator[tuple[np.ndarray | np.generic, bool, bool]]:
    """(data, requires_grad, through an op): random shapes, dtypes, magnitudes and specials."""
    rng = np.random.default_rng(7)
    kinds = ["float32", "float64", "float16", "int64", "int32", "bool"]
    for i in range(n):
        nd = int(rng.integers(0, 4))
        high = [2, 400, 60, 14][nd]                       # up to a few thousand elements
        shape = tuple(int(x) for x in rng.integers(1, high, size=nd))
        if nd == 1 and i % 4 == 0:
            shape = (int(rng.integers(900, 1300)),)      # around the summary threshold
        kind = kinds[i % len(kinds)]
        scale = 10.0 ** int(rng.integers(-6, 10))
        data: Any
        if kind == "bool":
            data = rng.random(shape) < 0.5
        elif kind.startswith("int"):
            data = np.clip(rng.standard_normal(shape) * scale, -2e9, 2e9).astype(kind)
        else:
            data = rng.standard_normal(shape) * min(scale, 1e4 if kind == "float16" else scale)
            if i % 3 == 0:
                data = np.round(data)
            if i % 10 == 0 and np.size(data):
                np.asarray(data).flat[0] = np.nan
            if i % 10 == 5 and np.size(data):
                np.asarray(data).flat[-1] = -np.inf
            data = np.asarray(data).astype(kind) if nd else np.dtype(kind).type(data)
        grad = kind in ("float32", "float64") and i % 3 == 1
        yield data, grad, grad and i % 2 == 0


@pytest.mark.torch
def test_reprs_match_pytorch_over_many_tensors() -> None:
    torch = real_torch()
    differ = []
    for data, grad, op in _arrays(600):
        theirs = torch.tensor(data, requires_grad=grad)
        mine = ours.tensor(data, requires_grad=grad)
        if op:
            theirs, mine = theirs * 1, mine * 1
        if repr(theirs) != repr(mine):
            differ.append((repr(theirs), repr(mine)))
    assert not differ, f"{len(differ)} of 600 differ; the first:\n{differ[0][0]}\n{differ[0][1]}"


@pytest.mark.torch
@pytest.mark.parametrize("make", [
    lambda t: t.arange(2000),
    lambda t: t.arange(2000.0),
    lambda t: t.arange(1100.0).reshape(11, 100),
    lambda t: t.arange(24.0).reshape(2, 3, 4) / 7,
    lambda t: t.tensor([-0.0, 0.0]),
    lambda t: t.tensor([0.1, 0.25, 1000.0]),
    lambda t: t.tensor([1e-5, 1.0]),
    lambda t: t.tensor([float("nan"), float("inf"), -float("inf"), 1.5]),
    lambda t: t.tensor([], dtype=t.int64),
    lambda t: t.zeros(2, 0, dtype=t.int32),
    lambda t: t.ones(40, 3, dtype=t.float64, requires_grad=True) * 2,
    lambda t: t.tensor(3.5, requires_grad=True),
    lambda t: t.tensor([True, False]),
], ids=["int summary", "float summary", "rows summary", "3-d", "signed zeros", "sci ratio",
        "sci small", "non-finite", "empty int", "empty 2-d", "suffix wrap", "0-d", "bool"])
def test_reprs_of_the_usual_edge_cases_match_pytorch(make: Any) -> None:
    assert repr(make(ours)) == repr(make(real_torch()))


@pytest.mark.torch
@pytest.mark.parametrize("text", ["repr(p)", "str(p)", "f'{p}'", "str([p])", "'%s' % (p,)",
                                  "repr(torch.nn.Parameter(torch.ones(2), requires_grad=False))",
                                  "str(p.data)", "str(p * 2)"])
def test_a_parameter_prints_as_pytorchs(text: str) -> None:
    """``Parameter containing:`` first, however it is printed."""
    outputs = []
    for torch in (real_torch(), ours):
        p = torch.nn.Parameter(torch.tensor([[1.5, -2.0], [0.25, 3.0]]))
        outputs.append(eval(text, {"torch": torch, "p": p}))
    assert outputs[0] == outputs[1]
