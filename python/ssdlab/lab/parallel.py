"""A review's suites as independent jobs on a local process pool.

Every suite builds its own drives from the review's profile and seed, so a suite (or a part of
one: a suite with ``PARTS`` runs each part on its own drive, see ``run_part`` and ``assemble``
in its module) gives the same figures in any process and in any order. The pool runs the jobs
longest first: a part's weight (its value in ``PARTS``) and a suite's ``WEIGHT`` are the CPU
seconds the job took in a full-scale review of force-gs-240 (1 when unknown), so the longest
jobs start first and the short ones fill the cores at the end; the parent assembles the parts
of a suite, and the review stores the suites in the database in the review's order, so the
database, the CSV files and the report are those of a serial run. With one job the suites run in this process, one
after another, as they always did.

Progress: each worker sends its jobs' progress to the parent, which shows one bar per worker
on a terminal (a line per job in a log).

Memory: each worker builds its own drives, so the pool runs no more workers than the memory
left holds with each building the largest drive of the reviews (``workers_with_room``, the rule
in ``ssdlab.workers``), and says so when it runs fewer than asked. A worker that dies anyway (the
kernel's out-of-memory killer, a signal) ends the review with one line naming how it ended, not
a traceback.
"""

from __future__ import annotations

import ctypes
import dataclasses
import gc
import multiprocessing
import os
import queue as queues
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from ssdlab.errors import SsdlabError
from ssdlab.lab.context import ReviewContext
from ssdlab.lab.results import SuiteResult
from ssdlab.lab.suites import SUITES
from ssdlab.progress import ProgressBars
from ssdlab.workers import shared_room, workers_for_memory


@dataclasses.dataclass(frozen=True)
class SuiteTime:
    """How long a suite took. `elapsed`: wall seconds from the start of its first job in its
    worker (not from when the job was handed to the pool, nor from the review's start) to the
    end of its last job; `work`: the wall seconds of its jobs added up, more than `elapsed` when
    its `parts` ran side by side in several workers."""

    elapsed: float
    work: float
    parts: int = 1

    def text(self) -> str:
        """The time in words: '12.3 s', or for parts that ran side by side '12.3 s (3 parts side
        by side: 30.1 s of worker time)'."""
        if self.parts > 1 and self.work > self.elapsed * 1.01:
            return f"{self.elapsed:,.1f} s ({self.parts} parts side by side: {self.work:,.1f} s of worker time)"
        return f"{self.elapsed:,.1f} s"


#: Called when a suite is done: (review index, suite name, how long it took, result).
SuiteDone = Callable[[int, str, SuiteTime, SuiteResult], None]


def default_jobs() -> int:
    """One job per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


@dataclasses.dataclass(frozen=True)
class Job:
    """One unit of work: a suite of a review, or one part of it."""

    review: int
    suite: str
    part: str | None
    weight: float


def plan(reviews: list[tuple[ReviewContext, list[str]]]) -> list[Job]:
    """The jobs of every review, longest first (ties in review and suite order)."""
    jobs = []
    for index, (_ctx, suites) in enumerate(reviews):
        for name in suites:
            module = SUITES[name]
            parts = getattr(module, "PARTS", None)
            if parts:
                jobs += [Job(index, name, part, float(weight)) for part, weight in parts.items()]
            else:
                jobs.append(Job(index, name, None, float(getattr(module, "WEIGHT", 1.0))))
    order = {job: i for i, job in enumerate(jobs)}
    return sorted(jobs, key=lambda j: (-j.weight, order[j]))


def run_reviews(reviews: list[tuple[ReviewContext, list[str]]], jobs: int, on_suite: SuiteDone | None = None) -> list[dict[str, SuiteResult]]:
    """Run every suite of every review (``(context, suite names)``) on `jobs` processes (fewer
    when memory is short: ``workers_with_room``); returns each review's results by suite name.
    `on_suite` is told as each suite is done."""
    if jobs > 1 and any(suites for _, suites in reviews):
        jobs = workers_with_room(reviews, min(jobs, len(plan(reviews))), shared_room())
        if jobs > 1:
            return _parallel(reviews, jobs, on_suite)
    return _serial(reviews, on_suite)


def workers_with_room(reviews: list[tuple[ReviewContext, list[str]]], jobs: int, room: tuple[int, str] | None) -> int:
    """At most `jobs` workers, and no more than `room` (as ``workers.shared_room()`` gives)
    holds when each builds the largest drive of the reviews (``ssdlab.workers``)."""
    if room is None or jobs <= 1:
        return jobs
    tables = max(ctx.info()["table_bytes"] for ctx, suites in reviews if suites)
    return workers_for_memory(tables, jobs, room, "suite")


def _free_dropped_drives() -> None:
    """Collect reference cycles after a suite: a suite's drives can outlive it in one (its
    frame held by an exception's traceback, as matplotlib's text parsing leaves them), each
    holding its tables, gigabytes on a large drive, until Python's cycle collector runs."""
    gc.collect()


