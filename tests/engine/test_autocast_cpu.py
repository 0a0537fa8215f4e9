"""``torch.bfloat16`` and CPU ``torch.autocast``, checked against real PyTorch 2.13: bfloat16
values bit for bit (float32 computation rounded to bfloat16), printing, promotion, errors and
backward; small MLPs and a conv net under ``torch.autocast("cpu")`` (bfloat16) and
``dtype=torch.float16``: output dtypes, graphs with their ToCopyBackward0 casts, gradients,
the cast cache, nested and disabled regions."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest

from ._support import Recorder, differential, fixed_parameters, real_torch, run_snippet

pytestmark = pytest.mark.torch


def _values(torch: Any, n: int = 400, seed: int = 0) -> Any:
    """float32 values of many magnitudes, with bfloat16 ties and specials."""
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(n).astype(np.float32) * np.exp2(rng.integers(-30, 30, n))
    ties = (np.arange(1, 33, dtype=np.float32) * 2 ** -8 + 1).astype(np.float32)  # x.5 ulps
    specials = np.array([0.0, -0.0, 1e-40, -1e-39, 3.4e38, -3.39e38, 1.0, 65504.0, 7e-46],
                        np.float32)
    return torch.tensor(np.concatenate([v, ties, specials]).tolist(), dtype=torch.float32)


def _bits(t: Any) -> Any:
    """A bfloat16 tensor's values as float32 (exact), so any differing bit shows."""
    return t.float()


def test_conversion_rounds_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _values(torch)
        b = x.bfloat16()
        rec.note("dtype", [b.dtype, x.to(torch.bfloat16).dtype,
                           torch.tensor([1.5], dtype=torch.bfloat16).dtype])
        rec.note("from float32", _bits(b))
        rec.note("from float64", _bits(x.double().to(torch.bfloat16)))
        rec.note("from float16", _bits(x.clamp(-6e4, 6e4).half().bfloat16()))
        rec.note("to float16", b.clamp(-6e4, 6e4).half().float())
        rec.note("from int64", _bits(torch.arange(-300, 300, 7).bfloat16()))
        rec.note("to int64", b.clamp(-1e6, 1e6).long())
        rec.note("from list", _bits(torch.tensor([1.00390625, 1.01171875, 3.14159, 1e30],
                                                 dtype=torch.bfloat16)))
        rec.note("tolist", b[:8].tolist())
        rec.note("item", b[3].item())
        rec.note("facts", [b.is_floating_point(), b.element_size(), b.itemsize,
                           torch.zeros(2, dtype=torch.bfloat16).tolist()])
        t = torch.ones(2, 3, dtype=torch.bfloat16)
        t[1] = 2.7
        t[0, 1:] += 0.1
        t[:, 0].mul_(3)
        rec.note("writes through views", _bits(t))
        rec.note("module", [p.dtype for p in torch.nn.Linear(2, 2).bfloat16().parameters()])
        buf = io.BytesIO()
        torch.save({"b": b[:20]}, buf)
        buf.seek(0)
        rec.note("save and load", _bits(torch.load(buf)["b"]))
        torch.manual_seed(0)
        rec.note("random", _bits(torch.randn(6, dtype=torch.bfloat16)))
    differential(snippet)


