"""fio's own command-line options (not job options) on ``ssdlab run``: each refused with its
reason in one line, or accepted and listed as changing nothing; never called an unknown fio
option (which says the name is a typo), and a job file after a flag such as ``--minimal`` is
still the job file (fio's terse output options, which ssdlab writes now, are in
``test_fio_terse.py``). Found by a probe of published job files run as their authors run them
(``fio --minimal job.fio``)."""

import pytest
from fio_helpers import small_args, ssdlab

JOB = ["--rw=write", "--bs=64k", "--size=1m"]


@pytest.mark.parametrize(
    "option, reason",
    [
        ("--bandwidth-log", "write_bw_log"),
        ("--parse-only", "always runs"),
        ("--showcmd", "always runs"),
        ("--readonly", "refuses jobs that write"),
        ("--warnings-fatal", "warnings"),
        ("--idle-prof=system", "idleness"),
    ],
)
def test_refused_with_the_reason_in_one_line(option, reason):
    done = ssdlab("run", *small_args(), *JOB, option)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    name = option.split("=")[0]
    assert name in lines[0] and reason in lines[0] and "unknown" not in lines[0], lines[0]


def test_a_job_file_after_a_flag_is_the_job_file(tmp_path):
    # `fio --minimal job.fio`: the job file is not --minimal's value (its terse line is printed).
    job = tmp_path / "seq.fio"
    job.write_text("[w]\nrw=write\nbs=64k\nsize=1m\n")
    done = ssdlab("run", *small_args(), "--minimal", str(job))
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    assert line.split(";")[:5] == ["3", line.split(";")[1], "w", "0", "0"] and line.split(";")[46] == "1024", line


def test_options_of_fio_s_own_workings_change_nothing(tmp_path):
    job = tmp_path / "seq.fio"
    job.write_text("[w]\nrw=write\nbs=64k\nsize=1m\n")
    # `--max-jobs 4`: the word after it is its value, the job file comes after.
    done = ssdlab("run", *small_args(), "--max-jobs", "4", "--debug=io", "--alloc-size=1024", str(job))
    assert done.returncode == 0, done.stderr
    listed = next(line for line in done.stdout.splitlines() if line.startswith("accepted without effect"))
    assert {"max-jobs", "debug", "alloc-size"} <= set(listed.split(": ", 1)[1].split(", ")), listed
    assert "16 writes" in done.stdout, done.stdout
