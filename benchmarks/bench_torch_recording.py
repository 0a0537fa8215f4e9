"""Recording overhead on a real PyTorch training loop: recording off vs on, one run.

Two loops, each step ``zero_grad(); loss = criterion(model(x), y); loss.backward(); step()``:
a small MLP (784-128-10, batch 64) and a small conv net (2 conv layers + linear, batch 16,
1x28x28). *on* records with ``record(engine=TorchEngine(), keep_last=8)``: every op seen, a
snapshot before and after each backward, each backward's steps. *bare mode* runs the loop under a
``TorchFunctionMode`` that only calls the function: the floor of seeing ops as they run. Medians
of interleaved rounds.

    python benchmarks/bench_torch_recording.py --out docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from _report import machine, now, replace_section
from torch import nn
from torch.overrides import TorchFunctionMode

from graphviz_autograd import record
from graphviz_autograd.recording.torch_engine import TorchEngine

START, END = "<!-- bench_torch_recording:start -->", "<!-- bench_torch_recording:end -->"


def mlp() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    return (nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)),
            torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,)))


def convnet() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    return (nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3),
                          nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16 * 5 * 5, 10)),
            torch.randn(16, 1, 28, 28), torch.randint(0, 10, (16,)))


class _Bare(TorchFunctionMode):
    """Sees every op and does nothing else."""

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None
                           ) -> Any:
        return func(*args, **(kwargs or {}))


def loop(make: Callable[[], Any], steps: int) -> Callable[[str], float]:
    torch.manual_seed(0)
    model, x, y = make()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()

    def run(how: str) -> float:
        def body() -> None:
            for _ in range(steps):
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                opt.step()
        t = time.perf_counter()
        if how == "on":
            with record(engine=TorchEngine(), keep_last=8):
                body()
        elif how == "bare":
            with _Bare():
                body()
        else:
            body()
        return (time.perf_counter() - t) / steps
    return run


Row = tuple[str, float, float, float]


def measure(name: str, make: Callable[[], Any], steps: int, rounds: int) -> Row:
    run = loop(make, steps)
    times: dict[str, list[float]] = {"off": [], "bare": [], "on": []}
    for how in times:
        run(how)
    for _ in range(rounds):
        for how, samples in times.items():
            samples.append(run(how))
    off, bare, on = (statistics.median(times[k]) for k in ("off", "bare", "on"))
    return name, off, bare, on


def table(rows: list[Row], command: str) -> str:
    lines = [START, "## Recording overhead on real PyTorch", "",
             "*bare mode*: the loop under a `TorchFunctionMode` that only calls each function, "
             "the floor of seeing ops as they run.", "",
             "| training loop | recording off (ms/step) | bare mode (ms/step) | on (ms/step) "
             "| bare / off | on / off |",
             "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {name} | {off * 1e3:.2f} | {bare * 1e3:.2f} | {on * 1e3:.2f} "
              f"| {bare / off:.2f}x | {on / off:.2f}x |"
              for name, off, bare, on in rows]
    lines += ["", f"- command: `{command}`",
              f"- Python {platform.python_version()}, torch {torch.__version__} (CPU, "
              f"{torch.get_num_threads()} threads), {machine()}"
              f", date: {now()}", END]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, help="update this Markdown file's section")
    args = ap.parse_args()
    rows = [measure("MLP 784-128-10, batch 64", mlp, 20, 7),
            measure("conv net (2 conv + linear), batch 16", convnet, 10, 7)]
    command = "python benchmarks/bench_torch_recording.py " + shlex.join(sys.argv[1:])
    text = table(rows, command.strip())
    print(text)
    if args.out:
        replace_section(args.out, START, END, text)


if __name__ == "__main__":
    main()
