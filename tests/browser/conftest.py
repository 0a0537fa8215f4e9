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
