"""The 175 op forms of ``shared/oracle/op_table.json``, recorded from real PyTorch 2.13, replayed
on our engine (no PyTorch needed: the JSON is the ground truth).

Each record is evaluated the way ``shared/oracle/make_op_table.py`` evaluated it with real torch
(its setup, then its statement, then its expression) and compared on: the error (type and
message) for the forms that raise, warnings, version counters, the output's flags, dtype and
values, the grad_fn's type and name, the ``_saved_*`` slots that hold tensors (shape, dtype,
values) or tensor lists or None (non-tensor attributes are ignored), the ``next_functions``
slots, the canonical graph, and what one backward then a second one do. Creation forms compare
the leaf's flags, dtype and type; the AccumulateGrad record its identity rules.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import graphviz_autograd.torch as ours

from ._op_examples import ORACLE, compact_graph, load_harness

OP_TABLE = ORACLE / "op_table.json"
HARNESS = load_harness()
if HARNESS is None or not OP_TABLE.is_file():
    pytest.skip(f"the oracle's op_table.json / harness.py not found under {ORACLE}",
                allow_module_level=True)
assert HARNESS is not None
H: ModuleType = HARNESS

RECORDS: list[dict[str, Any]] = json.loads(OP_TABLE.read_text(encoding="utf-8"))["records"]
SMALL = 12                      # make_op_table records values of tensors this small only
TENSOR_STATES = ("alive", "freed", "none")
# Forms whose output values come from an unseeded random init (nn.Linear without copy_).
RANDOM_VALUES = {"linear_no_bias"}


def _is_tensor(v: Any) -> bool:
    return bool(H.is_tensor(v))


def _small(t: Any) -> Any:
    return t.detach().tolist() if t.numel() <= SMALL else None


def _error(e: BaseException) -> dict[str, str]:
    return {"error_type": type(e).__name__, "message": H.norm_message(e)}


def _caught(fn: Callable[[], Any]) -> tuple[Any, list[str], dict[str, str] | None]:
    """``fn()``'s value, the warnings it raised, and its error (None when it returned)."""
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            value, error = fn(), None
        except Exception as e:  # every error is an observation
            value, error = None, _error(e)
    return value, [H.norm_message(w.message) for w in ws], error


def _namespace() -> dict[str, Any]:
    return {"torch": ours, "nn": ours.nn, "F": ours.nn.functional}


# -- observing one record's form, in the record's own schema --------------------------------------
def _inputs(ns: dict[str, Any]) -> dict[str, Any]:
    inputs = {k: v for k, v in ns.items() if _is_tensor(v)}
    lin = ns.get("lin")
    if lin is not None:
        inputs["lin.weight"] = lin.weight
        if lin.bias is not None:
            inputs["lin.bias"] = lin.bias
    return inputs


def _saved(fn: Any) -> dict[str, Any]:
    """The ``_saved_*`` slots of ``fn`` that hold a tensor, a tensor list or None."""
    tensors: dict[str, Any] = {}
    lists: dict[str, Any] = {}
    none: list[str] = []
    for name in sorted(n for n in dir(fn) if n.startswith("_saved_")):
        v = getattr(fn, name)
        if v is None:
            none.append(name)
        elif _is_tensor(v):
            tensors[name] = {"shape": list(v.shape), "dtype": str(v.dtype), "values": _small(v),
                             "requires_grad": v.requires_grad}
        elif isinstance(v, list | tuple) and v and all(_is_tensor(x) for x in v):
            lists[name] = [{"shape": list(x.shape)} for x in v]
    return {"saved_tensors": tensors, "saved_tensor_lists": lists, "saved_none": none}


def _slots(fn: Any, inputs: dict[str, Any]) -> list[dict[str, Any]]:
    slots = []
    for i, (node, nr) in enumerate(fn.next_functions):
        ent: dict[str, Any] = {"slot": i, "node": node.name() if node is not None else None,
                               "input_nr": nr}
        if node is not None and hasattr(node, "variable"):
            ent["leaf"] = next((k for k, t in inputs.items() if t is node.variable), "?")
        slots.append(ent)
    return slots


