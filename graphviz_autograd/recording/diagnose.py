"""Plain explanations of failed (or predicted-to-fail) backwards, with the fixes that apply.

A diagnosis says what failed, at which node and buffers, which earlier backward freed them (or
which in-place op changed them), which variable and line built that node, and the fixes, best
first: recompute inside the loop, ``detach()``, ``retain_graph=True`` on the earlier call (with
its memory cost), one backward over the summed losses, no in-place change of a saved tensor,
plain numbers (``loss.item()``) where losses already backwarded are kept and summed.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import linecache
import math
import os
import re
from collections.abc import Container, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import pairwise, takewhile
from typing import TYPE_CHECKING, Any, NamedTuple

from . import frames
from .predict import modified_in_unpack_order
from .snapshot import NodeInfo, Prediction, Snapshot, TensorInfo

if TYPE_CHECKING:
    from .recorder import BackwardRecord, Recording

__all__ = ["Fix", "Diagnosis", "diagnose", "explain", "by_snapshot"]


@dataclass(frozen=True)
class Fix:
    key: str           # recompute, detach, retain_graph, sum_losses, backward_once, out_of_place,
    #                    backward_before_step, differentiable_form, item,
    #                    deterministic_checkpoint, grad_enabled, requires_grad, scalar_loss,
    #                    already_included, no_retain_graph, fresh_list, one_grad_call,
    #                    make_leaf, parameter, no_grad, out_of_place, clone, view_with_grad,
    #                    retain_grad, new_leaf, backward_first, keep_graph, freeze, float,
    #                    zero_grad, accumulate, create_graph, step, optimizer,
    #                    function_gradients, hook_shape, grad_input, no_create_graph, list,
#                    hook_once
    title: str
    detail: str


@dataclass(frozen=True)
class Diagnosis:
    backward: int | None          # the backward that failed, or None for a prediction
    predicted: bool
    # "freed" | "modified" | "no_derivative" | "other" | "growth" | "unneeded_retain" | "raised"
    #   | "unreached" | "stale_grad" | "constant_derivative" | "never_stepped" | "leaf_loss"
    #   | "remade_parameter" | "thrown_grad" | "self_compared" | "piled_hooks"
    kind: str
    node: str
    node_name: str
    buffers: list[str]
    freed_by: list[int]
    built_by: dict[str, Any]      # {"labels": [...], "source": {file, line, code} | None}
    summary: str
    fixes: list[Fix] = field(default_factory=list)
    snapshot: int | None = None

    def text(self) -> str:
        if not self.fixes:
            return self.summary
        lines = [self.summary, "", "Fixes, best first:"]
        lines += [f"  {i}. {f.title}\n     {f.detail}" for i, f in enumerate(self.fixes, 1)]
        return "\n".join(lines)


def _names(recording: Recording, snap: Snapshot, node: NodeInfo) -> tuple[list[str], str]:
    """The user's names for a node: bound now; else bound in an earlier snapshot (a loop has
    rebound the variable since); else those of the nearest named node above it."""
    if node.labels:
        return list(node.labels), "now"
    for earlier in reversed(list(recording.snapshots[:snap.index])[-64:]):
        for n in earlier.nodes:
            if n.id == node.id and n.labels:
                return list(n.labels), "earlier"
    parents: dict[str, list[NodeInfo]] = {}
    for n in snap.nodes:
        for m in n.next:
            if m is not None:
                parents.setdefault(m, []).append(n)
    seen, frontier = {node.id}, [node]
    throwaway: list[str] | None = None
    while frontier:
        nxt = []
        named = []
        for n in frontier:
            for p in parents.get(n.id, []):
                if p.labels:
                    # NB: a node named only by throwaways (``_``, ``_h``) is passed through:
                    # the name the user kept is further up (``out, _ = gru(x)``)
                    kept = [x for x in p.labels if not x.startswith("_")]
                    named.append(kept or list(p.labels))
                    if kept:
                        continue
                if p.id not in seen:
                    seen.add(p.id)
                    nxt.append(p)
        kept_names = [labels for labels in named if not labels[0].startswith("_")]
        if kept_names:
            # NB: of names as near, by name: the same choice whatever order the engine
            # listed the nodes in
            return min(kept_names), "graph"
        if named and throwaway is None:
            throwaway = min(named)
        frontier = nxt
    return (throwaway, "graph") if throwaway is not None else ([], "none")


def _its_saved(names: str) -> str:
    """"its saved self, other"; a custom Function's buffers are already "saved_tensors[i]"."""
    return f"its {names}" if names.startswith("saved_tensors") else f"its saved {names}"


def _what(node: NodeInfo, names: tuple[list[str], str]) -> str:
    labels, how = names
    if not labels:
        label = "of an unnamed tensor"
    elif how == "graph":
        label = f"in the graph of `{labels[0]}`"
    elif how == "earlier":
        label = f"of `{labels[0]}` (as it was then)"
    else:
        label = f"of `{labels[0]}`"
    src = node.source
    where = f" ({_line(src, ': ')})" if src else ""
    return f"{node.name} {label}{where}"


def _line(src: dict[str, Any], sep: str = " ") -> str:
    """``line 7 (`loss.backward()`)``, or ``line 7: `...` `` with ``sep=": "``; the line alone
    where its text is unknown (code typed at a prompt); ``lines 7-9`` for a statement written
    over several."""
    code = src.get("code")
    at = _lines(src)
    if not code:
        return at
    return f"{at}: `{code}`" if sep == ": " else f"{at} (`{code}`)"


def _lines(src: dict[str, Any]) -> str:
    """``line 7``, or ``lines 7-9`` where the statement there spans three (as the user's file
    still reads: a recording loaded without it says ``line 7``); ``line 7 of steps.py`` in
    another file than the script's."""
    first, last, code = frames.statement_at(src["file"], src["line"])
    file = src.get("file") or ""
    home = _HOME.get()
    of = f" of {os.path.basename(file)}" if home and file != home and \
        file.endswith(".py") and os.path.isfile(file) else ""
    if last > first and first == src["line"] and code == src.get("code"):
        return f"lines {first}-{last}{of}"
    return f"line {src['line']}{of}"


def _place(file: str, line: int) -> dict[str, Any]:
    """The statement at ``line`` of ``file`` as a source record: its first line and its code
    (on one line)."""
    first, _, code = frames.statement_at(file, line)
    return {"file": file, "line": first, "code": code}


def _cap(text: str) -> str:
    """``text`` to start a sentence (``Line 7 of steps.py``)."""
    return text[:1].upper() + text[1:]


def _call(rec: BackwardRecord | None) -> str:
    if rec is None:
        return "an earlier backward"
    src = rec.source
    where = f" at {_line(src)}" if src else ""
    via = f", run by `{rec.via}`," if rec.via else ""
    return f"backward #{rec.number}{via}{where}"


def _bytes(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} bytes"


def _fed_back(code: str | None) -> list[str]:
    """The variables a line both assigns and reads: ``h = torch.tanh(x @ W + h @ U)`` gives
    ``h``; ``out, state = lstm(x, state)`` gives ``state``; ``out, (h, c) = lstm(x, (h, c))``
    gives ``h`` and ``c``; ``out, self.hidden = self.lstm(x, self.hidden)`` gives
    ``self.hidden``."""
    try:
        tree = ast.parse((code or "").strip())
    except SyntaxError:
        return []
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign):
        return []
    line = tree.body[0]
    read = {name for n in ast.walk(line.value) if (name := _dotted(n))}
    # NB: a write into a slice feeds the tensor back too (``protos[c] = 0.9 * protos[c] + ...``)
    names = [name for t in line.targets for name in _stored(t)] + [
        name for t in line.targets if isinstance(t, ast.Subscript) and (name := _dotted(t.value))]
    return [n for n in dict.fromkeys(names) if n in read]


def _decays(code: str | None, name: str) -> bool:
    """Whether the line ``code`` scales what ``name`` held by a constant below 1 (``0.9 *
    protos[c] + 0.1 * f``, ``x * 0.99 + ...``): a moving average, updated step after step."""
    try:
        tree = ast.parse((code or "").strip())
    except SyntaxError:
        return False
    for n in ast.walk(tree):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
            for c, x in ((n.left, n.right), (n.right, n.left)):
                if isinstance(c, ast.Constant) and isinstance(c.value, float) and \
                        0 < c.value < 1 and name in {_dotted(m) for m in ast.walk(x)}:
                    return True
    return False


def _dotted(node: ast.AST) -> str | None:
    """``h`` or ``self.hidden`` (a name, or attributes of a name), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _kept_losses(snap: Snapshot, root: str | None, first: BackwardRecord | None) -> list[str]:
    """The names of the roots of backward ``first`` (losses it ran through) that the graph of
    ``root`` holds, ``root`` aside."""
    if root is None or first is None:
        return []
    inside = {n.id: n for n in _subgraph(snap, root)}
    # NB: a plain name first (``loss`` rather than ``history[1]``)
    return [min(inside[r].labels, key=lambda x: ("[" in x or "." in x, x))
            if inside[r].labels else "loss" for r in first.roots if r != root and r in inside]


def _total_not_reset(snap: Snapshot, root: NodeInfo | None, first: BackwardRecord | None
                     ) -> str | None:
    """The variable a line adds losses to (``running += loss``, ``running = running + loss``),
    where both this graph's root and a root of backward ``first`` were built by that line, and
    the line added to it more than once since: a total backwarded once per several steps (as
    in gradient accumulation), then added to again. (A total backwarded at every step is a
    log of the losses kept with their graphs: to keep as numbers.)"""
    if root is None or root.source is None or first is None:
        return None
    src = root.source

    def here(n: NodeInfo) -> bool:
        return n.source is not None and (n.source["file"], n.source["line"]) == \
            (src["file"], src["line"])
    by_id = {n.id: n for n in snap.nodes}
    same = any(here(by_id[r]) for r in first.roots if r in by_id and r != root.id)
    added = sum(here(n) and n.created_by >= first.number for n in _subgraph(snap, root.id))
    code = src.get("code") or ""
    if not same or added < 2:
        return None
    try:
        line = ast.parse(code.strip()).body
    except SyntaxError:
        return None
    if len(line) == 1 and isinstance(line[0], ast.AugAssign):
        return _dotted(line[0].target)
    fed = _fed_back(code)
    return fed[0] if fed else None


def _container(labels: list[str]) -> str | None:
    """``history`` where every name is an entry of it (``history[3]``), else None."""
    boxes = {m.group(1) if (m := re.fullmatch(r"(.+)\[\d+\]", x)) else None for x in labels}
    return boxes.pop() if len(boxes) == 1 and None not in boxes else None


def _assigned(code: str | None) -> str | None:
    """The variable a line assigns (``val_loss = f(x)`` gives ``val_loss``), if one."""
    try:
        body = ast.parse((code or "").strip()).body
    except SyntaxError:
        return None
    if len(body) == 1 and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1:
        return _dotted(body[0].targets[0])
    return None


ACCUMULATE = "torch::autograd::AccumulateGrad"


def _not_a_leaf(snap: Snapshot, node: NodeInfo, name: str) -> str | None:
    """``torch.randn(3, 3) * 0.01`` where ``name`` is a tensor one line made from a leaf that
    requires grad and that line alone (``w = torch.randn(3, 3, requires_grad=True) * 0.01``,
    ``.double()``, ``.to(device)``): its value with ``requires_grad`` taken out. ``name`` is not
    a leaf, its ``.grad`` stays None and its graph is shared by every later loss. None where
    that is not the story (a leaf with a name of its own, a second line in its graph)."""
    src = node.source
    code = (src or {}).get("code") or ""
    if src is None or "requires_grad" not in code or _assigned(code) != name:
        return None
    leaves = 0
    for n in _subgraph(snap, node.id):
        if n.name == ACCUMULATE:
            if n.labels:
                return None
            leaves += 1
        elif n.source is None or (n.source["file"], n.source["line"]) != \
                (src["file"], src["line"]):
            return None
    if not leaves:
        return None
    line = ast.parse(code.strip()).body[0]      # (an assignment: ``_assigned``)
    assert isinstance(line, ast.Assign)
    return ast.unparse(_Without({"requires_grad_"}, keyword="requires_grad").visit(line.value))


class _Without(ast.NodeTransformer):
    """An expression with some no-argument method calls taken out (``x.detach()`` gives
    ``x``), and some keyword arguments and attributes too (``requires_grad=True``,
    ``x.data``)."""

    def __init__(self, methods: Container[str], keyword: str = "", attribute: str = "") -> None:
        self.methods, self.keyword, self.attribute = methods, keyword, attribute

    def visit_Call(self, call: ast.Call) -> ast.AST:
        self.generic_visit(call)
        call.keywords = [k for k in call.keywords if k.arg != self.keyword]
        f = call.func
        if isinstance(f, ast.Attribute) and f.attr in self.methods and not call.args:
            return f.value
        return call

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        return node.value if node.attr == self.attribute else node


def _subgraph(snap: Snapshot, root: str) -> list[NodeInfo]:
    by_id = {n.id: n for n in snap.nodes}
    seen, stack, out = set(), [root], []
    while stack:
        nid = stack.pop()
        if nid in seen or nid not in by_id:
            continue
        seen.add(nid)
        out.append(by_id[nid])
        stack.extend(m for m in by_id[nid].next if m is not None)
    return out


def _snapshot(recording: Recording, index: int | None) -> Snapshot | None:
    """The snapshot numbered ``index``, if the recording kept it."""
    return next((s for s in recording.snapshots if s.index == index), None) \
        if index is not None else None


def _named_node(snap: Snapshot, node: NodeInfo, name: str) -> NodeInfo:
    """The node ``name`` is the user's name for: ``node``, or the one above it that holds
    the name (the failing node may be inside its graph: a layer's inner op)."""
    return node if name in node.labels else next(
        (n for n in snap.nodes if name in n.labels), node)


def _leaves(snap: Snapshot, node: str) -> set[str]:
    """The leaves (tensor ids) behind ``node``."""
    return {n.variable for n in _subgraph(snap, node) if n.variable}


def _accumulated(b: BackwardRecord) -> set[str]:
    """The leaves (tensor ids) backward ``b`` gave gradients to."""
    return {st.accumulated["tensor"] for st in b.steps if st.accumulated}


def _listed(names: Sequence[str | None]) -> str:
    """```w`, `b`` ``, the first four and how many more (a leaf with no name: "a leaf")."""
    return ", ".join(f"`{x}`" if x else "a leaf" for x in names[:4]) + (
        f" and {len(names) - 4} more" if len(names) > 4 else "")


def _labelled(ts: list[TensorInfo]) -> list[str | None]:
    return [t.label for t in ts]


def _parsed_file(file: str) -> ast.Module | None:
    """A user's file, read again (a notebook cell's text too), or None: parsed once, shared."""
    return frames.parsed(file)


class _Queried(NamedTuple):
    """A leaf's gradient read between two backwards of one loss, into the later one's loss
    (an adversarial example made from ``x.grad``)."""

    leaf: str                     # ``x``
    line: dict[str, Any]          # the line that reads ``x.grad``
    rewritten: str                # that line reading ``x_grad`` instead
    call: str                     # backward #k's line as an ``autograd.grad`` call of ``x``


def _cleared(first: BackwardRecord | None, then: BackwardRecord | None) -> bool:
    """Whether a ``zero_grad()`` call runs between the lines of two backwards (in the loop or
    function around the later one)."""
    if first is None or then is None or not first.source or not then.source:
        return False
    lo, hi = first.source["line"], then.source["line"]
    return any(lo < line < hi and method == "zero_grad" and always
               for line, method, _, always in _optimizer_calls(then.source))


def _queried(snap: Snapshot, first: BackwardRecord, then: BackwardRecord) -> _Queried | None:
    """``loss.backward()`` for a leaf's ``.grad`` that is not a parameter's (``x_adv = x + eps *
    x.grad.sign()``), then a backward of a loss built from what that line made and holding
    ``loss`` again (``(loss + adv_loss).backward()``): the line that reads it, and backward #k
    asking for that gradient alone, keeping the graph."""
    a, b = first.source, then.source
    loss = _loss_of(a) if a else None
    if first.api != "backward" or not a or not b or loss is None or a["file"] != b["file"] \
            or a["line"] >= b["line"]:
        return None
    tree = _parsed_file(a["file"])
    if tree is None or _scope_of(tree, a["line"]) is not _scope_of(tree, b["line"]):
        return None
    end = frames.statement_at(a["file"], a["line"])[1]
    leaves = {t.label for t in snap.tensors if t.label and t.is_leaf and t.requires_grad}
    steps = sorted((n for n in ast.walk(_scope_of(tree, a["line"]))
                    if isinstance(n, ast.Assign) and end < n.lineno < b["line"]),
                   key=lambda n: n.lineno)
    for i, n in enumerate(steps):
        read = next((base for m in ast.walk(n.value) if isinstance(m, ast.Attribute) and
                     m.attr == "grad" and (base := _dotted(m.value)) in leaves), None)
        if read is None or "." in read:
            continue              # (a module's parameter: ``model.fc.weight.grad``)
        # NB: what carries the values on, to the later backward's line
        carried = {x for t in n.targets for x in _stored(t)}
        for m in steps[i + 1:]:
            if carried & {x for e in ast.walk(m.value) if (x := _dotted(e))}:
                carried.update(x for t in m.targets for x in _stored(t))
        root = _root_of(then)
        if root is None or not carried & {x for e in ast.walk(root) if (x := _dotted(e))}:
            return None
        grad = f"{read}_grad"
        place = _place(a["file"], n.lineno)
        text = place["code"]
        try:
            stmt = ast.parse(text.strip()).body[0]
        except (SyntaxError, IndexError):
            return None
        for e in ast.walk(stmt):
            for slot, value in ast.iter_fields(e):
                if isinstance(value, ast.Attribute) and value.attr == "grad" and \
                        _dotted(value.value) == read:
                    setattr(e, slot, ast.Name(grad, ast.Load()))
        return _Queried(read, place,
                        ast.unparse(stmt), f"({grad},) = torch.autograd.grad({loss}, {read}, "
                        "retain_graph=True)")
    return None


def _with_method(code: str | None, name: str, method: str) -> str | None:
    """The one-statement line ``code`` with each read of ``name`` made ``name.method()``, or
    None where it has none."""
    try:
        tree = ast.parse((code or "").strip())
    except SyntaxError:
        return None
    if len(tree.body) != 1:
        return None
    changed = _Detached(name, method=method)
    line = changed.visit(tree.body[0])
    return ast.unparse(line) if changed.changed else None


@dataclass
class _Step:
    """Two losses of one step share a part (a GAN's ``fake`` in the discriminator's loss and
    the generator's): what to say, and the fixes before and after ``retain_graph``."""

    summary: str
    before: list[Fix]
    after: list[Fix]


def _two_losses(recording: Recording, snap: Snapshot, node: NodeInfo, name: str,
                first: BackwardRecord, current: BackwardRecord, root: NodeInfo | None,
                built_before: bool = False) -> _Step | None:
    """Backward ``current`` fails at ``node``, which backward ``first`` ran, from another line,
    in the same step (both losses built before ``first`` ran: ``built_before``; else ``node``
    built inside the loop that calls ``first``, or with no loop): two losses share it. Where
    ``first``'s graph enters the shared part is found (``advantage`` in an actor's loss, a
    GAN's ``fake`` in the discriminator's). If the gradients ``first`` sent through it into
    leaves were cleared before ``current`` (``zero_grad()``: a GAN's generator), ``first``
    should not have reached it: ``.detach()`` it in its loss. Else both losses train it: one
    backward of their sum (an advantage or a baseline, which the actor's loss is not to train:
    detach). None where that is not the story."""
    a, b, src = first.source, current.source, node.source
    if not a or not b or _stack(first) == _stack(current):
        return None
    if not built_before and (not src or not _same_step(src, _in_file(first, src["file"]))):
        return None
    k = first.number
    by_id = {n.id: n for n in snap.nodes}
    tops = _frontier(recording, snap, first, root.id if root is not None else None)
    top = by_id.get(next(iter(tops))) if len(tops) == 1 else None
    label = _plain(top.labels) if top is not None else None
    if top is not None and label is not None:
        name, readers = label, tops[top.id]
    else:
        top = _named_node(snap, node, name)
        readers = tops.get(top.id, [])
    behind = _leaves(snap, top.id)
    everything = _accumulated(first)
    sent = everything & behind
    # NB: all backward #k did went through it: it cannot stop there
    whole = bool(everything) and everything <= behind
    tensors = {t.id: t for t in snap.tensors}
    cleared = [tensors[t] for t in sorted(sent) if t in tensors and tensors[t].grad is None]
    thrown = bool(sent) and len(cleared) == len(sent)
    if thrown and whole:
        return None
    # NB: backward #k enters the shared part at more than one node (an actor's loss reads a
    # shared trunk's output and the advantage): one ``.detach()`` leaves the rest shared
    entries = [_plain(by_id[t].labels) or by_id[t].name for t in tops if t in by_id]
    several = len(entries) > 1
    if thrown and several:
        return None
    loss1 = next((by_id[r].labels[0] for r in first.roots if r in by_id and by_id[r].labels),
                 None) or _loss_of(a) or "loss1"
    loss2 = (root.labels[0] if root is not None and root.labels else None) or _loss_of(b) or \
        "loss2"
    summary = "" if built_before else (
        f" Backward #{k} and this one are two losses of one step that share `{name}` and "
        f"the graph that builds it: backward #{k} ran through it and freed its buffers.")
    if thrown:
        summary += (f" Backward #{k} also sent gradients through `{name}` into "
                    f"{_listed(_labelled(cleared))}, "
                    "and they were cleared (`.grad` is None) before this backward: that part "
                    "of its work was thrown away.")
    lines = list({(n.source["file"], n.source["line"]): n.source
                  for n in readers if n.source}.values())
    rewritten = _with_method(lines[0].get("code"), name, "detach") \
        if len(lines) == 1 and _plain([name]) else None
    if rewritten is not None:
        how = f"{_cap(_lines(lines[0]))}: `{rewritten}`."
    else:
        where = f" ({', '.join(_line(x) for x in lines)})" if lines else ""
        how = f"Where `{loss1}` reads `{name}`{where}, read `{name}.detach()`."
    weight = any(w in name.lower() for w in _WEIGHT_WORDS)
    fake = any(w in name.lower() for w in _GAN_WORDS)
    why = (", as its gradients there were thrown away anyway." if thrown else
           f": `{loss1}` no longer trains what builds `{name}`, as an actor's loss must not "
           "train the critic through an advantage or a baseline." if weight else
           f": `{loss1}` no longer trains what builds `{name}`, as a discriminator's loss "
           "must not train the generator." if fake else
           f": do this only if `{loss1}` should not train what builds `{name}` (it changes "
           "the gradients).")
    detach = Fix("detach", f"Use `{name}.detach()` in `{loss1}`",
                 how + f" Backward #{k} then stops at `{name}` and leaves its graph to this "
                 "backward" + why)
    if thrown:
        code = src.get("code") if src and top is node else top.source.get("code") \
            if top.source else None
        recompute = Fix("recompute", f"Build `{name}` again for this loss",
                        f"Run `{code or name}` again before "
                        f"{_line(_in_file(current, src['file']) if src else b)}, so this "
                        "backward has "
                        "a graph of its own (that part of the forward then runs twice).")
        return _Step(summary, [detach, recompute], [])
    # NB: with several entries, the summed backward is the fix: when to run it, and what the
    # actor's (or the discriminator's) loss is not to train
    kept = ("an actor's loss must not train the critic" if weight else
            "a discriminator's loss must not train the generator" if fake else None)
    total = Fix("sum_losses", "Sum the losses and backward once",
                ("Build both losses, then " if not built_before else "") +
                f"`({loss1} + {loss2}).backward()`" + (
                    ", after every optimizer's `zero_grad()` and before any `step()`: the "
                    "shared part runs once, and each parameter gets the sum of both gradients."
                    + (f" Where `{loss1}` reads `{name}`, read `{name}.detach()` (there only: "
                       f"`{loss2}` needs its graph), as {kept}." if kept else "")
                    if several else ": the shared part runs once, and each parameter gets the "
                    "sum of both gradients, as the two backwards give."))
    if several:
        summary += (f" Backward #{k} enters that part at "
                    f"{_both(entries) if len(entries) < 4 else _listed(entries)}: a `.detach()` "
                    "at one of them leaves the rest shared, so it does not clear this error.")
        return _Step(summary, [total], [])
    if (weight or fake) and not whole:
        return _Step(summary, [detach, total], [])
    return _Step(summary, [total], [] if whole else [detach])


# NB: what weights a policy-gradient loss and is trained by another (the critic's) loss
_WEIGHT_WORDS = ("advantage", "baseline", "value", "return", "td_target")
# NB: a generator's output, which a discriminator's loss is not to train
_GAN_WORDS = ("fake", "generated", "gen_")


def _plain(labels: list[str]) -> str | None:
    """The first of a node's names that is a variable or an attribute (``advantage``, not
    ``losses[0]``)."""
    return next((x for x in labels if re.fullmatch(r"[A-Za-z_][\w.]*", x)), None)


def _frontier(recording: Recording, snap: Snapshot, first: BackwardRecord, root: str | None
              ) -> dict[str, list[NodeInfo]]:
    """Where the graph of backward ``first`` enters the part it shares with the graph of
    ``root``: each top node of the shared part (accumulators aside), with the nodes of
    ``first``'s graph that read it."""
    ids = {n.id for n in snap.nodes}
    graph = snap
    if not all(r in ids for r in first.roots):
        # NB: its roots are gone now (rebound): its graph as it was before it ran
        graph = _snapshot(recording, first.snapshot_before) or snap
    mine = {n.id: n for r in first.roots for n in _subgraph(graph, r)}
    theirs = {n.id for n in _subgraph(snap, root)} if root is not None else set()
    shared = {i for i, n in mine.items() if i in theirs and n.name != ACCUMULATE}
    tops: dict[str, list[NodeInfo]] = {}
    for n in mine.values():
        if n.id not in shared:
            for m in n.next:
                if m in shared:
                    tops.setdefault(m, []).append(n)
    return tops


def _without_graph(name: str, code: str | None) -> Fix:
    """Build ``name`` with no graph (what builds it is not trained): its line rewritten."""
    built_line = _assigned(code) == name and code is not None
    rewritten = f"`{name} = {_then(code.split('=', 1)[1].strip(), 'detach')}`" \
        if built_line and code is not None else f"`{name}.detach()`"
    return Fix("detach", f"Build `{name}` without a graph",
               f"{rewritten} (or build it under `torch.no_grad()`): what builds `{name}` is "
               "not trained, so its graph only holds memory and frees at the first backward.")


def _feeder(snap: Snapshot, node: NodeInfo, name: str, root: str | None,
            first: BackwardRecord) -> tuple[list[str], dict[str, Any], bool] | None:
    """The line that carries ``node`` (named ``name``) from one step into the next, where it
    is not the node's own: a node above it whose line feeds a variable back into itself
    while keeping ``name`` (``memory = torch.cat([feat,
    memory])``: True, ``name`` is held); else a line of the loop around ``first`` that feeds
    ``name`` itself back through a call (``h = cell(x, h)``: False). The variables fed back,
    and the line."""
    if root is not None:
        fed_of: dict[str | None, list[str]] = {}     # (a graph's nodes share a few lines)
        for n in _subgraph(snap, root):
            if n.id == node.id or n.source is None:
                continue
            code = n.source["code"]
            if code not in fed_of:
                fed_of[code] = _fed_back(code)
            fed = fed_of[code]
            if fed and name not in fed and name in _reads(n.source["code"]) and \
                    any(m.id == node.id for m in _subgraph(snap, n.id)):
                return fed, n.source, True
    if first.source is None or node.source is None:
        return None
    call = _in_file(first, node.source["file"])
    found = _loop_around(node.source, call)
    if found is None or found[1] is None or _in_body(found[1], node.source["line"]):
        return None
    base = re.split(r"[\[.]", name, maxsplit=1)[0]
    for stmt in ast.walk(found[1]):
        if isinstance(stmt, ast.Assign) and _in_body(found[1], stmt.lineno):
            fed = _fed_back(ast.unparse(stmt))
            if base in fed:
                return fed, _place(call["file"], stmt.lineno), False
    return None


def _reads(code: str | None) -> set[str]:
    """The names and dotted attributes a line reads."""
    try:
        tree = ast.parse((code or "").strip())
    except SyntaxError:
        return set()
    return {name for n in ast.walk(tree) if isinstance(getattr(n, "ctx", None), ast.Load)
            and (name := _dotted(n))}


def _steps_behind(recording: Recording, snap: Snapshot, node: NodeInfo, name: str,
                  first: BackwardRecord) -> tuple[set[str], set[str], dict[str, TensorInfo]] \
        | None:
    """Of the leaves backward ``first`` gave gradients to: those behind ``name`` (``node``'s,
    or the named node above it), and those changed in place by the snapshot ``snap`` (their
    versions: an optimizer's step), with the tensors of ``snap`` by id; None when the snapshot
    before ``first`` is gone."""
    before = _snapshot(recording, first.snapshot_before)
    if before is None:
        return None
    behind = _leaves(snap, _named_node(snap, node, name).id)
    sent = _accumulated(first)
    then = {t.id: t.version for t in before.tensors}
    now = {t.id: t for t in snap.tensors}
    changed = {t for t in sent if t in then and t in now and now[t].version > then[t]}
    return sent & behind, changed, now


def _unstepped(recording: Recording, snap: Snapshot, node: NodeInfo, name: str,
               first: BackwardRecord) -> tuple[str, str] | None:
    """The leaves behind ``name`` that backward ``first`` gave gradients to and that nothing
    changed by the snapshot ``snap``, while it changed other leaves ``first`` reached (an
    optimizer's step): their names, and the others', as text; None unless so."""
    found = _steps_behind(recording, snap, node, name, first)
    if found is None:
        return None
    behind, changed, now = found
    held = [now[t] for t in sorted(behind) if t in now]
    if not held or changed & behind or not changed:
        return None
    return _listed(_labelled(held)), _listed(_labelled([now[t] for t in sorted(changed)]))


def _stale_part(recording: Recording, snap: Snapshot, node: NodeInfo, name: str,
                first: BackwardRecord) -> str | None:
    """The leaves behind ``name`` that a step changed since backward ``first`` gave them
    gradients, as text (``name`` was computed from them before: it holds their old values);
    None when none was."""
    found = _steps_behind(recording, snap, node, name, first)
    if found is None:
        return None
    behind, changed, now = found
    stale = sorted(behind & changed)
    return _listed(_labelled([now[t] for t in stale])) if stale else None


def _stepped(recording: Recording, snap: Snapshot, root: str, first: BackwardRecord
             ) -> list[str]:
    """The leaves a node of ``root``'s graph that backward ``first`` freed had saved (a saved
    buffer of the leaf's shape, the leaf one of its next nodes) and that were changed in place
    since the snapshot before ``first`` (their versions): what ``retain_graph=True`` on
    ``first`` would have kept stale."""
    before = _snapshot(recording, first.snapshot_before)
    if before is None:
        return []
    then = {t.id: t.version for t in before.tensors}
    now = {t.id: t for t in snap.tensors}
    by_id = {n.id: n for n in snap.nodes}
    out: list[str] = []
    for n in _subgraph(snap, root):
        # NB: a node's own result is never the leaf below it (``exp`` saves what it made)
        shapes = [s.shape for s in n.saved if s.state == "freed" and
                  s.released_by == first.number and not s.name.startswith("result")]
        if not shapes:
            continue
        # NB: the leaf, saved as it is, or a view of it (a linear layer saves its weight's
        # transpose: the leaf is behind a TBackward0, which saves nothing; same size)
        sizes = {math.prod(x) for x in shapes}
        below = [(by_id[m], True) for m in n.next if m in by_id]
        below += [(by_id[m], False) for v, _ in below if not v.saved and v.variable is None
                  for m in v.next if m in by_id]
        for leaf, direct in below:
            t = now.get(leaf.variable) if leaf.variable else None
            if t is not None and (t.shape in shapes if direct else math.prod(t.shape) in sizes) \
                    and t.id in then and t.version > then[t.id] and (t.label or t.id) not in out:
                out.append(t.label or t.id)
    return out


def _root_of(rec: BackwardRecord) -> ast.expr | None:
    """What a backward line differentiates, as code: ``g @ v`` for ``grad(g @ v, w)``,
    ``loss`` for ``loss.backward()`` and ``torch.autograd.backward(loss)``."""
    try:
        body = ast.parse(((rec.source or {}).get("code") or "").strip()).body
    except SyntaxError:
        return None
    if len(body) != 1:
        return None
    for n in ast.walk(body[0]):
        if not isinstance(n, ast.Call):
            continue
        func = n.func
        name = func.attr if isinstance(func, ast.Attribute) else \
            func.id if isinstance(func, ast.Name) else ""
        if name == "backward" and isinstance(func, ast.Attribute) and not n.args[:1] and \
                _dotted(func.value) not in ("torch.autograd", "autograd"):
            return func.value
        if name in ("backward", "grad"):
            key = "outputs" if name == "grad" else "tensors"
            return n.args[0] if n.args else next((k.value for k in n.keywords if k.arg == key),
                                                 None)
    return None


def _loss_of(call: dict[str, Any]) -> str | None:
    """What a backward line backwards: ``out.sum()`` for ``out.sum().backward()``."""
    try:
        body = ast.parse((call.get("code") or "").strip()).body
    except SyntaxError:
        return None
    value = body[0].value if len(body) == 1 and isinstance(body[0], ast.Expr) else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
            value.func.attr == "backward":
        return ast.unparse(value.func.value)
    return None


# the words that name a statistic carried across steps, not a recurrent state
_STAT_WORDS = ("running", "ema", "moving", "avg", "average", "mean", "momentum")


def _stack(rec: BackwardRecord) -> list[tuple[str, int]]:
    """Where a backward ran: its line and the lines that called the function it is in."""
    return [(x["file"], x["line"]) for x in [rec.source, *(rec.callers or [])] if x]


def _in_file(rec: BackwardRecord, file: str) -> dict[str, Any]:
    """The line of ``file`` that ran backward ``rec``: its own, or the call of the function
    it is in (``d_step(...)`` in the training loop of the script, for a backward in a module
    of helpers); its own where none is in ``file``."""
    assert rec.source is not None
    return next((x for x in [rec.source, *(rec.callers or [])] if x["file"] == file),
                rec.source)


def _holds(node: ast.AST, line: int) -> bool:
    """Whether ``node`` (a statement, a loop, a function) spans ``line``."""
    start = getattr(node, "lineno", 0)
    return bool(start <= line <= (getattr(node, "end_lineno", None) or start))


def _loop_around(built: dict[str, Any], call: dict[str, Any]
                 ) -> tuple[ast.Module, ast.AST | None] | None:
    """The file of line ``call`` and the innermost loop around that line (None where there is
    none); None where line ``built`` is in another file or the file cannot be read."""
    tree = _parsed_file(call["file"]) if built["file"] == call["file"] else None
    if tree is None:
        return None
    loop = _innermost(tree, call["line"], _LOOPS)
    return tree, loop if loop is not tree else None


def _in_body(loop: ast.AST, line: int) -> bool:
    """Whether ``line`` runs in each pass of ``loop`` (its body; its header runs once)."""
    return getattr(loop, "lineno", 0) < line and _holds(loop, line)


def _runs_again(snap: Snapshot, node: NodeInfo, k: int) -> bool:
    """Whether ``node``'s line made nodes after backward ``k`` too (it runs at every step)."""
    src = node.source
    return src is not None and any(
        n.source is not None and n.source["file"] == src["file"] and
        n.source["line"] == src["line"] and n.created_by >= k for n in snap.nodes)


def _bound(code: str | None) -> set[str]:
    """The names and dotted attributes an assignment line binds (``out, (h, c) = ...``)."""
    try:
        tree = ast.parse((code or "").strip())
    except SyntaxError:
        return set()
    return {name for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
            for name in _stored(t)}


def _refed(src: dict[str, Any], labels: list[str]) -> tuple[dict[str, Any], list[str], str] \
        | None:
    """Where line ``src`` reads a variable (``hidden``, labelled ``hidden[1]``) that a later
    line of its loop sets from what ``src`` made, with some of it not detached (``hidden =
    (h.detach(), c)``): that line, what it leaves attached (``c``), and the line with those
    detached too. None unless so."""
    tree = _parsed_file(src["file"])
    loop = _innermost(tree, src["line"], _LOOPS) if tree is not None else None
    made = _bound(src.get("code"))
    if loop is None or loop is tree or not made:
        return None
    bases = {re.split(r"[\[.]", label, maxsplit=1)[0] for label in labels}
    read = _reads(src.get("code")) & bases
    for stmt in ast.walk(loop):
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or \
                _dotted(stmt.targets[0]) not in read or not _in_body(loop, stmt.lineno):
            continue
        detached = {id(n.value) for n in ast.walk(stmt.value) if isinstance(n, ast.Attribute)
                    and n.attr == "detach"}
        attached = sorted({n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name) and
                           n.id in made and id(n) not in detached})
        if not attached:
            continue
        line, _, text = frames.statement_at(src["file"], stmt.lineno)
        rewritten: str | None = text
        for name in attached:
            rewritten = _with_method(rewritten, name, "detach") if rewritten else None
        if rewritten:
            return {"file": src["file"], "line": line, "code": text}, attached, rewritten
    return None


