"""Record graphviz_autograd/engine/signatures.txt from the installed PyTorch: the signatures of
the torch.* functions and Tensor methods the engine has, as PyTorch's argument parser prints
them, each kept only where the engine's check gives PyTorch's exact message on probe calls.

PyTorch lists a name's signatures itself when a call fits none of several ("invalid combination
of arguments ... expected one of: * (...)"); a name of one signature says only how many
arguments it takes, and its argument types come from its operator schema. Run from the
repository root with real torch installed:

    python scripts/record_signatures.py
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import graphviz_autograd.torch as ours  # noqa: E402
from graphviz_autograd.engine import signatures as S  # noqa: E402
from graphviz_autograd.engine.tensor import Tensor  # noqa: E402

OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else (
    ROOT / "graphviz_autograd" / "engine" / "signatures.txt")
# schema types as PyTorch's parser prints them
PRINTED = {"Tensor": "Tensor", "Scalar": "Number", "int": "int", "SymInt": "int",
           "float": "float", "bool": "bool", "str": "str", "ScalarType": "torch.dtype",
           "Generator": "torch.Generator", "Layout": "torch.layout", "Device": "torch.device",
           "MemoryFormat": "torch.memory_format", "Tensor[]": "tuple of Tensors",
           "int[]": "tuple of ints", "SymInt[]": "tuple of ints", "float[]": "tuple of floats",
           "bool[]": "tuple of bools"}
FACTORY_TAIL = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
                "None, bool pin_memory = None)")
FACTORY_FULL = ("Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
                "torch.device device = None, bool pin_memory = False, bool requires_grad = "
                "False)")


def schemas(name: str) -> list[str]:
    """The operator's overloads taking a tensor (or a size) first, without out= forms."""
    try:
        found = [str(s) for s in torch._C._jit_get_schemas_for_operator("aten::" + name)]
    except RuntimeError:
        return []
    kept = []
    for text in found:
        m = re.match(r"aten::(\w+)(?:\.(\w+))?\((.*)\) -> ", text)
        if m is None:
            continue
        overload, args = m.group(2) or "", m.group(3)
        if "out" in overload or "!)" in args.partition(",")[2] or "Dimname" in args:
            continue                # NB: out= forms write into a later argument
        if overload.endswith("Scalar") or overload in ("Scalar_Tensor", "Tensor_Scalar",
                                                       "Scalar_mode"):
            continue
        first = args.split(",")[0].strip()
        if not first.startswith(("Tensor", "SymInt[] size", "int[] size")):
            continue
        args = re.sub(r"Tensor\([^)]*\)", "Tensor", args)      # Tensor(a!) and the like
        kept.append(f"{name}({args})")
    return kept


def printed(schema: str, method: bool) -> str | None:
    """A schema as PyTorch's parser prints it (None where a type has no printed name)."""
    name, _, rest = schema.partition("(")
    out = []
    for part in S._split(rest[:rest.rindex(")")]):
        if part == "*":
            out.append("*")
            continue
        decl, eq, default = part.partition("=")
        type_, arg = decl.strip().rsplit(" ", 1)
        optional = type_.endswith("?")
        base = re.sub(r"\[\d+\]$", "[]", type_.rstrip("?"))
        if base not in PRINTED:
            return None
        if arg == "self":
            if method:
                continue
            arg = "input"
        value = default.strip() if eq else ("None" if optional else None)
        if value is not None:
            value = {"[]": "None", "2.": "2.0"}.get(value, value)
        out.append(f"{PRINTED[base]} {arg}" + (f" = {value}" if value is not None else ""))
    return f"{name}({', '.join(out)})".replace(FACTORY_TAIL, FACTORY_FULL)


