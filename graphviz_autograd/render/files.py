"""Writing a recording to a folder: one picture per snapshot and format, with readable names
(``03-before-backward-2.svg``), ``recording.json`` and the ``index.html`` page."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .layout import Layout
from .page import page

if TYPE_CHECKING:
    from ..recording.recorder import Recording
    from ..recording.snapshot import Snapshot

__all__ = ["FILE_FORMATS", "DEFAULT_FORMATS", "file_stem", "write_recording"]

FILE_FORMATS = ("svg", "png", "pdf", "dot", "json", "html")
DEFAULT_FORMATS = ("svg", "json", "html")


def file_stem(snap: Snapshot, width: int = 2) -> str:
    """``03-before-backward-2``, ``04-backward-2-failed``, ``05-manual-after-del-y``."""
    if snap.kind == "backward_failed":
        what = f"backward-{snap.backward}-failed"
    elif snap.kind in ("before_backward", "after_backward"):
        what = f"{snap.kind.replace('_', '-')}-{snap.backward}"
    else:
        slug = re.sub(r"[^a-z0-9]+", "-", snap.label.lower()).strip("-")[:40]
        what = f"manual-{slug}" if slug else "manual"
    return f"{snap.index:0{width}d}-{what}"


def write_recording(recording: Recording, folder: Path, formats: Sequence[str],
                    title: str | None = None,
                    progress: Callable[[str, int, int], None] | None = None) -> list[Path]:
    """Write every snapshot in each of ``formats``; returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if "json" in formats:
        recording.save(folder / "recording.json")
        written.append(folder / "recording.json")
    snaps = list(recording.snapshots)
    pictures = [f for f in formats if f in ("svg", "png", "pdf", "dot")]
    if not snaps or not (pictures or "html" in formats):
        return written
    layout = Layout.of(recording)
    width = max(2, len(str(max(s.index for s in snaps))))
    total = len(snaps) * len(pictures)
    done = 0
    for snap in snaps:
        stem = file_stem(snap, width)
        for fmt in pictures:
            out = layout.render(snap, fmt)
            path = folder / f"{stem}.{fmt}"
            if isinstance(out, bytes):
                path.write_bytes(out)
            else:
                path.write_text(out, encoding="utf-8")
            written.append(path)
            done += 1
            if progress is not None:
                progress("pictures", done, total)
    if "html" in formats:
        html = page(recording, layout, title,
                    None if progress is None else lambda i, n: progress("page", i, n))
        (folder / "index.html").write_text(html, encoding="utf-8")
        written.append(folder / "index.html")
    return written
