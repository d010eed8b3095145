"""What a new user's probe of the review lab found (2026-12): a folder a stopped review left is
refused by the next review, two reviews into one folder mix their pages, per-suite times exceed
the whole review's, a PTS page says things that are not so of the run, `pts --tests` lists the
review suites, a comparison across scales does not say which bar is which scale."""

import os

import pytest
from lab_helpers import QUICK, one_error, ssdlab

from ssdlab.errors import SsdlabError
from ssdlab.lab.context import ReviewContext
from ssdlab.lab.report import MARKER, check_report_folder, claim_report_folder, page_kind


def test_a_folder_a_stopped_review_left_is_reused_by_the_next_review(tmp_path, monkeypatch):
    # `timeout -s INT 12 ssdlab review ... --out rint2` left charts/, an empty data/ and the
    # database; the same review again refused the folder: "has data but no page ssdlab wrote".
    from ssdlab.lab import review as review_module

    out = tmp_path / "r"

    def stopped(*_args, **_kwargs):
        (out / "charts").mkdir()  # the suites draw their charts as they go
        raise KeyboardInterrupt

    monkeypatch.setattr(review_module, "run_reviews", stopped)
    ctx = ReviewContext("vertex3-120", (), scale=0.02, seed=1, out_dir=out)
    with pytest.raises(KeyboardInterrupt):
        review_module.review(ctx, ["power"], out / "results.sqlite")
    assert (out / "data").is_dir() and (out / "charts").is_dir() and not (out / "index.html").exists()
    assert (out / MARKER).read_text().splitlines()[0] == "ssdlab review"
    check_report_folder(out, "review")  # ssdlab started this review here: it may finish one
    with pytest.raises(SsdlabError, match="holds an unfinished ssdlab review, which a comparison would replace"):
        check_report_folder(out, "comparison")
    r = ssdlab("review", *QUICK, "--out", "r", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert page_kind(out / "index.html") == "review"
    # Without the marker (a user's folder), data/ or charts/ without a page are still refused,
    # and so is a marker ssdlab did not write.
    loose = tmp_path / "loose"
    (loose / "data").mkdir(parents=True)
    one_error(ssdlab("review", *QUICK, "--out", "loose", cwd=tmp_path), "has data but no page ssdlab wrote")
    (loose / MARKER).symlink_to(out / MARKER)
    one_error(ssdlab("review", *QUICK, "--out", "loose", cwd=tmp_path), f"holds a {MARKER} that is not a file ssdlab wrote")
    assert sorted(p.name for p in loose.iterdir()) == [MARKER, "data"]


def test_a_second_review_into_a_folder_being_written_is_refused(tmp_path):
    # Two reviews into one --out at once both exited 0, leaving one drive's page beside the
    # other's charts. The run writing into a folder holds a lock on its marker.
    out = tmp_path / "r"
    out.mkdir()
    with claim_report_folder(out, "review"):
        assert (out / MARKER).read_text() == f"ssdlab review\nprocess {os.getpid()}\n"
        one_error(ssdlab("review", *QUICK, "--out", "r", cwd=tmp_path), f"--out r: another ssdlab review is writing into it (process {os.getpid()})")
        with pytest.raises(SsdlabError, match="another ssdlab review is writing into it"):
            claim_report_folder(out, "review")
        assert sorted(p.name for p in out.iterdir()) == [MARKER]
    with claim_report_folder(out, "review"):  # released: the folder may be claimed again
        pass
    r = ssdlab("review", *QUICK, "--out", "r", cwd=tmp_path)
    assert r.returncode == 0 and page_kind(out / "index.html") == "review", r.stderr


def _timed_part(fields: dict, suite: str, part: str | None, progress: bool) -> tuple[object, float, float]:
    """A part of a suite in a worker (in place of `parallel._work`): part "a" ran 10 s from
    t = 1000 s, part "b" 10 s from t = 1005 s (side by side, in two workers)."""
    return part, 10.0, {"a": 1000.0, "b": 1005.0}[part]


def test_a_suite_whose_parts_ran_side_by_side_took_the_time_from_its_first_start_to_its_last_end(monkeypatch):
    # "resiliency: done in 603.4 s" in a review that "took 572 s": a suite's time was the sum of
    # its parts' times, though they ran side by side in several workers.
    from types import SimpleNamespace

    from ssdlab.lab import parallel

    monkeypatch.setattr(parallel, "_work", _timed_part)
    monkeypatch.setattr(parallel, "plan", lambda reviews: [parallel.Job(0, "split", part, 1.0) for part in ("a", "b")])
    monkeypatch.setattr(parallel, "workers_with_room", lambda reviews, jobs, room: jobs)
    monkeypatch.setitem(parallel.SUITES, "split", SimpleNamespace(PARTS={"a": 1.0, "b": 1.0}, assemble=lambda ctx, parts: sorted(parts.values())))
    told = []
    results = parallel.run_reviews([(ReviewContext("force-gs-240", scale=0.02), ["split"])], jobs=2, on_suite=lambda *a: told.append(a))
    assert results == [{"split": ["a", "b"]}]
    [(_, name, took, _)] = told
    assert name == "split" and took == parallel.SuiteTime(15.0, 20.0, 2)
    assert took.text() == "15.0 s (2 parts side by side: 20.0 s of worker time)"
    assert parallel.SuiteTime(3.25, 3.25).text() == "3.2 s"


def test_a_pts_page_says_what_ran(tmp_path):
    # `ssdlab pts --scale 0.01`: an empty "At a glance" table and no headline figures in the
    # terminal, "suites chosen with --suites" without --suites, a <title> saying "ssdlab review",
    # and "for one minute" where the steps ran 5 s.
    import html
    import re

    from ssdlab.lab.pts import procedure

    r = ssdlab("pts", "force-gs-240", "--scale", "0.01", "--tests", "pts-latency,pts-wsat", "--out", "p", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Headline figures:" in r.stdout and "average latency (QD1)" in r.stdout and "steady IOPS" in r.stdout, r.stdout
    assert "(none" not in r.stdout, r.stdout
    page = html.unescape((tmp_path / "p" / "index.html").read_text())
    assert re.search(r"<title>[^<]*: ssdlab PTS report</title>", page), page[:2000]
    glance = re.search(r'<table class="headlines">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    assert glance.count("<tr>") == 2 and "average latency" in glance and "steady IOPS" in glance, glance
    assert "--suites" not in page and "tests chosen with --tests: pts-latency, pts-wsat" in page
    assert "one minute" not in page and "for 5 s." in page, "the latency steps ran 5 s"
    assert "24 simulated hours" not in page and "or 14 min of simulated time pass" in page
    # At full scale the method says the specification's minute.
    assert procedure.step_text(ReviewContext("force-gs-240")) == "one minute"
    assert procedure.step_text(ReviewContext("force-gs-240", scale=0.01)) == "5 s"


@pytest.mark.parametrize("tests", ["bogus", "pts-iops,consistency", "2012", ","])
def test_pts_lists_its_own_tests_for_a_name_it_does_not_have(tmp_path, tests):
    # `ssdlab pts --tests bogus` listed every review suite (four-corners, ..., 2012, 2020s) as
    # what it expected.
    r = ssdlab("pts", "--tests", tests, "--out", "p", cwd=tmp_path)
    one_error(r, "(expected some of: pts-iops, pts-throughput, pts-latency, pts-wsat, pts-hir, pts)")
    assert "four-corners" not in r.stderr and "2020s" not in r.stderr
    assert not (tmp_path / "p").exists()


def test_a_comparison_across_scales_names_each_drives_scale(tmp_path):
    # `compare --include-scaled` of a review at scale 0.02 and one at 0.03: the title said
    # "scale 0.02, 0.03 (not comparable)" but no bar said which drive was which scale.
    for profile, scale in (("vertex3-120", "0.02"), ("agility3-120", "0.03")):
        r = ssdlab("review", profile, "--scale", scale, "--suites", "power", "--quiet", "--db", "shared.db", "--out", profile, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    r = ssdlab("compare", "--db", "shared.db", "--include-scaled", "--out", "c", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    svgs = sorted((tmp_path / "c" / "charts").glob("compare_*.svg"))
    assert svgs
    for svg in svgs:
        text = svg.read_text()  # (matplotlib keeps each text as a comment beside its glyphs)
        assert "vertex3-120 (scale 0.02)" in text and "agility3-120 (scale 0.03)" in text, svg.name
    page = (tmp_path / "c" / "index.html").read_text()
    assert "vertex3-120 (scale 0.02)</th>" in page and "agility3-120 (scale 0.03)</th>" in page
    # One scale: the title says it, the labels are the drives' names alone.
    r = ssdlab("compare", "vertex3-120", "--db", "shared.db", "--include-scaled", "--out", "c1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "(scale 0.02)</th>" not in (tmp_path / "c1" / "index.html").read_text()
