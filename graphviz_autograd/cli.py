"""The ``graphviz-autograd`` command.

``run SCRIPT.py [ARGS...]`` runs an unmodified PyTorch script on the native engine (``import
torch`` resolves to ``graphviz_autograd.torch``). ``explain SCRIPT.py [ARGS...]`` runs it while
recording, then prints the diagnosis of each failed or predicted-to-fail backward. Exit status:
the script's own (0 finished, 1 raised, n from ``sys.exit(n)``), 2 for bad usage or input.
"""

from __future__ import annotations

import argparse
import sys

from .runner import ScriptError, run_script
from .torch_alias import native_torch

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:   # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="graphviz-autograd",
                description="Make PyTorch's autograd memory model visible.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = sub.add_parser("run", help="run a PyTorch script on the native engine")
    run.add_argument("script", help="the script, run as `python SCRIPT.py ARGS` would run it")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    explain = sub.add_parser("explain", help="run a script while recording and explain each "
                                             "failed or predicted-to-fail backward")
    explain.add_argument("script", help="the script, run as `python SCRIPT.py ARGS` would run it")
    explain.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    script_args = args.args[1:] if args.args[:1] == ["--"] else args.args
    try:
        with native_torch():
            if args.command == "run":
                return run_script(args.script, script_args).status
            from .recording import explain, record
            with record() as rec:
                result = run_script(args.script, script_args)
    except ScriptError as e:
        print(f"graphviz-autograd: error: {e}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    if not rec.backwards:
        print("graphviz-autograd: the script ran no backward: nothing was recorded.")
    else:
        print(f"\n== graphviz-autograd: {len(rec.backwards)} backward call(s) recorded\n")
        print(explain(rec))
    return result.status
