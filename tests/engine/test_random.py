"""Random numbers: PyTorch's CPU generator, to the bit.

Each differential test runs one snippet on real PyTorch and on the engine with the same seed
and compares the values exactly (bit for bit, dtype included). The engine follows whichever
kernels PyTorch runs here (``ATEN_CPU_CAPABILITY``); the other builds run in a subprocess.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import graphviz_autograd.torch as ours
from graphviz_autograd.engine import random_math as rm

ROOT = Path(__file__).resolve().parents[2]


def real_torch() -> ModuleType:
    return pytest.importorskip("torch")


def _arrays(out: Any) -> list[np.ndarray]:
    if isinstance(out, (list, tuple)):
        return [a for o in out for a in _arrays(o)]
    if hasattr(out, "detach"):
        return [np.asarray(out.detach().numpy())]
    return [np.asarray(out)]


def same(snippet: Callable[[Any], Any], seed: int = 0) -> None:
    """``snippet(torch)`` after ``manual_seed(seed)`` gives identical arrays on both engines."""
    torch = real_torch()
    results = []
    for t in (torch, ours):
        t.manual_seed(seed)
        results.append(_arrays(snippet(t)))
    theirs, mine = results
    assert len(theirs) == len(mine)
    for a, b in zip(theirs, mine):
        assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
        bits = [np.ascontiguousarray(x).reshape(-1).view(np.uint8) for x in (a, b)]
        diff = int((bits[0] != bits[1]).sum())
        assert np.array_equal(a, b, equal_nan=True) and diff == 0, (
            f"{int((a != b).sum())} of {a.size} differ; max |diff| "
            f"{np.max(np.abs(a.astype(float) - b.astype(float)))}")


def _dt(t: Any, name: str) -> Any:
    return getattr(t, name)


FLOATS = ["float32", "float64", "float16"]


# ------------------------------------------------------------------ no PyTorch needed

def test_same_seed_same_numbers_and_different_seeds_differ() -> None:
    ours.manual_seed(7)
    a = [ours.rand(5), ours.randn(3), ours.randn(40), ours.randint(0, 100, (4,))]
    ours.manual_seed(7)
    b = [ours.rand(5), ours.randn(3), ours.randn(40), ours.randint(0, 100, (4,))]
    ours.manual_seed(8)
    c = [ours.rand(5), ours.randn(3), ours.randn(40), ours.randint(0, 100, (4,))]
    for x, y, z in zip(a, b, c):
        assert np.array_equal(x.numpy(), y.numpy())
        assert not np.array_equal(x.numpy(), z.numpy())


def test_the_sequence_moves_on() -> None:
    ours.manual_seed(3)
    assert not np.array_equal(ours.rand(8).numpy(), ours.rand(8).numpy())


def test_state_round_trip_keeps_the_cached_normal() -> None:
    ours.manual_seed(1)
    ours.randn(1)                               # NB: leaves the second Box-Muller sample
    state = ours.get_rng_state()
    assert state.dtype is ours.uint8 and tuple(state.shape) == (5056,)
    first = [ours.randn(3).numpy(), ours.rand(5).numpy()]
    ours.manual_seed(99)
    ours.set_rng_state(state)
    assert np.array_equal(ours.get_rng_state().numpy(), state.numpy())
    again = [ours.randn(3).numpy(), ours.rand(5).numpy()]
    for x, y in zip(first, again):
        assert np.array_equal(x, y)


def test_generators_are_independent() -> None:
    g = ours.Generator().manual_seed(5)
    ours.manual_seed(5)
    a = ours.rand(4, generator=g).numpy()
    ours.rand(100)                               # the default generator moves on, g does not
    b = ours.rand(4, generator=g).numpy()
    ours.manual_seed(5)
    assert np.array_equal(ours.rand(8).numpy(), np.concatenate([a, b]))
    assert ours.Generator().initial_seed() == 67280421310721


def test_seed_and_initial_seed() -> None:
    s = ours.seed()
    assert ours.initial_seed() == s and 0 <= s < 2 ** 64
    ours.manual_seed(-1)
    assert ours.initial_seed() == 2 ** 64 - 1
    with pytest.raises(ValueError, match="Overflow"):
        ours.manual_seed(2 ** 64)


def test_fused_multiply_add_rounds_once() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        b, c = rng.standard_normal(2) * 10.0 ** rng.integers(-4, 4, 2)
        a = rng.integers(0, 2 ** 53, 500) * 2.0 ** -53
        a = np.concatenate([a, np.clip(-c / b + rng.standard_normal(20) * 1e-13, 0, 1)])
        exact = [float(Fraction(float(x)) * Fraction(b) + Fraction(c)) for x in a]
        assert np.array_equal(rm.fma64(a, b, c), np.array(exact))
        a32 = a.astype(np.float32)
        b32, c32 = np.float32(b), np.float32(c)
        exact32 = [_round32(Fraction(float(x)) * Fraction(float(b32)) + Fraction(float(c32)))
                   for x in a32]
        assert np.array_equal(rm.fma32(a32, b32, c32), np.array(exact32, np.float32))


def _round32(q: Fraction) -> np.float32:
    """A fraction rounded to the nearest float32 (ties to even), without double rounding."""
    f = np.float32(float(q))
    lo, hi = (np.nextafter(f, np.float32(-np.inf)), f) if Fraction(float(f)) > q else (
        f, np.nextafter(f, np.float32(np.inf)))
    dlo, dhi = q - Fraction(float(lo)), Fraction(float(hi)) - q
    if dlo != dhi:
        return lo if dlo < dhi else hi
    return lo if int(lo.view(np.uint32)) % 2 == 0 else hi


def test_cephes_kernels_stay_close_to_the_true_functions() -> None:
    x = np.random.default_rng(1).random(10000).astype(np.float32) + np.float32(1e-3)
    assert np.max(np.abs(rm.cephes_log(x) - np.log(x.astype(float)))) < 3e-7
    s, c = rm.cephes_sincos(x * np.float32(6))
    assert np.max(np.abs(s - np.sin(6 * x.astype(float)))) < 3e-7
    assert np.max(np.abs(c - np.cos(6 * x.astype(float)))) < 3e-7


def test_a_million_normals_are_vectorised() -> None:
    import time
    ours.manual_seed(0)
    start = time.perf_counter()
    x = ours.randn(1_000_000)
    assert time.perf_counter() - start < 10
    assert abs(float(x.mean())) < 0.01 and abs(float(x.std()) - 1) < 0.01


# ------------------------------------------------------------------ against PyTorch

@pytest.mark.parametrize("seed", [0, 1, 123, 2 ** 40 + 7, -5, 2 ** 64 - 1])
def test_raw_mt19937_draws(seed: int) -> None:
    same(lambda t: (t.empty(700, dtype=t.int64).random_(), t.empty(9, dtype=t.int32).random_(),
                    t.initial_seed()), seed)


def test_the_state_bytes_are_pytorchs() -> None:
    torch = real_torch()

    def states(t: Any) -> list[Any]:
        out = [t.get_rng_state()]
        t.rand(3)
        out.append(t.get_rng_state())
        t.randn(1)                             # the cached normal sample in the state
        out.append(t.get_rng_state())
        t.rand(700)                            # across a twist
        out.append(t.get_rng_state())
        t.rand(624 - 700 % 624 - 4)            # at the end of a block
        out.append(t.get_rng_state())
        return out

    same(states, 11)
    # NB: a state carried from one engine to the other goes on the same way
    torch.manual_seed(4)
    torch.randn(3)
    state = torch.get_rng_state()
    ours.set_rng_state(ours.tensor(state.numpy()))
    assert np.array_equal(torch.randn(7).numpy(), ours.randn(7).numpy())


@pytest.mark.parametrize("dtype", FLOATS)
def test_rand(dtype: str) -> None:
    same(lambda t: [t.rand(n, dtype=_dt(t, dtype)) for n in (1, 2, 3, 7, 16, 33, 100)])
    same(lambda t: (t.rand(2, 3, dtype=_dt(t, dtype)), t.rand((4, 5), dtype=_dt(t, dtype)),
                    t.rand(size=(2, 2), dtype=_dt(t, dtype)),
                    t.randn(size=[3], dtype=_dt(t, dtype)), t.rand([3, 1], dtype=_dt(t, dtype)),
                    t.rand(t.Size([2]), dtype=_dt(t, dtype))))


def _untemper(y: int) -> int:
    """The mt19937 state word whose output (after tempering) is ``y``."""
    y ^= y >> 18
    y ^= (y << 15) & 0xEFC60000
    x = y
    for _ in range(5):
        x = y ^ ((x << 7) & 0x9D2C5680)
    y = x & 0xFFFFFFFF
    x = y
    for _ in range(3):
        x = y ^ (x >> 11)
    return x & 0xFFFFFFFF


def _crafted(template: bytes, outputs: list[int]) -> np.ndarray:
    """A state whose next ``random()`` outputs are ``outputs`` (read before the next twist)."""
    b = bytearray(template)
    b[8:12] = (624).to_bytes(4, "little")          # left: 623 draws before the next twist
    b[16:24] = (1).to_bytes(8, "little")           # next: state word 1
    for i, o in enumerate(outputs):
        b[24 + 8 * (1 + i):32 + 8 * (1 + i)] = _untemper(o).to_bytes(8, "little")
    return np.frombuffer(bytes(b), np.uint8).copy()


def test_uniform_never_returns_its_upper_bound() -> None:
    """The largest draws round up to ``to`` in float: PyTorch gives ``from`` instead."""
    torch = real_torch()
    ours.manual_seed(0)
    state = _crafted(ours.get_rng_state().numpy().tobytes(),
                     [0xFFFFFF, 0xFFFFFFFF, 0xFFFFFE, 0, 0x001FFFFF, 0xFFFFFFFF] * 3)
    for dtype in FLOATS:
        for a, b in ((0, 1), (1.3, 7.7), (-1, 1), (2.5, 3.1)):
            got = []
            for t in (torch, ours):
                t.set_rng_state(t.from_numpy(state.copy()))
                got.append(t.empty(6, dtype=_dt(t, dtype)).uniform_(a, b).numpy())
            assert np.array_equal(*got), (dtype, a, b, got)


@pytest.mark.parametrize("dtype", FLOATS)
def test_randn_every_size_to_40(dtype: str) -> None:
    """Below 16 the scalar Box-Muller path and its cache; from 16 blocks of 16, the tail
    recomputed over the last 16."""
    for seed in (0, 1, 123):
        same(lambda t: [t.randn(n, dtype=_dt(t, dtype)) for n in range(1, 41)], seed)
        same(lambda t: [t.randn(n, dtype=_dt(t, dtype)) for n in range(40, 0, -1)], seed)


@pytest.mark.parametrize("dtype", FLOATS)
def test_randn_shapes_and_large(dtype: str) -> None:
    same(lambda t: (t.randn(2, 3, dtype=_dt(t, dtype)), t.randn(4, 5, 3, dtype=_dt(t, dtype)),
                    t.randn((7, 9), dtype=_dt(t, dtype)), t.randn(0, dtype=_dt(t, dtype))))
    same(lambda t: t.randn(100_003, dtype=_dt(t, dtype)), 5)
    same(lambda t: t.rand(100_003, dtype=_dt(t, dtype)), 6)


def test_randn_half_million_float32() -> None:
    same(lambda t: t.randn(500_000), 2)


def test_sequences_carry_the_generator_and_the_cached_sample() -> None:
    def seq(t: Any) -> list[Any]:
        return [t.randn(5), t.rand(2), t.randn(3), t.randn(17), t.randn(1),
                t.randn(2, dtype=t.float64), t.rand(1, dtype=t.float64), t.randn(1),
                t.randint(0, 9, (3,)), t.randn(33), t.randn(3)]
    for seed in (0, 9, 2024):
        same(seq, seed)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [5, 16, 37, 200])
def test_normal_with_mean_and_std(dtype: str, n: int) -> None:
    same(lambda t: [t.empty(n, dtype=_dt(t, dtype)).normal_(m, s)
                    for m, s in ((0.5, 2.0), (-3.0, 0.1), (1e-3, 7.5), (2.0, 0.0))])


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_bounds(dtype: str) -> None:
    same(lambda t: [t.empty(300, dtype=_dt(t, dtype)).uniform_(a, b)
                    for a, b in ((-0.3, 0.7), (-1 / math.sqrt(3), 1 / math.sqrt(3)),
                                 (2.5, 3.1), (-1e-3, 5.0), (0, 1), (4, 4))])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_strided_tensors_fill_in_memory_order(dtype: str) -> None:
    """A transposed tensor is filled as it lies in memory; a strided one of 16 elements or
    more takes normal_'s scalar path."""
    def strided(t: Any) -> list[Any]:
        d = _dt(t, dtype)
        base = t.zeros(6, 8, dtype=d)
        outs = [t.empty(5, 4, dtype=d).t().uniform_(-1, 2), t.empty(5, 4, dtype=d).t().normal_(),
                t.empty(3, 2, 4, dtype=d).permute(2, 0, 1).normal_(1, 3)]
        base[:, ::2].normal_()
        base[1:4].uniform_()
        outs.append(base)
        outs.append(t.randn_like(t.empty(7, 5, dtype=d).t()))
        outs.append(t.rand_like(t.empty(7, 5, dtype=d).t()))
        outs.append(t.randn_like(t.empty(7, 5, dtype=d)))
        return outs
    same(strided, 3)


