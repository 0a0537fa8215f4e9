"""Time one SGD step of a 4-layer tanh MLP + MSE on graphviz_autograd.torch ("engine"),
PyTorch CPU eager ("torch"), MyGrad ("mygrad") and HIPS autograd ("autograd"), in one process,
in interleaved rounds whose order rotates. Run from the repository root, e.g.:
python benchmarks/bench_engine.py --quick --frameworks engine,torch --out docs/benchmarks.md
"""

import argparse
import gc
import importlib
import importlib.metadata
import os
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from _report import replace_section

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo, for the engine

Params = list[tuple[np.ndarray, np.ndarray]]
Step = Callable[[], Any]  # one training step; returns the loss computed before the update

SIZES: dict[str, tuple[int, int]] = {"tiny": (8, 16), "large": (64, 256)}  # name -> (batch, width)

LAYERS, LR, SEED = 4, 0.05, 0
START, END = "<!-- bench_engine:start -->", "<!-- bench_engine:end -->"


def make_problem(batch: int, width: int) -> tuple[Params, np.ndarray, np.ndarray]:
    """Initial weights and data, shared by every framework (float32, one RNG seed)."""
    rng = np.random.default_rng(SEED)
    params: Params = []
    for _ in range(LAYERS):
        w = rng.standard_normal((width, width)) / np.sqrt(width)
        b = 0.1 * rng.standard_normal(width)
        params.append((w.astype(np.float32), b.astype(np.float32)))
    x = rng.standard_normal((batch, width)).astype(np.float32)
    y = rng.uniform(-0.5, 0.5, (batch, width)).astype(np.float32)
    return params, x, y


def build_torchlike(
    tm: ModuleType, params: Params, x: np.ndarray, y: np.ndarray, lr: float
) -> Step:
    """Shared by real PyTorch and graphviz_autograd.torch: `tm` is the torch-like module."""
    layers = [tuple(tm.tensor(a.copy(), requires_grad=True) for a in wb) for wb in params]
    xt, yt = tm.tensor(x.copy()), tm.tensor(y.copy())

    def step() -> Any:
        h = xt
        for w, b in layers:
            h = (h @ w + b).tanh()
        loss = ((h - yt) ** 2).mean()
        loss.backward()
        with tm.no_grad():
            for p in (t for wb in layers for t in wb):
                p -= lr * p.grad
                p.grad = None
        return loss

    return step


def build_mygrad(mg: ModuleType, params: Params, x: np.ndarray, y: np.ndarray, lr: float) -> Step:
    layers = [(mg.tensor(w.copy()), mg.tensor(b.copy())) for w, b in params]

    def step() -> Any:
        h = x
        for w, b in layers:
            h = mg.tanh(h @ w + b)
        loss = mg.mean((h - y) ** 2)
        loss.backward()
        for p in (t for wb in layers for t in wb):
            p.data -= lr * p.grad  # plain numpy update; the graph is already released
        return loss

    return step


def build_autograd(ag: ModuleType, params: Params, x: np.ndarray, y: np.ndarray, lr: float) -> Step:
    anp = importlib.import_module("autograd.numpy")
    state = [a.copy() for pair in params for a in pair]  # flat [W0, b0, W1, b1, ...]

    def loss_fn(flat: list[np.ndarray]) -> Any:
        h = x
        for i in range(0, len(flat), 2):
            h = anp.tanh(h @ flat[i] + flat[i + 1])
        return anp.mean((h - y) ** 2)

    value_and_grad = ag.value_and_grad(loss_fn)

    def step() -> Any:
        loss, grads = value_and_grad(state)
        state[:] = [p - lr * g for p, g in zip(state, grads)]
        return loss

    return step


# name -> (module to import, distribution for the version, step builder)
FRAMEWORKS: dict[str, tuple[str, str, Callable[..., Step]]] = {
    "engine": ("graphviz_autograd.torch", "graphviz-autograd", build_torchlike),
    "torch": ("torch", "torch", build_torchlike),
    "mygrad": ("mygrad", "mygrad", build_mygrad),
    "autograd": ("autograd", "autograd", build_autograd),
}


def version(name: str, module: ModuleType) -> str:
    try:
        return importlib.metadata.version(FRAMEWORKS[name][1])
    except importlib.metadata.PackageNotFoundError:
        return str(getattr(module, "__version__", "n/a"))


def cpu_model() -> str:
    info = Path("/proc/cpuinfo")
    lines = info.read_text().splitlines() if info.exists() else []
    models = [ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")]
    return models[0] if models else platform.machine()


def load(names: list[str]) -> dict[str, ModuleType]:
    modules: dict[str, ModuleType] = {}
    for name in names:
        try:
            modules[name] = importlib.import_module(FRAMEWORKS[name][0])
        except Exception as exc:  # a half-written engine may fail with anything
            print(f"note: skipping {name}: cannot import {FRAMEWORKS[name][0]} ({exc!r})")
    return modules


def time_per_step(step: Step, n: int) -> float:
    gc.collect()
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t0) / n


