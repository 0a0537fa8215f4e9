"""What recording costs: the engine's training step with recording off and on (interleaved
rounds), and the time of one snapshot of graphs of 1,000, 10,000 and 100,000 nodes (taking it,
and deriving its plain data). Run from the repository root, e.g.:
python benchmarks/bench_recording.py --out docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import gc
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _report import machine, now, replace_section

import graphviz_autograd
import graphviz_autograd.torch as torch
from graphviz_autograd.engine import events
from graphviz_autograd.recording import frames
from graphviz_autograd.recording.native import NativeEngine

START, END = "<!-- bench_recording:start -->", "<!-- bench_recording:end -->"


def training_step(batch: int, width: int) -> Callable[[], Any]:
    rng = np.random.default_rng(0)
    layers = [(torch.tensor((rng.standard_normal((width, width)) / np.sqrt(width))
                            .astype(np.float32), requires_grad=True),
               torch.tensor(np.zeros(width, np.float32), requires_grad=True))
              for _ in range(4)]
    x = torch.tensor(rng.standard_normal((batch, width)).astype(np.float32))
    y = torch.tensor(rng.uniform(-0.5, 0.5, (batch, width)).astype(np.float32))

    def step() -> Any:
        h = x
        for w, b in layers:
            h = (h @ w + b).tanh()
        loss = ((h - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for w, b in layers:
                w -= 0.05 * w.grad
                b -= 0.05 * b.grad
                w.grad = None
                b.grad = None
        return loss
    return step


class Floor:
    """The least any recorder that meets the issue must do, and nothing more: the user's line
    for each op as it runs (one frame lookup), the search for the user's names once per backward
    (the snapshot after it reuses them), and the engine's trace of the backward's steps (a
    tuple per node, appended by the engine itself). No snapshot, no record kept."""

    def __init__(self) -> None:
        self.table = events.Dispatch({"node_created": self.created,
                                      "backward_started": self.started,
                                      "backward_finished": self.finished})

    def __enter__(self) -> Floor:
        events.subscribe(self.table)
        return self

    def __exit__(self, *exc: Any) -> None:
        events.unsubscribe(self.table)

    @staticmethod
    def created(node: Any, tensor: Any) -> None:
        frames.where(6)          # as the recorder's handler looks it up

    @staticmethod
    def started(info: Any) -> None:
        user = list(frames.user_frames(sys._getframe(1)))    # (this frame is no user's)
        frames.find_names(user, NativeEngine.tensor_types, NativeEngine.is_module)
        events.trace = []

    @staticmethod
    def finished(info: Any) -> None:
        events.trace = None


def per_step(step: Callable[[], Any], n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t) / n


def bench_steps(rounds: int, n: int) -> list[tuple[str, float, float, float]]:
    """Per size: the step's median time with recording off, with only the ``Floor``, and
    with recording on (interleaved rounds, the order rotated each round)."""
    rows = []
    for name, (batch, width) in (("tiny", (8, 16)), ("large", (64, 256))):
        step = training_step(batch, width)
        for _ in range(20):
            step()
        times: dict[str, list[float]] = {"off": [], "floor": [], "on": []}
        hows = list(times)
        for r in range(rounds):
            for how in hows[r % 3:] + hows[:r % 3]:
                gc.collect()           # NB: no run pays for the garbage of the one before
                if how == "on":
                    with graphviz_autograd.record(keep_last=4):
                        times[how].append(per_step(step, n))
                elif how == "floor":
                    with Floor():
                        times[how].append(per_step(step, n))
                else:
                    times[how].append(per_step(step, n))
        off, floor, on = (statistics.median(times[k]) for k in hows)
        rows.append((name, off, floor, on))
    return rows


def chain(nodes: int) -> Any:
    """A chain of tanh(h * w + 1) layers: 3 nodes a layer (Mul, Add, Tanh), plus leaves."""
    w = torch.tensor(np.full(4, 0.5, np.float32), requires_grad=True)
    h = torch.tensor(np.ones(4, np.float32), requires_grad=True)
    for _ in range(nodes // 3):
        h = (h * w + 1).tanh()
    return h


def bench_snapshots(sizes: list[int], repeats: int
                    ) -> list[tuple[int, int, list[tuple[float, float]]]]:
    """Per size: nodes, and (take, derive) for: the graph's first snapshot (every node new to
    the snapshots: its ids and records are made; its static record was made with the node), the
    median of ``repeats`` more, the first after a backward through the graph (every buffer
    freed: each node's records are made again), and the median of ``repeats`` more after it."""
    rows = []
    for size in sizes:
        with graphviz_autograd.record(names=False) as rec:
            out = chain(size)
            cases = []
            for phase in range(2):
                if phase:
                    out.sum().backward()
                take, derive = [], []
                for _ in range(repeats + 1):
                    t0 = time.perf_counter()
                    rec._take("manual", "bench", None)
                    t1 = time.perf_counter()
                    snap = rec.snapshots[-1]
                    t2 = time.perf_counter()
                    take.append(t1 - t0)
                    derive.append(t2 - t1)
                cases += [(take[0], derive[0]),
                          (statistics.median(take[1:]), statistics.median(derive[1:]))]
            count = len(snap.nodes)
            del out
        rows.append((size, count, cases))
    return rows


def table(steps: list[tuple[str, float, float, float]],
          snaps: list[tuple[int, int, list[tuple[float, float]]]],
          command: str) -> str:
    lines = [START, "## Recording overhead", "",
             "The engine's training step (4-layer tanh MLP + MSE, forward, backward, SGD "
             "update; tiny: batch 8, width 16; large: batch 64, width 256) with recording off "
             "and on (two snapshots and a step log per backward), medians of interleaved "
             "rounds. Goal: on <= 1.15x off. *floor*: only what any recorder meeting the "
             "issue must do, with no snapshot and no record kept: the user's line for each op "
             "(one frame lookup), the search for the user's names once per backward, and the "
             "engine's trace of the backward's steps.", "",
             "| size | off us/step | floor us/step | on us/step | floor / off | on / off |",
             "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {n} | {off * 1e6:.0f} | {floor * 1e6:.0f} | {on * 1e6:.0f} | "
              f"{floor / off:.2f}x | {on / off:.2f}x |"
              for n, off, floor, on in steps]
    lines += ["", "One snapshot of a chain of `tanh(h * w + 1)` layers, in ms: taking it (reading "
              "what changed: live nodes, buffer states, names) + deriving its plain data "
              "(roots, sharing, predictions, records) when it is first read = total. *first*: "
              "the graph's first snapshot (each node is new to the snapshots: its ids and "
              "records are made when the snapshot is first read; what a node is, its static "
              "record, was read when the node was made, in the forward, and is counted in the "
              "recording overhead above); *again*: a later snapshot of the same graph (median "
              "of repeats); *after backward*: the first snapshot after a backward through the "
              "graph (every buffer freed, as in the snapshot after each backward of a training "
              "loop), then again. Goal: <= 20 ms at 10,000 nodes, linear growth.", "",
              "| graph nodes | snapshot nodes | first | again | after backward | again after "
              "backward | us/node: first / again / after / again |",
              "|---:|---:|---:|---:|---:|---:|---:|"]

    def cell(take: float, derive: float) -> str:
        return f"{take * 1e3:.1f} + {derive * 1e3:.1f} = **{(take + derive) * 1e3:.1f}**"
    for size, count, cases in snaps:
        per = " / ".join(f"{(t + d) / max(count, 1) * 1e6:.2f}" for t, d in cases)
        lines.append(f"| {size:,} | {count:,} | " + " | ".join(cell(t, d) for t, d in cases)
                     + f" | {per} |")
    lines += ["", f"- command: `{command}`",
              f"- Python {platform.python_version()}, numpy {np.__version__}, "
              f"{machine()}, "
              f"date: {now()}", END]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer rounds, smaller graphs")
    ap.add_argument("--out", type=Path, help="update this Markdown file's recording section")
    args = ap.parse_args()
    sys.setrecursionlimit(10_000)
    rounds, n = (3, 20) if args.quick else (9, 60)
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    steps = bench_steps(rounds, n)
    snaps = bench_snapshots(sizes, 3 if args.quick else 5)
    command = "python benchmarks/bench_recording.py " + shlex.join(sys.argv[1:])
    text = table(steps, snaps, command.strip())
    print(text)
    if args.out:
        replace_section(args.out, START, END, text)


if __name__ == "__main__":
    main()
