"""Recording overhead on a real PyTorch training loop: recording off vs on, one run.

Two loops, each step ``zero_grad(); loss = criterion(model(x), y); loss.backward(); step()``:
a small MLP (784-128-10, batch 64) and a small conv net (2 conv layers + linear, batch 16,
1x28x28). *on* records with ``record(engine=TorchEngine(), keep_last=8)``: every op seen, a
snapshot before and after each backward, each backward's steps. Medians of interleaved rounds.

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


def loop(make: Callable[[], Any], steps: int) -> Callable[[bool], float]:
    torch.manual_seed(0)
    model, x, y = make()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()

    def run(recording: bool) -> float:
        def body() -> None:
            for _ in range(steps):
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                opt.step()
        t = time.perf_counter()
        if recording:
            with record(engine=TorchEngine(), keep_last=8):
                body()
        else:
            body()
        return (time.perf_counter() - t) / steps
    return run


def measure(name: str, make: Callable[[], Any], steps: int, rounds: int) -> tuple[str, float,
                                                                                  float]:
    run = loop(make, steps)
    run(False)
    run(True)
    off, on = [], []
    for _ in range(rounds):
        off.append(run(False))
        on.append(run(True))
    return name, statistics.median(off), statistics.median(on)


def table(rows: list[tuple[str, float, float]], command: str) -> str:
    lines = [START, "## Recording overhead on real PyTorch", "",
             "| training loop | recording off (ms/step) | on (ms/step) | on / off |",
             "|---|---:|---:|---:|"]
    lines += [f"| {name} | {off * 1e3:.2f} | {on * 1e3:.2f} | {on / off:.2f}x |"
              for name, off, on in rows]
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
