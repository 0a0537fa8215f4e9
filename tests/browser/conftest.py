"""Headless Debian Chromium through Playwright, for the page and widget tests.

Skips when Chromium or playwright is missing, unless ``REQUIRE_BROWSER=1`` (set by the test
command where it could install them): then a missing browser is a failure."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def _chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    exe = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        exe = None
    if exe is None:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail("REQUIRE_BROWSER=1 but Chromium or playwright is missing "
                        "(apt-get install chromium; pip install playwright)")
        pytest.skip("Chromium or playwright is missing")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """Where screenshots go: ``$BROWSER_ARTIFACTS``, else a folder in the temp dir."""
    d = Path(os.environ.get("BROWSER_ARTIFACTS")
             or Path(tempfile.gettempdir()) / "graphviz-autograd-artifacts")
    d.mkdir(parents=True, exist_ok=True)
    return d


# -- JupyterLab, headless on 127.0.0.1 (see shared/recipes/jupyter-browser-test) ---------------
# private settings: no news toast, no update check, no windowing (off-screen cells still render)
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


class Lab:
    def __init__(self, base_url: str, token: str, root: Path) -> None:
        self.base_url, self.token, self.root = base_url, token, root

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base_url}/{path.lstrip('/')}{sep}token={self.token}"

    def api(self, path: str, method: str = "GET", timeout: float = 5) -> Any:
        import json
        import urllib.request
        req = urllib.request.Request(f"{self.base_url}/api/{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"},
                                     data=b"" if method == "POST" else None)
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = r.read()
            return json.loads(body) if body else None


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def jupyter_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """JupyterLab serving a copy of ``notebooks/`` (never the repository: it autosaves)."""
    import json
    import secrets
    import signal
    import subprocess
    import sys
    import time
    pytest.importorskip("jupyterlab")
    root = tmp_path_factory.mktemp("lab-root")
    for nb in (Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"):
        shutil.copy(nb, root / nb.name)
    settings = tmp_path_factory.mktemp("lab-settings")
    for rel, value in LAB_SETTINGS.items():
        f = settings / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(value))
    token, port = secrets.token_hex(24), _free_port()
    env = dict(os.environ,
               JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path_factory.mktemp("lab-workspaces")),
               JUPYTER_RUNTIME_DIR=str(tmp_path_factory.mktemp("jupyter-runtime")),
               JUPYTER_CONFIG_DIR=str(tmp_path_factory.mktemp("jupyter-config")),
               IPYTHONDIR=str(tmp_path_factory.mktemp("ipython")),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           "--ServerApp.open_browser=False", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
           "--LabApp.expose_app_in_browser=True"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = root.parent / f"jupyter-lab-{port}.log"
    with open(log, "w") as logf:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=logf,
                                stderr=subprocess.STDOUT, start_new_session=True)
        lab = Lab(f"http://127.0.0.1:{port}", token, root)
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited ({proc.returncode}):\n{log.read_text()}")
            try:
                lab.api("status", timeout=1)
                break
            except Exception:
                if time.monotonic() > deadline:
                    proc.kill()
                    raise RuntimeError(f"jupyter lab did not start:\n{log.read_text()}") from None
                time.sleep(0.2)
        try:
            yield lab
        finally:
            try:
                lab.api("shutdown", method="POST")
                proc.wait(timeout=15)
            except Exception:
                pass
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
