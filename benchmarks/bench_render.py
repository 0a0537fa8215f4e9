"""Rendering benchmark: our first render, bare ``dot -Tsvg`` on our DOT, our next-snapshot render,
and torchviz ``make_dot(show_saved=True)`` + render on the same graph built in real PyTorch.

The graph: a chain of ``h = tanh(h @ w + 1)`` layers (4 nodes per layer: MmBackward0,
AddBackward0, TanhBackward0 and the weight's AccumulateGrad), recorded before and after its
backward. torchviz is also asked to draw the graph after the backward, when its buffers are freed.

    python benchmarks/bench_render.py --out docs/benchmarks.md

Needs Graphviz's ``dot``; torchviz and torch come with ``pip install -e ".[bench,torch]"``.
"""

from __future__ import annotations

import argparse
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _report import machine, now, replace_section

import graphviz_autograd.torch as gtorch
from graphviz_autograd import record
from graphviz_autograd.render import Layout, to_dot

START, END = "<!-- bench_render:start -->", "<!-- bench_render:end -->"


def native_recording(layers: int) -> Any:
    gtorch.manual_seed(0)
    with record() as rec:
        h = gtorch.randn(1, 8)
        ws = [gtorch.randn(8, 8, requires_grad=True) for _ in range(layers)]
        for w in ws:
            h = gtorch.tanh(h @ w + 1)
        loss = h.sum()
        loss.backward()
    _ = [s.nodes for s in rec.snapshots]       # derive the plain data outside the timings
    return rec


def best(f: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def torchviz_times(layers: int, repeats: int) -> tuple[str, str]:
    try:
        import torch
        from torchviz import make_dot
    except ImportError:
        return "not installed", "not installed"
    torch.manual_seed(0)
    h = torch.randn(1, 8)
    ws = [torch.randn(8, 8, requires_grad=True) for _ in range(layers)]
    for w in ws:
        h = torch.tanh(h @ w + 1)
    loss = h.sum()

    def draw() -> None:
        make_dot(loss, params={f"w{i}": w for i, w in enumerate(ws)},
                 show_saved=True).pipe(format="svg")

    try:
        before = f"{best(draw, repeats) * 1e3:,.0f} ms"
    except RecursionError:
        before = "RecursionError"
    loss.backward()
    try:
        draw()
        after = "drew it"
    except RecursionError:
        after = "RecursionError"
    except RuntimeError as e:
        after = "RuntimeError: " + str(e).split("(")[0].strip()
    return before, after


def measure(nodes: int, repeats: int) -> dict[str, Any]:
    layers = nodes // 4
    rec = native_recording(layers)
    snaps = rec.snapshots
    count = len(snaps[0].nodes)
    first: list[float] = []
    nxt: list[float] = []
    layout: Layout | None = None
    for _ in range(repeats):
        t = time.perf_counter()
        layout = Layout.of(rec)
        layout.svg(0)
        first.append(time.perf_counter() - t)
        t = time.perf_counter()
        layout.svg(1)
        nxt.append(time.perf_counter() - t)
    assert layout is not None
    dot_text = to_dot(snaps[0])
    bare = best(lambda: subprocess.run(["dot", "-Tsvg"], input=dot_text.encode(),
                                       capture_output=True, check=True), repeats)
    tv_before, tv_after = torchviz_times(layers, repeats)
    # NB: the fastest of the repeats for every column (the least disturbed by a busy machine)
    f, n = min(first), min(nxt)
    return {"nodes": count, "folded": len(layout.fold), "first": f, "bare": bare, "next": n,
            "tv_before": tv_before, "tv_after": tv_after}


def table(rows: list[dict[str, Any]], command: str) -> str:
    lines = [START, "## Rendering: first picture, next snapshot, torchviz", "",
             "A chain of `tanh(h @ w + 1)` layers, recorded around its backward. *first* = "
             "`Layout.of(recording)` (Graphviz lays out every node the recording saw, once) + "
             "the SVG of the first snapshot; *bare dot* = `dot -Tsvg` on `to_dot()` of that "
             "snapshot; *next* = the SVG of the after-backward snapshot on the same layout (no "
             "Graphviz run); torchviz = `make_dot(loss, params, show_saved=True)` + "
             "`pipe('svg')` on the same graph in PyTorch, before and after `loss.backward()`. "
             "Each figure is the fastest of 3 runs.",
             "", "| nodes | folded | first (ms) | bare dot (ms) | first / bare | next (ms) | "
             "first / next | torchviz, before backward | torchviz, after backward |",
             "|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        lines.append(f"| {r['nodes']:,} | {r['folded']:,} | {r['first'] * 1e3:,.0f} | "
                     f"{r['bare'] * 1e3:,.0f} | {r['first'] / r['bare']:.2f}x | "
                     f"{r['next'] * 1e3:,.1f} | {r['first'] / r['next']:,.0f}x | "
                     f"{r['tv_before']} | {r['tv_after']} |")
    lines += ["", f"- command: `{command}`",
              f"- Python {platform.python_version()}, "
              f"{subprocess.run(['dot', '-V'], capture_output=True, text=True).stderr.strip()}, "
              f"{machine()}, "
              f"date: {now()}", END]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="one repeat, smaller graphs")
    ap.add_argument("--out", type=Path, help="update this Markdown file's rendering section")
    args = ap.parse_args()
    sizes = [200, 800] if args.quick else [200, 800, 2_000, 6_000, 20_000]
    rows = [measure(n, 1 if args.quick else 3) for n in sizes]
    command = "python benchmarks/bench_render.py " + shlex.join(sys.argv[1:])
    text = table(rows, command.strip())
    print(text)
    if args.out:
        replace_section(args.out, START, END, text)


if __name__ == "__main__":
    main()
