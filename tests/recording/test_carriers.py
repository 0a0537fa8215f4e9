"""A step's value carried into the next step by a line other than the one that built it: a
memory bank or a queue of keys fed back into itself (``memory = torch.cat([feat, memory])``),
a recurrent cell of the user's own whose ``forward`` made the node (``h = cell(x, h)``). The
explanation names that line, and its fixes rewrite it."""

from __future__ import annotations

from typing import Any

import pytest

from graphviz_autograd import diagnose, record

from ._support import ON_BOTH_ENGINES, fix_keys, torch_of

BACKWARD_TWICE = "Trying to backward through the graph a second time"


def _bank(torch: Any, keys_trained: bool) -> str | None:
    """Contrastive steps against a bank of earlier features; the bank's keys come from the
    trained encoder (a memory bank) or from a second one no step changes (a queue of keys)."""
    torch.manual_seed(0)
    F = torch.nn.functional
    encoder = torch.nn.Linear(8, 4)
    keys = encoder if keys_trained else torch.nn.Linear(8, 4)
    opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
    memory = torch.randn(16, 4)
    try:
        for _ in range(3):
            x = torch.randn(5, 8)
            feat = F.normalize(encoder(x), dim=1)
            key = F.normalize(keys(x + 0.1), dim=1)
            logits = torch.cat([(feat * key).sum(1, keepdim=True), feat @ memory.t()], dim=1)
            loss = F.cross_entropy(logits / 0.07, torch.zeros(5, dtype=torch.long))
            opt.zero_grad()
            loss.backward()
            opt.step()
            memory = torch.cat([key, memory])[:16]
    except RuntimeError as e:
        return str(e)
    return None


@ON_BOTH_ENGINES
@pytest.mark.parametrize("keys_trained", [True, False])
def test_a_bank_fed_back_into_itself_is_told_to_keep_detached_values(engine: str,
                                                                     keys_trained: bool
                                                                     ) -> None:
    torch = torch_of(engine)
    with record(engine=engine) as rec:
        error = _bank(torch, keys_trained)
    assert error is not None and error.startswith(BACKWARD_TWICE)
    (d,) = diagnose(rec)
    assert d.backward == 2 and d.built_by["labels"] == ["key"]
    assert "`memory` (line " in d.summary
    assert ": `memory = torch.cat([key, memory])[:16]`) keeps `key` from one step to the " \
        "next and is fed back into itself" in d.summary
    keep = next(f for f in d.fixes if f.title == "Keep `key.detach()` in `memory`")
    assert keep.detail.startswith("`memory = torch.cat([key.detach(), memory])[:16]` at line ")
    assert "Recompute it inside the loop" not in d.text()
    if keys_trained:
        assert fix_keys(d) == ["detach", "retain_graph"]
    else:
        # NB: the keys' encoder is not trained: its graph is of no use at all
        assert "no step used them" in d.summary
        assert [f.title for f in d.fixes[:2]] == ["Build `key` without a graph",
                                                  "Keep `key.detach()` in `memory`"]
    assert "`memory` carries each step's graph into the next" in d.fixes[-1].detail


class _Cell:
    """A recurrent cell written as the user's own module (its ``forward`` in this file)."""

    @staticmethod
    def make(torch: Any) -> Any:
        class Cell(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.inp = torch.nn.Linear(3, 4)
                self.rec = torch.nn.Linear(4, 4)

            def forward(self, x: Any, h: Any) -> Any:
                return torch.tanh(self.inp(x) + self.rec(h))
        return Cell()


@ON_BOTH_ENGINES
def test_a_state_fed_back_through_the_users_own_cell_is_told_to_detach(engine: str) -> None:
    torch = torch_of(engine)
    torch.manual_seed(0)
    with record(engine=engine) as rec:
        cell = _Cell.make(torch)
        opt = torch.optim.SGD(cell.parameters(), lr=0.1)
        h = torch.zeros(1, 4)
        with pytest.raises(RuntimeError, match=BACKWARD_TWICE):
            for _ in range(3):
                x = torch.randn(1, 3)
                h = cell(x, h)
                loss = h.pow(2).sum()
                opt.zero_grad()
                loss.backward()
                opt.step()
    (d,) = diagnose(rec)
    assert d.built_by["source"]["code"] == "return torch.tanh(self.inp(x) + self.rec(h))"
    assert "`h` is fed back at line " in d.summary and "(`h = cell(x, h)`)" in d.summary
    assert fix_keys(d) == ["detach", "recompute", "retain_graph"]
    assert d.fixes[0].detail.startswith("`h = h.detach()` at the start of each step")
    assert d.fixes[1].detail.startswith("`h = torch.zeros(1, 4)` at the start of each step")
    assert "Build `return" not in d.text()