@pytest.mark.parametrize("half", ["bfloat16", "float16"])
def test_arithmetic_bits(half: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        low = getattr(torch, half)
        scale = 1e-6 if half == "bfloat16" else 1e-12     # NB: float16 ends at 65504
        x = (_values(torch, 300, 1) * scale).to(low)
        y = (_values(torch, 300, 2) * scale).to(low)
        small = torch.linspace(-4, 4, 341).to(low)
        rec.note("add", _bits(x + y))
        rec.note("sub", _bits(x - y))
        rec.note("mul", _bits(x * y))
        rec.note("div", _bits(x / (y.abs() + 1)))
        rec.note("scalar", _bits(x * 3.3 + 0.1))
        big = torch.linspace(-1, 1, 2048).to(low)   # NB: whole vectors: no scalar tail
        rec.note("alpha", [_bits(big.add(big.flip(0), alpha=0.3)),
                           _bits(big.sub(big * 2, alpha=-0.1))])
        rec.note("scalar operands", [_bits(0.1 - small), _bits(small / 3.3), _bits(small - 0.3),
                                     _bits((small.abs() + 1) ** 1.7),
                                     _bits(small + torch.tensor(0.1))])
        rec.note("neg abs", _bits((-x).abs()))
        rec.note("exp", _bits(small.exp()))
        rec.note("tanh", _bits(small.tanh()))
        rec.note("sigmoid", _bits(torch.sigmoid(small)))
        rec.note("relu", _bits(torch.relu(small)))
        rec.note("sqrt", _bits(small.abs().sqrt()))
        rec.note("pow", _bits(small.pow(2)))
        rec.note("sum", _bits(torch.ones(1000, dtype=low).sum()))
        rec.note("sum dim", _bits(small[:340].reshape(20, 17).sum(1)))
        rec.note("mean", _bits(small.mean()))
        rec.note("softmax", _bits(small[:340].reshape(34, 10).softmax(-1)))
        rec.note("matmul", _bits(small[:12].reshape(3, 4) @ small[100:112].reshape(4, 3)))
    differential(snippet)


def test_printing() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        rec.note("small", repr(torch.tensor([1.1, 2.2, -3.3], dtype=torch.bfloat16)))
        rec.note("ints", repr(torch.ones(2, 3, dtype=torch.bfloat16)))
        rec.note("wide", repr(torch.tensor([1e-3, 300.7, 1e30], dtype=torch.bfloat16)))
        rec.note("scalar", repr(torch.tensor(1.5, dtype=torch.bfloat16)))
        rec.note("empty", repr(torch.zeros(0, 2, dtype=torch.bfloat16)))
        w = torch.tensor([0.5, 2.0], requires_grad=True)
        rec.note("grad_fn", repr(w.bfloat16() * 3))
        rec.note("str", str(torch.tensor([2.5], dtype=torch.bfloat16)))
        rec.note("dtype", [str(torch.bfloat16), repr(torch.bfloat16)])
    differential(snippet)


def test_promotion_and_facts() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        b = torch.ones(2, dtype=torch.bfloat16)
        for d in (torch.float16, torch.float32, torch.float64, torch.int64, torch.int32,
                  torch.uint8, torch.bool):
            o = torch.ones(2, dtype=d)
            rec.note(f"with {d}", [(b + o).dtype, (o * b).dtype, (b + o[0]).dtype,
                                   torch.promote_types(torch.bfloat16, d)])
        rec.note("scalars", [(b * 2).dtype, (b * 2.5).dtype, (b + True).dtype])
        rec.note("half + bf16 values", (b * 3 + torch.ones(2, dtype=torch.float16) / 3))
        rec.note("finfo", [repr(torch.finfo(torch.bfloat16)), torch.finfo(torch.bfloat16).eps,
                           torch.finfo(torch.bfloat16).bits])
        rec.note("dtype facts", [torch.bfloat16.is_floating_point, torch.bfloat16.is_signed,
                                 torch.bfloat16.itemsize, b.type(),
                                 torch.can_cast(torch.bfloat16, torch.float16),
                                 torch.can_cast(torch.bfloat16, torch.int32),
                                 torch.result_type(b, 1.0)])
        rec.attempt("iinfo", lambda: torch.iinfo(torch.bfloat16))
        rec.attempt("assert_close near", lambda: torch.testing.assert_close(b, b + 0.01))
        rec.attempt("assert_close far", lambda: torch.testing.assert_close(b, b * 1.1))
        rec.attempt("numpy", lambda: b.numpy())
        rec.attempt("mm mixed", lambda: torch.mm(b.reshape(1, 2), torch.ones(2, 1)))
    differential(snippet)


def test_backward_in_bfloat16() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        a = torch.tensor([[0.5, -1.25, 2.0], [3.1, 0.7, -0.3]], requires_grad=True)
        w = torch.tensor([[0.25, 1.5], [-2.0, 0.1], [0.9, -0.6]], dtype=torch.bfloat16,
                         requires_grad=True)
        h = torch.tanh(a.bfloat16() @ w)
        loss = (h * h).sum()
        rec.graph("graph", loss=loss, a=a, w=w)
        loss.backward()
        rec.note("loss", [loss.dtype, _bits(loss)])
        rec.note("grads", [a.grad.dtype, a.grad, w.grad.dtype, _bits(w.grad)])
        x = torch.tensor([0.3, 0.7], requires_grad=True)
        g, = torch.autograd.grad((x.bfloat16() ** 3).sum(), x, create_graph=True)
        rec.graph("create_graph", g=g, x=x)
        rec.note("first", [g.dtype, g])
        rec.note("second", torch.autograd.grad(g.sum(), x)[0])
        with torch.autocast("cpu"):
            out = (x[None] @ x[:, None]).sum()
        g, = torch.autograd.grad(out, x, create_graph=True)
        rec.note("autocast create_graph", [g.dtype, g])
        rec.note("sum dtype", torch.linspace(0, 1, 31).bfloat16().sum(dtype=torch.float32))
    differential(snippet)


def _loose(a: Any, b: Any, path: str, out: list[str]) -> None:
    """Floats to a few half-precision ulps (float16/bfloat16 sums round in another order than
    PyTorch's kernels), everything else exactly."""
    if isinstance(a, float) and isinstance(b, float):
        if not np.isclose(a, b, rtol=2e-2, atol=2e-3):
            out.append(f"{path}: torch {a!r} != ours {b!r}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _loose(x, y, f"{path}[{i}]", out)
    elif isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b):
        for k in a:
            _loose(a[k], b[k], f"{path}.{k}", out)
    elif type(a) is not type(b) or a != b:
        out.append(f"{path}: torch {a!r} != ours {b!r}")


def loose_differential(snippet: Any) -> None:
    from graphviz_autograd import torch as ours
    expected, got = run_snippet(snippet, real_torch()), run_snippet(snippet, ours)
    assert [la for la, _ in expected] == [la for la, _ in got], got[-1]
    diffs: list[str] = []
    for (la, a), (_, b) in zip(expected, got):
        _loose(a, b, la, diffs)
    assert not diffs, "differs from PyTorch 2.13:\n  " + "\n  ".join(diffs[:30])


def _mlp(rec: Recorder, amp: dict[str, Any]) -> None:
    torch = rec.torch
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3))
    fixed_parameters(torch, model)
    x = torch.tensor(np.sin(np.arange(20) * 1.3).reshape(5, 4).tolist())
    target = torch.tensor([0, 2, 1, 1, 0])
    for step in range(2):
        with torch.autocast("cpu", **amp):
            out = model(x)
            again = model(x)
            loss = torch.nn.functional.cross_entropy(out, target)
            rec.note(f"{step} dtypes", [out.dtype, loss.dtype, again.dtype])
            rec.note(f"{step} cached cast", out.grad_fn.next_functions[0][0]
                     is again.grad_fn.next_functions[0][0])
        rec.graph(f"{step} graph", loss=loss, **dict(model.named_parameters()))
        rec.note(f"{step} values", [out.float(), loss])
        loss.backward()
        rec.note(f"{step} grads", [(p.grad.dtype, p.grad) for p in model.parameters()])
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.5 * p.grad
        model.zero_grad()


