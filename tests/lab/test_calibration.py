"""Calibration criteria that hold at a small scale: the SF-1200 compressible/incompressible
ratios (issue 4: within 15% of the published ones) and the TRIM-validation shape on the Force
LS-like drive (a tortured HD Tach write pass climbs as GC catches up; TRIM restores it)."""

import subprocess
import sys
from pathlib import Path

import pandas as pd

from ssdlab.lab import calibration
from ssdlab.lab.db import ResultsDatabase


def review(out: Path, profile: str, suites: str, scale: str) -> pd.DataFrame:
    r = subprocess.run([sys.executable, "-m", "ssdlab.cli", "review", profile, "--scale", scale, "--suites", suites,
                        "--out", str(out), "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return ResultsDatabase(out / "results.sqlite", create=False).latest(include_scaled=True)


def test_sf1200_compressible_incompressible_ratios_within_15_percent(tmp_path):
    ratios = calibration.ratios(review(tmp_path, "force-100-sf1200", "four-corners", "0.05"))
    assert len(ratios) == 4
    for row in ratios.itertuples():
        assert row.simulated > 1.0, row  # compressible data is faster, as published
        assert abs(row.difference_pct) <= 15.0, row


def test_tortured_hdtach_write_pass_climbs_and_trim_restores(tmp_path):
    m = review(tmp_path, "force-ls-240", "resiliency", "0.02")

    def value(metric, condition):
        rows = m[(m["metric"] == metric) & (m["condition"] == condition)]
        return float(rows["value"].iloc[-1])

    start = value("HD Tach write start (30 min torture)", "after torture")
    peak = value("HD Tach write peak (30 min torture)", "after torture")
    tortured = value("HD Tach write average (30 min torture)", "after torture")
    trimmed = value("HD Tach write average (30 min torture)", "after TRIM")
    assert peak > 2.5 * start, (start, peak)
    assert trimmed > 2 * tortured, (tortured, trimmed)
