"""Block traces: statistics, generated Storage Bench workloads, replay (see ``ssdlab trace``)."""

from __future__ import annotations

from ssdlab import _native

#: Formats accepted by ``--format`` (detected when not given).
FORMATS = ("msr", "snia", "blkparse", "fio2", "fio3", "spc", "umass", "disksim", "alibaba", "tencent", "cbs", "systor", "systor17", "fiu")


#: Units accepted by ``--time-unit`` (overriding the format's own).
TIME_UNITS = ("ns", "us", "ms", "s")


def stats(path: str, format: str | None = None, skip_bad: bool = False, time_unit: str | None = None, volume: str | None = None) -> dict:
    """Op counts, size histogram, sequential share, queue-depth distribution and average, bytes
    read and written, span, the volumes met with their request counts, and (traces with content
    hashes) the duplicate share of written blocks. Streams the file (plain or gzip). ``volume``
    picks one volume of a trace of several; ``"all"`` reads every volume, overlaid."""
    return _native.trace_stats(path, format, skip_bad, time_unit, volume)


def workloads() -> dict[str, str]:
    """Generated workloads and where their statistics come from."""
    return {name: source for name, source, _ in _native.trace_workloads()}


def workload_requests(name: str) -> int:
    """Requests in a generated workload's trace (the same for every seed)."""
    for known, _, requests in _native.trace_workloads():
        if known == name:
            return requests
    raise KeyError(name)


def generate(name: str, path: str, seed: int = 1) -> int:
    """Write workload `name` as an MSR/SNIA CSV trace (gzip when `path` ends in .gz); returns
    the number of requests."""
    return _native.trace_generate(name, path, seed)
