"""The user's side of the stack: where an op ran (file, line, code) and which variable names
are bound to which tensors (locals and globals, one level into containers and attributes)."""

from __future__ import annotations

import ast
import copy
import io
import linecache
import os
import sys
import tokenize
from collections.abc import Callable, Iterator
from itertools import islice
from types import CodeType, FrameType, ModuleType
from typing import Any

__all__ = ["PACKAGE_DIR", "user_frames", "where", "line_of", "code_at", "statement_at", "parsed",
           "find_names", "add_internal", "entry", "callers", "is_internal"]

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_INTERNAL: tuple[str, ...] = (PACKAGE_DIR, "<frozen ",
                             os.path.dirname(os.__file__) + os.sep + "contextlib.py")
# where installed packages and Python's own modules live (a venv's too)
_LIBRARIES = tuple(dict.fromkeys(os.path.join(p, "") for p in
                                 (sys.prefix, sys.base_prefix, sys.exec_prefix)))
_MAX_ITEMS = 256          # how far into a list or dict the name search looks
_CO_OPTIMIZED = 0x1       # inspect.CO_OPTIMIZED: a function's frame (f_locals is a copy)


def is_internal(filename: str) -> bool:
    """Library code (the package's own, Python's, torch's once added), not the user's."""
    return filename.startswith(_INTERNAL)


def add_internal(prefix: str) -> None:
    """Treat the files under ``prefix`` as library code, not the user's (e.g. torch's own)."""
    global _INTERNAL
    if prefix not in _INTERNAL:
        _INTERNAL = (*_INTERNAL, prefix)


def user_frames(start: FrameType | None = None) -> Iterator[FrameType]:
    """The frames of the user's code, innermost first (the package's own frames skipped)."""
    f: FrameType | None = start if start is not None else sys._getframe(1)
    while f is not None:
        if not is_internal(f.f_code.co_filename):
            yield f
        f = f.f_back


def where(depth: int = 2, start: FrameType | None = None) -> tuple[CodeType, int] | None:
    """(code, offset of the instruction running) of the innermost user frame, cheaply: called
    once per op while recording. ``line_of`` makes the line number from it when it is read.
    ``start``: the frame to look from, instead of ``depth`` frames up."""
    f: FrameType | None = start if start is not None else sys._getframe(depth)
    while f is not None:
        code = f.f_code
        if not code.co_filename.startswith(_INTERNAL):
            # NB: not f_lineno, which searches the code's line table on every call
            return code, f.f_lasti
        f = f.f_back
    return None


# the functions a user calls to run a backward (qualified names, on both engines)
_BACKWARD_APIS = frozenset({"Tensor.backward", "backward", "grad"})


def entry(depth: int = 2) -> tuple[tuple[CodeType, int] | None, str | None]:
    """Where the innermost user frame is (as ``where``), and the library function its line
    called that led here (its qualified name: ``hessian``), or None where that line called
    ``backward`` or ``grad`` itself."""
    f: FrameType | None = sys._getframe(depth)
    below: CodeType | None = None
    while f is not None:
        code = f.f_code
        if not code.co_filename.startswith(_INTERNAL):
            called = below.co_qualname if below is not None else None
            return (code, f.f_lasti), None if called in _BACKWARD_APIS else called
        below = code
        f = f.f_back
    return None, None


def callers(depth: int = 2, limit: int = 8) -> list[tuple[CodeType, int]]:
    """(code, offset) of the user's frames that called the innermost one (as ``where`` finds
    it), innermost first, ``limit`` at most: where a backward in a function
    (``def d_step(...): loss.backward()``) was called from, in the training loop."""
    f: FrameType | None = sys._getframe(depth)
    while f is not None and f.f_code.co_filename.startswith(_INTERNAL):
        f = f.f_back
    if f is None or f.f_code.co_name == "<module>":
        return []
    out: list[tuple[CodeType, int]] = []
    f = f.f_back
    while f is not None and len(out) < limit:
        code = f.f_code
        file = code.co_filename
        if not file.startswith(_INTERNAL):
            # NB: up to the script's (or a cell's) top level; what ran it (a test runner, a
            # launcher) is not the user's
            if file.startswith(_LIBRARIES):
                break
            out.append((code, f.f_lasti))
            if code.co_name == "<module>":
                break
        f = f.f_back
    return out