def _carried(snap: Snapshot, node: NodeInfo, labels: list[str], root: str, k: int | None
             ) -> tuple[dict[str, Any], str, str] | None:
    """Where ``node``'s line also made nodes after backward ``k`` (it runs at every step) and
    one line of this graph, run after ``k``, reads the earlier node (a value kept from an
    earlier step): that line, what it reads (``self.prev``, for the label ``net.prev``), and
    the line with that read detached. None unless so."""
    src = node.source
    if src is None or k is None or not _runs_again(snap, node, k):
        return None
    by_id = {n.id: n for n in snap.nodes}
    old: dict[str, bool] = {}

    def reaches(m: str) -> bool:
        if m not in old:
            old[m] = any(n.id == node.id for n in _subgraph(snap, m))
        return old[m]
    bridges = {(n.source["file"], n.source["line"]): n.source for n in _subgraph(snap, root)
               if n.created_by >= k and n.source is not None and any(
                   m in by_id and by_id[m].variable is None and by_id[m].created_by < k and
                   reaches(m) for m in n.next if m is not None)}
    if len(bridges) != 1:
        return None
    (bridge,) = bridges.values()
    if bridge["line"] == src["line"] and bridge["file"] == src["file"]:
        return None
    try:
        tree = ast.parse((bridge.get("code") or "").strip())
    except SyntaxError:
        return None
    # NB: read as labelled (``temp[0]``), or through another object (``self.prev`` for the
    # label ``net.prev``)
    reads = {text for n in ast.walk(tree) if isinstance(n, ast.Subscript) and
             isinstance(n.ctx, ast.Load) and (text := ast.unparse(n)) in labels}
    ends = {label.rsplit(".", 1)[-1] for label in labels if "[" not in label}
    reads |= {d for n in ast.walk(tree) if isinstance(n, (ast.Name, ast.Attribute)) and
              isinstance(n.ctx, ast.Load) and (d := _dotted(n)) is not None and
              d.rsplit(".", 1)[-1] in ends}
    if len(reads) > 1:
        # NB: the line's own result, read too (``out - self.prev``), names the new value
        reads -= _bound(src.get("code"))
    if len(reads) != 1:
        return None
    (read,) = reads
    rewritten = _with_method(bridge.get("code"), read, "detach")
    return (bridge, read, rewritten) if rewritten else None


class _Keep(NamedTuple):
    """A line that keeps a value past its step (``temp.append(h)``)."""

    line: dict[str, Any]          # file, line, code
    value: str                    # what it keeps (``h``)
    box: str                      # where (``temp``)
    rewritten: str                # the line with the value detached


def _keeps(src: dict[str, Any], labels: list[str]) -> _Keep | None:
    """The one line of the function around line ``src`` (or of its file, at the top level)
    that keeps what ``src`` binds in the holder a label names (``temp.append(h)`` for
    ``temp[0]``, ``self.prev = out`` for ``net.prev``); None unless one."""
    tree = _parsed_file(src["file"])
    made = {name for name in _bound(src.get("code")) if "." not in name}
    holders = {re.sub(r"\[.*\]$", "", label).rsplit(".", 1)[-1] for label in labels}
    found = []
    # NB: in the function around line ``src`` (the module's top level: the whole file)
    scope = _innermost(tree, src["line"], (ast.FunctionDef, ast.AsyncFunctionDef)) \
        if tree is not None and made else None
    value: ast.expr
    for n in ast.walk(scope) if scope is not None else ():
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and \
                isinstance(n.value.func, ast.Attribute) and \
                n.value.func.attr in ("append", "insert", "extend"):
            box, value = _dotted(n.value.func.value), n.value
        elif isinstance(n, ast.Assign) and len(n.targets) == 1:
            target = n.targets[0]
            box = _dotted(target.value if isinstance(target, ast.Subscript) else target)
            value = n.value
        else:
            continue
        if box is None or box in made or box.rsplit(".", 1)[-1] not in holders:
            continue
        kept = {x.id for x in ast.walk(value) if isinstance(x, ast.Name) and x.id in made}
        if len(kept) == 1:
            found.append((n.lineno, kept.pop(), box))
    if len(found) != 1:
        return None
    line, _, text = frames.statement_at(src["file"], found[0][0])
    rewritten = _with_method(text, found[0][1], "detach")
    if rewritten is None:
        return None
    return _Keep({"file": src["file"], "line": line, "code": text}, found[0][1], found[0][2],
                 rewritten)


def _first_up(text: str) -> str:
    """``text`` begun with a capital (``Line 7 ...``), the rest as written."""
    return text[:1].upper() + text[1:]


def _in_constructor(built: dict[str, Any]) -> tuple[str, str] | None:
    """Where line ``built`` sets an attribute of ``self`` (``self.pe = ...``) in the
    ``__init__`` of a class that has a ``forward``: the class and the attribute."""
    tree = _parsed_file(built["file"])
    if tree is None:
        return None
    cls = _innermost(tree, built["line"], (ast.ClassDef,))
    fn = _innermost(tree, built["line"], (ast.FunctionDef,))
    if not isinstance(cls, ast.ClassDef) or not isinstance(fn, ast.FunctionDef) or \
            fn.name != "__init__" or fn not in cls.body or \
            not any(isinstance(f, ast.FunctionDef) and f.name == "forward" for f in cls.body):
        return None
    stmt = _innermost(fn, built["line"], (ast.Assign, ast.AnnAssign))
    target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else \
        stmt.target if isinstance(stmt, ast.AnnAssign) else None
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and \
            target.value.id == "self":
        return cls.name, target.attr
    return None


def _movable(built: dict[str, Any], call: dict[str, Any]) -> bool:
    """Whether the line ``built`` is outside the innermost loop around the line ``call`` and
    could be moved into it: the same file, at the loop's level (not inside a function that
    does not hold the loop, which the loop may call)."""
    found = _loop_around(built, call)
    if found is None or found[1] is None or _in_body(found[1], built["line"]):
        return False
    return not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                   and _holds(n, built["line"]) and not _holds(n, call["line"])
                   for n in ast.walk(found[0]))


class _Passes(NamedTuple):
    """A loop whose every pass backwards its own loss, and whose step comes after it."""

    loop: dict[str, Any]          # its header line (file, line, code)
    step: dict[str, Any]          # the step after it
    start: str                    # what to set before it (``loss = 0``)
    add: str                      # what to write in it (``loss = loss + crit(out, y)``)
    total: str                    # what to backward after it (``loss``)


# NB: words of a name that says the value is kept from before on purpose (PPO's ``old_logp``)
_KEPT_WORDS = {"old", "prev", "previous", "target", "ref", "reference", "baseline"}


def _kept_constant(src: dict[str, Any], name: str) -> str | None:
    """Where line ``src`` assigns ``name`` alone and the name says it is kept from before on
    purpose (``old_logp = dist.log_prob(a)``): the line with its value detached."""
    if not _KEPT_WORDS & set(re.split(r"[^a-z]+", name.lower())):
        return None
    try:
        body = ast.parse(src.get("code") or "").body
    except SyntaxError:
        return None
    at = body[0] if len(body) == 1 else None
    if not isinstance(at, ast.Assign) or [_dotted(t) for t in at.targets] != [name]:
        return None
    return f"{name} = {_then(ast.unparse(at.value), 'detach')}"


def _detached_sometimes(call: dict[str, Any], name: str
                        ) -> tuple[dict[str, Any], dict[str, Any], str] | None:
    """In the loop around the backward at line ``call``, a line that detaches ``name`` (``h =
    h.detach()``, ``h.detach_()``) under an ``if`` the backward is not under: that line, the
    ``if``'s, and its condition; else None."""
    tree = _parsed_file(call["file"])
    if tree is None:
        return None
    loop = _innermost(tree, call["line"], (ast.For, ast.While, ast.AsyncFor))
    if loop is tree:
        return None
    counters = {x for t in ([loop.target] if isinstance(loop, (ast.For, ast.AsyncFor)) else [])
                for x in _stored(t)} | \
        {_dotted(n.target) for n in ast.walk(loop) if isinstance(n, ast.AugAssign)}
    for stmt in ast.walk(loop):
        if not isinstance(stmt, (ast.Assign, ast.Expr)):
            continue
        value = stmt.value
        if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute) or \
                value.func.attr not in ("detach", "detach_") or \
                _dotted(value.func.value) != name or (isinstance(stmt, ast.Assign) and [
                    _dotted(t) for t in stmt.targets] != [name]):
            continue
        # NB: (a condition that moves with the loop: its variable, or a counter it adds to;
        # not a flag set once, which may never hold)
        cond = next((n for n in ast.walk(loop) if isinstance(n, ast.If) and
                     _holds(n, stmt.lineno) and not _holds(n, call["line"]) and
                     {_dotted(m) for m in ast.walk(n.test)} & counters), None)
        if cond is not None:
            return (_place(call["file"], stmt.lineno), _place(call["file"], cond.lineno),
                    ast.unparse(cond.test))
    return None


def _scope_of(tree: ast.AST, line: int, but: ast.AST | None = None) -> ast.AST:
    """The innermost loop or function around ``line`` (other than ``but``), or the module."""
    return _innermost(tree, line, _SCOPES, but)


def _innermost(tree: ast.AST, line: int, kinds: tuple[type[ast.AST], ...],
               but: ast.AST | None = None) -> ast.AST:
    """The innermost node of one of ``kinds`` around ``line`` (other than ``but``), else
    ``tree``."""
    around = [n for n in ast.walk(tree) if isinstance(n, kinds) and _holds(n, line)
              and n is not but]
    return max(around, key=lambda n: getattr(n, "lineno", 0)) if around else tree


def _per_pass(built: dict[str, Any], call: dict[str, Any]) -> _Passes | None:
    """Where the backward at line ``call`` runs in each pass of a loop that has no step of an
    optimizer, over a part built in the same pass of what is around that loop (line ``built``:
    before the loop, or fed from one pass to the next inside it), and a step follows the
    loop: each pass backwards one loss of a single step (a decoder's steps, the heads of a
    shared trunk). None where that is not the code."""
    found = _loop_around(built, call)
    if found is None or not isinstance(found[1], (ast.For, ast.While, ast.AsyncFor)):
        return None
    tree, loop = found[0], found[1]
    scope = _scope_of(tree, loop.lineno, but=loop)
    line = built["line"]
    if not _in_body(loop, line) and not (line < loop.lineno and _scope_of(tree, line) is scope):
        return None
    if any(_is_step(n) for n in ast.walk(loop)):
        return None
    end = loop.end_lineno or loop.lineno
    step = next((n for n in ast.walk(scope) if isinstance(n, ast.Call) and _is_step(n)
                 and n.lineno > end), None)
    if step is None:
        return None
    loss = _loss_of(call)
    if loss is None:
        return None
    made = [n for n in ast.walk(loop) if isinstance(n, ast.Assign) and n.lineno < call["line"]
            and [_dotted(t) for t in n.targets] == [loss]]
    if made:
        value = ast.unparse(max(made, key=lambda n: n.lineno).value)
        total = loss
    else:
        value, total = loss, "loss"
    file = call["file"]
    header, _, text = frames.statement_at(file, loop.lineno)
    return _Passes({"file": file, "line": header, "code": text},
                   {"file": file, "line": step.lineno, "code": ast.unparse(step)},
                   f"{total} = 0", f"{total} = {total} + {value}", total)


def _is_step(n: ast.AST) -> bool:
    """An optimizer's ``step()`` call (not a learning-rate scheduler's)."""
    return isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
        n.func.attr == "step" and "sched" not in ast.unparse(n.func.value).lower()


_LOOPS = (ast.For, ast.While, ast.AsyncFor)
_SCOPES = (*_LOOPS, ast.FunctionDef, ast.AsyncFunctionDef)


def _closure(rec: BackwardRecord, built: dict[str, Any] | None
             ) -> tuple[str, dict[str, Any]] | None:
    """Where backward ``rec`` runs in a function the user's line hands to an optimizer's
    ``step`` (``opt.step(closure)``), and line ``built`` is outside that function: the
    function's name and that line."""
    if not rec.source or not rec.callers or built is None:
        return None
    caller = rec.callers[0]
    try:
        body = ast.parse((caller.get("code") or "").strip()).body
    except SyntaxError:
        return None
    call = body[0].value if len(body) == 1 and isinstance(body[0], ast.Expr) else None
    if not isinstance(call, ast.Call) or not _is_step(call) or len(call.args) != 1 or \
            not isinstance(call.args[0], ast.Name):
        return None
    fn = call.args[0].id
    tree = _parsed_file(rec.source["file"])
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name == fn and _holds(n, rec.source["line"])] if tree is not None else []
    if not defs or (built["file"] == rec.source["file"] and _holds(defs[0], built["line"])):
        return None
    return fn, caller


def _initial(call: dict[str, Any], names: list[str]) -> str | None:
    """The last statement before the line ``call`` in its file that sets the first of
    ``names`` from other values (``state = None``, ``h = torch.zeros(1, 4)``), as code."""
    tree = _parsed_file(call["file"])
    if tree is None:
        return None
    found = None
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and n.lineno < call["line"] and \
                [_dotted(t) for t in n.targets] == [names[0]] and \
                names[0] not in {_dotted(m) for m in ast.walk(n.value)} and \
                (found is None or n.lineno > found.lineno):
            found = n
    return ast.unparse(found) if found is not None else None


def _same_step(built: dict[str, Any], call: dict[str, Any]) -> bool:
    """Whether the line ``built`` runs in each pass of the innermost loop around the line
    ``call`` (or neither is in a loop): the same file, read again."""
    found = _loop_around(built, call)
    if found is None:
        return False
    return found[1] is None or _in_body(found[1], built["line"])