def test_randint_and_random_() -> None:
    def ints(t: Any) -> list[Any]:
        out = [t.randint(0, 10, (6,)), t.randint(-5, 7, (2, 3)), t.randint(10, (4,)),
               t.randint(0, 2 ** 32, (3,)), t.randint(0, 2 ** 33 + 5, (3,)),
               t.randint(-2 ** 40, 2 ** 40, (3,)), t.randint(3, 4, (2,)),
               t.randint(0, 5, (3,), dtype=t.int32), t.randint(0, 5, (3,), dtype=t.float32),
               t.randint(0, 2 ** 33, (3,), dtype=t.float64),
               t.randint(low=2, high=9, size=(3,)), t.randint(0, 200, (3,), dtype=t.uint8),
               t.randint(0, 2 ** 28 - 1, (3,)), t.randint(0, 2 ** 28, (3,), dtype=t.int32),
               t.randint(-5, 2 ** 31 - 1, (3,), dtype=t.int32)]
        for d in (t.int64, t.int32, t.int16, t.int8, t.uint8, t.bool, t.float32, t.float64,
                  t.float16):
            out += [t.empty(5, dtype=d).random_()]
        for d in (t.int64, t.int32, t.float32, t.float64):
            out += [t.empty(5, dtype=d).random_(10), t.empty(5, dtype=d).random_(3, 10),
                    t.empty(5, dtype=d).random_(3, None)]
        out += [t.empty(4, dtype=t.int64).random_(-2 ** 63, None),
                t.empty(4, dtype=t.int16).random_(-7, None), t.empty(4).random_(to=6),
                t.empty(4).random_(3, to=6), t.empty(4).random_(**{"from": 2, "to": 4})]
        return out
    for seed in (0, 77):
        same(ints, seed)


