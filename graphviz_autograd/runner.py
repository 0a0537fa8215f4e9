"""Run a user's script the way ``python SCRIPT.py ARGS`` would: ``__main__``, ``sys.argv``, its
folder on ``sys.path``, its output passed through, its exit status kept."""

from __future__ import annotations

import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import CodeType

__all__ = ["ScriptError", "load_script", "run_script", "RunResult"]


class ScriptError(Exception):
    """Bad input: the script is missing or unreadable (exit status 2)."""


@dataclass
class RunResult:
    status: int                          # 0 finished, 1 raised, n from sys.exit(n)
    error: BaseException | None = None   # what the script raised, if it did


def load_script(path: str) -> tuple[Path, CodeType | None, SyntaxError | None]:
    p = Path(path)
    if not p.exists():
        raise ScriptError(f"no such file: {path}")
    if p.is_dir():
        raise ScriptError(f"is a directory, not a script: {path}")
    try:
        source = p.read_bytes()
    except OSError as e:
        raise ScriptError(f"cannot read {path}: {e.strerror}") from None
    try:
        # NB: as ``python SCRIPT.py`` names it (in tracebacks and ``__file__``): absolute
        return p, compile(source, os.path.abspath(p), "exec", dont_inherit=True), None
    except SyntaxError as e:
        return p, None, e


def run_script(path: str, args: list[str]) -> RunResult:
    """Execute the script; a traceback is printed to stderr as Python prints it."""
    p, code, syntax = load_script(path)
    if syntax is not None:
        traceback.print_exception(syntax, limit=0)
        return RunResult(1, syntax)
    assert code is not None
    old_argv, old_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.argv = [str(path), *args]
    folder = str(p.resolve().parent)
    sys.path.insert(0, folder)
    main = sys.modules["__main__"]
    module_globals = {"__name__": "__main__", "__file__": os.path.abspath(p),
                      "__builtins__": __builtins__, "__doc__": None, "__package__": None,
                      "__spec__": None}
    try:
        exec(code, module_globals)
    except SystemExit as e:
        return RunResult(_exit_status(e.code), None)
    except BaseException as e:
        _print_user_traceback(e)
        return RunResult(1, e)
    finally:
        sys.argv = old_argv
        if sys.path and sys.path[0] == folder:
            sys.path.pop(0)
        elif old_path0 is not None and folder in sys.path:
            sys.path.remove(folder)
        sys.modules["__main__"] = main
        sys.stdout.flush()
    return RunResult(0)


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _print_user_traceback(e: BaseException) -> None:
    """The traceback without this module's own frame on top."""
    tb = e.__traceback__
    here = os.path.abspath(__file__)
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) == here:
        tb = tb.tb_next
    traceback.print_exception(type(e), e, tb)
