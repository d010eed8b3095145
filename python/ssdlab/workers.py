"""How many worker processes, each building its own drive, the memory left holds.

A review's suites and a sweep's points run on process pools; every worker builds its own drive,
and a large drive's tables take gigabytes (``Drive.info["table_bytes"]``, about 2 MiB per raw
GiB). The pools run no more workers than the room the machine and the control group leave
(``_native.shared_memory_room()``: what the drive's own memory check reads; an address-space
limit, ``ulimit -v``, is each process's own) holds, each worker taking the largest drive's
tables plus ``WORKER_BASE_BYTES``, and say so when that is fewer than asked."""

from __future__ import annotations

import sys

from ssdlab import _native

#: What a worker takes beyond its drive's tables (the interpreter with numpy and pandas, the
#: drive's queues and counters, a suite's series): a round figure above the peak of about
#: 280 MiB of a whole scale-0.05 review (BENCHMARKS.md, today's review lab).
WORKER_BASE_BYTES = 512 << 20


def shared_room() -> tuple[int, str] | None:
    """Bytes this process and its workers may still take together, and the limit that sets
    it; ``None`` where no limit can be read."""
    return _native.shared_memory_room()


def workers_for_memory(table_bytes: int, jobs: int, room: tuple[int, str] | None, what: str) -> int:
    """At most `jobs` workers, and no more than `room` (bytes and the limit's name, as
    ``shared_room()`` gives; ``None``: no limit known) holds with each building a drive of
    `table_bytes` of tables. Says so on standard error, naming `what` each worker runs ("suite",
    "point"), when that is fewer than `jobs`. One worker is always allowed: a drive too large
    for the room is refused by its own memory check, with the sizes."""
    if room is None or jobs <= 1:
        return jobs
    fit = max(1, room[0] // (table_bytes + WORKER_BASE_BYTES))
    if fit >= jobs:
        return jobs
    sys.stderr.write(
        f"ssdlab: note: running {fit} {what}{'s' if fit > 1 else ''} at a time rather than {jobs}: each drive's tables take "
        f"{_gib(table_bytes)} and {_gib(room[0])} is left under {room[1]}\n"
    )
    return fit


def _gib(size: int) -> str:
    return f"{size / (1 << 30):.1f} GiB"
