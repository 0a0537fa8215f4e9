"""Ordering, cumulative, diagonal, scatter and shape-composite ops (``engine/ordering.py``,
``engine/scattering.py``, ``engine/stacking.py``) checked against real PyTorch 2.13: result
types and indices, in-place forms and versions, views, and the argument errors word for word.
The op table's examples (``test_op_table``) check their nodes, saved values and gradients."""

from __future__ import annotations

from typing import Any

import pytest

from ._support import Recorder, differential

pytestmark = pytest.mark.torch


def _x(torch: Any) -> Any:
    return torch.tensor([[3.0, 1.0, 4.0, 2.0], [0.5, 5.0, 6.0, -1.0], [1.5, -2.0, 2.5, 7.0]],
                        requires_grad=True)


def _attempt_all(rec: Recorder, calls: dict[str, Any]) -> None:
    for label, fn in calls.items():
        rec.attempt(label, fn)


def test_ordering_results_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _x(torch)
        for label, fn in {
            "sort": lambda: torch.sort(x, 1, True),
            "sort stable": lambda: x.sort(dim=0, stable=True),
            "sort nan": lambda: torch.tensor([1.0, float("nan"), 0.0]).sort(descending=True),
            "sort ints": lambda: torch.tensor([3, 1, 2]).sort(),
            "sort 0-d": lambda: torch.tensor(2.0).sort(),
            "argsort": lambda: x.argsort(1, descending=True),
            "argsort stable": lambda: torch.argsort(x, dim=0, stable=True),
            "msort": lambda: torch.msort(x),
            "topk": lambda: x.topk(2),
            "topk smallest": lambda: torch.topk(x, 1, dim=0, largest=False),
            "kthvalue": lambda: x.kthvalue(2, 1, keepdim=True),
            "mode": lambda: torch.tensor([[1.0, 2.0, 2.0, 1.0, 3.0], [4.0, 4.0, 0.0, 4.0, 0.0]])
            .mode(1),
            "amin": lambda: x.amin((0, 1)),
            "cummax": lambda: torch.tensor([1.0, 5.0, 5.0, 2.0, 5.0]).cummax(0),
            "cummin nan": lambda: torch.tensor([1.0, float("nan"), 0.0]).cummin(0),
            "cumprod ints": lambda: torch.tensor([1, 5, 2]).cumprod(0),
            "trace ints": lambda: torch.tensor([[1, 2], [3, 4]]).trace(),
        }.items():
            out = fn()
            rec.note(label, out)
            rec.note(label + " type", type(out).__name__)
            if isinstance(out, tuple):
                rec.note(label + " fields", (out.values, out.indices))
                rec.note(label + " repr", repr(out))
        v = x.sort(1)
        rec.note("indices are saved", torch.equal(v.values.grad_fn._saved_indices,
                                                     v.indices))
        _attempt_all(rec, {
            "topk k": lambda: x.topk(5),
            "kthvalue k": lambda: x.kthvalue(0),
            "amin empty": lambda: torch.ones(0, 3).amin(),
            "logcumsumexp int": lambda: torch.tensor([1, 2]).logcumsumexp(0),
            "triu 1-d": lambda: torch.ones(3).triu(),
            "diagonal same dims": lambda: x.diagonal(0, 1, 1),
            "diag 3-d": lambda: torch.ones(2, 2, 2).diag(),
            "trace 1-d": lambda: torch.ones(3).trace(),
            "diff 0-d": lambda: torch.tensor(1.0).diff(),
            "mT 1-d": lambda: torch.ones(3).mT,
        })
    differential(snippet)


def test_in_place_and_views_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _x(torch)
        t = x.clone()
        t.triu_(1)
        rec.note("triu_", (t, t._version, t.grad_fn.name()))
        t.tril_(2)
        rec.note("tril_", (t, t._version))
        d = t.diagonal()
        rec.note("diagonal view", (d._base is t, d.grad_fn.name()))
        d.mul_(3)                                # writes through into t (CopySlices)
        rec.note("after d.mul_", (t, t._version, t.grad_fn.name()))
        rec.graph("through the diagonal", out=t)
        t.sum().backward()
        rec.grad("grad", x=x)
        u = x.detach().clone()
        u.index_fill_(1, torch.tensor([0, 3]), -1.0)
        u.scatter_(0, torch.tensor([[2, 0, 1, 0]]), 9.0)
        u.scatter_add_(1, torch.tensor([[0], [1], [2]]), torch.ones(3, 1))
        u.index_copy_(0, torch.tensor([1]), torch.zeros(1, 4))
        rec.note("in-place writes", (u, u._version))
        a = x.detach().clone().requires_grad_()
        out = a.cumprod(1) * torch.tensor([1.0, 0.0, 2.0, -1.0])
        rec.attempt("cumprod with zeros", lambda: out.sum().backward())
        rec.grad("cumprod grad", a=a)
        z = torch.tensor([[2.0, 0.0, 3.0], [0.0, 0.0, 1.5]], requires_grad=True)
        z.cumprod(1).sum().backward()
        rec.grad("cumprod through zeros", z=z)
    differential(snippet)


