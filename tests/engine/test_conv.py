"""``nn.Conv1d``/``nn.Conv2d``, ``F.pad`` and the 2-d pools, checked against real PyTorch 2.13:
a small conv net's training steps (graphs before and after each backward, saved values, grads),
the nodes of each argument form, the modules' repr and the argument errors word for word."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import graphviz_autograd.torch as ours

from ._support import Recorder, differential, fixed_parameters

pytestmark = pytest.mark.torch


def _images(torch: Any, *shape: int) -> Any:
    n = int(np.prod(shape))
    return torch.tensor(np.sin(np.arange(n) * 1.3 + 0.1).reshape(shape).tolist())


NETS = ["Conv2d(2, 3, 3, padding=1), ReLU(), MaxPool2d(2), Flatten(), Linear(12, 2)",
        "Conv2d(2, 4, 2, stride=2, bias=False), ReLU(), AvgPool2d(2, 1), Flatten(), "
        "Linear(4, 2)",
        "Conv2d(2, 4, (2, 3), padding='same', groups=2, padding_mode='reflect'), Tanh(), "
        "AdaptiveAvgPool2d((2, 1)), Flatten(), Linear(8, 2)",
        "Conv2d(2, 3, 3, dilation=2, padding=2, padding_mode='replicate'), ReLU(), "
        "MaxPool2d(3, 2, 1, ceil_mode=True), AdaptiveAvgPool2d(1), Flatten(), Linear(3, 2)"]


@pytest.mark.parametrize("layers", NETS)
def test_a_conv_net_trains_as_pytorch(layers: str) -> None:
    """Two SGD steps: forward, graphs, backward, graphs after, grads, step."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        net = eval(f"torch.nn.Sequential({layers})",
                   {"torch": torch, **vars(torch.nn)})
        fixed_parameters(torch, net)
        rec.note("repr", repr(net))
        rec.note("parameters", [(name, list(p.shape)) for name, p in net.named_parameters()])
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        x = _images(torch, 2, 2, 4, 4)
        target = torch.tensor([1, 0])
        for step in range(2):
            opt.zero_grad()
            out = net(x)
            loss = torch.nn.functional.cross_entropy(out, target)
            rec.graph(f"forward {step}", loss=loss)
            rec.attempt(f"backward {step}", lambda loss=loss: loss.backward())
            rec.graph(f"after backward {step}", loss=loss)
            rec.grad(f"grads {step}", **dict(net.named_parameters()))
            opt.step()
            rec.note(f"loss {step}", loss)
        rec.note("parameters after", [p for p in net.parameters()])
    differential(snippet)


CALLS = ["F.conv2d(x, w, b, stride=(2, 1), padding=1, groups=2)",
         "F.conv2d(x.detach(), w, None, dilation=(1, 2), groups=2)",
         "F.conv2d(x, w.detach(), b.detach(), padding='same', groups=2)",
         "F.conv2d(x, w[:, :, :2, :], padding='same', groups=2)",
         "F.conv2d(x, w, padding='valid', groups=2)",
         "F.conv2d(x[0], w, b, groups=2)",
         "F.conv1d(x[:, :, 0], w[:, :, 0], b, stride=2, padding=1, groups=2)",
         "F.conv1d(x[0, :, 0], w[:, :, 0], groups=2, padding='same')",
         "F.pad(x, (1, 2, 0, 1), mode='reflect')", "F.pad(x[0], (1, 2), mode='replicate')",
         "F.pad(x, (1, 0, 2, 1), value=0.5)",
         "F.max_pool2d(x, 2)", "F.max_pool2d(x, 3, 2, 1, 1, True)", "F.max_pool2d(x[0], 2)",
         "F.max_pool2d(x, (2, 3), [1, 2], return_indices=True)",
         "F.avg_pool2d(x, 2)", "F.avg_pool2d(x, 3, 2, 1, True, False, 2)",
         "F.avg_pool2d(x[0], 3, padding=1, count_include_pad=False)",
         "F.adaptive_avg_pool2d(x, (2, 3))", "F.adaptive_avg_pool2d(x, 1)",
         "F.adaptive_avg_pool2d(x[0], (2, None))", "F.adaptive_avg_pool2d(x, (1, 1))"]


@pytest.mark.parametrize("call", CALLS)
def test_a_call_makes_pytorchs_graph(call: str) -> None:
    """Values, nodes and saved values (a padding 'same' resolved, 'valid' kept as one 0), the
    unbatched input's unsqueeze and squeeze, and the grads."""
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _images(torch, 2, 4, 5, 5).requires_grad_()
        w = _images(torch, 6, 2, 3, 3).requires_grad_()
        b = _images(torch, 6).requires_grad_()
        scope = {"torch": torch, "F": torch.nn.functional, "x": x, "w": w, "b": b}
        out = eval(call, scope)
        outs = out if isinstance(out, tuple) else (out,)
        rec.graph("forward", **{f"out{i}": o for i, o in enumerate(outs)})
        rec.note("values", list(outs))
        total = outs[0].sum() if outs[0].requires_grad else None
        if total is not None:
            rec.attempt("backward", lambda: total.backward())
            rec.graph("after backward", out0=outs[0])
        rec.grad("grads", x=x, w=w, b=b)
    differential(snippet)


