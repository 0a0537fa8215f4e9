"""Stepping latency of the Jupyter stepper on the Python side, next to its first render.

A chain of ``h = tanh(h @ w + 1)`` layers (4 nodes per layer), recorded around its backward.
*first render* = building the widget (one Graphviz layout + the first picture); *snapshot step*
= moving the snapshot slider by one (first visit, then a revisit); *backward step* = moving the
step slider by one (the replay of the backward, node by node). Each step is timed from setting
the slider to the widget's picture being updated (its ``HTML.value`` set), median of many.

    python benchmarks/bench_widget.py --out docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import platform
import shlex
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from _report import machine, now, replace_section
from bench_render import native_recording

from graphviz_autograd.jupyter.widget import Stepper
from graphviz_autograd.render import DEFAULT_BUDGET, Layout

START, END = "<!-- bench_widget:start -->", "<!-- bench_widget:end -->"


def timed(f: Any) -> float:
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def measure(nodes: int, steps: int, budget: int = DEFAULT_BUDGET) -> dict[str, Any]:
    rec = native_recording(nodes // 4)
    count = len(rec.snapshots[0].nodes)
    w: Stepper | None = None

    def build() -> None:
        nonlocal w
        w = Stepper(rec, layout=Layout.of(rec, budget=budget))

    first = timed(build)
    assert w is not None
    visit = timed(lambda: setattr(w.slider, "value", 1))
    w.slider.value = 0
    revisit = statistics.median(timed(lambda: setattr(w.slider, "value", 1 - w.slider.value))
                                for _ in range(20))
    w.slider.value = 0
    n = min(steps, w.step.max)
    per_step = [timed(lambda: setattr(w.step, "value", w.step.value + 1)) for _ in range(n)]
    return {"nodes": count, "folded": len(w.canvas.fold), "first": first, "visit": visit,
            "revisit": revisit, "step": statistics.median(per_step), "step_max": max(per_step),
            "steps": n}


def table(rows: list[dict[str, Any]], command: str) -> str:
    lines = [START, "## Jupyter stepper: stepping latency (Python side)", "",
             "| nodes | folded | first render (ms) | snapshot step, first visit (ms) | "
             "snapshot step, revisit (ms) | backward step, median (ms) | backward step, "
             "worst (ms) |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['nodes']:,} | {r['folded']:,} | {r['first'] * 1e3:,.0f} | "
                     f"{r['visit'] * 1e3:.1f} | {r['revisit'] * 1e3:.2f} | "
                     f"{r['step'] * 1e3:.2f} | {r['step_max'] * 1e3:.1f} |")
    lines += ["", "Backward steps: the first "
              f"{rows[-1]['steps']} steps of the backward (the worst is the first step, which "
              "builds the backward's base picture). The widget draws the first 16 snapshots when "
              "it is made (part of the first render); a revisit is a lookup.", "",
              f"- command: `{command}`",
              f"- Python {platform.python_version()}, {machine()}"
              f", date: {now()}", END]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, help="update this Markdown file's widget section")
    args = ap.parse_args()
    # the default node budget folds the 2,000-node chain; the last row draws all of it
    rows = [measure(200, 300), measure(2_000, 300), measure(2_000, 300, budget=5_000)]
    command = "python benchmarks/bench_widget.py " + shlex.join(sys.argv[1:])
    text = table(rows, command.strip())
    print(text)
    if args.out:
        replace_section(args.out, START, END, text)


if __name__ == "__main__":
    main()
