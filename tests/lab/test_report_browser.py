"""Open a review's report in headless Chromium: every image loads, the console shows no errors.
The screenshot is kept in test-artifacts/ (needs Debian's `chromium`; required when CI is set)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium(*args):
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"), reason="chromium is not installed")
def test_report_loads_every_image_without_console_errors(tmp_path):
    assert CHROMIUM is not None, "CI must install chromium (see .ci/run)"
    out = tmp_path / "review"
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab.cli", "review", "force-gs-240", "--scale", "0.02", "--out", str(out), "--quiet"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    url = (out / "index.html").as_uri()
    dom = chromium("--virtual-time-budget=10000", "--enable-logging=stderr", "--v=0", "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = next(line for line in dom.stdout.splitlines() if "<body" in line)
    assert 'data-broken-images="0"' in body, body
    images = int(body.split('data-images="')[1].split('"')[0])
    assert images >= 12
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line or "Failed to load resource" in line]
    assert not console, console
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "review-report.png"
    s = chromium("--window-size=1100,4000", f"--screenshot={shot}", url)
    assert s.returncode == 0 and shot.stat().st_size > 50_000