@pytest.mark.parametrize("call", [
    "F.conv2d(x, torch.ones(6, 3, 3, 3))", "F.conv2d(x, torch.ones(6, 4, 3))",
    "F.conv2d(x[0, 0], w)", "F.conv2d(x[None], w)", "F.conv2d(x, torch.ones(6, 4, 7, 7))",
    "F.conv2d(x, w, torch.ones(5))", "F.conv2d(x, w, stride=2, padding='same')",
    "F.conv2d(x, w, padding='foo')", "F.conv2d(x, w, padding=-1)", "F.conv2d(x, w, stride=0)",
    "F.conv2d(x, torch.ones(6, 2, 3, 3), groups=3)",
    "F.conv2d(x, torch.ones(5, 2, 3, 3), groups=2)", "F.conv2d(x, w.double())",
    "F.conv2d(x, w, padding=(1, 1, 1))", "F.conv2d(x, w, stride=(1, 1, 1))",
    "F.conv1d(x, w)",
    "torch.nn.Conv2d(4, 6, 3, groups=3)", "torch.nn.Conv2d(4, 6, 3, groups=4)",
    "torch.nn.Conv2d(4, 6, 3, padding='same', stride=2)",
    "torch.nn.Conv2d(4, 6, 3)(torch.ones(2, 3, 5, 5))",
    "torch.nn.Conv2d(4, 6, 3, padding=1, padding_mode='reflect')(torch.ones(2, 4, 1, 5))",
    "F.max_pool2d(x, 2, padding=2)", "F.max_pool2d(x, 7)", "F.max_pool2d(x[0, 0], 2)",
    "F.max_pool2d(x, 0)", "F.max_pool2d(x, (2, 2, 2))", "F.avg_pool2d(x, 2, padding=2)",
    "F.avg_pool2d(x, 7)", "F.avg_pool2d(x[0, 0], 2)", "F.adaptive_avg_pool2d(x[0, 0], 2)",
    "repr(torch.nn.Conv2d(4, 6, 3))", "repr(torch.nn.Conv2d(4, 6, (3, 2), 2, (1, 0), bias=False))",
    "repr(torch.nn.Conv2d(4, 6, 3, padding='same', dilation=2, groups=2, "
    "padding_mode='circular'))",
    "repr(torch.nn.Conv2d(4, 6, 3, padding='valid'))",
    "repr(torch.nn.Conv1d(4, 6, 3, groups=2, bias=False))",
    "[p.shape for p in torch.nn.Conv2d(4, 6, (3, 2), groups=2).parameters()]",
    "repr(torch.nn.MaxPool2d(2))", "repr(torch.nn.MaxPool2d(2, 1, 1, 2, True, True))",
    "repr(torch.nn.MaxPool2d((2, 3), stride=[1, 2]))",
    "repr(torch.nn.AvgPool2d(2))", "repr(torch.nn.AvgPool2d(3, 2, 1, True, False, 2))",
    "repr(torch.nn.AdaptiveAvgPool2d((2, 3)))", "repr(torch.nn.AdaptiveAvgPool2d(1))"])
def test_arguments_as_pytorch(call: str) -> None:
    def snippet(rec: Recorder) -> None:
        torch = rec.torch
        x = _images(torch, 2, 4, 5, 5).requires_grad_()
        w = _images(torch, 6, 4, 3, 3).requires_grad_()
        scope = {"torch": torch, "F": torch.nn.functional, "x": x, "w": w}
        rec.attempt("call", lambda: eval(call, scope))
    differential(snippet)


def test_the_weight_init_is_pytorchs_bound() -> None:
    """kaiming_uniform_(a=sqrt(5)) and a bias within 1/sqrt(fan_in): fan_in = 2 * 3 * 2."""
    conv = ours.nn.Conv2d(4, 6, (3, 2), groups=2)
    bound = 1 / np.sqrt(12)
    assert np.abs(conv.weight.detach().numpy()).max() <= bound
    assert np.abs(conv.bias.detach().numpy()).max() <= bound
    assert conv.weight._version == 1 and conv.bias._version == 1


@pytest.mark.parametrize("call", ["F.conv2d(x, w)", "F.max_pool2d(x, 2)",
                                  "F.conv_transpose2d(x, w.transpose(0, 1))"])
def test_a_third_derivative_is_refused_clearly(call: str) -> None:
    """The double-backward nodes differentiate on arrays only: create_graph through them (a
    third derivative) is a NotImplementedError naming the node."""
    x = ours.ones(1, 4, 4, 4, requires_grad=True)
    w = ours.ones(2, 4, 3, 3, requires_grad=True)
    out = eval(call, {"F": ours.nn.functional, "x": x * x, "w": w})
    g = ours.autograd.grad((out * out).sum(), x, create_graph=True)[0]
    with pytest.raises(NotImplementedError, match=r"create_graph through .*BackwardBackward0"):
        ours.autograd.grad((g * g).sum(), x, create_graph=True)

# NB: circular padding (padding_mode='circular') is checked in test_functional_extra
