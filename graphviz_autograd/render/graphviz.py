"""The one module that runs Graphviz's ``dot`` program."""

from __future__ import annotations

import shutil
import subprocess

__all__ = ["GraphvizNotFound", "run", "INSTALL_HINT"]

INSTALL_HINT = ("Graphviz's `dot` program was not found on PATH. Install Graphviz: "
                "`sudo apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` "
                "(macOS), `conda install -c conda-forge graphviz`, or see "
                "https://graphviz.org/download/")


class GraphvizNotFound(RuntimeError):  # noqa: N818 (reads as what happened)
    """``dot`` is not installed (the message says how to install it)."""


def run(source: str, fmt: str, *args: str) -> bytes:
    """Run ``dot -T<fmt> [args]`` on DOT ``source``; returns its output."""
    exe = shutil.which("dot")
    if exe is None:
        raise GraphvizNotFound(INSTALL_HINT)
    try:
        done = subprocess.run([exe, f"-T{fmt}", *args], input=source.encode("utf-8"),
                              capture_output=True, check=False)
    except OSError as e:       # e.g. found but not executable
        raise GraphvizNotFound(f"{INSTALL_HINT} ({e})") from None
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"dot -T{fmt} failed (exit {done.returncode}): {err}")
    return done.stdout
