"""The lab's tests of today's drives (issue 22) at a small scale: the whole-drive fill's cliff
lies where the profile's SLC cache and the drive's own tier counters put it; the cache comes
back with idle time and no further than the fresh drive's; the presets pick each era's suites;
`ssdlab review samsung-980-pro-1tb --scale 0.05` writes a report with every suite, its charts
and its database rows; every published figure of today's drives names a figure a suite records."""

import html
import re
import sqlite3
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from ssdlab.lab import calibration, published_today
from ssdlab.lab.context import ReviewContext, duration_text
from ssdlab.lab.review import at_a_glance, parse_suites, preset_for
from ssdlab.lab.suites import ARTICLE_SUITES, ERAS, SUITES, TODAY_SUITES, cache_recovery, fill, read_span

SCALE = 0.05
#: A user's model (tests/profiles/user_drives): a SATA drive whose 64 dies write natively as fast
#: as the link carries, so its whole-drive fill has no cliff.
MX500 = Path(__file__).parents[1] / "profiles" / "user_drives" / "crucial-mx500-2tb.toml"


def run_suite(module, profile: str, tmp_path: Path, scale: float = SCALE):
    ctx = ReviewContext(profile, scale=scale, out_dir=tmp_path)
    ctx.suite = module.NAME
    return ctx, module.run(ctx)


def figures(result) -> dict[tuple[str, str], float]:
    return {(m.key, m.condition): m.value for m in result.metrics}


@pytest.mark.parametrize("profile", ["samsung-980-pro-1tb", "samsung-980-1tb"])
def test_the_fill_cliff_is_at_the_cache_the_profile_and_the_drive_counters_give(profile, tmp_path):
    ctx, result = run_suite(fill, profile, tmp_path)
    got = figures(result)
    piece_gb = fill.piece_bytes(ctx.info()) / 1e9
    # The profile's mechanism: static + dynamic SLC (scaled with the drive), room permitting.
    settings = tomllib.loads(ctx.info()["source"])["slc_cache"]
    profile_gb = (settings["static_bytes"] + settings["dynamic_max_bytes"]) / 1e9
    cache_gb = got[("cache_gb", "")]
    assert abs(cache_gb - profile_gb) <= max(piece_gb, 0.05 * profile_gb), (cache_gb, profile_gb)
    # The drive's own counters: host data written into SLC by the end of the cliff's piece.
    series = result.tables["fill"]
    at_cliff = series[series["gb_written"] >= cache_gb].iloc[0]
    assert abs(at_cliff["slc_gb"] - cache_gb) <= piece_gb, (at_cliff["slc_gb"], cache_gb)
    # Past the cliff nothing more went into SLC during the fill (the profile writes native blocks
    # when the cache is full), and the rate fell well below the cache's.
    assert series["slc_gb"].iloc[-1] - at_cliff["slc_gb"] <= piece_gb
    assert got[("post_cache_mbps", "")] < 0.5 * got[("cache_write_mbps", "")]
    assert (tmp_path / "charts" / "fill.png").stat().st_size > 5000


def test_the_free_space_rule_sets_the_cache_of_a_drive_without_a_firmware_limit(tmp_path):
    ctx, result = run_suite(fill, "wd-sn580-1tb", tmp_path)
    got = figures(result)
    series = result.tables["fill"]
    capacity_gb = ctx.info()["usable_bytes"] / 1e9
    # About a third of the free space (a pSLC block holds a third of a TLC one), as the drive's
    # counters say too.
    assert 0.25 * capacity_gb < got[("cache_gb", "")] < 0.4 * capacity_gb
    at_cliff = series[series["gb_written"] >= got[("cache_gb", "")]].iloc[0]
    assert abs(at_cliff["slc_gb"] - got[("cache_gb", "")]) <= fill.piece_bytes(ctx.info()) / 1e9


# The WD SN580 is DRAM-less: its map checkpoints dip the cache's write speed by about a quarter
# for some seconds after an idle period, which the recovery's stop rule once took for the cache's
# end (more idle time then measured less cache).
@pytest.mark.parametrize("profile", ["samsung-980-pro-1tb", "wd-sn580-1tb"])
def test_cache_recovery_grows_with_idle_time_and_saturates_at_the_full_cache(profile, tmp_path):
    ctx, result = run_suite(cache_recovery, profile, tmp_path)
    got = figures(result)
    piece_gb = fill.piece_bytes(ctx.info()) / 1e9
    fresh = got[("cache_speed_gb", "fresh drive")]
    idles = [got[("cache_speed_gb", f"after {label} idle")] for _, label in cache_recovery.idle_periods(ctx)]
    assert idles == sorted(idles), idles  # more idle time, more cache back
    assert idles[0] < 0.6 * fresh, (idles, fresh)  # the shortest idle folds only part of it
    # The longest brings it all back, as far as the free space allows: a drive without a firmware
    # limit (the SN580) has its cache in free blocks, a third of the raw space its first write left.
    pieces = result.tables["cache_recovery_pieces"]
    written_gb = pieces[(pieces["phase"] == "exhaust") & (pieces["idle"] == pieces["idle"].iloc[-1])]["gb_written"].max()
    room_gb = (ctx.info()["raw_bytes"] / 1e9 - written_gb) / 3
    assert idles[-1] >= 0.9 * min(fresh, room_gb) - 2 * piece_gb, (idles, fresh, room_gb)
    assert all(v <= fresh + piece_gb for v in idles)  # and never more than the fresh drive's
    assert (tmp_path / "charts" / "cache_recovery.png").stat().st_size > 5000


