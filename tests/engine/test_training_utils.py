"""The non-op parts of a training script, checked against real PyTorch 2.13:
``torch.utils.data`` (shuffle orders seed for seed, collation), the adaptive optimizers and
``state_dict``, the learning-rate schedulers (rates to the bit), ``nn.utils`` clipping and
flattening, parameter containers, module state dicts, ``torch.save``/``torch.load``, and an
unmodified training script run through ``python -m graphviz_autograd run``."""

from __future__ import annotations

import io
import os
import pickle
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import graphviz_autograd.torch as ours

from ._support import real_torch

pytestmark = pytest.mark.torch

ROOT = Path(__file__).resolve().parents[2]


def _both(fn: Any) -> tuple[Any, Any]:
    """``fn`` run on real torch and on the engine."""
    return fn(real_torch()), fn(ours)


def _mod(torch: Any, path: str) -> Any:
    for part in path.split("."):
        torch = getattr(torch, part)
    return torch


# -- torch.utils.data -----------------------------------------------------------------------

def _orders(torch: Any) -> list[Any]:
    data = _mod(torch, "utils.data")
    out: list[Any] = []
    for seed in (0, 1, 123):
        for n, bs, drop in ((10, 3, False), (17, 4, True), (5, 8, False), (64, 16, False)):
            torch.manual_seed(seed)
            ds = data.TensorDataset(torch.arange(n), torch.arange(n).float() * 2)
            loader = data.DataLoader(ds, batch_size=bs, shuffle=True, drop_last=drop)
            out.append(len(loader))
            for _ in range(2):
                out.append([[b[0].tolist(), b[1].tolist()] for b in loader])
            out.append(torch.rand(2).tolist())          # the default generator moved alike
            g = torch.Generator().manual_seed(seed + 5)
            out.append([b[0].tolist() for b in data.DataLoader(ds, batch_size=bs, shuffle=True,
                                                               generator=g)])
            out.append([s.indices for s in data.random_split(ds, [0.3, 0.7])])
            out.append(list(data.RandomSampler(range(n), replacement=True, num_samples=40)))
            out.append(list(data.SubsetRandomSampler([5, 6, 7, 8])))
            sampler = data.BatchSampler(data.RandomSampler(ds), 3, drop_last=False)
            out.append([b[0].tolist() for b in data.DataLoader(ds, batch_sampler=sampler)])
    return out


def test_dataloader_shuffles_as_pytorch_for_each_seed() -> None:
    theirs, mine = _both(_orders)
    assert mine == theirs


def _collated(torch: Any) -> list[str]:
    data = _mod(torch, "utils.data")
    samples = [{"a": 1, "b": (2.0, np.float32(3)), "c": "x", "d": np.arange(2),
                "e": torch.ones(2) * i, "f": [True, 4]} for i in range(3)]
    out = [repr(next(iter(data.DataLoader(samples, batch_size=3))))]
    out.append(repr(data.default_collate([(1, 2.5), (3, 4.5)])))
    out.append(repr(data.default_convert([np.array([1, 2]), (np.float64(3),), 4])))
    out.append(repr(list(data.DataLoader(range(5), batch_size=None))))
    out.append(repr(list(data.DataLoader(range(5), batch_size=2, collate_fn=lambda b: b))))
    ds = data.TensorDataset(torch.arange(6)) + data.TensorDataset(torch.arange(6, 9))
    out.append(repr([ds[i] for i in (0, 7, -1)]))
    sub = data.Subset(ds, [8, 0, 3])
    out.append(repr(list(data.DataLoader(sub, batch_size=2))))

    class Stream(data.IterableDataset):
        def __iter__(self) -> Any:
            return iter(range(7))
    out.append(repr(list(data.DataLoader(Stream(), batch_size=3))))
    out.append(repr(list(data.DataLoader(Stream(), batch_size=3, drop_last=True))))
    return out


def test_default_collate_and_datasets_match() -> None:
    theirs, mine = _both(_collated)
    assert mine == theirs