def _diagnose(recording: Recording, snap: Snapshot, pred: Prediction, backward: int | None,
              root: str | None) -> Diagnosis | None:
    if not pred.will_fail or pred.node is None:
        return None
    node = snap.node(pred.node)
    names = _names(recording, snap, node)
    records = {b.number: b for b in recording.backwards}
    current = records.get(backward) if backward is not None else None
    built = {"labels": names[0], "source": node.source}
    root_node = next((n for n in snap.nodes if n.id == root), None) if root else None
    if pred.kind == "modified":
        return _modified(recording, snap, pred, node, current, built, backward, names)
    if pred.kind == "no_derivative":
        return _no_derivative(snap, node, current, built, backward, names)
    freed_by = sorted({s.released_by for s in node.saved if s.state == "freed"
                       and s.released_by is not None})
    if not pred.buffers and not freed_by and node.executed_by:
        # NB: a node with no buffers that a backward released (a write into a slice,
        # ``CopySlices``): the backward that ran it
        freed_by = [node.executed_by[0]]
    first = records.get(freed_by[0]) if freed_by else None
    attempt = f"backward #{backward}" if backward is not None else "the next backward"
    if current is not None and current.source:
        attempt = _call(current)
    bufs = ", ".join(pred.buffers) or "its state"
    tense = "failed" if backward is not None else "fails"
    summary = (f"{attempt} {tense} at {_what(node, names)}: {_its_saved(bufs)} "
               f"{'were' if len(pred.buffers) != 1 else 'was'} freed by {_call(first)}.")
    if not pred.buffers and first is not None:
        summary = (f"{attempt} {tense} at {_what(node, names)}: {_call(first)} already ran "
                   "it and released it, as a backward that does not retain the graph does.")
    elif not pred.buffers:
        summary = f"{attempt} {tense} at {_what(node, names)}: {pred.reason}."
    # the cost of keeping them: what the failing graph needs that backward #k freed
    needed = [s for n in _subgraph(snap, root or node.id) for s in n.saved
              if s.state == "freed" and s.released_by in freed_by]
    cost = sum(s.nbytes for s in needed)
    packed = sum(s.packed for s in needed)
    k = freed_by[0] if freed_by else None
    reused = (root_node is not None and k is not None and node.created_by < k
              and root_node.created_by >= k)
    same_root = (first is not None and root is not None and root in first.roots)
    name = names[0][0] if names[0] else "the shared tensor"
    code = node.source["code"] if node.source else None
    fixes: list[Fix] = []
    total: str | None = None          # a running total backwarded, then added to again
    step: _Step | None = None         # two losses of one step share the node
    passes: _Passes | None = None     # each pass of a loop backwards one loss of a step
    fed_back: list[str] = []          # the variables the node's line feeds back (``h``)
    items, fresh = "", False          # a list kept across backwards, to start afresh
    queried: _Queried | None = None   # a leaf's gradient asked for, then the loss again
    higher = _differentiated(recording, first) if first is not None else None
    # NB: a derivative taken without ``create_graph`` (``du = grad(u.sum(), x)[0]``) that this
    # backward's loss is computed from (a physics-informed residual ``du + u``)
    into = _derivative_reaches(recording, first, current) \
        if first is not None and current is not None and first.api == "grad" and \
        not first.create_graph and first.via is None else None
    if (higher is not None or into is not None) and first is not None and \
            first.source is not None:
        # NB: an ``autograd.grad`` of a derivative (a physics-informed loss's second
        # derivative), or of the loss's own part, without ``create_graph``: it freed the graph
        # it ran, and its own result has none
        made = _results(higher) if higher is not None else []
        result = _results(first)
        got = f"`{result[0]}`" if result else "what it returned"
        if higher is not None:
            summary += (f" Backward #{k} differentiates "
                        + (f"`{made[0]}`, which" if made else "a derivative that")
                        + f" backward #{higher.number} at {_lines(higher.source or {})} made "
                        "with `create_graph=True`, but without `create_graph=True` itself: it "
                        f"ran through the graph below it and freed it, and {got} has no graph.")
        else:
            summary += (f" Backward #{k} made {got} without `create_graph=True`: it ran "
                        f"through the graph of `{name}` and freed it, and {got} has no graph "
                        "(a constant: no gradient flows through it).")
        rewritten = _with_create_graph(first.source["code"])
        create = Fix("create_graph", f"`create_graph=True` on backward #{k} at "
                     f"{_lines(first.source)}",
                     (f"`{rewritten}`" if rewritten else "Pass `create_graph=True`")
                     + ": it then keeps the graph it runs and gives its result a graph of its "
                     "own, so a loss built from that result trains through it (as a "
                     "physics-informed loss or a gradient penalty needs).")
        retain = Fix("retain_graph", f"`retain_graph=True` on {_call(first)}",
                     f"keeps these buffers ({_bytes(cost)} here) alive after it; its result "
                     "stays a constant, with no gradient through it.")
        if into is not None:
            summary += f" This backward backwards {_chain(into)}, so it needs that graph."
        fixes += [create, retain] if into is not None else [retain, create]
        return Diagnosis(backward, backward is None, "freed", node.id, node.name,
                         list(pred.buffers), freed_by, built, summary, fixes, snap.index)
    leaf = _not_a_leaf(snap, node, name) if reused else None
    if leaf is not None:
        # NB: a parameter made by an op on a fresh leaf (``* 0.01``, ``.double()``): what looks
        # like a parameter is that op's result, reused by every step's graph
        summary += (f" `{name}` is not a leaf: its line makes a tensor that requires grad and "
                    f"computes `{name}` from it, so `{name}` has a graph of its own, built once "
                    f"and reused by every later loss. `{name}.grad` stays None: the gradient "
                    "goes to the unnamed leaf.")
        fixes += _leaf_fixes(snap, name, leaf)
        return Diagnosis(backward, backward is None, "freed", node.id, node.name,
                         list(pred.buffers), freed_by, built, summary, fixes, snap.index)
    closure = _closure(current, node.source) if reused and current is not None else None
    if closure is not None:
        # NB: ``optimizer.step(closure)`` (LBFGS) calls the closure several times a step, each
        # call a backward, over a part built once outside it: the fix is to build it inside
        # (detached or retained, it would be stale: the step changes the parameters between)
        fn, caller = closure
        summary += (f" `{caller['code']}` at line {caller['line']} calls `{fn}` several times "
                    "in one step (an optimizer such as LBFGS evaluates the loss again at each "
                    f"of its iterations), and each call backwards a loss built on `{name}`, "
                    f"which {_line(node.source or {})} built once, outside `{fn}`. Retained "
                    "or detached, it would stay as the parameters were before the step "
                    "changed them.")
        fixes.append(Fix("recompute", f"Build `{name}` inside `{fn}`",
                         f"Move {_lines(node.source or {})} into `{fn}`, before the loss: each "
                         "call then runs the forward at the parameters the optimizer is "
                         "trying, and backwards a graph of its own."))
        return Diagnosis(backward, backward is None, "freed", node.id, node.name,
                         list(pred.buffers), freed_by, built, summary, fixes, snap.index)
    if reused:
        summary += (f" That node was built before backward #{k} and is reused by the graph of "
                    "this backward"
                    + (f"; backward #{k} ran it and freed its buffers." if pred.buffers
                       else "."))
        # NB: "move it into the loop" only where it is outside the loop around the backward
        # that freed it, at the loop's level (not in a function the loop calls)
        movable = node.source is not None and first is not None and \
            first.source is not None and \
            _movable(node.source, _in_file(first, node.source["file"]))
        recompute = Fix("recompute", "Recompute it inside the loop",
                        f"Build `{code or name}` anew before each backward, so each graph has "
                        "its own copy of that part" + (
                            f": move {_lines(node.source)} into the loop, before the loss "
                            "is computed." if movable and node.source else "."))
        ctor = _in_constructor(node.source) if node.source else None
        if ctor is not None and node.source is not None:
            # NB: a module's ``__init__`` that computes with its own parameters
            # (``self.pe = self.pos(torch.arange(T))``): it runs once, not per forward
            cls, attr = ctor
            recompute = Fix("recompute", f"Compute `self.{attr}` in `{cls}.forward`",
                            f"{_first_up(_line(node.source, ': '))} runs once, when `{cls}` "
                            f"is made: move it into `{cls}.forward` (as a local, `{attr} = "
                            "...`), so each forward builds it from the current weights, with a "
                            "graph of its own.")
        detach = Fix("detach", f"Use `{name}.detach()` where you reuse it",
                     f"If no gradient should flow back into `{name}` from the later "
                     f"graphs (a value kept from an earlier step: an RNN hidden state, a "
                     f"stored intermediate, a generator output), reuse `{name}.detach()`.")
        fed_back = _fed_back(code)
        kept = _kept_losses(snap, root, first)
        # NB: an entry of a list kept across backwards (``log_probs.append(...)`` each step,
        # the list never emptied): the list is what to start afresh
        entry = re.fullmatch(r"([A-Za-z_]\w*)\[\d+\]", name)
        items = entry.group(1) if entry is not None else ""
        # NB: ... when this graph reads several of its entries from before backward #k (a
        # stack of them all, as a policy gradient's log-probabilities); one entry kept on
        # purpose (seed 003's ``temp[0]``) is to detach or recompute instead
        olds = {label for n in _subgraph(snap, root or node.id) if n.created_by < (k or 0)
                for label in n.labels if label.startswith(f"{items}[")} if items else set()
        fresh = len(olds) > 1 and not kept and not fed_back
        if fresh:
            fixes.append(Fix("fresh_list", f"Start `{items}` afresh for each backward",
                             f"`{items}` still holds entries made before backward #{k}, which "
                             f"ran their graphs and freed them: create it inside the loop "
                             f"(`{items} = []` before each batch or episode), or "
                             f"`{items}.clear()` after each backward."))
        total = _total_not_reset(snap, root_node, first) if kept else None
        queried = _queried(snap, first, current) if kept and first is not None and \
            current is not None else None
        if queried is not None and first is not None:
            # NB: a backward for an input's gradient (an adversarial example), then a loss
            # holding the same loss again: one backward is for the gradient, to keep the graph
            summary += (f" Backward #{k} ran through `{kept[0]}` for `{queried.leaf}.grad`, "
                        f"which {_line(queried.line)} reads to build this backward's loss; "
                        f"this backward runs through `{kept[0]}` again.")
            fixes.append(Fix("grad_input", f"Ask for `{queried.leaf}`'s gradient alone, keeping "
                             "the graph",
                             f"`{queried.call}` at {_lines(first.source or {})}, and "
                             f"`{queried.rewritten}` at {_lines(queried.line)}: the graph of "
                             f"`{kept[0]}` stays for this backward, and no parameter's `.grad` "
                             "is filled before it."))
        elif total:
            # NB: the total an earlier backward ran is added to again (gradient accumulation,
            # ``running = running + loss``, never reset after its backward)
            summary += (f" `{total}` still holds the total backward #{k} already ran "
                        "through: it was not started afresh after that backward.")
            fixes.append(Fix("fresh_total", f"Start `{total}` afresh after each backward",
                             f"Set `{total} = 0` right after `{total}.backward()`, so the "
                             "next total holds only the losses added since (one backward per "
                             "total, as in gradient accumulation)."))
        elif kept:
            # NB: a loss an earlier backward already ran is inside this graph (``total +=
            # loss``, a list of losses summed later): recomputing or detaching cannot help
            them = ", ".join(f"`{n}`" for n in kept)
            summary += (f" This graph holds {them}, the loss backward #{k} already ran "
                        "through.")
            fixes.append(Fix("item", f"Keep `{kept[0]}.item()`, not `{kept[0]}`",
                             "To log or add up losses, keep plain numbers (`loss.item()`) and "
                             "do not backward their total; to backward a sum of losses, "
                             "backward only that sum, not each loss first."))
        # NB: the line that feeds it back, where that is not its own line: a line of the loop
        # that keeps it in another variable fed back into itself (``memory = torch.cat([feat,
        # memory])``: ``holder``), or that feeds it back through a function the loop calls
        # (``h = cell(x, h)``, whose ``forward`` made the node)
        feeder: dict[str, Any] | None = None
        holder = False
        if not fed_back and not kept and not fixes and first is not None:
            found = _feeder(snap, node, name, root, first)
            if found is not None:
                fed_back, feeder, holder = found
        # NB: each pass of a loop with no step backwards its loss (a decoder's steps, the
        # heads of a trunk built before the loop), and the step follows the loop
        carrier = feeder if feeder is not None and not holder else node.source
        passes = _per_pass(carrier, _in_file(current, carrier["file"])) \
            if carrier is not None and first is not None and current is not None and \
            first.source and current.source and _stack(first) == _stack(current) and \
            not kept and not fixes else None
        step = _two_losses(recording, snap, node, name, first, current, root_node) \
            if first is not None and current is not None and not kept and not fed_back and \
            not fixes and passes is None else None
        if passes is not None:
            shared_by = (f"{_listed(fed_back)}, fed from one pass to the next"
                         + (f" ({_line(feeder, ': ')})" if feeder is not None else "")
                         if fed_back else
                         f"`{name}`, built once before it")
            summary += (f" Each pass of the loop at {_line(passes.loop)} backwards its own "
                        f"loss, and the step ({_line(passes.step, ': ')}) comes after the "
                        "loop: these backwards add up the gradients of one step, and their "
                        f"graphs share {shared_by}.")
            fixes.append(Fix(
                "sum_losses", "Sum the losses of the loop and backward once",
                f"`{passes.start}` before {_lines(passes.loop)}, `{passes.add}` in it, and "
                f"`{passes.total}.backward()` after it, before {_lines(passes.step)}: the "
                "shared part runs once, and each parameter gets the sum of the gradients the "
                "loop's backwards were adding up"
                + (f", through {_listed(fed_back)} into the earlier passes." if fed_back
                   else ".")))
        elif step is not None:
            # NB: two losses of one step (a GAN's discriminator and generator losses)
            summary = summary[:summary.rindex(" That node was built")] + step.summary
            fixes += step.before
        elif feeder is not None and holder:
            # NB: ``feat`` kept in ``memory``, which is fed back: each step's graph reaches
            # through ``memory`` into the previous steps' ``feat``
            them = _listed(fed_back)
            summary += (f" {them} ({_line(feeder, ': ')}) keeps `{name}` from one step to the "
                        "next and is fed back into itself, so each step's graph reaches into "
                        "the previous steps'.")
            kept_line = _with_method(feeder["code"], name, "detach")
            idle = _unstepped(recording, snap, node, name, first) if first else None
            if idle is not None:
                summary += (f" Backward #{k} sent gradients through `{name}` into {idle[0]}, "
                            f"but no step used them: {idle[1]} changed after it, they did "
                            "not.")
                fixes.append(_without_graph(name, code))
            fixes.append(Fix("detach", f"Keep `{name}.detach()` in {them}",
                             (f"`{kept_line}`" if kept_line else
                              f"Store `{name}.detach()`")
                             + f" at {_lines(feeder)}: the stored values stay, their graph "
                             "does not, and each backward runs only its own step's graph."))
        elif fed_back:
            # NB: a recurrence (`h = f(x, h)`): recomputing would rebuild every earlier step
            them = ", ".join(f"`{n}`" for n in fed_back)
            one = len(fed_back) == 1
            summary += (f" {them} {'is' if one else 'are'} fed back "
                        + (f"at {_line(feeder)}" if feeder is not None else
                           f"into the line that builds {'it' if one else 'them'}")
                        + ", so each step's graph reaches into the previous steps'.")
            if feeder is not None:
                code = feeder["code"]
            n = fed_back[0]
            # NB: a tuple state (an LSTM's `(h, c)`) is named by its items: `state[0]`
            pair = any(label.startswith(f"{n}[") for m in snap.nodes for label in m.labels)
            how = (f"`{n} = tuple(s.detach() for s in {n})` (each tensor in it) at the start "
                   "of each step" if one and pair else
                   f"`{n} = {n}.detach()` at the start of each step (for a tuple such as an "
                   "LSTM's `(h, c)`, each tensor in it)" if one else
                   f"`{', '.join(fed_back)} = {', '.join(f'{v}.detach()' for v in fed_back)}` "
                   "at the start of each step")
            detach = Fix("detach", f"Detach {them} before feeding {'it' if one else 'them'} "
                         "back", f"{how} cuts the graph between steps, as a hidden state is "
                         "carried in truncated backpropagation through time.")
            at = current.source if current is not None else None
            sometimes = _detached_sometimes(at, n) if at else None
            if sometimes is not None and at is not None:
                # NB: a detach under ``if i % k == 0:`` while each step backwards: truncated
                # backpropagation whose window and backwards do not match
                cut, cond, test = sometimes
                summary += (f" {_first_up(_line(cut))} detaches `{n}` only when `{test}` "
                            f"({_lines(cond)}), but {_line(at)} runs at every step.")
                detach = Fix("detach", f"Detach `{n}` at every step",
                             f"Take {_lines(cut)} out of that `if` (dedented; drop the `if` "
                             "if nothing else is under it): each step's "
                             f"backward then runs its own step only. To backpropagate through "
                             f"several steps, add up their losses instead and backward the sum "
                             f"(and step) under that same condition, right before {_lines(cut)}.")
            if code and (any(w in n.rsplit(".", 1)[-1].lower() for w in _STAT_WORDS) or
                         _decays(code, n)):
                # NB: a statistic kept across steps (a running mean, an average): no gradient
                # should flow into it at all, and starting it afresh would lose it
                fixes += [Fix("no_grad", f"Update {them} without a graph",
                              f"`with torch.no_grad(): {code}`: a statistic carried from step "
                              "to step needs no gradient, and then holds no graph."), detach]
            else:
                # NB: recomputing a recurrence means starting it afresh: the line that sets it
                # before the loop, moved into it
                init = _initial(first.source, fed_back) if first and first.source else None
                fixes += [detach, Fix(
                    "recompute", f"Or start {them} afresh at each step",
                    (f"`{init}` at the start of each step" if init else
                     f"Set {them} to {'its' if one else 'their'} initial value at the start "
                     "of each step") + ", not once before the loop: each backward then runs "
                    "only its own step's graph, and no state carries over from one step to "
                    "the next.")]
        elif queried is not None:
            pass                  # (retaining is the other fix, below)
        elif not total:
            # NB: (a total not reset: detaching or retaining would change the gradients)
            idle = _unstepped(recording, snap, node, name, first) if first else None
            if idle is not None:
                # NB: a part no optimizer steps (features of a fixed backbone, computed once):
                # its graph is of no use, so it is built without one
                held, stepped = idle
                summary += (f" Backward #{k} sent gradients through `{name}` into {held}, "
                            f"but no step used them: {stepped} changed after it, they did "
                            "not.")
                fixes += [_without_graph(name, code), recompute]
            elif node.source is not None and k is not None and \
                    _runs_again(snap, node, k) and \
                    (refed := _refed(node.source, names[0])) is not None:
                # NB: a state set from the line's results, some of it left attached
                # (``hidden = (h.detach(), c)``), and fed back into the line
                feeds, attached, rewritten = refed
                them = _listed(attached)
                # NB: (a state of several tensors, not a list of entries to start afresh)
                fixes = [f for f in fixes if f.key != "fresh_list"]
                fresh = False
                summary += (f" {_first_up(_line(feeds))} feeds what line "
                            f"{node.source['line']} made back into it at the next step, and "
                            f"leaves {them} attached: each step's graph reaches into the "
                            "previous step's.")
                also = " too" if ".detach()" in (feeds.get("code") or "") else ""
                fixes.append(Fix("detach", f"Detach {them}{also}", f"`{rewritten}` at "
                                 f"{_lines(feeds)}: every tensor of the state carried to the "
                                 "next step is cut from this step's graph, as a hidden state is "
                                 "carried in truncated backpropagation through time."))
            elif (carried := _carried(snap, node, names[0], root or node.id, k)) is not None:
                # NB: the line runs at every step, and a value it made at an earlier one is
                # kept (``self.prev = out``, ``Z[idx] = ... + out``) and read into this step's
                # graph: recomputing is what the line does already; the read is to detach
                bridge, reader, rewritten = carried
                assert node.source is not None
                summary += (f" {_first_up(_line(node.source))} runs at every step; what it made "
                            f"at an earlier one (`{name}`) is carried into this graph by "
                            f"{_line(bridge)}, which ran after backward #{k} had freed it.")
                store = _keeps(node.source, names[0])
                if store is not None and (store.line["file"], store.line["line"]) != \
                        (bridge["file"], bridge["line"]):
                    fixes.append(Fix("detach", f"Keep `{store.value}.detach()` in `{store.box}`",
                                     f"`{store.rewritten}` at {_lines(store.line)}: the kept value "
                                     "stays, its graph does not, and each backward runs only "
                                     "its own step's graph."))
                fixes.append(Fix("detach", f"Use `{reader}.detach()` at {_lines(bridge)}",
                                 f"`{rewritten}`: the earlier step's value enters this step's "
                                 "loss as a constant, so each backward runs only its own "
                                 "step's graph."))
            elif items and not fresh and node.source is not None and k is not None and \
                    _runs_again(snap, node, k) and \
                    (appended := _appends(recording, items)) is not None:
                # NB: each step's value appended to a list the later losses read (a queue of
                # keys): its line runs at every step; the list keeps the old graphs
                line, value = appended
                summary += (f" {_first_up(_line(line))} keeps each step's `{value}` in "
                            f"`{items}`, with its graph, and a later step's loss reads it.")
                fixes.append(Fix("detach", f"Keep `{value}.detach()` in `{items}`",
                                 f"`{items}.append({_then(value, 'detach')})` at {_lines(line)}: "
                                 "the kept values stay, their graph does not, and each "
                                 "backward runs only its own step's graph."))
            elif fresh:
                # NB: the entries' line runs at every step already (recomputing is what it
                # does); what is stale is the list: detach what it keeps, not one entry
                fixes.append(Fix("detach", f"Or detach the entries `{items}` keeps",
                                 f"`{items}[:] = [t.detach() for t in {items}]` right after "
                                 "each backward, if later losses are to read the earlier "
                                 "entries' values (a memory of past features) but send no "
                                 "gradient into them."))
            else:
                fixes += [recompute, detach]
                # NB: (where the line runs at every step, what it made is not stale: it is
                # made again, and an old one kept)
                moved = _stale_part(recording, snap, node, name, first) \
                    if first and k is not None and not _runs_again(snap, node, k) else None
                kept_as = _kept_constant(node.source, name) if moved is not None and \
                    node.source is not None else None
                if kept_as is not None and node.source is not None:
                    # NB: named as a value kept from before the steps on purpose (PPO's
                    # ``old_logp``, a target): a constant, to be made without a graph
                    summary += (f" `{name}` is named as a value kept from before the "
                                f"optimizer's steps (as PPO's old log-probabilities): it is "
                                "to stay as it was, a constant, so it needs no graph.")
                    # NB: (recomputed, it would follow the steps: no longer the old values)
                    fixes[-2:] = [Fix("detach", f"Keep `{name}` without its graph",
                                      f"`{kept_as}` at {_lines(node.source)}: its values stay, "
                                      "its graph does not, and each backward runs only its "
                                      "own step's graph.")]
                elif moved is not None:
                    # NB: a part built once from trained parameters (a distribution's scale,
                    # prototypes): retained or detached, its values never follow the steps
                    summary += (f" The optimizer's steps change {moved}, but `{name}` was "
                                f"computed from {'it' if ',' not in moved else 'them'} once, "
                                "before them: retained or detached, it keeps the old values, "
                                "and only recomputing it makes the steps reach it.")
    elif same_root:
        summary += " It is the same graph: a backward frees what it ran."
        together = _grad_inputs(first, current)
        if together is not None:
            # NB: two ``autograd.grad`` calls, one per input: one call gives both
            fixes.append(Fix("one_grad_call", "One `autograd.grad` call for all the inputs",
                             f"`{together}` runs the graph once and gives each gradient."))
        read = stepping = None
        if first is not None and current is not None and first.source and current.source:
            read = _grads_read(snap, first, current)
            stepping = _steps_between(first, current)
            if read is not None:
                # NB: gradients asked for (to log their norm), then the same loss backwarded
                fixes.append(Fix("read_grad", "Read the gradients from `.grad` after the "
                                 "backward", f"Drop {_lines(first.source)}; after "
                                 f"{_line(current.source)}, `{read}` gives the same "
                                 "gradients (cleared before it by `zero_grad()`): one backward "
                                 "for both."))
            if stepping is not None:
                # NB: one loss backwarded once per optimizer (each steps its own part)
                clears, steps = stepping
                fixes.append(Fix("backward_once", "Backward once, then step each optimizer",
                                 f"`{_loss_of(current.source) or 'loss'}.backward()` once"
                                 + (f", after {_both(clears)}" if clears else "")
                                 + f", then {_both(steps)}: one backward gives every "
                                 "parameter its gradient, and each optimizer steps its own."))
        if read is None and stepping is None:
            fixes.append(Fix("backward_once", "Backward once",
                             "Compute the loss again (a fresh graph) if you need a second "
                             "backward, or call backward once."))
    elif k is not None:
        inside = root_node is not None and k in root_node.executed_by
        if not inside:
            summary += (f" Backward #{k} and this one share that part of the graph (it is "
                        "reached from more than one loss).")
        by_id = {n.id: n for n in snap.nodes}
        earlier = [by_id[r].labels[0] for r in (first.roots if first else [])
                   if r in by_id and by_id[r].labels]
        now = root_node.labels[0] if root_node is not None and root_node.labels else None
        a = (earlier[0] if earlier else None) or (_loss_of(first.source) if first and
                                                    first.source else None) or "loss1"
        b = now or (_loss_of(current.source) if current and current.source else None) or \
            "loss2"
        if inside:
            # NB: this loss is inside the earlier one (``loss = main + 10 * gp``, then
            # ``gp.backward()``): summing again would count it twice
            summary += (f" `{b}` is itself part of the graph of `{a}`: backward #{k} ran "
                        "through it, so its gradients are already accumulated.")
            fixes.append(Fix("already_included", f"Drop this backward: `{a}` already "
                             f"includes `{b}`",
                             f"Backward #{k} from `{a}` ran through `{b}` and added its "
                             "gradients; another backward from it would add them a second "
                             f"time. To weight `{b}` differently, change how `{a}` is built."))
        else:
            step = _two_losses(recording, snap, node, name, first, current, root_node,
                               built_before=True) if first and current else None
            if step is not None:
                summary += step.summary
                fixes += step.before
            else:
                fixes.append(Fix("sum_losses", "Sum the losses and backward once",
                                 f"`({a} + {b}).backward()` runs the shared part once and "
                                 "gives each parameter the sum of both gradients, with no "
                                 "buffer kept."))
    elif pred.buffers and not reused:
        # NB: freed by a backward the recording did not see (in a notebook: a cell run before
        # the one recorded, the loss built in another cell)
        loss = (root_node.labels[0] if root_node is not None and root_node.labels else
                names[0][0] if names[0] else "the loss")
        if root_node is not None and root_node.recorded and not node.recorded and names[0]:
            # NB: the loss was built in the recording, over a tensor built before it (in a
            # cell run earlier): that tensor is what to build again
            loss = names[0][0]
        what = f"`{loss}`" if loss != "the loss" else loss
        summary += (" That backward ran before the recording began (in a notebook: a cell run "
                    "earlier).")
        fixes.append(Fix("recompute", f"Build {what} again before this backward",
                         f"A backward frees the graph it ran, so each backward needs {what} "
                         "freshly built: run the line that computes it (in a notebook, the "
                         "cell that builds it) again first."))
        freed = sum(s.nbytes for n in _subgraph(snap, root or node.id) for s in n.saved
                    if s.state == "freed")
        fixes.append(Fix("retain_graph", "`retain_graph=True` on the earlier backward",
                         "keeps these buffers" + (f" ({_bytes(freed)} here)" if freed else "")
                         + " alive after it, for a second backward through the same graph."))
    stale = _stepped(recording, snap, root or node.id, first) if first is not None else []
    if stale and k is not None and not total:
        # NB: kept, the buffers would be stale: a step changed a weight they saved in place
        them = _listed(stale)
        summary += (f" `retain_graph=True` would not help: {them} "
                    f"{'was' if len(stale) == 1 else 'were'} changed in place after backward "
                    f"#{k} (an optimizer's step), and this graph saved "
                    f"{'it' if len(stale) == 1 else 'them'} before, so the backward would "
                    "then fail on the changed values.")
    elif k is not None and not total:
        fixes.append(Fix("retain_graph", f"`retain_graph=True` on {_call(first)}",
                         f"keeps these buffers ({_bytes(cost)} here) alive after that backward, "
                         "until a later backward without it frees them; the memory stays "
                         "in use as long as the graph is referenced."
                         + (" Here each pass's backward would run the shared part again ("
                            + (f"through {_listed(fed_back)}, every earlier pass" if fed_back
                               else f"`{name}`")
                            + "): the gradients of the sum, at more cost." if passes else
                            f" Here {_listed(fed_back)} carries each step's graph into the "
                            "next: every backward would run through all the earlier steps "
                            "again (adding their gradients once more), and the memory kept "
                            "would grow step after step." if fed_back else
                            f" Here `{items}` keeps every earlier entry: each backward would "
                            "run through all of them again (adding their gradients once "
                            "more), and the memory kept would grow with the list."
                            if fresh else "")
                         + (f" Backward #{k}'s gradients in the parameters then add to this "
                            "backward's: clear them between (`zero_grad()`), or take fix 1."
                            if queried is not None and not _cleared(first, current) else "")
                         + (f" {packed} of them {'is' if packed == 1 else 'are'} packed by a "
                            "saved-tensor hook (a non-reentrant `checkpoint`'s holders keep "
                            "nothing: each backward recomputes them)." if packed else "")))
    if step is not None:
        fixes += step.after
    return Diagnosis(backward, backward is None, "freed", node.id, node.name, list(pred.buffers),
                     freed_by, built, summary, fixes, snap.index)


def _modified(recording: Recording, snap: Snapshot, pred: Prediction, node: NodeInfo,
              current: BackwardRecord | None, built: dict[str, Any], backward: int | None,
              names: tuple[list[str], str]) -> Diagnosis:
    stale = modified_in_unpack_order(node.saved)
    edits = [e for s in stale for e in (s.modified_by or [])]
    attempt = _call(current) if current is not None else "the next backward"
    which = ", ".join(s.name for s in stale)
    v = stale[0].versions if stale and stale[0].versions else [0, 0]
    verb, them = ("was", "it was") if len(stale) == 1 else ("were", "they were")
    tense = "failed" if backward is not None else "fails"
    summary = (f"{attempt} {tense} at {_what(node, names)}: {_its_saved(which)} {verb} "
               f"modified in place after {them} saved (version {v[1]}, saved at version "
               f"{v[0]}).")
    if edits:
        e = edits[0]
        src = e.get("source")
        if src:
            summary += f" The in-place op was at {_line(src, ': ')}."
    fixes: list[Fix] = []
    # NB: a parameter changed by an update (an optimizer's step, ``p -= lr * p.grad``), not by
    # a forward line (an ``nn.Embedding`` with ``max_norm`` renormalizes its weight in place)
    updates = [e for e in edits if e.get("parameter") and _update_line(e.get("source"))]
    kept = _retained_then_stepped(recording, node, current, updates[0]) \
        if updates and current is not None else None
    if kept is not None:
        # NB: ``retain_graph=True`` put where a graph is reused across a step (a hidden state
        # fed back, a discriminator's output read by the generator's loss after the
        # discriminator's step): kept, its buffers are stale; the reuse is what to fix
        summary += kept[0]
        fixes += kept[1]
        return Diagnosis(backward, backward is None, "modified", node.id, node.name,
                         [s.name for s in stale], [], built, summary, fixes, snap.index)
    if updates:
        fixes.append(Fix("backward_before_step", "Run every backward before optimizer.step()",
                         "optimizer.step() updates the parameters in place, so a graph built "
                         "before the step cannot be backwarded after it: do all backwards "
                         "first (sum the losses), or run the forward again after the step."))
    # NB: (an optimizer's step writes inside its own code: the generic advice)
    src = edits[0].get("source") if edits and edits[0] not in updates else None
    masks = {t.label for t in snap.tensors if t.label and t.dtype.endswith("bool")}
    how = _out_of_place(src["code"] if src else None, masks)
    if src is not None and node.source is not None and \
            (node.source["file"], node.source["line"]) == (src["file"], src["line"]):
        # NB: a loop's line that writes into a tensor and reads from it (``out[:, t + 1] =
        # f(out[:, t])``): the next pass's write changes what this pass's op saved
        how = _stacked(src) or how
    if src is not None and how == _INSIDE:
        # NB: the change made by a layer the line calls, built with ``inplace=True``
        how = _inplace_layer(src) or how
    fixes.append(Fix("out_of_place", "Do not change a saved tensor in place",
                     how + ", so the value the backward needs stays intact."))
    return Diagnosis(backward, backward is None, "modified", node.id, node.name,
                     [s.name for s in stale], [], built, summary, fixes, snap.index)


def _retained_then_stepped(recording: Recording, node: NodeInfo, current: BackwardRecord,
                           update: dict[str, Any]) -> tuple[str, list[Fix]] | None:
    """A node an earlier backward ran with ``retain_graph=True``, whose saved parameter a step
    (``update``) then changed, reached again by backward ``current``: why the graph is reused
    across that step, and the fixes (the retain was put there to silence the freed-buffer
    error, and a stale graph is what it kept). Its line feeds a state back (``h = rnn(x, h)``):
    detach the state, and drop the retain. Its line runs before the retained backward in the
    same step, and the step comes between the two backwards (a GAN's ``d_out = D(fake)`` read
    by the generator's loss after the discriminator's step): build it again after the step.
    None otherwise."""
    by_number = {b.number: b for b in recording.backwards}
    retained = [by_number[k] for k in node.executed_by
                if k in by_number and by_number[k].retain_graph and k < current.number]
    src, step, at = node.source, update.get("source"), current.source
    if not retained or src is None or step is None or at is None:
        return None
    first = retained[-1]
    if first.source is None:
        return None
    keep = f"`retain_graph=True` at {_line(first.source)}"
    fed = _fed_back(src.get("code"))
    name = node.labels[0] if node.labels else None
    # NB: (a node inside a model's call: the variable its line assigns, ``loss``)
    made = name or _assigned(src.get("code"))
    feeder = _feeding(src, made) if not fed and made else None
    if feeder is not None and made is not None:
        # NB: a later line of the step feeds a value made from this one back into itself (a
        # running baseline: ``running = 0.9 * running + 0.1 * loss``)
        fed = _fed_back(feeder["code"])
        n = fed[0]
        summary = (f" `{n}` is fed back at {_line(feeder)}, and carries the graph of `{made}` "
                   f"into the next steps; {keep} kept those graphs, and {_line(step)} then "
                   "changed the parameters they saved.")
        stat = any(w in n.rsplit(".", 1)[-1].lower() for w in _STAT_WORDS) or \
            _decays(feeder["code"], n)
        fixes = [Fix("no_grad", f"Update `{n}` without a graph, and drop `retain_graph=True`",
                     f"`{_with_method(feeder['code'], made, 'detach') or feeder['code']}` at "
                     f"{_lines(feeder)}: " + ("a statistic carried from step to step needs no "
                                              "gradient" if stat else
                                              f"`{n}` then carries values, not graphs")
                     + f", and each backward runs only its own step's graph "
                     f"({_lines(first.source)} without `retain_graph=True`).")]
        return summary, fixes
    if fed:
        them = _listed(fed)
        one = len(fed) == 1
        summary = (f" {them} {'is' if one else 'are'} fed back into {_lines(src)} at each "
                   "step, so each step's graph reaches into the previous steps'; "
                   f"{keep} kept those graphs, and {_line(step)} then changed the parameters "
                   "they saved.")
        n = fed[0]
        init = _initial(at, fed)
        fixes = [Fix("detach", f"Detach {them} before feeding {'it' if one else 'them'} back, "
                     "and drop `retain_graph=True`",
                     (f"`{n} = {n}.detach()`" if one else
                      f"`{', '.join(fed)} = {', '.join(f'{v}.detach()' for v in fed)}`")
                     + " at the start of each step cuts the graph between steps, as a hidden "
                     "state is carried in truncated backpropagation through time: each "
                     "backward then runs only its own step's graph, built after the last "
                     f"step, and needs no retained graph ({_lines(first.source)} without "
                     "`retain_graph=True`).")]
        if init is not None:
            fixes.append(Fix("recompute", f"Or start {them} afresh at each step",
                             f"`{init}` at the start of each step, not once before the loop "
                             "(no state carries over), and no `retain_graph=True`."))
        return summary, fixes
    if not (src["file"] == first.source["file"] == at["file"] == step["file"] and
            src["line"] < first.source["line"] < step["line"] < at["line"] and
            _same_step(src, first.source) and _same_step(src, at)):
        return None
    what = f"`{name}`" if name else _line(src)
    summary = (f" {_cap(keep)} kept the graph of {what} for this backward, but "
               f"{_line(step)} ran between them and changed the parameters it saved: "
               f"{what} is as they were before the step.")
    # NB: before the first line after the step that reads it (the loss built from it)
    tree = _parsed_file(src["file"])
    reader = min((n.lineno for n in ast.walk(tree) if isinstance(n, ast.stmt) and
                  not isinstance(n, _SCOPES) and step["line"] < n.lineno <= at["line"] and
                  name in {_dotted(m) for m in ast.walk(n)}), default=None) \
        if tree is not None and name else None
    # NB: (none where the loss itself was built before the step: rebuilding the part alone
    # would not change it)
    before = _place(src["file"], reader) if reader is not None else None
    fixes = [Fix("recompute", f"Build {what} again after the step",
                 f"Run `{src['code']}` again after {_lines(step)}, before " + _line(before)
                 + ": this backward then goes through the parameters as the step left them, "
                 "with a graph of its own.")] if before is not None else []
    # NB: one optimizer for both losses (no other step after this backward, as a GAN's
    # generator's): a step between them is to come after both backwards, or rebuild
    between = step.get("code")
    if not any(method == "step" and line > at["line"] and code != between
               for line, method, code, _ in _optimizer_calls(at)):
        fixes.insert(0, Fix("backward_before_step", "Run every backward before the step",
                            f"{_cap(_line(step))} updates the parameters in place, so a graph "
                            "built before it cannot be backwarded after it: do both backwards "
                            "first (or one of the sum of the losses), then step once."))
    return summary, fixes


