"""Storage bench: trace replay (a slot until trace replay lands)."""

from __future__ import annotations

from ssdlab.lab.context import ReviewContext
from ssdlab.lab.results import SuiteResult

NAME = "storage-bench"
TITLE = "Storage Bench 2011 (Heavy and Light)"
METHOD = "Replay of the Heavy and Light 2011 workloads keeping the traces' queue depths; average MB/s and disk busy time."


def run(ctx: ReviewContext) -> SuiteResult:
    result = SuiteResult(NAME, TITLE, METHOD)
    result.notes.append("Not run: trace replay is not part of ssdlab yet; this suite is a slot for it.")
    return result
