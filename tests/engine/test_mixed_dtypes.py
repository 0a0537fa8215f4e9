"""Losses whose input and target differ in dtype (a float32 model's output against a float64
target made from numpy), checked against real PyTorch 2.13: the loss's dtype, each gradient's
dtype and graph with ``create_graph`` (PyTorch's loss ``*_backward`` kernels give self's dtype,
so no copy node), and PyTorch's errors where it refuses the mix."""

from __future__ import annotations

from typing import Any

import pytest

from ._support import Recorder, differential

pytestmark = pytest.mark.torch

LOSSES = ["F.mse_loss(x, y)", "F.mse_loss(x, y, reduction='sum')",
          "F.mse_loss(x, y, reduction='none')", "F.l1_loss(x, y)", "F.smooth_l1_loss(x, y)",
          "F.smooth_l1_loss(x, y, reduction='none', beta=0.5)",
          "F.smooth_l1_loss(x, y, beta=0.0)", "F.binary_cross_entropy_with_logits(x, y.sigmoid())",
          "F.binary_cross_entropy(x.sigmoid(), y.sigmoid())", "F.mse_loss(x, y[0])"]
DTYPES = [("torch.float32", "torch.float64"), ("torch.float64", "torch.float32"),
          ("torch.float32", "torch.float32")]


def _snippet(expr: str, dx: str, dy: str, create_graph: bool) -> Any:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        scope: dict[str, Any] = {"torch": torch, "F": torch.nn.functional}
        exec(f"x = torch.tensor([[0.05, -0.45, 1.86], [-1.31, -1.85, 0.32]], dtype={dx}, "
             f"requires_grad=True)\n"
             f"y = torch.tensor([[0.25, 0.73, 1.95], [1.06, 1.64, -0.11]], dtype={dy}, "
             f"requires_grad=True)", scope)
        x, y = scope["x"], scope["y"]
        box: list[Any] = []
        if not rec.attempt("loss", lambda: box.append(eval(expr, scope)) or box[-1]):
            return
        loss = box[0]
        rec.note("dtype", loss.dtype)
        rec.graph("forward", loss=loss, x=x, y=y)
        if not create_graph:
            rec.attempt("backward", lambda: loss.sum().backward())
            rec.grad("after", x=x, y=y)
            return
        grads: list[Any] = []
        rec.attempt("grad", lambda: grads.extend(torch.autograd.grad(loss.sum(), [x, y],
                                                                     create_graph=True)))
        for name, g in zip("xy", grads, strict=False):
            rec.note(f"d{name} dtype", g.dtype)
            rec.graph(f"d{name}", g=g, x=x, y=y)
        rec.attempt("backward of the gradients", lambda: sum(g.sum() for g in grads).backward())
        for name, t in (("x", x), ("y", y)):
            # NB: a clone: PyTorch's l1 gradient here is an "efficient zero" tensor, which
            # cannot be listed
            rec.attempt(f"{name}.grad", lambda t=t: None if t.grad is None else t.grad.clone())
    return snippet


@pytest.mark.parametrize(("dx", "dy"), DTYPES)
@pytest.mark.parametrize("expr", LOSSES)
@pytest.mark.parametrize("create_graph", [False, True])
def test_a_loss_over_mixed_dtypes_as_pytorch(expr: str, dx: str, dy: str,
                                             create_graph: bool) -> None:
    differential(_snippet(expr, dx, dy, create_graph))


@pytest.mark.parametrize("target", ["torch.tensor([[1, 0, 1], [0, 1, 1]])",
                                    "torch.tensor([[True, False, True], [False, True, True]])",
                                    "torch.tensor([[0.5, 0.0, 1.0], [1.0, 0.25, 1.0]], "
                                    "dtype=torch.float16)"])
