"""PyTorch's argument signatures of the ``torch.*`` functions and ``Tensor`` methods
(signatures.txt), and the TypeError PyTorch's argument parser gives for a call that fits none,
word for word: a wrong type, a missing, extra or unknown argument, and for a name of several
signatures the "invalid combination of arguments" listing.

The check is lazy: a call runs first, unchecked; only when it fails (or a cheap guard already in
the call sees an unusual argument: a numpy array, one positional argument too many) is it held
against its signatures, so the success path costs nothing. A call that fits PyTorch's signature
but was refused by an implementation naming its arguments otherwise is made again with them
given by position. signatures.txt is recorded from PyTorch by scripts/record_signatures.py.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .dtypes import DType
from .random import Generator
from .tensor import Tensor

__all__ = ["check", "fail", "guard", "max_positional", "names", "rebind", "recover"]

# NB: PyTorch's parser takes a Python number for a Tensor argument of these functions only
_NUMBERS_AS_TENSORS = frozenset(
    f"{n}{s}" for n in ("add", "div", "divide", "mul", "multiply", "sub", "subtract",
                        "true_divide", "floor_divide") for s in ("", "_")) | {"to", "copy_"}


class Param:
    """One argument of a signature: its type as PyTorch prints it, its name, its default (as
    text) and whether it is keyword-only."""

    __slots__ = ("type", "name", "default", "kw_only")

    def __init__(self, text: str, kw_only: bool) -> None:
        decl, eq, default = text.partition(" = ")
        self.type, _, self.name = decl.strip().rpartition(" ")
        self.default: str | None = default.strip() if eq else None
        self.kw_only = kw_only

    def value(self) -> Any:
        """The default as a Python value (for a call rebound by position)."""
        text = self.default
        if text is None or text == "None":
            return None
        try:
            return ast.literal_eval(text)
        except ValueError:
            return None


class Signature:
    __slots__ = ("name", "params", "max_pos", "min_args", "varargs", "hidden", "text")

    def __init__(self, name: str, params: list[Param], flags: str = "", text: str = "") -> None:
        self.name = name
        self.text = text            # the arguments as PyTorch prints them
        self.hidden = "~" in flags
        self.params = params
        pos = [p for p in params if not p.kw_only]
        self.max_pos = len(pos)
        # NB: as PyTorch counts it: up to the last argument without a default
        self.min_args = max((i + 1 for i, p in enumerate(params) if p.default is None),
                            default=0)
        # NB: a list of ints as the only positional argument may be given unpacked: zeros(2, 3)
        self.varargs = len(pos) == 1 and pos[0].type == "tuple of ints"


def _split(text: str) -> list[str]:
    """The arguments of a signature, split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += 1 if c in "[(" else -1 if c in "])" else 0
        if c == "," and not depth:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _parse(line: str) -> Signature:
    head, _, rest = line.partition("(")
    name = head.lstrip("~")
    params: list[Param] = []
    kw_only = False
    for part in _split(rest[:rest.rindex(")")]):
        if part == "*":
            kw_only = True
            continue
        params.append(Param(part, kw_only))
    inner = rest[:rest.rindex(")")]
    return Signature(name, params, head[:len(head) - len(name)], inner)


# signatures.txt: one per line, as PyTorch prints it: name(type name, ..., *, type name =
# default); "fn:" or "m:" before it says whether it is the torch.* function or the Tensor method;
# several lines of one name are its overloads. "~" marks a name with hidden overloads too (so
# PyTorch names a bad argument only of a call whose count fits this signature alone)
_FUNCTIONS: dict[str, list[Signature]] = {}
_METHODS: dict[str, list[Signature]] = {}


def _tables() -> tuple[dict[str, list[Signature]], dict[str, list[Signature]]]:
    """The table, read when first needed (a failed call), so importing costs nothing."""
    if not _FUNCTIONS:
        for raw in (Path(__file__).with_name("signatures.txt")).read_text().splitlines():
            form, _, text = raw.strip().partition(":")
            if text:
                sig = _parse(text)
                (_METHODS if form == "m" else _FUNCTIONS).setdefault(sig.name, []).append(sig)
    return _FUNCTIONS, _METHODS


