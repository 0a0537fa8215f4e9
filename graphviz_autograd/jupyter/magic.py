"""``%%autograd``: record a cell (``import torch`` is the native engine in it) and show the
stepper. The recording is kept as ``_autograd`` in the notebook's namespace (from the start of
the cell: ``_autograd.snapshot(label)`` inside it takes one by hand)."""

from __future__ import annotations

import linecache
import sys
from types import ModuleType
from typing import Any

from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from ..recording import Recording, record
from ..torch_alias import ALIASES, native_torch

__all__ = ["AutogradMagics"]


@magics_class
class AutogradMagics(Magics):
    @magic_arguments()
    @argument("--engine", default="native", choices=("native", "torch"),
              help="native: `import torch` in the cell is graphviz-autograd's engine; "
                   "torch: real PyTorch")
    @argument("--last", type=int, default=None, metavar="N",
              help="keep and show only the last N snapshots")
    @cell_magic
    def autograd(self, line: str, cell: str) -> None:
        """Record the cell and show the stepper (``--engine native``, ``--last N``)."""
        args = parse_argstring(self.autograd, line)
        if args.last is not None and args.last < 1:
            print("%%autograd: --last needs a positive number of snapshots")
            return
        shell: Any = self.shell
        # NB: a blank first line stands for the `%%autograd` line: line numbers match the cell
        code = "\n" + shell.transform_cell(cell)
        filename = _cell_file(shell, code, cell)
        compiled = compile(code, filename, "exec")
        ns = shell.user_ns
        if args.engine == "torch":
            try:
                from ..recording.torch_engine import TorchEngine
            except ImportError:
                print("%%autograd: --engine torch needs PyTorch (pip install torch)")
                return
            with record(engine=TorchEngine(), keep_last=args.last) as rec:
                ns["_autograd"] = rec       # NB: inside the cell too: _autograd.snapshot(label)
                _run(shell, compiled, ns, rec)
        else:
            # NB: names bound to the real torch modules (imported in an earlier cell) stand for
            # the engine inside the cell, and are given back afterwards
            rebound = {name: mod for name, mod in ns.items() if isinstance(mod, ModuleType)
                       and getattr(mod, "__name__", "") in ALIASES}
            with native_torch(), record(keep_last=args.last) as rec:
                for name, mod in rebound.items():
                    ns[name] = sys.modules[mod.__name__]
                ns["_autograd"] = rec
                try:
                    _run(shell, compiled, ns, rec)
                finally:
                    for name, mod in rebound.items():
                        if ns.get(name) is sys.modules[mod.__name__]:
                            ns[name] = mod
        if not rec.snapshots:
            print("%%autograd: the cell ran no backward: nothing was recorded.")
            return
        display(rec.widget())


def _run(shell: Any, compiled: Any, ns: dict[str, Any], rec: Recording) -> None:
    try:
        exec(compiled, ns)
    except Exception as e:
        # NB: the traceback is shown, and so is everything recorded up to the failure, with
        # the graph where the cell stopped
        shell.showtraceback()
        rec._raised(e)


def _cell_file(shell: Any, code: str, raw: str) -> str:
    """A file name for the cell whose lines ``linecache`` knows (for the source lines)."""
    try:
        return str(shell.compile.cache(code, shell.execution_count, raw_code=raw))
    except (AttributeError, TypeError):
        name = f"<autograd-cell-{shell.execution_count}>"
        linecache.cache[name] = (len(code), None, code.splitlines(True), name)
        return name
