"""SNIA PTS (issue 14): the steady-state rule at its boundaries (range and slope separately),
WSAT from fresh to steady and with more over-provisioning, the IOPS test's 4 KiB write against
the IO-consistency suite on the same drive, the quick `ssdlab pts` report in headless Chromium."""

import sqlite3
import subprocess
import sys

import pytest

from ssdlab.lab.context import ReviewContext
from ssdlab.lab.pts import steady_state as ss
from ssdlab.lab.suites import consistency, pts_iops, pts_wsat

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from test_report_browser import CHROMIUM, dumped_body  # noqa: E402

# --- the steady-state rule -------------------------------------------------------------------


def test_range_at_the_limit_is_accepted_and_just_over_it_rejected():
    # Average 100, best-fit excursion 4% (slope -1 per round): only the range decides.
    at_limit = ss.window([100, 100, 110, 90, 100])
    assert at_limit.data_excursion == 20 and at_limit.slope_excursion == pytest.approx(4)
    assert at_limit.range_ok and at_limit.slope_ok and at_limit.steady
    over = ss.window([100, 100, 110.25, 89.75, 100])
    assert over.average == pytest.approx(100) and over.data_excursion == pytest.approx(20.5)
    assert not over.range_ok and over.slope_ok and not over.steady


def test_slope_at_the_limit_is_accepted_and_just_over_it_rejected():
    # A straight line: the data excursion equals the fit's, 10% of the average at the limit.
    at_limit = ss.window([95, 97.5, 100, 102.5, 105])
    assert at_limit.slope == pytest.approx(2.5) and at_limit.slope_excursion == pytest.approx(10)
    assert at_limit.range_ok and at_limit.slope_ok and at_limit.steady
    over = ss.window([94.9, 97.45, 100, 102.55, 105.1])
    assert over.range_ok and not over.slope_ok and not over.steady
    # Zig-zag data can keep a flat fit while its range fails, and a gentle drift can fail the
    # slope while each step is small: the two rules are independent.
    assert ss.window([90, 110, 90, 110, 100]).slope_ok and not ss.window([90, 111, 90, 111, 100]).range_ok
    drift = ss.window([91, 96, 100, 104, 109])
    assert drift.range_ok and not drift.slope_ok


def test_the_window_is_the_last_five_rounds_and_the_first_steady_one_is_found():
    values = [1000, 600, 400, 300, 260, 250, 248, 252, 249, 251]
    w = ss.first_steady_window(values)
    assert w is not None and (w.first_round, w.last_round) == (5, 9)
    assert ss.window(values).first_round == 6
    assert ss.first_steady_window([100, 50, 25, 12, 6, 3]) is None
    assert not ss.window([0, 0, 0, 0, 0]).steady  # a dead drive is not steady
    with pytest.raises(ValueError):
        ss.window([1, 2, 3])


# --- the tests on a drive ---------------------------------------------------------------------

# A one-die conventional drive with many blocks (the GC reserve is a small part of its spare),
# at half scale: 256 blocks per plane, 60 s of the specification's minute is 30 s here, the
# IO-consistency run 1000 s (several drive fills on this small drive).
RAW = 1 * 2 * 512 * 64 * 8192
ONE_DIE = [
    "nand.channels=1",
    "nand.packages_per_channel=1",
    "nand.dies_per_package=1",
    "nand.blocks_per_plane=512",
    "nand.pages_per_block=64",
    f"drive.capacity_bytes_user={int(RAW * 0.88) // 4096 * 4096}",
]
EXTRA_OP = "drive.reserved_user_fraction=0.25"


def _run(module, tmp_path, extra=()):
    ctx = ReviewContext("conventional-240", ONE_DIE + list(extra), scale=0.5, out_dir=tmp_path)
    ctx.suite = module.NAME
    result = module.run(ctx)
    return {(m.key, m.condition): m.value for m in result.metrics}, result


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    out = tmp_path_factory.mktemp("pts")
    return {
        (name, op): _run(module, out, [EXTRA_OP] if op else [])
        for name, module in (("iops", pts_iops), ("wsat", pts_wsat), ("consistency", consistency))
        for op in (False, True)
    }


