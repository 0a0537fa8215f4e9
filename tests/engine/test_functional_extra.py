"""The functional layers and modules beyond the common ones (grid sampling and affine grids,
bilinear, pdist, channel shuffle, local response norm, power-average pools, alpha dropout,
Gumbel softmax, the 3-d adaptive max pool, unpool and transposed convolution, the lazy layers)
and the top-level ``torch.*`` forms of layer functions, checked against real PyTorch 2.13: the
nodes of each call, values, gradients, the random draws after ``manual_seed``, reprs and the
argument errors word for word."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ._support import Recorder, differential, fixed_parameters

pytestmark = pytest.mark.torch


def _images(torch: Any, *shape: int, k: float = 1.3) -> Any:
    n = int(np.prod(shape))
    return torch.tensor(np.sin(np.arange(n) * k + 0.1).reshape(shape).tolist())


def _scope(torch: Any) -> dict[str, Any]:
    x = _images(torch, 2, 4, 5, 5).requires_grad_()
    v = _images(torch, 1, 2, 3, 4, 5, k=0.7).requires_grad_()
    grid = (_images(torch, 2, 3, 4, 2, k=0.9) * 1.3).requires_grad_()
    grid3 = (_images(torch, 1, 2, 3, 2, 3, k=1.1) * 1.2).requires_grad_()
    theta = (_images(torch, 2, 2, 3, k=0.8) * 0.7).requires_grad_()
    theta3 = (_images(torch, 1, 3, 4, k=0.6) * 0.6).requires_grad_()
    a = _images(torch, 3, 4, k=0.5).requires_grad_()
    b = _images(torch, 3, 5, k=0.4).requires_grad_()
    w = (_images(torch, 2, 4, 5, k=0.3) * 0.5).requires_grad_()
    bias = torch.tensor([0.1, -0.2], requires_grad=True)
    return {"torch": torch, "F": torch.nn.functional, "x": x, "v": v, "grid": grid,
            "grid3": grid3, "theta": theta, "theta3": theta3, "a": a, "b": b, "w": w,
            "bias": bias}


def _call_snippet(call: str, seed: int | None = None) -> Any:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        scope = _scope(torch)
        scope["fix"] = lambda m: fixed_parameters(torch, m)
        if seed is not None:
            torch.manual_seed(seed)
        *setup, last = call.split("; ")
        for line in setup:
            exec(line, scope)
        made: list[Any] = []
        if not rec.attempt("call", lambda: made.append(eval(last, scope))):
            return
        out = made[0]
        outs = out if isinstance(out, tuple) else (out,)
        rec.graph("forward", **{f"out{i}": o for i, o in enumerate(outs)})
        if seed is not None:
            rec.note("next draw", torch.rand(2))
        if outs[0].requires_grad:
            weights = torch.tensor(np.cos(np.arange(outs[0].numel())).reshape(
                tuple(outs[0].shape)).tolist(), dtype=outs[0].dtype)
            total = (outs[0] * weights).sum()
            rec.attempt("backward", lambda: total.backward())
            rec.graph("after backward", out0=outs[0])
        rec.grad("grads", **{k: scope[k] for k in ("x", "v", "grid", "grid3", "theta",
                                                   "theta3", "a", "b", "w", "bias")})
    return snippet


CALLS = [
    # grid sampling: every mode and padding, both corner conventions, 2-d and 3-d
    *(f"F.grid_sample(x, grid, mode='{m}', padding_mode='{p}', align_corners={ac})"
      for m in ("bilinear", "nearest", "bicubic") for p in ("zeros", "border", "reflection")
      for ac in (True, False)),
    "F.grid_sample(x, grid)",
    "F.grid_sample(v, grid3, align_corners=False)",
    "F.grid_sample(v, grid3, mode='nearest', padding_mode='reflection', align_corners=True)",
    "F.grid_sample(v, grid3, padding_mode='border', align_corners=True)",
    "F.grid_sample(x.detach(), grid, align_corners=False)",
    "F.grid_sample(x, grid.detach(), padding_mode='reflection', align_corners=False)",
    "F.affine_grid(theta, (2, 4, 3, 5), align_corners=False)",
    "F.affine_grid(theta, [2, 1, 4, 1], align_corners=True)",
    "F.affine_grid(theta3, (1, 2, 2, 3, 4), align_corners=True)",
    "F.grid_sample(x, F.affine_grid(theta, x.size(), align_corners=False), "
    "align_corners=False)",
    "torch.autograd.grad(F.affine_grid(theta, (2, 4, 3, 5), align_corners=False), theta, "
    "torch.ones(2, 3, 5, 2, requires_grad=True), create_graph=True)[0]",
    "torch.grid_sampler(x, grid, 0, 1, False)",
    "torch.affine_grid_generator(theta, (2, 3, 2, 2), False)",
    # bilinear, pdist, channel shuffle
    "F.bilinear(a, b, w, bias)", "F.bilinear(a[0], b[0], w)",
    "F.bilinear(a.reshape(2, 3, 2)[..., :1].expand(2, 3, 4), b[None].expand(2, 3, 5), w)",
    "torch.bilinear(a, b, w, None)",
    "m = torch.nn.Bilinear(4, 5, 2); fix(m); m(a, b)",
    "F.pdist(a)", "F.pdist(a, 1)", "F.pdist(a, 0)", "F.pdist(a, float('inf'))", "F.pdist(b, 1.5)",
    "F.pdist(a[:1])", "torch.pdist(a.double(), 3)",
    "F.channel_shuffle(x, 2)", "F.channel_shuffle(v, 2)", "torch.channel_shuffle(x, 4)",
    "torch.nn.ChannelShuffle(2)(x)",
    # composites: local response norm, power-average pools
    "F.local_response_norm(x[:, :, 0], 2)", "F.local_response_norm(x, 3, 0.1, 0.5, 2.0)",
    "F.local_response_norm(v, 2)", "torch.nn.LocalResponseNorm(2)(x)",
    "F.lp_pool2d(x, 2, 2)", "F.lp_pool2d(x.abs() + 0.1, 1.5, (2, 3), 1, True)",
    "F.lp_pool1d(x[:, :, 0].abs(), 3, 2)", "F.lp_pool3d(v.abs(), 2, (1, 2, 2))",
    "torch.nn.LPPool2d(2, 3, 2)(x)", "torch.nn.LPPool1d(1.5, 2)(x[:, :, 0].abs())",
    "torch.nn.LPPool3d(2, 2)(v)",
    # 3-d adaptive max pool, unpool, transposed convolution; pools with indices
    "F.adaptive_max_pool3d(v, (2, 1, 3))", "F.adaptive_max_pool3d(v[0], 2, True)",
    "F.adaptive_max_pool3d_with_indices(v, 2)", "torch.nn.AdaptiveMaxPool3d((None, 2, 2))(v)",
    "F.max_unpool3d(*F.max_pool3d(v, 2, return_indices=True), 2, output_size=(3, 4, 5))",
    "F.max_unpool3d(*F.max_pool3d(v, (1, 2, 2), return_indices=True), (1, 2, 2), "
    "output_size=(2, 3, 5))",
    "torch.nn.MaxUnpool3d((1, 2, 2))(*torch.nn.MaxPool3d((1, 2, 2), return_indices=True)(v), "
    "(3, 4, 5))",
    "F.conv_transpose3d(v, w[:, :3, :3, None].expand(2, 3, 3, 2, 2).contiguous(), None, 2, 1, "
    "1)",
    "m = torch.nn.ConvTranspose3d(2, 3, (1, 2, 2), stride=(1, 2, 1), groups=1); fix(m); m(v)",
    "F.max_pool1d_with_indices(x[:, :, 0], 2)", "F.max_pool2d_with_indices(x, 2, 1)",
    "F.max_pool3d_with_indices(v, 2)", "F.adaptive_max_pool1d_with_indices(x[:, :, 0], 3)",
    "F.adaptive_max_pool2d_with_indices(x, (2, 3))",
    # top-level forms
    "torch.conv2d(x, w[:, :4, :3, None].expand(2, 4, 3, 3), None, 1, 1)",
    "torch.conv1d(x[:, :, 0], w[:, :4, :3], bias, 2)",
    "torch.conv_transpose2d(x, w[:2, :2, :2, None].expand(2, 2, 2, 2).repeat(2, 1, 1, 1), "
    "None, 2)",
    "torch.max_pool2d(x, 2)", "torch.max_pool1d(x[:, :, 0], 2, 1)", "torch.max_pool3d(v, 2)",
    "torch.max_pool1d_with_indices(x[:, :, 0], 3)", "torch.avg_pool1d(x[:, :, 0], 2)",
    "torch.adaptive_avg_pool1d(x[:, :, 0], 2)", "torch.adaptive_max_pool1d(x[:, :, 0], 2)",
    "torch.layer_norm(x, [5, 5])", "torch.group_norm(x, 2, None, None, 1e-3)",
    "torch.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False)",
    "torch.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)",
    "torch.rms_norm(x, [5])", "torch.embedding(a, torch.tensor([[0, 2], [1, 1]]))",
    "torch.embedding(a, torch.tensor([0, 2, 1]), 1)", "torch.pixel_shuffle(x, 2)",
    "torch.pixel_unshuffle(x[..., :4, :4], 2)", "torch.constant_pad_nd(x, [1, 2], 0.5)",
    "torch.kl_div(a, b[:, :4].abs())", "torch.kl_div(a, b[:, :4], 1, log_target=True)",
    "torch.binary_cross_entropy_with_logits(a, b[:, :4].abs() / 3)",
    "torch.binary_cross_entropy_with_logits(a, b[:, :4].abs() / 3, None, None, 2)",
    "torch.cosine_embedding_loss(a, b[:, :4], torch.tensor([1, -1, 1]))",
    "torch.hinge_embedding_loss(a, torch.tensor([[1., -1, 1, -1]]).expand(3, 4), 0.5, 1)",
    "torch.margin_ranking_loss(a[0], b[0, :4], torch.tensor([1., -1, 1, -1]), 0.1)",
    "torch.poisson_nll_loss(a, b[:, :4].abs(), True, False, 1e-8, 1)",
    "torch.triplet_margin_loss(a, b[:, :4], b[:, 1:], 1.0, 2, 1e-6, True)",
    "torch.rrelu(a)",
    "torch.native_layer_norm(x, [5, 5], None, None, 1e-5)",
    "torch.native_layer_norm(x, (5,), x[0, 0, 0].detach() + 1, None, 1e-3)",
    "torch.native_layer_norm(x.detach(), [5], None, None, 1e-5)",
    "torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)",
    "rm, rv = torch.zeros(4), torch.ones(4); "
    "torch.native_batch_norm(x, None, None, rm, rv, True, 0.3, 1e-5) + (rm, rv)",
    "torch.native_batch_norm(x, None, None, torch.zeros(4), torch.ones(4), False, 0.1, 1e-5)",
    "torch.native_group_norm(x, None, None, 2, 4, 25, 2, 1e-5)",
    "torch.native_group_norm(x, bias[:1].expand(4).contiguous(), None, 2, 4, 25, 4, 1e-5)",
    "F.linear_cross_entropy(a, w[0], torch.tensor([0, 4, 2]))",
    "F.linear_cross_entropy(a[0], w[0], torch.tensor(3), linear_bias=b[0], reduction='sum')",
    "F.linear_cross_entropy(a, w.transpose(0, 1), torch.tensor([[0, 1], [2, 3], [4, 0]]), "
    "weight=b[0].detach().abs(), ignore_index=2)",
    "F.linear_cross_entropy(a, w[0], b[:, :5].softmax(1), label_smoothing=0.1)",
    "m = torch.nn.LinearCrossEntropyLoss(4, 3, bias=True); fix(m); m(a, torch.tensor([0, 2, 1]))",
    "m = torch.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,)); fix(m); "
    "m(a, torch.tensor([[0, 2], [1, 1], [2, 0]]))",
    "m = torch.nn.SyncBatchNorm(4); fix(m); m(x)",
    "m = torch.nn.SyncBatchNorm(4, momentum=None, affine=False); (m(x[:, :, 0]), m.running_mean)",
    "m = torch.nn.SyncBatchNorm(4); m.eval(); m(x)",
    "F.conv_tbc(b.reshape(5, 3, 1).expand(5, 3, 4), w[:, :, :2].transpose(1, 2) * 1, bias)",
    "torch.conv_tbc(x[0], w[:, :, :3].transpose(1, 2) * 1, bias[:1].expand(3), 2)",
    "F.conv_tbc(x[0], w[:, :, :3].transpose(1, 2) * 1, bias[:1].expand(3), -1)",
    "F.conv_tbc(x[0], w[0], bias)", "F.conv_tbc(x[0], w[0, None], bias)",
    "F.conv_tbc(x[0, :1], w[:, :, :3].transpose(1, 2) * 1, bias[:1].expand(3), -2)",
    "torch.nn.CrossMapLRN2d(3)(x)", "torch.nn.CrossMapLRN2d(2, 0.5, 0.6, 2)(x)",
    "torch.nn.CrossMapLRN2d(5, 0.3)(x.double())", "torch.nn.CrossMapLRN2d(1)(x[:, :1])",
    "torch.autograd.grad(torch.nn.CrossMapLRN2d(3)(x).sum(), x, create_graph=True)",
    "F.native_channel_shuffle(x, 2)", "torch.native_channel_shuffle(v, 2)",
    "F.native_channel_shuffle(x.detach(), 4)",
    "m = torch.nn.DataParallel(torch.nn.Linear(4, 3)); fix(m); m(a)",
    "torch.embedding_bag(a, torch.tensor([0, 2, 1, 2]), torch.tensor([0, 2]))",
    "torch.embedding_bag(a, torch.tensor([0, 2, 1, 2]), torch.tensor([0, 2]), False, 1)",
    "torch.embedding_bag(a, torch.tensor([0, 2, 1, 2]), torch.tensor([0, 1]), False, 2)",
    "torch.embedding_bag(a.detach(), torch.tensor([0, 2, 1, 2]), torch.tensor([0, 3]), False, 1)",
    "torch.embedding_bag(a, torch.tensor([0, 2, 1, 2]), torch.tensor([0, 2, 4]), False, 0, False, "
    "b[0, :4], True)",
    "torch.embedding_bag(a, torch.tensor([0, 2, 1, 2]), torch.tensor([0, 2]), False, 1, False, "
    "None, False, 1)",
    "torch.convolution(x, w[:, :4, :3, None].expand(2, 4, 3, 3), bias, [1, 1], [1, 0], [1, 1], "
    "False, [0, 0], 1)",
    "torch.convolution(x, w[:, :1, :3, None].expand(4, 1, 3, 2) * 1, None, [2, 1], [0, 0], "
    "[1, 1], True, [1, 0], 1)",
    "torch.grid_sampler_2d(x, grid, 1, 2, True)", "torch.grid_sampler_3d(v, grid3, 0, 0, False)",
    # circular padding: F.pad, the modules, a convolution's padding_mode
    "F.pad(x[0], (1, 2), 'circular')", "F.pad(x, (2, 1, 0, 3), 'circular')",
    "F.pad(x[0, 0], (-1, 2), mode='circular')", "F.pad(v, (1, 1, 2, 0, -1, 1), 'circular')",
    "F.pad(x, (5, 5, 5, 5), 'circular')", "F.pad(x, (-3, -3, 0, 0), 'circular')",
    "torch.nn.CircularPad1d((1, 2))(x[0])", "torch.nn.CircularPad2d(1)(x)",
    "torch.nn.CircularPad3d((0, 1, 1, 0, 2, 1))(v)", "torch.nn.CircularPad1d(1)(a[0])",
    "m = torch.nn.Conv2d(4, 2, 3, padding=1, padding_mode='circular'); fix(m); m(x)",
    "m = torch.nn.Conv1d(4, 2, 3, padding=2, dilation=2, padding_mode='circular'); fix(m); "
    "m(x[:, :, 0])",
]


@pytest.mark.parametrize("call", CALLS)
def test_a_call_makes_pytorchs_graph(call: str) -> None:
    differential(_call_snippet(call))


RANDOM = [
    "F.alpha_dropout(a, 0.3, True)", "F.alpha_dropout(x, 0.5, training=True)",
    "F.alpha_dropout(a * 1, 0.4, True, inplace=True)", "F.alpha_dropout(a, 1.0, True)",
    "F.alpha_dropout(a, 0.3)", "F.alpha_dropout(a, 0.0, True)",
    "F.feature_alpha_dropout(x, 0.4, True)", "F.feature_alpha_dropout(x * 1, 0.4, True, True)",
    "torch.nn.AlphaDropout(0.2)(x)", "m = torch.nn.FeatureAlphaDropout(0.3); m(x)",
    "m = torch.nn.AlphaDropout(0.2); m.eval(); m(x)",
    "F.gumbel_softmax(a)", "F.gumbel_softmax(a, tau=0.3, hard=True)",
    "F.gumbel_softmax(x, hard=True, dim=1)", "F.gumbel_softmax(a, 2.0, eps=1e-3)",
    "F.fractional_max_pool2d(x, 3, output_size=(3, 2))",
    "F.fractional_max_pool2d(x, (2, 3), output_ratio=(0.5, 0.5), return_indices=True)",
    "F.fractional_max_pool2d(x[0], 2, 2)", "F.fractional_max_pool3d(v, 2, output_size=(1, 2, 3))",
    "F.fractional_max_pool3d(v[0], (1, 2, 2), output_ratio=(0.6, 0.5, 0.5))",
    "F.fractional_max_pool2d_with_indices(x, 2, 3)",
    "F.fractional_max_pool2d(x, 2, 3, _random_samples=torch.rand(2, 4, 2))",
    "torch.nn.FractionalMaxPool2d(2, output_ratio=0.5)(x)",
    "torch.nn.FractionalMaxPool3d(2, 2, return_indices=True)(v)",
    "torch.dropout(a, 0.3, True)", "torch.dropout(a, 0.3, False)",
    "torch.dropout_(a * 1, 0.3, True)", "torch.feature_dropout(x, 0.5, True)",
    "torch.feature_dropout_(x * 1, 0.5, True)", "torch.alpha_dropout(a, 0.2, True)",
    "torch.alpha_dropout_(a * 1, 0.2, True)", "torch.feature_alpha_dropout(x, 0.2, True)",
    "torch.feature_alpha_dropout_(x * 1, 0.2, True)", "torch.rrelu(a, 0.1, 0.3, True)",
    "torch.native_dropout(a, 0.3, True)", "torch.native_dropout(x, 0.5, False)",
    "torch.native_dropout(a, 0.3, None)", "torch.native_dropout(a, 1.0, True)",
    "torch.native_dropout(a.double(), 0.2, True)",
    "torch.autograd.grad(torch.native_dropout(a, 0.3, True)[0], a, b[:, :4] * 1, "
    "create_graph=True)[0]",
]


@pytest.mark.parametrize("call", RANDOM)
def test_random_layers_draw_pytorchs_numbers(call: str) -> None:
    """After the same seed, the same masks and noise, and the generator left in the same
    state (the next draw is the same)."""
    differential(_call_snippet(call, seed=11))


ERRORS = [
    "F.grid_sample(x, grid[..., :1], align_corners=False)",
    "F.grid_sample(x, grid[:1], align_corners=False)",
    "F.grid_sample(x[0], grid[0], align_corners=False)",
    "F.grid_sample(x, grid, mode='foo')", "F.grid_sample(x, grid, padding_mode='foo')",
    "F.grid_sample(x, grid.double(), align_corners=False)",
    "F.grid_sample(v, grid3, mode='bicubic', align_corners=False)",
    "F.grid_sample(x[0], grid[0], mode='bicubic', align_corners=False)",
    "F.grid_sample(x[:, :, :0], grid, align_corners=False)",
    "F.affine_grid(theta, (2, 3, 4))", "F.affine_grid(theta, (2, 3, 4, 5, 6))",
    "F.affine_grid(theta.long(), (2, 3, 4, 5))", "F.affine_grid(theta, (3, 1, 4, 5))",
    "F.affine_grid(theta, (2, 1, 0, 5), align_corners=False)",
    "F.affine_grid(theta, (2, 1, 1, 5), align_corners=True)",
    "F.bilinear(a, b[:2], w)", "F.bilinear(a, b[None], w)", "F.bilinear(b, b, w)",
    "F.bilinear(a, a, w)", "F.bilinear(a, b, w, bias[:1])", "F.bilinear(a, b, w.double())",
    "F.pdist(a[0])", "F.pdist(a.long())", "F.pdist(a, -1)",
    "F.channel_shuffle(x, 3)", "F.channel_shuffle(x, 0)", "F.channel_shuffle(a, 2)",
    "F.local_response_norm(a, 2)",
    "F.adaptive_max_pool3d(x[0, 0], 2)", "F.adaptive_max_pool3d(v, (2, 1))",
    "F.max_unpool3d(x, x.long(), 2)",
    "F.conv_transpose3d(x, w[:, :, :2, None, None])",
    "F.feature_alpha_dropout(a[0], 0.5, True)", "F.alpha_dropout(a, 1.5, True)",
    "torch.dropout(a, 1.5, True)", "torch.feature_dropout(a[0], 0.5, True)",
    "repr(torch.nn.Bilinear(3, 5, 2))", "repr(torch.nn.Bilinear(3, 5, 2, bias=False))",
    "repr(torch.nn.LocalResponseNorm(2))", "repr(torch.nn.LPPool2d(2, 3))",
    "repr(torch.nn.LPPool1d(2, 3, 2))", "repr(torch.nn.LPPool3d(1.5, 3))",
    "repr(torch.nn.AlphaDropout(0.2))", "repr(torch.nn.FeatureAlphaDropout())",
    "repr(torch.nn.ChannelShuffle(2))", "repr(torch.nn.AdaptiveMaxPool3d(2))",
    "repr(torch.nn.MaxUnpool3d(2))", "repr(torch.nn.ConvTranspose3d(2, 3, 2))",
    "repr(torch.nn.ConvTranspose3d(2, 4, (1, 2, 3), 2, 1, 1, groups=2, bias=False))",
    "torch.nn.AlphaDropout(1.5)",
    "F.fractional_max_pool2d(x, 2)", "F.fractional_max_pool2d(x, 3, (4, 5))",
    "F.fractional_max_pool2d(x, 3, (3, 4))", "F.fractional_max_pool3d(v, 2, (1, 3, 3))",
    "F.fractional_max_pool3d(v, 2, (2, 2, 3))", "F.fractional_max_pool3d(v, 2, (1, 2, 4))",
    "F.fractional_max_pool2d(x, 2, output_ratio=0.5)",
    "F.fractional_max_pool2d(x[0, 0], 2, 2)", "torch.nn.FractionalMaxPool2d(2)",
    "torch.nn.FractionalMaxPool2d(2, 2, 0.5)", "torch.nn.FractionalMaxPool3d(2, output_ratio=2)",
    "(F.GRID_SAMPLE_INTERPOLATION_MODES, F.GRID_SAMPLE_PADDING_MODES)",
    "repr(torch.nn.FractionalMaxPool2d(2, 3))",
    "repr(torch.nn.DataParallel(torch.nn.Linear(4, 3)))",
    "list(torch.nn.DataParallel(torch.nn.Linear(4, 3)).state_dict())",
    "torch.nn.DataParallel(torch.nn.Linear(4, 3)).device_ids",
    "torch.nn.parallel.DataParallel is torch.nn.DataParallel",
    "torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 3))",
    "repr(torch.nn.CrossMapLRN2d(3, k=2))",
    "torch.nn.CrossMapLRN2d(3)(x[0])", "repr(torch.nn.SyncBatchNorm(3, affine=False))",
    "torch.nn.SyncBatchNorm(3)(a[0])", "torch.nn.SyncBatchNorm(0)(a[:, :0])",
    "repr(torch.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), reduction='sum'))",
    "F.linear_cross_entropy(x, w[0], a)", "F.linear_cross_entropy(a, w[0, 0], a)",
    "F.linear_cross_entropy(a, w[0, :, :4], a)",
    "F.linear_cross_entropy(a, w[0], a, linear_bias=bias)",
    "F.linear_cross_entropy(a[0], w.transpose(0, 1), a)",
    "F.linear_cross_entropy(a, w[0], b[:, :5], ignore_index=1)",
    "torch.nn.LinearCrossEntropyLoss(4, 3, weight=bias)",
    "torch.nn.LinearCrossEntropyLoss(4, 3, label_smoothing=2.0)", "repr(torch.nn.NLLLoss2d())",
    "torch.nn.NLLLoss2d(ignore_index=1)(x.log_softmax(1), torch.zeros(2, 5, 5).long()).item()",
    "repr(torch.nn.Container(a=torch.nn.ReLU(), b=torch.nn.Linear(2, 3)))",
    "F.pad(x, (6, 0, 0, 0), 'circular')", "F.pad(x, (0, 0, -3, -3), 'circular')",
    "repr(torch.nn.CircularPad1d((1, 2)))", "repr(torch.nn.CircularPad2d(1))",
    "repr(torch.nn.CircularPad3d(1))",
    "repr(torch.nn.Conv2d(2, 3, 3, padding=1, padding_mode='circular'))",
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_and_reprs_match_pytorch(call: str) -> None:
    def snippet(rec: Recorder) -> None:
        scope = _scope(rec.torch)
        rec.attempt("call", lambda: eval(call, scope))
    differential(snippet)


LAZY = [
    ("LazyLinear(3)", (2, 4)), ("LazyLinear(2, bias=False)", (2, 3, 5)),
    ("LazyConv1d(3, 2)", (2, 2, 6)), ("LazyConv1d(3, 2, bias=False)", (2, 6)),
    ("LazyConv2d(4, 3, padding=1)", (1, 2, 5, 5)), ("LazyConv2d(4, 2, 2, 0, 1, 2)", (1, 2, 5, 5)),
    ("LazyConv3d(2, 2)", (1, 1, 3, 3, 3)), ("LazyConvTranspose1d(3, 2, 2)", (1, 2, 4)),
    ("LazyConvTranspose2d(3, 3, 2, 1, 1, bias=False)", (1, 2, 4, 4)),
    ("LazyConvTranspose3d(2, 2)", (1, 2, 2, 2, 2)),
    ("LazyBatchNorm1d()", (4, 3)), ("LazyBatchNorm2d(eps=1e-3, momentum=None)", (2, 3, 2, 2)),
    ("LazyBatchNorm2d(affine=False)", (2, 3, 2, 2)), ("LazyBatchNorm3d()", (2, 2, 2, 2, 2)),
    ("LazyInstanceNorm1d()", (2, 3, 4)), ("LazyInstanceNorm2d(affine=False)", (2, 3, 2, 2)),
    ("LazyInstanceNorm3d(track_running_stats=False)", (1, 2, 2, 2, 2)),
]


@pytest.mark.parametrize(("layer", "shape"), LAZY)
def test_a_lazy_layer_materialises_as_pytorch(layer: str, shape: tuple[int, ...]) -> None:
    """Before the first call: uninitialised parameters and the lazy repr; after: the plain
    layer, its parameters drawn as PyTorch draws them after the same seed."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(5)
        m = eval(f"torch.nn.{layer}", {"torch": torch})
        rec.note("before", (repr(m), type(m).__name__, repr(m.weight), type(m.weight).__name__,
                            [(n, type(b).__name__) for n, b in m.named_buffers()]))
        rec.attempt("shape before", lambda: m.weight.shape)
        x = _images(torch, *shape)
        out = m(x)
        rec.note("after", (repr(m), type(m).__name__, type(m.weight).__name__))
        rec.note("parameters", [(n, p, p._version, p.requires_grad)
                                for n, p in m.named_parameters()])
        rec.note("buffers", [(n, b, b._version) for n, b in m.named_buffers()])
        rec.note("state", [(k, list(v.shape)) for k, v in m.state_dict().items()])
        rec.graph("forward", out=out)
        rec.note("next draw", torch.rand(2))
    differential(snippet)