def _loader_errors(torch: Any) -> list[str]:
    data = _mod(torch, "utils.data")
    ds = data.TensorDataset(torch.arange(4))
    cases = [
        lambda: data.DataLoader(ds, sampler=data.SequentialSampler(ds), shuffle=True),
        lambda: data.DataLoader(ds, batch_sampler=[[0]], batch_size=2),
        lambda: data.DataLoader(ds, batch_size=None, drop_last=True),
        lambda: data.DataLoader(ds, num_workers=-1),
        lambda: data.BatchSampler(range(3), 0, False),
        lambda: data.RandomSampler(ds, num_samples=0),
        lambda: data.random_split(ds, [1, 2]),
        lambda: data.TensorDataset(torch.zeros(2), torch.zeros(3)),
        lambda: data.default_collate([object()]),
        lambda: data.default_collate([[1, 2], [3]]),
    ]
    out = []
    for case in cases:
        try:
            case()
            out.append("no error")
        except Exception as e:
            out.append(f"{type(e).__name__}: {e}".replace("graphviz_autograd.", ""))
    loader = data.DataLoader(ds)
    try:
        loader.batch_size = 3
    except ValueError as e:
        out.append(str(e))
    return out


def test_dataloader_errors_word_for_word() -> None:
    theirs, mine = _both(_loader_errors)
    assert mine == theirs


# -- torch.optim ----------------------------------------------------------------------------

OPTIMIZERS = [
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1}),
    ("Adadelta", {"lr": 1.0, "weight_decay": 0.01, "maximize": True}),
    ("Adamax", {"lr": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}),
]


def _trajectory(torch: Any, name: str, kw: dict[str, Any], double: bool) -> dict[str, Any]:
    dtype = torch.float64 if double else torch.float32
    torch.manual_seed(0)
    w = torch.randn(40, dtype=dtype, requires_grad=True)
    b = torch.randn(3, dtype=dtype, requires_grad=True)
    c, d = torch.randn(40, dtype=dtype), torch.randn(40, dtype=dtype)
    opt = getattr(torch.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.02}], **kw)
    versions = []
    for i in range(8):
        opt.zero_grad()
        w.grad = w.detach() * c - d * (i % 3)
        b.grad = b.detach() * 0.5 - 1
        v = w._version
        opt.step()
        versions.append(w._version - v)
    sd = opt.state_dict()
    return {"w": w.detach().numpy().copy(), "b": b.detach().numpy().copy(),
            "versions": versions, "groups": sd["param_groups"],
            "state": {k: {n: (t.dtype, tuple(t.shape), t.detach().numpy().copy())
                          for n, t in s.items()} for k, s in sd["state"].items()}}


@pytest.mark.parametrize("double", [False, True], ids=["f32", "f64"])
@pytest.mark.parametrize("name,kw", OPTIMIZERS, ids=[f"{n}-{i}" for i, (n, _) in
                                                     enumerate(OPTIMIZERS)])
def test_optimizer_steps_match(name: str, kw: dict[str, Any], double: bool) -> None:
    theirs = _trajectory(real_torch(), name, kw, double)
    mine = _trajectory(ours, name, kw, double)
    # NB: PyTorch's vectorised kernels fuse multiply-adds; numpy rounds each step: a few ulps
    rtol = 1e-12 if double else 2e-6
    np.testing.assert_allclose(mine["w"], theirs["w"], rtol=rtol, atol=0)
    np.testing.assert_allclose(mine["b"], theirs["b"], rtol=rtol, atol=0)
    assert mine["versions"] == theirs["versions"]
    assert mine["groups"] == theirs["groups"]
    assert list(mine["state"]) == list(theirs["state"])
    for k, s in theirs["state"].items():
        assert list(mine["state"][k]) == list(s)
        for n, (dtype, shape, value) in s.items():
            assert (str(mine["state"][k][n][0]), mine["state"][k][n][1]) == (str(dtype), shape)
            np.testing.assert_allclose(mine["state"][k][n][2], value, rtol=rtol * 10, atol=0)


