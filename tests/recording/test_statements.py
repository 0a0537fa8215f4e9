"""Statements written over several lines (as code formatters write long calls): a node's
source is the statement's first line and its whole code, and the explanations quote, rewrite
and move the whole statement."""

from __future__ import annotations

import contextlib
import linecache
from pathlib import Path

import pytest

from graphviz_autograd import diagnose, explain, record
from graphviz_autograd.recording import frames

from ._support import ON_BOTH_ENGINES, here, torch_of

BACKWARD_TWICE = "Trying to backward through the graph a second time"


def _file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "user.py"
    path.write_text(text)
    linecache.checkcache(str(path))
    return str(path)


def test_a_statement_over_several_lines_is_read_whole(tmp_path: Path) -> None:
    f = _file(tmp_path, "x = 1  # one\n"
                        "y = f(\n"
                        "    x,  # a comment inside\n"
                        "    z,\n"
                        ").tanh()\n"
                        "for a, b in zip(\n"
                        "        p, q):\n"
                        "    loss = g(a,\n"
                        "             b)\n")
    assert frames.statement_at(f, 1) == (1, 1, "x = 1")
    for line in range(2, 6):
        assert frames.statement_at(f, line) == (2, 5, "y = f(x, z).tanh()")
    # a loop's header alone, not its body; the body's statement on its own
    assert frames.statement_at(f, 7) == (6, 7, "for a, b in zip(p, q):")
    assert frames.statement_at(f, 9) == (8, 9, "loss = g(a, b)")


def test_a_file_changed_on_disk_is_read_again(tmp_path: Path) -> None:
    f = _file(tmp_path, "y = f(\n    x)\n")
    assert frames.statement_at(f, 2) == (1, 2, "y = f(x)")
    f = _file(tmp_path, "y = f(x)\nz = g(\n    y)\n")
    assert frames.statement_at(f, 1) == (1, 1, "y = f(x)")
    assert frames.statement_at(f, 3) == (2, 3, "z = g(y)")


def test_a_file_that_cannot_be_read_or_parsed_gives_the_line_alone(tmp_path: Path) -> None:
    assert frames.statement_at(str(tmp_path / "missing.py"), 3) == (3, 3, "")
    f = _file(tmp_path, "y = f(\n    x\nz = (\n")
    assert frames.statement_at(f, 1) == (1, 1, "y = f(")


@ON_BOTH_ENGINES
def test_a_node_built_over_several_lines_is_quoted_and_moved_whole(engine: str) -> None:
    """``features = model(\\n x\\n).tanh()`` built once, before the loop: the node's source is
    the statement (its first line, its code on one line), and the fix moves all its lines."""
    t = torch_of(engine)
    t.manual_seed(0)
    with record(engine=engine) as rec:
        layer = t.nn.Linear(4, 3)
        x = t.randn(5, 4)
        first = here() + 1
        features = layer(
            x
        ).tanh()
        for _ in range(2):
            loss = (
                features * 2
            ).sum()
            with contextlib.suppress(RuntimeError):
                loss.backward()
    tanh = next(n for n in rec.snapshots[0].nodes if n.name == "TanhBackward0")
    assert tanh.source is not None
    assert (tanh.source["line"], tanh.source["code"]) == \
        (first, "features = layer(x).tanh()")
    # the linear's node, run on the statement's first line, has the same source
    (linear,) = [n for n in rec.snapshots[0].nodes if n.name == "AddmmBackward0"]
    assert linear.source == tanh.source
    (d,) = diagnose(rec)
    assert f"(lines {first}-{first + 2}: `features = layer(x).tanh()`)" in d.summary
    assert d.fixes[0].key == "recompute"
    assert f"move lines {first}-{first + 2} into the loop" in d.fixes[0].detail


@ON_BOTH_ENGINES
def test_a_gan_loss_over_several_lines_is_rewritten_whole(engine: str) -> None:
    """The discriminator's loss, written over five lines, reads ``fake``: the fix rewrites the
    whole statement with ``fake.detach()``."""
    t = torch_of(engine)
    F = t.nn.functional
    t.manual_seed(0)
    G = t.nn.Sequential(t.nn.Linear(2, 4), t.nn.ReLU(), t.nn.Linear(4, 3))
    D = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.ReLU(), t.nn.Linear(4, 1))
    opt_g = t.optim.SGD(G.parameters(), lr=0.1)
    ones, zeros = t.ones(4, 1), t.zeros(4, 1)
    with record(engine=engine) as rec:
        real = t.randn(4, 3)
        fake = G(t.randn(4, 2))
        first = here() + 1
        d_loss = F.binary_cross_entropy_with_logits(
            D(real), ones
        ) + F.binary_cross_entropy_with_logits(
            D(fake), zeros
        )
        d_loss.backward()
        opt_g.zero_grad()
        g_loss = F.binary_cross_entropy_with_logits(D(fake), ones)
        with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
            g_loss.backward()
    (d,) = diagnose(rec)
    assert d.fixes[0].key == "detach"
    assert d.fixes[0].detail.startswith(
        f"Lines {first}-{first + 4}: `d_loss = F.binary_cross_entropy_with_logits(D(real), "
        "ones) + F.binary_cross_entropy_with_logits(D(fake.detach()), zeros)`.")


