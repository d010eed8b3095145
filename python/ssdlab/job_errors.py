"""Jobs that ended in error, as fio counts them (a job's ``"error"`` in fio's JSON output), read
from a run's summary. ``ssdlab run``'s exit status 1, its lines on standard error and the
``"error"`` of fio's JSON output all come from here.

A summary holds two kinds of job error, both set by the core: ``job_error`` (a job that
``max_latency``, ``rate_min``/``rate_iops_min`` or a ``latency_target`` missed at depth 1 ended:
fio's ETIMEDOUT or EIO, with fio's message) and ``verify`` with failures (blocks read back that
were not what was written: fio's EILSEQ, which its ``verify.c`` returns for a bad header). A
group of several jobs has both per job in ``each_job`` (each job's own error and verify counts),
read here; the group's own ``job_error`` is its first in time, its ``verify`` the sum.
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
    """One job that ended in error."""

    #: The job's name (``numjobs`` copies share it, as in fio).
    job: str
    #: fio's error number.
    errno: int
    #: fio's message as the core gives it, or what verify found.
    message: str

    @property
    def errno_name(self) -> str:
        """The error number's name (``ETIMEDOUT``), or the number when it has none here."""
        return ERRNO_NAMES.get(self.errno, str(self.errno))

    def line(self) -> str:
        """The line ``ssdlab run`` prints on standard error for it."""
        return f"ssdlab: job {self.job} ended in error {self.errno} ({self.errno_name}): {self.message}"


def job_failure(figures: dict) -> JobFailure | None:
    """The error of one job (`figures`: a lone job's summary, or one entry of a group's
    ``each_job``), as fio's JSON takes its error number: the core's ``job_error`` (which ended the
    job) first, else a failed verify; None when the job ran cleanly."""
    error = figures.get("job_error")
    if error:
        return JobFailure(figures["job"], error["errno"], error["message"])
    verify = figures.get("verify")
    if verify and verify["failures"]:
        message = f"verify failed for {verify['failures']:,} blocks, the first at offset {verify['first_failure_offset']:,}"
        return JobFailure(figures["job"], EILSEQ, message)
    return None


def failures(summary: dict) -> list[JobFailure]:
    """The jobs of one group's run (`summary`, as ``Drive.run`` gives it) that ended in error, in
    the group's order: each job of ``each_job`` with its own error, or the lone job."""
    jobs = summary.get("each_job") or [summary]
    return [failure for failure in map(job_failure, jobs) if failure is not None]


def error_number(figures: dict) -> int:
    """fio's ``"error"`` of one entry of its JSON output: a job's (`figures`: a lone job's
    summary or an entry of ``each_job``), or a group reported as one (`figures`: the group's
    summary; its first failed job's number), 0 when none."""
    found = failures(figures)
    return found[0].errno if found else 0
