"""Random programs that cross recording boundaries, for recording on both engines
(``test_parity_fuzz``): what a notebook does, one cell after another. A prelude builds graphs,
runs backwards, changes tensors in place, steps an optimizer, registers hooks and deletes
names before any recording; then recordings use that state, one after another with code
between them, nested, entered in the middle of a loop, left by an exception; snapshots are
taken after a recording ended. The blocks of ``_parity_programs`` run inside and between.

``segmented(seed)`` is Python source using ``t``, ``nn``, ``F`` (as ``program``'s) and
``record`` (opens a recording on the engine under test), with ``rec`` the last recording
opened (None before the first).
"""

from __future__ import annotations

import random

from recording._parity_programs import BLOCKS, _u

__all__ = ["segmented", "SHAPES"]

_CAUGHT = "(RuntimeError, ValueError, TypeError, IndexError, NameError, AttributeError)"

_PRELUDE = """\
import contextlib
import gc
t.manual_seed({seed})
errors = []
w = t.randn(2, 3, requires_grad=True)
lin = nn.Linear(3, 2)
mlp = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 4))
emb = nn.Embedding(5, 3)
opt = t.optim.SGD(list(lin.parameters()) + list(mlp.parameters()), lr=0.1)
def snap(label=None):
    return rec.snapshot(label) if rec is not None else None
def bad_hook(g):
    raise ValueError('a hook raised')
"""


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + ln if ln else ln for ln in text.splitlines())


def _caught(body: str, tag: str) -> str:
    """``body`` in a ``try`` whose error is kept in ``errors``, as a notebook cell shows it."""
    return ("try:\n" + _indent(body, 4) + f"\nexcept {_CAUGHT} as e:\n"
            f"    errors.append(({tag!r}, type(e).__name__, str(e).split(chr(10))[0]))")


def _block(r: random.Random) -> str:
    """One of the in-recording fuzz's blocks; its snapshots are taken of the last recording
    opened (after it ended, outside one)."""
    return r.choice(BLOCKS)(r).replace("rec.snapshot(", "snap(")


def _pre_graph(r: random.Random) -> str:
    """Before any recording: a graph built, maybe backwarded, changed, hooked, deleted."""
    lines = [f"pre_h = ({r.choice(['w * 2', 'lin(t.randn(2, 3))', 'w.t()', 'mlp(t.randn(2, 3))'])})"
             f".{_u(r)}",
             f"pre_a = pre_h.{_u(r)}",
             f"pre_loss = (pre_a{r.choice(['', ' * pre_h', ' + pre_h.sum()'])}).sum()"]
    for _ in range(r.choice([1, 2, 3])):
        lines.append(r.choice([
            "pre_loss.backward()",
            "pre_loss.backward(retain_graph=True)",
            "pre_loss.backward(retain_graph=True)",
            "pre_g = t.autograd.grad(pre_loss, w, retain_graph=True, allow_unused=True)",
            "with t.no_grad():\n    w -= 0.1",
            "with t.no_grad():\n    w.mul_(0.9)",
            "pre_h.add_(1)",
            "pre_h.data.mul_(2)",
            "opt.step()",
            "opt.zero_grad()",
            "pre_hd = pre_h.register_hook(lambda g: g * 2)",
            "pre_hw = w.register_hook(lambda g: None)",
            "del pre_a",
            "pre_h = None",
            "pre_a.retain_grad()",
            "pre_hid = mlp(t.randn(1, 3)).tanh()",
            "gc.collect()",
        ]))
    return "\n".join(lines)


