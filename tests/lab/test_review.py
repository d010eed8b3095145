"""The review lab end to end at a small scale: suites, report, raw data, database, errors."""

import sqlite3
import subprocess
import sys

import pandas as pd
import pytest


def ssdlab(*args):
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def review(tmp_path_factory):
    out = tmp_path_factory.mktemp("review")
    r = ssdlab("review", "force-gs-240", "--scale", "0.02", "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    return out


def test_report_names_every_suite_and_its_images_exist(review):
    page = (review / "index.html").read_text()
    for title in ("Four corners", "AS-SSD", "ATTO", "HD Tach", "Resiliency", "IO consistency", "Power", "Storage Bench"):
        assert title in page
    assert "Not comparable" in page or "not comparable" in page.lower()
    import re

    images = re.findall(r"src='charts/([^']+)'", page)
    assert len(images) >= 12
    for name in images:
        assert (review / "charts" / name).stat().st_size > 5000
    # Bar and line charts also come as SVG, linked under the image.
    svgs = re.findall(r"href='charts/([^']+\.svg)'", page)
    assert len(svgs) >= 8
    for name in svgs:
        assert (review / "charts" / name).read_text().lstrip().startswith("<?xml")


def test_raw_data_and_database_rows(review):
    table = pd.read_csv(review / "data" / "resiliency.csv")
    assert list(table.columns) == ["test", "data", "clean", "after torture", "after TRIM"]
    with sqlite3.connect(review / "results.sqlite") as db:
        runs = db.execute("SELECT drive, scale, seed FROM runs").fetchall()
        assert runs == [("force-gs-240", 0.02, 1)]
        suites = {r[0] for r in db.execute("SELECT DISTINCT suite FROM results")}
    assert {"four-corners", "as-ssd", "atto", "hdtach", "resiliency", "consistency", "power"} <= suites


def test_directions_the_articles_report(review):
    m = pd.concat([pd.read_csv(p) for p in (review / "data").glob("*_metrics.csv")])

    def value(metric, pattern, condition=None):
        rows = m[(m["key"] == metric) & (m["pattern"] == pattern)]
        if condition is not None:
            rows = rows[rows["condition"] == condition]
        return rows["value"].iloc[0]

    # Torture slows incompressible writes; TRIM restores them (at least partly).
    clean = value("as_ssd_seq_write", "incompressible", "clean")
    tortured = value("as_ssd_seq_write", "incompressible", "after torture")
    trimmed = value("as_ssd_seq_write", "incompressible", "after TRIM")
    assert tortured < clean and trimmed > tortured
    # Compressible data is faster to write than incompressible on a SandForce drive.
    assert value("seq_write_128k.aligned_4k", "compressible") > value("seq_write_128k.aligned_4k", "incompressible")
    # A compressible torture slows HD Tach reads but not writes.
    assert value("hdtach_avg_read", "compressible", "after torture") < value("hdtach_avg_read", "compressible", "clean")
    assert value("hdtach_avg_write", "compressible", "after torture") > 0.9 * value("hdtach_avg_write", "compressible", "clean")
    # Early IOPS far above steady state.
    assert value("early_iops_mean", "incompressible", "default OP") > 2 * value("steady_iops_mean", "incompressible", "default OP")


def test_conventional_drive_gains_from_extra_op(tmp_path):
    r = ssdlab("review", "conventional-240", "--scale", "0.02", "--suites", "consistency", "--out", str(tmp_path), "--quiet")
    assert r.returncode == 0, r.stderr
    m = pd.read_csv(tmp_path / "data" / "consistency_metrics.csv")
    steady = m[m["key"] == "steady_iops_mean"].set_index("condition")["value"]
    assert steady["25% extra OP"] > 1.3 * steady["default OP"]


def test_compare_draws_from_the_database(review, tmp_path):
    other = tmp_path / "other"
    r = ssdlab(
        "review",
        "conventional-240",
        "--scale",
        "0.02",
        "--suites",
        "as-ssd,power,storage-bench",
        "--out",
        str(other),
        "--db",
        str(review / "results.sqlite"),
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    out = tmp_path / "cmp"
    r = ssdlab("compare", "--db", str(review / "results.sqlite"), "--out", str(out), "--include-scaled", "--highlight", "force-gs-240")
    assert r.returncode == 0, r.stderr
    table = pd.read_csv(out / "comparison.csv")
    assert {"force-gs-240", "conventional-240"} <= set(table.columns)
    assert len(list((out / "charts").glob("*.png"))) >= 3
    # The Storage Bench charts compare the drives too.
    page = (out / "index.html").read_text()
    assert "average data rate (text, heavy2011)" in page and "disk busy time (text, light2011)" in page


def test_bad_inputs_are_refused_and_leave_results_untouched(review, tmp_path):
    r = ssdlab("review", "force-gs-240", "--suites", "four-corners,bogus", "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and "unknown suite 'bogus'" in r.stderr and "Traceback" not in r.stderr
    r = ssdlab("review", "no-such-drive", "--out", str(tmp_path / "y"))
    assert r.returncode == 2 and "no-such-drive" in r.stderr
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if not (locked / "probe").parent.stat().st_mode & 0o200:
            r = ssdlab("review", "force-gs-240", "--scale", "0.02", "--out", str(locked / "sub"))
            if subprocess.run(["id", "-u"], capture_output=True, text=True).stdout.strip() != "0":
                assert r.returncode == 2 and "not writable" in r.stderr
    finally:
        locked.chmod(0o700)
    r = ssdlab("review", "force-gs-240", "--scale", "0.02", "--out", "/proc/ssdlab-cannot-write")
    assert r.returncode == 2 and "not writable" in r.stderr
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"this is not a database" * 100)
    before = corrupt.read_bytes()
    r = ssdlab("review", "force-gs-240", "--scale", "0.02", "--suites", "power", "--out", str(tmp_path / "z"), "--db", str(corrupt))
    assert r.returncode == 2 and "not an SQLite database" in r.stderr and "Traceback" not in r.stderr
    assert corrupt.read_bytes() == before
    r = ssdlab("compare", "--db", str(corrupt), "--out", str(tmp_path / "c"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert corrupt.read_bytes() == before


def test_review_sharing_a_database_draws_this_drive_among_the_others(tmp_path):
    db = tmp_path / "lab.sqlite"
    for profile in ("conventional-240", "force-gs-240"):
        r = ssdlab("review", profile, "--scale", "0.02", "--suites", "as-ssd,power", "--out", str(tmp_path / profile), "--db", str(db), "--quiet")
        assert r.returncode == 0, r.stderr
    first = (tmp_path / "conventional-240" / "index.html").read_text()
    assert "Against the other drives" not in first  # alone in the database when it ran
    page = (tmp_path / "force-gs-240" / "index.html").read_text()
    assert "Against the other drives" in page
    import re

    against = re.findall(r"src='charts/(against_[^']+)'", page)
    assert len(against) >= 3  # AS-SSD read, write, power
    for name in against:
        assert (tmp_path / "force-gs-240" / "charts" / name).stat().st_size > 5000


def test_a_modified_drive_is_stored_under_its_own_name(tmp_path):
    db = tmp_path / "lab.sqlite"
    runs = [("conventional-240", ()), ("conventional-240", ("--set", "ftl.gc_policy=cost-benefit")), ("conventional-240", ("--label", "my drive"))]
    for i, (profile, extra) in enumerate(runs):
        r = ssdlab("review", profile, *extra, "--scale", "0.02", "--suites", "power", "--out", str(tmp_path / str(i)), "--db", str(db), "--quiet")
        assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as c:
        names = [row[0] for row in c.execute("SELECT drive FROM runs ORDER BY started, rowid")]
    assert names == ["conventional-240", "conventional-240 [ftl.gc_policy=cost-benefit]", "my drive"]
    assert "ftl.gc_policy=cost-benefit" in (tmp_path / "1" / "index.html").read_text()
    r = ssdlab("review", "conventional-240", "--label", " ", "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and "--label" in r.stderr


def test_storage_bench_replays_the_same_requests_when_the_trace_is_cached(tmp_path):
    # Regression: a rerun found the generated trace cached and computed the scaled request limit
    # from a guess, replaying about 5x more requests of Light 2011 than the first run.
    tables = []
    for _ in range(2):
        r = ssdlab("review", "conventional-240", "--scale", "0.002", "--suites", "storage-bench", "--out", str(tmp_path), "--quiet")
        assert r.returncode == 0, r.stderr
        tables.append(pd.read_csv(tmp_path / "data" / "storage_bench.csv"))
    assert tables[0]["requests"].tolist() == tables[1]["requests"].tolist()
    assert tables[0]["average MB/s"].tolist() == tables[1]["average MB/s"].tolist()


def test_ranked_bars_from_a_suites_own_figures_are_those_from_the_database(tmp_path):
    """A review draws each suite's ranked charts as soon as the suite is done, from its figures
    and the other drives' rows read before it ran (lab/ranked.py `with_rows`): the bars must be
    those the database gives once the suite is stored, other drives included."""
    from ssdlab.lab import ranked
    from ssdlab.lab.db import ResultsDatabase
    from ssdlab.lab.results import Ranked, SuiteResult

    db = ResultsDatabase(tmp_path / "r.sqlite")

    def suite(values):
        result = SuiteResult("power", "Power", "", {"idle": "idle", "seq_write": "sequential write"})
        for (key, pattern, condition), value in values.items():
            result.add(key, value, "W", pattern, condition)
        return result

    other = suite({("idle", "", "idle"): 1.25, ("seq_write", "incompressible", "load"): 3.5})
    run = db.start_run("other drive", "Other", "h", "v", 1, 0.5, tmp_path)
    db.add_suite(run, "other drive", other)
    before = db.latest(include_scaled=True)
    before = before[(before["scale"] == 0.5) & (before["drive"] != "this drive")]
    mine = suite({("idle", "", "idle"): 0.75, ("seq_write", "incompressible", "load"): 4.125, ("idle", "", "idle after"): 2.0})
    run = db.start_run("this drive", "This", "h", "v", 1, 0.5, tmp_path)
    db.add_suite(run, "this drive", mine)
    stored = db.latest(include_scaled=True)
    stored = stored[stored["scale"] == 0.5]
    specs = [Ranked("idle", "idle", (("", "idle", ""), ("", "idle after", "after"))), Ranked("seq_write", "seq", (("incompressible", "load", ""),))]
    for spec in specs:
        from_db = ranked.bars(spec, "power", stored, "this drive")
        from_memory = ranked.bars(spec, "power", ranked.with_rows(before, "this drive", mine), "this drive")
        assert repr(from_memory) == repr(from_db)
    assert len(ranked.bars(specs[0], "power", stored, "this drive")[0]) == 3
