"""Second derivatives through the layers (convolution, pads, pools, layer and batch norm),
checked against real PyTorch 2.13: a WGAN-GP gradient penalty through a small conv critic
trained two steps (the gradient's graph, the penalty, the parameters' gradients), and the
Hessian of a tiny conv net."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ._support import Recorder, differential, fixed_parameters

pytestmark = pytest.mark.torch


def _images(torch: Any, shape: tuple[int, ...], k: int) -> Any:
    n = int(np.prod(shape))
    values = (np.sin(np.arange(n) * (k + 0.7)) * (1 + 0.2 * k)).reshape(shape)
    return torch.tensor(values.tolist(), dtype=torch.float64)


def _critic(nn: Any, norm: str) -> Any:
    return nn.Sequential(
        nn.ReflectionPad2d(1), nn.Conv2d(2, 4, 3), eval(f"nn.{norm}", {"nn": nn}),
        nn.LeakyReLU(0.2), nn.AvgPool2d(2), nn.ZeroPad2d((1, 0, 0, 1)),
        nn.Conv2d(4, 3, 2, stride=1, groups=1), nn.Tanh(), nn.MaxPool2d(2, 1),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(3, 1))


@pytest.mark.parametrize("norm", ["LayerNorm([4, 6, 6])", "BatchNorm2d(4)",
                                  "InstanceNorm2d(4, affine=True)", "Identity()"])
def test_a_wgan_gp_penalty_through_a_conv_critic_as_pytorch(norm: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        critic = _critic(torch.nn, norm).to(torch.float64)
        fixed_parameters(torch, critic)
        for step in range(2):
            real, fake = _images(torch, (3, 2, 6, 6), step), _images(torch, (3, 2, 6, 6), 5)
            eps = torch.tensor([[[[0.3]]], [[[0.6]]], [[[0.8]]]], dtype=torch.float64)
            x_hat = (eps * real + (1 - eps) * fake).requires_grad_(True)
            g = torch.autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)[0]
            rec.graph(f"gradient {step}", g=g)
            penalty = ((g.flatten(1).norm(2, dim=1) - 1) ** 2).mean()
            loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
            rec.note(f"penalty {step}", penalty)
            rec.attempt(f"backward {step}", loss.backward)
            rec.grad(f"grads {step}", **dict(critic.named_parameters()))
            with torch.no_grad():
                for p in critic.parameters():
                    p -= 0.05 * p.grad
            critic.zero_grad()
    differential(snippet)


def test_the_hessian_of_a_tiny_conv_net_as_pytorch() -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        F = torch.nn.functional
        x = _images(torch, (1, 1, 4, 4), 1)
        b = torch.tensor([0.1, -0.2], dtype=torch.float64)

        def net(w: Any) -> Any:
            h = F.conv2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), w, b, padding=1)
            h = F.layer_norm(torch.tanh(h), (7, 7))
            return F.avg_pool2d(F.max_pool2d(h, 2), 3).pow(2).sum()

        w = _images(torch, (2, 1, 2, 2), 2) * 0.5
        rec.note("hessian", torch.autograd.functional.hessian(net, w))

        def transposed(w: Any) -> Any:
            h = F.conv_transpose1d(x[0, :, 0:2], w, stride=2, padding=1)
            return (F.batch_norm(h, None, None, training=True) * h).sum()

        rec.note("hessian transposed", torch.autograd.functional.hessian(
            transposed, _images(torch, (2, 3, 3), 3) * 0.5))
    differential(snippet)
