"""Run oracle-format scenarios through real torch and through graphviz_autograd.torch.

Usage: python _scenario_runner.py HARNESS_DIR OUT_JSON SCENARIO.py [SCENARIO.py ...]

Writes ``{name: {"torch": record, "ours": record} | {"error": text}}`` to OUT_JSON.

torch is imported once; each scenario then runs in a forked child, so it starts with torch's
once-per-process warnings (TORCH_WARN_ONCE) not yet given, exactly as a fresh process would.
Our engine's once-only warnings are reset before each of our runs. Without ``os.fork`` each
scenario gets its own interpreter instead.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TIMEOUT_S = 60.0


def _load_harness(harness_dir: str):
    location = Path(harness_dir) / "harness.py"
    spec = importlib.util.spec_from_file_location("oracle_harness", location)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_both(harness, path: str) -> dict:
    import torch

    import graphviz_autograd.torch as ours
    from graphviz_autograd.engine.messages import reset_warn_once

    torch.manual_seed(0)
    theirs = harness.run_scenario(path, torch)
    reset_warn_once()
    ours.manual_seed(0)
    mine = harness.run_scenario(path, ours)
    return {"torch": theirs, "ours": mine}


def _warm_up() -> None:
    """Import both engines once, before forking, and pay torch's lazy start-up costs (the first
    optimizer step imports torch._dynamo: seconds) here instead of in every child. Nothing run here
    gives a once-per-process warning. One intra-op thread keeps forking safe."""
    import torch

    import graphviz_autograd.torch  # noqa: F401

    torch.set_num_threads(1)
    p = torch.nn.Parameter(torch.ones(2))
    for opt in (torch.optim.SGD([p], lr=0.1), torch.optim.Adam([p], lr=0.1)):
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step()


def _forked(harness, path: str) -> dict:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_fd)
        try:
            payload = json.dumps(_run_both(harness, path))
        except BaseException as e:
            payload = json.dumps({"error": f"{type(e).__name__}: {e}"})
        with os.fdopen(write_fd, "w", encoding="utf-8") as f:
            f.write(payload)
        os._exit(0)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + TIMEOUT_S
    os.set_blocking(read_fd, False)
    while True:
        try:
            chunk = os.read(read_fd, 1 << 16)
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                os.close(read_fd)
                return {"error": f"timed out after {TIMEOUT_S:.0f}s"}
            time.sleep(0.005)
            continue
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_fd)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode("utf-8")
    return json.loads(text) if text else {"error": "child died without a result"}


def _spawned(harness_dir: str, path: str) -> dict:
    fd, name = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    out = Path(name)
    try:
        subprocess.run([sys.executable, __file__, harness_dir, str(out), path],
                       timeout=TIMEOUT_S + 30, check=True)
        return json.loads(out.read_text(encoding="utf-8"))[Path(path).stem]
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}
    finally:
        out.unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    harness_dir, out_json, *paths = argv
    root = Path(__file__).resolve().parents[1]
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    harness = _load_harness(harness_dir)
    results = {}
    if hasattr(os, "fork") and len(paths) > 1:
        _warm_up()
        for p in paths:
            results[Path(p).stem] = _forked(harness, p)
    elif len(paths) == 1:
        results[Path(paths[0]).stem] = _run_both(harness, paths[0])
    else:
        for p in paths:
            results[Path(p).stem] = _spawned(harness_dir, p)
    Path(out_json).write_text(json.dumps(results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
