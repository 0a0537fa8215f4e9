"""The freed / alive / modified states in the recorder's snapshots match real PyTorch's, on
every public oracle scenario: around each backward, the graph of each root, as PyTorch shows it
(the oracle's canonical walk) and as the snapshot data describes it."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _markers import requires_torch
from _shared import ORACLE

import graphviz_autograd
import graphviz_autograd.torch as native
from graphviz_autograd.recording import Recording, Snapshot

pytestmark = requires_torch

if not (ORACLE / "harness.py").is_file():
    pytest.skip(f"oracle not found at {ORACLE}", allow_module_level=True)

SCENARIOS = sorted(p.stem for p in (ORACLE / "scenarios").glob("*.py"))


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("oracle_harness_rec", ORACLE / "harness.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


H = _harness()


def _strip(graph: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"name": e["name"], "next": e["next"], "saved": e["saved"]} for e in graph]


def _torch_states(name: str) -> list[list[list[dict[str, Any]]]]:
    """Run the scenario with real torch, taking the canonical graph of every root just before
    and just after each backward call."""
    import torch

    taken: list[list[list[dict[str, Any]]]] = []
    orig_backward, orig_grad = torch.autograd.backward, torch.autograd.grad

    def graphs(roots: Any) -> list[list[dict[str, Any]]]:
        roots = [roots] if isinstance(roots, torch.Tensor) else list(roots or [])
        return [_strip(H.canonical_graph(r.grad_fn)) for r in roots if isinstance(r, torch.Tensor)]

    def backward(tensors: Any, grad_tensors: Any = None, retain_graph: Any = None,
                 create_graph: bool = False, grad_variables: Any = None,
                 inputs: Any = None) -> Any:
        taken.append(graphs(tensors))
        try:
            return orig_backward(tensors, grad_tensors, retain_graph, create_graph,
                                 grad_variables, inputs=inputs)
        finally:
            taken.append(graphs(tensors))

    def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: Any = None,
             create_graph: bool = False, only_inputs: bool = True, allow_unused: Any = None,
             is_grads_batched: bool = False, materialize_grads: bool = False) -> Any:
        taken.append(graphs(outputs))
        try:
            return orig_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             only_inputs, allow_unused, is_grads_batched, materialize_grads)
        finally:
            taken.append(graphs(outputs))

    torch.autograd.backward, torch.autograd.grad = backward, grad
    try:
        H.run_scenario(os.fspath(ORACLE / "scenarios" / f"{name}.py"), torch)
    finally:
        torch.autograd.backward, torch.autograd.grad = orig_backward, orig_grad
    return taken


def _walk(snap: Snapshot, root: str) -> list[dict[str, Any]]:
    """The oracle's canonical walk (pre-order, next_functions order), on snapshot data."""
    by_id = {n.id: n for n in snap.nodes}
    if root not in by_id or by_id[root].name == "torch::autograd::AccumulateGrad":
        return []
    index: dict[str, int] = {}
    entries: list[dict[str, Any] | None] = []
    stack: list[tuple[str, int, list[int | None]]] = []

    def visit(nid: str) -> int:
        index[nid] = len(entries)
        entries.append(None)
        stack.append((nid, 0, []))
        return index[nid]

    visit(root)
    while stack:
        nid, pos, nxt = stack[-1]
        node = by_id[nid]
        if pos < len(node.next):
            stack[-1] = (nid, pos + 1, nxt)
            child = node.next[pos]
            if child is None:
                nxt.append(None)
            elif child in index:
                nxt.append(index[child])
            else:
                nxt.append(visit(child))
            continue
        stack.pop()
        entries[index[nid]] = {"name": node.name, "next": nxt,
                               "saved": {s.name: s.state for s in node.saved}}
    return [e for e in entries if e is not None]


def _native_states(name: str) -> list[list[list[dict[str, Any]]]]:
    with graphviz_autograd.record(names=False, sources=False) as rec:
        H.run_scenario(os.fspath(ORACLE / "scenarios" / f"{name}.py"), native)
    return _per_backward(rec)


def _per_backward(rec: Recording) -> list[list[list[dict[str, Any]]]]:
    by_index = {s.index: s for s in rec.snapshots}
    out = []
    for b in rec.backwards:
        for idx in (b.snapshot_before, b.snapshot_after):
            assert idx is not None
            out.append([_walk(by_index[idx], r) for r in b.roots if r.startswith("n")])
    return out


@pytest.mark.parametrize("name", SCENARIOS)
def test_snapshot_states_match_torch(name: str) -> None:
    expected = [[g for g in graphs if g] for graphs in _torch_states(name)]
    got = [[g for g in graphs if g] for graphs in _native_states(name)]
    assert len(got) == len(expected), f"{len(got)} snapshots around backwards, torch has " \
                                      f"{len(expected)}"
    for i, (e, g) in enumerate(zip(expected, got, strict=True)):
        assert g == e, f"snapshot {i} ({'before' if i % 2 == 0 else 'after'} backward " \
                       f"#{i // 2 + 1}) differs from PyTorch"


def test_there_are_scenarios() -> None:
    assert len(SCENARIOS) >= 50
    assert Path(ORACLE).is_dir()
