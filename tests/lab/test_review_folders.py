"""What a review, PTS run or comparison may write over, and the inputs it refuses before any work
(found by probing the lab's commands as a user would, 2026-11-29): a review replaces only what
ssdlab wrote, a database is never one of the report's files, errors from the worker processes
reach the user as one line, values ssdlab did not store are refused."""

import os
import pickle
import re
import sqlite3

import pytest
from lab_helpers import QUICK, one_error, ssdlab

from ssdlab.errors import ConfigError, SsdlabError
from ssdlab.lab.report import page_kind
from ssdlab.lab.tables import number


def test_a_review_replaces_only_what_ssdlab_wrote(tmp_path):
    # A user's page and data in the folder are kept; a folder of data without a page is refused;
    # a review's own folder is written again; a comparison never replaces a review's page.
    mine = tmp_path / "mine"
    (mine / "data").mkdir(parents=True)
    (mine / "index.html").write_text("<p>mine</p>")
    (mine / "data" / "power_metrics.csv").write_text("mine\n")
    one_error(ssdlab("review", *QUICK, "--out", "mine", cwd=tmp_path), "holds an index.html ssdlab did not write")
    assert (mine / "index.html").read_text() == "<p>mine</p>" and (mine / "data" / "power_metrics.csv").read_text() == "mine\n"
    loose = tmp_path / "loose"
    (loose / "charts").mkdir(parents=True)
    one_error(ssdlab("review", *QUICK, "--out", "loose", cwd=tmp_path), "has charts but no page ssdlab wrote")
    for _ in range(2):
        r = ssdlab("review", *QUICK, "--out", "r", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    assert page_kind(tmp_path / "r" / "index.html") == "review"
    one_error(ssdlab("compare", "--db", "r/results.sqlite", "--include-scaled", "--out", "r", cwd=tmp_path), "holds an ssdlab review page")
    r = ssdlab("compare", "--db", "r/results.sqlite", "--include-scaled", "--out", "c", cwd=tmp_path)
    assert r.returncode == 0 and page_kind(tmp_path / "c" / "index.html") == "comparison", r.stderr
    one_error(ssdlab("review", *QUICK, "--out", "c", cwd=tmp_path), "holds an ssdlab comparison page")
    # A page written before pages carried the mark is still known as ssdlab's by its title.
    old = tmp_path / "old.html"
    old.write_text("<!doctype html>\n<html><head><title>OCZ Vertex 3: ssdlab review</title></head></html>")
    assert page_kind(old) == "" and page_kind(tmp_path / "mine" / "index.html") is None


def test_a_database_is_never_one_of_the_reports_files(tmp_path):
    # `--db out/index.html` made the database there, then the report replaced it (exit 0).
    (tmp_path / "new").mkdir()
    one_error(ssdlab("review", *QUICK, "--out", "new", "--db", "new/index.html", cwd=tmp_path), "is where the review writes")
    (tmp_path / "out" / "data").mkdir(parents=True)
    (tmp_path / "out" / "index.html").write_text("<!doctype html>\n<title>x: ssdlab review</title>")
    one_error(ssdlab("review", *QUICK, "--out", "out", "--db", "out/data/power_metrics.csv", cwd=tmp_path), "is where the review writes")
    one_error(ssdlab("review", *QUICK, "--out", "out", "--db", "-", cwd=tmp_path), "not standard output")
    assert not any((tmp_path / "new").iterdir()) and not (tmp_path / "-").exists()
    assert not (tmp_path / "out" / "data" / "power_metrics.csv").exists()


def test_errors_of_worker_processes_and_suites_that_do_not_apply(tmp_path):
    # A ConfigError raised in a review's worker came back as a PicklingError traceback.
    error = pickle.loads(pickle.dumps(ConfigError("x: bad")))
    assert isinstance(error, ConfigError) and isinstance(error, SsdlabError) and str(error) == "x: bad"
    # The thermal suite on a drive without [thermal] is left out with the reason, or is the
    # user's error when it is the only suite named.
    one_error(ssdlab("review", "vertex3-120", "--scale", "0.02", "--suites", "thermal", "--out", "t1", cwd=tmp_path), "needs the profile's [thermal]")
    r = ssdlab("review", "vertex3-120", "--scale", "0.02", "--suites", "thermal,power", "--out", "t2", "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "needs the profile&#39;s [thermal] model" in (tmp_path / "t2" / "index.html").read_text()


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--seed", str(2**63)], "--seed"),
        (["--ambient-c", "nan"], "--ambient-c"),
        (["--label", "two\nlines"], "control characters"),
        (["--label", "x" * 81], "at most 80 characters"),
    ],
)
def test_review_options_out_of_range_are_one_line(tmp_path, options, says):
    r = ssdlab("review", *QUICK, "--out", "o", *options, cwd=tmp_path)
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()