def _use_pre(r: random.Random) -> str:
    """Inside a recording: the prelude's tensors used again."""
    return r.choice([
        "pre_loss.backward()",
        "pre_loss.backward(retain_graph=True)",
        "(pre_h * 2).sum().backward()",
        "(pre_a + pre_h.sum()).sum().backward()",
        "t.autograd.grad(pre_loss, w)",
        "snap('the prelude')",
        "pre_h.add_(1)\npre_loss.backward()",
        "with t.no_grad():\n    w -= 0.1\npre_loss.backward()",
        "del pre_h\ngc.collect()\nsnap('deleted')",
        "pre_hd.remove()\npre_loss.backward()",
        "pre_hw.remove()\n(w * 3).sum().backward()",
        "h2 = pre_h.exp()\nh2.sum().backward()\nsnap()",
        "pre_hid = (pre_hid * 0.5 + mlp(t.randn(1, 3))).tanh()\n"
        "pre_hid.sum().backward(retain_graph=True)",
        "pre_loss = pre_loss + (w * w).sum()\npre_loss.backward()",
        "opt.step()\npre_loss.backward()",
        "hd = pre_h.register_hook(bad_hook)\ntry:\n    pre_loss.backward()\nfinally:\n"
        "    hd.remove()",
        "(w * 2).sum().backward()",
    ])


def _inside(r: random.Random, tag: str, pre: bool) -> str:
    """A recording's body: a few blocks, each caught."""
    parts = []
    for i in range(r.choice([1, 2, 2, 3])):
        body = _use_pre(r) if pre and r.random() < 0.6 else _block(r)
        parts.append(_caught(body, f"{tag}.{i}"))
    return "\n".join(parts)


def _between(r: random.Random, tag: str) -> str:
    """Code between recordings: a block, a graph built, a late snapshot."""
    parts = []
    for i in range(r.choice([0, 1, 2])):
        body = r.choice([_block, _pre_graph, _use_pre, lambda r: "snap('late')"])(r)
        parts.append(_caught(body, f"{tag}.{i}"))
    return "\n".join(parts)


def _recorded(body: str, keep_last: int | None = None) -> str:
    args = f"keep_last={keep_last}" if keep_last is not None else ""
    return f"with record({args}) as rec:\n" + _indent(body or "pass", 4)


def _prelude_then_record(r: random.Random) -> str:
    parts = [_caught(_pre_graph(r), "pre")]
    if r.random() < 0.5:
        parts.append(_caught(_block(r), "pre.block"))
    parts.append(_recorded(_inside(r, "rec", True)))
    return "\n".join(parts)


def _successive(r: random.Random) -> str:
    """Recordings one after another (a ``%%autograd`` cell each), some keeping their last
    snapshots only; an earlier one's snapshot taken later, inside a later one or between."""
    parts = [_caught(_pre_graph(r), "pre")] if r.random() < 0.5 else []
    for k in range(r.choice([2, 2, 3])):
        body = _inside(r, f"rec{k}", True)
        if k and r.random() < 0.3:
            body += "\n" + _caught("rec0.snapshot('an earlier recording')", f"old{k}")
        parts.append(_recorded(body, r.choice([None, None, None, 2, 3])))
        if k == 0:
            parts.append("rec0 = rec")
        parts.append(_between(r, f"between{k}"))
    if r.random() < 0.3:
        parts.append(_caught("rec0.snapshot('at the end')", "end"))
    return "\n".join(p for p in parts if p)


_LOOP_BODIES = [
    "opt.zero_grad()\nloss = mlp(t.randn(2, 3)).{u}.mean()\nloss.backward()\nopt.step()",
    "hid = lin(t.randn(1, 3)) if hid is None else (lin(t.randn(1, 3)) + hid).tanh()\n"
    "hid.sum().backward(retain_graph=True)",
    "hid = lin(t.randn(1, 3)) if hid is None else (lin(t.randn(1, 3)) + hid).tanh()\n"
    "hid.sum().backward()\nhid = hid.detach()",
    "hid = lin(t.randn(1, 3)) if hid is None else (lin(t.randn(1, 3)) + hid).tanh()\n"
    "hid.sum().backward()",
    "loss = mlp(t.randn(2, 3)).{u}.mean()\ntotal = total + loss\ntotal.backward()",
    "loss = mlp(t.randn(2, 3)).{u}.mean()\ntotal = total + loss\n"
    "total.backward(retain_graph=True)",
    "loss = mlp(t.randn(2, 3)).{u}.mean()\ntotal += loss.item()\nloss.backward()\nopt.step()",
    "y = (w * (step + 1)).{u}\nw_sum = y.sum()\nw_sum.backward()\n"
    "with t.no_grad():\n    w -= 0.1 * w.grad",
    "losses.append(lin(t.randn(2, 3)).{u}.sum())\nsum(losses).backward()",
]


