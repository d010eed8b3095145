"""Calibration criteria that hold at a small scale: the SF-1200 compressible/incompressible
ratios (issue 4: within 15% of the published ones) and the TRIM-validation shape on the Force
LS-like drive (a tortured HD Tach write pass climbs as GC catches up; TRIM restores it)."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from ssdlab.lab import calibration
from ssdlab.lab.db import ResultsDatabase


def review(out: Path, profile: str, suites: str, scale: str, overrides: tuple[str, ...] = ()) -> pd.DataFrame:
    sets = [x for o in overrides for x in ("--set", o)]
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab.cli", "review", profile, *sets, "--scale", scale, "--suites", suites, "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return ResultsDatabase(out / "results.sqlite", create=False).latest(include_scaled=True)


#: The ratio the model misses beyond 15% (docs/validation.md, issue 21 round three): the
#: compressible 4 KiB random read comes out about 21% fast (63 vs 52 MB/s at full scale) since
#: map lookups read one codeword of a map page on partial-page controllers (47f0dd6), so the
#: ratio is +22%. Checked apart, as an expected failure, so the miss stays visible.
READ_RATIO = "4K random read (4k-aligned): compressible / incompressible"


def test_sf1200_compressible_incompressible_ratios_within_15_percent(tmp_path):
    ratios = calibration.ratios(review(tmp_path, "force-100-sf1200", "four-corners", "0.05"))
    assert len(ratios) == 4
    for row in ratios.itertuples():
        assert row.simulated > 1.0, row  # compressible data is faster, as published
        if row.figure != READ_RATIO:
            assert abs(row.difference_pct) <= 15.0, row


@pytest.mark.xfail(strict=True, reason="known miss: SF-1200 compressible 4 KiB random read ~21% fast (docs/validation.md)")
def test_sf1200_random_read_ratio_within_15_percent(tmp_path):
    ratios = calibration.ratios(review(tmp_path, "force-100-sf1200", "four-corners", "0.05")).set_index("figure")
    assert abs(ratios.loc[READ_RATIO, "difference_pct"]) <= 15.0


def test_tortured_hdtach_write_pass_climbs_and_trim_restores(tmp_path):
    m = review(tmp_path, "force-ls-240", "resiliency", "0.02")

    def value(metric, condition):
        rows = m[(m["metric"] == metric) & (m["condition"] == condition)]
        return float(rows["value"].iloc[-1])

    start = value("trim_validation_write_start", "after torture")
    peak = value("trim_validation_write_peak", "after torture")
    tortured = value("trim_validation_write_average", "after torture")
    trimmed = value("trim_validation_write_average", "after TRIM")
    assert peak > 2.5 * start, (start, peak)
    assert trimmed > 2 * tortured, (tortured, trimmed)


def test_every_calibration_row_names_a_metric_its_suite_records():
    # A renamed or mistyped key must fail here, not turn a calibration row into a dash.
    from ssdlab.lab.headlines import HEADLINES
    from ssdlab.lab.suites import SUITES

    for p in calibration.PUBLISHED:
        assert p.metric in SUITES[p.suite].METRICS, p
        assert p.role in (calibration.CHECK, calibration.CALIBRATED, calibration.INFORMED, calibration.SPEC), p
    for suite, metric, _, _ in HEADLINES:
        assert metric in SUITES[suite].METRICS, (suite, metric)


def test_every_calibration_row_finds_its_simulated_figure(tmp_path):
    """Run every suite a published figure comes from, at a tiny scale, and find each row's
    simulated counterpart."""
    from ssdlab.lab.compare import calibration_runs

    frames = []
    for i, (profile, overrides, suites) in enumerate(calibration_runs()):
        frames.append(review(tmp_path / f"{i}-{profile}", profile, ",".join(suites), "0.01", overrides))
    results = pd.concat(frames)
    figures = calibration.table(results)
    missing = figures[figures["simulated"].isna()]
    assert missing.empty, missing[["drive", "figure"]].to_string()
    assert calibration.ratios(results)["simulated"].notna().all()


def test_todays_check_figures_are_classed_by_their_fill_and_counted():
    """Today's 'check' figures are classed by their fill's run with the articles' classifier and
    counted in the summary; figures something was set from are not."""
    from ssdlab.lab import bounds

    folding = {"dies": 1.0, "link": 0.3, "gc_program_share": 0.3}  # a fill that folds: GC adds work
    direct = {"dies": 1.0, "link": 0.2, "gc_program_share": 0.0}  # a fill bound by tPROG alone
    off = {"cache_gb": 1.1, "post_cache_mbps": 1.0, "average_mbps": 1.05}  # simulated / published
    fills: dict = {}
    for p in calibration.TODAYS_PUBLISHED:
        fills.setdefault(p.drive, {})[p.figure] = p.value * off[p.figure]
    for drive in fills:
        fills[drive]["utilization"] = direct if drive == "samsung-970-evo-500" else folding
    today = calibration.todays_table(fills).set_index(["drive", "figure"])
    average = calibration.TODAYS_TITLES["average_mbps"]
    assert today.loc[("samsung-970-evo-500", average), "class"] == bounds.BOUND
    assert today.loc[("wd-sn580-1tb", average), "class"] == bounds.MECHANISM
    assert today.loc[("samsung-980-pro-1tb", average), "class"] == calibration.INFORMED  # not a check
    empty = pd.DataFrame(columns=["drive", "figure", "published", "simulated", "difference_pct", "class"])
    s = calibration.summary(empty, today.reset_index())
    checks = [p for p in calibration.TODAYS_PUBLISHED if p.role == calibration.CHECK and p.drive != "samsung-970-evo-500"]
    assert s["checks"] == s["today_checks"] == len(checks)
    # The cache sizes are 10% off, the averages 5%: three averages and one cache size.
    assert [(p.drive, p.figure) for p in checks].count(("wd-sn580-1tb", "cache_gb")) == 1
    assert s["median_pct"] == pytest.approx(5.0)
    assert s["worst_pct"] == pytest.approx(10.0)
    # Without run utilization a check is not classed, so not counted.
    for drive in fills:
        fills[drive]["utilization"] = None
    assert calibration.summary(empty, calibration.todays_table(fills))["checks"] == 0
