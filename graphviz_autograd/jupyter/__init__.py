"""Jupyter front end: the stepper widget (``recording.widget()``) and the ``%%autograd`` cell
magic (``%load_ext graphviz_autograd``). Needs the ``jupyter`` extra (ipywidgets)."""

from __future__ import annotations

from typing import Any

__all__ = ["load_ipython_extension"]


def load_ipython_extension(ipython: Any) -> None:
    """Registers ``%%autograd`` (``%load_ext graphviz_autograd`` calls this)."""
    from .magic import AutogradMagics
    ipython.register_magics(AutogradMagics)