@ON_BOTH_ENGINES
def test_an_integer_tensor_made_over_several_lines_is_rewritten_whole(engine: str) -> None:
    t = torch_of(engine)
    with pytest.raises(RuntimeError), record(engine=engine) as rec:
        first = here() + 1
        labels = t.tensor(
            [1, 2, 3],
            requires_grad=True,
        )
        del labels
    (d,) = diagnose(rec)
    assert d.summary.startswith(f"Lines {first}-{first + 3} (`labels = t.tensor([1, 2, 3], "
                                "requires_grad=True)`) asked an integer")
    assert d.fixes[0].detail.startswith("`labels = t.tensor([1, 2, 3])`")


@ON_BOTH_ENGINES
@pytest.mark.filterwarnings("ignore:Using a target size")
def test_an_error_of_the_computation_is_said_to_be_none_of_the_graphs(engine: str) -> None:
    """A shape mismatch stops the script: no diagnosis, and the explanation says where it
    stopped and that the error is not one of the graph's memory."""
    t = torch_of(engine)
    with pytest.raises(RuntimeError), record(engine=engine) as rec:
        out = t.nn.Linear(4, 2)(t.randn(8, 4))
        first = here() + 1
        loss = t.nn.functional.mse_loss(
            out,
            t.randn(8, 3),
        )
        loss.backward()
    assert diagnose(rec) == []
    text = explain(rec)
    assert text.startswith("No backward failed, and none is predicted to fail. The code "
                           f"stopped at lines {first}-{first + 3} (`loss = "
                           "t.nn.functional.mse_loss(out, t.randn(8, 3))`) with RuntimeError: "
                           "The size of tensor a (2) must match the size of tensor b (3)")
    assert text.endswith("That is an error of the computation itself, not of the graph's "
                         "saved tensors: read it in the traceback.")


@ON_BOTH_ENGINES
def test_a_cut_in_a_module_call_over_several_lines_is_found(engine: str) -> None:
    """The encoder is called in a statement of three lines that ends in ``.detach()``: the
    line that cuts the graph is found, quoted whole and rewritten."""
    t = torch_of(engine)
    t.manual_seed(0)
    encoder, head = t.nn.Linear(4, 8), t.nn.Linear(8, 1)
    with record(engine=engine) as rec:
        for _ in range(3):
            x, y = t.randn(16, 4), t.randn(16, 1)
            first = here() + 1
            h = t.relu(
                encoder(x)
            ).detach()
            t.nn.functional.mse_loss(head(h), y).backward()
    (d,) = diagnose(rec)
    assert d.kind == "unreached"
    assert f"`encoder` is called at lines {first}-{first + 2} " \
        "(`h = t.relu(encoder(x)).detach()`), where `.detach()` cuts the graph" in d.summary
    assert d.fixes[0].title == f"Drop `.detach()` from lines {first}-{first + 2}"
    assert d.fixes[0].detail.startswith("`h = t.relu(encoder(x))`")


def _reused(t: object, where: str) -> None:
    """A tensor built once and reused by two backwards: ``where`` it is built: ``"before"`` the
    loop, ``"function"`` (in a function the loop calls, cached on its first call), ``"flat"``
    (no loop at all)."""
    torch = t
    w = torch.randn(3, requires_grad=True)   # type: ignore[attr-defined]
    cache: list[object] = []

    def features() -> object:
        if not cache:
            cache.append(w.exp())
        return cache[0]

    if where == "flat":
        y = w.exp()
        (y * 2).sum().backward()            # type: ignore[attr-defined]
        with contextlib.suppress(RuntimeError):
            (y * 3).sum().backward()        # type: ignore[attr-defined]
        return
    y = w.exp()
    for _ in range(2):
        z = y if where == "before" else features()
        with contextlib.suppress(RuntimeError):
            (z * 2).sum().backward()        # type: ignore[operator]


@ON_BOTH_ENGINES
@pytest.mark.parametrize("where", ["before", "function", "flat"])
def test_the_recompute_fix_moves_a_line_only_from_before_the_loop(engine: str,
                                                                   where: str) -> None:
    with record(engine=engine) as rec:
        _reused(torch_of(engine), where)
    (d,) = diagnose(rec)
    moved = [f.key for f in d.fixes if "into the loop, before the loss" in f.detail]
    assert moved == (["recompute"] if where == "before" else [])
    if where == "function":
        assert "recompute" in [f.key for f in d.fixes]