def test_a_spatial_transformer_trains_as_pytorch() -> None:
    """The tutorial's shape: a localisation net predicts theta, affine_grid and grid_sample
    warp the input, a classifier follows; two SGD steps compared node for node."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        loc = nn.Sequential(nn.Conv2d(1, 2, 3), nn.MaxPool2d(2), nn.ReLU(), nn.Flatten(),
                            nn.Linear(2 * 2 * 2, 6))
        head = nn.Sequential(nn.Conv2d(1, 2, 3), nn.LocalResponseNorm(2), nn.LPPool2d(2, 2),
                             nn.ChannelShuffle(2), nn.Flatten(), nn.Linear(2 * 2 * 2, 3))
        bil = nn.Bilinear(3, 3, 2)
        for m in (loc, head, bil):
            fixed_parameters(torch, m)
        opt = torch.optim.SGD([*loc.parameters(), *head.parameters(), *bil.parameters()],
                              lr=0.05)
        x = _images(torch, 2, 1, 6, 6)
        target = torch.tensor([1, 0])
        for step in range(2):
            opt.zero_grad()
            theta = loc(x).view(-1, 2, 3)
            grid = torch.nn.functional.affine_grid(theta, list(x.size()), align_corners=False)
            warped = torch.nn.functional.grid_sample(x, grid, align_corners=False)
            feats = head(warped)
            out = bil(feats, feats.flip(0))
            loss = torch.nn.functional.cross_entropy(out, target)
            rec.graph(f"forward {step}", loss=loss)
            rec.attempt(f"backward {step}", lambda loss=loss: loss.backward())
            for label, m in (("loc", loc), ("head", head), ("bilinear", bil)):
                rec.grad(f"grads {step} {label}", **dict(m.named_parameters()))
            opt.step()
            rec.note(f"loss {step}", loss)
    differential(snippet)


def test_bilinear_initialises_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        torch.manual_seed(3)
        m = torch.nn.Bilinear(3, 4, 2)
        rec.note("params", [(n, p, p._version) for n, p in m.named_parameters()])
        m3 = torch.nn.ConvTranspose3d(2, 3, 2)
        rec.note("conv params", [(n, p) for n, p in m3.named_parameters()])
    differential(snippet)


def test_buffers_register_as_pytorchs() -> None:
    """``nn.Buffer`` marks a tensor; assigning it (or a tensor to a buffer's name) registers it,
    persistent or not, as PyTorch's ``Module.__setattr__`` does."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = torch.ones(2, requires_grad=True)
        b = torch.nn.Buffer(x, persistent=False)
        rec.note("buffer", (type(b).__name__, isinstance(b, torch.nn.Buffer), b.persistent,
                            b.requires_grad, b is x, isinstance(x, torch.nn.Buffer)))
        rec.note("empty", repr(torch.nn.Buffer()))
        m = torch.nn.Module()
        m.b = b
        m.c = torch.nn.Buffer(torch.zeros(1))
        rec.note("registered", (list(m.state_dict()), [n for n, _ in m.named_buffers()]))
        m.c = torch.ones(3)
        rec.note("reassigned", (m.state_dict()["c"], m.c))
        rec.attempt("not a tensor", lambda: setattr(m, "c", 3))
        m.c = None
        rec.note("removed", (list(m.state_dict()), [n for n, _ in m.named_buffers()]))
        m.b = torch.nn.Buffer(torch.ones(1))
        rec.note("made persistent", list(m.state_dict()))
        bn = torch.nn.BatchNorm1d(2)
        bn.running_mean = torch.full((2,), 0.5)
        rec.note("norm buffer", (bn.state_dict()["running_mean"], bn.running_mean))
    differential(snippet)


@pytest.mark.parametrize("target", ["[0, 5, 2, 9, 7, 1]", "[1, 2, 3, 0, 0, 2]",
                                    "[8, 9, 6, 7, 5, 9]", "[0, 5, 2, 10, 7, 1]"])
def test_adaptive_log_softmax_trains_as_pytorch(target: str) -> None:
    """Forward (the masks, copies and gathers of PyTorch's steps), loss, backward, grads; then
    the full log-probabilities and predictions, batched and not."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        m = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0)
        fixed_parameters(torch, m)
        rec.note("repr", repr(m))
        x = _images(torch, 6, 8).requires_grad_()
        made: list[Any] = []
        t = torch.tensor(eval(target))
        if not rec.attempt("forward", lambda: made.append(m(x, t))):
            return
        out, loss = made[0]
        rec.graph("forward", out=out, loss=loss)
        rec.attempt("backward", lambda: loss.backward())
        rec.grad("grads", x=x, **dict(m.named_parameters()))
        rec.note("log_prob", m.log_prob(x.detach()))
        rec.attempt("log_prob one", lambda: m.log_prob(x.detach()[0]))
        for k in (0.0, 1.0, 3.0, -3.0):
            rec.note(f"predict {k}", m.predict(x.detach() * k + k))
        rec.attempt("predict one", lambda: m.predict(x.detach()[1]))
        rec.attempt("one", lambda: m(x[0], t[0]))
        rec.attempt("bad", lambda: m(x, t[:2]))
    differential(snippet)


def test_convert_sync_batchnorm_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        nn = torch.nn
        net = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3),
                            nn.Sequential(nn.InstanceNorm2d(3), nn.BatchNorm2d(3, affine=False)))
        fixed_parameters(torch, net)
        net(_images(torch, 2, 2, 3, 3))
        net[1].eval()
        out = nn.SyncBatchNorm.convert_sync_batchnorm(net)
        rec.note("converted", (repr(out), out is net, out[1].weight is net[1].weight,
                               out[1].training, type(out[2][0]).__name__))
        rec.note("state", [(k, v) for k, v in out.state_dict().items()])
        y = out(_images(torch, 2, 2, 3, 3))
        rec.graph("forward", y=y)
        rec.note("single", repr(nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(2))))
    differential(snippet)