def test_randperm() -> None:
    same(lambda t: [t.randperm(n) for n in (0, 1, 2, 5, 10, 100, 5000)], 3)
    same(lambda t: (t.randperm(6, dtype=t.float32), t.randperm(6, dtype=t.int32)), 4)


def test_bernoulli_() -> None:
    same(lambda t: [t.empty(50).bernoulli_(0.3), t.empty(7, dtype=t.float64).bernoulli_(),
                    t.empty(4, 5).t().bernoulli_(0.8)], 8)


def test_module_initialisation() -> None:
    def modules(t: Any) -> list[Any]:
        nn = t.nn
        out: list[Any] = [*nn.Linear(3, 4).parameters(), *nn.Linear(20, 30).parameters(),
                          *nn.Linear(5, 2, bias=False).parameters()]
        out += [nn.Embedding(10, 3).weight, nn.Embedding(6, 5, padding_idx=2).weight]
        out += [*nn.RNNCell(3, 4).parameters(), *nn.LSTMCell(3, 5).parameters(),
                *nn.GRUCell(4, 3).parameters()]
        out += [nn.Linear(4, 3, dtype=t.float64).weight]
        return out
    for seed in (0, 42):
        same(modules, seed)


def test_init_functions() -> None:
    def inits(t: Any) -> list[Any]:
        init = t.nn.init
        return [init.uniform_(t.empty(3, 5)), init.uniform_(t.empty(40), -2, 3),
                init.normal_(t.empty(3, 5)), init.normal_(t.empty(4, 10), 1.0, 0.02),
                init.kaiming_uniform_(t.empty(6, 7)), init.kaiming_uniform_(t.empty(8, 3), a=0.1),
                init.kaiming_uniform_(t.empty(8, 3), mode="fan_out", nonlinearity="relu"),
                init.xavier_uniform_(t.empty(5, 9)), init.xavier_uniform_(t.empty(4, 4), 2.0)]
    same(inits, 6)


