"""Dim arguments where PyTorch's rules are not numpy's, each checked against real PyTorch 2.13:
a 0-d tensor has one dim of size 1 for reductions and dim ops (``dim=0`` or ``-1``); an empty
dim list reduces over every dim on the dim form's node; ``var``/``std`` gradients where no degree
of freedom is left; ``median(dim)``; ``True``/``False`` as indices."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from ._support import Recorder, differential

pytestmark = pytest.mark.torch

# NB: z is 0-d, y is 2x3 with distinct values, w is 2x4 with ties (median)
SETUP = ("z = torch.tensor(1.5, requires_grad=True)\n"
         "y = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]], requires_grad=True)\n"
         "w = torch.tensor([[3.0, 1.0, 2.0, 2.0], [5.0, 5.0, 4.0, 4.0]], requires_grad=True)\n")

ZERO_D = ["z.sum(0)", "z.sum(-1, keepdim=True)", "z.sum((0,))", "z.mean(0)", "z.amax(0)",
          "z.max(0).values", "z.min(-1, keepdim=True)[0]", "z.max(0).indices", "z.prod(0)",
          "(z * 0).prod(0)", "z.cumsum(0)", "z.flip(0)", "z.transpose(0, -1)", "z.norm(dim=0)",
          "z.norm(p=1, dim=0)", "z.logsumexp(0)", "z.softmax(0)", "z.log_softmax(-1)",
          "z.var(0)", "z.std(0)", "z.var(0, unbiased=False)", "z.std(0, correction=0)", "z.var()",
          "z.gather(0, torch.tensor(0))", "z.index_select(0, torch.tensor([0]))",
          "z.median(0).values", "z.roll(1, 0)", "z.roll(1)", "z.unbind(0)", "z.unbind(2)",
          "z.permute(())", "z.permute()"]
EMPTY_DIMS = ["y.sum([])", "y.sum([], keepdim=True)", "y.mean(())", "y.amax([])",
              "y.norm(dim=[])", "y.var([])", "y.std(())", "y.var([], correction=0)", "z.sum([])"]
DEGREES = ["y.var(correction=6)", "y.var(correction=7)", "y.var(1, correction=3)",
           "y.var(1, correction=4)", "y.std(correction=6)", "y[:, :1].var(1)", "y[:1].var()",
           "torch.tensor([2.0, 2.0], requires_grad=True).var(correction=2)"]
MEDIAN = ["w.median(1)", "w.median(0, keepdim=True)", "torch.median(w, -1)", "w.median()",
          "torch.ones(0).median()", "torch.ones(0).median(0)", "torch.ones(2, 0).median(0)"]
BOOL_INDEX = ["z[True]", "z[False]", "z[(True,)]", "z[None, True]", "z[True, ...]",
              "z[torch.tensor(True)]", "z[True, True]", "y[True]", "y[False]", "y[True, 1]",
              "y[torch.tensor(False), 0, 1:]"]
SAVED = ["z.sum(0)", "z.sum(0, keepdim=True)", "z.var(0)", "y.var()", "y.var(True)",
         "y.var(0)", "y.var(dim=None)", "y.var([])", "y.std(0, keepdim=True)",
         "y.std(None, unbiased=True)", "w.median(1)", "y.gather(1, torch.tensor([[0], [2]]))",
         # NB: negative dims and indices, open slice ends: kept as given, shown unsigned
         "y[-1]", "y[:, -1]", "y[-2:]", "y[:-1]", "y[::2]", "y[0:100]", "y.narrow(-1, -2, 1)",
         "y.select(-1, -2)", "y.unsqueeze(-1)", "y[:1].squeeze(-2)", "y.transpose(-1, -2)",
         "y.permute(-1, 0)", "y.cumsum(-1)", "y.softmax(-1)", "y.log_softmax(-2)", "y.sum(-1)",
         "y.mean((-1, 0))", "y.max(-1)", "y.amax(-1)", "y.logsumexp(-1)", "y.var(-1)",
         "y.norm(dim=-1)", "y.prod(-1)", "y.flip(-1)", "y.roll(-1, -1)", "z.sum(-1)",
         "y.gather(-1, torch.zeros(2, 1, dtype=torch.long))", "z.transpose(-1, -1)",
         "y.index_select(-1, torch.tensor([0]))", "torch.cat([y, y], -1)",
         "torch.stack([y, y], -1)", "y.split(2, -1)", "y.chunk(2, -1)", "y.split([1, 2], -1)",
         "y.unbind(-1)", "w.median(-1)", "y.min(-2)", "y.logsumexp([], keepdim=True)",
         "torch.nn.functional.nll_loss(y, torch.tensor([0, 1]))",
         "torch.nn.functional.cross_entropy(y, torch.tensor([0, 1]), ignore_index=-1)"]


def _expression(expr: str) -> Any:
    def snippet(rec: Recorder) -> None:
        scope: dict[str, Any] = {"torch": rec.torch}
        exec(SETUP, scope)
        box: list[Any] = []

        def run() -> Any:
            box.append(eval(expr, scope))
            return box[-1]
        if not rec.attempt("value", run) or not box:
            return
        outs = [o for o in (box[0] if isinstance(box[0], tuple) else (box[0],))
                if o.requires_grad]
        for i, out in enumerate(outs):
            rec.note(f"grad_fn {i}", out.grad_fn)
            rec.graph(f"graph {i}", out=out)
        if outs:
            rec.attempt("backward", lambda: sum((o * 2).sum() for o in outs).backward())
            rec.grad("after", z=scope["z"], y=scope["y"], w=scope["w"])
    return snippet


@pytest.mark.parametrize("expr", ZERO_D + EMPTY_DIMS + DEGREES + MEDIAN + BOOL_INDEX)
def test_as_pytorch(expr: str) -> None:
    differential(_expression(expr))


@pytest.mark.parametrize("expr", ["z[True]", "z[(None, False)]", "y[True]", "y[False, 0]"])
def test_bool_index_assignment_as_pytorch(expr: str) -> None:
    def snippet(rec: Recorder) -> None:
        scope: dict[str, Any] = {"torch": rec.torch}
        exec(SETUP, scope)
        exec("z = z.detach().clone()\ny = y.detach().clone()", scope)
        rec.attempt("assign", lambda: exec(f"{expr} = 9.0", scope))
        rec.note("z", scope["z"])
        rec.note("y", scope["y"])
    differential(snippet)


@pytest.mark.parametrize("expr", SAVED)
def test_saved_dim_attributes_as_pytorch(expr: str) -> None:
    """``_saved_dim``, ``_saved_keepdim``, ``_saved_correction`` and the like: PyTorch keeps a
    dim or an index as passed (a negative one shows as an unsigned 64-bit number)."""
    def snippet(rec: Recorder) -> None:
        scope: dict[str, Any] = {"torch": rec.torch}
        exec(SETUP, scope)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")       # var(0) of a 0-d tensor: no degree of freedom
            out = eval(expr, scope)
        fn = (out[0] if isinstance(out, tuple) else out).grad_fn
        rec.note("attributes", {a: getattr(fn, a) for a in dir(fn) if a.startswith("_saved_")
                                and a not in ("_saved_self", "_saved_result", "_saved_indices",
                                              "_saved_index")})
    differential(snippet)
