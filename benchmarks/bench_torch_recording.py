"""Recording overhead on a real PyTorch training loop: recording off vs on, one run.

Three loops, each step ``zero_grad(); loss = criterion(model(x), y); loss.backward(); step()``:
a small MLP (784-128-10, batch 64), a small conv net (2 conv layers + linear, batch 16,
1x28x28) and a 12-layer transformer encoder (about 900 nodes a step).
*on* records with ``record(engine=TorchEngine(), keep_last=8)``: every op seen, a
snapshot before and after each backward, each backward's steps. *bare mode* runs the loop under a
``TorchFunctionMode`` that only calls the function: the cost of seeing ops as they run.
*floor* adds the least any recorder that meets the issue must do with PyTorch's public
mechanisms, and nothing more: the user's line for each new ``grad_fn`` (one frame lookup), the
search for the user's names once per backward, and a post-hook on each node the backward runs
(its steps). Medians of interleaved rounds, each run after a full garbage collection (so none
pays for the garbage of the one before; the full collection a recording puts off until it
stops is not in its time).

    python benchmarks/bench_torch_recording.py --out docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import gc
import os
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
from graphviz_autograd.recording import frames
from graphviz_autograd.recording.torch_engine import TorchEngine

START, END = "<!-- bench_torch_recording:start -->", "<!-- bench_torch_recording:end -->"


def mlp() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    return (nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)),
            torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,)))


def convnet() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    return (nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3),
                          nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16 * 5 * 5, 10)),
            torch.randn(16, 1, 28, 28), torch.randint(0, 10, (16,)))


def transformer() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    layer = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True)
    return (nn.Sequential(nn.TransformerEncoder(layer, 12, enable_nested_tensor=False),
                          nn.Linear(64, 10), nn.Flatten(0, 1)),
            torch.randn(8, 32, 64), torch.randint(0, 10, (8 * 32,)))


class _Bare(TorchFunctionMode):
    """Sees every op and does nothing else."""

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None
                           ) -> Any:
        return func(*args, **(kwargs or {}))


_BACKWARDS = (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad)


def _no_op(grad_inputs: Any, grad_outputs: Any) -> None:
    return None


class _Floor(TorchFunctionMode):
    """The least a recorder meeting the issue does: a frame lookup per new node, the name search
    per backward, a post-hook per node run. No snapshot, no record kept."""

    def __init__(self) -> None:
        super().__init__()
        frames.add_internal(os.path.dirname(os.path.abspath(torch.__file__)) + os.sep)

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None
                           ) -> Any:
        kwargs = kwargs or {}
        if func in _BACKWARDS:
            frames.find_names(list(frames.user_frames(sys._getframe(1))), (torch.Tensor,),
                              lambda v: isinstance(v, nn.Module))
            handles, seen = [], set()
            first = args[0] if args else kwargs.get("tensors", kwargs.get("outputs"))
            stack = [t.grad_fn for t in ([first] if isinstance(first, torch.Tensor) else first)]
            while stack:
                n = stack.pop()
                if n is None or n in seen:
                    continue
                seen.add(n)
                handles.append(n.register_hook(_no_op))
                stack.extend(m for m, _ in n.next_functions)
            try:
                return func(*args, **kwargs)
            finally:
                for h in handles:
                    h.remove()
        out = func(*args, **kwargs)
        if isinstance(out, torch.Tensor) and out.grad_fn is not None and torch.is_grad_enabled():
            frames.where(2)
        return out


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
        elif how == "floor":
            with _Floor():
                body()
        else:
            body()
        return (time.perf_counter() - t) / steps
    return run


Row = tuple[str, float, float, float, float]


def measure(name: str, make: Callable[[], Any], steps: int, rounds: int) -> Row:
    run = loop(make, steps)
    times: dict[str, list[float]] = {"off": [], "bare": [], "floor": [], "on": []}
    for how in times:
        run(how)
    for _ in range(rounds):
        for how, samples in times.items():
            # NB: no run pays for the garbage of the one before (a recording's records, the
            # full collection it put off until it stopped)
            gc.collect()
            samples.append(run(how))
    off, bare, floor, on = (statistics.median(times[k]) for k in times)
    return name, off, bare, floor, on


def table(rows: list[Row], command: str) -> str:
    lines = [START, "## Recording overhead on real PyTorch", "",
             "*bare mode*: the loop under a `TorchFunctionMode` that only calls each function, "
             "the cost of seeing ops as they run. *floor*: the least any recorder that meets "
             "the issue must do with PyTorch's public mechanisms, with no snapshot and no "
             "record kept: the bare mode, plus the user's line for each new `grad_fn` (one "
             "frame lookup), the search for the user's names once per backward, and a no-op "
             "post-hook on each node the backward runs (its steps). Medians of interleaved "
             "rounds, each run after a full garbage collection (the one a recording puts off "
             "until it stops is not in its time).", "",
             "| training loop | recording off (ms/step) | bare mode (ms/step) | floor (ms/step) "
             "| on (ms/step) | bare / off | floor / off | on / off |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {name} | {off * 1e3:.2f} | {bare * 1e3:.2f} | {floor * 1e3:.2f} "
              f"| {on * 1e3:.2f} | {bare / off:.2f}x | {floor / off:.2f}x | {on / off:.2f}x |"
              for name, off, bare, floor, on in rows]
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
            measure("conv net (2 conv + linear), batch 16", convnet, 10, 7),
            measure("transformer encoder, 12 layers (d 64, 4 heads), batch 8 x 32 tokens",
                    transformer, 8, 3)]
    command = "python benchmarks/bench_torch_recording.py " + shlex.join(sys.argv[1:])
    text = table(rows, command.strip())
    print(text)
    if args.out:
        replace_section(args.out, START, END, text)


if __name__ == "__main__":
    main()