@pytest.mark.parametrize("p", [0.5, 0.1, 0.77, 1.0])
def test_dropout_masks(p: float) -> None:
    def drop(t: Any) -> list[Any]:
        F = t.nn.functional
        x = t.randn(40) * 3
        y = t.randn(5, 6, dtype=t.float64)
        w = t.randn(6, 7, requires_grad=True)
        z = F.dropout(w, p)
        z.sum().backward()
        return [F.dropout(t.ones(20), p), F.dropout(x, p), F.dropout(y, p),
                F.dropout(t.randn(6, 4).t(), p), t.nn.Dropout(p)(x), z, w.grad,
                F.dropout(x, p, training=False), F.dropout(t.randn(30, dtype=t.float16), p),
                t.rand(3)]
    same(drop, 0)


def test_generator_objects_and_keyword() -> None:
    torch = real_torch()
    results = []
    for t in (torch, ours):
        g = t.Generator()
        assert g.initial_seed() == 67280421310721
        fresh = [t.rand(3, generator=g), t.randn(2, generator=g)]
        g.manual_seed(5)
        drawn = [t.rand(2, generator=g), t.randn(20, generator=g), t.randn(3, generator=g),
                 t.randint(0, 5, (3,), generator=g), t.randperm(4, generator=g),
                 t.empty(3).uniform_(0, 1, generator=g), t.empty(3).normal_(0, 1, generator=g),
                 t.empty(4).random_(0, 9, generator=g),
                 t.nn.init.kaiming_uniform_(t.empty(3, 4), generator=g),
                 t.nn.init.normal_(t.empty(3, 4), generator=g), g.get_state(), g.initial_seed()]
        results.append([a for x in fresh + drawn for a in _arrays(x)])
    for a, b in zip(*results):
        assert np.array_equal(a, b)


