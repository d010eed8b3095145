"""Stopping a parallel review on a signal (Ctrl-C, SIGTERM) prints no traceback: the pool is
stopped with jobs running and jobs waiting, and neither its threads nor its workers fail."""

import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import _ExecutorManagerThread
from pathlib import Path

import pytest

from ssdlab.lab import parallel
from ssdlab.lab.context import ReviewContext


def _job(fields: dict, suite: str, part: str | None, progress: bool) -> tuple[object, float, float]:
    """A suite in a worker (in place of `parallel._work`): "quick" returns at once, the others
    take a minute."""
    if suite != "quick":
        time.sleep(60)
    return suite, 0.0, time.time()


def test_an_interrupted_parallel_review_stops_its_pool_without_a_failing_thread(monkeypatch):
    # On Python 3.11 the review cancelled the waiting jobs from the main thread; the pool's own
    # thread then failed them again as the workers died, printing an InvalidStateError traceback
    # after `ssdlab: interrupted`. Here: two workers, one quick job and five slow ones (three
    # handed to the workers, two waiting); Ctrl-C arrives as the quick one is reported done.
    failures = []
    monkeypatch.setattr(threading, "excepthook", lambda args: failures.append(repr(args.exc_value)))
    monkeypatch.setattr(parallel, "_work", _job)
    monkeypatch.setattr(parallel, "plan", lambda reviews: [parallel.Job(0, name, None, 1.0) for name in reviews[0][1]])

    def interrupt(*_):
        raise KeyboardInterrupt

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        parallel.run_reviews([(ReviewContext("force-gs-240"), ["quick", "a", "b", "c", "d", "e"])], jobs=2, on_suite=interrupt)
    for thread in threading.enumerate():
        if isinstance(thread, _ExecutorManagerThread):
            thread.join(timeout=60)
    assert failures == []
    assert time.monotonic() - started < 30, "the workers were stopped, not waited for"


def test_workers_leave_ctrl_c_to_the_parent():
    context = multiprocessing.get_context("spawn")
    initargs = (context.Queue(), context.Value("i", 0), os.getpid())
    with ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=parallel._init_worker, initargs=initargs) as pool:
        assert pool.submit(signal.getsignal, signal.SIGINT).result(timeout=60) == signal.SIG_IGN


def test_workers_die_with_a_review_killed_by_sigkill(tmp_path):
    # A review killed with SIGKILL cannot stop its workers: they slept on, reparented to init,
    # each holding its drive. Each worker asks the kernel to kill it when its parent dies.
    review = subprocess.Popen(
        [sys.executable, "-m", "ssdlab.cli", "review", "conventional-240", "--scale", "0.05", "--out", str(tmp_path / "r"), "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    workers: list[str] = []
    while time.monotonic() < deadline and len(workers) < 2:
        time.sleep(0.5)
        workers = subprocess.run(["pgrep", "-P", str(review.pid)], capture_output=True, text=True).stdout.split()
    assert workers, "the review started no worker"
    review.kill()
    review.wait()
    deadline = time.monotonic() + 30
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [pid for pid in workers if Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()]
    assert not alive, f"workers {alive} outlived the review"