def _serial(reviews, on_suite: SuiteDone | None) -> list[dict[str, SuiteResult]]:
    out: list[dict[str, SuiteResult]] = []
    for index, (ctx, suites) in enumerate(reviews):
        results = {}
        for name in suites:
            started = time.perf_counter()
            ctx.suite = name
            try:
                results[name] = SUITES[name].run(ctx)
            finally:
                ctx.suite = None
            _free_dropped_drives()
            if on_suite is not None:
                wall = time.perf_counter() - started
                on_suite(index, name, SuiteTime(wall, wall), results[name])
        out.append(results)
    return out


# ----- worker side ---------------------------------------------------------------------------

_QUEUE = None
_SLOT = 0


def _die_with_parent(parent: int) -> None:
    """Ask Linux to kill this worker when its parent dies (`prctl(PR_SET_PDEATHSIG)`): a review
    killed with SIGKILL cannot stop its workers, which slept on for good, each holding its
    drive's memory. Elsewhere nothing is asked."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _init_worker(queue, counter, parent: int) -> None:
    """Each worker takes the next slot number (its progress bar's line). Ctrl-C, which reaches
    the workers too, is left to the parent: it stops them (``_stop_workers``), so no worker
    prints a traceback of its own. A worker dies with its parent (``_die_with_parent``)."""
    global _QUEUE, _SLOT
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _QUEUE = queue
    with counter.get_lock():
        _SLOT = counter.value
        counter.value += 1


def _send_progress(job: str, fraction: float, simulated_seconds: float, completed: int) -> None:
    if _QUEUE is not None:
        _QUEUE.put((_SLOT, job, fraction, simulated_seconds, completed))


def _context_fields(ctx: ReviewContext) -> dict:
    """What a worker needs to rebuild the review's context (no progress display, no cache)."""
    skip = {"progress", "suite", "_info"}
    return {f.name: getattr(ctx, f.name) for f in dataclasses.fields(ctx) if f.name not in skip}


def _work(fields: dict, suite: str, part: str | None, progress: bool) -> tuple[object, float, float]:
    """Run one job in a worker; returns its output, its wall time, and when it started (the
    system's clock, `time.time()`: the same in every worker, so the parent can tell how long a
    suite whose parts ran in several workers took from the first part's start to the last's end)."""
    started_at = time.time()
    started = time.perf_counter()
    ctx = ReviewContext(**fields, progress=_send_progress if progress else None)
    ctx.suite = suite
    module = SUITES[suite]
    output = module.run(ctx) if part is None else module.run_part(ctx, part)
    _free_dropped_drives()
    if _QUEUE is not None and progress:
        _QUEUE.put((_SLOT, None, 1.0, 0.0, 0))
    return output, time.perf_counter() - started, started_at


# ----- parent side ---------------------------------------------------------------------------


class _Display:
    """Progress from the workers: one bar (or log) per worker slot, fed by a listener thread.
    The parent only reads the queue (it is stopped by an event, not by a message of its own:
    a worker killed while writing to the queue may hold its lock for good)."""

    def __init__(self, progress, slots: int, queue) -> None:
        self.queue = queue
        self.slots: dict[int, Callable] = {}
        if isinstance(progress, ProgressBars):
            self.slots = {i: ProgressBars(progress.enabled, progress.stream, progress.bars, progress.interval_s, position=i) for i in range(slots)}
        self.fallback = progress
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._listen, name="ssdlab-progress", daemon=True)
        self.thread.start()

    def _listen(self) -> None:
        while not self.stopping.is_set():
            try:
                item = self.queue.get(timeout=0.1)
            except queues.Empty:
                continue
            except Exception:  # a worker killed mid-message (a signal): progress ends there
                return
            slot, job, fraction, simulated, completed = item
            bars = self.slots.get(slot)
            if job is None:
                if bars is not None:
                    bars.close()
                continue
            if bars is not None:
                bars(job, fraction, simulated, completed)
            elif self.fallback is not None:
                self.fallback(job, fraction, simulated, completed)

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=10)
        for bars in self.slots.values():
            bars.close()


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Stop the pool now, jobs running or not: its pending jobs are cancelled by the pool's own
    thread (``shutdown(cancel_futures=True)``; a future cancelled from this thread could be
    failed again by that thread as the workers die, an InvalidStateError traceback on Python
    3.11), then the worker processes are terminated (3.11 has no public way to)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()