def _after_backward(fn: Any, names: list[str]) -> dict[str, str]:
    states = {}
    for name in names:
        try:
            v = getattr(fn, name)
        except RuntimeError:
            states[name] = "freed"
            continue
        except AttributeError:
            states[name] = "missing"
            continue
        states[name] = "alive" if _is_tensor(v) else "none" if v is None else "readable"
    return states


def _backward(out: Any) -> str | dict[str, str]:
    try:
        ours.autograd.backward(out, ours.ones_like(out))
    except Exception as e:
        return _error(e)
    return "ok"


def observe_form(record: dict[str, Any]) -> dict[str, Any]:
    """What our engine does with an op form, in the fields ``expected_form`` keeps."""
    ns = _namespace()
    exec(record["setup"], ns)
    inputs = _inputs(ns)
    before = {k: v._version for k, v in inputs.items()}

    def run() -> Any:
        if record["statement"]:
            exec(record["statement"], ns)
        return eval(record["expr"], ns)

    out, caught, error = _caught(run)
    if error is not None:
        return {"error": error}
    obs: dict[str, Any] = {"warnings": caught}
    if isinstance(out, tuple):
        out = out[0]
    obs["versions"] = {k: {"before": before.get(k), "after": v._version}
                       for k, v in ns.items() if _is_tensor(v)}
    obs["output"] = {"requires_grad": out.requires_grad, "is_leaf": out.is_leaf,
                     "shape": list(out.shape), "dtype": str(out.dtype), "version": out._version,
                     "values": None if record["id"] in RANDOM_VALUES else _small(out)}
    fn = out.grad_fn
    obs["grad_fn_type"] = type(fn).__name__ if fn is not None else None
    obs["grad_fn_name"] = fn.name() if fn is not None else None
    if fn is None:
        return obs
    obs.update(_saved(fn))
    # NB: non-tensor attributes are not compared, even where ours reads None for them
    non_tensor = set(record.get("saved_non_tensor", {}))
    obs["saved_none"] = [n for n in obs["saved_none"] if n not in non_tensor]
    obs["next_functions"] = _slots(fn, inputs)
    obs["graph"] = H.canonical_graph(fn, list(inputs.items()))
    if out.requires_grad:
        obs["first_backward"] = _backward(out)
        slot_names = [*obs["saved_tensors"], *obs["saved_tensor_lists"], *obs["saved_none"]]
        obs["saved_after_backward"] = _after_backward(fn, sorted(slot_names))
        second = _backward(out)
        if isinstance(second, dict):
            second["message"] = second["message"][:90] + "..."
        obs["second_backward"] = second
    return obs


def expected_form(record: dict[str, Any]) -> dict[str, Any]:
    """The record's ground truth, restricted to what ``observe_form`` compares."""
    if "error" in record:
        return {"error": record["error"]}
    exp: dict[str, Any] = {"warnings": record.get("warnings", [])}
    exp["versions"] = record["versions"]
    exp["output"] = dict(record["output"])
    if record["id"] in RANDOM_VALUES:
        exp["output"]["values"] = None
    exp["grad_fn_type"] = record["grad_fn_type"]
    exp["grad_fn_name"] = record["grad_fn_name"]
    if record["grad_fn_name"] is None:
        return exp
    exp["saved_tensors"] = {
        name: {k: v for k, v in info.items() if k != "source"}
        for name, info in record["saved_tensors"].items()}
    exp["saved_tensor_lists"] = {
        name: [{"shape": x["shape"]} for x in items]
        for name, items in record["saved_tensor_lists"].items()}
    exp["saved_none"] = record["saved_none"]
    exp["next_functions"] = record["next_functions"]
    exp["graph"] = record["graph"]
    if "first_backward" in record:
        exp["first_backward"] = record["first_backward"]
        exp["saved_after_backward"] = {
            k: v for k, v in record["saved_after_backward"].items() if v in TENSOR_STATES}
        exp["second_backward"] = record["second_backward"]
    return exp