def test_bce_with_logits_by_target_dtype_as_pytorch(target: str) -> None:
    """PyTorch's loss is ``(1 - target).mul_(input)...``: the target's dtype, and its errors
    for integer and boolean targets."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.tensor([[0.05, -0.45, 1.86], [-1.31, -1.85, 0.32]], requires_grad=True)
        t = eval(target, {"torch": torch})
        box: list[Any] = []
        if rec.attempt("loss", lambda: box.append(
                torch.nn.functional.binary_cross_entropy_with_logits(x, t)) or box[-1]):
            rec.note("dtype", box[0].dtype)
            rec.attempt("backward", lambda: box[0].backward())
            rec.grad("after", x=x)
    differential(snippet)


@pytest.mark.parametrize("expr", ["F.mse_loss(x, y)", "F.smooth_l1_loss(x, y)", "F.l1_loss(x, y)",
                                  "F.smooth_l1_loss(x, y, reduction='sum')",
                                  "F.binary_cross_entropy_with_logits(x, y.sigmoid())"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_a_loss_over_empty_inputs_as_pytorch(expr: str, create_graph: bool) -> None:
    """A mean over no element is nan, and its gradients are empty: no division by the size."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        scope: dict[str, Any] = {"torch": torch, "F": torch.nn.functional}
        exec("x = torch.zeros(2, 0, requires_grad=True)\n"
             "y = torch.zeros(2, 0, dtype=torch.float64, requires_grad=True)", scope)
        x, y = scope["x"], scope["y"]
        loss = eval(expr, scope)
        rec.note("loss", loss)
        grads: list[Any] = []
        rec.attempt("grad", lambda: grads.extend(torch.autograd.grad(
            loss, [x, y], create_graph=create_graph)))
        for name, g in zip("xy", grads, strict=False):
            rec.note(f"d{name}", g)
            rec.note(f"d{name} dtype", g.dtype)
    differential(snippet)


@pytest.mark.parametrize("dtypes", ["ffd", "ddf", "dfd", "fdf", "fdd"])
def test_matrix_product_dtype_errors_as_pytorch(dtypes: str) -> None:
    """``addmm`` (and ``linear``, ``Tensor.addmm``) checks the bias against mat2 before mat1
    against mat2 (seed 31526 of the random programs)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        b, m1, m2 = (torch.ones(2, 2, dtype=torch.float64 if c == "d" else torch.float32)
                     for c in dtypes)
        rec.attempt("addmm", lambda: torch.addmm(b, m1, m2))
        rec.attempt("Tensor.addmm", lambda: b[0].addmm(m1, m2))
        rec.attempt("linear", lambda: torch.nn.functional.linear(m1, m2, b[0]))
    differential(snippet)


@pytest.mark.parametrize("shapes", [((3,), (3,), (3,)), ((2, 2), (2, 2), (2,)),
                                    ((2, 2), (), (2, 2)), ((2, 2), (2, 2), (2, 2, 2))])
def test_addmm_of_a_non_matrix_as_pytorch(shapes: tuple[tuple[int, ...], ...]) -> None:
    """``addmm`` and ``addmm_`` name the operand that is no matrix, after their dtype checks
    (the parity fuzz's ``hv.addmm_(...)`` of a 1-d view)."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        b, m1, m2 = (torch.ones(s) for s in shapes)
        rec.attempt("addmm", lambda: torch.addmm(b, m1, m2))
        rec.attempt("addmm_", lambda: b.clone().addmm_(m1, m2))
        rec.attempt("dtype first", lambda: b.clone().addmm_(m1.double(), m2))
    differential(snippet)


@pytest.mark.parametrize("dtype", ["float64", "int64", "bool", "float16", "uint8"])
def test_expand_to_fewer_dims_names_the_type_as_pytorch(dtype: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        t = torch.ones(2, 3, dtype=getattr(torch, dtype))
        rec.attempt("expand", lambda: t.expand(3))
        rec.attempt("broadcast_to", lambda: t.broadcast_to((3,)))
    differential(snippet)


@pytest.mark.parametrize("expr", ["torch.max(a, b)", "torch.min(a, b)", "torch.maximum(b, a)",
                                  "torch.fmax(a, b)", "a.clamp(min=b)", "a.clamp(max=b)",
                                  "torch.where(a > b, a, b)", "F.hardtanh(a, -1.07, 1.0)"])
def test_a_tie_with_a_0d_operand_of_a_wider_dtype_as_pytorch(expr: str) -> None:
    """A float32 tensor against a 0-d float64 one compares in float32 (PyTorch's promotion): an
    element equal to the other after rounding is a tie in the backward too."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([[1.42, -1.56], [-1.07, -1.83]], requires_grad=True)
        b = torch.tensor(-1.07, dtype=torch.float64, requires_grad=True)
        out = eval(expr, {"torch": torch, "F": torch.nn.functional, "a": a, "b": b})
        rec.attempt("backward", lambda: out.sum().backward())
        rec.grad("after", a=a, b=b)
    differential(snippet)