def _feeding(src: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The one line after ``src`` in the innermost loop around it that reads ``name`` and feeds
    a variable back into itself (``running = 0.9 * running + 0.1 * loss``)."""
    tree = _parsed_file(src["file"])
    loop = _innermost(tree, src["line"], _LOOPS) if tree is not None else None
    if loop is None or loop is tree:
        return None
    found = [n for n in ast.walk(loop) if isinstance(n, ast.Assign) and n.lineno > src["line"]
             and name in _reads(ast.unparse(n.value)) and _fed_back(ast.unparse(n))]
    return _place(src["file"], found[0].lineno) if len(found) == 1 else None


def _stacked(src: dict[str, Any]) -> str | None:
    """How to write line ``src``, a loop's ``x[..., t + 1] = f(x[..., t])``, that reads from
    the tensor it writes into, with a list and ``torch.stack``; None where it is not that."""
    try:
        body = ast.parse((src.get("code") or "").strip()).body
    except SyntaxError:
        return None
    line = body[0] if len(body) == 1 else None
    if not isinstance(line, ast.Assign) or len(line.targets) != 1 or \
            not isinstance(line.targets[0], ast.Subscript):
        return None
    target = line.targets[0]
    x = _dotted(target.value)
    reads = [n for n in ast.walk(line.value) if isinstance(n, ast.Subscript) and
             _dotted(n.value) == x]
    tree = _parsed_file(src["file"])
    loop = _innermost(tree, src["line"], _LOOPS) if tree is not None else None
    var = loop.target.id if isinstance(loop, (ast.For, ast.AsyncFor)) and \
        isinstance(loop.target, ast.Name) else None
    if x is None or not reads or var is None:
        return None
    index = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    dim = next((i for i, e in enumerate(index) if any(
        isinstance(n, ast.Name) and n.id == var for n in ast.walk(e))), None)
    if dim is None:
        return None
    return (f"{_first_up(_line(src))} writes into `{x}` at each pass of the loop over `{var}` "
            f"and reads what the pass before wrote (`{ast.unparse(reads[0])}`), saved by an "
            "op of this pass for the backward, which the next pass's write changes: keep each "
            "pass's value in a list instead "
            f"(`{x}s.append(...)`, reading the earlier ones from the list: `{x}s[-1]`) and "
            f"build `{x} = torch.stack({x}s, dim={dim})` after the loop")


def _inplace_layer(src: dict[str, Any]) -> str | None:
    """Where line ``src`` calls a layer (``self.act(g)``) that the user's file builds with
    ``inplace=True`` (``self.act = nn.ReLU(inplace=True)``, ``nn.ReLU(True)``, or one such
    layer of an ``nn.Sequential``): that line without it; None unless one such line."""
    try:
        tree = ast.parse((src.get("code") or "").strip())
    except SyntaxError:
        return None
    # NB: by its name as set (``self.act`` called as ``self.act`` or ``model.act``)
    called = {d for n in ast.walk(tree) if isinstance(n, ast.Call)
              and (d := _dotted(n.func)) is not None}
    file = _parsed_file(src["file"])
    found = []
    for n in ast.walk(file) if file is not None and called else ():
        if not isinstance(n, ast.Assign) or len(n.targets) != 1 or \
                not isinstance(n.value, ast.Call):
            continue
        name = _dotted(n.targets[0])
        if name is None or (name not in called and not (name.startswith("self.") and any(
                c.endswith("." + name[5:]) for c in called))):
            continue
        plain = _Plain()
        # NB: on a copy: the file's tree is parsed once and shared
        value = plain.visit(copy.deepcopy(n.value))
        if plain.changed == 1:
            found.append((n.lineno, name, f"{ast.unparse(n.targets[0])} = {ast.unparse(value)}"))
    if not found and file is not None:
        # NB: a layer built out of sight of the line (``nn.ReLU(inplace=True)`` in a function
        # that returns a block of the model): the file's one layer built in place
        made = [(n, bare) for n in ast.walk(file)
                if isinstance(n, ast.Call) and (bare := _bare(n)) is not None]
        if len(made) == 1:
            call, bare = made[0]
            return (f"Build `{ast.unparse(call)}` at line {call.lineno} as "
                    f"`{ast.unparse(bare)}`: the call at {_lines(src)} runs it, and it "
                    "changed its input in place")
    if len(found) != 1:
        return None
    line, name, text = found[0]
    return (f"Write `{text}` at line {line} (without `inplace=True`: the call of `{name}` at "
            f"{_lines(src)} changed its input in place)")


class _Plain(ast.NodeTransformer):
    """Each layer built with a true ``inplace`` (``nn.ReLU(inplace=True)``, ``nn.ReLU(True)``)
    built without it; ``changed``: how many."""

    def __init__(self) -> None:
        self.changed = 0

    def visit_Call(self, call: ast.Call) -> ast.AST:
        self.generic_visit(call)
        bare = _bare(call)
        if bare is None:
            return call
        self.changed += 1
        return bare


def _bare(call: ast.Call) -> ast.Call | None:
    """The call, if it builds a layer with a true ``inplace`` (``nn.ReLU(inplace=True)``,
    ``nn.ReLU(True)``), as a new call without it (the arguments shared, not copied); else
    None."""
    flag = next((k for k in call.keywords if k.arg == "inplace"), None)
    if flag is not None:
        if isinstance(flag.value, ast.Constant) and flag.value.value:
            return ast.Call(call.func, call.args, [k for k in call.keywords if k is not flag])
        return None
    at = _inplace_position(call, layer=True)
    return ast.Call(call.func, call.args[:at], call.keywords) if at is not None else None


def _update_line(src: dict[str, Any] | None) -> bool:
    """Whether the line that changed a parameter updates it (``opt.step()``, ``p -= ...``,
    ``p.data.add_(...)``, ``nn.init.zeros_(p)``, or no line known), rather than computing
    something from it (a forward line)."""
    code = (src or {}).get("code")
    if not code or "step(" in code:
        return True
    try:
        body = ast.parse(code.strip()).body
    except SyntaxError:
        return True
    line = body[0] if len(body) == 1 else None
    if isinstance(line, ast.AugAssign):
        return True
    if isinstance(line, ast.Assign):
        # NB: ``p.data = ...``, ``w[0] = ...``: written into, not computed from
        return not isinstance(line.targets[0], ast.Name)
    call = line.value if isinstance(line, ast.Expr) else None
    func = call.func if isinstance(call, ast.Call) else None
    return isinstance(func, ast.Attribute) and func.attr.endswith("_")


def _out_of_place(code: str | None, masks: Container[str] = ()) -> str:
    """How to write the in-place line ``code`` out of place (the generic advice if unknown);
    ``masks``: the names of boolean tensors (``x[mask] = 0`` is ``x.masked_fill(mask, 0)``)."""
    generic = ("Write `x = x + 1` (a new tensor) instead of `x += 1` / `x.add_(1)`, or modify a "
               "`.clone()` of it")
    text = (code or "").strip()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return generic

    def src(n: ast.AST) -> str:
        """The user's own text of a part of the line (``1e-6``, not ``1e-06``)."""
        return ast.get_source_segment(text, n) or ast.unparse(n)
    line = tree.body[0] if len(tree.body) == 1 else None
    if isinstance(line, ast.AugAssign) and isinstance(line.target, ast.Subscript):
        # NB: ``h[:, 0] += b`` written ``h[:, 0] = h[:, 0] + b`` still writes into ``h``
        x = src(line.target.value)
        return (f"Write into a copy: `{x} = {x}.clone()` right before `{text}` (the op that "
                f"saved `{x}` keeps the original)")
    if isinstance(line, ast.AugAssign):
        x, op, y = src(line.target), _BINOPS.get(type(line.op)), src(line.value)
        if op is not None:
            return f"Write `{x} = {x} {op} {y}` (a new tensor) instead of `{text}`"
    if isinstance(line, ast.Assign) and isinstance(line.targets[0], ast.Subscript):
        target = line.targets[0]
        x = src(target.value)
        if isinstance(target.slice, ast.Name) and target.slice.id in masks:
            return (f"Write `{x} = {x}.masked_fill({target.slice.id}, {src(line.value)})` (a "
                    f"new tensor) instead of `{text}`")
        return (f"Write into a copy instead of into `{x}` (`{x} = {x}.clone()` first, or build "
                "the new values with `torch.where`)")
    call = line.value if isinstance(line, ast.Expr) else None
    func = call.func if isinstance(call, ast.Call) else None
    if isinstance(call, ast.Call) and isinstance(func, ast.Attribute) and \
            _dotted(func.value) is not None and func.attr.endswith("_") and \
            not func.attr.endswith("__"):
        # NB: ``p.clamp_(a, b)`` alone on its line: its out-of-place form must be assigned
        x = src(func.value)
        args = text[len(src(func)):] if text.startswith(src(func)) else \
            "(" + ", ".join(src(a) for a in [*call.args, *call.keywords]) + ")"
        return f"Write `{x} = {x}.{func.attr[:-1]}{args}` (a new tensor) instead of `{text}`"
    calls = [n for n in ast.walk(line) if isinstance(n, ast.Call)] if line is not None else []
    alone = isinstance(line, ast.Expr) and calls and line.value is calls[0] and \
        calls[0].args and _dotted(calls[0].args[0]) is not None
    for call in calls:
        flag = next((k for k in call.keywords if k.arg == "inplace"), None)
        at = _inplace_position(call)
        if alone and call is calls[0] and (flag is not None or at is not None):
            # NB: ``F.relu(y, inplace=True)`` alone on its line: without the flag, its result
            # must be assigned
            x = src(call.args[0])
            plain = re.sub(r",\s*inplace\s*=\s*True", "", src(call)) if at is None else \
                ast.unparse(ast.Call(call.func, call.args[:at], call.keywords))
            return f"Write `{x} = {plain}` (a new tensor) instead of `{text}`"
        if flag is not None and isinstance(flag.value, ast.Constant) and flag.value.value:
            return f"Drop `inplace=True` from `{ast.unparse(call)}`"
        if at is not None:
            return (f"Pass `inplace=False` (its argument {at + 1}, `True` here) to "
                    f"`{ast.unparse(call)}`")
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr.endswith("_") and \
                not func.attr.endswith("__"):
            return (f"Call `{func.attr[:-1]}` (out of place, a new tensor) instead of "
                    f"`{func.attr}` in `{ast.unparse(call)}`")
    if calls:
        # NB: the change happened inside something this line calls (a module's forward)
        return _INSIDE
    return generic


_INSIDE = ("The change happens inside what this line calls: look there for an `inplace=True` "
           "layer (`nn.ReLU(inplace=True)`: use `nn.ReLU()`), an in-place method "
           "(`x.add_(...)`: use `x.add(...)`) or `x += ...` (use `x = x + ...`); an "
           "`nn.Embedding` with `max_norm` renormalizes its weight in place at each call (where "
           "the weight is used directly, use `embedding.weight.clone()`)")


def _inplace_position(call: ast.Call, layer: bool = False) -> int | None:
    """Where a call to a functional (``F.leaky_relu(x, 0.1, True)``), or with ``layer`` to a
    layer's class (``nn.ReLU(True)``), passes a true ``inplace`` by position: found by the
    name in ``torch.nn.functional`` (``torch.nn``)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else \
        func.id if isinstance(func, ast.Name) else None
    if name is None:
        return None
    from ..torch import nn
    fn = getattr(nn if layer else nn.functional, name, None)
    try:
        params = list(inspect.signature(fn).parameters) if callable(fn) else []
    except (TypeError, ValueError):
        return None
    at = params.index("inplace") if "inplace" in params else None
    if at is None or len(call.args) <= at:
        return None
    arg = call.args[at]
    return at if isinstance(arg, ast.Constant) and arg.value is True else None


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
           ast.MatMult: "@", ast.FloorDiv: "//", ast.Mod: "%"}


def _no_derivative(snap: Snapshot, node: NodeInfo, current: BackwardRecord | None,
                   built: dict[str, Any], backward: int | None,
                   names: tuple[list[str], str]) -> Diagnosis:
    attempt = _call(current) if current is not None else "the next backward"
    tense = "failed" if backward is not None else "fails"
    code = (node.source or {}).get("code") or ""
    if not any(op in code for op in ("//", "%", "floor_divide", "remainder")):
        # NB: another op PyTorch builds a NotImplemented node for (a multi-margin loss's
        # gradient under create_graph, ...): no rewrite to offer but not differentiating it
        summary = (f"{attempt} {tense} at {_what(node, names)}: PyTorch has no derivative "
                   "for this op (its graph holds a `NotImplemented` node), so the backward "
                   "raises when it reaches it.")
        fixes = [Fix("detach", "Keep it out of the backward",
                     "If no gradient should flow through it, compute it from detached tensors "
                     "(or under `torch.no_grad()`); if it is a gradient taken with "
                     "`create_graph=True`, differentiate another quantity a second time.")]
        return Diagnosis(backward, backward is None, "no_derivative", node.id, node.name, [],
                         [], built, summary, fixes, snap.index)
    summary = (f"{attempt} {tense} at {_what(node, names)}: PyTorch has no derivative for "
               "this op (a floor division `a // b`, or a number's remainder `2.0 % t`), so "
               "the backward raises when it reaches it.")
    fixes = [
        Fix("detach", "Apply it to a detached tensor",
            "Its result is flat almost everywhere: if no gradient should flow through it, "
            "write `t.detach() // b` (or compute it under `torch.no_grad()`)."),
        Fix("differentiable_form", "Use a form PyTorch can differentiate",
            "`torch.div(a, b, rounding_mode='floor')` gives the same values as `a // b`, with "
            "a zero gradient; `torch.remainder(torch.full_like(t, 2.0), t)` is `2.0 % t` "
            "with a gradient for `t`."),
    ]
    return Diagnosis(backward, backward is None, "no_derivative", node.id, node.name, [], [],
                     built, summary, fixes, snap.index)


# NB: PyTorch's errors for a backward from a tensor with no graph, from many values, and
# anomaly mode's for a node whose gradient has nan
NO_GRAD = "does not require grad and does not have a grad_fn"
BACKWARD_TWICE = "Trying to backward through the graph a second time"
NOT_SCALAR = "grad can be implicitly created only for scalar outputs"
NAN = "returned nan values in its"
# ... and ``autograd.grad``'s, for an input the output does not depend on, or one that does
# not require grad
UNUSED = re.compile(r"differentiated Tensor at index (\d+) appears to not have been used")
NO_GRAD_INPUT = "One of the differentiated Tensors does not require grad"
# ... a custom Function's backward that returned too few or too many gradients, or one of
# another shape than its input; a tensor hook that returned a gradient of another size
COUNT = re.compile(r"function (\w+?)Backward returned an incorrect number of gradients "
                   r"\(expected (\d+), got (\d+)\)")
SHAPE = re.compile(r"Function (\w+?)Backward returned an invalid gradient at index (\d+) - got "
                   r"\[([^\]]*)\] but expected shape compatible with \[([^\]]*)\]")
HOOK_SIZE = re.compile(r"hook '([^']*)' has changed the size of value")
# per op (its node's name less ``Backward0``), where its derivative is infinite or undefined
_NAN_HINTS = {
    "Sqrt": "The derivative of `sqrt` at 0 is infinite: take `x.clamp(min=1e-12).sqrt()` (or "
            "`(x + 1e-12).sqrt()`), as for a norm or a distance that can be 0.",
    "Log": "The derivative of `log` at 0 is infinite: take `x.clamp(min=1e-12).log()`, or use "
           "`log_softmax` / `logsumexp` / `F.binary_cross_entropy_with_logits` instead of a "
           "log of a probability.",
    "Div": "Division by 0 (or a value near it): divide by `y.clamp(min=1e-12)` or `y + 1e-12`.",
    "Pow": "`x ** p` with a fractional or negative `p` has no finite derivative at 0 (nor for "
           "a negative `x`): clamp `x` to a small positive value first.",
    "LinalgVectorNorm": "A norm's derivative at the zero vector is undefined: add a small "
                        "epsilon (`(x.pow(2).sum() + 1e-12).sqrt()`) or clamp the norm.",
    "Acos": "The derivative of `acos` at -1 and 1 is infinite: clamp its input to "
            "`[-1 + 1e-7, 1 - 1e-7]`.",
    "Asin": "The derivative of `asin` at -1 and 1 is infinite: clamp its input to "
            "`[-1 + 1e-7, 1 - 1e-7]`.",
    "": "Find the input value where this op's derivative is infinite or undefined (0 for "
        "`sqrt`, `log`, a division or a norm; a negative base for a fractional power) and "
        "keep it away (`x.clamp(min=1e-12)`, or add a small epsilon); check also the gradient "
        "that flows in (a step before it with an infinite value).",
}


def _other(recording: Recording, snap: Snapshot, b: BackwardRecord) -> Diagnosis:
    """A backward that failed for another reason than a freed, modified or underivable saved
    value (a non-reentrant checkpoint's recomputation, a hook's error): what it raised, where."""
    assert b.error is not None
    node = next((n for n in snap.nodes if n.id == b.failed_at), None) if b.failed_at else None
    names = _names(recording, snap, node) if node is not None else ([], "")
    where = f" at {_what(node, names)}" if node is not None else ""
    message = b.error["message"].strip().splitlines()[0] if b.error["message"].strip() else ""
    if not message.endswith((".", "!", "?")):
        message += "."
    summary = (f"{_call(b)} failed{where}: {b.error['type']}: {message} This is not a freed or "
               "modified saved buffer.")
    fixes = []
    # NB: the user's names of the backward's roots (a tensor with no graph, or a node)
    labels = {t.id: [t.label] for t in snap.tensors if t.label}
    labels.update((n.id, n.labels) for n in snap.nodes if n.labels)
    named = [labels[r][0] for r in b.roots if r in labels]
    what = " and ".join(f"`{x}`" for x in named) or "the tensor"
    spent = _used_up(b.source) if b.source and message.startswith(EMPTY_GRAD_INPUTS) \
        else None
    if spent is not None:
        fixes.append(spent[2])
        summary = f"{_call(b)} failed before running any node: it {spent[1]}"
    elif node is None and NO_GRAD in message:
        summary = (f"{_call(b)} failed before running any node: {what} does not require grad, "
                   "so no graph was recorded for it. It was computed with gradients off "
                   "(inside `torch.no_grad()` or `torch.inference_mode()`), from tensors none of "
                   "which requires grad, or from a detached value (`.detach()`, `.data`, "
                   "`.item()`, a round trip through numpy).")
        made = _made_by_grad(recording, b, named)
        source = "it was"
        root = _root_of(b) if made is None and not named else None
        if root is not None:
            # NB: an expression of the gradients (``grad(g @ v, w)``): the name it reads that
            # an ``autograd.grad`` line assigned
            read = [x for n in ast.walk(root) if (x := _dotted(n))]
            made = next((g for x in read if (g := _made_by_grad(recording, b, [x]))), None)
            if made is not None:
                got = next(x for x in read if _made_by_grad(recording, b, [x]) is made)
                what, source = f"`{ast.unparse(root)}`, computed from `{got}`,", f"`{got}` was"
        elif made is None and b.source:
            # NB: a name the line assigned from the gradients (``gv = sum((g * v).sum() for g,
            # v in zip(grads, vs))``): the name it reads that an ``autograd.grad`` line made
            assigned = _initial(b.source, named[:1])
            from_ = _reads(assigned.split("=", 1)[1]) if assigned and "=" in assigned else set()
            origin = next((x for x in sorted(from_) if _made_by_grad(recording, b, [x])), None)
            if origin is not None:
                made = _made_by_grad(recording, b, [origin])
                what, source = f"{what}, computed from `{origin}`,", f"`{origin}` was"
        if made is not None:
            # NB: gradients an ``autograd.grad`` call made without ``create_graph=True``: a
            # backward through them (a gradient penalty, a Hessian-vector product) needs it
            summary = (f"{_call(b)} failed before running any node: {what} does not require "
                       f"grad: {source} made by {_call(made)} without `create_graph=True`, so "
                       "no graph was recorded for it.")
            rewritten = _with_create_graph(made.source["code"] if made.source else None)
            fixes.append(Fix("create_graph", f"`create_graph=True` on {_call(made)}",
                             (f"`{rewritten}` " if rewritten else "")
                             + "makes the gradients part of a graph, so a backward can go "
                             "through them (a gradient penalty, a Hessian-vector product)."))
        elif (frozen := _frozen(snap, b)) is not None:
            # NB: parameters frozen by a line of the file (all of them, with a loop over
            # ``model.parameters()``), the trained head's among them
            head = summary[:summary.index(" It was computed with gradients off")]
            where = _line(frozen.line) + (f", in the loop at {_line(frozen.loop)}"
                                          if frozen.loop is not None else "")
            summary = head + (f" {_cap(where)}, turned off gradients for "
                              f"{_listed(frozen.names)}, and {what} reads no tensor that "
                              "requires grad.")
            last = frozen.last
            if frozen.trained is not None and frozen.optimizer is not None:
                summary += (f" {_cap(_line(frozen.optimizer))} is to train "
                            f"`{frozen.trained}`, whose parameters are among them.")
                fixes.append(Fix("requires_grad", f"Let `{frozen.trained}` train",
                                 f"Add `{frozen.trained}.requires_grad_(True)` after line "
                                 f"{last}: freeze only what is to stay fixed, and the loss then "
                                 f"has a graph through `{frozen.trained}`."))
            else:
                fixes.append(Fix("requires_grad", "Freeze only what is to stay fixed",
                                 f"{_cap(where)}, freezes every parameter the loss reads: "
                                 "run it over the part to keep fixed only (a backbone's "
                                 "`.parameters()`), or call `requires_grad_(True)` on the part "
                                 f"to train after line {last}."))
        elif (cut := _cut_origin(recording, snap, b)) is not None:
            # NB: the line that made a value with no graph, found back from the loss
            head = summary[:summary.index(" It was computed with gradients off")]
            called = "" if cut.called is None else \
                f" That line is in `{cut.called[0]}`, which {_line(cut.called[1])} calls."
            if cut.block is not None and cut.block["code"].startswith("@"):
                # NB: a function decorated ``@torch.no_grad()``: all of it runs so
                summary = head + (f" {_first_up(_line(cut.line))} is in a function "
                                  f"decorated with `{cut.block['code']}` "
                                  f"({_lines(cut.block)}), which records no graph in any of "
                                  f"its lines: `{cut.name}` has none"
                                  + ("." if what == f"`{cut.name}`" else
                                     f", and {what} is computed from it.") + called)
                fixes.append(Fix("grad_enabled", f"Drop `{cut.block['code']}`",
                                 f"Drop {_lines(cut.block)}: the function then records a "
                                 "graph; where it also evaluates, call it under `with "
                                 "torch.no_grad():` there instead."))
            elif cut.block is not None:
                summary = head + (f" {_first_up(_line(cut.line))} runs under "
                                  f"{_line(cut.block, ': ')}, which records no graph: "
                                  f"`{cut.name}` has none"
                                  + ("." if what == f"`{cut.name}`" else
                                     f", and {what} is computed from it.") + called)
                feeds = _block_feeds(cut)
                moved = (f"{_lines(cut.line)}" if len(feeds) < 2 else
                         "lines " + ", ".join(str(x) for x in feeds[:-1])
                         + f" and {feeds[-1]} (`{cut.name}` and what it is computed from "
                         "there)")
                fixes.append(Fix("grad_enabled",
                                 f"Build `{cut.name}` outside `{cut.block['code']}`",
                                 f"Move {moved} out of that block"
                                 + (", in their order," if len(feeds) > 1 else "")
                                 + " before it (dedented): keep under it only what needs no "
                                 "gradient (an evaluation, an accuracy, an update of "
                                 "statistics)."))
            else:
                cuts = ", ".join(f"`{c}`" for c in cut.how)
                from_it = "" if what == f"`{cut.name}`" else \
                    f", and {what} is computed from it"
                summary = head + (f" {_first_up(_line(cut.line))} takes the values out of the "
                                  f"graph ({cuts}): `{cut.name}` has none{from_it}.")
                also = ""
                if cut.remade is not None:
                    summary = summary[:-1] + (f"; {_line(cut.remade[0])} makes a new tensor "
                                              "of its values, with no graph either.")
                    also = f", and `{cut.remade[1]}` at {_lines(cut.remade[0])}"
                summary += called
                fixes.append(Fix("grad_enabled", f"Compute `{cut.name}` with torch operations "
                                 "on the tensor itself",
                                 (f"`{cut.rewritten}` at {_lines(cut.line)}{also}: "
                                  if cut.rewritten else
                                  f"At {_lines(cut.line)}, without {cuts}, with torch's "
                                  "functions (not numpy's, nor Python numbers): ")
                                 + "the graph then goes on through it to the loss."))
        else:
            fixes += [
                Fix("grad_enabled", f"Compute {what} with gradients on",
                    "Build it outside `torch.no_grad()` / `torch.inference_mode()`, from the "
                    "tensors themselves: not from `.detach()`, `.data`, `.item()` or numpy "
                    "values, which carry no graph."),
                Fix("requires_grad", "Make what it depends on require grad",
                    "Create the leaves with `requires_grad=True` (or call "
                    "`x.requires_grad_()`), and check that no parameter it uses was frozen "
                    "(`p.requires_grad = False`).")]
    elif NOT_SCALAR in message:
        summary = (f"{_call(b)} failed before running any node: {what} holds more than one "
                   "value, and a backward from it needs the gradient of each (a loss is one "
                   "number).")
        x = named[0] if len(named) == 1 else None
        fixes.append(Fix(
            "scalar_loss", "Reduce it to one number, or pass its gradient",
            (f"Call `{x}.sum().backward()` or `{x}.mean().backward()`" if x else
             "Call the backward on its `.sum()` or `.mean()`")
            + " (a loss), or pass `gradient=` (a tensor of its shape) to `backward`."))
    elif (m := UNUSED.search(message)) is not None or NO_GRAD_INPUT in message:
        inputs = _grad_call_inputs(b)
        if m is not None:
            i = int(m.group(1))
            # NB: the name of the tensor itself, where the call passed a list of them
            # (``list(model.parameters())``)
            given = b.inputs[i] if b.inputs and i < len(b.inputs) and \
                (not inputs or len(inputs) != len(b.inputs)) else None
            label = next((t.label for t in snap.tensors if t.id == given and t.label), None)
            x = f"`{label}`" if label else \
                f"`{inputs[i]}`" if inputs and i < len(inputs) else f"input {i}"
            of = f" (input {i} of `{inputs[0]}`)" if label and inputs and len(inputs) == 1 \
                else ""
            summary = (f"{_call(b)} failed before running any node: {x}{of} is not in the graph "
                       f"of {what}: nothing {what} was computed from leads back to it, so it "
                       "has no gradient to give.")
            fixes += [
                Fix("allow_unused", "`allow_unused=True`, if that is expected",
                    "Its gradient is then None (`materialize_grads=True` gives zeros "
                    "instead)."),
                Fix("use_input", f"Compute {what} from {x}, or leave it out of the inputs",
                    f"Check that {what} is built from {x} itself: not from a copy, a "
                    "`.detach()`, or a tensor made before it was replaced.")]
        else:
            rows = [t for t in snap.tensors if t.label in (inputs or [])
                    and not t.requires_grad]
            x = " and ".join(f"`{t.label}`" for t in rows) or "one of the inputs"
            summary = (f"{_call(b)} failed before running any node: {x} does not require "
                       "grad, and `autograd.grad` gives gradients only for tensors that do.")
            fixes.append(Fix("requires_grad", f"Make {x} require grad, or leave "
                             f"{'them' if len(rows) > 1 else 'it'} out of the inputs",
                             "Create it with `requires_grad=True` (or call "
                             "`.requires_grad_()` before computing from it)."))
    elif (m := COUNT.search(message) or SHAPE.search(message)) is not None:
        told = _function_error(recording, m)
        if told is not None:
            summary = f"{_call(b)} failed at {_what(node, names) if node else m.group(1)}: " \
                + told[0]
            fixes.append(told[1])
    elif (hook := HOOK_SIZE.search(message)) is not None:
        hooks = _hook_lines(recording, hook.group(1))
        lines = [line for line, _ in hooks]
        hooked = _hooked_node(snap, hooks[0][1]) if node is None and len(hooks) == 1 else None
        if hooked is not None:
            # NB: (real torch runs a tensor's hooks before the recorder's hook on its node: the
            # node is the one of the tensor the line registers the hook on)
            summary = summary.replace(f"{_call(b)} failed:", f"{_call(b)} failed at "
                                      f"{_what(hooked, _names(recording, snap, hooked))}:", 1)
        summary += (f" A hook on a tensor (`register_hook`) gets the gradient that flows into "
                    f"the tensor, and `{hook.group(1)}` returned one of another shape.")
        fixes.append(Fix("hook_shape", "Return None, or a gradient of the same shape",
                         ("The hook at " + _line(lines[0]) if len(lines) == 1 else "The hook")
                         + " must return None (the gradient stays as it is) or a tensor of the "
                         "gradient's shape (`g * mask`, `g.clamp(-1, 1)`), not a reduction of "
                         "it: to log a statistic, compute it inside and return None."))
    elif NAN in message and node is not None:
        summary = (f"{_call(b)} failed at {_what(node, names)}: anomaly mode found nan in the "
                   "gradient this node computed. Its derivative is infinite or undefined at "
                   "some input value (an infinite derivative times a zero gradient is nan), or "
                   "a nan or infinite gradient flowed into it.")
        op = node.name.rstrip("0123456789").removesuffix("Backward")
        fixes.append(Fix("finite_derivative", "Keep the input away from where the derivative "
                         "is infinite", _NAN_HINTS.get(op, _NAN_HINTS[""])))
    if b.error["type"] == "CheckpointError":
        fixes.append(Fix(
            "deterministic_checkpoint", "Make the checkpointed function recompute the same",
            "A non-reentrant `checkpoint` runs its function again in the backward, which must "
            "save the same tensors (as many, of the same shapes and dtypes) as the forward "
            "did: keep what changes between the two runs (a counter, a random choice, a "
            "mode switch) out of the function, or pass `determinism_check=\"none\"` where "
            "only that check objects; read each saved tensor once in a custom `Function`."))
    return Diagnosis(b.number, False, "other", node.id if node is not None else "",
                     node.name if node is not None else "", [], [],
                     {"labels": names[0], "source": node.source if node is not None else None},
                     summary, fixes, snap.index)


def _function_error(recording: Recording, m: re.Match[str]) -> tuple[str, Fix] | None:
    """What a custom ``Function``'s backward returned wrongly (``COUNT``: how many gradients;
    ``SHAPE``: one's shape), read with the class in the user's files: the summary's text, and
    the fix (the ``return`` line rewritten where there is one)."""
    found = _function_class(recording, m.group(1))
    if found is None:
        return None
    file, cls, inputs, returns = found
    ret = returns[0] if len(returns) == 1 else None
    at = {"file": file, "line": ret.lineno,
          "code": frames.statement_at(file, ret.lineno)[2]} if ret is not None else None
    where = f" ({_line(at, ': ')})" if at is not None else ""
    if m.re is COUNT:
        expected, got = int(m.group(2)), int(m.group(3))
        text = (f"`{cls}.backward`{where} returns {got} gradient{'s' if got != 1 else ''}, but "
                f"`{cls}.forward` takes {expected} input{'s' if expected != 1 else ''} ("
                + ", ".join(f"`{x}`" for x in inputs) + "): a backward returns one value per "
                "input of the forward, `None` for one that needs no gradient (a number, a "
                "flag, an index).")
        value = ret.value if ret is not None else None
        given = list(value.elts) if isinstance(value, ast.Tuple) else \
            [value] if value is not None else []
        if got < expected and len(given) == got and len(inputs) == expected:
            missing = inputs[got:]
            rewritten = "return " + ", ".join([*(ast.unparse(v) for v in given),
                                               *(["None"] * len(missing))])
            return text, Fix("function_gradients", "Return `None` for " + ", ".join(
                f"`{x}`" for x in missing), f"`{rewritten}`" + (
                f" at line {at['line']}" if at is not None else "")
                + ": one gradient per input, in the forward's order.")
        return text, Fix("function_gradients", f"Return {expected} values from `{cls}.backward`",
                         "One per input of `forward` (after `ctx`), in its order: a gradient "
                         "for a tensor that needs one, `None` for the others.")
    i = int(m.group(2))
    name = f"`{inputs[i]}`" if i < len(inputs) else f"input {i}"
    text = (f"`{cls}.backward`{where} returned, for {name}, a gradient of shape "
            f"[{m.group(3)}], where {name} has shape [{m.group(4)}]: each gradient has its "
            "input's shape.")
    return text, Fix("function_gradients", f"Return a gradient of {name}'s shape",
                     f"Build it from the gradient of the output to the shape of {name}: where "
                     "the forward reduced a dimension (`x.sum(1)`), expand it back "
                     f"(`g.unsqueeze(1).expand_as({inputs[i] if i < len(inputs) else 'x'})`); "
                     "where it broadcast an input, sum the gradient over the broadcast "
                     "dimensions.")


def _function_class(recording: Recording, name: str
                    ) -> tuple[str, str, list[str], list[ast.Return]] | None:
    """The user's ``Function`` class ``name`` (a class with a ``forward`` and a ``backward``):
    its file, name, the forward's inputs (after ``ctx``) and the backward's ``return``s."""
    for f, c in _user_nodes(recording):
        if not isinstance(c, ast.ClassDef) or c.name != name:
            continue
        methods = {d.name: d for d in c.body if isinstance(d, ast.FunctionDef)}
        fwd, bwd = methods.get("forward"), methods.get("backward")
        if fwd is None or bwd is None:
            continue
        inputs = [a.arg for a in fwd.args.args[1:]]
        returns = [r for r in ast.walk(bwd) if isinstance(r, ast.Return)]
        return f, c.name, inputs, returns
    return None


def _hooked_node(snap: Snapshot, name: str | None) -> NodeInfo | None:
    """The node of the tensor ``name`` a hook is registered on: the node that made it, or a
    leaf's accumulator."""
    found = [n for n in snap.nodes if name and name in n.labels]
    return next((n for n in found if n.name != ACCUMULATE), found[0] if found else None)


def _hook_lines(recording: Recording, hook: str) -> list[tuple[dict[str, Any], str | None]]:
    """The lines of the user's files that register ``hook`` on a tensor (``h.register_hook(
    fn)``; for a lambda, each ``register_hook(lambda ...)``), each with that tensor's name."""
    out = []
    for f, c in _user_nodes(recording):
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and \
                c.func.attr == "register_hook" and len(c.args) == 1 and (
                isinstance(c.args[0], ast.Lambda) if hook == "<lambda>" else
                (_dotted(c.args[0]) or "").rsplit(".", 1)[-1] == hook):
            out.append((_place(f, c.lineno), _dotted(c.func.value)))
    return out


def diagnose(recording: Recording) -> list[Diagnosis]:
    """One diagnosis per failed backward of the recording; then memory that grows step after
    step (seen, where a prediction is only what would happen); then one per live root that
    the last snapshot predicts would fail; then ``retain_graph=True`` that nothing needed."""
    with _home_of(recording):
        # NB: each summary reads as sentences (``Backward #2 at line 9 ...``)
        return [dataclasses.replace(d, summary=_cap(d.summary)) for d in _diagnoses(recording)]


# the file of the user's script (the outermost of a backward's lines): a line of another file
# (a module of helpers the script imports) is named with its file's name
_HOME: ContextVar[str | None] = ContextVar("_HOME", default=None)


@contextmanager
def _home_of(recording: Recording) -> Iterator[None]:
    places = [[b.source, *(b.callers or [])] for b in recording.backwards if b.source]
    last = recording.snapshots[-1] if len(recording.snapshots) else None
    home = places[-1][-1]["file"] if places else \
        last.source["file"] if last is not None and last.source else None
    token = _HOME.set(home)
    try:
        yield
    finally:
        _HOME.reset(token)


def _diagnoses(recording: Recording) -> list[Diagnosis]:
    out: list[Diagnosis] = []
    by_index = {s.index: s for s in recording.snapshots}
    for b in recording.backwards:
        if b.error is None or b.snapshot_before is None:
            continue
        before = by_index.get(b.snapshot_before)
        if before is None:
            continue
        # NB: no prediction: its roots have no graph (a loss that does not require grad)
        pred = _as_failed(before, before.prediction, b)
        d = _diagnose(recording, before, pred, b.number,
                      b.roots[0] if b.roots else None) if pred is not None else None
        out.append(d if d is not None else _other(recording, before, b))
    for snap in recording.snapshots:
        if snap.kind == "manual" and snap.error is not None:
            # NB: where the recorded code stopped at an error outside any backward
            raised = _raised(recording, snap)
            if raised is not None:
                out.append(raised)
    growth = _growth(recording)
    if growth is not None:
        out.append(growth)
    unreached = _unreached(recording)
    if unreached is not None:
        out.append(unreached)
    stale = _stale_grads(recording)
    if stale is not None:
        out.append(stale)
    thrown = _thrown_grads(recording) if stale is None else None
    if thrown is not None:
        out.append(thrown)
    out += _constant_derivatives(recording)
    out += _leaf_losses(recording)
    out += _self_compared(recording)
    out += _piled_hooks(recording)
    out += _remade_parameters(recording)
    never = _never_stepped(recording) if stale is None else None
    if never is not None:
        out.append(never)
    if recording.snapshots:
        # a live loss that no backward has run yet, but whose backward would fail now
        last = recording.snapshots[-1]
        by_id = {n.id: n for n in last.nodes}
        shapes = {t.grad_fn: t.shape for t in last.tensors if t.grad_fn is not None}
        grouped: dict[str, list[Any]] = {}
        for p in last.predictions:
            root = by_id.get(p.root or "")
            # NB: a root the user holds by no name (an LSTM's final state kept in a module's
            # tuple) is no loss they will backward
            if root is None or root.executed_by or not root.recorded or not root.labels:
                continue
            if math.prod(shapes.get(root.id, [])) != 1:
                # NB: a named root of many values (an RNN's final state) is no loss: a
                # backward from it would need a gradient argument, so it is not foretold
                continue
            # NB: the entries of one list (losses kept in a history, never backwarded): one
            # diagnosis for the first, which says how many more there are
            box = _container(root.labels)
            if box is not None and box in grouped:
                grouped[box][1] += 1
                continue
            d = _diagnose(recording, last, p, None, p.root)
            if d is not None:
                out.append(d)
                if box is not None:
                    grouped[box] = [len(out) - 1, 0]
        for box, (at, more) in grouped.items():
            if more:
                out[at] = dataclasses.replace(
                    out[at], summary=out[at].summary + f" The same holds for {more} other "
                    f"entr{'y' if more == 1 else 'ies'} of `{box}`.")
    if growth is None and recording.backwards:
        out += _unneeded_retains(recording)
    return out


_REGISTERS = ("register_hook", "register_forward_hook", "register_forward_pre_hook",
              "register_full_backward_hook", "register_full_backward_pre_hook",
              "register_backward_hook", "register_post_accumulate_grad_hook")


def _piled_hooks(recording: Recording) -> list[Diagnosis]:
    """A hook registered at each pass of the loop that backwards (``model.weight.register_hook(
    lambda g: g.clamp(-0.5, 0.5))`` inside the training loop) on a tensor or a module the loop
    does not make anew: hooks stay until removed, so they pile up, and by the N-th backward N of
    them run one after the other. Told once per line, where the loop's backward line ran twice
    at least and the hook's handle is not removed in the loop."""
    lines: dict[tuple[str, int], list[BackwardRecord]] = {}
    for b in recording.backwards:
        if b.error is None and b.via is None and b.source:
            lines.setdefault((b.source["file"], b.source["line"]), []).append(b)
    out = []
    for (file, line), runs in lines.items():
        tree = _parsed_file(file)
        loop = _innermost(tree, line, _LOOPS) if tree is not None and len(runs) > 1 else None
        if loop is None or loop is tree:
            continue
        # NB: what the loop makes anew (a loop over a model's parameters gives the same ones)
        made = {x for n in ast.walk(loop) if isinstance(n, (ast.Assign, ast.AugAssign,
                                                            ast.AnnAssign, ast.With))
                for x in _stored(n)} | {
            x for n in ast.walk(loop) if isinstance(n, ast.For) and n is not loop and not (
                isinstance(n.iter, ast.Call) and isinstance(n.iter.func, ast.Attribute) and
                n.iter.func.attr in ("parameters", "modules", "children"))
            for x in _stored(n.target)} | {x for x in _stored(getattr(loop, "target", loop))}
        branches = [n for n in ast.walk(loop) if isinstance(n, ast.If) and not _holds(n, line)]
        # NB: ``p`` of ``for p in model.parameters():``, named with what it goes over
        over = {x: f"each `{x}` of `{ast.unparse(n.iter)}`" for n in ast.walk(loop)
                if isinstance(n, ast.For) and n is not loop for x in _stored(n.target)}
        removed = {_dotted(n.func.value) for n in ast.walk(loop) if isinstance(n, ast.Call) and
                   isinstance(n.func, ast.Attribute) and n.func.attr == "remove"}
        handles = {id(n.value): _dotted(n.targets[0]) for n in ast.walk(loop)
                   if isinstance(n, ast.Assign) and len(n.targets) == 1}
        for c in ast.walk(loop):
            if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and
                    c.func.attr in _REGISTERS):
                continue
            owner = _dotted(c.func.value)
            if owner is None or owner in made or owner.split(".")[0] in made or \
                    handles.get(id(c)) in removed or any(_holds(b, c.lineno) for b in branches):
                continue
            hook, header = _place(file, c.lineno), _place(file, getattr(loop, "lineno", 0))
            last = runs[-1]
            n = len(runs)
            tensor = c.func.attr in ("register_hook", "register_post_accumulate_grad_hook")
            summary = (f"{_cap(_line(hook))} registers a hook on "
                       f"{over.get(owner, f'`{owner}`')} at each pass of the "
                       f"loop at {_lines(header)}, and a hook stays until it "
                       f"is removed: at backward #{last.number} ({_lines(last.source or {})}), "
                       f"{n} of them run "
                       + ("on the gradient of" if tensor else "at each call of")
                       + f" `{owner}`, one after the other, and one more at each step.")
            fixes = [Fix("hook_once", "Register the hook once, before the loop",
                         f"Move {_lines(hook)} above {_lines(header)}: the "
                         "hook then runs once for each "
                         + ("gradient." if tensor else "call.")),
                     Fix("hook_once", "Or remove it at the end of each pass",
                         f"`handle = {ast.unparse(c)}` at {_lines(hook)}, and "
                         f"`handle.remove()` after {_line(last.source or {})}.")]
            out.append(Diagnosis(last.number, False, "piled_hooks", "", "", [], [],
                                 {"labels": [owner], "source": hook}, summary, fixes,
                                 last.snapshot_after))
    return out


