"""A recording saves to JSON that validates against the package's schema, and loads back."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import graphviz_autograd
import graphviz_autograd.torch as torch
from graphviz_autograd.recording import schema


def _seed000() -> graphviz_autograd.Recording:
    with graphviz_autograd.record() as rec:
        measure = torch.nn.MSELoss()
        x = torch.tensor([1, 0], dtype=torch.float64)
        t = torch.eye(2, dtype=torch.float64, requires_grad=True)
        a = torch.ones(2, dtype=torch.float64, requires_grad=True)
        y = t @ a
        for _ in range(2):
            loss = measure(t @ (x + y), x)
            with pytest.raises(RuntimeError) if _ else _nothing():
                loss.backward()
        rec.snapshot("after the loop")
    return rec


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_saved_recording_validates_against_the_schema(tmp_path: Path) -> None:
    rec = _seed000()
    path = tmp_path / "recording.json"
    rec.save(path)
    data = json.loads(path.read_text())
    jsonschema.validate(data, schema())
    assert [s["kind"] for s in data["snapshots"]] == [
        "before_backward", "after_backward", "before_backward", "backward_failed", "manual"]


def test_schema_rejects_a_bad_state(tmp_path: Path) -> None:
    data = _seed000().to_dict()
    node = next(n for n in data["snapshots"][1]["nodes"] if n["saved"])
    node["saved"][0]["state"] = "gone"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema())


def test_round_trip_keeps_everything(tmp_path: Path) -> None:
    rec = _seed000()
    path = tmp_path / "r.json"
    rec.save(path)
    back = graphviz_autograd.load(path)
    assert back.to_dict() == rec.to_dict()
    assert back.snapshots[3].error is not None
    assert back.snapshots[3].error["type"] == "RuntimeError"
    assert back.backwards[1].failed_at == rec.backwards[1].failed_at


def test_load_refuses_other_json(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(ValueError, match="not a graphviz-autograd recording"):
        graphviz_autograd.load(path)
