"""The factories' size argument as PyTorch takes it: by position, as a tuple or a list, as
``size=``, or none at all (refused with PyTorch's words; the engine gave a 0-d tensor)."""

from __future__ import annotations

import pytest

from ._support import Recorder, differential

CALLS = ["torch.ones()", "torch.zeros()", "torch.empty()", "torch.rand()", "torch.randn()",
         "torch.ones(())", "torch.zeros(size=(2, 3))", "torch.ones(size=[2])",
         "torch.empty(size=(0,)).shape", "torch.rand(size=(2,))", "torch.randn(size=())",
         "torch.randn(())", "torch.zeros(2, 3, dtype=torch.float64)", "torch.ones([3])"]


@pytest.mark.parametrize("call", CALLS)
def test_a_factory_size_as_pytorch(call: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(0)
        rec.attempt("call", lambda: eval(call, {"torch": torch}))
    differential(snippet)