def names(method: bool) -> set[str]:
    """The names the table has a signature for (read without parsing the signatures)."""
    lines = (Path(__file__).with_name("signatures.txt")).read_text().splitlines()
    prefix = "m:" if method else "fn:"
    return {line[len(prefix):line.index("(")].lstrip("~") for line in lines
            if line.startswith(prefix)}


def max_positional(name: str, method: bool) -> float:
    """The most positional arguments PyTorch takes (infinite for an unpacked size, or a name
    with hidden signatures, or one the table does not know)."""
    sigs = _tables()[method].get(name)
    if not sigs or sigs[0].hidden or any(s.varargs for s in sigs):
        return float("inf")
    return max(s.max_pos for s in sigs)


def _select(name: str, args: tuple[Any, ...], kw: dict[str, Any],
            method: bool) -> Signature | None:
    """The signature PyTorch holds a failed call against: its only one, or the only one whose
    argument count fits (None: PyTorch lists them all, "invalid combination of arguments")."""
    sigs = _tables()[method].get(name)
    if not sigs:
        return None
    if len(sigs) == 1 and not sigs[0].hidden:
        return sigs[0]
    num = len(args) + len(kw)
    fits = [s for s in sigs if s.min_args <= num <= len(s.params)]
    return fits[0] if len(fits) == 1 else None


# NB: numpy's names PyTorch's parser takes for its own (sum(axis=0, keepdims=True))
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input",
                "x2": "other"}


def _aliased(kw: dict[str, Any], names: set[str]) -> dict[str, Any]:
    """The keywords with numpy's names given PyTorch's, where the signature has them."""
    if not kw.keys() & _NUMPY_NAMES.keys():
        return kw
    out = {}
    for k, v in kw.items():
        real = _NUMPY_NAMES.get(k, k)
        out[real if real in names and k not in names and real not in kw else k] = v
    return out


def type_name(v: Any) -> str:
    t = type(v)
    if t.__module__ in ("builtins", None) or isinstance(v, Tensor):
        return t.__name__
    return f"{t.__module__}.{t.__qualname__}"


def _is_int(v: Any) -> bool:
    if isinstance(v, bool | np.bool_):
        return False
    if isinstance(v, int | np.integer):
        return True
    return isinstance(v, Tensor) and not v.dim() and not v.is_floating_point() and \
        not v.is_complex()


def _is_number(v: Any) -> bool:
    return isinstance(v, bool | int | float | complex | np.number | np.bool_ | Tensor)


_DTYPES: Any = DType
_SCALAR_CHECKS: dict[str, Callable[[Any], bool]] = {
    "int": _is_int,
    "float": lambda v: isinstance(v, int | float | np.number | Tensor) and not isinstance(
        v, bool | np.bool_),
    "bool": lambda v: isinstance(v, bool | np.bool_) or (
        isinstance(v, Tensor) and v.numel() == 1),
    "Number": _is_number,
    "str": lambda v: isinstance(v, str),
    "torch.dtype": lambda v: isinstance(v, _DTYPES),
    "torch.Generator": lambda v: isinstance(v, Generator),
}


def _unpack(sig: Signature, p: Param, items: Any) -> str | None:
    for i, item in enumerate(items):
        if not _is_int(item):
            return (f"{sig.name}(): argument '{p.name}' failed to unpack the object at pos "
                    f"{i + 1} with error \"type must be tuple of ints,but got "
                    f"{type_name(item)}\"")
    return None


