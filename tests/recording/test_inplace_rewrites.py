"""An in-place change of a saved tensor, rewritten by the fix: each rewrite is run in place of
the user's line, and the backward then runs (a rewrite that drops the result of an
out-of-place call, or writes into the saved tensor again, fails here)."""

from __future__ import annotations

import re
import textwrap
from typing import Any

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, torch_of

INPLACE = "modified by an inplace operation"

# NB: each program's third line changes a tensor the backward needs; the rewrite the fix gives
PROGRAMS = {
    "mask": ("""\
        attn = torch.softmax(q @ k.t(), dim=-1)
        mask = attn < 0.2
        attn[mask] = 0
        (attn @ v).sum().backward()
        """, "attn = attn.masked_fill(mask, 0)"),
    "method": ("""\
        p = torch.sigmoid(q @ k.t())
        n = p.shape[0]
        p.clamp_(1e-6, 1 - 1e-6)
        p.log().sum().backward()
        """, "p = p.clamp(1e-6, 1 - 1e-6)"),
    "flag": ("""\
        p = torch.sigmoid(q @ k.t())
        F = torch.nn.functional
        F.hardtanh(p, 0.1, 0.9, inplace=True)
        p.sum().backward()
        """, "p = F.hardtanh(p, 0.1, 0.9)"),
}


def _run(torch: Any, code: Any) -> None:
    torch.manual_seed(0)
    exec(code, {"torch": torch, "q": torch.randn(3, 4, requires_grad=True),
                "k": torch.randn(3, 4, requires_grad=True), "v": torch.randn(3, 2)})


@ON_BOTH_ENGINES
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_rewritten_line_runs(engine: str, name: str, tmp_path: Any) -> None:
    torch = torch_of(engine)
    body, rewrite = PROGRAMS[name]
    # NB: from a file, as a user's script: the diagnosis reads its lines
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    code = compile(path.read_text(), str(path), "exec")
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=INPLACE):
        _run(torch, code)
    (d,) = diagnose(rec)
    fix = next(f for f in d.fixes if f.key == "out_of_place")
    found = re.match(r"Write `([^`]+)` \(a new tensor\) instead of `([^`]+)`", fix.detail)
    assert found is not None, fix.detail
    assert found.group(1) == rewrite
    lines = textwrap.dedent(body).splitlines()
    assert found.group(2) == lines[2].strip()
    lines[2] = found.group(1)
    _run(torch, compile("\n".join(lines), "<rewritten>", "exec"))


@ON_BOTH_ENGINES
def test_an_augmented_write_into_a_slice_is_made_into_a_copy(engine: str, tmp_path: Any
                                                             ) -> None:
    """``h[:, 0] += b`` after a ReLU that saved ``h``: written ``h[:, 0] = h[:, 0] + b`` it
    would still write into ``h`` (that rewrite fails here too); the fix clones ``h`` first,
    and then the backward runs."""
    torch = torch_of(engine)
    body = """\
        h = torch.relu(q @ k.t())
        b = k.sum()
        h[:, 0] += b
        h.sum().backward()
        """
    path = tmp_path / "slice.py"
    path.write_text(textwrap.dedent(body))
    with record(engine=engine) as rec, pytest.raises(RuntimeError, match=INPLACE):
        _run(torch, compile(path.read_text(), str(path), "exec"))
    (d,) = diagnose(rec)
    fix = next(f for f in d.fixes if f.key == "out_of_place")
    assert fix.detail.startswith("Write into a copy: `h = h.clone()` right before "
                                 "`h[:, 0] += b`")
    lines = textwrap.dedent(body).splitlines()
    with pytest.raises(RuntimeError, match=INPLACE):
        _run(torch, "\n".join([*lines[:2], "h[:, 0] = h[:, 0] + b", *lines[3:]]))
    _run(torch, "\n".join([*lines[:2], "h = h.clone()", *lines[2:]]))