def test_results_ssdlab_did_not_store_are_refused_before_any_work(tmp_path):
    r = ssdlab("review", *QUICK, "--out", "r", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(tmp_path / "r" / "results.sqlite") as db:
        db.execute("UPDATE results SET value = 'abc' WHERE rowid = (SELECT MAX(rowid) FROM results)")
    one_error(ssdlab("compare", "--db", "r/results.sqlite", "--include-scaled", "--out", "c", cwd=tmp_path), "is 'abc', not a finite number")
    assert not (tmp_path / "c").exists()
    one_error(ssdlab("review", *QUICK, "--out", "r2", "--db", "r/results.sqlite", cwd=tmp_path), "not a finite number")
    # Another application's SQLite file is refused at once (calibrate found it after its runs).
    with sqlite3.connect(tmp_path / "foo.db") as db:
        db.execute("CREATE TABLE foo (x)")
    one_error(ssdlab("calibrate", "--scale", "0.02", "--db", "foo.db", cwd=tmp_path), "not an ssdlab results database")


def test_a_label_taken_by_another_drive_is_said(tmp_path):
    r = ssdlab("review", *QUICK, "--out", "a", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = ssdlab(
        "review",
        "agility3-120",
        "--scale",
        "0.02",
        "--suites",
        "power",
        "--quiet",
        "--label",
        "vertex3-120",
        "--db",
        "a/results.sqlite",
        "--out",
        "b",
        cwd=tmp_path,
    )
    assert r.returncode == 0 and "holds results of another drive named 'vertex3-120'" in r.stderr, r.stderr


def test_tiny_figures_keep_their_digits():
    # PS4's 0.005 W read "0.00 W" among the headline figures.
    assert number(0.005, "W") == "0.005" and number(1.02, "W") == "1.02" and number(0.0, "W") == "0.00"


def test_compare_ranks_todays_drives_on_their_figures(tmp_path):
    # The headline list held the articles' figures only: a comparison of today's drives wrote a
    # table and no chart, and their reviews got no charts against the other drives.
    for profile in ("samsung-980-pro-1tb", "wd-sn580-1tb"):
        r = ssdlab("review", profile, "--scale", "0.02", "--suites", "fill,power-states", "--db", "shared.db", "--out", profile, "--quiet", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    page = (tmp_path / "wd-sn580-1tb" / "index.html").read_text()
    assert "against_" in page, "no chart against the other drive"
    r = ssdlab("compare", "--db", "shared.db", "--include-scaled", "--out", "c", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    charts = sorted(p.name for p in (tmp_path / "c" / "charts").glob("compare_*.png"))
    assert len(charts) >= 4, charts  # the fill's average, cache and post-cache rate, PS0 idle power, active power


def test_a_review_stopped_before_any_suite_leaves_no_empty_run(tmp_path, monkeypatch):
    from ssdlab.lab import review as review_module
    from ssdlab.lab.context import ReviewContext

    def stopped(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(review_module, "run_reviews", stopped)
    db_path = tmp_path / "results.sqlite"
    ctx = ReviewContext("vertex3-120", (), scale=0.02, seed=1, out_dir=tmp_path / "r")
    with pytest.raises(KeyboardInterrupt):
        review_module.review(ctx, ["power"], db_path)
    with sqlite3.connect(db_path) as db:
        assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0


def test_a_review_again_into_its_folder_leaves_only_the_new_pages_files(tmp_path):
    # The first review runs two tests, the second one: the other test's charts and data go
    # (they were the first page's files); a file the user put there, and one of the first
    # page's files changed after it, stay.
    r = ssdlab("review", "vertex3-120", "--scale", "0.02", "--suites", "power,atto", "--quiet", "--out", "r", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "r"
    atto = sorted(p.name for p in (out / "data").iterdir() if p.name.startswith("atto"))
    assert atto, sorted(p.name for p in (out / "data").iterdir())
    (out / "data" / "notes.txt").write_text("mine\n")
    changed = out / "data" / atto[0]
    later = (out / "index.html").stat().st_mtime_ns + 10**9
    os.utime(changed, ns=(later, later))
    r = ssdlab("review", *QUICK, "--out", "r", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    left = sorted(p.name for p in (out / "data").iterdir())
    assert "notes.txt" in left and changed.name in left, left
    assert not [n for n in left if n.startswith("atto") and n != changed.name], left
    assert not [p.name for p in (out / "charts").iterdir() if p.name.startswith("atto")]
    assert "power_metrics.csv" in left
    page = (out / "index.html").read_text()
    for link in re.findall(r'(?:href|src)="((?:charts|data)/[^"]+)"', page):
        assert (out / link).is_file(), link


def test_a_review_does_not_replace_a_page_of_another_subject(tmp_path):
    # A probe (2026-12-07): a review into a PTS report's folder, a review of another drive, and
    # a calibration's review beside a user's review each replaced the page, with its charts and
    # data, without a word. Each page now says what it is of; only a page of the same subject
    # is replaced (a second review of the same drive still replaces the first).
    from ssdlab.lab.context import ReviewContext
    from ssdlab.lab.report import check_report_folder, page_subject

    r = ssdlab("review", *QUICK, "--out", "r", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    page = tmp_path / "r" / "index.html"
    assert page_subject(page) == "review of vertex3-120"
    before = page.read_bytes()
    other = ["force-gs-240", *QUICK[1:]]
    one_error(ssdlab("review", *other, "--out", "r", cwd=tmp_path), "holds the ssdlab review of vertex3-120, which this review of force-gs-240 would replace")
    assert page.read_bytes() == before
    ctx = ReviewContext("vertex3-120", scale=0.02)
    assert ctx.page_subject(["pts-iops", "pts-latency"]) == "PTS report of vertex3-120"
    assert ReviewContext("vertex3-120", page_name="calibration review").page_subject(["power"]) == "calibration review of vertex3-120"
    for subject in ("PTS report of vertex3-120", "calibration review of vertex3-120"):
        with pytest.raises(SsdlabError, match=f"holds the ssdlab review of vertex3-120, which this {subject} would replace"):
            check_report_folder(tmp_path / "r", "review", None, subject)
    check_report_folder(tmp_path / "r", "review", None, ctx.page_subject(["power", "four-corners"]))
    r = ssdlab("review", *QUICK, "--out", "r", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # A drive with overrides is another subject; its name, quotes and all, reads back whole.
    labelled = ReviewContext("vertex3-120", ['controller.firmware="x"'])
    assert labelled.page_subject(["power"]) == 'review of vertex3-120 [controller.firmware="x"]'
    # The drive as built, not its label, and its overrides in any order.
    assert ReviewContext("vertex3-120", label="Mine").page_subject(["power"]) == "review of vertex3-120"
    a, b = "ftl.gc_policy=greedy", "nand.t_prog_ns=900000"
    assert ReviewContext("vertex3-120", [a, b]).page_subject(["power"]) == ReviewContext("vertex3-120", [b, a]).page_subject(["power"])