def test_scatter_and_composites_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _x(torch)
        src = torch.tensor([[0.5, -1.0, 2.0, 3.0], [1.5, 2.5, -0.5, 4.0]], requires_grad=True)
        i = torch.tensor([[0, 1, 2, 0], [2, 0, 1, 1]])
        outs = {
            "scatter": x.scatter(0, i, src), "scatter value": torch.scatter(x, 1, i[:, :2], 2.5),
            "scatter_add": x.scatter_add(0, i, src),
            "index_copy": x.index_copy(0, torch.tensor([2, 0]), src),
            "take_along_dim": torch.take_along_dim(x, i, 0),
            "take_along_dim flat": torch.take_along_dim(x, torch.tensor([1, 5])),
            "repeat_interleave": x.repeat_interleave(2, dim=-1),
            "repeat_interleave tensor": torch.repeat_interleave(x, torch.tensor([1, 0, 2]), 0),
            "hstack": torch.hstack([x, x]), "dstack": torch.dstack([x[0], x[1]]),
            "column_stack": torch.column_stack([x[0], x[1]]), "tile": x.tile((2, 1, 1)),
            "movedim": x.movedim(1, 0), "unflatten": x.unflatten(1, (2, -1)),
            "diff": torch.diff(x, n=2, dim=1, prepend=torch.zeros(3, 1)),
        }
        for label, out in outs.items():
            rec.note(label, out)
            rec.graph(label, out=out)
        total = sum(out.sum() for out in outs.values())
        total.backward()
        rec.grad("grads", x=x, src=src)
        rec.note("repeat_interleave counts", torch.repeat_interleave(torch.tensor([2, 0, 1])))
        grid = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="xy")
        rec.note("meshgrid xy", grid)
        rec.note("broadcast_tensors", torch.broadcast_tensors(x, torch.ones(4)))
        rec.note("atleast", (torch.atleast_1d(torch.tensor(1.0)),
                             torch.atleast_3d(torch.ones(2)).shape))
        rec.note("tensor_split", x.tensor_split(3, dim=1))
        rec.note("Unflatten", repr(torch.nn.Unflatten(1, (2, 2))))
        _attempt_all(rec, {
            "scatter bounds": lambda: x.scatter(0, i + 3, src),
            "scatter dims": lambda: x.scatter(0, i[0], src),
            "scatter sizes": lambda: x.scatter(0, torch.zeros(4, 4, dtype=torch.long), src),
            "scatter dtype": lambda: x.scatter(0, i, src.double()),
            "index_copy bounds": lambda: x.index_copy(0, torch.tensor([5, 0]), src),
            "index_copy count": lambda: x.index_copy(0, torch.tensor([1]), src),
            "take_along_dim dims": lambda: torch.take_along_dim(x, i[0], 0),
            # NB: flat, PyTorch views the input: a broadcast one cannot be viewed so
            "take_along_dim broadcast": lambda: torch.take_along_dim(
                x[:1].broadcast_to(3, x.shape[1]), torch.tensor([0, 4])),
            "repeat_interleave negative": lambda: x.repeat_interleave(-1),
            "repeat_interleave sizes": lambda: x.repeat_interleave(torch.tensor([1, 2]), 0),
            "hsplit": lambda: x.hsplit(3),
            "vsplit 1-d": lambda: torch.ones(3).vsplit(1),
            "unflatten": lambda: x.unflatten(1, (3, 3)),
            "movedim repeated": lambda: x.movedim((0, 0), (0, 1)),
            "meshgrid indexing": lambda: torch.meshgrid(x[0], indexing="ab"),
        })
    differential(snippet)