def test_presets_pick_each_eras_suites():
    assert ARTICLE_SUITES == ["four-corners", "as-ssd", "atto", "hdtach", "resiliency", "consistency", "power", "storage-bench"]
    assert TODAY_SUITES == [name for name, m in SUITES.items() if getattr(m, "ERA", None) == "2020s"]
    assert {"fill", "cache-recovery", "sustained", "read-span"} <= set(TODAY_SUITES)
    assert parse_suites("2020s") == TODAY_SUITES and parse_suites("2012,fill") == [*ARTICLE_SUITES, "fill"]
    # (NVMe power states apply to NVMe drives only: the SATA 870 EVO gets the rest.)
    for profile, era, without in (
        ("force-gs-240", "2012", ()),
        ("samsung-980-pro-1tb", "2020s", ()),
        ("samsung-980-1tb", "2020s", ()),
        ("samsung-870-evo-4tb", "2020s", ("power-states",)),
    ):
        preset = preset_for(ReviewContext(profile, scale=0.01).info())
        assert preset.era == era and list(preset.suites) == [s for s in ERAS[era] if s not in without], (profile, preset)
        assert era in preset.label and preset.reason


def test_a_suite_for_nvme_only_is_left_out_of_a_sata_drives_preset(monkeypatch):
    monkeypatch.setattr(SUITES["sustained"], "INTERFACES", ("nvme",), raising=False)
    sata = preset_for(ReviewContext("samsung-870-evo-4tb", scale=0.01).info())
    nvme = preset_for(ReviewContext("samsung-980-pro-1tb", scale=0.01).info())
    assert "sustained" not in sata.suites and ("sustained", "applies to nvme drives only") in sata.left_out
    assert "sustained" in nvme.suites and not nvme.left_out


def test_every_published_figure_of_todays_drives_names_a_figure_its_suite_records():
    rows = published_today.published_today()
    assert len(rows) >= 15
    for p in rows:
        assert p.metric in SUITES[p.suite].METRICS, p
        assert getattr(SUITES[p.suite], "ERA", None) == "2020s", p
        assert p.role in (calibration.CHECK, calibration.CALIBRATED, calibration.INFORMED, calibration.SPEC), p
        assert p.source, p
    # The read-span figure's condition is the span label a full-scale review records.
    full = ReviewContext("samsung-980-1tb")
    labels = {fill.size_text(read_span.span_bytes(full, s)) for s in read_span.SPANS}
    assert {p.condition for p in rows if p.suite == "read-span"} <= labels | {"whole drive"}


