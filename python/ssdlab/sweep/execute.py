"""Running a sweep's points: on a local process pool by default, on an existing Dask cluster
when one is named; results are stored as they arrive, so an interrupted sweep started again
runs only the points not yet stored.

A Dask address is ``[PROTOCOL://]HOST:PORT`` (protocol tcp, tls, ws, wss or ucx; default tcp),
checked before anything runs; ssdlab waits at most ``DASK_CONNECT_SECONDS`` (10 s) for the
scheduler to answer. A cluster started here (``--dask local:N``) has no dashboard, and its
worker processes ignore Ctrl-C: the sweep stops them itself."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from datetime import UTC, datetime
from pathlib import Path

from ssdlab import __version__
from ssdlab.errors import SsdlabError
from ssdlab.lab.db import ResultsDatabase
from ssdlab.sweep.spec import Point, Spec
from ssdlab.workers import shared_room, workers_for_memory

#: Summary keys that measure the host, not the simulation (left out when results are compared).
WALL_KEYS = ("wall_seconds",)


def run_point(point: Point) -> dict:
    """Simulate one point (in a worker): a fresh drive, its preconditions, its job. Never
    raises: a failure is returned with its error and seed, so the sweep goes on."""
    from ssdlab.drive import Drive

    started = time.perf_counter()
    try:
        drive = Drive(point.profile, list(point.overrides), seed=point.seed)
        for step in point.preconditions:
            drive.precondition(step)
        summary = drive.run(list(point.workload), name=point.sweep).summary
        error = None
    except Exception as exc:  # a point's failure is data, not a crash of the sweep
        summary, error = None, f"{type(exc).__name__}: {exc}"
    return {"key": point.key, "summary": summary, "error": error, "wall_seconds": time.perf_counter() - started}


def _row(point: Point, outcome: dict) -> dict:
    return {
        "sweep": point.sweep,
        "point_key": point.key,
        "point_index": point.index,
        "axes": json.dumps(point.axes),
        "profile": point.profile,
        "overrides": json.dumps(list(point.overrides)),
        "profile_hash": point.profile_hash,
        "preconditions": json.dumps(list(point.preconditions)),
        "workload": " ".join(point.workload),
        "seed": point.seed,
        "version": __version__,
        "summary": None if outcome["summary"] is None else json.dumps(outcome["summary"]),
        "error": outcome["error"],
        "wall_seconds": outcome["wall_seconds"],
        "recorded": datetime.now(UTC).isoformat(timespec="seconds"),
    }


class Progress:
    """Points done of total, points per minute, ETA, failures with their seeds."""

    def __init__(self, total: int, skipped: int, echo: Callable[[str], None] | None, bar: bool) -> None:
        self.total, self.done, self.failures = total, 0, []
        self.started = time.perf_counter()
        self.echo = echo
        self.bar = None
        if bar:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="point", dynamic_ncols=True, leave=True)
        if echo and skipped:
            echo(f"{skipped} point(s) already stored: skipped")

    def point(self, point: Point, outcome: dict) -> None:
        self.done += 1
        if outcome["error"]:
            self.failures.append((point, outcome["error"]))
            message = f"point {point.index} (seed {point.seed}, {point.axes}) failed: {outcome['error']}"
            if self.bar is not None:
                self.bar.write(message)
            elif self.echo:
                self.echo(message)
        minutes = (time.perf_counter() - self.started) / 60
        rate = self.done / minutes if minutes > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("inf")
        if self.bar is not None:
            self.bar.set_postfix_str(f"{rate:.1f} points/min, ETA {eta:.1f} min, {len(self.failures)} failed")
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    @property
    def points_per_minute(self) -> float:
        minutes = (time.perf_counter() - self.started) / 60
        return self.done / minutes if minutes > 0 else 0.0


def pending_points(spec: Spec, db: ResultsDatabase) -> list[Point]:
    """The points of `spec` without a stored result."""
    done = db.sweep_done_keys(spec.name)
    return [p for p in spec.points if p.key not in done]


def _lost(point: Point, exc: BaseException) -> dict:
    """The outcome of a point whose worker was lost: stored as a failure, so the next start of
    the sweep runs it again (failed points are not counted as done)."""
    return {"key": point.key, "summary": None, "error": f"worker lost: {type(exc).__name__}: {exc}", "wall_seconds": 0.0}


def _local(points: list[Point], workers: int) -> Iterable[tuple[Point, dict]]:
    import multiprocessing

    # Spawned workers: a clean interpreter each, nothing inherited from the parent's threads.
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(run_point, p): p for p in points}
        try:
            while futures:
                finished, _ = wait(futures, return_when=FIRST_COMPLETED)
                for f in finished:
                    point = futures.pop(f)
                    try:
                        outcome = f.result()
                    except Exception as exc:  # a lost worker (killed, out of memory): a failure, run again next time
                        outcome = _lost(point, exc)
                    yield point, outcome
        except BaseException:
            for f in futures:
                f.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def check_scheduler_file(path: str) -> str:
    """A Dask scheduler file is JSON naming the scheduler's address (what `dask scheduler
    --scheduler-file` writes); return the address or a one-line error naming the file."""
    import json

    from ssdlab import paths

    paths.input_file("--dask-scheduler-file", path, paths.MAX_TEXT_FILE_BYTES)
    try:
        with open(path, "rb") as f:
            document = json.loads(f.read().decode("utf-8"))
    except (ValueError, OSError):
        document = None
    address = document.get("address") if isinstance(document, dict) else None
    if not isinstance(address, str) or "://" not in address:
        raise SsdlabError(f'--dask-scheduler-file {paths.shown(path)}: not a Dask scheduler file (expected JSON with an "address" such as tcp://host:8786)')
    check_dask_address(address, f"--dask-scheduler-file {paths.shown(path)}: its address")
    return address


#: Seconds ssdlab waits for a Dask scheduler to answer.
DASK_CONNECT_SECONDS = 10

_DASK_ADDRESS = re.compile(
    r"(?:(?P<protocol>[A-Za-z][A-Za-z0-9+.-]*)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?):(?P<port>[0-9]{1,5})"
)
DASK_PROTOCOLS = ("tcp", "tls", "ws", "wss", "ucx")


def check_dask_address(address: str, option: str = "--dask") -> str:
    """A scheduler's address is ``[PROTOCOL://]HOST:PORT`` with a Dask protocol and a port from
    1 to 65535; anything else is refused naming `option` (before anything runs)."""
    match = _DASK_ADDRESS.fullmatch(address)
    expected = f"expected a Dask scheduler address [PROTOCOL://]HOST:PORT (such as tcp://10.0.0.5:8786; protocol {', '.join(DASK_PROTOCOLS)})" + (
        ", or local[:N]" if option == "--dask" else ""
    )
    if match is None:
        raise SsdlabError(f"{option} {address!r}: {expected}")
    protocol = (match["protocol"] or "tcp").lower()
    if protocol not in DASK_PROTOCOLS:
        raise SsdlabError(f"{option} {address!r}: unknown protocol {protocol!r}; {expected}")
    if not 1 <= int(match["port"]) <= 65535:
        raise SsdlabError(f"{option} {address!r}: port {match['port']} is not from 1 to 65535")
    return address


#: Most workers of a cluster ssdlab starts itself (`--dask local:N`).
MAX_LOCAL_DASK_WORKERS = 1024


def local_dask_workers(address: str | None) -> int | None:
    """The worker count when `address` asks for a cluster started here (``local`` or
    ``local:N``), or None for the address of a running scheduler."""
    if address is None:
        return None
    if not (address == "local" or address.startswith("local:")):
        check_dask_address(address)
        return None
    count = address.removeprefix("local").removeprefix(":")
    if not count:
        return default_workers()
    if not count.isdigit() or not 1 <= int(count) <= MAX_LOCAL_DASK_WORKERS:
        raise SsdlabError(f"--dask {address}: expected local or local:N with N from 1 to {MAX_LOCAL_DASK_WORKERS} workers")
    return int(count)


def _dask(points: list[Point], address: str | None, scheduler_file: str | None) -> Iterable[tuple[Point, dict]]:
    from distributed import Client, LocalCluster, as_completed

    if scheduler_file is not None:
        check_scheduler_file(scheduler_file)
    local_workers = local_dask_workers(address)
    cluster = None
    if local_workers is not None:
        # A cluster of worker processes on this machine, on loopback only, with no dashboard,
        # stopped with the sweep (also on Ctrl-C: the generator's `finally` runs as the interrupt
        # unwinds). The worker processes start with Ctrl-C ignored (a Python started so keeps
        # it ignored): the interrupt is the sweep's to handle, not a traceback in each worker.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if _main_thread() else None
        try:
            cluster = LocalCluster(
                n_workers=local_workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                # No dashboard, and the scheduler's HTTP server on a free loopback port, not 8787
                # (in use by another cluster: a warning).
                scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
            )
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        client = Client(cluster, timeout=f"{DASK_CONNECT_SECONDS}s")
        # A point cancelled by Ctrl-C is no news: the workers' warning about it is not shown.
        client.run(_quiet_cancelled_tasks)
    else:
        option = f"--dask {address}" if address else f"--dask-scheduler-file {scheduler_file}"
        try:
            client = Client(address, scheduler_file=scheduler_file, timeout=f"{DASK_CONNECT_SECONDS}s")
        except (OSError, TimeoutError, ValueError) as error:
            raise SsdlabError(
                f"{option}: cannot reach the Dask scheduler within {DASK_CONNECT_SECONDS} s ({error}); is it running, and is the address right?"
            ) from None
    try:
        futures = client.map(run_point, points, pure=False)
        by_key = {f.key: p for f, p in zip(futures, points, strict=True)}
        for future in as_completed(futures):
            point = by_key[future.key]
            try:
                outcome = future.result()
            except Exception as exc:  # a lost worker: recorded as that point's failure, run again next time
                outcome = _lost(point, exc)
            yield point, outcome
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _quiet_cancelled_tasks() -> None:
    import logging

    logging.getLogger("distributed.worker.state_machine").setLevel(logging.ERROR)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def default_workers() -> int:
    """Local workers: one per CPU the process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def local_workers(points: list[Point], workers: int) -> int:
    """At most `workers` local workers, and no more than the memory left holds with each
    building the largest drive of `points` (``ssdlab.workers``; each distinct profile and
    overrides read once)."""
    from ssdlab.drive import profile_info

    workers = min(workers, len(points))
    room = shared_room()
    if room is None or workers <= 1:
        return workers
    drives = {(p.profile, tuple(p.overrides)) for p in points}
    tables = max(profile_info(profile, list(overrides))["table_bytes"] for profile, overrides in sorted(drives))
    return workers_for_memory(tables, workers, room, "point")


def execute(
    spec: Spec,
    db_path: Path,
    workers: int | None = None,
    dask_address: str | None = None,
    dask_scheduler_file: str | None = None,
    echo: Callable[[str], None] | None = None,
    bar: bool = False,
) -> Progress:
    """Run the points of `spec` not yet stored in the database at `db_path`, storing each as it
    arrives. Returns the progress record (failures, rate)."""
    db = ResultsDatabase(db_path)
    try:
        todo = pending_points(spec, db)
        progress = Progress(len(todo), len(spec.points) - len(todo), echo, bar)
        if todo:
            if dask_address or dask_scheduler_file:
                source = _dask(todo, dask_address, dask_scheduler_file)
            else:
                source = _local(todo, local_workers(todo, workers or default_workers()))
            try:
                for point, outcome in source:
                    db.add_sweep_point(_row(point, outcome))
                    progress.point(point, outcome)
            finally:
                progress.close()
        return progress
    finally:
        db.close()