def _split_loop(r: random.Random) -> str:
    """A loop whose first iterations run before the recording and the rest inside it."""
    body = r.choice(_LOOP_BODIES).format(u=_u(r))
    n = r.choice([3, 4])
    k = r.choice(range(1, n))
    lines = ["hid = None", "total = 0", "losses = []"]
    if r.random() < 0.5:
        # two cells: the loop's first steps, then the rest recorded
        lines += [f"for step in range({k}):", _indent(_caught(body, "loop"), 4),
                  _recorded(f"for step in range({k}, {n}):\n" +
                            _indent(_caught(body, "loop"), 4))]
    else:
        # the recording entered in the middle of the loop
        lines += ["stack = contextlib.ExitStack()",
                  f"for step in range({n}):",
                  f"    if step == {k}:",
                  "        rec = stack.enter_context(record())",
                  _indent(_caught(body, "loop"), 4),
                  "stack.close()"]
    if r.random() < 0.5:
        lines.append(_caught(r.choice(["snap('after the loop')", "hid.sum().backward()",
                                       "total.backward()", "sum(losses).backward()"]),
                             "after"))
    return "\n".join(lines)


def _nested(r: random.Random) -> str:
    """A recording opened inside another."""
    pre = r.random() < 0.5
    parts = [_caught(_pre_graph(r), "pre")] if pre else []
    inner = _recorded(_inside(r, "inner", pre))
    body = "\n".join(p for p in [
        "outer = rec",
        _inside(r, "outer", pre) if r.random() < 0.7 else "",
        inner,
        r.choice(["", "rec = outer", "snap('inner over')"]),
        _inside(r, "outer.after", pre) if r.random() < 0.7 else ""] if p)
    parts.append(_recorded(body))
    return "\n".join(parts)


def _escaping(r: random.Random) -> str:
    """An exception leaves a recording's block: the recording keeps what ran before it."""
    pre = r.random() < 0.5
    parts = [_caught(_pre_graph(r), "pre")] if pre else []
    body = [_inside(r, "rec", pre)]
    body.append(r.choice([
        "raise ValueError('escaped')",
        _use_pre(r) if pre else "(w * 2).sum().backward()\n(w * 2).sum().backward()",
        "y = (w * 2).exp()\ny.sum().backward()\ny.sum().backward()",
        "y = (w * 2).exp()\nhd = y.register_hook(bad_hook)\ny.sum().backward()",
        "y = (w * 2).sigmoid()\ny.add_(1)\ny.sum().backward()",
        _block(r)]))
    parts.append("try:\n" + _indent(_recorded("\n".join(body)), 4) +
                 "\nexcept Exception as e:\n"
                 "    errors.append(('escaped', type(e).__name__, str(e).split(chr(10))[0]))")
    parts.append(_between(r, "after"))
    if r.random() < 0.5:
        parts.append(_recorded(_inside(r, "again", pre)))
    return "\n".join(p for p in parts if p)


SHAPES = {"prelude": _prelude_then_record, "successive": _successive, "split_loop": _split_loop,
          "nested": _nested, "escaping": _escaping}


def segmented(seed: int, shape: str | None = None) -> str:
    r = random.Random(seed)
    name = shape if shape is not None else r.choice(sorted(SHAPES))
    return _PRELUDE.format(seed=seed) + SHAPES[name](r) + "\n"