@pytest.fixture(scope="module")
def review_980_pro(tmp_path_factory):
    out = tmp_path_factory.mktemp("review-980-pro")
    started = time.perf_counter()
    command = [sys.executable, "-m", "ssdlab.cli", "review", "samsung-980-pro-1tb", "--scale", str(SCALE), "--out", str(out), "--quiet"]
    r = subprocess.run(command, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # Wall time is measured, never asserted (a shared machine): BENCHMARKS.md has the figure.
    print(f"ssdlab review samsung-980-pro-1tb --scale {SCALE}: {time.perf_counter() - started:.1f} s wall")
    return out


def test_review_of_an_nvme_drive_runs_todays_preset_with_charts_and_database_rows(review_980_pro):
    out = review_980_pro
    page = html.unescape((out / "index.html").read_text())
    assert "Preset: <strong>2020s (today's tests)</strong>, chosen from the profile: an NVMe drive (pcie4)" in page
    for name in TODAY_SUITES:
        assert f'id="{name}"' in page, name
        assert SUITES[name].TITLE in page
    assert 'id="methodology"' in page and "Secure erase, then 128 KiB sequential writes" in page
    images = re.findall(r"src='charts/([^']+)'", page)
    for wanted in ("fill.png", "cache_recovery.png", "sustained_all_log.png", "sustained_mixed_latency.png", "read_span_iops.png"):
        assert wanted in images, (wanted, images)
    for name in images:
        assert (out / "charts" / name).stat().st_size > 5000
    with sqlite3.connect(out / "results.sqlite") as db:
        suites = {row[0] for row in db.execute("SELECT DISTINCT suite FROM results")}
        runs = db.execute("SELECT drive, scale FROM runs").fetchall()
    assert set(TODAY_SUITES) <= suites
    assert runs == [("samsung-980-pro-1tb", SCALE)]
    for name in TODAY_SUITES:
        assert (out / "data" / f"{name}_metrics.csv").stat().st_size > 100
    # Every link and image of the page is a file the review wrote (the power-states tables
    # linked data/power_states.csv.csv).
    targets = set(re.findall(r"(?:href|src)=['\"]([^'\"#:]+)['\"]", page))
    missing = sorted(t for t in targets if not (out / t).exists())
    assert not missing, missing
    assert '<meta name="generator" content="ssdlab review">' in page


def test_the_review_finds_every_fill_figure_published_for_its_drive(review_980_pro):
    from ssdlab.lab.db import ResultsDatabase

    frame = ResultsDatabase(review_980_pro / "results.sqlite", create=False).latest(include_scaled=True)
    table = published_today.table(frame)
    mine = table[table["drive"] == "samsung-980-pro-1tb"]
    assert len(mine) >= 4 and mine["simulated"].notna().all(), mine.to_string()


def test_a_read_span_of_a_dram_less_drive_reads_map_pages_a_dram_drive_does_not(tmp_path):
    _, dramless = run_suite(read_span, "samsung-980-1tb", tmp_path / "980")
    _, dram = run_suite(read_span, "samsung-980-pro-1tb", tmp_path / "980pro")
    small, whole = dramless.metrics[0].condition, "whole drive"
    got = figures(dramless)
    assert got[("map_reads_per_1000", whole)] > 100 * max(got[("map_reads_per_1000", small)], 1)
    assert got[("iops", whole)] < got[("iops", small)]
    assert all(v == 0 for (k, _), v in figures(dram).items() if k == "map_reads_per_1000")


def test_a_fill_without_a_cliff_gives_no_cache_figure_and_says_what_went_into_slc(tmp_path):
    # The fill rule without a cliff counts the whole fill as "cache" (the MX500's 2,000 GB at full
    # scale) while the drive's counters put only its SLC cache's share into SLC: no cache
    # figures, a note with the counters' figures, "none (no cliff)" among the headline figures.
    ctx, result = run_suite(fill, str(MX500), tmp_path, scale=0.01)
    got = figures(result)
    series = result.tables["fill"]
    capacity_gb = ctx.info()["usable_bytes"] / 1e9
    opening = series["write_mbps"].iloc[:5].median()
    assert (series["write_mbps"] >= calibration.CLIFF_FRACTION * opening).all()  # no cliff at all
    slc_gb = series["slc_gb"].iloc[-1]
    assert 0 < slc_gb < 0.2 * capacity_gb, (slc_gb, capacity_gb)  # SLC took part of the fill only
    assert not {("cache_gb", ""), ("cache_write_mbps", ""), ("post_cache_mbps", "")} & set(got), got
    assert got[("slc_host_gb", "")] == pytest.approx(slc_gb)
    assert got[("average_mbps", "")] == pytest.approx(series["gb_written"].iloc[-1] * 1e3 / series["span_seconds"].sum())
    (note,) = [n for n in result.notes if n.startswith("No cliff")]
    assert f"{fill.size_text(slc_gb * 1e9)} of host data into SLC" in note, note
    glance = {(row[0], row[1]): row[3] for row in at_a_glance([result]).rows}
    assert glance[(fill.TITLE, fill.METRICS["cache_gb"])] == fill.NO_CLIFF, glance
    assert glance[(fill.TITLE, fill.METRICS["post_cache_mbps"])] == fill.NO_CLIFF, glance
    assert (tmp_path / "charts" / "fill.png").stat().st_size > 5000


def test_cache_recovery_idle_periods_stay_distinct_and_true_at_the_smallest_scale(tmp_path):
    # At scale 0.001 the one-second floor of scaled durations made 30 s and 5 min both 1 s: two
    # rows "after 1 s idle" of the same measurement. The periods keep their ratios instead, and
    # each row's label is the idle time it ran.
    ctx, result = run_suite(cache_recovery, "wd-sn580-1tb", tmp_path, scale=0.001)
    table = result.tables["cache_recovery"].iloc[1:]
    assert table["idle_seconds"].tolist() == pytest.approx([s * 0.001 for s in cache_recovery.IDLE_SECONDS])
    assert table["condition"].tolist() == [f"after {duration_text(s)} idle" for s in table["idle_seconds"]]
    assert table["condition"].is_unique, table
    conditions = [(m.key, m.condition) for m in result.metrics]
    assert len(conditions) == len(set(conditions)), conditions


def test_a_review_at_the_smallest_scale_records_each_figure_once(tmp_path):
    command = [sys.executable, "-m", "ssdlab.cli", "review", "wd-sn580-1tb", "--scale", "0.001", "--out", str(tmp_path), "--quiet"]
    r = subprocess.run(command, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(tmp_path / "results.sqlite") as db:
        twice = db.execute(
            "SELECT suite, metric, pattern, condition, COUNT(*) FROM results GROUP BY suite, metric, pattern, condition HAVING COUNT(*) > 1"
        ).fetchall()
    assert not twice, twice


def test_cache_recovery_of_a_drive_without_a_cliff_reports_no_figure_not_zero(tmp_path):
    # A drive whose writes never slow (no SLC cache here; or a cache as fast as its native
    # writes behind a SATA link, as a user's Crucial MX500 2 TB model has) never exhausts its
    # cache: the first write reaches the drive's end and nothing is written after the idle.
    # That is no measurement of recovery: no figure (an empty cell), and a note, instead of "0 GB
    # recovered". The fresh drive's "GB at cache speed" would be the whole write, which the fill
    # suite withholds for the same reason: withheld here too, not "the whole drive, share 1".
    ctx, result = run_suite(cache_recovery, "samsung-830-256", tmp_path, scale=0.02)
    assert figures(result) == {}, figures(result)
    assert result.tables["cache_recovery"]["gb_at_cache_speed"].isna().all()
    assert any("no cliff" in n.lower() for n in result.notes), result.notes
    # The headline figures say why there is none.
    assert [row[3] for row in at_a_glance([result]).rows] == [fill.NO_CLIFF], at_a_glance([result]).rows


def test_a_fill_of_a_drive_without_an_slc_cache_counts_its_writes_as_native(tmp_path):
    # A drive without [slc_cache] reports no tier counters; its host data all goes to native
    # blocks, which the fill's counters and its no-cliff note must say (they said 0 B).
    ctx, result = run_suite(fill, "samsung-830-256", tmp_path, scale=0.02)
    got = figures(result)
    written = ctx.info()["usable_bytes"] / 1e9
    assert got[("native_host_gb", "")] == pytest.approx(written), got
    assert got[("slc_host_gb", "")] == 0
    (note,) = [n for n in result.notes if n.startswith("No cliff")]
    assert f"({fill.size_text(written * 1e9)} directly into native blocks)" in note, note


def test_a_fill_whose_native_writes_outrun_the_link_says_the_cliff_is_not_the_cache(tmp_path):
    # A user's model: the 980 PRO's NAND behind a PCIe 3.0 x2 link (about 1.8 GB/s), writing
    # natively once its cache is full. Native writes keep the link's speed, so the speed shows no
    # end of the cache; it drops later, where the drive starts folding while it writes. The
    # fill rule calls that the cliff (as a reviewer's chart would); the note says the drive's
    # counters put far less into SLC.
    overrides = ["host.interface=pcie3", "host.lanes=2", "slc_cache.when_full=native"]
    ctx = ReviewContext("samsung-980-pro-1tb", overrides, scale=SCALE, out_dir=tmp_path)
    ctx.suite = fill.NAME
    result = fill.run(ctx)
    got = figures(result)
    assert got[("cache_gb", "")] > 3 * got[("slc_host_gb", "")], got
    (note,) = [n for n in result.notes if "counters put only" in n]
    assert "is not the cache's end" in note and "folding" in note, note


def test_a_fill_that_throttles_says_so_and_where_the_cache_really_ended(tmp_path):
    # Throttling steps at 40 and 45 C: the drive throttles within its first second, and the
    # fill's speed falls while the cache still takes the data. The notes say the drive throttled
    # and that SLC kept taking host data after the cliff, which is the throttling.
    ctx = ReviewContext("samsung-980-pro-1tb", ["thermal.throttle_c=[40.0, 45.0]"], scale=SCALE, out_dir=tmp_path)
    ctx.suite = fill.NAME
    result = fill.run(ctx)
    assert (result.tables["fill"]["throttle_step"] > 0).any()
    assert any(n.startswith("The drive throttled during the fill") for n in result.notes), result.notes
    got = figures(result)
    assert got[("slc_host_gb", "")] > 1.5 * got[("cache_gb", "")], got
    (note,) = [n for n in result.notes if "still writing host data into SLC after that" in n]
    assert "is the drive throttling" in note, note
    # A drive without a thermal model: no throttling column, nothing to say.
    plain = fill.frame([fill.Piece(1, 1.0, 1, 1, 0, 0)])
    assert "throttle_step" not in plain and fill.throttling(plain) is None