def line_of(code: CodeType, offset: int) -> int:
    """The line of the instruction at ``offset`` (an ``f_lasti``): what ``f_lineno`` gives."""
    if offset >= 0:
        for start, end, line in code.co_lines():
            if start <= offset < end:
                return line if line is not None else code.co_firstlineno
    return code.co_firstlineno


def code_at(filename: str, line: int) -> str:
    """The line's code, without its comment (``loss.backward()  # frees it``)."""
    text = linecache.getline(filename, line).strip()
    return _without_comment(text) if "#" in text else text


# file -> (its lines as linecache holds them, its syntax tree or None, line -> (first, last,
# code) of each statement that spans several lines); made again when linecache reads it again
_FILES: dict[str, tuple[list[str], ast.Module | None, dict[int, tuple[int, int, str]]]] = {}
# the compound statements whose header an op can run in (``for x, y in zip(a(...), ...):``)
_HEADED = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith)


def _file(filename: str) -> tuple[list[str], ast.Module | None, dict[int, tuple[int, int, str]]]:
    lines = linecache.getlines(filename)
    cached = _FILES.get(filename)
    if cached is None or cached[0] is not lines:
        try:
            tree: ast.Module | None = ast.parse("".join(lines))
        except (SyntaxError, ValueError):
            tree = None
        cached = _FILES[filename] = (lines, tree, _spans(tree) if tree is not None else {})
    return cached


def parsed(filename: str) -> ast.Module | None:
    """A user's file (a notebook cell's text too) as linecache holds it, parsed once (read-only:
    shared by every caller), or None where it does not parse."""
    return _file(filename)[1]


def statement_at(filename: str, line: int) -> tuple[int, int, str]:
    """(first line, last line, code) of the statement ``line`` is part of: a statement written
    over several lines (``loss = criterion(\n    out,\n    y,\n)``) is given whole, on one
    line (``loss = criterion(out, y)``); any other line as ``code_at`` gives it."""
    span = _file(filename)[2].get(line)
    return span if span is not None else (line, line, code_at(filename, line))


def _spans(tree: ast.Module) -> dict[int, tuple[int, int, str]]:
    """Each line of a statement that spans several lines -> (first, last, its one-line code);
    a compound statement's header alone (``with``, ``for``: not its body)."""
    out: dict[int, tuple[int, int, str]] = {}
    # NB: ast.walk goes outside in, so a statement inside another's lines wins
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        body = getattr(node, "body", None)
        if isinstance(node, _HEADED):
            last = node.body[0].lineno - 1
            header = copy.copy(node)
            header.body, header.orelse = [ast.Pass()], []  # type: ignore[union-attr]
            code = ast.unparse(header).split("\n", 1)[0]
        elif body is None:
            last = node.end_lineno or node.lineno
            code = ast.unparse(node)
        else:
            continue
        if last > node.lineno:
            for i in range(node.lineno, last + 1):
                out[i] = (node.lineno, last, code)
    return out


def _without_comment(text: str) -> str:
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                return text[:token.start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError):
        # NB: (a line that opens a bracket it does not close: its comment was read first)
        pass
    return text


# per class: whether the user's code defines it (its module is the script, or a file outside
# the package, Python and the installed libraries), or it is a probability distribution (its
# parameters are tensors the user's graph often starts from: ``dist.scale``)
_USER_TYPES: dict[type, bool] = {}
_DISTRIBUTIONS = ("torch.distributions.", "graphviz_autograd.torch.distributions.")


def _users(tv: type) -> bool:
    known = _USER_TYPES.get(tv)
    if known is None:
        module = tv.__module__
        file = getattr(sys.modules.get(module), "__file__", None) or ""
        known = module == "__main__" or module.startswith(_DISTRIBUTIONS) or (
            file.endswith(".py") and not is_internal(file) and not file.startswith(_LIBRARIES))
        if len(_USER_TYPES) > 4096:
            # NB: classes made on the fly, one per call: the cache keeps them; start again
            _USER_TYPES.clear()
        _USER_TYPES[tv] = known
    return known


