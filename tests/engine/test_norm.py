"""``nn.LayerNorm`` / ``F.layer_norm`` and ``nn.BatchNorm1d`` / ``nn.BatchNorm2d`` /
``F.batch_norm``, checked against real PyTorch 2.13: small models trained a few steps (graphs
before and after backward, gradients, running statistics and their versions), evaluation mode,
the modules' options and reprs, and the argument errors word for word."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import graphviz_autograd.torch as ours

from ._support import Recorder, differential, fixed_parameters

pytestmark = pytest.mark.torch


def _batch(torch: Any, shape: tuple[int, ...], k: int, dtype: Any = None) -> Any:
    n = int(np.prod(shape))
    return torch.tensor((np.sin(np.arange(n) * (k + 1.3)) * (k + 1)).reshape(shape).tolist(),
                        dtype=dtype)


def _stats(rec: Recorder, label: str, bn: Any) -> None:
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        buf = getattr(bn, name)
        rec.note(f"{label}: {name}", None if buf is None else (buf, buf._version))


def _mlp_snippet(norm: str, steps: int = 2, double: bool = False) -> Any:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        model = nn.Sequential(nn.Linear(3, 4), eval(f"nn.{norm}", {"nn": nn}), nn.Tanh(),
                              nn.Linear(4, 2))
        dtype = torch.float64 if double else torch.float32
        model.to(dtype)
        fixed_parameters(torch, model)
        rec.note("repr", repr(model))
        rec.note("state", [(k, list(v.shape), str(v.dtype)) for k, v in
                           model.state_dict().items()])
        opt_lr = 0.1
        target = _batch(torch, (5, 2), 7, dtype)
        for step in range(steps):
            x = _batch(torch, (5, 3), step, dtype)
            out = model(x)
            rec.graph(f"step {step}", out=out)
            loss = ((out - target) ** 2).mean()
            rec.attempt(f"backward {step}", loss.backward)
            rec.graph(f"after backward {step}", out=out)
            rec.grad(f"grads {step}", **dict(model.named_parameters()))
            with torch.no_grad():
                for p in model.parameters():
                    p -= opt_lr * p.grad
            model.zero_grad()
            if "Batch" in norm:
                _stats(rec, f"stats {step}", model[1])
        model.eval()
        out = model(_batch(torch, (2, 3), 9, dtype))
        rec.note("eval out", out)
        rec.graph("eval", out=out)
        rec.attempt("eval backward", out.sum().backward)
        rec.grad("eval grads", **dict(model.named_parameters()))
        if "Batch" in norm:
            _stats(rec, "stats after eval", model[1])
    return snippet


@pytest.mark.parametrize("norm", ["LayerNorm(4)", "LayerNorm([4], elementwise_affine=False)",
                                  "LayerNorm(4, eps=0.1, bias=False)"])
def test_an_mlp_with_layer_norm_as_pytorch(norm: str) -> None:
    differential(_mlp_snippet(norm))


@pytest.mark.parametrize("norm", ["BatchNorm1d(4)", "BatchNorm1d(4, momentum=None)",
                                  "BatchNorm1d(4, affine=False)",
                                  "BatchNorm1d(4, track_running_stats=False)",
                                  "BatchNorm1d(4, momentum=0.5, eps=0.01, bias=False)"])
def test_an_mlp_with_batch_norm_as_pytorch(norm: str) -> None:
    """In float64: a batch of 5 normalized to unit variance makes the first layer's gradients
    ill-conditioned (its bias's is 0 up to rounding), and float32 rounding differs from
    PyTorch's by more than the comparison's 1e-5 after a few steps."""
    differential(_mlp_snippet(norm, steps=3, double=True))


def test_an_mlp_with_batch_norm_in_float32_as_pytorch() -> None:
    differential(_mlp_snippet("BatchNorm1d(4, momentum=0.5, eps=0.01, bias=False)", steps=3))


@pytest.mark.parametrize("shape", [(3, 2, 4), (2, 2, 3, 2)])
def test_batch_norm_over_more_dims_as_pytorch(shape: tuple[int, ...]) -> None:
    """BatchNorm1d on (N, C, L) and BatchNorm2d on (N, C, H, W): statistics per channel."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        bn = torch.nn.BatchNorm1d(2) if len(shape) == 3 else torch.nn.BatchNorm2d(2)
        fixed_parameters(torch, bn)
        x = _batch(torch, shape, 1).requires_grad_()
        out = bn(x)
        rec.graph("forward", out=out, x=x)
        weights = _batch(torch, shape, 4)
        rec.attempt("backward", lambda: (out * weights).sum().backward())
        rec.graph("after backward", out=out)
        rec.grad("grads", x=x, weight=bn.weight, bias=bn.bias)
        _stats(rec, "stats", bn)
        bn.eval()
        out = bn(x)
        rec.note("eval", out)
        x.grad = None
        rec.attempt("eval backward", lambda: (out * weights).sum().backward())
        rec.grad("eval grads", x=x, weight=bn.weight)
    differential(snippet)


def test_saved_running_stats_are_the_buffers_as_pytorch() -> None:
    """The node saves the buffers themselves; their in-place update by the kernel leaves their
    version alone, so a backward after another forward still runs."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        bn = torch.nn.BatchNorm1d(3)
        x = _batch(torch, (4, 3), 2).requires_grad_()
        out = bn(x)
        rec.note("saved is buffer", out.grad_fn._saved_running_mean is bn.running_mean)
        rec.note("saved training", out.grad_fn._saved_training)
        rec.note("saved eps", out.grad_fn._saved_eps)
        rec.note("saved stats", [out.grad_fn._saved_result1, out.grad_fn._saved_result2])
        bn(x * 2)
        _stats(rec, "after second forward", bn)
        rec.attempt("backward of the first", lambda: out.sum().backward())
        bn.eval()
        out = bn(x)
        rec.note("eval saved stats", [out.grad_fn._saved_result1.shape,
                                      out.grad_fn._saved_training])
    differential(snippet)


def test_layer_norm_graph_variants_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        x = _batch(torch, (2, 3, 4), 0).requires_grad_()
        w = _batch(torch, (3, 4), 1).requires_grad_()
        b = _batch(torch, (3, 4), 2)
        for label, out in [("affine", F.layer_norm(x, (3, 4), w, b)),
                           ("weight only", F.layer_norm(x, [4], w[0])),
                           ("no affine", F.layer_norm(x, torch.Size([4]), eps=0.5)),
                           ("input detached", F.layer_norm(x.detach(), (3, 4), w, b))]:
            rec.graph(label, out=out)
            rec.note(f"{label}: normalized_shape", out.grad_fn._saved_normalized_shape)
            rec.note(f"{label}: stats", [out.grad_fn._saved_result1,
                                         out.grad_fn._saved_result2])
            x.grad = w.grad = None
            rec.attempt(f"{label}: backward", lambda out=out: (out * out).sum().backward())
            rec.grad(f"{label}: grads", x=x, w=w)
    differential(snippet)


@pytest.mark.parametrize("call", [
    "F.layer_norm(x, (5,))", "F.layer_norm(x, (2, 3, 4, 5))", "F.layer_norm(x, 4)",
    "F.layer_norm(x, ())", "F.layer_norm(x, (4,), torch.ones(3))",
    "F.layer_norm(x, (4,), None, torch.ones(3))", "F.layer_norm(x.long(), (4,))",
    "F.layer_norm(x, (4,), torch.ones(4, dtype=torch.float64))",
    "F.layer_norm(x.double(), (4,), torch.ones(4))",
    "torch.nn.LayerNorm(3)(x)",
    "F.batch_norm(x, None, None)", "F.batch_norm(x[:1, :, :1], None, None, training=True)",
    "F.batch_norm(x[:1, :, 0], None, None, training=True)",
    "F.batch_norm(x, torch.zeros(3), None, training=True)",
    "F.batch_norm(x, torch.zeros(4), torch.ones(4), torch.ones(2))",
    "F.batch_norm(x, torch.zeros(3), torch.ones(3), torch.ones(2))",
    "F.batch_norm(x, torch.zeros(3), torch.ones(3), None, torch.ones(4))",
    "F.batch_norm(x.long(), None, None, training=True)",
    "F.batch_norm(x.double(), torch.zeros(3), torch.ones(3))",
    "F.batch_norm(x, torch.zeros(3, dtype=torch.float64), torch.ones(3))",
    "F.batch_norm(x[0, 0], None, None, training=True)",
    "torch.nn.BatchNorm1d(3)(x.unsqueeze(0))", "torch.nn.BatchNorm1d(3)(x[0, 0])",
    "torch.nn.BatchNorm2d(3)(x)", "torch.nn.BatchNorm1d(3)(x[:1, :, 0])",
    "torch.nn.BatchNorm2d(3)(x[:1, :, :1].unsqueeze(-1))",
    "torch.nn.BatchNorm1d(4)(x[:, :, 0])", "torch.nn.BatchNorm1d(3).double()(x)",
    "repr(torch.nn.LayerNorm([3, 4], eps=1e-3, elementwise_affine=False))",
    "repr(torch.nn.BatchNorm2d(3, eps=1e-3, momentum=None, affine=False, "
    "track_running_stats=False))",
    "[n for n, _ in torch.nn.BatchNorm1d(3, affine=False).named_buffers()]",
    "[n for n, _ in torch.nn.BatchNorm1d(3, track_running_stats=False).named_buffers()]",
    "[(p.tolist(), p._version) for p in torch.nn.BatchNorm1d(2).parameters()]",
    "[(b.tolist(), b._version) for b in torch.nn.BatchNorm1d(2).buffers()]",
    "[(p.tolist(), p._version) for p in torch.nn.LayerNorm(2).parameters()]",
    "torch.nn.LayerNorm(3, bias=False).bias",
])
def test_norm_arguments_as_pytorch(call: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _batch(torch, (2, 3, 4), 0)
        rec.attempt("call", lambda: eval(call, {"torch": torch, "F": torch.nn.functional,
                                                "x": x}))
    differential(snippet)


def test_no_third_derivative_through_the_fused_norms() -> None:
    """A known difference: the double-backward nodes differentiate on arrays only."""
    x = ours.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
    for out in (ours.nn.functional.layer_norm(x, (3,)),
                ours.nn.functional.batch_norm(x, None, None, training=True)):
        g = ours.autograd.grad((out * out * out).sum(), x, create_graph=True)[0]
        with pytest.raises(NotImplementedError, match=r"create_graph through Native.*Backward"):
            ours.autograd.grad((g * g).sum(), x, create_graph=True)
    out = ours.nn.functional.group_norm(x[None], 1)
    with pytest.raises(NotImplementedError, match="create_graph through NativeGroupNorm"):
        ours.autograd.grad((out * out).sum(), x, create_graph=True)