def bench_size(
    size: str, modules: dict[str, ModuleType], rounds: int, target_s: float
) -> dict[str, list[float]]:
    """Per-step times (seconds), one per round, for each framework at one problem size."""
    params, x, y = make_problem(*SIZES[size])
    steps: dict[str, Step] = {}
    losses: dict[str, tuple[float, float]] = {}
    for name, mod in modules.items():
        try:
            step = FRAMEWORKS[name][2](mod, params, x, y, LR)
            first = step()  # loss at the shared init; the next one is after one SGD update
            losses[name] = (float(first.item()), float(step().item()))
            steps[name] = step
            if not str(first.dtype).endswith("float32"):
                print(f"WARNING [{size}]: {name} loss dtype is {first.dtype}, not float32")
        except Exception as exc:
            print(f"note: skipping {name} at size {size}: step failed ({exc!r})")
    ref_name = "torch" if "torch" in losses else next(iter(losses), "")
    for name, pair in losses.items():
        ref = losses[ref_name]
        if any(abs(a - r) > 1e-4 * abs(r) for a, r in zip(pair, ref)):
            print(f"WARNING [{size}]: {name} losses {pair} != {ref_name} {ref} (1e-4 rel)")
    n_steps: dict[str, int] = {}
    for name, step in steps.items():  # warm up, then pick N so one sample lasts ~target_s
        time_per_step(step, 3)
        n_steps[name] = max(1, round(target_s / max(time_per_step(step, 5), 1e-9)))
    samples: dict[str, list[float]] = {name: [] for name in steps}
    for r in range(rounds):  # round r runs every framework once, starting at the r-th one
        order = list(steps)[r % len(steps) :] + list(steps)[: r % len(steps)]
        for name in order:
            samples[name].append(time_per_step(steps[name], n_steps[name]))
    return samples


def paired_ratio(samples: list[float], ref: list[float]) -> float:
    """The median over rounds of time / reference time in the same round: steadier than the
    ratio of medians when the machine's speed drifts between rounds."""
    return statistics.median(a / b for a, b in zip(samples, ref, strict=True))


def render(
    results: dict[str, dict[str, list[float]]], modules: dict[str, ModuleType], rounds: int,
    quick: bool
) -> str:
    threads = f" ({modules['torch'].get_num_threads()} threads)" if "torch" in modules else ""
    lines = [
        "## Engine training-step benchmark",
        "",
        "4-layer tanh MLP + MSE, one SGD step (forward, backward, update), float32. "
        + "; ".join(f"{k}: batch {b}, width {w}" for k, (b, w) in SIZES.items())
        + f". {rounds} interleaved rounds{' (quick mode)' if quick else ''}: *median* = "
        "median time per step; *ratio* = median / PyTorch's median; *paired* = median over "
        "rounds of time / PyTorch's time in the same round (lower is faster).",
        "",
        "| framework | tiny median us/step | ratio | paired "
        "| large median us/step | ratio | paired |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name in (n for n in modules if any(n in res for res in results.values())):
        cells = [f"{name}{threads if name == 'torch' else ''}"]
        for size in SIZES:
            s, ref = results[size].get(name), results[size].get("torch")
            t = statistics.median(s) if s else None
            cells.append("n/a" if t is None else f"{t * 1e6:.1f}")
            if s and ref:
                cells.append(f"{t / statistics.median(ref):.2f}x")
                cells.append(f"{paired_ratio(s, ref):.2f}x")
            else:
                cells += ["n/a", "n/a"]
        lines.append("| " + " | ".join(cells) + " |")
    versions = ", ".join(f"{n} {version(n, m)}" for n, m in modules.items())
    lines += [
        "",
        f"- command: `{shlex.join(['python', *sys.argv])}`",
        f"- Python {platform.python_version()}, numpy {np.__version__}, {versions}",
        f"- CPU: {cpu_model()}, os.cpu_count() = {os.cpu_count()}",
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
    ]
    return "\n".join(lines) + "\n"


def write_section(path: Path, body: str) -> None:
    """Replace (or append) the bench_engine section of `path`, keeping everything else."""
    replace_section(path, START, END, f"{START}\n{body}{END}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fast smoke run (few, short rounds)")
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS), help="comma-separated")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 30, quick 5)")
    parser.add_argument("--out", type=Path, help="Markdown file whose bench section to update")
    args = parser.parse_args()
    names = [n.strip() for n in args.frameworks.split(",") if n.strip()]
    if unknown := [n for n in names if n not in FRAMEWORKS]:
        parser.error(f"unknown framework(s) {unknown}; choose from {list(FRAMEWORKS)}")
    rounds = args.rounds or (5 if args.quick else 30)
    target_s = 0.005 if args.quick else 0.03  # seconds per timed sample (N steps)
    modules = load(names)
    results = {size: bench_size(size, modules, rounds, target_s) for size in SIZES}
    print(report := render(results, modules, rounds, args.quick))
    if args.out is not None:
        write_section(args.out, report)
        print(f"wrote section to {args.out}")


if __name__ == "__main__":
    main()
