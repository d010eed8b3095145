"""A review's suites on a process pool with fast-forwarded preconditioning (the default) give the
database, raw data and figures of a serial review with timed preconditioning (issue 23)."""

import sqlite3
import subprocess
import sys

import pandas as pd
import pytest

from ssdlab.lab.context import ReviewContext
from ssdlab.lab.parallel import plan

SUITES = "four-corners,resiliency,consistency,power"


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
    assert "resiliency.csv" in names and "consistency.csv" in names
    for name in names:
        pd.testing.assert_frame_equal(pd.read_csv(parallel / "data" / name), pd.read_csv(serial / "data" / name), check_exact=True, obj=name)


def test_the_report_draws_the_same_charts(reviews):
    serial, parallel = reviews
    assert sorted(p.name for p in (serial / "charts").glob("*.png")) == sorted(p.name for p in (parallel / "charts").glob("*.png"))


def test_jobs_run_longest_first_and_split_suites_into_their_parts():
    jobs = plan([(ReviewContext("force-gs-240"), ["power", "resiliency", "consistency"])])
    assert [(j.suite, j.part) for j in jobs][:3] == [("resiliency", "as-ssd"), ("resiliency", "hdtach-atto"), ("resiliency", "trim-validation")]
    assert ("power", None) in [(j.suite, j.part) for j in jobs]
    assert [j.weight for j in jobs] == sorted((j.weight for j in jobs), reverse=True)


def test_sigterm_stops_a_parallel_review_and_its_workers(tmp_path):
    import os
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
    alive = [w for w in workers if os.path.exists(f"/proc/{w}") and "spawn_main" in open(f"/proc/{w}/cmdline").read()]
    assert not alive, f"workers left running: {alive}"
