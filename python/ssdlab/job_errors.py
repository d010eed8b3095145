"""Jobs that ended in error, as fio counts them (a job's ``"error"`` in fio's JSON output), read
from a run's summary. ``ssdlab run``'s exit status 1, its lines on standard error and the
``"error"`` of fio's JSON output all come from here.

A summary holds two kinds of job error, both set by the core: ``job_error`` (a job that
``max_latency``, ``rate_min``/``rate_iops_min`` or a ``latency_target`` missed at depth 1 ended:
fio's ETIMEDOUT or EIO, with fio's message; the group's first such job) and ``verify`` with
failures (blocks read back that were not what was written: fio's EILSEQ, which its ``verify.c``
returns for a bad header; counted over the group's jobs with verify).
"""

from __future__ import annotations

from dataclasses import dataclass

#: fio's error numbers for a job's error: a minimum rate not met, a failed verify, a latency
#: limit or target exceeded.
EIO, EILSEQ, ETIMEDOUT = 5, 84, 110

#: The names of those error numbers, as fio's errno would print them.
ERRNO_NAMES = {EIO: "EIO", EILSEQ: "EILSEQ", ETIMEDOUT: "ETIMEDOUT"}


@dataclass(frozen=True)
class JobFailure:
    """One job (or, for a verify failure, one group of jobs) that ended in error."""

    #: The job's name; a verify failure in a group of several jobs names the group's first job.
    job: str
    #: fio's error number.
    errno: int
    #: fio's message as the core gives it, or what verify found.
    message: str
    #: Jobs of the group a verify failure was counted over (1: the job alone; the core does not
    #: say which job of a larger group read the failed blocks).
    group_jobs: int = 1

    @property
    def errno_name(self) -> str:
        """The error number's name (``ETIMEDOUT``), or the number when it has none here."""
        return ERRNO_NAMES.get(self.errno, str(self.errno))

    def line(self) -> str:
        """The line ``ssdlab run`` prints on standard error for it."""
        who = f"job {self.job}" if self.group_jobs == 1 else f"one of jobs {self.job} and {self.group_jobs - 1} more"
        return f"ssdlab: {who} ended in error {self.errno} ({self.errno_name}): {self.message}"


def failures(summary: dict) -> list[JobFailure]:
    """The jobs of one group's run (`summary`, as ``Drive.run`` gives it) that ended in error, in
    the order fio's JSON takes its error number from: the core's ``job_error`` first, then a
    failed verify (left out when that one job already has the core's error, which ended it)."""
    out = []
    error = summary.get("job_error")
    if error:
        out.append(JobFailure(error["job"], error["errno"], error["message"]))
    verify = summary.get("verify")
    group = summary.get("jobs_in_group", 1)
    if verify and verify["failures"] and not (error and group == 1):
        message = f"verify failed for {verify['failures']:,} blocks, the first at offset {verify['first_failure_offset']:,}"
        out.append(JobFailure(summary["job"], EILSEQ, message, group))
    return out


def error_number(summary: dict, job: str | None = None) -> int:
    """fio's ``"error"`` for a group's entry of its JSON output (`job` None: the first failure's
    number) or for one job's entry (the failure that names that job alone), 0 when none."""
    for failure in failures(summary):
        if job is None or (failure.job == job and failure.group_jobs == 1):
            return failure.errno
    return 0
