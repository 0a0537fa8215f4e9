"""The ``graphviz-autograd`` command.

- ``render SCRIPT.py [-o DIR] [--format svg,png,pdf,dot,json,html] [--engine native]
  [--keep-last N] [-- ARGS]``
  runs the script while recording and writes one picture per snapshot, ``recording.json`` and
  ``index.html`` (a self-contained stepper page).
- ``explain [--engine native] [--keep-last N] SCRIPT.py [ARGS...]`` runs it while recording and
  prints the diagnosis of each failed or predicted-to-fail backward (``--engine torch``: on
  real PyTorch).
- ``show recording.json [-o DIR] [--format ...]`` draws a saved recording again.
- ``run SCRIPT.py [ARGS...]`` only runs it on the native engine.

``import torch`` in the script resolves to the native engine. Exit status: the script's own (0
finished, 1 raised, n from ``sys.exit(n)``), 2 for bad usage or input (one line, no traceback).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from .runner import ScriptError, load_script, run_script
from .torch_alias import native_torch

__all__ = ["main"]

PROG = "graphviz-autograd"


class UsageError(Exception):
    """Bad usage or input: one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:   # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Make PyTorch's autograd memory model visible.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    script_help = "the script, run as `python SCRIPT.py ARGS` would run it"
    render = sub.add_parser("render", help="run a script while recording and write the pictures, "
                                           "recording.json and index.html")
    render.add_argument("script", help=script_help)
    _output_options(render)
    _engine_option(render)
    _keep_option(render, None)
    show = sub.add_parser("show", help="draw a saved recording.json again")
    show.add_argument("recording", help="a recording.json written by `render` or "
                                        "Recording.save()")
    _output_options(show)
    explain = sub.add_parser("explain", help="run a script while recording and explain each "
                                             "failed or predicted-to-fail backward")
    explain.add_argument("script", help=script_help)
    _engine_option(explain)
    _keep_option(explain, EXPLAIN_KEEP)
    explain.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    run = sub.add_parser("run", help="run a PyTorch script on the native engine")
    run.add_argument("script", help=script_help)
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    return p


# NB: what ``explain`` keeps by default: the last 64 snapshots (32 steps of a loop with one
# backward a step), so a long training loop's recording stays bounded (each snapshot of a
# 900-node graph is about half a MiB, and reading them all for the diagnosis costs more)
EXPLAIN_KEEP = 64


def _keep_option(p: argparse.ArgumentParser, default: int | None) -> None:
    kept = f"the last {default}" if default else "all"
    p.add_argument("--keep-last", type=_count, default=default, metavar="N",
                   help=f"keep only the last N snapshots, so a long loop's recording stays "
                        f"bounded; 0: all (default: {kept})")


def _count(text: str) -> int | None:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of snapshots: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"a number of snapshots is 0 or more, not {n}")
    return n or None


def _engine_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", default="native", choices=("native", "torch"),
                   help="native: `import torch` runs on graphviz-autograd's engine "
                        "(default); torch: the script runs on real PyTorch")


def _output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", help="the folder to write (default: <name>-autograd beside "
                                          "the current folder's files)")
    p.add_argument("--format", default="svg,json,html",
                   help="comma-separated: svg, png, pdf, dot, json, html (default: svg,json,html)")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # NB: everything after the first `--` belongs to the script
    after: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, after = argv[:cut], argv[cut + 1:]
    args = _parser().parse_args(argv)
    try:
        if args.command == "show":
            return _show(args)
        script_args = list(getattr(args, "args", None) or []) + after
        if args.command == "render":
            return _render(args, script_args)
        if args.command == "explain" and args.engine == "torch":
            return _explain(args, script_args, _torch_engine())
        with native_torch():
            if args.command == "run":
                return run_script(args.script, script_args).status
            return _explain(args, script_args)
    except (ScriptError, UsageError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2


def _explain(args: argparse.Namespace, script_args: list[str], engine: Any = None) -> int:
    from .recording import diagnose, explain, record
    with record(engine=engine, keep_last=args.keep_last) as rec:
        result = run_script(args.script, script_args)
        if result.error is not None:
            rec._raised(result.error)
    sys.stdout.flush()
    if not rec.snapshots:
        print(f"{PROG}: the script ran no backward: nothing was recorded.")
        return result.status
    total = rec.backwards[-1].number if rec.backwards else 0
    kept = len(rec.snapshots)
    # NB: (the first snapshots dropped: their indices start after 0)
    trimmed = args.keep_last is not None and (total > len(rec.backwards) or
                                              rec.snapshots[0].index > 0)
    print(f"\n== {PROG}: {total} backward call(s) recorded"
          + (f" (the diagnosis reads the last {kept} snapshots: --keep-last)" if trimmed else "")
          + ("; the script stopped at an error" if result.error is not None else "")
          + "\n")
    diagnoses = diagnose(rec)
    if diagnoses and sys.stdout.isatty() and not os.environ.get("NO_COLOR"):
        print("\n\n".join(_coloured(d) for d in diagnoses))
    else:
        print(explain(rec))
    return result.status


def _coloured(d: Any) -> str:
    """A diagnosis for a terminal: the summary in bold red, the fixes' titles in green."""
    red, bold, green, reset = "\033[1;31m", "\033[1m", "\033[32m", "\033[0m"
    lines = [f"{red}{d.summary}{reset}", "", f"{bold}Fixes, best first:{reset}"]
    lines += [f"  {i}. {green}{f.title}{reset}\n     {f.detail}" for i, f in enumerate(d.fixes, 1)]
    return "\n".join(lines)


def _formats(text: str) -> list[str]:
    from .render.files import FILE_FORMATS
    formats = [f.strip().lower() for f in text.split(",") if f.strip()]
    if not formats:
        raise UsageError("--format is empty: use e.g. --format svg,json,html")
    for f in formats:
        if f not in FILE_FORMATS:
            raise UsageError(f"unknown format {f!r} (choose from {', '.join(FILE_FORMATS)})")
    if any(f != "json" for f in formats) and shutil.which("dot") is None:
        from .render.graphviz import INSTALL_HINT
        raise UsageError(INSTALL_HINT)
    return list(dict.fromkeys(formats))


def _writable_folder(path: str) -> Path:
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".gva-write-test"):
            pass
    except OSError as e:
        raise UsageError(f"cannot write to the output folder {path}: "
                         f"{e.strerror or e}") from None
    return folder