# NB: ops that compare their two inputs: given one tensor twice, their value is a constant
_COMPARES = {"MseLossBackward0", "L1LossBackward0", "SmoothL1LossBackward0",
             "HuberLossBackward0", "SubBackward0"}


def _self_compared(recording: Recording) -> list[Diagnosis]:
    """A loss that compares a tensor with itself because a target was bound to the prediction
    (``q_target = q_pred``, then ``q_target[idx, a] = r + ...`` writes into both): the loss is
    a constant and every gradient 0, so nothing trains. Told once per backward line, where its
    graph's comparing node has one node at both inputs and the line that made the alias is
    found."""
    out = []
    seen: set[tuple[Any, ...]] = set()
    by_index = {s.index: s for s in recording.snapshots}
    for b in recording.backwards:
        before = by_index.get(b.snapshot_before) if b.snapshot_before is not None else None
        if b.error is not None or b.via is not None or not b.source or before is None:
            continue
        place = (b.source["file"], b.source["line"])
        if place in seen:
            continue
        for n in (n for r in b.roots for n in _subgraph(before, r)):
            both = [m for m in n.next if m is not None]
            if n.name not in _COMPARES or len(both) != 2 or both[0] != both[1] or \
                    not n.source:
                continue
            same = next((m for m in before.nodes if m.id == both[0]), None)
            labels = [x for x in (same.labels if same is not None else []) if "." not in x]
            found = next(((x, y, code) for x in labels for y in labels if x != y and
                          (code := _initial(n.source, [x])) == f"{x} = {y}"), None)
            if found is None:
                continue
            alias, of, code = found
            tree = _parsed_file(n.source["file"])
            at = next((m.lineno for m in ast.walk(tree) if isinstance(m, ast.Assign) and
                       m.lineno < n.source["line"] and ast.unparse(m) == code),
                      None) if tree is not None else None
            if at is None:
                continue
            made = _place(n.source["file"], at)
            seen.add(place)
            summary = (f"{_cap(_line(n.source))} compares `{of}` with `{alias}`, and they are "
                       f"one tensor: {_line(made)} makes no copy, so what is written into "
                       f"`{alias}` is written into `{of}` too. The loss is a constant, and "
                       "every gradient it gives is 0: nothing trains.")
            fixes = [Fix("clone", f"Make `{alias}` a copy with no graph",
                         f"`{alias} = {of}.detach().clone()` at {_lines(made)}: a target of its "
                         f"own, which the loss compares `{of}` with (as a target, it takes no "
                         "gradient).")]
            out.append(Diagnosis(b.number, False, "self_compared", n.id, n.name, [], [],
                                 {"labels": [of, alias], "source": made}, summary, fixes,
                                 b.snapshot_before))
            break
    return out


def _leaf_losses(recording: Recording) -> list[Diagnosis]:
    """A backward that starts at a leaf made anew from values taken out of the graph (``err =
    loss.item()``, then ``loss = torch.tensor(err, requires_grad=True)``): it runs, and reaches
    nothing but that leaf, so nothing trains. One per backward line."""
    out = []
    seen: set[tuple[Any, ...]] = set()
    by_index = {s.index: s for s in recording.snapshots}
    for b in recording.backwards:
        before = by_index.get(b.snapshot_before) if b.snapshot_before is not None else None
        if b.error is not None or b.via is not None or not b.source or before is None or \
                not b.roots:
            continue
        place = (b.source["file"], b.source["line"])
        if place in seen:
            continue
        nodes = {n.id: n for n in before.nodes}
        tensors = {t.id: t for t in before.tensors}
        if not all((r in nodes and nodes[r].name == ACCUMULATE) or
                   (r in tensors and tensors[r].is_leaf) for r in b.roots):
            continue
        cut = _cut_origin(recording, before, b)
        if cut is None or cut.block is not None or cut.remade is None:
            continue
        seen.add(place)
        remade, plain = cut.remade
        one = remade["line"] == cut.line["line"] and remade["file"] == cut.line["file"]
        summary = (f"{_cap(_call(b))} starts at a leaf: "
                   + (f"{_line(remade)} takes a value out of the graph and makes a new tensor "
                      f"of it ({', '.join(f'`{c}`' for c in cut.how)})." if one else
                      f"{_line(remade)} makes a new tensor of `{cut.name}`, which "
                      f"{_line(cut.line)} took out of the graph "
                      f"({', '.join(f'`{c}`' for c in cut.how)}).")
                   + " The backward reaches nothing "
                   "but that tensor: no parameter gets a gradient, and a step changes nothing.")
        fixes = [Fix("grad_enabled", "Keep the loss in the graph",
                     (f"`{plain}` at {_lines(remade)}" if one else
                      f"`{cut.rewritten}` at {_lines(cut.line)}, and `{plain}` at "
                      f"{_lines(remade)}" if cut.rewritten else
                      f"At {_lines(cut.line)}, keep the tensor (without "
                      + ", ".join(f"`{c}`" for c in cut.how) + f"), and `{plain}` at "
                      f"{_lines(remade)}")
                     + ": the backward then runs through what computed it, into the "
                     "parameters; use `.item()` only for a number to print or log.")]
        out.append(Diagnosis(b.number, False, "leaf_loss", "", "", [], [],
                             {"labels": [cut.name], "source": cut.line}, summary, fixes,
                             b.snapshot_before))
    return out


def _remade_parameters(recording: Recording) -> list[Diagnosis]:
    """A module's attribute that is a new leaf requiring grad after each backward (another
    tensor each time, never changed by a step), made by one line of a ``forward`` (``self.scale
    = nn.Parameter(torch.ones(3))``): each call replaces it, so an optimizer made before holds
    the first one, which no backward reaches, and each new one gets gradients no step uses."""
    direct = {b.number for b in recording.backwards if b.via is None and b.error is None}
    afters = [s for s in recording.snapshots if s.kind == "after_backward" and
              s.backward in direct]
    if len(afters) < 2:
        return []
    seen: dict[str, list[TensorInfo]] = {}
    for snap in afters:
        for t in snap.tensors:
            if t.label and "." in t.label and t.is_leaf and t.requires_grad:
                seen.setdefault(t.label, []).append(t)
    # NB: per line that makes them, the labels (a layer's weight and bias: one diagnosis)
    lines: dict[tuple[str, int], tuple[list[str], str, str, bool]] = {}
    for label, ts in seen.items():
        # NB: each made alike (a layer's initialization writes its weights in place once)
        if len(ts) < 2 or len({t.id for t in ts}) != len(ts) or len({t.version for t in ts}) > 1:
            continue
        # NB: the parameter itself (``self.scale = nn.Parameter(...)``), or the layer that
        # holds it (``self.head = nn.Linear(16, 3)``: ``model.head.weight``)
        parts = label.split(".")
        found = []
        for attr in parts[-1:] + parts[-2:-1] if len(parts) > 2 else parts[-1:]:
            found = [(f, cls.name, n) for f, cls in _user_nodes(recording)
                     if isinstance(cls, ast.ClassDef) for fn in cls.body
                     if isinstance(fn, ast.FunctionDef) and fn.name == "forward"
                     for n in ast.walk(fn) if isinstance(n, ast.Assign) and
                     [_dotted(t) for t in n.targets] == [f"self.{attr}"]]
            if found:
                break
        if len(found) != 1:
            continue
        f, cls_name, n = found[0]
        lines.setdefault((f, n.lineno), ([], cls_name, attr, attr != parts[-1]))[0].append(label)
    out = []
    for (f, line), (labels, cls_name, attr, layer) in lines.items():
        src = _place(f, line)
        one = len(labels) == 1
        summary = (f"{_both(labels) if len(labels) < 4 else _listed(labels)} "
                   + ("is a new tensor" if one else "are new tensors")
                   + " after each backward, and no step changed any of them: "
                   f"{_line(src)}, in `{cls_name}.forward`, makes "
                   + (f"`self.{attr}` again at each call, with new parameters. "
                      if layer else "it again at each call. ")
                   + "An optimizer made before holds the first ones, which no backward "
                   "reaches once they are replaced; each new one gets a gradient that no step "
                   "uses.")
        fixes = [Fix("parameter", f"Create `self.{attr}` in `{cls_name}.__init__`",
                     f"Move {_lines(src)} into `{cls_name}.__init__` (after "
                     "`super().__init__()`): it is then made once, before the optimizer is "
                     "given the model's parameters, and each step updates it.")]
        out.append(Diagnosis(None, False, "remade_parameter", "", "", [], [],
                             {"labels": labels, "source": src}, summary, fixes,
                             afters[-1].index))
    return out


# -- an error that stopped the recorded code outside any backward ---------------------------------
def _raised(recording: Recording, snap: Snapshot) -> Diagnosis | None:
    """The autograd errors a forward or an update line raises (an in-place change of a leaf or
    of a view autograd cannot follow, ``numpy()`` of a tensor that requires grad, the
    ``requires_grad`` flag of a non-leaf, a ``.grad`` that is None, an optimizer given a
    non-leaf), explained from the line that raised; None for any other error."""
    error, src = snap.error, snap.source
    if error is None or src is None:
        return None
    message, code = error["message"], src.get("code") or ""
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        tree = ast.Module(body=[], type_ignores=[])
    read = [name for n in ast.walk(tree) if (name := _dotted(n))]
    tensors = _tensors_named(snap, read)
    at = _line(src)
    first = _cap(at)
    fixes: list[Fix] = []
    named: str | None = None
    if message.startswith(("a leaf Variable that requires grad", "a view of a leaf Variable")):
        leaf = next((n for n, t in tensors if t.is_leaf and t.requires_grad), None)
        named = leaf
        what = f"`{leaf}`" if leaf else "a tensor"
        of_view = message.startswith("a view")
        summary = (f"{first} changed {'a view of ' if of_view else ''}{what} in place, and "
                   f"{what} is a leaf that requires grad (a weight: the backward gives it "
                   "`.grad`). "
                   "Autograd refuses to change a leaf in place while gradients are on: the "
                   "graphs that read it would lose the value they were built from.")
        fixes.append(Fix("no_grad", "Change it under `torch.no_grad()`",
                         f"An update or an initialization of a weight is no part of any "
                         f"graph: `with torch.no_grad(): {ast.unparse(tree) or code.strip()}` "
                         "(as an optimizer's `step()` does; `nn.init` functions do it for "
                         "you)."))
        # NB: a module's parameter (``emb.weight``, each ``p`` of ``model.parameters()``)
        # cannot be replaced by a new tensor: the module and its optimizer hold the leaf
        tree_of = _parsed_file(src["file"])
        held = leaf is None or "." in leaf or any(
            isinstance(n, ast.For) and _holds(n, src["line"]) and
            _stored(n.target) == [leaf] and isinstance(n.iter, ast.Call) and
            isinstance(n.iter.func, ast.Attribute) and n.iter.func.attr == "parameters"
            for n in ast.walk(tree_of if tree_of is not None else ast.Module([], [])))
        if not held:
            fixes.append(Fix("out_of_place", "Or, to make the change part of the graph, do it "
                             "out of place", _out_of_place(code) + ": the result is a new "
                             "tensor that is not a leaf (its gradient goes to the leaf it was "
                             "made from)."))
    elif message.startswith("Output ") and "is a view and is being modified inplace" in message:
        op = message.split(" of ", 1)[1].split(" is a view", 1)[0]
        view = next((n for n, _ in tensors), None)
        named = view
        what = f"`{view}`" if view else "a view"
        several = "returns multiple views" in message
        summary = (f"{first} changed {what} in place, and {what} is "
                   + (f"one of several views that one op ({op}) returned, as `unbind`, "
                      "`split` and `chunk` do: autograd cannot follow a change to one of them."
                      if several else f"a view a custom Function returned ({op}), whose "
                      "backward would not see the change."))
        fixes += [Fix("out_of_place", "Write it out of place", _out_of_place(code) + "."),
                  Fix("clone", f"Or change a copy: `{view or 'v'}.clone()`",
                      f"`{view or 'v'} = {view or 'v'}.clone()` after the line that makes it: "
                      "the copy is a tensor of its own, which may be changed in place.")]
    elif message.startswith("A view was created in no_grad mode"):
        view = next((n for n, _ in tensors), None)
        named = view
        what = f"`{view}`" if view else "a view"
        summary = (f"{first} changed {what} in place with gradients on, and {what} is a view made "
                   "under `torch.no_grad()`: autograd does not know what it is a view of, so "
                   "it cannot follow the change.")
        fixes += [Fix("view_with_grad", "Make the view with gradients on",
                      f"Take {what} outside the `torch.no_grad()` block (or change it inside "
                      "it, if no gradient should flow through the change)."),
                  Fix("out_of_place", "Or write it out of place", _out_of_place(code) + ".")]
    elif message.startswith("Can't call numpy() on Tensor that requires grad"):
        t = next((n for n, info in tensors if info.requires_grad), None)
        named = t
        what = f"`{t}`" if t else "a tensor"
        summary = (f"{first} made a NumPy array of {what}, which requires grad: an array "
                   "carries no graph, so PyTorch refuses to drop the tensor's graph unasked.")
        plain = ast.unparse(tree)
        fixed = ast.unparse(_Detached(t, "numpy").visit(tree)) if t else plain
        fixes.append(Fix("detach", f"Read `{t or 'x'}.detach()`",
                         (f"`{fixed}`" if fixed != plain else
                          f"Pass `{t or 'x'}.detach()` (a tensor with the same values and no "
                          "graph) where a NumPy array is made of it (`np.array`, plotting)")
                         + "; `.item()` or `.tolist()` for plain numbers."))
    elif message.startswith("you can only change requires_grad flags of leaf variables"):
        t = next((n for n, info in tensors if not info.is_leaf), None)
        named = t
        x = t or "y"
        summary = (f"{first} set `requires_grad` of `{x}`, which is not a leaf: it was computed "
                   "from tensors that require grad, so it already has a graph, and its flag "
                   "follows from theirs.")
        # NB: turned off (``feats.requires_grad = False``, ``requires_grad_(False)``): meant
        # to stop the gradient there
        off = any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and
                  n.value.value is False for n in tree.body) or any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
            n.func.attr == "requires_grad_" and n.args and
            isinstance(n.args[0], ast.Constant) and n.args[0].value is False
            for n in ast.walk(tree))
        if off:
            summary += (f" To keep the gradient from flowing back past `{x}` (into what "
                        "computed it), take a copy without its graph.")
            fixes.append(Fix("detach", f"`{x} = {x}.detach()`",
                             f"`{x} = {x}.detach()` in place of {_line(src)}: the loss built "
                             f"from `{x}` then trains only what comes after it (or compute "
                             f"`{x}` under `torch.no_grad()`)."))
        else:
            fixes += [Fix("retain_grad", f"`{x}.retain_grad()` to read its gradient",
                          f"After a backward, `{x}.grad` holds the gradient that flowed into "
                          "it; the graph stays whole."),
                      Fix("new_leaf", f"Or `{x} = {x}.detach().requires_grad_()`: a new leaf",
                          f"If `{x}` should start a graph of its own (no gradient flowing back "
                          "past it).")]
    elif "can't optimize a non-leaf Tensor" in message:
        t = next((n for n, info in tensors if not info.is_leaf), None)
        named = t
        x = t or "w"
        summary = (f"{first} gave the optimizer `{x}`, which is not a leaf: it was computed from "
                   "another tensor, so a backward gives it no `.grad` and the optimizer could "
                   "not update it.")
        fixes += _leaf_fixes(snap, x)
    elif "NoneType" in message and any(
            isinstance(n, ast.Attribute) and n.attr == "grad" for n in ast.walk(tree)):
        owners = [_dotted(n.value) for n in ast.walk(tree)
                  if isinstance(n, ast.Attribute) and n.attr == "grad"]
        found = next(((n, info) for n, info in tensors if n in owners), None)
        if found is None:
            return None
        x, info = found
        named = x
        if not info.is_leaf:
            summary = (f"`{x}.grad` is None at {at}: `{x}` is not a leaf (it was computed from "
                       "another tensor), and a backward fills `.grad` only for leaves.")
            fixes += _leaf_fixes(snap, x)
            node = next((n for n in snap.nodes if x in n.labels and n.name != ACCUMULATE),
                        None)
            below = sorted({n.labels[0] for n in _subgraph(snap, node.id)
                            if n.name == ACCUMULATE and n.labels}) if node is not None else []
            if below and fixes[0].key == "make_leaf" and fixes[-1].key == "retain_grad" and \
                    node is not None and node.source is not None:
                # NB: an intermediate value computed from named leaves (``h = x * 2``): made
                # a leaf, it would cut them off; its gradient is what is asked for
                summary += (f" It is an intermediate value: the gradient flows through it "
                            f"into {_listed(below)}.")
                fixes = [Fix("retain_grad", f"`{x}.retain_grad()` to keep its gradient",
                             f"Call `{x}.retain_grad()` right after {_line(node.source)}, "
                             f"before the backward: `{x}.grad` then holds the gradient that "
                             f"flowed through it, and {_listed(below)} still "
                             + ("gets its own." if len(below) == 1 else "get theirs.")),
                         Fix("make_leaf", f"Or make `{x}` a leaf",
                             f"`{x} = {x}.detach().requires_grad_()` after that line, if no "
                             f"gradient should flow on past it into {_listed(below)}.")]
        elif not info.requires_grad:
            summary = (f"`{x}.grad` is None at {at}: `{x}` does not require grad, so no "
                       "backward computes a gradient for it.")
            fixes.append(Fix("requires_grad", f"Make `{x}` require grad",
                             f"Create it with `requires_grad=True`, or call "
                             f"`{x}.requires_grad_()` before computing from it."))
        else:
            ran = [b for b in recording.backwards if b.error is None]
            summary = (f"`{x}.grad` is None at {at}: "
                       + ("no backward ran before this line." if not ran else
                          f"no backward since its `.grad` was last cleared reached `{x}` "
                          "(the loss does not use it, or uses a `.detach()` of it, or "
                          "`zero_grad()` set it to None)."))
            zeroed = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and
                           isinstance(n.func, ast.Attribute) and n.func.attr == "zero_" and
                           _dotted(n.func.value) == f"{x}.grad"), None)
            if zeroed is not None and not ran:
                # NB: ``w.grad.zero_()`` at the start of each step: there is nothing to clear
                # before the first backward
                fixes.append(Fix("zero_grad", f"Clear it with `{x}.grad = None`",
                                 f"`{x}.grad = None` at {_lines(src)}: it clears the gradient "
                                 "whether or not a backward has made one (as "
                                 "`optimizer.zero_grad()` does), and the next backward makes a "
                                 "new one."))
            fixes.append(Fix("backward_first", "Backward before reading `.grad`",
                             f"Call `loss.backward()` on a loss computed from `{x}` first; "
                             f"where a step may skip the backward, test `{x}.grad is not "
                             "None`."))
    elif message.startswith(("Inference tensors cannot be saved for backward",
                             "Inplace update to inference tensor outside InferenceMode")):
        saved = message.startswith("Inference")
        if saved:
            block = _inference_block(src["file"], read)
        else:
            # NB: the tensor changed: the target of ``x += ...``, the receiver of ``x.add_()``
            changed = [_dotted(n.target) for n in ast.walk(tree) if isinstance(n, ast.AugAssign)]
            changed += [_dotted(n.func.value) for n in ast.walk(tree) if isinstance(n, ast.Call)
                        and isinstance(n.func, ast.Attribute) and n.func.attr.endswith("_")]
            block = _inference_block(src["file"], [c for c in changed if c] or read)
        inf = block[0] if block else None
        named = inf
        what = f"`{inf}`" if inf else "a tensor"
        made = f" ({_line(block[1], ': ')})" if block else ""
        summary = (f"{first} {'used' if saved else 'changed'} {what}"
                   + (", in a computation that saves it for backward," if saved else
                      " in place,")
                   + f" and {what} was made under `torch.inference_mode()`{made}: "
                   + ("an inference tensor can never be part of a graph." if saved else
                      "outside that block an inference tensor cannot be changed in place."))
        with_src = block[1] if block else {}
        with_code = with_src.get("code") or ""
        if "inference_mode(" in with_code:
            with_code = with_code.replace("inference_mode(", "no_grad(")
            how = f"{_cap(_lines(with_src))}: `{with_code}`"
        else:
            how = "Make it under `with torch.no_grad():`"
        fixes.append(Fix("no_grad", "Make it under `torch.no_grad()` instead",
                         how + f": {what} is then a plain tensor with no graph, which later "
                         "ops may save and change like any other."))
        copy = None
        if inf is not None and saved:
            line = _with_method(code, inf, "clone")
            copy = f"`{line}`" if line else None
        fixes.append(Fix("clone", f"Or use a copy made outside the block: `{inf or 'x'}.clone()`",
                         (copy + ": " if copy else f"`{inf or 'x'} = {inf or 'x'}.clone()` before "
                          "this line: ") + "a clone made outside `inference_mode` is a normal "
                         "tensor."))
    elif message.lower().startswith("only tensors of floating point"):
        target = _assigned(code)
        if target is not None and target.endswith(".requires_grad"):
            target = target[:-len(".requires_grad")]        # NB: ``x.requires_grad = True``
        named = target or next((n for n in read if "." not in n), None)
        x = named or "x"
        summary = (f"{first} asked an integer (or boolean) tensor, `{x}`, to require grad: only "
                   "floating-point and complex tensors have gradients (a small change of an "
                   "integer is no integer).")
        call = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and
                     any(k.arg == "requires_grad" for k in n.keywords)), None)
        as_float = None
        if call is not None and len(tree.body) == 1:
            # NB: ``torch.float32`` by the name the call's module has (``t.tensor``: ``t``)
            f = call.func
            module = f.value.id if isinstance(f, ast.Attribute) and isinstance(
                f.value, ast.Name) else "torch"
            call.keywords = [k for k in call.keywords if k.arg != "dtype"] + [ast.keyword(
                "dtype", ast.Attribute(ast.Name(module, ast.Load()), "float32", ast.Load()))]
            as_float = ast.unparse(tree.body[0])
        elif len(tree.body) == 1 and isinstance(tree.body[0], (ast.Assign, ast.Expr)):
            # NB: ``.requires_grad_()`` called on the integer tensor: ``.float()`` before it
            for n in ast.walk(tree):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                        n.func.attr == "requires_grad_":
                    n.func.value = ast.Call(ast.Attribute(n.func.value, "float", ast.Load()),
                                            [], [])
                    line = ast.unparse(tree.body[0])
                    as_float = line if isinstance(tree.body[0], ast.Assign) else f"{x} = {line}"
                    break
        make_float = Fix("float", "Make it a floating-point tensor",
                         f"`{as_float}`" if as_float else
                         f"`{x} = {x}.float().requires_grad_()`")
        bare = _Without({"requires_grad_"}, keyword="requires_grad").visit(
            ast.parse(code.strip()))
        # NB: the line with nothing left to do (``x.requires_grad = True``, ``x``) goes
        without = None if ast.unparse(bare) == ast.unparse(ast.parse(code.strip())) or (
            len(bare.body) == 1 and isinstance(bare.body[0], ast.Expr)) else ast.unparse(bare)
        no_grad = Fix("requires_grad", f"If `{x}` holds labels, indices or counts, drop "
                      "`requires_grad`",
                      (f"`{without}`" if without else f"Drop {_lines(src)}")
                      + ": no gradient flows into integers; the loss needs gradients only for "
                      "the floating-point tensors it is computed from.")
        labels_like = any(w in x.lower() for w in ("label", "target", "index", "idx", "mask",
                                                    "class", "token", "count"))
        fixes += [no_grad, make_float] if labels_like else [make_float, no_grad]
    elif message.startswith(EMPTY_GRAD_INPUTS) and (spent := _used_up(src)) is not None:
        named, said, fix = spent
        summary = f"{first} {said}"
        fixes.append(fix)
    else:
        return None
    labels = [named] if named else []
    return Diagnosis(None, False, "raised", "", "", [], [], {"labels": labels, "source": src},
                     summary, fixes, snap.index)


