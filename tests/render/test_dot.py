"""``to_dot``: pure, deterministic DOT; golden files for the seed stories; hostile strings."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import replace
from xml.etree import ElementTree

import pytest

from graphviz_autograd.render import to_dot

from ._support import ROOT, SEEDS, dots_in_fresh_process, needs_dot, record_example

GOLDEN = ROOT / "tests" / "render" / "golden"
UPDATE = os.environ.get("GVA_UPDATE_GOLDEN") == "1"
HOSTILE = '<script>alert("x & y")</script> \\N "quoted" \'single\' \\l }{ ;'


@pytest.mark.parametrize("stem", SEEDS)
def test_seed_story_dot_matches_its_golden_file(stem: str) -> None:
    """Regenerate with ``GVA_UPDATE_GOLDEN=1`` after a deliberate change, and look at the diff."""
    folder = GOLDEN / stem
    dots = dots_in_fresh_process(stem)
    assert dots, "the example recorded nothing"
    names = [f"{i:02d}-{kind.replace('_', '-')}.dot" for i, kind, _ in dots]
    if UPDATE:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.dot"):
            old.unlink()
        for name, (_, _, dot) in zip(names, dots):
            (folder / name).write_text(dot, encoding="utf-8")
    assert sorted(p.name for p in folder.glob("*.dot")) == sorted(names)
    for name, (_, _, dot) in zip(names, dots):
        assert dot == (folder / name).read_text(encoding="utf-8"), f"{stem}/{name} changed"


def test_seed000_golden_pictures_tell_the_story() -> None:
    """The golden files are not just stable: they say what the story says."""
    before1, after1, before2, failed = (
        (GOLDEN / "seed000_shared_y" / n).read_text() for n in
        ("00-before-backward.dot", "01-after-backward.dot", "02-before-backward.dot",
         "03-backward-failed.dot"))
    assert "alive" in before1 and "freed by backward #1" not in before1
    assert "freed by backward #1" in after1
    # the second graph reuses y's node, whose buffers backward #1 freed: marked and predicted
    assert "reused: run by backward #1" in before2 and "✗ next backward fails here" in before2
    assert "✗ this backward failed here" in failed and "RuntimeError: Trying to backward" in failed


def test_to_dot_is_pure_and_deterministic() -> None:
    rec = record_example("seed002_two_losses")
    for snap in rec.snapshots:
        first = to_dot(snap)
        assert to_dot(snap) == first
        assert snap.to_dot() == first
        # plain data in, same text out: a snapshot read back from JSON gives the same DOT
        assert type(snap).from_dict(json.loads(json.dumps(snap.to_dict()))).to_dot() == first


def _hostile(stem: str) -> list:
    rec = record_example(stem)
    out = []
    for snap in rec.snapshots:
        nodes = [replace(n, labels=[HOSTILE, *n.labels],
                         source={"file": HOSTILE, "line": 3, "code": HOSTILE})
                 for n in snap.nodes]
        out.append(replace(snap, nodes=nodes, label=HOSTILE,
                           error={"type": "RuntimeError", "message": HOSTILE}))
    return out


@needs_dot
def test_hostile_strings_come_out_as_text_in_dot() -> None:
    for snap in _hostile("seed000_shared_y"):
        done = subprocess.run(["dot", "-Tsvg"], input=to_dot(snap), capture_output=True,
                              text=True, check=True)
        root = ElementTree.fromstring(done.stdout)
        texts = [el.text or "" for el in root.iter() if el.tag.endswith("}text")]
        # Graphviz drew the literal text (no escape sequence was taken, no markup was made)
        assert any(t.startswith(f"#{snap.index} {HOSTILE.strip()}") for t in texts), texts[:3]
        assert not [el for el in root.iter() if el.tag.endswith("script")]