def _check_value(sig: Signature, p: Param, v: Any, pos: int | None) -> str | None:
    """The message for a value ``v`` given to ``p`` (at 1-based ``pos``, or by keyword), or
    None where PyTorch takes it (or where this check does not know)."""
    if v is None and p.default == "None":
        return None
    where = f"argument '{p.name}' (position {pos})" if pos else f"argument '{p.name}'"
    bad = f"{sig.name}(): {where} must be {p.type}, not {type_name(v)}"
    kind = p.type
    if kind == "Tensor":
        if isinstance(v, Tensor):
            return None
        if sig.name in _NUMBERS_AS_TENSORS and isinstance(v, bool | int | float | complex):
            return None
        return bad
    if kind == "tuple of Tensors":
        if isinstance(v, tuple | list):
            for i, item in enumerate(v):
                if not isinstance(item, Tensor):
                    return (f"expected Tensor as element {i} in argument {(pos or 1) - 1}, "
                            f"but got {type_name(item)}")
            return None
        return bad
    if kind == "tuple of ints":
        if _is_int(v) or isinstance(v, Tensor):
            return None
        return _unpack(sig, p, v) if isinstance(v, tuple | list) else bad
    test = _SCALAR_CHECKS.get(kind)
    if test is None or test(v):
        return None
    return bad


def check(name: str, args: tuple[Any, ...], kw: dict[str, Any], method: bool) -> str | None:
    """PyTorch's TypeError text for ``name(*args, **kw)`` (``args`` without self for a method),
    or None where the call fits its signature (or no one signature is known)."""
    sigs = _tables()[method].get(name)
    if not sigs:
        return None
    unpacked = next((s for s in sigs if s.varargs), None)
    if unpacked is not None and len(args) > 1 and _is_int(args[0]):
        # NB: an unpacked size is read before any signature is chosen
        text = _unpack(unpacked, unpacked.params[0], args)
        if text is not None:
            return text
    if len(sigs) > 1 or sigs[0].hidden:
        for s in sigs:
            text = _against(s, name, args, kw, method)
            if text is None:
                return None             # NB: another overload takes the call
            if "failed to unpack" in text:
                return text             # NB: PyTorch stops at a list it cannot read
        sig = _select(name, args, kw, method)
        if sig is None:
            return _combination(name, sigs, args, kw)
    else:
        sig = sigs[0]
    return _against(sig, name, args, kw, method)


def _against(sig: Signature, name: str, args: tuple[Any, ...], kw: dict[str, Any],
             method: bool) -> str | None:
    """The text for a call held against one signature, or None where it fits."""
    params = sig.params
    kw = _aliased(kw, {p.name for p in params})
    nargs = len(args)
    if sig.varargs and nargs and _is_int(args[0]):
        args, nargs = (args,), 1
    if method and not params:            # NB: a method of no arguments is Python's own
        if kw:
            return f"TensorBase.{name}() takes no keyword arguments"
        return f"TensorBase.{name}() takes no arguments ({nargs} given)" if nargs else None
    if nargs > sig.max_pos:
        if sig.min_args != sig.max_pos:
            return (f"{name}() takes from {sig.min_args} to {sig.max_pos} positional arguments "
                    f"but {nargs} were given")
        s = "" if sig.max_pos == 1 else "s"
        return (f"{name}() takes {sig.max_pos} positional argument{s} but {nargs} "
                f"{'was' if nargs == 1 else 'were'} given")
    used = 0
    for i, p in enumerate(params):
        if not p.kw_only and i < nargs:
            if p.name in kw:
                return f"{name}() got multiple values for argument '{p.name}'"
            text = _check_value(sig, p, args[i], i + 1)
        elif p.name in kw:
            used += 1
            text = _check_value(sig, p, kw[p.name], None)
        elif p.default is None:
            # NB: PyTorch names every argument up to the last required one
            missing = [q.name for q in params[i:sig.min_args] if q.name not in kw]
            # NB: PyTorch's plural is of one argument, its singular of several
            return (f"{name}() missing {len(missing)} required positional argument"
                    f"{'s' if len(missing) == 1 else ''}: "
                    + ", ".join(f'"{m}"' for m in missing))
        else:
            continue
        if text is not None:
            return text
    if used < len(kw):
        names = {p.name for p in params}
        for k in kw:
            if k not in names:
                return f"{name}() got an unexpected keyword argument '{k}'"
    return None