@pytest.mark.parametrize("amp", [{}, {"dtype": "float16"}, {"dtype": "bfloat16"}],
                         ids=["default", "float16", "bfloat16"])
def test_mlp_under_autocast(amp: dict[str, Any]) -> None:
    def snippet(rec: Recorder) -> None:
        kw = {k: getattr(rec.torch, v) for k, v in amp.items()}
        _mlp(rec, kw)
    loose_differential(snippet)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_conv_net_under_autocast(dtype: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        net = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Flatten(), nn.Linear(3 * 2 * 2, 2))
        fixed_parameters(torch, net)
        x = torch.tensor(np.cos(np.arange(64) * 0.9).reshape(2, 2, 4, 4).tolist(),
                         requires_grad=True)
        with torch.autocast("cpu", dtype=getattr(torch, dtype)):
            out = net(x)
            loss = torch.nn.functional.mse_loss(out, torch.ones(2, 2))
        rec.note("dtypes", [out.dtype, loss.dtype])
        rec.graph("graph", loss=loss, x=x, **dict(net.named_parameters()))
        rec.note("values", [out.float(), loss])
        loss.backward()
        rec.note("grads", [(p.grad.dtype, p.grad) for p in (x, *net.parameters())])
    loose_differential(snippet)


def test_ops_and_region_state() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        a = torch.tensor(np.sin(np.arange(24) * 0.4).reshape(2, 3, 4).tolist(),
                         requires_grad=True)
        b = torch.tensor(np.cos(np.arange(24) * 0.3).reshape(2, 4, 3).tolist())
        rec.note("outside", [torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"),
                             (a @ b).dtype])
        with torch.autocast("cpu"):
            rec.note("inside", [torch.is_autocast_enabled("cpu"),
                                torch.get_autocast_dtype("cpu"), torch.is_autocast_enabled()])
            ops = {"bmm": torch.bmm(a, b), "matmul": a @ b, "mm": torch.mm(a[0], b[0]),
                   "baddbmm": torch.baddbmm(torch.ones(2, 3, 3), a, b),
                   "addmm": torch.addmm(torch.ones(3, 3), a[0], b[0]),
                   "double": a.double() @ b.double(), "softmax": (a @ b).softmax(-1),
                   "add": a + b.transpose(1, 2), "mse": F.mse_loss(a @ b, torch.zeros(2, 3, 3)),
                   "l1": F.l1_loss(a @ b, torch.zeros(2, 3, 3))}
            for k, v in ops.items():
                rec.note(k, [v.dtype, v.float()])
            rec.graph("graphs", **ops)
            with torch.autocast("cpu", enabled=False):
                rec.note("disabled", [torch.is_autocast_enabled("cpu"), (a @ b).dtype])
            with torch.autocast("cpu", dtype=torch.float16):
                rec.note("nested", [torch.get_autocast_dtype("cpu"), (a.detach() @ b).dtype])
            rec.note("after nested", [torch.get_autocast_dtype("cpu"), (a @ b).dtype])
        rec.note("after", [torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")])
        rec.attempt("unsupported", lambda: torch.autocast("cpu", dtype=torch.float64).fast_dtype)
    differential(snippet)


def test_leaf_cast_cache_lives_per_region() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        w = torch.ones(3, 3, requires_grad=True)
        x = torch.ones(2, 3)
        with torch.autocast("cpu"):
            first = (x @ w).grad_fn.next_functions[1][0]
            second = (x @ w).grad_fn.next_functions[1][0]
            rec.note("same cast in a region", first is second)
            nonleaf = w * 1
            c1 = (x @ nonleaf).grad_fn.next_functions[1][0]
            c2 = (x @ nonleaf).grad_fn.next_functions[1][0]
            rec.note("non-leaf not cached", c1 is c2)
        with torch.autocast("cpu"):
            third = (x @ w).grad_fn.next_functions[1][0]
        rec.note("new region, new cast", third is first)
    differential(snippet)


def test_outside_autocast_float32_untouched() -> None:
    torch = real_torch()
    from graphviz_autograd import torch as ours
    for t in (torch, ours):
        y = t.nn.Linear(3, 2)(t.ones(1, 3))
        assert y.dtype is t.float32
        assert y.grad_fn.name() == "AddmmBackward0"


def test_layers_under_autocast() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        x = torch.tensor(np.sin(np.arange(12) * 0.7).reshape(3, 1, 4).tolist())
        layers = {"mha": nn.MultiheadAttention(4, 2), "tx": nn.TransformerEncoderLayer(
            4, 2, 8, dropout=0.0), "convT": nn.ConvTranspose1d(3, 2, 2), "prelu": nn.PReLU(),
            "linear 3d": nn.Linear(4, 2), "no bias": nn.Linear(4, 2, bias=False),
            "bilinear": nn.Bilinear(4, 4, 2), "gru": nn.GRU(4, 2)}
        for m in layers.values():
            fixed_parameters(torch, m)
        with torch.autocast("cpu"):
            outs = {"mha": layers["mha"](x, x, x)[0], "tx": layers["tx"](x),
                    "convT": layers["convT"](x.permute(1, 0, 2)),
                    "prelu": layers["prelu"](x), "linear 3d": layers["linear 3d"](x),
                    "no bias": layers["no bias"](x[:, 0]),
                    "bilinear": layers["bilinear"](x[:, 0], x[:, 0]),
                    "gru": layers["gru"](x)[0],
                    "einsum": torch.einsum("abc,dbc->ad", x, x),
                    "sdpa": torch.nn.functional.scaled_dot_product_attention(x, x, x)}
        for k, v in outs.items():
            rec.note(k, [v.dtype, v.float()])
        rec.graph("graphs", **{k: outs[k] for k in ("convT", "linear 3d", "no bias", "prelu")})
    loose_differential(snippet)


def test_float32_and_promote_lists() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        w = torch.tensor(np.sin(np.arange(9) * 0.6).reshape(3, 3).tolist(), requires_grad=True)
        with torch.autocast("cpu"):
            low = w @ (torch.eye(3) * 2)            # a bfloat16 result with a graph
            five = low.reshape(1, 1, 3, 3, 1).expand(1, 1, 3, 3, 3)
            target = torch.tensor([0, 2, 1])
            outs = {"prod": low.prod(), "cdist": torch.cdist(low, low), "trace": low.trace(),
                    "inverse": torch.linalg.inv(low + torch.eye(3) * 3),
                    "reflect": F.pad(low[None], (1, 1), mode="reflect"),
                    "replicate": F.pad(low[None], (1, 1), mode="replicate"),
                    "avg_pool3d": F.avg_pool3d(five, 2), "max_pool3d": F.max_pool3d(five, 2),
                    "adaptive_avg_pool3d": F.adaptive_avg_pool3d(five, 1),
                    "cat": torch.cat([low, w]), "stack": torch.stack([low, w]),
                    "cat low": torch.cat([low, low]),
                    "mse": F.mse_loss(low, torch.ones(3, 3)), "l1": F.l1_loss(low, w),
                    "smooth_l1": F.smooth_l1_loss(low, w), "huber": F.huber_loss(low, w),
                    "nll": F.nll_loss(low, target), "cross_entropy": F.cross_entropy(low, target),
                    "bce": F.binary_cross_entropy(low.sigmoid(), torch.ones(3, 3) / 2),
                    "bce logits": F.binary_cross_entropy_with_logits(low, torch.ones(3, 3)),
                    "kl_div": F.kl_div(low, torch.ones(3, 3) / 3, reduction="batchmean"),
                    "soft_margin": F.soft_margin_loss(low, torch.ones(3, 3)),
                    "margin_ranking": F.margin_ranking_loss(low[0], low[1], torch.ones(3)),
                    "hinge": F.hinge_embedding_loss(low, torch.ones(3, 3)),
                    "poisson": F.poisson_nll_loss(low, torch.ones(3, 3)),
                    "triplet": F.triplet_margin_loss(low, low.flip(0), w),
                    "cosine_embedding": F.cosine_embedding_loss(low, w, torch.ones(3)),
                    "multi_margin": F.multi_margin_loss(low, target),
                    "multilabel_margin": F.multilabel_margin_loss(
                        low, torch.tensor([[0, 1, -1]] * 3))}
        for k, v in outs.items():
            rec.note(k, [v.dtype, v.float()])
        rec.graph("graphs", **outs)
    loose_differential(snippet)
