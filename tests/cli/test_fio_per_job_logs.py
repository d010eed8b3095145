"""fio's ``per_job_logs=0``: every job's log rows of a prefix go in one file named without a
number (``PREFIX_lat.log``), as fio 3.33 names it, instead of a file per job (``.1.log``). A
probe of published latency job files found ssdlab writing ``PREFIX_lat.1.log`` there, where
the tools reading fio's logs look for ``PREFIX_lat.log``. ssdlab's rows are a group's (its jobs
summed), one group after the other in the shared file."""

import shutil
import subprocess

import pytest
from fio_helpers import small_args, ssdlab

JOB = """[global]
bs=64k
iodepth=4
write_lat_log=lj
write_bw_log=lj
log_avg_msec=10
per_job_logs=0
[w]
rw=write
size=16m
[r]
stonewall
rw=read
size=16m
"""


def log_names(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("lj_"))


def test_one_file_per_prefix_with_every_group_s_rows(tmp_path):
    job = tmp_path / "shared.fio"
    job.write_text(JOB)
    done = ssdlab("run", *small_args(), str(job), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert log_names(tmp_path) == ["lj_bw.log", "lj_clat.log", "lj_lat.log", "lj_slat.log"]
    rows = [line.split(", ") for line in (tmp_path / "lj_bw.log").read_text().splitlines()]
    directions = [row[2] for row in rows]
    # The writing group's rows (direction 1), then the reading group's (0).
    assert directions[0] == "1" and directions[-1] == "0", directions
    assert directions == sorted(directions, reverse=True), directions
    # Run again: the files are ssdlab's and are replaced, not appended to.
    again = ssdlab("run", *small_args(), str(job), "--quiet", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "lj_bw.log").read_text().splitlines() == [", ".join(r) for r in rows]


def test_the_default_is_a_file_per_group(tmp_path):
    job = tmp_path / "apart.fio"
    job.write_text(JOB.replace("per_job_logs=0", "per_job_logs=1"))
    done = ssdlab("run", *small_args(), str(job), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert log_names(tmp_path) == sorted(f"lj_{kind}.{n}.log" for kind in ("bw", "clat", "lat", "slat") for n in (1, 2))


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (apt-get install fio; .ci/run installs it)")
def test_the_names_are_fio_s(tmp_path):
    (tmp_path / "fio").mkdir()
    (tmp_path / "ssdlab").mkdir()
    job = tmp_path / "shared.fio"
    job.write_text(JOB.replace("[global]\n", "[global]\nioengine=null\n"))
    subprocess.run(["fio", str(job), "--output=/dev/null"], cwd=tmp_path / "fio", check=True, capture_output=True, timeout=120)
    done = ssdlab("run", *small_args(), str(job), "--quiet", cwd=tmp_path / "ssdlab")
    assert done.returncode == 0, done.stderr
    assert log_names(tmp_path / "ssdlab") == log_names(tmp_path / "fio")


def test_a_log_named_after_a_job_named_as_a_path_stays_in_the_current_folder(tmp_path):
    # fio's disk-zone-profile.fio names its job `[/dev/sdb]` and asks for `write_bw_log` without
    # a prefix: fio writes `/dev/sdb_bw.1.log` beside the device; ssdlab keeps it here.
    job = tmp_path / "device.fio"
    job.write_text("[under/a/folder]\nbs=64k\nrw=write\nsize=4m\nwrite_bw_log\n[w]\nrw=write\nsize=4m\nwrite_iops_log=given\n")
    done = ssdlab("run", *small_args(), str(job), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "under_a_folder_bw.1.log").is_file() and not (tmp_path / "under").exists()
    assert (tmp_path / "given_iops.1.log").is_file()
