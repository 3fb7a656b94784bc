"""A real browser for the HTML reports: Chromium headless, its DOM after the scripts ran."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
needs_browser = pytest.mark.skipif(BROWSER is None, reason="no headless Chromium (apt-get install -y chromium)")


def chromium_dom(page: Path, profile: Path) -> tuple[str, list[str]]:
    """The DOM after the scripts ran, and the console messages."""
    assert BROWSER is not None
    r = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                        "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                       capture_output=True, text=True, timeout=180)
    console = [line for line in r.stderr.splitlines() if ":CONSOLE" in line]
    return r.stdout, console
