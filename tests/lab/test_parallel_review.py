"""A review's suites on a process pool with fast-forwarded preconditioning (the default) give the
database, raw data and figures of a serial review with timed preconditioning (issue 23)."""

import sqlite3
import subprocess
import sys

import pandas as pd
import pytest

from ssdlab.lab.context import ReviewContext
from ssdlab.lab.parallel import plan

SUITES = "four-corners,resiliency,consistency,power,storage-bench"


def _review(out, *extra):
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab.cli", "review", "force-gs-240", "--scale", "0.01", "--suites", SUITES, "--out", str(out), "--quiet", *extra],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return out


def _rows(out):
    with sqlite3.connect(out / "results.sqlite") as db:
        return db.execute("SELECT drive, suite, metric, pattern, condition, value, unit, title FROM results ORDER BY rowid").fetchall()


@pytest.fixture(scope="module")
def reviews(tmp_path_factory):
    base = tmp_path_factory.mktemp("parallel")
    serial = _review(base / "serial", "--jobs", "1", "--precondition-timing", "full")
    parallel = _review(base / "parallel", "--jobs", "2")
    return serial, parallel


def test_the_database_is_the_serial_runs_row_for_row(reviews):
    serial, parallel = reviews
    rows = _rows(serial)
    assert len(rows) > 50
    assert _rows(parallel) == rows


def test_every_raw_data_file_is_the_same(reviews):
    serial, parallel = reviews
    names = sorted(p.name for p in (serial / "data").glob("*.csv"))
    assert names == sorted(p.name for p in (parallel / "data").glob("*.csv"))
    assert "resiliency.csv" in names and "consistency.csv" in names and "storage_bench.csv" in names
    for name in names:
        pd.testing.assert_frame_equal(pd.read_csv(parallel / "data" / name), pd.read_csv(serial / "data" / name), check_exact=True, obj=name)


def test_the_report_draws_the_same_charts(reviews):
    serial, parallel = reviews
    assert sorted(p.name for p in (serial / "charts").glob("*.png")) == sorted(p.name for p in (parallel / "charts").glob("*.png"))


def test_jobs_run_longest_first_and_split_suites_into_their_parts():
    jobs = plan([(ReviewContext("force-gs-240"), ["power", "resiliency", "consistency"])])
    assert [(j.suite, j.part) for j in jobs][:3] == [("resiliency", "hdtach-atto"), ("resiliency", "trim-validation"), ("resiliency", "as-ssd")]
    assert ("power", None) in [(j.suite, j.part) for j in jobs]
    assert [j.weight for j in jobs] == sorted((j.weight for j in jobs), reverse=True)


def _cmdline(pid: int) -> str:
    """The command line of a live process, or "" once it has gone."""
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read()
    except (FileNotFoundError, ProcessLookupError):
        return ""


def test_sigterm_stops_a_parallel_review_and_its_workers(tmp_path):
    import signal
    import time

    p = subprocess.Popen(
        [sys.executable, "-m", "ssdlab.cli", "review", "force-gs-240", "--scale", "0.05", "--jobs", "2", "--out", str(tmp_path), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    workers: set[int] = set()
    deadline = time.monotonic() + 60
    while len(workers) < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
        children = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
        workers = {int(c) for c in children}
    assert len(workers) >= 2, "the review started no worker processes"
    time.sleep(2)
    started = time.monotonic()
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert "interrupted" in err
    assert time.monotonic() - started < 20
    time.sleep(1)
    alive = [w for w in workers if "spawn_main" in _cmdline(w)]
    assert not alive, f"workers left running: {alive}"