def _exit_code(process, wait_s: float = 2.0) -> int | None:
    """A dead worker's exit code. The pool's own thread joins the workers of a broken pool at
    the same time: when it reaps a worker first, this thread's wait finds no child and reads
    None until that thread has stored the code, so read again for a while rather than once."""
    deadline = time.monotonic() + wait_s
    while True:
        process.join(timeout=0.1)
        code = process.exitcode
        if code is not None or time.monotonic() >= deadline:
            return code


def _lost_worker(processes: dict | None, job: Job) -> str:
    """One line for a pool broken by a worker that died: how it ended, if known, and what to
    do about it."""
    ended = []
    for process in list((processes or {}).values()):
        code = _exit_code(process)
        if code == -signal.SIGTERM:
            continue  # the pool itself ends the other workers so once it is broken
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            ended.append(f"killed by {name}" + (" (most often the kernel's out-of-memory killer)" if -code == signal.SIGKILL else ""))
        elif code not in (None, 0):
            ended.append(f"exit status {code}")
    how = "; ".join(dict.fromkeys(ended)) or "how is not known"
    what = job.suite + (f" ({job.part})" if job.part else "")
    return (
        f"a worker process of the review ended abruptly ({how}) while suites were running, {what} among them; "
        "the suites already stored in the results database stay there; run again with --jobs 1 (one drive in memory at a time), "
        "or free memory"
    )


def _parallel(reviews, jobs: int, on_suite: SuiteDone | None) -> list[dict[str, SuiteResult]]:
    planned = plan(reviews)
    workers = min(jobs, len(planned))
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    counter = context.Value("i", 0)
    progress = reviews[0][0].progress
    display = _Display(progress, workers, queue)
    fields = [_context_fields(ctx) for ctx, _ in reviews]
    pending_parts: dict[tuple[int, str], dict[str, object]] = {}
    #: Each suite's jobs done so far: (first start, last end, wall seconds added up, jobs).
    spans: dict[tuple[int, str], tuple[float, float, float, int]] = {}
    out: list[dict[str, SuiteResult]] = [{} for _ in reviews]
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker, initargs=(queue, counter, os.getpid())) as pool:
            futures = {pool.submit(_work, fields[job.review], job.suite, job.part, progress is not None): job for job in planned}
            # The pool's worker processes (3.11 has no public way to them), kept to say how one
            # ended if it dies: the pool forgets them once it is broken.
            workers_seen = getattr(pool, "_processes", None)
            try:
                remaining = set(futures)
                while remaining:
                    done, remaining = wait(remaining, return_when=FIRST_COMPLETED)
                    for future in done:
                        job = futures[future]
                        try:
                            output, wall, started_at = future.result()
                        except BrokenProcessPool:
                            raise SsdlabError(_lost_worker(workers_seen, job)) from None
                        key = (job.review, job.suite)
                        first, last, work, count = spans.get(key, (started_at, started_at + wall, 0.0, 0))
                        spans[key] = (min(first, started_at), max(last, started_at + wall), work + wall, count + 1)
                        if job.part is None:
                            out[job.review][job.suite] = output  # type: ignore[assignment]
                        else:
                            parts = pending_parts.setdefault(key, {})
                            parts[job.part] = output
                            module = SUITES[job.suite]
                            if len(parts) < len(module.PARTS):
                                continue
                            ctx = reviews[job.review][0]
                            ctx.suite = job.suite
                            try:
                                out[job.review][job.suite] = module.assemble(ctx, parts)
                            finally:
                                ctx.suite = None
                        if on_suite is not None:
                            first, last, work, count = spans[key]
                            on_suite(job.review, job.suite, SuiteTime(last - first, work, count), out[job.review][job.suite])
            except BaseException:
                # Ctrl-C or SIGTERM or a failed job: stop every worker now rather than wait for
                # the jobs they are running.
                _stop_workers(pool)
                raise
    finally:
        display.close()
    return out