def rebind(name: str, args: tuple[Any, ...], kw: dict[str, Any],
           method: bool) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """The call with its positional arguments given by position, in PyTorch's order: for an
    implementation that names them otherwise (None where that cannot be told)."""
    if not kw:
        return None
    num = len(args) + len(kw)
    fits = [s for s in _tables()[method].get(name, []) if s.min_args <= num <= len(s.params)
            and _aliased(kw, {p.name for p in s.params}).keys() <= {p.name for p in s.params}]
    if not fits:
        return None
    named = _aliased(kw, {p.name for p in fits[0].params})
    # NB: by PyTorch's names, where only numpy's were given and no one order is known
    renamed = None if named == kw else (args, named)
    kw = named
    pos = [p for p in fits[0].params if not p.kw_only]
    given = [i for i, p in enumerate(pos) if p.name in kw]
    if not given:
        return renamed
    # NB: overloads that differ only in types name their arguments alike
    prefix = max(given) + 1
    if len({tuple(p.name for p in s.params if not p.kw_only)[:prefix] for s in fits}) != 1:
        return renamed
    out = list(args)
    for p in pos[len(args):max(given) + 1]:
        out.append(kw[p.name] if p.name in kw else p.value())
    names = {p.name for p in pos}
    return tuple(out), {k: v for k, v in kw.items() if k not in names}


def fail(name: str, args: tuple[Any, ...], kw: dict[str, Any], method: bool) -> None:
    """Raise PyTorch's TypeError where the call does not fit its signature."""
    text = check(name, args, kw, method)
    if text is not None:
        raise TypeError(text)


def guard(fn: Callable[..., Any], name: str, method: bool) -> Callable[..., Any]:
    """``fn`` unchanged on success; a failure is re-raised as PyTorch's TypeError where the call
    does not fit PyTorch's signature, and a call refused only for its keyword names (PyTorch's,
    where the implementation names them otherwise) is made again by position."""
    limit = [-1.0]          # the most positional arguments, known from the first call on

    def call(*args: Any, **kw: Any) -> Any:
        if len(args) > limit[0]:
            if limit[0] < 0:
                limit[0] = max_positional(name, method) + method
            if len(args) > limit[0]:        # NB: one too many, where fn would take it
                fail(name, args[1:] if method else args, kw, method)
        for a in args:
            if type(a) is np.ndarray:       # NB: PyTorch's functions take no numpy array
                fail(name, args[1:] if method else args, kw, method)
        try:
            return fn(*args, **kw)
        except Exception as e:      # NB: PyTorch reads its arguments before any other check
            return recover(fn, name, args, kw, method, e)
    call.__name__ = getattr(fn, "__name__", name)
    call.__qualname__ = getattr(fn, "__qualname__", name)
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn  # type: ignore[attr-defined]
    return call


def recover(fn: Callable[..., Any], name: str, args: tuple[Any, ...], kw: dict[str, Any],
            method: bool, error: BaseException) -> Any:
    """After ``fn(*args, **kw)`` raised ``error``: PyTorch's TypeError where the call does not
    fit its signature, else the call again with PyTorch's keywords given by position, else
    ``error`` itself."""
    # NB: ``error`` is let go of on the way out: raised from here, it would hold this frame
    # (its traceback), and the frame it (a cycle), keeping the call's tensors alive until a
    # garbage collection; PyTorch's errors keep nothing
    try:
        given = args[1:] if method else args
        text = check(name, given, kw, method)
        if text is not None:
            raise TypeError(text) from None
        again = rebind(name, given, kw, method) if isinstance(error, TypeError) else None
        if again is None:
            raise error
        try:
            return fn(*args[:1], *again[0], **again[1]) if method else fn(*again[0], **again[1])
        except TypeError:
            raise error from None
    finally:
        del error