def harvest() -> list[str]:
    names = sorted({n for n in dir(Tensor) if not n.startswith("_") and hasattr(torch.Tensor, n)
                    and callable(getattr(Tensor, n, None))}
                   | {n for n in dir(ours) if not n.startswith("_") and n[0].islower()
                      and hasattr(torch, n) and callable(getattr(ours, n))})
    t = torch.ones(2, 2)
    lines = []
    for name in names:
        for method in (False, True):
            owner: Any = t if method else torch
            if not hasattr(torch.Tensor if method else torch, name) or not hasattr(
                    Tensor if method else ours, name):
                continue
            if method and not callable(getattr(torch.Tensor, name)):
                continue                # NB: a property (imag, grad, ...)
            form = "m:" if method else "fn:"
            try:
                getattr(owner, name)(*([t] * 20))
                continue
            except TypeError as e:
                text = str(e)
            except Exception:
                continue
            if "invalid combination" in text:
                listed = (re.findall(r"^ \* \((.*)\)$", text, re.M)
                          or re.findall(r"but expected \((.*)\)$", text, re.M))
                hidden = "~" if "but expected (" in text else ""
                lines += [f"{form}{hidden}{name}({s})" for s in listed]
                continue
            if "positional argument" not in text and "takes no arguments" not in text:
                continue
            found = re.search(r"takes (\d+) positional", text)
            want = int(found.group(1)) if found else 0
            forms = [p for p in (printed(s, method) for s in schemas(name)) if p]
            if len(forms) > 1:      # NB: one the count names, where the others are hidden
                forms = [p for p in forms if sum(1 for a in S._split(p[p.index("(") + 1:-1])
                                                 if "=" not in a and a != "*") == want]
            if len(forms) == 1:
                lines.append(f"{form}{forms[0]}")
    return lines


def agrees(form: str, name: str, texts: list[str], t: Any) -> bool:
    """Whether the check gives PyTorch's message for each probe call of these signatures."""
    method = form == "m"
    table = S._tables()[method]
    table[name] = [S._parse(x) for x in texts]
    good = {"Tensor": t, "Number": 1, "int": 0, "float": 1.0, "bool": True, "str": "mean",
            "torch.dtype": torch.float32, "tuple of ints": (0,), "tuple of floats": (1.0,),
            "tuple of bools": (True,), "tuple of Tensors": [t, t]}
    fn = getattr(t if method else torch, name)
    for sig in table[name]:
        pos = [p for p in sig.params if not p.kw_only]
        probes: list[tuple[list[Any], dict[str, Any]]] = [([], {"bogus": 1})]
        for k, p in enumerate(pos):
            if any(q.type not in good for q in pos[:k]):
                break
            bad = 1.5 if p.type == "str" else "x"
            probes.append(([good[q.type] for q in pos[:k]] + [bad], {}))
            probes.append(([good[q.type] for q in pos[:k]], {p.name: bad}))
        if all(p.type in good for p in pos):
            probes.append(([good[p.type] for p in pos] + [0], {}))
            probes.append(([good[p.type] for p in pos], {"bogus": 1}))
        for args, kw in probes:
            ours_text = S.check(name, tuple(args), kw, method)
            if ours_text is None:
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fn(*args, **kw)
                theirs = None
            except Exception as e:
                theirs = str(e)
            if theirs and theirs.startswith("Tensor."):
                theirs = "TensorBase." + theirs[len("Tensor."):]
            if theirs != ours_text:
                return False
    return True


def main() -> None:
    S._tables()
    S.Tensor, S._DTYPES = torch.Tensor, torch.dtype      # the check judged on torch's objects
    groups: dict[tuple[str, str], list[str]] = {}
    for line in harvest():
        form, _, text = line.partition(":")
        groups.setdefault((form, text[:text.index("(")].lstrip("~")), []).append(text)
    t = torch.ones(2, 2)
    kept = [f"{form}:{x}" for (form, name), texts in groups.items()
            if agrees(form, name, texts, t) for x in texts]
    OUT.write_text("\n".join(kept) + "\n")
    print(f"{len(kept)} signatures of {len(groups)} names written to {OUT}")


if __name__ == "__main__":
    main()
