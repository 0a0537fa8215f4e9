"""Helpers for the op-table tests: the oracle harness, the fixed example inputs, and running a
snippet of torch code on either engine (ours or real PyTorch).

A snippet is one expression (``"a * b"``) or several statements whose last one is the
expression giving the result (``"t = a.clone(); t.zero_(); t"``). It sees ``torch``, ``F``
(``torch.nn.functional``), ``dgrad`` (a create-graph gradient, to reach the nodes that only
backward formulas create) and the inputs of ``INPUTS`` by name.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal

import numpy as np
from _shared import ORACLE as _SHARED_ORACLE

__all__ = ["INPUTS", "ORACLE", "InputSpec", "build_inputs", "compact_graph", "input_names",
           "load_harness", "run_snippet", "to_array"]

ORACLE = _SHARED_ORACLE


def load_harness() -> ModuleType | None:
    """``shared/oracle/harness.py`` as a module, or None where the oracle is not checked out."""
    path = ORACLE / "harness.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("oracle_harness", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- inputs ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class InputSpec:
    """One named example input: its values, element kind and whether it requires grad."""

    values: Any
    kind: Literal["float", "int", "bool"] = "float"
    requires_grad: bool = True

    def array(self, float_dtype: Any) -> np.ndarray:
        dtype = {"float": float_dtype, "int": np.int64, "bool": np.bool_}[self.kind]
        return np.asarray(self.values, dtype=dtype)


def _grid(shape: tuple[int, ...], fn: Callable[[np.ndarray], np.ndarray]) -> list[Any]:
    flat = fn(np.arange(int(np.prod(shape)), dtype=np.float64))
    values: list[Any] = np.round(flat, 4).reshape(shape).tolist()
    return values


# Values are distinct (no ties for max/min/maximum), away from 0 (abs, relu, sign), from
# integers and halves (floor, round, ...), from pi/2 (tan), and inside each op's domain.
INPUTS: dict[str, InputSpec] = {
    "a": InputSpec([0.6, -1.3, 2.2]),                              # mixed signs
    "b": InputSpec([1.4, 0.7, -0.9]),
    "c": InputSpec([0.3, -0.8, 1.9], requires_grad=False),         # no grad
    "p": InputSpec([0.4, 1.3, 2.7]),                               # positive (log, sqrt, pow)
    "q": InputSpec([0.2, 0.55, 0.85]),                             # probabilities (bce input)
    "r": InputSpec([0.0, 1.0, 0.3], requires_grad=False),          # bce target
    "s": InputSpec(1.5),                                           # 0-dim
    "bb": InputSpec([0.25, -0.75]),                                # a bias of size 2
    "A": InputSpec([[0.3, -1.2, 2.6], [1.7, -0.4, 0.9]]),
    "M": InputSpec([[-0.7, 1.1, 0.2], [0.8, -1.6, 1.4]]),          # same shape as A
    "B": InputSpec([[0.5, -1.1], [1.3, 0.2], [-0.6, 0.9]]),
    "N": InputSpec([[0.6, -1.1], [1.3, 0.35]]),                    # 2x2
    "U": InputSpec([[0.3, -0.7, 1.2]]),                            # 1x3
    "X": InputSpec(_grid((2, 2, 3), lambda k: (k - 5.5) * 0.3)),
    "Y": InputSpec(_grid((2, 3, 2), lambda k: np.cos(k + 0.3) * 1.3)),
    # an image batch (1, 2, 4, 4) and a conv weight (3, 2, 2, 2), values distinct (max pools)
    "C": InputSpec(_grid((1, 2, 4, 4), lambda k: np.sin(k * 1.7 + 0.2) * 1.5)),
    "W": InputSpec(_grid((3, 2, 2, 2), lambda k: np.cos(k * 0.9 + 0.4))),
    "I": InputSpec([[2, 0], [1, 1]], "int", requires_grad=False),  # gather index into A, dim 1
    "K": InputSpec([[True, False, True], [False, True, False]], "bool", requires_grad=False),
    "tgt": InputSpec([2, 0], "int", requires_grad=False),          # class targets for A
    "wt": InputSpec([0.2, 1.0, 0.7], requires_grad=False),         # class weights
}


def input_names(code: str) -> list[str]:
    """The example inputs a snippet refers to, in ``INPUTS`` order."""
    used = {n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name)}
    return [name for name in INPUTS if name in used]


def build_inputs(torch: ModuleType, names: Iterable[str], float_dtype: Any = np.float32,
                 overrides: Mapping[str, np.ndarray] | None = None) -> dict[str, Any]:
    """Fresh leaf tensors of ``torch`` for ``names`` (``overrides`` replaces values)."""
    out: dict[str, Any] = {}
    for name in names:
        spec = INPUTS[name]
        arr = spec.array(float_dtype)
        if overrides is not None and name in overrides:
            arr = np.asarray(overrides[name], dtype=arr.dtype)
        t = torch.tensor(arr.tolist(), dtype=_torch_dtype(torch, arr.dtype))
        if spec.requires_grad:
            t.requires_grad_()
        out[name] = t
    return out


def _torch_dtype(torch: ModuleType, dtype: np.dtype) -> Any:
    return {np.dtype(np.float32): torch.float32, np.dtype(np.float64): torch.float64,
            np.dtype(np.int64): torch.int64, np.dtype(np.bool_): torch.bool}[np.dtype(dtype)]


# -- running a snippet ----------------------------------------------------------------------------
def run_snippet(torch: ModuleType, code: str, inputs: Mapping[str, Any]) -> Any:
    """Run ``code`` with ``torch`` and the inputs in scope; return its last expression's value."""

    def dgrad(out: Any, wrt: Any, upstream: Any = None) -> Any:
        return torch.autograd.grad(out, wrt, upstream, create_graph=True)[0]

    namespace: dict[str, Any] = {"torch": torch, "F": torch.nn.functional, "dgrad": dgrad,
                                 **inputs}
    tree = ast.parse(code)
    last = tree.body[-1]
    if not isinstance(last, ast.Expr):
        raise ValueError(f"the snippet must end with an expression: {code!r}")
    body = ast.Module(body=tree.body[:-1], type_ignores=[])
    exec(compile(body, "<example>", "exec"), namespace)
    return eval(compile(ast.Expression(last.value), "<example>", "eval"), namespace)


def to_array(t: Any) -> np.ndarray:
    """A tensor of either engine as a float64 numpy array."""
    # NB: clone(): real torch may hand back an "efficient zero" tensor (sgn's gradient), whose
    # tolist() raises
    return np.asarray(t.detach().clone().tolist(), dtype=np.float64)


def compact_graph(graph: list[dict[str, Any]]) -> str:
    """A canonical graph (``harness.canonical_graph``) one node a line, for failure messages."""
    lines = []
    for e in graph:
        saved = ", ".join(f"{k}:{v}" for k, v in e["saved"].items())
        leaf = f" leaf={e['leaf']}" if "leaf" in e else ""
        lines.append(f"  [{e['index']}] {e['name']} -> {e['next']}"
                     f"{'  saved{' + saved + '}' if saved else ''}{leaf}")
    return "\n".join(lines)