def _resumed(torch: Any) -> list[Any]:
    out = []
    for name in ("Adam", "RMSprop", "NAdam"):
        torch.manual_seed(1)
        w = torch.randn(5, requires_grad=True)
        opt = getattr(torch.optim, name)([w], lr=0.1)
        for _ in range(3):
            w.grad = w.detach() * 2 - 1
            opt.step()
        buf = io.BytesIO()
        torch.save(opt.state_dict(), buf)
        buf.seek(0)
        w2 = w.detach().clone().requires_grad_()
        opt2 = getattr(torch.optim, name)([w2], lr=0.5)
        opt2.load_state_dict(torch.load(buf))
        for p, o in ((w, opt), (w2, opt2)):
            p.grad = p.detach() * 2 - 1
            o.step()
        out.append([opt2.param_groups[0]["lr"], w.tolist() == w2.tolist(), repr(opt2)])
    w = torch.zeros(2, requires_grad=True)
    for bad in ({"state": {}, "param_groups": []},
                {"state": {}, "param_groups": [{"params": [0, 1], "lr": 1}]}):
        try:
            torch.optim.SGD([w], lr=0.1).load_state_dict(bad)
        except ValueError as e:
            out.append(str(e))
    return out


def test_optimizer_state_dict_round_trip() -> None:
    theirs, mine = _both(_resumed)
    assert mine == theirs


def _optimizer_errors(torch: Any) -> list[str]:
    w = [torch.zeros(1, requires_grad=True)]
    cases = [("RMSprop", {"alpha": -1}), ("Adagrad", {"lr_decay": -1}),
             ("Adagrad", {"initial_accumulator_value": -1}), ("Adadelta", {"rho": 2}),
             ("Adamax", {"betas": (1.0, 0.9)}), ("NAdam", {"momentum_decay": -1}),
             ("RAdam", {"eps": -1}), ("RMSprop", {"momentum": -0.5})]
    out = []
    for name, kw in cases:
        try:
            getattr(torch.optim, name)(w, **kw)
        except ValueError as e:
            out.append(str(e))
    return out


def test_optimizer_argument_errors() -> None:
    theirs, mine = _both(_optimizer_errors)
    assert mine == theirs


# -- torch.optim.lr_scheduler -----------------------------------------------------------------

SCHEDULES = [
    ("StepLR", (3, 0.5), {}),
    ("MultiStepLR", ([2, 5, 5], 0.3), {}),
    ("ExponentialLR", (0.9,), {}),
    ("CosineAnnealingLR", (7, 0.001), {}),
    ("LambdaLR", (lambda e: 1 / (e + 1),), {}),
    ("MultiplicativeLR", (lambda e: 0.95,), {}),
    ("LinearLR", (0.25, 1.0, 4), {}),
    ("ConstantLR", (0.5, 3), {}),
    ("OneCycleLR", ([1.0, 0.5],), {"total_steps": 20}),
    ("OneCycleLR", (1.0,), {"epochs": 4, "steps_per_epoch": 5, "three_phase": True,
                            "anneal_strategy": "linear"}),
    ("CosineAnnealingWarmRestarts", (3, 2, 0.01), {}),
]


def _rates(torch: Any) -> list[Any]:
    sched = torch.optim.lr_scheduler
    out = []
    for name, args, kw in SCHEDULES:
        for opt_name in ("SGD", "Adam"):
            w, v = torch.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
            extra = {"momentum": 0.9} if opt_name == "SGD" else {}
            opt = getattr(torch.optim, opt_name)([{"params": [w]}, {"params": [v], "lr": 0.05}],
                                                 lr=0.1, **extra)
            s = getattr(sched, name)(opt, *args, **kw)
            rows = [s.get_last_lr()]
            for _ in range(19):
                opt.step()
                s.step()
                rows.append((s.get_last_lr(), [g.get("momentum", g.get("betas"))
                                               for g in opt.param_groups]))
            out.append((name, rows, sorted(s.state_dict())))
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    plateau = sched.ReduceLROnPlateau(opt, patience=2, factor=0.5, cooldown=1)
    for m in [5, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 2.99999]:
        opt.step()
        plateau.step(m)
        out.append(plateau.get_last_lr())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = sched.StepLR(opt, 2)
        s.step()
        s.step(5)
    out.append([(w.category.__name__, str(w.message)) for w in caught])
    out.append(s.get_last_lr())
    return out