class _Progress:
    """A one-line progress display on stderr, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.on = sys.stderr.isatty()
        self.shown = False

    def __call__(self, what: str, done: int, total: int) -> None:
        if self.on:
            sys.stderr.write(f"\r{PROG}: {what} {done}/{total} ")
            sys.stderr.flush()
            self.shown = True

    def message(self, text: str) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            self.shown = False
        print(f"{PROG}: {text}", file=sys.stderr)


def _render(args: argparse.Namespace, script_args: list[str]) -> int:
    from .recording import record
    formats = _formats(args.format)
    engine = _torch_engine() if args.engine == "torch" else None
    load_script(args.script)                  # a missing or unreadable script: exit 2 now
    folder = _writable_folder(args.output or f"{Path(args.script).stem}-autograd")
    progress = _Progress()
    with ExitStack() as stack:
        if engine is None:
            stack.enter_context(native_torch())
        rec = stack.enter_context(record(engine=engine, keep_last=args.keep_last))
        result = run_script(args.script, script_args)
        if result.error is not None:
            rec._raised(result.error)
    sys.stdout.flush()
    _write(rec, folder, formats, Path(args.script).name, progress)
    return result.status


def _torch_engine() -> Any:
    """The recorder's adapter for real PyTorch (``--engine torch``)."""
    try:
        from .recording.torch_engine import TorchEngine
    except ImportError:
        raise UsageError("--engine torch needs PyTorch: pip install 'graphviz-autograd[torch]' "
                         "(or pip install torch)") from None
    return TorchEngine()


def _show(args: argparse.Namespace) -> int:
    from .recording import load
    formats = _formats(args.format)
    path = Path(args.recording)
    if not path.is_file():
        raise UsageError(f"no such file: {args.recording}")
    try:
        rec = load(path)
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read {args.recording}: {e}") from None
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"{args.recording} is not a graphviz-autograd recording ({e})") from None
    folder = _writable_folder(args.output or f"{path.parent.name or 'recording'}-shown")
    _write(rec, folder, [f for f in formats if f != "json" or path.resolve() !=
                         (folder / "recording.json").resolve()], path.name, _Progress())
    return 0


def _write(rec: Any, folder: Path, formats: list[str], title: str, progress: _Progress) -> None:
    from .render.files import write_recording
    if not rec.snapshots:
        progress.message("the script ran no backward: nothing was recorded.")
        if "json" in formats:
            write_recording(rec, folder, ["json"])
        return
    written = write_recording(rec, folder, formats, f"{title}: autograd recording", progress)
    pictures = [p for p in written if p.suffix[1:] in ("svg", "png", "pdf", "dot")]
    where = os.path.relpath(folder) if not os.path.relpath(folder).startswith("..") else folder
    progress.message(f"{len(rec.snapshots)} snapshot(s), {len(rec.backwards)} backward call(s) "
                     f"recorded; wrote {len(pictures)} picture(s) to {where}/")
    if (folder / "index.html").exists() and "html" in formats:
        progress.message(f"open {where}/index.html to step through them")