EMPTY_GRAD_INPUTS = "`inputs` argument to `grad()` cannot be empty"


def _used_up(src: dict[str, Any]) -> tuple[str, str, Fix] | None:
    """An ``autograd.grad`` line given no inputs, where its inputs are a name bound to a
    generator of the file (``params = model.parameters()``) that a line between read to its
    end (``opt = torch.optim.SGD(params, lr=0.1)``): the name, what to say and the fix."""
    try:
        body = ast.parse((src.get("code") or "").strip()).body
    except SyntaxError:
        return None
    call = next((n for n in ast.walk(body[0]) if isinstance(n, ast.Call) and
                 isinstance(n.func, (ast.Attribute, ast.Name)) and
                 (_dotted(n.func) or "").endswith("grad")), None) if len(body) == 1 else None
    arg = _inputs_arg(call) if call is not None else None
    name = _dotted(arg) if arg is not None else None
    tree = _parsed_file(src["file"])
    if name is None or tree is None:
        return None
    made = [n for n in ast.walk(tree) if isinstance(n, ast.Assign) and n.lineno < src["line"]
            and [_dotted(t) for t in n.targets] == [name]]
    if not made:
        return None
    last = max(made, key=lambda n: n.lineno)
    gen = last.value
    if not (isinstance(gen, ast.Call) and isinstance(gen.func, ast.Attribute) and
            gen.func.attr in ("parameters", "named_parameters", "buffers", "children",
                              "modules")) and not isinstance(gen, ast.GeneratorExp):
        return None
    readers = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call) and
                      last.lineno < n.lineno and n is not call and
                      (n.lineno < src["line"] or _scope_of(tree, n.lineno)
                       is not _scope_of(tree, last.lineno)) and
                      any(_dotted(a) == name for a in n.args)), key=lambda n: n.lineno)
    if not readers:
        return None
    reader = _place(src["file"], readers[0].lineno)
    made_at = _place(src["file"], last.lineno)
    text = (f"asks for the gradients of `{name}`, which is a generator "
            f"(`{ast.unparse(gen)}`, {_lines(made_at)}), and {_line(reader)} read it to its "
            "end: it yields nothing now, so the call has no input.")
    fix = Fix("list", f"Make `{name}` a list",
              f"`{name} = list({ast.unparse(gen)})` at {_lines(made_at)}: a list can be read "
              "again and again, by the optimizer and then by each `autograd.grad` call.")
    return name, text, fix


def _inference_block(file: str, names: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The first of ``names`` that a ``with torch.inference_mode():`` block of the file
    assigns, and that ``with`` line."""
    tree = _parsed_file(file)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.With) or not any(
                isinstance(item.context_expr, ast.Call) and
                (_dotted(item.context_expr.func) or "").endswith("inference_mode")
                for item in node.items):
            continue
        stored = {name for stmt in node.body for n in ast.walk(stmt)
                  if isinstance(getattr(n, "ctx", None), ast.Store) and (name := _dotted(n))}
        for name in names:
            if name in stored:
                line = node.lineno
                return name, {"file": file, "line": line,
                              "code": linecache.getline(file, line).strip()}
    return None


# NB: numpy functions a user reaches for inside a forward, and torch's own, which keep the graph
_NUMPY_TWINS = {"clip": "torch.clamp", "exp": "torch.exp", "log": "torch.log",
                "sqrt": "torch.sqrt", "abs": "torch.abs", "tanh": "torch.tanh",
                "maximum": "torch.maximum", "minimum": "torch.minimum", "where": "torch.where",
                "mean": "torch.mean", "sum": "torch.sum", "square": "torch.square",
                "power": "torch.pow", "dot": "torch.dot", "matmul": "torch.matmul"}
_OFF = ("no_grad", "inference_mode")
_REMADE = ("tensor", "from_numpy", "as_tensor", "Tensor", "FloatTensor")


class _Frozen(NamedTuple):
    """Parameters frozen by a line of the backward's file (``p.requires_grad = False``, or
    ``m.requires_grad_(False)``), every one of a module an optimizer is made with among them."""

    line: dict[str, Any]               # the freezing statement
    loop: dict[str, Any] | None        # the loop over parameters around it
    names: list[str]                   # the frozen parameters
    trained: str | None                # the module the optimizer is given (``head``)
    optimizer: dict[str, Any] | None   # that line
    last: int                          # the last line of the loop (or of the statement)


def _freezes(node: ast.AST) -> bool:
    """``x.requires_grad = False``, or ``x.requires_grad_(False)``."""
    if isinstance(node, ast.Assign):
        return isinstance(node.value, ast.Constant) and node.value.value is False and any(
            isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in node.targets)
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
        isinstance(node.value.func, ast.Attribute) and \
        node.value.func.attr == "requires_grad_" and len(node.value.args) == 1 and \
        isinstance(node.value.args[0], ast.Constant) and node.value.args[0].value is False


def _frozen(snap: Snapshot, b: BackwardRecord) -> _Frozen | None:
    """Where a loss has no graph because the parameters it reads were frozen: the line of the
    backward's file before it that froze them, and the module an optimizer of that file is
    made with (``SGD(head.parameters())``) whose parameters are all frozen. None unless some
    module's parameters are frozen, and either that optimizer's or every one of them."""
    src = b.source
    tree = _parsed_file(src["file"]) if src else None
    params = [t for t in snap.tensors if t.label and "." in t.label and t.is_leaf and
              "float" in t.dtype]
    names = [t.label for t in params if t.label and not t.requires_grad]
    if src is None or tree is None or not names:
        return None
    freezing = sorted((n for n in ast.walk(tree) if isinstance(n, ast.stmt) and _freezes(n)
                       and n.lineno < src["line"]), key=lambda n: n.lineno)
    if not freezing:
        return None
    at = freezing[0]
    loop = next((n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.AsyncFor)) and
                 _holds(n, at.lineno) and isinstance(n.iter, ast.Call) and
                 isinstance(n.iter.func, ast.Attribute) and
                 n.iter.func.attr in ("parameters", "named_parameters")), None)
    trained = optimizer = None
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and call.args and _optimizer_made(call) and \
                isinstance(call.args[0], ast.Call) and \
                isinstance(call.args[0].func, ast.Attribute) and \
                call.args[0].func.attr == "parameters" and call.lineno < src["line"]:
            owner = _dotted(call.args[0].func.value)
            own = [t for t in params if owner and (t.label or "").startswith(f"{owner}.")]
            if own and not any(t.requires_grad for t in own):
                trained, optimizer = owner, _place(src["file"], call.lineno)
                break
    if trained is None and any(t.requires_grad for t in params):
        return None
    return _Frozen(_place(src["file"], at.lineno),
                   _place(src["file"], loop.lineno) if loop is not None else None, names,
                   trained, optimizer, (loop or at).end_lineno or at.lineno)


class _Cut(NamedTuple):
    """Where a value lost its graph, on the way from a backward's root back through the lines
    of the user's file: under ``with torch.no_grad():`` (``block``: that line), or a line that
    takes values out of the graph (``how``: ``.detach()``, ``.numpy()``...)."""

    name: str                          # the variable that line assigns
    line: dict[str, Any]
    block: dict[str, Any] | None
    how: list[str]
    rewritten: str | None              # the line in torch operations, where it can be
    # NB: a later line that makes a tensor anew of what this one took out (``loss =
    # torch.tensor(err)``), and that line without it (``loss = err``)
    remade: tuple[dict[str, Any], str] | None = None
    # NB: the function of the file the line is in, where a line of the walk calls it (a loss
    # function: ``loss = mse(out, y)``), and that line
    called: tuple[str, dict[str, Any]] | None = None


class _Scope(NamedTuple):
    """A function's lines a walk back from a line reads: its assignments before that line
    (the nearest first), its blocks that turn gradients off, and its branches."""

    file: str
    assigns: list[ast.Assign]
    offs: list[ast.With]
    branches: list[ast.AST]
    line: int
    # NB: a function's name, and the line calling it
    called: tuple[str, dict[str, Any]] | None = None
    off: ast.expr | None = None                 # its ``@torch.no_grad()`` decorator


def _walked(fn: ast.AST, file: str, line: int, first: ast.Assign | None = None,
            called: tuple[str, dict[str, Any]] | None = None) -> _Scope:
    """``fn``'s lines before ``line``, with ``first`` ahead of them (a ``return`` read as the
    assignment of the caller's variable)."""
    assigns = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Assign) and n.lineno < line),
                     key=lambda n: -n.lineno)
    offs = [n for n in ast.walk(fn) if isinstance(n, ast.With) and any(
        isinstance(i.context_expr, ast.Call) and
        (_dotted(i.context_expr.func) or "").rsplit(".", 1)[-1] in _OFF for i in n.items)]
    decorators = fn.decorator_list if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        else []
    off = next((d for d in decorators if (_dotted(d.func if isinstance(d, ast.Call) else d)
                                          or "").rsplit(".", 1)[-1] in _OFF), None)
    return _Scope(file, ([first] if first is not None else []) + assigns, offs,
                  [n for n in ast.walk(fn) if isinstance(n, (ast.If, ast.Try))], line, called,
                  off)


def _function_def(tree: ast.Module, file: str, func: ast.expr
                  ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, str] | None:
    """The function a call's ``func`` names, and its file: one of the same file (``mse``), or
    of a module of the user's beside it that the file imports (``from losses import mse``,
    ``import losses`` then ``losses.mse``)."""
    here = os.path.dirname(file)
    found: ast.Module | None
    if isinstance(func, ast.Name):
        name, found = func.id, tree
        path = file
        for imp in tree.body:
            if isinstance(imp, ast.ImportFrom) and imp.module and any(
                    (a.asname or a.name) == name for a in imp.names):
                alias = next(a for a in imp.names if (a.asname or a.name) == name)
                path = os.path.join(here, *imp.module.split(".")) + ".py"
                found, name = _parsed_file(path), alias.name
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        module = next((a.name for imp in tree.body if isinstance(imp, ast.Import)
                       for a in imp.names if (a.asname or a.name) == func.value.id), None)
        if module is None:
            return None
        path = os.path.join(here, *module.split(".")) + ".py"
        found, name = _parsed_file(path), func.attr
    else:
        return None
    if found is None or (path != file and not os.path.isfile(path)):
        return None
    fn = next((n for n in found.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
               and n.name == name), None)
    return (fn, path) if fn is not None else None


def _returned(tree: ast.Module, file: str, at: ast.Assign, name: str) -> _Scope | None:
    """Where ``name = f(...)`` calls a function ``f`` of the same file, or of a module of the
    user's it imports, with one ``return``: that function's lines, with the ``return`` read as
    the assignment of ``name``."""
    if not isinstance(at.value, ast.Call):
        return None
    got = _function_def(tree, file, at.value.func)
    if got is None:
        return None
    fn, path = got
    inner = [n for d in ast.walk(fn) if d is not fn and
             isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
             for n in ast.walk(d)]
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None
               and not any(n is i for i in inner)]
    if len(returns) != 1:
        return None
    ret = returns[0]
    assert ret.value is not None
    as_assign = ast.Assign([ast.Name(name, ast.Store())], ret.value, lineno=ret.lineno,
                           end_lineno=ret.end_lineno)
    return _walked(fn, path, ret.lineno, as_assign, (fn.name, _place(file, at.lineno)))


def _cut_origin(recording: Recording, snap: Snapshot, b: BackwardRecord) -> _Cut | None:
    """The line nearest the backward, following the names its root reads back through the
    assignments before it in the same function, and into a function of the same file that
    one of them calls (through its ``return``), that assigned a value with no graph (a tensor
    of the snapshot that does not require grad, or one not in it): under a ``with`` that turns
    gradients off, or by a call that takes values out of the graph."""
    root = _root_of(b)
    src = b.source
    tree = _parsed_file(src["file"]) if src else None
    if root is None or src is None or tree is None:
        return None
    file = src["file"]
    outer = _walked(_innermost(tree, src["line"], (ast.FunctionDef, ast.AsyncFunctionDef)),
                    file, src["line"])
    graphless = {t.label for t in snap.tensors if t.label and not t.requires_grad}
    labels = {t.label for t in snap.tensors}
    todo = [(x, outer) for n in ast.walk(root) if (x := _dotted(n))]
    seen: set[tuple[str, int]] = set()
    remade: tuple[dict[str, Any], str] | None = None
    first: _Cut | None = None
    while todo:
        name, scope = todo.pop(0)
        if (name, id(scope)) in seen:
            continue
        seen.add((name, id(scope)))
        cands = [n for n in scope.assigns if name in {x for t in n.targets for x in _stored(t)}]
        if not cands:
            continue
        at = cands[0]
        if len(cands) > 1 and any(_holds(i, at.lineno) and not _holds(i, scope.line)
                                  for i in scope.branches):
            # NB: one of several assignments, in a branch (``if``/``else``): which ran is not
            # known from the file, so nothing is said of it
            return first
        block: ast.With | ast.expr | None = next(
            (w for w in scope.offs if _holds(w, at.lineno)), scope.off)
        # NB: in the order they are applied (the innermost first: ``.detach()`` before
        # ``.numpy()`` before ``torch.from_numpy()``)
        found = [(m.end_col_offset or 0, f".{m.attr}" + ("" if m.attr == "data" else "()"))
                 for m in ast.walk(at.value) if isinstance(m, ast.Attribute) and
                 m.attr in _CUTTERS] + \
            [(m.end_col_offset or 0, f"{_dotted(m.func)}()") for m in ast.walk(at.value)
             if isinstance(m, ast.Call) and (_dotted(m.func) or "").startswith("torch.") and
             (_dotted(m.func) or "").rsplit(".", 1)[-1] in _REMADE and
             # NB: of a value (``torch.tensor(err)``), not of numbers written out (labels)
             any(isinstance(n, (ast.Name, ast.Attribute)) for a in m.args for n in ast.walk(a))]
        how = [h for _, h in sorted(found)]
        anew = block is None and bool(how) and all(h.startswith("torch.") for h in how)
        # NB: out of the graph and made anew on one line (``loss = torch.tensor(crit(out,
        # y).item(), requires_grad=True)``): the cut, and its way back, at once
        both = block is None and remade is None and how[-1:] != how[:1] and \
            name in labels and name not in graphless and \
            how[-1].startswith("torch.") and not how[0].startswith("torch.") if how else False
        if both:
            place = _place(scope.file, at.lineno)
            text = place["code"]
            return _Cut(name, place, None, list(dict.fromkeys(how)),
                        _Torchified(True).rewrite(text), (place, _Torchified(True).rewrite(text)
                                                          or text), scope.called)
        if (block is not None or how) and (anew or name in graphless or name not in labels):
            place = _place(scope.file, at.lineno)
            text = place["code"]
            cut = _Cut(name, place, {"file": scope.file, "line": block.lineno,
                                     "code": linecache.getline(scope.file,
                                                               block.lineno).strip()}
                       if block is not None else None, list(dict.fromkeys(how)),
                       _Torchified().rewrite(text) if how else None, remade, scope.called)
            if not anew:
                return cut
            # NB: only a tensor made anew (``loss = torch.tensor(err)``): of what? The line
            # that took ``err`` out of the graph is the cut, this one its way back
            if remade is None:
                remade, first = (place, _Torchified(True).rewrite(text) or text), cut
        called = _returned(tree, file, at, name) if scope is outer else None
        if called is not None:
            # NB: (one level down: a loss function the loop calls)
            todo.append((name, called))
        todo += [(x, scope) for n in ast.walk(at.value)
                 if (x := _dotted(n)) and (x, id(scope)) not in seen]
    return first


def _block_feeds(cut: _Cut) -> list[int]:
    """The lines of the ``with`` block of ``cut`` that assign what its line reads, back to the
    block's start (``logits = model(x)`` for ``loss = crit(logits, y)``), with its own: in
    order. Just its own where the block is not found."""
    tree = _parsed_file(cut.line["file"])
    block = next((n for n in ast.walk(tree) if isinstance(n, ast.With) and cut.block and
                  n.lineno == cut.block["line"]), None) if tree is not None else None
    if block is None:
        return [cut.line["line"]]
    assigns = [n for n in ast.walk(block) if isinstance(n, ast.Assign)]
    lines = {cut.line["line"]}
    wanted = _reads(cut.line.get("code"))
    for n in sorted(assigns, key=lambda n: -n.lineno):
        if n.lineno < cut.line["line"] and {x for t in n.targets for x in _stored(t)} & wanted:
            lines.add(n.lineno)
            wanted |= {x for m in ast.walk(n.value) if (x := _dotted(m))}
    return sorted(lines)


class _Torchified(_Without):
    """A line that leaves the graph and comes back (``torch.from_numpy(np.clip(out.detach()
    .numpy(), -1, 1))``) written in torch operations on the tensor (``torch.clamp(out, -1,
    1)``): the way out and back dropped, numpy's functions replaced by torch's. ``rewrite``
    gives None where some numpy, or Python number, is left."""

    def __init__(self, remade: bool = False) -> None:
        super().__init__(("detach", "numpy", "item", "cpu"), attribute="data")
        self.remade = remade          # drop ``torch.tensor(x)`` whatever ``x`` is

    def rewrite(self, code: str) -> str | None:
        try:
            tree = ast.parse(code.strip())
        except SyntaxError:
            return None
        out = ast.unparse(self.visit(tree))
        names = {_dotted(n) or "" for n in ast.walk(ast.parse(out))}
        if any(n.split(".", 1)[0] in ("np", "numpy") for n in names) or out == code.strip():
            return None
        return out

    def visit_Call(self, call: ast.Call) -> ast.AST:
        func = _dotted(call.func) or ""
        last = func.rsplit(".", 1)[-1]
        if func.startswith("torch.") and last in _REMADE and len(call.args) == 1 and \
                isinstance(call.args[0], (ast.List, ast.ListComp, ast.Tuple)) and any(
                    isinstance(n, ast.Call) for n in ast.walk(call.args[0])):
            # NB: a tensor made of a list of tensors (``torch.tensor([f(a), f(b)])``, each a
            # loss): stacked, they keep their graphs
            self.generic_visit(call)
            return ast.Call(ast.Attribute(ast.Name(func.split(".", 1)[0], ast.Load()),
                                          "stack", ast.Load()), call.args, [])
        if func.startswith("torch.") and last in _REMADE and not self.remade and not any(
                isinstance(m, ast.Attribute) and m.attr in _CUTTERS
                for a in call.args for m in ast.walk(a)):
            # NB: a tensor made of what is not a tensor's values taken out here (a Python
            # number, a list): no torch operation on a tensor to write instead
            return call
        out = super().visit_Call(call)        # (the way out: ``.detach()``, ``.numpy()``)
        if out is not call:
            return out
        if func.startswith("torch.") and last in _REMADE and len(call.args) == 1 and \
                (not call.keywords or self.remade):
            return call.args[0]
        if func.split(".", 1)[0] in ("np", "numpy") and last in _NUMPY_TWINS:
            call.func = ast.parse(_NUMPY_TWINS[last], mode="eval").body
        return call

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        # NB: ``.data`` read only (an assignment's target is left as written)
        return super().visit_Attribute(node) if isinstance(node.ctx, ast.Load) else \
            self.generic_visit(node)