def test_wsat_drops_from_fresh_to_steady_and_more_spare_raises_the_steady_level(measured):
    default, _ = measured[("wsat", False)]
    extra, result = measured[("wsat", True)]
    assert default[("wsat_steady_iops", "")] < 0.3 * default[("wsat_fresh_iops", "")], default
    assert extra[("wsat_steady_iops", "")] > 1.5 * default[("wsat_steady_iops", "")], (default, extra)
    assert default[("wsat_write_amplification", "")] > extra[("wsat_write_amplification", "")] > 1.0
    frame = result.tables["pts_wsat"]
    assert frame["tgbw_gb"].is_monotonic_increasing and len(frame) >= 20


def test_iops_4k_write_agrees_with_io_consistency_and_extra_op_raises_it(measured):
    for op, condition in ((False, "default OP"), (True, "default OP")):
        pts, result = measured[("iops", op)]
        cons, _ = measured[("consistency", op)]
        assert pts[("steady", "")] == 1.0, result.notes
        sim, reference = pts[("iops_4k_write", "steady state")], cons[("steady_iops_mean", condition)]
        assert abs(sim - reference) / reference < 0.05, (op, sim, reference)
    default, _ = measured[("iops", False)]
    extra, _ = measured[("iops", True)]
    assert extra[("iops_4k_write", "steady state")] > 1.5 * default[("iops_4k_write", "steady state")]
    # Reads are not limited by garbage collection: far faster than steady-state writes.
    assert default[("iops_4k_read", "steady state")] > 3 * default[("iops_4k_write", "steady state")]


def test_a_test_that_never_settles_runs_its_rounds_and_says_so(tmp_path):
    from ssdlab.lab.pts import procedure

    ctx = ReviewContext("conventional-240", ONE_DIE, scale=0.01, out_dir=tmp_path)
    drive = ctx.new_drive()
    step = procedure.random_step(4096, 0, 5, 32, "data_pattern=random")
    rounds_seen = []

    def alternating(_round):  # 100, 200, 100, ...: never within 20% of its average
        rounds_seen.append(1)
        return 100.0 if len(rounds_seen) % 2 else 200.0

    rounds = procedure.run_rounds(ctx, drive, [step], alternating, "alternating", max_rounds=7)
    assert not rounds.steady and len(rounds.tracking) == 7 and (rounds.window.first_round, rounds.window.last_round) == (3, 7)
    assert "NOT in steady state" in procedure.steady_note("test", "the variable", rounds)
    assert sorted(rounds.frame["round"].unique()) == list(range(1, 8))


def test_quick_pts_report_opens_with_every_image_loaded(tmp_path):
    out = tmp_path / "pts"
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab.cli", "pts", "force-gs-240", "--scale", "0.01", "--out", str(out), "--quiet"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    page = (out / "index.html").read_text()
    for title in ("SNIA PTS: IOPS", "SNIA PTS: throughput", "SNIA PTS: latency", "SNIA PTS: write saturation", "SNIA PTS: host idle recovery"):
        assert title in page
    assert "measurement window" in page and "steady state" in page
    with sqlite3.connect(out / "results.sqlite") as db:
        stored = db.execute("select count(*) from results where suite like 'pts-%'").fetchone()[0]
    assert stored >= 30, stored
    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    body, _ = dumped_body("--virtual-time-budget=10000", (out / "index.html").as_uri())
    assert 'data-broken-images="0"' in body, body
    assert int(body.split('data-images="')[1].split('"')[0]) >= 12


def test_pts_refuses_a_test_it_does_not_have():
    r = subprocess.run([sys.executable, "-m", "ssdlab.cli", "pts", "--tests", "pts-iops,consistency"], capture_output=True, text=True)
    assert r.returncode == 2 and "not a PTS test" in r.stderr and "Traceback" not in r.stderr