def test_schedulers_give_pytorchs_rates_to_the_bit() -> None:
    theirs, mine = _both(_rates)
    assert mine == theirs


# -- torch.nn.utils, containers, state dicts, save/load ---------------------------------------

def _clipping(torch: Any) -> list[Any]:
    nn, utils = torch.nn, torch.nn.utils
    out: list[Any] = []
    # NB: other orders match to an ulp or so (PyTorch's pow-sum accumulates differently)
    for norm_type in (2.0, 1, float("inf")):
        w = torch.tensor([[0.5, -1.5], [2.0, 0.25]], requires_grad=True)
        b = torch.tensor([3.0, -4.0], dtype=torch.float32, requires_grad=True)
        w.grad = torch.tensor([[0.1, -2.0], [0.3, 1.0]])
        b.grad = torch.tensor([5.0, -0.5])
        v0 = [w.grad._version, b.grad._version]
        n = utils.clip_grad_norm_([w, b], 0.5, norm_type=norm_type)
        out.append([n.item(), n.requires_grad, n.grad_fn is None, w.grad.tolist(),
                    b.grad.tolist(), [w.grad._version - v0[0], b.grad._version - v0[1]]])
    out.append(utils.clip_grad_norm_([w], 100.0).item())
    out.append(utils.clip_grad_norm_([torch.zeros(1, requires_grad=True)], 1.0).item())
    w.grad = torch.tensor([[float("inf"), 1.0], [0.0, 0.0]])
    try:
        utils.clip_grad_norm_(w, 1.0, error_if_nonfinite=True)
    except RuntimeError as e:
        out.append(str(e))
    b.grad = torch.tensor([5.0, -0.5])
    utils.clip_grad_value_([b], 0.7)
    out.append(b.grad.tolist())
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    vec = utils.parameters_to_vector(net.parameters())
    out.append([tuple(vec.shape), vec.grad_fn.name(),
                [f[0].name() for f in vec.grad_fn.next_functions]])
    utils.vector_to_parameters(torch.arange(vec.numel()).float(), net.parameters())
    out.append([p.tolist() for p in net.parameters()])
    try:
        utils.vector_to_parameters(3, net.parameters())
    except TypeError as e:
        out.append(str(e))
    return out


def test_clip_grad_and_vectors_match() -> None:
    theirs, mine = _both(_clipping)
    assert mine == theirs


def _containers(torch: Any) -> list[Any]:
    nn = torch.nn
    pl = nn.ParameterList([nn.Parameter(torch.ones(2, 3)), torch.ones(3, dtype=torch.float64)])
    pl.append(torch.zeros(1))
    pl += [torch.zeros(2)]
    pd = nn.ParameterDict({"b": torch.ones(2), "a": nn.Parameter(torch.zeros(1))})
    pd["c"] = torch.ones(1)

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ps = pl
            self.d = pd
            self.lin = nn.Linear(1, 1)

        def extra_repr(self) -> str:
            return "custom=1"
    m = M()
    return [repr(m), list(m.state_dict()), [n for n, _ in m.named_parameters()], len(pl),
            type(pl[-1]).__name__, list(pd.keys()), "a" in pd, repr(pl[1:3]),
            pd.pop("c").shape == (1,), len(pd)]


def test_parameter_containers_match() -> None:
    theirs, mine = _both(_containers)
    assert mine == theirs


