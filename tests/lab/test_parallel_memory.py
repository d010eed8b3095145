"""A parallel review runs no more workers than the memory left holds, and a worker that dies
(the kernel's out-of-memory killer sends SIGKILL) ends the review with one line, not a
traceback."""

import os
import signal
import time

import pytest

from ssdlab.errors import SsdlabError
from ssdlab.lab import parallel
from ssdlab.lab.context import ReviewContext
from ssdlab.workers import WORKER_BASE_BYTES

GIB = 1 << 30


def _job(fields: dict, suite: str, part: str | None, progress: bool) -> tuple[object, float, float]:
    """A suite in a worker (in place of `parallel._work`): "dies" is killed as the kernel's
    out-of-memory killer kills, "slow" takes a while, the others return at once."""
    if suite == "dies":
        time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGKILL)
    if suite == "slow":
        time.sleep(5)
    return suite, 0.0, time.time()


def _fake_plan(monkeypatch):
    monkeypatch.setattr(parallel, "_work", _job)
    monkeypatch.setattr(parallel, "plan", lambda reviews: [parallel.Job(0, name, None, 1.0) for name in reviews[0][1]])


def test_a_worker_killed_mid_review_ends_it_with_one_line_naming_the_signal(monkeypatch):
    # Before: concurrent.futures' BrokenProcessPool reached the user as a Python traceback.
    _fake_plan(monkeypatch)
    monkeypatch.setattr(parallel, "workers_with_room", lambda reviews, jobs, room: jobs)
    with pytest.raises(SsdlabError) as caught:
        parallel.run_reviews([(ReviewContext("force-gs-240"), ["slow", "dies", "quick"])], jobs=2)
    message = str(caught.value)
    assert "\n" not in message
    assert "killed by SIGKILL" in message and "out-of-memory" in message, message
    assert "--jobs 1" in message


class _ReapedElsewhere:
    """A dead worker the pool's own thread reaped first: this thread's join finds no child, and
    its exit code reads None until that thread has stored it (the race behind a CI failure
    that said "how is not known" for a worker killed by SIGKILL)."""

    def __init__(self, reads_before_code: int):
        self.reads_left = reads_before_code

    def join(self, timeout=None):
        pass

    @property
    def exitcode(self):
        self.reads_left -= 1
        return None if self.reads_left >= 0 else -signal.SIGKILL


def test_a_worker_reaped_by_the_pool_thread_is_still_named_by_its_signal():
    line = parallel._lost_worker({1: _ReapedElsewhere(reads_before_code=3)}, parallel.Job(0, "atto", None, 1.0))
    assert "killed by SIGKILL" in line, line


def test_workers_are_as_many_as_the_memory_left_holds(capsys):
    ctx = ReviewContext("force-gs-240", scale=0.05)
    reviews = [(ctx, ["four-corners", "atto", "hdtach"])]
    tables = ctx.info()["table_bytes"]
    assert tables > 0
    per_worker = tables + WORKER_BASE_BYTES
    # Room for three workers: two asked, two run, nothing said.
    assert parallel.workers_with_room(reviews, 2, (3 * per_worker, "a test's limit")) == 2
    assert capsys.readouterr().err == ""
    # No limit known (not Linux): as asked.
    assert parallel.workers_with_room(reviews, 2, None) == 2
    # Room for one and a half: one runs, and the user is told why, with the sizes.
    assert parallel.workers_with_room(reviews, 2, (per_worker * 3 // 2, "a test's limit")) == 1
    err = capsys.readouterr().err
    assert "running 1 suite at a time rather than 2" in err and "a test's limit" in err, err
    # Not even room for one: one still runs, and the drive's own memory check refuses it.
    assert parallel.workers_with_room(reviews, 2, (GIB // 4, "a test's limit")) == 1


def test_the_tables_counted_are_the_largest_drive_of_the_reviews():
    small = ReviewContext("force-gs-240", scale=0.05)
    large = ReviewContext("conventional-240")
    assert large.info()["table_bytes"] > small.info()["table_bytes"]
    per_large = large.info()["table_bytes"] + WORKER_BASE_BYTES
    room = (2 * per_large - 1, "a test's limit")
    assert parallel.workers_with_room([(small, ["atto"]), (large, ["atto"])], 2, room) == 1
    assert parallel.workers_with_room([(small, ["atto"]), (large, [])], 2, room) == 2


def test_a_review_short_of_memory_runs_its_suites_in_this_process(monkeypatch):
    _fake_plan(monkeypatch)
    monkeypatch.setattr(parallel, "shared_room", lambda: (1, "a test's limit"))
    ran = []
    monkeypatch.setattr(parallel, "_serial", lambda reviews, on_suite: ran.append(reviews) or [{}])
    monkeypatch.setattr(parallel, "_parallel", lambda *a: pytest.fail("a pool was started without room for two workers"))
    parallel.run_reviews([(ReviewContext("force-gs-240", scale=0.05), ["atto", "hdtach"])], jobs=2)
    assert len(ran) == 1