def _message(f: Callable[[], Any]) -> tuple[str, str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f()
    except Exception as e:
        return type(e).__name__, str(e).split("\n")[0]
    return "", ""


@pytest.mark.parametrize("case", [
    lambda t: t.manual_seed(2 ** 64),
    lambda t: t.set_rng_state(t.zeros(10, dtype=t.uint8)),
    lambda t: t.set_rng_state(t.zeros(5056)),
    lambda t: t.set_rng_state(t.zeros(5056, dtype=t.uint8)),
    lambda t: t.empty(3).normal_(0, -1),
    lambda t: t.empty(3).normal_(0, -0.5),
    lambda t: t.empty(3).uniform_(2, 1),
    lambda t: t.empty(3, dtype=t.int64).normal_(),
    lambda t: t.empty(3, dtype=t.int64).uniform_(),
    lambda t: t.randn(3, dtype=t.int64),
    lambda t: t.rand(3, dtype=t.int32),
    lambda t: t.randint(5, 3, (2,)),
    lambda t: t.randint(0, 300, (2,), dtype=t.uint8),
    lambda t: t.randint(0, 5, (2,), dtype=t.bool),
    lambda t: t.empty(3).random_(5, 2),
    lambda t: t.empty(3).random_(**{"from": 2}),
    lambda t: t.randperm(-1),
])
def test_errors(case: Callable[[Any], Any]) -> None:
    torch = real_torch()
    assert _message(lambda: case(ours)) == _message(lambda: case(torch)) != ("", "")


def test_the_engine_picks_pytorchs_kernels() -> None:
    torch = real_torch()
    assert rm.vector_kernels() == (torch.backends.cpu.get_cpu_capability() != "DEFAULT")


_OTHER_BUILD = """
import sys
import numpy as np
import torch
import graphviz_autograd.torch as ours
from graphviz_autograd.engine import random_math as rm
assert rm.vector_kernels() == (torch.backends.cpu.get_cpu_capability() != "DEFAULT")
def run(t):
    t.manual_seed(3)
    return [t.randn(100), t.randn(37, dtype=t.float64), t.randn(21, dtype=t.float16),
            t.empty(50).uniform_(-0.3, 0.9), t.empty(50, dtype=t.float64).uniform_(-2, 7),
            t.empty(40).normal_(0.5, 3.0), t.empty(5).normal_(0.5, 3.0),
            t.empty(40, dtype=t.float64).normal_(-1, 0.3), t.nn.Linear(7, 5).weight]
for a, b in zip(run(torch), run(ours)):
    a, b = a.detach().numpy(), b.detach().numpy()
    assert np.array_equal(a, b), (a.dtype, int((a != b).sum()))
print(torch.backends.cpu.get_cpu_capability())
"""


@pytest.mark.parametrize("capability", ["default", "avx2"])
def test_other_kernel_builds(capability: str) -> None:
    """PyTorch's default build (C library logf/sinf/cosf, no FMA) and its AVX2 build."""
    real_torch()
    env = {**os.environ, "ATEN_CPU_CAPABILITY": capability,
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _OTHER_BUILD], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    if capability == "avx2" and done.stdout.strip() == "DEFAULT":
        pytest.skip("this CPU has no AVX2")