def _state_dicts(torch: Any) -> list[Any]:
    nn = torch.nn
    torch.manual_seed(0)
    a = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    b = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    a(torch.randn(4, 2))
    out: list[Any] = [list(a.state_dict()), repr(b.load_state_dict(a.state_dict())),
                      torch.equal(b[1].running_mean, a[1].running_mean),
                      b[1].num_batches_tracked.item()]
    sd = a.state_dict()
    sd["extra"] = torch.ones(1)
    del sd["0.bias"], sd["1.running_var"]
    for strict in (True, False):
        try:
            out.append(repr(b.load_state_dict(sd, strict=strict)))
        except RuntimeError as e:
            out.append(str(e))
    sd = a.state_dict()
    sd["0.weight"] = torch.ones(2, 2)
    try:
        b.load_state_dict(sd)
    except RuntimeError as e:
        out.append(str(e))
    buf = io.BytesIO()
    torch.save({"model": a.state_dict(), "step": 3, "t": torch.arange(3),
                "p": nn.Parameter(torch.ones(2))}, buf)
    buf.seek(0)
    ck = torch.load(buf)
    out.append([sorted(ck), ck["step"], ck["t"].tolist(),
                torch.equal(ck["model"]["1.running_mean"], a[1].running_mean),
                type(ck["p"]).__name__, ck["p"].requires_grad])
    return out


def test_state_dicts_and_save_load_match() -> None:
    theirs, mine = _both(_state_dicts)
    assert mine == theirs


def test_load_refuses_pytorch_archives_and_arbitrary_globals(tmp_path: Path) -> None:
    torch = real_torch()
    path = tmp_path / "theirs.pt"
    torch.save({"w": torch.ones(1)}, path)
    with pytest.raises(RuntimeError, match="PyTorch archive"):
        ours.load(path)
    mine = tmp_path / "mine.pt"
    ours.save({"f": os.getcwd}, mine)
    with pytest.raises(pickle.UnpicklingError, match=r"Unsupported global: GLOBAL posix\.getcwd"):
        ours.load(mine)
    assert ours.load(mine, weights_only=False)["f"] is os.getcwd


# -- an unmodified training script --------------------------------------------------------------

SCRIPT = '''
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)
X = torch.randn(96, 4)
y = (X @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]]) + 0.1 * torch.randn(96, 1))
train, val = random_split(TensorDataset(X, y), [0.75, 0.25])
loader = DataLoader(train, batch_size=16, shuffle=True)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.5)
sched = StepLR(opt, step_size=2, gamma=0.5)
loss_fn = nn.MSELoss()
for epoch in range(4):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        total += loss.item() * len(xb)
    sched.step()
    with torch.no_grad():
        xv, yv = next(iter(DataLoader(val, batch_size=len(val))))
        val_loss = loss_fn(model(xv), yv).item()
    print(f"epoch {epoch} loss {total / len(train):.6g} val {val_loss:.6g} "
          f"lr {sched.get_last_lr()[0]:.6g}")
'''


def test_training_script_runs_unmodified_through_the_cli(tmp_path: Path) -> None:
    real_torch()
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    theirs = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=env, timeout=120)
    mine = subprocess.run([sys.executable, "-m", "graphviz_autograd", "run", str(script)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert theirs.returncode == 0, theirs.stderr
    assert mine.returncode == 0, mine.stderr
    words = [ln.split() for ln in theirs.stdout.splitlines()]
    mine_words = [ln.split() for ln in mine.stdout.splitlines()]
    assert len(words) == len(mine_words) == 4
    number = re.compile(r"^-?[\d.]+(e-?\d+)?$")
    for a, b in zip(words, mine_words):
        assert [w for w in a if not number.match(w)] == [w for w in b if not number.match(w)]
        for x, z in zip(a, b):
            if number.match(x):
                # NB: the same batches and rates; matmul sums may differ in the last bits
                assert float(z) == pytest.approx(float(x), rel=1e-4), (a, b)