def observe_leaf(record: dict[str, Any]) -> dict[str, Any]:
    t, caught, error = _caught(lambda: eval(record["expr"], _namespace()))
    if error is not None:
        return {"error": error}
    obs: dict[str, Any] = {"warnings": caught}
    obs["output"] = {"requires_grad": t.requires_grad, "is_leaf": t.is_leaf,
                     "shape": list(t.shape), "dtype": str(t.dtype), "version": t._version,
                     "python_type": type(t).__name__,
                     "isinstance_Variable": isinstance(t, ours.autograd.Variable)}
    obs["grad_fn_type"] = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    obs["grad_fn_name"] = t.grad_fn.name() if t.grad_fn is not None else None
    grad, grad_warnings, _ = _caught(lambda: t.grad)
    obs["grad"] = None if grad is None else grad.tolist()
    obs["grad_access_warnings"] = grad_warnings
    return obs


def expected_leaf(record: dict[str, Any]) -> dict[str, Any]:
    if "error" in record:
        return {"error": record["error"]}
    return {"warnings": record.get("warnings", []), "output": record["output"],
            "grad_fn_type": record["grad_fn_type"], "grad_fn_name": record["grad_fn_name"],
            "grad": record["grad"], "grad_access_warnings": record.get("grad_access_warnings", [])}


def observe_accumulate_grad(record: dict[str, Any]) -> dict[str, Any]:
    ns = _namespace()
    exec(record["setup"], ns)
    a, y, z = ns["a"], ns["y"], ns["z"]
    acc = y.grad_fn.next_functions[0][0]
    return {
        "grad_fn_type": type(acc).__name__,
        "grad_fn_name": acc.name(),
        "saved_attrs": [n for n in dir(acc) if n.startswith("_saved_")],
        "next_functions": list(acc.next_functions),
        "variable_is_a": acc.variable is a,
        "same_node_for_two_uses_of_a": acc is z.grad_fn.next_functions[0][0],
        "a.grad_fn": a.grad_fn,
        "has_variable_attr_on_MulBackward0": hasattr(y.grad_fn, "variable"),
        "y.grad_fn.next_functions": [[n.name() if n else None, nr]
                                     for n, nr in y.grad_fn.next_functions],
    }


def _accumulate_grad_expected(record: dict[str, Any]) -> dict[str, Any]:
    skip = ("id", "category", "setup", "expr")
    return {k: v for k, v in record.items() if k not in skip}


# -- the test -------------------------------------------------------------------------------------
def _observe(record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    if record["id"] == "AccumulateGrad":
        return _accumulate_grad_expected(record), observe_accumulate_grad(record)
    if record["category"] == "leaf":
        return expected_leaf(record), observe_leaf(record)
    return expected_form(record), observe_form(record)


def _describe(record: dict[str, Any]) -> str:
    stmt = f"{record['statement']!r} then " if record.get("statement") else ""
    return f"{record['id']} ({stmt}{record['expr']!r})"


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_op_form_matches_pytorch(record: dict[str, Any]) -> None:
    expected, got = _observe(record)
    if "error" in got and "error" not in expected:
        pytest.fail(f"{_describe(record)}: ours raised {got['error']['error_type']}: "
                    f"{got['error']['message']}\n  torch gave grad_fn "
                    f"{expected.get('grad_fn_name')!r}")
    diffs = H.diff(expected, got, limit=40)
    if not diffs:
        return
    lines = [f"{_describe(record)} differs from PyTorch 2.13:", *(f"  {d}" for d in diffs)]
    if got.get("graph") != expected.get("graph") and "graph" in got and "graph" in expected:
        lines += ["  our graph:", compact_graph(got["graph"]),
                  "  torch's graph:", compact_graph(expected["graph"])]
    pytest.fail("\n".join(lines), pytrace=False)
