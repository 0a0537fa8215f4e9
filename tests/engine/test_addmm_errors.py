"""``addmm`` and ``addmm_`` refuse arguments that are not matrices with PyTorch's words (they
raised an IndexError; found by the recorder's parity fuzzer)."""

from __future__ import annotations

import pytest

from ._support import Recorder, differential

CALLS = ["torch.zeros(3).addmm_(torch.ones(3), torch.ones(3))",
         "torch.zeros(2, 2).addmm_(torch.ones(2), torch.ones(2, 2))",
         "torch.zeros(2, 2).addmm_(torch.ones(2, 2), torch.ones(2))",
         "torch.addmm(torch.zeros(2, 2), torch.ones(2), torch.ones(2))",
         "torch.addmm(torch.zeros(2, 2), torch.ones(2, 2, 2), torch.ones(2, 2))",
         "torch.zeros(3).addmm_(torch.ones(3, 3), torch.ones(3, 3))",
         "torch.addmm(torch.zeros(2, 3), torch.ones(2, 4), torch.ones(5, 3))"]


@pytest.mark.parametrize("call", CALLS)
def test_addmm_of_wrong_shapes_raises_pytorchs_error(call: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        rec.attempt("call", lambda: eval(call, {"torch": torch}))
    differential(snippet)
