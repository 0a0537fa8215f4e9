"""Instructions per training step of the engine (the tiny step of bench_engine.py), counted by
valgrind's callgrind: steadier than time on a shared machine, for A/B tests of the hot path.
Needs valgrind (apt-get install valgrind). Run from the repository root, e.g.:
python benchmarks/count_instructions.py --steps 200

The count is the difference between a run of N steps and a run of none (start-up cancels out),
with one BLAS thread and a fixed hash seed, so the same code gives the same figure.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STEP = """
import sys
sys.path[:0] = [{bench!r}, {repo!r}]
import importlib
from bench_engine import SIZES, LR, make_problem, build_torchlike
module = importlib.import_module({module!r})
step = build_torchlike(module, *make_problem(*SIZES[{size!r}]), LR)
recording = None
if {record!r} == "record":
    import graphviz_autograd
    recording = graphviz_autograd.record(keep_last=4)
    recording.__enter__()
elif {record!r} == "floor":
    from bench_recording import Floor
    recording = Floor()
    recording.__enter__()
for _ in range(30):
    step()
for _ in range(int(sys.argv[1])):
    step()
"""


def instructions(script: str, steps: int) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          sys.executable, "-c", script, str(steps)],
                         capture_output=True, text=True, env=env, check=True)
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{out.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=200, help="steps counted (default 200)")
    parser.add_argument("--module", default="graphviz_autograd.torch",
                        help="the torch-like module to step (default: the engine)")
    parser.add_argument("--size", default="tiny", choices=["tiny", "large"])
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--record", action="store_true",
                     help="step inside graphviz_autograd.record() (the recorder's cost)")
    how.add_argument("--floor", action="store_true",
                     help="step under bench_recording.Floor: only what any recorder must do")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind not found: apt-get install valgrind")
    script = STEP.format(bench=str(HERE), repo=str(HERE.parent), module=args.module,
                         size=args.size,
                         record="record" if args.record else "floor" if args.floor else "")
    per_step = (instructions(script, args.steps) - instructions(script, 0)) / args.steps
    what = " while recording" if args.record else " under the floor" if args.floor else ""
    print(f"{args.module}, {args.size} step{what}: {per_step:,.0f} instructions per step "
          f"(callgrind, {args.steps} steps)")


if __name__ == "__main__":
    main()