# -- PyTorch's "invalid combination of arguments" (a name of several signatures) ----------------
def _described(args: tuple[Any, ...], kw: dict[str, Any],
               marked: Callable[[int | str, Any], bool] | None = None) -> str:
    """The arguments given, as PyTorch lists them: "(Tensor, str, dim=int)", "(dim=str, )"; with
    ``marked``, those that do not fit between "!"."""
    def item(key: int | str, v: Any) -> str:
        kind = type_name(v) if marked is None else _type_detail(v)
        text = kind if isinstance(key, int) else f"{key}={kind}"
        return f"!{text}!" if marked is not None and marked(key, v) else text
    # NB: PyTorch keeps keywords in a hash map: a few come out in the reverse order given
    keys = list(reversed(kw))
    items = [item(i, v) for i, v in enumerate(args)] + [item(k, kw[k]) for k in keys]
    if args:
        return "(" + ", ".join(items) + ")"
    return "(" + "".join(f"{i}, " for i in items) + ")"


def _type_detail(v: Any) -> str:
    """A type as PyTorch details it under a signature: a sequence by its items' types."""
    if isinstance(v, tuple):
        inner = ", ".join(type_name(x) for x in v)
        return f"tuple of ({inner}{',' if len(v) == 1 else ''})"
    if isinstance(v, list):
        return f"list of [{', '.join(type_name(x) for x in v)}]"
    return type_name(v)


def _fits(kind: str, v: Any) -> bool:
    """Whether PyTorch's listing takes ``v`` as of type ``kind``: only plain types (an argument
    with a default, a Number or a sequence is always marked)."""
    if kind == "Tensor":
        return isinstance(v, Tensor)
    if kind == "int":
        return _is_int(v)
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "float":
        return _is_int(v) or isinstance(v, float)
    if kind == "torch.dtype":
        return isinstance(v, _DTYPES)
    return False


def _mismatch(sig: Signature, args: tuple[Any, ...],
              kw: dict[str, Any]) -> tuple[list[str], str] | None:
    """For a call whose argument count matches a signature's (as PyTorch reads its listing):
    the keywords it does not know, and the arguments with those that do not fit marked."""
    tokens = len(_split(sig.text)) or 1     # NB: "*" counts, and "()" is one
    if len(args) + len(kw) != tokens:
        return None
    names = {p.name: p for p in sig.params if p.default is None}
    wrong = [k for k in reversed(kw) if k not in names]
    params = sig.params

    def marked(key: int | str, v: Any) -> bool:
        if isinstance(key, str):
            return not _fits(names[key].type, v)
        p = params[key] if key < len(params) else None
        return p is None or p.default is not None or not _fits(p.type, v)
    return wrong, ("" if wrong else _described(args, kw, marked))


def _combination(name: str, sigs: list[Signature], args: tuple[Any, ...],
                 kw: dict[str, Any]) -> str:
    """PyTorch's text for a call that fits none of its signatures."""
    head = f"{name}() received an invalid combination of arguments - got "
    if len(sigs) == 1:              # NB: one shown, others hidden
        # NB: as PyTorch tells them: a keyword is known (by an argument without a default)
        # only in a call of the signature's argument count
        found = _mismatch(sigs[0], args, kw)
        unknown = list(reversed(kw)) if found is None else found[0]
        if unknown:
            return f"{head}unrecognized keyword arguments: {', '.join(unknown)}"
        given = _described(args, kw) if found is None else found[1]
        return f"{head}{given}, but expected ({sigs[0].text})"
    lines = [f"{head}{_described(args, kw)}, but expected one of:"]
    for sig in sigs:
        lines.append(f" * ({sig.text})")
        found = _mismatch(sig, args, kw)
        if found is not None and found[0]:
            lines.append("      didn't match because some of the keywords were incorrect: "
                         + ", ".join(found[0]))
        elif found is not None:
            lines.append("      didn't match because some of the arguments have invalid "
                         "types: " + found[1])
    return "\n".join(lines) + "\n"
