"""Drives a user modelled from spec sheets (tests/profiles/user_drives/, uncalibrated, not
shipped): each loads at full size, and a shrunk copy (the review's scaling at 1%) fills from a
secure erase and reads back with figures a drive can have: finite, within the host link, and
never faster after its SLC cache fills than in it."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.lab.context import ReviewContext

PROFILES = sorted((Path(__file__).parent / "user_drives").glob("*.toml"))
SSDLAB = [sys.executable, "-m", "ssdlab.cli"]


def test_there_are_user_drives():
    assert len(PROFILES) >= 5, PROFILES


@pytest.mark.parametrize("path", PROFILES, ids=lambda p: p.stem)
def test_user_drive_loads_at_full_size_and_says_it_is_uncalibrated(path):
    text = path.read_text()
    assert text.startswith("# UNCALIBRATED SPEC-SHEET MODEL") and "Sources:" in text
    r = subprocess.run([*SSDLAB, "profile", "show", str(path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("path", PROFILES, ids=lambda p: p.stem)
def test_user_drive_fills_and_reads_within_its_link(path):
    ctx = ReviewContext(profile=str(path), scale=0.01)
    link_mbps = ctx.info()["link_mbps"]
    with ctx.new_drive() as drive:
        drive.secure_erase()
        fill = drive.run(["rw=write", "bs=128k", "iodepth=32"])
        rates = fill.series["write_mbps"].tolist()
        assert len(rates) >= 3 and all(math.isfinite(r) and 0 <= r <= link_mbps * 1.001 for r in rates), rates
        # Never faster after the cache (or whatever else) first slowed the fill than at its start.
        opening = rates[0]
        assert max(rates[1:-1]) <= opening * 1.001, (opening, rates)
        wa = fill.summary["write_amplification"]
        assert math.isfinite(wa) and wa >= 1.0, wa
        read = drive.run(["rw=randread", "bs=4k", "iodepth=32", "runtime=1", "time_based"])
        s = read.summary
        assert 0 < s["read_mbps"] <= link_mbps * 1.001, s["read_mbps"]
        assert 0 < s["latency_us"]["p99"] < 1e6 and math.isfinite(s["latency_us"]["max"]), s["latency_us"]