_SKIP = frozenset({int, float, complex, str, bytes, bool, type(None), type, ModuleType,
                   type(len), type(lambda: 0), range, slice,
                   type(Ellipsis), type(NotImplemented), property, staticmethod, classmethod})


def find_names(frames: list[FrameType], tensor_types: tuple[type, ...],
               is_module: Callable[[Any], bool]) -> dict[int, tuple[Any, list[str]]]:
    """id(tensor) -> (tensor, the names bound to it), innermost frame first. ``x``,
    ``temp[0]``, ``d['k']``, ``fc1.weight``, ``model.layers.0.weight``."""
    found: dict[int, tuple[Any, list[str]]] = {}
    seen_globals: set[int] = set()
    # NB: a model is often bound in several frames (passed down a call chain): its parameters
    # are listed once
    module_params: dict[int, list[tuple[str, Any]]] = {}
    skip = _SKIP

    def add(t: Any, name: str) -> None:
        entry = found.get(id(t))
        if entry is None:
            found[id(t)] = (t, [name])
        elif name not in entry[1]:
            entry[1].append(name)

    # NB: no function here calls itself: a closure that refers to itself is a reference
    # cycle, which would keep ``found`` (the user's tensors) alive until a garbage collection
    def scan_module(name: str, v: Any) -> None:
        params = module_params.get(id(v))
        if params is None:
            try:
                params = module_params[id(v)] = list(v.named_parameters())
            except Exception:  # a user's odd module: skip it, never fail
                return
        for pname, p in params:
            add(p, f"{name}.{pname}")
        # NB: and the tensors a module keeps as plain attributes (a state it carries between
        # calls: ``self.hidden = (h, c)``), into a tuple or list of them too
        attrs = getattr(v, "__dict__", None)
        if type(attrs) is not dict:
            return
        for k, x in islice(attrs.items(), 4 * _MAX_ITEMS):
            tx = type(x)
            if tx in skip or k[0] == "_":
                continue
            if isinstance(x, tensor_types):
                add(x, f"{name}.{k}")
            elif tx is tuple or tx is list:
                for i, y in enumerate(x[:_MAX_ITEMS]):
                    if isinstance(y, tensor_types):
                        add(y, f"{name}.{k}[{i}]")

    def scan(name: str, v: Any) -> None:
        tv = type(v)
        if tv in skip:
            return
        if isinstance(v, tensor_types):
            add(v, name)
        elif tv is list or tv is tuple:
            for i, x in enumerate(v[:_MAX_ITEMS]):
                if isinstance(x, tensor_types):
                    add(x, f"{name}[{i}]")
        elif tv is dict:
            for i, (k, x) in enumerate(v.items()):
                if i >= _MAX_ITEMS:
                    break
                if isinstance(x, tensor_types):
                    add(x, f"{name}[{k!r}]")
        elif is_module(v):
            scan_module(name, v)
        elif _users(tv) and hasattr(v, "__dict__"):
            # an object of a class the user's code defines (a trainer): its tensor attributes,
            # and its modules' parameters (``trainer.model.encoder.weight``)
            for i, (k, x) in enumerate(vars(v).items()):
                if i >= _MAX_ITEMS:
                    break
                if k.startswith("_"):
                    continue
                if isinstance(x, tensor_types):
                    add(x, f"{name}.{k}")
                elif type(x) not in skip and is_module(x):
                    scan_module(f"{name}.{k}", x)

    for f in frames:
        scope = f.f_locals
        # NB: filter in one comprehension first: most names are functions, modules, numbers
        for name, v in [kv for kv in scope.items() if type(kv[1]) not in skip]:
            if not name.startswith("__"):
                scan(name, v)
        if f.f_code.co_flags & _CO_OPTIMIZED and scope is not f.f_globals:
            # NB: a function frame's f_locals is a copy the frame keeps until next read; empty
            # it, or it would keep the user's tensors (and their graphs) alive after `del`
            scope.clear()
        g = f.f_globals
        if id(g) not in seen_globals and g is not scope:
            seen_globals.add(id(g))
            for name, v in [kv for kv in g.items() if type(kv[1]) not in skip]:
                if not name.startswith("__"):
                    scan(name, v)
    return found