class _Detached(ast.NodeTransformer):
    """Reads of the tensor ``name`` made ``name.detach()``: each one (``D(fake)`` gives
    ``D(fake.detach())``), or only those that call the method ``before`` (``y.numpy()`` gives
    ``y.detach().numpy()``); or another ``method`` (``clone``). ``changed``: whether one was."""

    def __init__(self, name: str, before: str | None = None, method: str = "detach") -> None:
        self.name, self.before, self.method, self.changed = name, before, method, False

    def _read(self, node: ast.Name | ast.Attribute) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and _dotted(node) == self.name:
            self.changed = True
            return ast.Call(ast.Attribute(node, self.method, ast.Load()), [], [])
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return self._read(node) if self.before is None else node

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if self.before is None and isinstance(node.ctx, ast.Load) and \
                ast.unparse(node) == self.name:
            self.changed = True
            return ast.Call(ast.Attribute(node, self.method, ast.Load()), [], [])
        self.generic_visit(node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        # NB: ``h is not None`` tests the object, which may be None: left as written
        if all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            return node
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if self.before is None:
            return self._read(node)
        self.generic_visit(node)
        if node.attr == self.before and _dotted(node.value) == self.name:
            self.changed = True
            node.value = ast.Call(ast.Attribute(node.value, "detach", ast.Load()), [], [])
        return node


def _then(value: str, method: str) -> str:
    """``value.method()``, in parentheses where ``value`` is not a primary (``a * b``)."""
    try:
        primary = isinstance(ast.parse(value, mode="eval").body,
                             (ast.Call, ast.Attribute, ast.Name, ast.Subscript))
    except SyntaxError:
        primary = False
    return f"{value if primary else f'({value})'}.{method}()"


def _tensors_named(snap: Snapshot, names: list[str]) -> list[tuple[str, TensorInfo]]:
    """The snapshot's tensors a line names, in the line's order."""
    by_label: dict[str, TensorInfo] = {t.label: t for t in snap.tensors if t.label}
    by_node = {t.grad_fn: t for t in snap.tensors if t.grad_fn is not None}
    by_var = {t.id: t for t in snap.tensors}
    for n in snap.nodes:
        t = by_node.get(n.id) or (by_var.get(n.variable) if n.variable else None)
        if t is not None:
            for label in n.labels:
                by_label.setdefault(label, t)
    return [(n, by_label[n]) for n in dict.fromkeys(names) if n in by_label]


def _leaf_fixes(snap: Snapshot, name: str, value: str | None = None) -> list[Fix]:
    """Make the weight ``name`` a leaf: its line rewritten where one line made it from a fresh
    leaf (``value``: that line's value with ``requires_grad`` taken out), else in general
    words."""
    if value is None:
        node = next((n for n in snap.nodes if name in n.labels and n.name != ACCUMULATE), None)
        value = _not_a_leaf(snap, node, name) if node is not None else None
    if value is not None:
        return [Fix("make_leaf", f"Make `{name}` a leaf",
                    f"`{name} = {_then(value, 'requires_grad_')}`: the op "
                    f"runs on a plain tensor and `requires_grad` is set on its result, so "
                    f"`{name}` is the leaf that gets `.grad`, with no graph behind it."),
                Fix("parameter", f"Or, in a module, make `{name}` an `nn.Parameter`",
                    f"`nn.Parameter({value})` is a leaf that `model.parameters()` and the "
                    "optimizer see.")]
    return [Fix("make_leaf", f"Make `{name}` a leaf",
                f"Compute its value with no graph and set `requires_grad` last "
                f"(`{name} = {name}.detach().requires_grad_()`, or create it with "
                "`requires_grad=True` and change it only under `torch.no_grad()`)."),
            Fix("retain_grad", f"Or `{name}.retain_grad()` to read its gradient",
                f"If `{name}` is meant to be an intermediate value, `{name}.retain_grad()` "
                f"before the backward keeps its gradient in `{name}.grad`.")]


def _as_failed(snap: Snapshot, pred: Prediction | None, b: BackwardRecord) -> Prediction | None:
    """The prediction, at the node where the backward really failed if that is another one
    with freed buffers (a custom Function whose backward does not read its saved tensors runs
    where the prediction said it would fail)."""
    if pred is None or b.failed_at is None or pred.node == b.failed_at or \
            pred.kind != "freed" or BACKWARD_TWICE not in (b.error or {}).get("message", ""):
        return pred
    node = next((n for n in snap.nodes if n.id == b.failed_at), None)
    freed = [s.name for s in node.saved if s.state == "freed"] if node is not None else []
    if not freed:
        return pred
    assert node is not None
    return dataclasses.replace(pred, node=b.failed_at, buffers=freed,
                               reason=f"{node.name} needs its saved {', '.join(freed)}, freed")


def _growth(recording: Recording) -> Diagnosis | None:
    """Graphs of earlier steps kept alive, step after step: the saved bytes or the nodes alive
    after each backward grow over the last backwards (at least 4), and nodes built steps ago
    are still alive, held by a tensor the loop carries over (a hidden state not detached, a
    running total of losses, graphs kept by ``retain_graph=True``). The steps are the user's
    own backwards: not those a library function runs (``hessian``, a ``vmap``)."""
    direct = {b.number for b in recording.backwards if b.via is None}
    afters = [s for s in recording.snapshots
              if s.kind == "after_backward" and s.backward in direct][-8:]
    if len(afters) < 4:
        return None
    alive = [s.memory.get("saved_bytes_alive", 0) for s in afters]
    counts = [len(s.nodes) for s in afters]
    if not (all(a < b for a, b in pairwise(alive)) or all(a < b for a, b in pairwise(counts))):
        return None
    last = afters[-1]
    now = last.backward or 0
    old = [n for n in last.nodes if n.recorded and n.variable is None and n.created_by < now - 1]
    if not old:
        return None
    # NB: what holds them: the tensor of an earlier step that this step's graph uses (the
    # old node the newest nodes point to: ``h`` fed back, ``total`` added to); where they
    # were built: the line that built most of them
    by_id = {n.id: n for n in last.nodes}
    ids = {n.id for n in old}
    newest = max(n.created_by for n in last.nodes)
    edges = [m for n in last.nodes if n.created_by == newest for m in n.next if m in ids]

    def carries(m: str) -> bool:
        """Built by a line that feeds a variable back (``h = f(x, h)``, ``total += loss``)."""
        src = by_id[m].source
        code = src["code"] if src else None
        return bool(code and (_fed_back(code) or _accumulates(code)))
    # NB: a tie goes to the node made last (ids, as numbers, are in the order nodes were made
    # on both engines; as text they are not)
    holder = by_id[max(edges, key=lambda m: (carries(m), edges.count(m), by_id[m].created_by,
                                             int(m[1:])))] if edges else None
    # NB: no later graph uses them: graphs kept whole, by the names of their roots (a list of
    # validation losses computed with gradients on)
    pointed = {m for n in last.nodes for m in n.next}
    kept_roots = [n for n in old if n.id not in pointed and n.labels]
    if holder is None and kept_roots:
        holder = min(kept_roots, key=lambda n: (n.created_by, int(n.id[1:])))
    holder_id = holder.id if holder is not None else ""
    held = _names(recording, last, holder)[0] if holder is not None else []
    box = _container([x for n in kept_roots for x in n.labels]) if not edges else None
    name = box or (held[0] if held else "a tensor kept from an earlier step")
    unused = not edges and not any(n.executed_by for n in old)
    lines = [n.source for n in old if n.source]
    src = max(lines, key=lambda x: (lines.count(x), -x["line"])) if lines else None
    code = holder.source["code"] if holder is not None and holder.source else None
    first, steps = afters[0].backward, len({n.created_by for n in old})
    summary = (f"Memory grows with each backward: after backward #{first} "
               f"{_bytes(alive[0])} of saved buffers and {counts[0]} graph nodes were alive, "
               f"after backward #{now} {_bytes(alive[-1])} and {counts[-1]} nodes. "
               f"{len(old)} nodes built before backward #{now - 1} are still alive, from "
               f"{steps} earlier step{'s' if steps != 1 else ''}"
               + (f" (most built at {_line(src, ': ')})" if src else "")
               + (f", held by `{name}`." if held else ".")
               + (" No backward ran through them: graphs kept for nothing." if unused else ""))
    fixes: list[Fix] = []
    # NB: what the list keeps is its entries' tensors (the loss appended), whatever line built
    # most of their graphs (the model's)
    entry = next((n.source for n in kept_roots if n.source and box and
                  any(x.startswith(f"{box}[") for x in n.labels)), src)
    made = _assigned(entry["code"]) if box and entry else None
    # NB: the one line that appends to the list, where it is not the entries' own (a forward
    # hook's ``acts.append(o)``): what it appends is what the list keeps
    appends = _appends(recording, box) if box else None
    if appends is not None and appends[1] != made:
        where, made = appends
        rewritten = _with_method(where["code"], made, "detach")
        # NB: the step's loss reads the list (an activation penalty on a hooked layer's
        # output): a detached entry would take that gradient away; emptying the list does not
        read_by = next((n.source for n in last.nodes if now in n.executed_by and n.source and
                        n.source["line"] != where["line"] and box in _reads(n.source["code"])),
                       None)
        at = recording.backwards[-1].source if recording.backwards else None
        if read_by is not None and at is not None and not unused:
            summary += (f" This step's loss reads `{box}` ({_line(read_by, ': ')}), so its "
                        "entries need their graphs until its backward, not after.")
            fixes.append(Fix("fresh_list", f"Empty `{box}` at each step",
                             f"`{box}.clear()` after {_line(at)}: each step's entries let "
                             f"their graphs go once the backward has run. Keeping "
                             f"`{made}.detach()` in `{box}` would take away the gradient the "
                             "loss takes through it."))
        elif not unused and rewritten is not None:
            fixes.append(Fix("detach", f"Keep `{made}.detach()` in `{box}`",
                             f"`{box}` keeps each step's `{made}` with its graph: "
                             f"`{rewritten}` at {_lines(where)} keeps the values only."))
    if made and not unused and not fixes:
        fixes.append(Fix("detach", f"Keep `{made}.detach()` in `{box}`",
                         f"`{box}` keeps each step's `{made}` with its graph: "
                         f"`{box}.append({made}.detach())` keeps the values only (or "
                         f"`{made}.item()` for a number)."))
    elif made and not fixes:
        fixes.append(Fix("no_grad", f"Compute `{made}` under `torch.no_grad()`",
                         f"No backward runs through `{made}` (an evaluation, a metric): build "
                         "it inside `with torch.no_grad():`, so no graph is made or kept."))
        if box:
            fixes.append(Fix("item", f"Keep `{made}.item()` in `{box}`",
                             f"A number keeps no graph: `{box}.append({made}.item())`."))
    fed_back = _fed_back(code)
    # NB: a number (a loss) is kept as the tensor now bound to that name
    scalar = any(t.shape == [] for t in last.tensors if t.label == name)
    # NB: lines that feed a value back into itself where no backward runs through what they
    # build (running statistics, ``self.running_mean = 0.9 * self.running_mean + 0.1 * mean``)
    stats = [] if scalar else _idle_feeds(last, old)
    if stats:
        fed = [v for _, vs in stats for v in vs]
        them = " and ".join(f"`{v}`" for v in fed)
        places = " and ".join(_lines(src) for src, _ in stats)
        summary += (f" No backward runs through what {places} build"
                    f"{'s' if len(stats) == 1 else ''}: {them} carr"
                    f"{'ies' if len(fed) == 1 else 'y'} each step's graph into the next "
                    "for nothing.")
        body = "; ".join(src["code"] for src, _ in stats)
        fixes.append(Fix("no_grad", f"Update {them} without a graph",
                         f"`with torch.no_grad(): {body}`"
                         + (" (the lines together, indented under it)" if len(stats) > 1
                            else "")
                         + ": a statistic carried from step to step needs no gradient, and "
                         "then holds no graph."))
    elif code and (scalar and (fed_back or _accumulates(code))):
        fixes.append(Fix("item", f"Accumulate numbers, not `{name}`'s graph",
                         f"`{name}` adds each step's loss tensor, so it holds every step's "
                         f"graph: add `loss.item()` (a number) instead, e.g. `{name} += "
                         "loss.item()`."))
    elif fed_back and not stats:
        n = fed_back[0]
        fixes.append(Fix("detach", f"Detach `{n}` before feeding it back",
                         f"`{n} = {n}.detach()` at the start of each step cuts the graph "
                         "between steps, as a hidden state is carried in truncated "
                         "backpropagation through time."))
    kept = [b for b in recording.backwards
            if b.retain_graph and b.via is None and b.number >= (first or 0)]
    if kept and all(b.create_graph and b.api == "backward" for b in kept):
        # NB: ``loss.backward(create_graph=True)`` each step (for an input's gradient): each
        # ``.grad`` gets a graph, which the next backward's gradients are added to
        fixes.append(Fix("no_create_graph", "Drop `create_graph=True` from the backward",
                         f"{_cap(_line(kept[-1].source)) if kept[-1].source else 'It'} keeps "
                         "the graph it runs and gives every `.grad`, the parameters' too, a "
                         "graph of its own, which each later backward's gradients add to, step "
                         "after step. For an input's gradient to use in a loss, "
                         "`(x_grad,) = torch.autograd.grad(loss, x, create_graph=True)` gives "
                         "it alone."))
    elif kept:
        fixes.append(Fix("no_retain_graph", "Drop `retain_graph=True`",
                         "It keeps every buffer a backward ran through: with a graph that "
                         "reaches earlier steps, all of theirs, step after step. Keep it only "
                         "for a second backward through the same graph."))
    if not fixes:
        fixes.append(Fix("detach", f"Do not keep `{name}` with its graph",
                         f"Keep `{name}.detach()` (or `.item()` for a number) from one step "
                         "to the next, so each step's graph can be freed."))
    return Diagnosis(None, False, "growth", holder_id,
                     holder.name if holder is not None else "", [], [],
                     {"labels": held, "source": holder.source if holder is not None else None},
                     summary, fixes, last.index)


def _idle_feeds(snap: Snapshot, old: list[NodeInfo]) -> list[tuple[dict[str, Any], list[str]]]:
    """The lines that built nodes of ``old`` (alive from earlier steps) and feed a variable back
    into itself, where no node any of them built in ``snap`` was run by a backward: the line's
    source and the variables it feeds back, in line order."""
    lines: dict[tuple[str, int], dict[str, Any]] = {}
    for n in old:
        if n.source:
            lines.setdefault((n.source["file"], n.source["line"]), n.source)
    ran = {(n.source["file"], n.source["line"]) for n in snap.nodes
           if n.source and n.executed_by}
    out = []
    for place, src in sorted(lines.items()):
        fed = _fed_back(src["code"])
        if fed and place not in ran:
            out.append((src, fed))
    return out


def _appends(recording: Recording, box: str) -> tuple[dict[str, Any], str] | None:
    """The one line of the user's files that appends a plain name to the list ``box``
    (``acts.append(o)`` in a forward hook, ``queue.append(k)`` in a loop), and that name; None
    where there are several or none."""
    found = []
    for f, c in _user_nodes(recording):
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and \
                c.func.attr == "append" and _dotted(c.func.value) == box and \
                len(c.args) == 1 and isinstance(c.args[0], ast.Name):
            found.append((_place(f, c.lineno), c.args[0].id))
    return found[0] if len(found) == 1 else None


def _unneeded_retains(recording: Recording) -> list[Diagnosis]:
    """``retain_graph=True`` where no later backward of the recording ran through what it kept
    (one diagnosis per line that asked for it): the buffers stayed alive for nothing. The last
    backward is not judged (a later one may come after the recording), nor a ``create_graph``
    one (it keeps the graph for the gradients' own backward), nor one before a backward that
    failed, nor one a library function ran (``hessian``: the user's line asks for none)."""
    backwards = recording.backwards
    by_index = {s.index: s for s in recording.snapshots}
    ran = [{st.node for st in b.steps} for b in backwards]
    last_run: dict[str, int] = {}             # node -> the last backward (index) that ran it
    for i, nodes in enumerate(ran):
        for nid in nodes:
            last_run[nid] = i
    by_line: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
    needed: set[tuple[Any, ...]] = set()      # the lines where some backward needed it
    # NB: not before a backward that failed: it might have run through them, had it gone on
    judged = next((i for i in range(len(backwards) - 1, -1, -1) if backwards[i].error), -1)
    for i, b in enumerate(backwards[:-1]):
        if i <= judged:
            continue
        after = by_index.get(b.snapshot_after if b.snapshot_after is not None else -1)
        if not b.retain_graph or b.create_graph or b.error is not None or after is None or \
                b.via is not None:
            continue
        # NB: what it kept: the buffers of the nodes it ran (a leaf's accumulator keeps none,
        # and every step's backward runs it)
        kept = {n.id: sum(s.nbytes for s in n.saved if s.state == "alive")
                for n in after.nodes if n.id in ran[i] and n.saved}
        line = b.source or {}
        place = (line.get("file"), line.get("line"))
        if kept and any(last_run[nid] > i for nid in kept):
            needed.add(place)
        if not kept or place in needed:
            continue
        by_line.setdefault(place, []).append((i, sum(kept.values())))
    out = []
    for place, found in by_line.items():
        if place in needed:
            # NB: a line some of whose backwards a later one ran through (each pass of a loop
            # over heads, the last one's aside): dropping it there would break those
            continue
        indices = [i for i, _ in found]
        kept_bytes = [n for _, n in found]
        b = backwards[indices[0]]
        numbers = [backwards[i].number for i in indices]
        which = (f"backward #{numbers[0]}" if len(numbers) == 1 else
                 f"{len(numbers)} backwards (#{', #'.join(map(str, numbers))})")
        src = b.source
        where = f" at {_line(src)}" if src else ""
        most = max(kept_bytes, default=0)
        summary = (f"`retain_graph=True`{where} was not needed: {which} kept the buffers of "
                   f"the graph {'it' if len(numbers) == 1 else 'each'} ran "
                   f"({_bytes(most)}{' at most' if len(kept_bytes) > 1 else ''}) alive, and no "
                   "later backward ran through them.")
        fixes = [Fix("no_retain_graph", "Drop `retain_graph=True`",
                     "A backward frees the buffers of the graph it ran, which is what you want "
                     "unless a second backward goes through the same graph; keep them for "
                     "that case only (and then prefer one backward over the summed losses).")]
        out.append(Diagnosis(b.number, False, "unneeded_retain", "", "", [], [],
                             {"labels": [], "source": src}, summary, fixes, b.snapshot_after))
    return out


_CUTTERS = {"detach": "`.detach()`", "item": "`.item()`", "numpy": "`.numpy()`",
            "tolist": "`.tolist()`", "data": "`.data`"}


_FIXED_WORDS = ("target", "teacher", "ema", "frozen", "pretrained", "momentum", "old")


def _owners(labels: list[str]) -> list[str]:
    """The module that holds all these parameters (``target_net`` for ``target_net.0.weight``
    and ``target_net.2.bias``), else each one's."""
    parts = [label.split(".")[:-1] for label in labels]
    common = [p[0] for p in takewhile(lambda p: len(set(p)) == 1, zip(*parts, strict=False))]
    return ([".".join(common)] if common else
            list(dict.fromkeys(label.rsplit(".", 1)[0] for label in labels)))


def _some(labels: list[str]) -> str:
    """The first six names, and how many more."""
    return ", ".join(f"`{x}`" for x in labels[:6]) + (
        f" and {len(labels) - 6} more" if len(labels) > 6 else "")


def _never_stepped(recording: Recording) -> Diagnosis | None:
    """Gradients no step uses: leaves that every backward of a training loop (three at least)
    gave gradients to and that nothing changed between one backward and the next. Where the
    loop's code shows why, it is said: ``zero_grad()`` between the backward and the step (the
    step finds no gradient), no step at all, or a step that changed none of them (its optimizer
    does not hold them; where it changed other parameters, these are named by their module).
    Code with no optimizer call (gradients computed to be looked at) is not judged."""
    by_index = {s.index: s for s in recording.snapshots}
    # NB: (those whose snapshots are kept: a long loop's first ones are dropped, ``keep_last``)
    done = [b for b in recording.backwards
            if b.error is None and b.api == "backward" and b.via is None and b.source and
            b.snapshot_before in by_index and b.snapshot_after in by_index]
    if len(done) < 3:
        return None
    every = set.intersection(*map(_accumulated, done))
    moved: set[str] = set()          # leaves some step changed
    still: set[str] = set()          # ... and those left as they were, between two backwards
    for p, q in pairwise(done):
        then_snap = by_index.get(p.snapshot_after if p.snapshot_after is not None else -1)
        now_snap = by_index.get(q.snapshot_before if q.snapshot_before is not None else -1)
        if then_snap is None or now_snap is None:
            return None
        then = {t.id: t.version for t in then_snap.tensors}
        for t in now_snap.tensors:
            if t.is_leaf and t.id in then:
                (moved if t.version > then[t.id] else still).add(t.id)
    last = by_index.get(done[-1].snapshot_before if done[-1].snapshot_before is not None else -1)
    if last is None:
        return None
    labels = {t.id: t.label for t in last.tensors if t.label}
    never = [labels[t] for t in sorted(every & still - moved) if t in labels]
    if not never:
        return None
    b = done[-1]
    assert b.source is not None
    calls = _optimizer_calls(b.source)
    steps = [c for c in calls if c[1] == "step"]
    clears = [c for c in calls if c[1] == "zero_grad"]
    line = b.source["line"]

    def after(at: int) -> int:
        """How far line ``at`` runs after the backward: the lines above it run at the next
        pass of the loop (or the next call of the function)."""
        return at - line if at > line else at - line + (1 << 30)
    between = [z for z in clears if z[3] and any(after(st[0]) > after(z[0]) for st in steps)]
    if not between and steps and not any(st[3] for st in steps):
        # NB: a step under a condition the backward is not under (once per several
        # backwards: gradient accumulation) may just not have come yet
        return None
    names = _some(never)
    them = "it" if len(never) == 1 else "them"
    n = len(done)
    fixes: list[Fix]
    if between:
        z = between[0]
        st = next(st for st in steps if after(st[0]) > after(z[0]))
        summary = (f"`{z[2]}` at line {z[0]} clears the gradients that {_line(b.source)} "
                   f"{'just ' if z[0] > line else ''}made, before `{st[2]}` at line {st[0]} "
                   "uses them: the step finds "
                   f"none, so {names} did not change over {n} backwards.")
        if st[0] < line:
            # NB: the step comes before the backward in the loop's body (``zero_grad``,
            # ``step``, then the loss and its backward)
            summary += (f" The step runs before the backward in each pass, and `{z[2]}` "
                        "clears the gradients in between.")
            fixes = [Fix("step", f"Call `{st[2]}` after the backward",
                         f"Move line {st[0]} (`{st[2]}`) after {_line(b.source)}: the step "
                         "then uses the gradients the backward just made.")]
        else:
            fixes = [Fix("zero_grad", "Clear the gradients before the backward, not after it",
                         f"Move line {z[0]} (`{z[2]}`) to the start of the step, before the "
                         f"loss is computed (or after `{st[2]}`): the step then uses the "
                         "gradients of its own batch.")]
    elif not steps and clears:
        z = clears[0]
        opt = z[2].rsplit(".", 1)[0]
        summary = (f"{names} got gradients at each of {n} backwards, but nothing changed "
                   f"{them}: the loop clears the gradients (`{z[2]}`, line {z[0]}) but never "
                   f"calls `{opt}.step()`, so each backward's gradients are thrown away.")
        fixes = [Fix("step", f"Call `{opt}.step()` after the backward",
                     f"Right after {_line(b.source)}: each step then uses its batch's "
                     "gradients.")]
    elif steps:
        st = next((st for st in steps if st[0] > line), steps[0])
        params = [labels[t] for t in sorted(every & moved) if t in labels]
        if params:
            dotted = [x for x in never if "." in x and "[" not in x]
            if not dotted:
                return None
            owners = _owners(dotted)
            summary = (f"{_some(dotted)} got gradients at each of {n} backwards, but no step "
                       f"changed {'it' if len(dotted) == 1 else 'them'}, while `{st[2]}` at "
                       f"line {st[0]} changed {_some(params)}: its optimizer does not hold "
                       f"{'it' if len(dotted) == 1 else 'them'}.")
            # NB: the line that runs the module (``t_logits = teacher(x)``), to run without a
            # graph where it is kept fixed
            tree = _parsed_file(b.source["file"])
            scope = _scope_of(tree, line) if tree is not None else None
            runs = [r for r in _calls_of(recording, owners[:1]) if scope is not None and
                    r[0]["file"] == b.source["file"] and _holds(scope, r[0]["line"])] \
                if len(owners) == 1 else []
            module = _code_of(owners[0])
            opt = st[2].rsplit(".", 1)[0]
            fixes = [Fix("optimizer", "Give them to the optimizer",
                         f"Make the optimizer with them too (`model.parameters()`, or "
                         f"`{opt}.add_param_group({{'params': "
                         f"{module}.parameters()}})`)."),
                     Fix("freeze", "If they are to stay fixed, freeze them",
                         f"`{module}.requires_grad_(False)`"
                         + (f", or {_line(runs[0][0])} under `with torch.no_grad():`"
                            if len(runs) == 1 else "")
                         + ": the backward then gives them no gradient, and saves that work "
                         "(and the forward keeps no buffers for it).")]
            made = _replaced_after(tree, opt, module) if tree is not None and \
                len(owners) == 1 else None
            if made is not None:
                # NB: the module was replaced after the optimizer was made (a new head for a
                # new task): the optimizer holds the old one's parameters
                made_at, replaced = (_place(b.source["file"], x.lineno) for x in made)
                summary += (f" {_cap(_line(replaced))} replaced `{module}` after "
                            f"{_line(made_at)} made the optimizer, which holds the parameters "
                            "it was given then.")
                fixes.insert(0, Fix("optimizer", "Make the optimizer after the replacement",
                                    f"Move {_line(made_at)} to after {_lines(replaced)}: it "
                                    f"is then given the parameters of the new `{module}`."))
            if any(w in owners[0].lower() for w in _FIXED_WORDS):
                # NB: named as a part kept fixed (a teacher, a target network): freezing it is
                # the fix (an optimizer given it would train what is to stay fixed)
                fixes = fixes[1:]
            never = dotted
        else:
            summary = (f"{names} got gradients at each of {n} backwards, but `{st[2]}` at line "
                       f"{st[0]} changed none of {them}: its optimizer does not hold "
                       f"{them} (made with another model's parameters, or before the model "
                       "was made again), or its learning rate is 0.")
            fixes = [Fix("optimizer", "Make the optimizer with these parameters",
                         "`torch.optim.SGD(model.parameters(), lr=...)`, after the model it "
                         "trains is made (and made again whenever the model is).")]
    else:
        return None
    return Diagnosis(b.number, False, "never_stepped", "", "", [], [],
                     {"labels": never, "source": b.source}, summary, fixes, b.snapshot_before)


def _optimizer_calls(src: dict[str, Any]) -> list[tuple[int, str, str, bool]]:
    """The ``zero_grad()`` and ``step()`` calls (a scheduler's aside) of the loop or the function
    around the line ``src`` (a backward's): (line, method, code of the call, whether it runs
    whenever the backward does: under no ``if`` the backward is not under)."""
    tree = _parsed_file(src["file"])
    if tree is None:
        return []
    scope = _scope_of(tree, src["line"])
    branches = [n for n in ast.walk(scope) if isinstance(n, ast.If)
                and not _holds(n, src["line"])]
    out = []
    for n in ast.walk(scope):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                (_is_step(n) or n.func.attr == "zero_grad"):
            out.append((n.lineno, n.func.attr, ast.unparse(n),
                        not any(_holds(b, n.lineno) for b in branches)))
    return sorted(out)


def _unreached(recording: Recording) -> Diagnosis | None:
    """A module's parameters that require grad and that no backward of the recording reached,
    while others' did: they never get a gradient (a ``.detach()`` between them and the loss, a
    layer never called, or a part frozen without saying so). The lines that call the module
    are looked for in the user's files, and a graph cut on such a line is named."""
    done = [b for b in recording.backwards
            if b.error is None and b.api == "backward" and b.via is None]
    if not done or not recording.snapshots:
        return None
    end = recording.snapshots[-1]
    if len(done) < 2 and (end.kind == "backward_failed" or end.error is not None):
        # NB: the code stopped at an error after one backward: what it would have used
        # next (the next head of a loop over heads) never ran
        return None
    reached = set().union(*map(_accumulated, done))
    # NB: and those a backward that failed would have reached (its graph holds them)
    by_index = {s.index: s for s in recording.snapshots}
    for b in recording.backwards:
        before = by_index.get(b.snapshot_before if b.snapshot_before is not None else -1)
        if b.error is not None and before is not None:
            reached.update(*(_leaves(before, r) for r in b.roots))
    last = recording.snapshots[-1]
    params = [t for t in last.tensors if t.is_leaf and t.requires_grad and t.label
              and "." in t.label and "[" not in t.label]
    missed = [t.label for t in params if t.id not in reached and t.label]
    if not missed or len(missed) == len(params):
        return None
    owners = _owners(missed)
    given = _optimized(recording)
    if given is not None and not any(o == g or o.startswith(g + ".") or g.startswith(o + ".")
                                     for o in owners for g in given):
        # NB: no optimizer of the file is given them (a backbone kept fixed, a linear probe):
        # not training them is what the code says
        return None
    names = _some(missed)
    n = len(done)
    them = "it" if len(missed) == 1 else "them"
    summary = (f"No backward reached {names}: "
               + (f"the backward that ran gave {them} no gradient" if n == 1 else
                  f"none of the {n} backwards that ran gave {them} a gradient")
               + f", so an optimizer leaves {them} as "
               f"{'it is' if them == 'it' else 'they are'}.")
    # NB: the calls in the function that runs the backwards first (a file may call the module
    # elsewhere too)
    calls = sorted(_calls_of(recording, owners), key=lambda c: not _beside(c[0], done))
    fixes: list[Fix] = []
    reentrant = next(((src, found) for src, code in calls
                      if (found := _non_reentrant(code, owners)) is not None), None)
    if reentrant is not None:
        # NB: a reentrant checkpoint whose inputs do not require grad gives its module's
        # parameters no gradient (PyTorch only warns)
        src, (module, rewritten) = reentrant
        summary += (f" `{module}` is run by a reentrant checkpoint at {_line(src)}: its "
                    "backward runs only where an input of the checkpoint requires grad, and "
                    f"none does, so the parameters inside get no gradient (PyTorch warns: "
                    "\"None of the inputs have requires_grad=True\").")
        fixes.append(Fix("keep_graph", f"Use `use_reentrant=False` at {_lines(src)}",
                         f"`{rewritten}`: a non-reentrant checkpoint gives the parameters inside "
                         "their gradients whatever its inputs."))
        calls = []
    else:
        summary += (f" The losses do not depend on {them}: something cuts the graph between "
                    f"{them} and the loss, or {'it is' if them == 'it' else 'they are'} not "
                    "used.")
    # NB: a call that cuts the graph itself, or a later line of its block that cuts what the
    # call made (``h = encoder(x)``, then ``h = h.detach()``)
    cut: tuple[dict[str, Any], str, str] | None = None
    later: tuple[dict[str, Any], tuple[dict[str, Any], str, str]] | None = None
    for src, code in calls:
        what = _cut_in(code)
        if what is not None:
            cut = (src, code, what)
            break
        later = _later_cut(src, code)
        if later is not None:
            break
    if later is not None:
        called, cut = later
        summary += (f" `{owners[0].rsplit('.', 1)[-1]}` is called at {_line(called)}, and "
                    f"{_line(cut[0])} cuts what it made with {_CUTTERS[cut[2]]}.")
    elif cut is not None:
        src, code, what = cut
        summary += (f" `{owners[0].rsplit('.', 1)[-1]}` is called at {_line(src)}, where "
                    f"{_CUTTERS[what]} cuts the graph.")
    if cut is not None:
        src, code, what = cut
        uncut = _Without(_CUTTERS, attribute="data").visit(ast.parse(code.strip()))
        line = uncut.body[0] if len(uncut.body) == 1 else None
        if isinstance(line, ast.Assign) and len(line.targets) == 1 and \
                ast.unparse(line.targets[0]) == ast.unparse(line.value):
            # NB: ``h = h.detach()`` does nothing else: the line goes
            fixes.append(Fix("keep_graph", f"Drop {_lines(src)}",
                             f"`{code}` does nothing but cut the graph: without it the "
                             "gradient flows back into these parameters."))
        else:
            fixes.append(Fix("keep_graph", f"Drop {_CUTTERS[what]} from {_lines(src)}",
                             f"`{ast.unparse(uncut)}`: the gradient then flows back into "
                             "these parameters."))
    elif reentrant is None and calls and all(_off_around(src) for src, _ in calls):
        # NB: every call runs with gradients off: in a function decorated
        # ``@torch.no_grad()`` (a module's ``forward``), or under ``with torch.no_grad():``
        src, block = _off_around(calls[0][0]) or (calls[0][0], calls[0][0])
        summary += (f" `{owners[0].rsplit('.', 1)[-1]}` is called at {_line(src)}, under "
                    f"{_line(block, ': ')}, which records no graph.")
        fixes.append(Fix("grad_enabled", f"Drop `{block['code']}`",
                         f"Drop {_lines(block)}" + (
                             "" if block["code"].startswith("@") else
                             " (the lines under it dedented)")
                         + ": the call then records a graph, and the backward reaches these "
                         "parameters; where it also evaluates, call it under `with "
                         "torch.no_grad():` there instead."))
    elif reentrant is None:
        where = (f" (it is called at {_line(calls[0][0])})" if calls else "")
        fixes.append(Fix("keep_graph", "Let the gradient reach them",
                         f"Use `{owners[0]}` in computing the loss{where}, with nothing between "
                         "that cuts the graph: no `.detach()`, `.data`, `.item()`, `.numpy()` "
                         "or `torch.tensor(...)` of a tensor made from it, and no "
                         "`torch.no_grad()` around its call."))
    freeze = Fix("freeze", "If they are frozen on purpose, say so",
                 f"`{_code_of(owners[0])}.requires_grad_(False)` (a target network, a teacher, a "
                 "pretrained part kept fixed): its forward then builds no graph and keeps no "
                 "buffers, and an optimizer given them skips them.")
    # NB: a module named as one kept fixed on purpose: saying so comes first
    fixed = any(w in owners[0].lower() for w in _FIXED_WORDS)
    fixes = [freeze, *fixes] if fixed else [*fixes, freeze]
    where_cut = cut[0] if cut is not None else reentrant[0] if reentrant is not None else None
    return Diagnosis(None, False, "unreached", "", "", [], [],
                     {"labels": missed, "source": where_cut}, summary, fixes, last.index)


def _code_of(path: str) -> str:
    """A module's name as code: ``model.2`` is ``model[2]``, ``net.layers.0.fc`` is
    ``net.layers[0].fc``."""
    out = ""
    for part in path.split("."):
        out += f"[{part}]" if part.isdigit() and out else f".{part}" if out else part
    return out


def _replaced_after(tree: ast.AST, opt: str, module: str
                    ) -> tuple[ast.Assign, ast.Assign] | None:
    """The assignment that makes the optimizer ``opt`` and a later one that replaces
    ``module`` (``model[2] = nn.Linear(32, 3)``), in one file; None where either is missing."""
    made = [n for n in ast.walk(tree) if isinstance(n, ast.Assign) and
            [_dotted(t) for t in n.targets] == [opt]]
    if len(made) != 1:
        return None
    later = [n for n in ast.walk(tree) if isinstance(n, ast.Assign) and
             n.lineno > made[0].lineno and [ast.unparse(t) for t in n.targets] == [module]]
    return (made[0], later[0]) if later else None


def _off_around(src: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The line ``src`` and what turns gradients off around it: a ``with torch.no_grad():``
    (or ``inference_mode``) block, or a decorator of the function it is in; None if none."""
    tree = _parsed_file(src["file"])
    if tree is None:
        return None
    fn = _innermost(tree, src["line"], (ast.FunctionDef, ast.AsyncFunctionDef))
    scope = _walked(fn, src["file"], src["line"])
    block = next((w for w in scope.offs if _holds(w, src["line"])), None)
    at = block.lineno if block is not None else scope.off.lineno if scope.off is not None \
        else None
    return (src, _place(src["file"], at)) if at is not None else None


def _optimized(recording: Recording) -> set[str] | None:
    """The modules whose parameters the optimizers are given (those made in the function that
    runs the last backward, or in its script), by the names the calls read
    (``Adam(head.parameters())``, ``SGD(list(a.parameters()) + list(b.parameters()))``): None
    where there is no optimizer, or one is given something else (a tensor or a list by name:
    what it holds is not read)."""
    found: set[str] = set()
    seen = False
    # NB: in the function that runs the backwards (or the script), not elsewhere in the file
    last = next((b.source for b in reversed(recording.backwards) if b.source), None)
    tree = _parsed_file(last["file"]) if last is not None else None
    if last is None or tree is None:
        return None
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
             and _holds(n, last["line"])]
    where = max(funcs, key=lambda n: n.lineno) if funcs else tree
    for c in ast.walk(where):
        if not (isinstance(c, ast.Call) and (_optimizer_made(c) or
                                             _dotted(c.func) in _OPTIMIZER_NAMES)) or \
                not c.args:
            continue
        seen = True
        for n in ast.walk(c.args[0]):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    n.func.attr in ("parameters", "named_parameters"):
                owner = _dotted(n.func.value)
                if owner is None:
                    return None
                found.add(owner)
            elif isinstance(n, ast.Name) and n.id != "list" and not any(
                    isinstance(m, ast.Attribute) and m.value is n for m in ast.walk(c.args[0])):
                return None
    return found if seen else None


_OPTIMIZER_NAMES = {"SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "LBFGS"}


def _optimizer_made(call: ast.Call) -> bool:
    """Whether ``call`` makes an optimizer by its module's name (``torch.optim.SGD(...)``,
    ``optim.Adam(...)``)."""
    return ".optim." in f".{_dotted(call.func) or ''}"


def _thrown_grads(recording: Recording) -> Diagnosis | None:
    """Gradients cleared before any step used them, backward after backward, where a step
    comes only now and then (``opt.zero_grad()`` at each pass of a gradient-accumulation loop,
    ``opt.step()`` under ``if (i + 1) % accum == 0:``): between two backwards of one line, the
    leaves both reached were not changed (no step) while their ``.grad`` was cleared (set to
    None or zeroed). Each step then uses the last backward's gradients only."""
    grads = recording._gradients()
    snaps = {s.index: s for s in recording.snapshots}
    done = [b for b in recording.backwards
            if b.error is None and b.api == "backward" and b.via is None and b.source]
    thrown: list[tuple[BackwardRecord, list[str]]] = []
    stepped = False
    for p, q in pairwise(done):
        after, before = snaps.get(p.snapshot_after or -1), snaps.get(q.snapshot_before or -1)
        kept_then, kept_now = grads.get(p.snapshot_after or -1), grads.get(
            q.snapshot_before or -1)
        if after is None or before is None or kept_then is None or kept_now is None or \
                _stack(p) != _stack(q):
            continue
        both = _accumulated(p) & _accumulated(q)
        then = {t.id: t for t in after.tensors}
        now = {t.id: t for t in before.tensors}
        same = [t for t in sorted(both) if t in then and t in now]
        if any(now[t].version != then[t].version for t in same):
            stepped = True
            continue
        cleared = [now[t].label or t for t in same if kept_then.get(int(t[1:])) is not None
                   and kept_now.get(int(t[1:])) != kept_then.get(int(t[1:]))]
        if cleared and len(cleared) == len(same):
            thrown.append((p, cleared))
    if len(thrown) < 2 or not stepped:
        return None
    first = thrown[0][0]
    assert first.source is not None
    calls = _optimizer_calls(first.source)
    zero = next((c for c in calls if c[1] == "zero_grad" and c[3]), None)
    step = next((c for c in calls if c[1] != "zero_grad" and not c[3]), None)
    them = _listed(thrown[0][1])
    summary = (f"{len(thrown)} of the {len(done)} backwards at {_line(first.source)} gave "
               f"{them} gradients that were cleared before any step used them: no step changed "
               "them between those backwards, and their `.grad` was cleared before the next "
               "one" + (f" ({_line(_place(first.source['file'], zero[0]), ': ')})" if zero
                        else "") + ". Each step uses the gradients of the last backward only, "
               "not the sum since the step before.")
    fixes = []
    if zero is not None and step is not None:
        z, st = _place(first.source["file"], zero[0]), _place(first.source["file"], step[0])
        summary += f" {_cap(_line(st))} runs only under its condition."
        fixes.append(Fix("zero_grad", "Clear the gradients after each step, not each backward",
                         f"Move {_line(z)} to right after {_line(st)}, under the same "
                         "condition: each step then uses the gradients added up since the "
                         "last one (accumulated gradients), and the next ones start from "
                         "zero."))
    else:
        fixes.append(Fix("zero_grad", "Clear the gradients after each step, not each backward",
                         "Call `zero_grad()` right after each `step()` only: a backward adds to "
                         "`.grad`, and the step uses what was added since the last one."))
    return Diagnosis(thrown[-1][0].number, False, "thrown_grad", "", "", [], [],
                     {"labels": thrown[0][1], "source": first.source}, summary, fixes,
                     thrown[-1][0].snapshot_after)


def _stale_grads(recording: Recording) -> Diagnosis | None:
    """Gradients never cleared between steps (``optimizer.zero_grad()`` forgotten): a leaf two
    backwards in a row gave gradients to, that something changed in place between them (a
    step), while its ``.grad`` stayed the same tensor at the same version (neither set to None
    nor zeroed). Each step then uses the sum of every batch's gradient so far."""
    grads = recording._gradients()
    snaps = {s.index: s for s in recording.snapshots}
    done = [b for b in recording.backwards
            if b.error is None and b.api == "backward" and b.via is None]
    found: list[tuple[BackwardRecord, BackwardRecord, list[str]]] = []
    for p, q, r in zip(done, done[1:], done[2:], strict=False):
        after, before = snaps.get(p.snapshot_after or -1), snaps.get(q.snapshot_before or -1)
        kept_then, kept_now = grads.get(p.snapshot_after or -1), grads.get(
            q.snapshot_before or -1)
        later, next_one = snaps.get(q.snapshot_after or -1), snaps.get(r.snapshot_before or -1)
        if after is None or before is None or kept_then is None or kept_now is None or \
                later is None or next_one is None:
            continue
        both = _accumulated(p) & _accumulated(q)
        then = {t.id: t for t in after.tensors}
        now = {t.id: t for t in before.tensors}
        # NB: ... and a step used the sum: changed again after backward q (a discriminator's
        # gradients from the generator's loss, cleared before its next step, are not)
        was, used = {t.id: t.version for t in later.tensors}, \
            {t.id: t.version for t in next_one.tensors}
        kept = {t for t in both if (g := kept_now.get(int(t[1:]))) is not None and
                g == kept_then.get(int(t[1:]))}
        stale = [now[t].label or t for t in sorted(kept) if t in then and t in now and
                 now[t].version > then[t].version and used.get(t, -1) > was.get(t, -1) >= 0]
        if stale:
            found.append((p, q, stale))
    if not found:
        return None
    p, q, stale = found[0]
    them = _listed(stale)
    one = len(stale) == 1
    owners = _owners(stale)
    if all("." in x for x in stale) and len(owners) == 1 and \
            any(w in owners[0].lower() for w in _FIXED_WORDS):
        # NB: a part named as one kept without gradients (a mean teacher, an EMA copy): it is
        # changed in place by its own update, which reads no gradient; the gradients it gets
        # only grow
        summary = (f"{them} got gradients at each backward"
                   f"{' (' + _line(q.source, ': ') + ')' if q.source else ''}, and "
                   f"{'its' if one else 'their'} `.grad` only grows: `{owners[0]}` is changed "
                   "in place by an update of its own (a moving average), which reads no "
                   "gradient, so the backward computes them for nothing.")
        fixes = [Fix("freeze", f"Freeze `{_code_of(owners[0])}`",
                     f"`{_code_of(owners[0])}.requires_grad_(False)` once, or its output "
                     "computed under `torch.no_grad()` (or `.detach()`): the backward then "
                     "skips it, and its update is unchanged.")]
        return Diagnosis(q.number, False, "stale_grad", "", "", [], [],
                         {"labels": stale, "source": q.source}, summary, fixes,
                         q.snapshot_before)
    again = f" It happened again at {len(found) - 1} later backward" + (
        "s" if len(found) > 2 else "") + "." if len(found) > 1 else ""
    summary = (f"Backward #{q.number}{' at ' + _line(q.source) if q.source else ''} added its "
               f"gradients to those of backward #{p.number}: {them} "
               f"{'was' if one else 'were'} changed in place between them (a step), but "
               f"{'its' if one else 'their'} `.grad` was not cleared (neither set to None nor "
               "zeroed). Each step then uses the sum of the gradients of every batch so far, "
               f"not its own, and the steps grow as training goes on.{again}")
    w = _plain(stale) or "w"
    # NB: the loop's optimizers: one that steps and is never cleared (``opt_enc.zero_grad()``
    # written twice, ``opt_dec.zero_grad()`` meant)
    calls = _optimizer_calls(q.source) if q.source else []
    steps = [c for c in calls if c[1] != "zero_grad"]
    cleared = {c[2].rsplit(".", 1)[0] for c in calls if c[1] == "zero_grad"}
    forgot = list(dict.fromkeys(o for c in steps if (o := c[2].rsplit(".", 1)[0]) not in cleared))
    clear = (f"`{forgot[0]}.zero_grad()` before each backward (the loop steps `{forgot[0]}` "
             "and never clears it)" if len(forgot) == 1 and len(steps) > 1 else
             "`optimizer.zero_grad()` before each backward")
    twice = [c for c in calls if c[1] == "zero_grad" and
             [d[2] for d in calls].count(c[2]) > 1]
    if len(forgot) == 1 and len(steps) > 1 and twice and q.source:
        again_at = _place(q.source["file"], twice[-1][0])
        clear += (f": {_line(again_at)} clears `{twice[-1][2].rsplit('.', 1)[0]}` a second "
                  f"time, where `{forgot[0]}.zero_grad()` was likely meant")
    by_hand = "" if len(forgot) == 1 and len(steps) > 1 else (
        f" (or, for weights updated by hand, `{w}.grad = None` after each update)")
    fixes = [Fix("zero_grad", "Clear the gradients at each step",
                 f"{clear}{by_hand}, so each step uses its own batch's gradient."),
             Fix("accumulate", "If the sum is meant (gradient accumulation), step once per "
                 "sum", "Backward several batches, then one step, then clear the gradients: "
                 "a step between the backwards of one sum changes the weights it is made "
                 "for.")]
    return Diagnosis(q.number, False, "stale_grad", "", "", [], [],
                     {"labels": stale, "source": q.source}, summary, fixes, q.snapshot_before)


def _user_files(recording: Recording) -> list[str]:
    """The user's files the last snapshots' nodes were built in (eight at most)."""
    return list(dict.fromkeys(n.source["file"] for s in recording.snapshots[-4:]
                              for n in s.nodes if n.source is not None))[:8]


def _user_nodes(recording: Recording) -> Iterator[tuple[str, ast.AST]]:
    """Each node of the parsed user's files (``_user_files``), with its file."""
    for f in _user_files(recording):
        tree = _parsed_file(f)
        for c in ast.walk(tree) if tree is not None else ():
            yield f, c


def _calls_of(recording: Recording, owners: list[str]) -> list[tuple[dict[str, Any], str]]:
    """The lines of the user's files (those the recorded nodes were built in) that call one
    of the modules ``owners`` names (``encoder(``, ``self.encoder(``)."""
    wanted = {o.rsplit(".", 1)[-1] for o in owners}
    holders = _holders(owners)       # (a checkpoint of ``stem`` runs ``stem.0``)
    out = []
    for f in _user_files(recording):
        i, count = 1, len(linecache.getlines(f))
        while i <= count:
            # NB: a statement over several lines is read whole, once
            first, last, text = frames.statement_at(f, i)
            i = last + 1
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            if any((isinstance(c, ast.Call) and (_dotted(c.func) or "").rsplit(".", 1)[-1]
                    in wanted) or _checkpointed(c) in holders for c in ast.walk(tree)):
                out.append(({"file": f, "line": first, "code": text}, text))
    return out


def _checkpointed(call: ast.AST) -> str | None:
    """The module a ``checkpoint(module, x, ...)`` call runs (its last name), else None."""
    if not isinstance(call, ast.Call) or not call.args or \
            not (_dotted(call.func) or "").endswith("checkpoint"):
        return None
    name = _dotted(call.args[0])
    return name.rsplit(".", 1)[-1] if name else None


def _holders(owners: list[str]) -> set[str]:
    """The names of the modules that hold these (``stem`` and ``block`` for ``stem.block.0``:
    a checkpoint of ``stem`` runs ``stem.0``)."""
    return {part for o in owners for part in o.split(".") if not part.isdigit()}


def _non_reentrant(code: str, owners: list[str]) -> tuple[str, str] | None:
    """A line running one of the modules ``owners`` names through ``checkpoint(...,
    use_reentrant=True)``: the module as named there, and the line rewritten with
    ``use_reentrant=False``; else None."""
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        return None
    wanted = _holders(owners)
    for c in ast.walk(tree):
        flag = next((k.value for k in c.keywords if k.arg == "use_reentrant"), None) \
            if isinstance(c, ast.Call) else None
        if isinstance(c, ast.Call) and _checkpointed(c) in wanted and \
                isinstance(flag, ast.Constant) and flag.value is True:
            return (ast.unparse(c.args[0]),
                    re.sub(r"use_reentrant\s*=\s*True", "use_reentrant=False", code.strip()))
    return None


def _cut_in(code: str) -> str | None:
    """What on this line cuts the graph (``detach``, ``item``, ``data``...), if anything."""
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _CUTTERS and not node.args:
            return node.func.attr
        if isinstance(node, ast.Attribute) and node.attr == "data":
            return "data"
    return None


def _beside(src: dict[str, Any], backwards: list[BackwardRecord]) -> bool:
    """Whether line ``src`` is in the function (or the top level) whose lines ran one of
    ``backwards`` (the training loop's function)."""
    tree = _parsed_file(src["file"])
    if tree is None:
        return False
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def scope(line: int) -> ast.AST:
        inside = [f for f in funcs if _holds(f, line)]
        return max(inside, key=lambda f: f.lineno) if inside else tree
    here = scope(src["line"])
    return any(scope(at["line"]) is here for b in backwards if b.source
               for at in [_in_file(b, src["file"])] if at["file"] == src["file"])


def _later_cut(src: dict[str, Any], code: str
               ) -> tuple[dict[str, Any], tuple[dict[str, Any], str, str]] | None:
    """(``src``, (the line, its code, what cuts)) for the first later statement of the block
    of line ``src`` that cuts the graph of what that line assigned (``h = h.detach()``,
    ``z = torch.relu(h).data``), following ``h`` until a line sets it from other values."""
    name = _assigned(code)
    tree = _parsed_file(src["file"]) if name else None
    if tree is None or name is None:
        return None
    for node in ast.walk(tree):
        for body in (getattr(node, f, None) for f in ("body", "orelse", "finalbody")):
            if not isinstance(body, list):
                continue
            at = next((i for i, st in enumerate(body)
                       if isinstance(st, ast.stmt) and st.lineno == src["line"]), None)
            if at is None:
                continue
            for st in body[at + 1:at + 24]:
                first, _, text = frames.statement_at(src["file"], st.lineno)
                # NB: a cut whose result is kept (``h = h.detach()``), not one only looked at
                # (``print(h.mean().item())``)
                what = _cut_of(st.value, name) if isinstance(st, ast.Assign) else None
                if what is not None:
                    return src, ({"file": src["file"], "line": first, "code": text}, text,
                                 what)
                stored = {_dotted(n) for n in ast.walk(st)
                          if isinstance(getattr(n, "ctx", None), ast.Store)}
                read = {_dotted(n) for n in ast.walk(st)
                        if isinstance(getattr(n, "ctx", None), ast.Load)}
                if name in stored and name not in read:
                    return None
            return None
    return None


def _cut_of(expr: ast.expr, name: str) -> str | None:
    """What in ``expr`` cuts the graph of ``name`` (``name.detach()``, ``f(name).data``)."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _CUTTERS and not node.args:
            receiver: ast.AST = node.func.value
            what = node.func.attr
        elif isinstance(node, ast.Attribute) and node.attr == "data":
            receiver, what = node.value, "data"
        else:
            continue
        if any(_dotted(n) == name for n in ast.walk(receiver)):
            return what
    return None


def _made_by_grad(recording: Recording, b: BackwardRecord, named: list[str]
                  ) -> BackwardRecord | None:
    """The earlier ``autograd.grad`` call whose line assigned the variable ``named[0]`` is
    (or is an item of): ``grads = torch.autograd.grad(loss, w)``, then ``grads[0]``."""
    if not named:
        return None
    base = re.split(r"[\[.]", named[0], maxsplit=1)[0]
    for earlier in reversed(recording.backwards[:b.number - 1]):
        if earlier.api != "grad" or not earlier.source:
            continue
        try:
            tree = ast.parse(earlier.source["code"].strip())
        except SyntaxError:
            continue
        line = tree.body[0] if len(tree.body) == 1 else None
        if isinstance(line, ast.Assign) and base in {
                n.id for t in line.targets for n in ast.walk(t) if isinstance(n, ast.Name)}:
            return earlier
    return None


def _inputs_arg(call: ast.Call) -> ast.expr | None:
    """What an ``autograd.grad`` call is given as its inputs (its second argument, or
    ``inputs=``)."""
    return call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "inputs"), None)


def _grad_call_inputs(b: BackwardRecord) -> list[str] | None:
    """The inputs an ``autograd.grad`` line names (``grad(y, (x, w))`` gives ``x``, ``w``)."""
    if b.api != "grad" or not b.source:
        return None
    try:
        body = ast.parse(b.source["code"].strip()).body
    except SyntaxError:
        return None
    value = body[0].value if len(body) == 1 and isinstance(body[0], (ast.Assign, ast.Expr)) \
        else None
    arg = _inputs_arg(value) if isinstance(value, ast.Call) else None
    if arg is None:
        return None
    items = arg.elts if isinstance(arg, (ast.Tuple, ast.List)) else [arg]
    return [ast.unparse(x) for x in items]


def _grads_read(snap: Snapshot, grad: BackwardRecord, then: BackwardRecord) -> str | None:
    """An ``autograd.grad`` call of leaves (``grads = grad(loss, model.parameters())``), then a
    backward of the same loss: what reads the same gradients from ``.grad`` after it (``grads
    = [p.grad for p in model.parameters()]``)."""
    if then.api != "backward" or not grad.source or not then.source:
        return None
    inputs = _grad_call_inputs(grad)
    found = _grad_statement(grad.source["code"])
    if not inputs or found is None or not isinstance(found[0], ast.Assign):
        return None
    leaves = {t.label: t.is_leaf for t in snap.tensors if t.label}
    if any(not leaves.get(x, True) for x in inputs):
        return None
    target = ast.unparse(found[0].targets[0])
    if len(inputs) == 1 and inputs[0].endswith("parameters()"):
        return f"{target} = [p.grad for p in {inputs[0]}]"
    if len(inputs) == 1 and found[1].args[1:] and not isinstance(
            found[1].args[1], (ast.Tuple, ast.List)):
        return f"{target} = ({inputs[0]}.grad,)"
    return f"{target} = ({', '.join(f'{x}.grad' for x in inputs)})"


def _both(codes: list[str]) -> str:
    """```a` and `b`` (code)."""
    return " and ".join(f"`{c}`" for c in codes)


def _steps_between(first: BackwardRecord, then: BackwardRecord
                   ) -> tuple[list[str], list[str]] | None:
    """One loss backwarded from two lines of a loop or function, with an optimizer's step
    between them (an optimizer per part, each stepped after its own backward): the
    ``zero_grad()`` and ``step()`` calls there, as code, each once."""
    a, b = first.source, then.source
    if not a or not b or a["file"] != b["file"] or a["line"] >= b["line"] or \
            _stack(first)[1:] != _stack(then)[1:]:
        return None
    calls = _optimizer_calls(b)
    if not any(a["line"] < line < b["line"] for line, method, _, _ in calls
               if method == "step"):
        return None
    clears = [code for _, method, code, _ in calls if method == "zero_grad"]
    steps = [code for _, method, code, _ in calls if method == "step"]
    return list(dict.fromkeys(clears)), list(dict.fromkeys(steps))


def _grad_inputs(first: BackwardRecord | None, then: BackwardRecord | None) -> str | None:
    """Two ``autograd.grad`` calls from one output, for other inputs (``gx = grad(y, x)``,
    ``gw = grad(y, w)``): the one call that gives both (``gx, gw = grad(y, (x, w))``)."""
    calls = []
    for b in (first, then):
        if b is None or b.api != "grad" or not b.source:
            return None
        try:
            tree = ast.parse(b.source["code"].strip())
        except SyntaxError:
            return None
        line = tree.body[0] if len(tree.body) == 1 else None
        call = line.value if isinstance(line, (ast.Assign, ast.Expr)) else None
        if not isinstance(call, ast.Call) or len(call.args) < 2:
            return None
        target = ast.unparse(line.targets[0]) if isinstance(line, ast.Assign) else None
        calls.append((ast.unparse(call.func), ast.unparse(call.args[0]), target,
                      ast.unparse(call.args[1])))
    (func, out, t1, in1), (_, out2, t2, in2) = calls
    if out != out2 or in1 == in2:
        return None
    targets = f"{t1}, {t2} = " if t1 and t2 and "," not in t1 + t2 else ""
    return f"{targets}{func}({out}, ({in1}, {in2}))"


# -- derivatives made without create_graph -------------------------------------------------------
_TORCH = frozenset({"torch", "F"})
# NB: methods whose result sends no gradient back to the tensor they are called on
_FLAT = frozenset({"sign", "argmax", "argmin", "detach", "item", "tolist", "numpy", "round",
                   "floor", "ceil", "trunc", "eq", "ne", "gt", "lt", "ge", "le", "bool", "long",
                   "int", "nonzero", "size", "dim", "numel"})


def _grad_statement(code: str | None) -> tuple[ast.stmt, ast.Call] | None:
    """The one statement of an ``autograd.grad`` line and its call of ``grad``."""
    try:
        body = ast.parse((code or "").strip()).body
    except SyntaxError:
        return None
    if len(body) != 1:
        return None
    call = next((n for n in ast.walk(body[0]) if isinstance(n, ast.Call) and
                 (n.func.attr if isinstance(n.func, ast.Attribute) else
                  n.func.id if isinstance(n.func, ast.Name) else "") == "grad"), None)
    return (body[0], call) if call is not None else None


def _with_create_graph(code: str | None) -> str | None:
    """An ``autograd.grad`` line with ``create_graph=True``."""
    found = _grad_statement(code)
    if found is None:
        return None
    line, call = found
    call.keywords = [k for k in call.keywords if k.arg != "create_graph"] + \
        [ast.keyword("create_graph", ast.Constant(True))]
    return ast.unparse(line)


def _carries(expr: ast.AST, names: Container[str | None], source: ast.AST | None = None,
             modules: Container[str] = _TORCH) -> bool:
    """Whether ``expr`` reads one of ``names`` (or is ``source``) through differentiable tensor
    math alone: operators, indexing, the value's own methods, the functions of ``modules``
    (``torch``, ``F``: the names the file imports from torch). Not through a call of anything
    else (``model(x + g)``: the value is a model's input, as an attack's direction is), nor a
    flat op (``g.sign()``, a comparison)."""
    if expr is source or (isinstance(expr, (ast.Name, ast.Attribute)) and
                          _dotted(expr) in names):
        return True
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Attribute):
            if func.attr in _FLAT:
                return False
            if _carries(func.value, names, source, modules):
                return True
            base = func.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if not (isinstance(base, ast.Name) and base.id in modules):
                return False
        elif not (isinstance(func, ast.Name) and (func.id in modules or
                                                  func.id in ("sum", "abs", "min", "max"))):
            return False
        return any(_carries(a, names, source, modules) for a in
                   [*expr.args, *(k.value for k in expr.keywords)])
    if isinstance(expr, (ast.Compare, ast.BoolOp, ast.Lambda)):
        return False
    if isinstance(expr, ast.Subscript):
        return _carries(expr.value, names, source, modules)
    return any(_carries(c, names, source, modules) for c in ast.iter_child_nodes(expr))


def _torch_names(tree: ast.Module) -> set[str]:
    """The names a file binds to torch and what it holds (``import torch.nn.functional as
    F``, ``from torch.nn.functional import mse_loss``), with ``torch`` and ``F``."""
    out = set(_TORCH)
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out.update(a.asname or a.name.split(".")[0] for a in n.names
                       if a.name.split(".")[0] == "torch")
        elif isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "torch":
            out.update(a.asname or a.name for a in n.names)
    return out


def _stored(target: ast.AST) -> list[str]:
    """The names an assignment's target binds (``a, self.b = ...`` gives ``a``, ``self.b``)."""
    return [name for n in ast.walk(target) if isinstance(getattr(n, "ctx", None), ast.Store)
            and (name := _dotted(n))]


def _derivative_reaches(recording: Recording, grad: BackwardRecord, later: BackwardRecord
                        ) -> list[str] | None:
    """Where the result of the ``autograd.grad`` line of backward ``grad`` goes, through tensor
    math alone (``_carries``), into what the line of backward ``later`` backwards, in the same
    file, further down (``g = grad(...)[0]``, ``gp = ((g.norm(2, dim=1) - 1) ** 2).mean()``,
    then ``d_loss = ... + 10 * gp``, ``d_loss.backward()``): the names that carry it, from the
    result to the one the later line reads (``g``, ``gp``, ``d_loss``); None where it does
    not."""
    src, dst = grad.source, later.source
    found = _grad_statement(src["code"] if src else None)
    if src is None or dst is None or found is None or src["file"] != dst["file"] or \
            dst["line"] <= src["line"]:
        return None
    line, call = found
    value = getattr(line, "value", None)
    if value is None or not _carries(value, (), call):
        return None
    # NB: name -> the names that carried the result into it, itself last
    carried = {n: [n] for t in getattr(line, "targets", []) for n in _stored(t)}
    tree = _parsed_file(src["file"])
    if tree is None or not carried:
        return None
    modules = _torch_names(tree)
    end = frames.statement_at(src["file"], src["line"])[1]
    steps = sorted((n for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AugAssign))
                    and end < n.lineno < dst["line"]), key=lambda n: n.lineno)
    # NB: a statement under an ``if`` that the grad line is not under may not run: it can
    # carry the derivative on, not stop it
    branches = [n for n in ast.walk(tree) if isinstance(n, ast.If)
                and not _holds(n, src["line"])]
    for n in steps:
        maybe = any(_holds(b, n.lineno) for b in branches)
        targets = [m for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                   for m in _stored(t)]
        reads = _carries(n.value, carried, modules=modules) or \
            (isinstance(n, ast.AugAssign) and targets[0] in carried)
        of = next((carried[m] for m in [*map(_dotted, ast.walk(n.value)), *targets]
                   if m in carried), None) if reads else None
        for t in targets:
            if of is not None:
                carried[t] = of if of[-1] == t else [*of, t]
            elif not maybe:
                carried.pop(t, None)
    try:
        body = ast.parse(dst["code"].strip()).body
    except SyntaxError:
        return None
    if len(body) != 1 or not _carries(body[0], carried, modules=modules):
        return None
    read = next((name for n in ast.walk(body[0]) if (name := _dotted(n)) in carried), None)
    return carried[read] if read is not None else None


def _constant_derivatives(recording: Recording) -> list[Diagnosis]:
    """An ``autograd.grad`` result made without ``create_graph`` that a later backward of the
    same step backwards through tensor math (a gradient penalty, a physics-informed residual):
    it has no graph, so that part of the loss trains nothing. One per line that made it; none
    where the later backward failed (its own diagnosis says why)."""
    out = []
    seen: set[tuple[Any, ...]] = set()
    followed: set[tuple[Any, ...]] = set()
    backwards = recording.backwards
    for i, b in enumerate(backwards):
        if b.api != "grad" or b.create_graph or b.via is not None or not b.source or \
                b.error is not None:
            continue
        place = (b.source["file"], b.source["line"])
        if place in seen:
            continue
        for later in backwards[i + 1:]:
            there = (later.source["file"], later.source["line"]) if later.source else None
            if there == place:
                break             # (the same line again: the next step)
            # NB: each pair of lines is followed once (a loop repeats them at every step)
            if later.error is not None or (place, there) in followed:
                continue
            followed.add((place, there))
            into = _derivative_reaches(recording, b, later)
            if into is None:
                continue
            seen.add(place)
            result = into[0]
            rewritten = _with_create_graph(b.source["code"])
            create = (f"`{rewritten}`" if rewritten else "Pass `create_graph=True`")
            if _of_parameters(recording, b):
                # NB: a derivative for the parameters a step updates, used to make a
                # look-ahead copy of them (a meta-learning inner step): first order
                summary = (f"`{result}`, which {_call(b)} made without `create_graph=True`, "
                           f"has no graph; {_call(later)} backwards {_chain(into)}, so it "
                           "trains through the parameters it updates to first order only: "
                           f"no gradient flows through `{result}` (first-order MAML).")
                fixes = [Fix("create_graph", f"`create_graph=True` at {_lines(b.source)} "
                             "for the full meta-gradient",
                             f"{create}: the gradient through `{result}` (second order) "
                             "then reaches the parameters too, at the cost of a graph of "
                             "the derivative, kept until that backward."),
                         Fix("detach", "Or say that first order is meant",
                             f"`{result}.detach()` where it is read: the same values, the "
                             "same gradients, and the choice written down.")]
            else:
                summary = (f"`{result}`, which {_call(b)} made without `create_graph=True`, "
                           f"has no graph; {_call(later)} backwards {_chain(into)}, so no "
                           f"gradient flows through `{result}`: that part of the loss adds "
                           "to its value but trains nothing.")
                fixes = [Fix("create_graph", f"`create_graph=True` at {_lines(b.source)}",
                             f"{create}: `{result}` then has a graph of its own, and the "
                             "backward trains what built it through it (as a gradient "
                             "penalty or a physics-informed loss needs)."),
                         Fix("detach", f"Or say that `{result}` is a constant",
                             f"If no gradient should flow through it, `{result}.detach()` "
                             "where it is read says so (the same values, the same "
                             "gradients).")]
            out.append(Diagnosis(b.number, False, "constant_derivative", "", "", [], [],
                                 {"labels": [result], "source": b.source}, summary, fixes,
                                 later.snapshot_before))
            break
    return out


def _of_parameters(recording: Recording, grad: BackwardRecord) -> bool:
    """Whether an ``autograd.grad`` call differentiates with respect to parameters: its inputs
    say so (``model.parameters()``, ``params``), or name tensors that a step changed in place
    later in the recording (their versions)."""
    inputs = _grad_call_inputs(grad) or []
    if any("param" in x.lower() for x in inputs):
        return True
    before = _snapshot(recording, grad.snapshot_before)
    last = recording.snapshots[-1] if len(recording.snapshots) else None
    if before is None or last is None:
        return False
    names = []
    for x in inputs:
        tree = ast.parse(x, mode="eval").body
        names += [ast.unparse(e) for e in (tree.elts if isinstance(tree, (ast.Tuple, ast.List))
                                           else [tree])]
    now = {t.id: t.version for t in last.tensors}
    return any(t.is_leaf and now.get(t.id, t.version) > t.version
               for _, t in _tensors_named(before, names))


def _chain(names: list[str]) -> str:
    """``d_loss``, computed from ``g`` through ``gp``: how a derivative reaches a loss."""
    if len(names) == 1:
        return f"`{names[0]}`"
    through = " through " + ", ".join(f"`{n}`" for n in names[1:-1]) if len(names) > 2 else ""
    return f"`{names[-1]}`, computed from `{names[0]}`{through}"


def _results(rec: BackwardRecord) -> list[str]:
    """The names an ``autograd.grad`` line assigns its result to (``du``; ``gx``, ``gw``)."""
    found = _grad_statement(rec.source["code"] if rec.source else None)
    if found is None or not isinstance(found[0], ast.Assign):
        return []
    return [n for t in found[0].targets for n in _stored(t)]


def _differentiated(recording: Recording, grad: BackwardRecord) -> BackwardRecord | None:
    """The earlier backward with ``create_graph=True`` whose result the ``autograd.grad`` call
    ``grad``, made without it, differentiates (``d2u = grad(du.sum(), x)`` of ``du = grad(u.sum(),
    x, create_graph=True)``): its graph holds nodes made by that backward's line."""
    if grad.api != "grad" or grad.create_graph or grad.via is not None:
        return None
    before = _snapshot(recording, grad.snapshot_before)
    if before is None:
        return None
    places = {(n.source["file"], n.source["line"]) for r in grad.roots
              for n in (_subgraph(before, r) if any(m.id == r for m in before.nodes) else [])
              if n.source}
    return next((b for b in reversed(recording.backwards[:grad.number - 1])
                 if b.create_graph and b.source and
                 (b.source["file"], b.source["line"]) in places), None)


def _accumulates(code: str) -> bool:
    """``total += loss`` (an augmented assignment)."""
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        return False
    return len(tree.body) == 1 and isinstance(tree.body[0], ast.AugAssign)


def explain(recording: Recording) -> str:
    """The diagnoses as text, for a terminal or a notebook."""
    ds = diagnose(recording)
    if not ds:
        text = "No backward failed, and none is predicted to fail."
        last = recording.snapshots[-1] if len(recording.snapshots) else None
        if last is not None and last.error is not None and last.source is not None:
            # NB: an error of the computation (shapes, dtypes, a typo): said where, and that it
            # is none of the graph's
            error = last.error
            message = (error["message"].splitlines() or [""])[0].rstrip(" .")
            with _home_of(recording):
                at = _line(last.source)
            text += (f" The code stopped at {at} with {error['type']}: "
                     f"{message}. That is an error of the computation itself, not of the "
                     "graph's saved tensors: read it in the traceback.")
        return text
    return "\n\n".join(d.text() for d in ds)


def by_snapshot(recording: Recording) -> dict[int, list[Diagnosis]]:
    """The diagnoses to show beside each snapshot (by ``index``): a failed backward's beside the
    snapshot before it and its failure snapshot; a prediction's beside the snapshot it reads."""
    out: dict[int, list[Diagnosis]] = {}
    after = {b.number: b.snapshot_after for b in recording.backwards}
    for d in diagnose(recording):
        if d.snapshot is not None:
            out.setdefault(d.snapshot, []).append(d)
        failed = after.get(d.backward) if d.backward is not None else None
        if failed is not None and failed != d.snapshot:
            out.setdefault(failed, []).append(d)
    return out
