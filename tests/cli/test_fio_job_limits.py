"""fio's limits that end a job in error, through the real CLI: ``max_latency`` (fio's error 110,
ETIMEDOUT), ``rate_min``/``rate_iops_min`` (error 5, EIO) and ``exitall_on_error``. ssdlab
says so in the text, the ``--json`` summary and fio's JSON ``"error"``, then exits 1 with a line
on standard error, as fio's main does when a job's error is set."""

import json

from fio_helpers import small_args, ssdlab


def test_max_latency_ends_a_queued_read_job_with_fios_etimedout(tmp_path):
    args = ["run", "--rw=randread", "--bs=4k", "--size=256m", "--iodepth=32", "--runtime=5", "--time_based", "--precondition", "seq-fill", *small_args()]
    r = ssdlab(*args, "--max_latency=300us", "--output-format=json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    job = json.loads(r.stdout)["jobs"][0]
    # At QD32 a read waits behind others for more than 300 us within the first 32 reads; the job
    # ends there and the reads in flight complete.
    assert job["error"] == 110 and job["read"]["total_ios"] < 100, (job["error"], job["read"]["total_ios"])
    r = ssdlab(*args, "--max_latency=300us", cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("ssdlab: job cli ended in error 110 (ETIMEDOUT): fio: latency of "), r.stderr
    assert "ENDED IN ERROR" in r.stdout and "(ETIMEDOUT): fio: latency of " in r.stdout and "exceeds specified max (300000 nsec)" in r.stdout, r.stdout
    # A limit for writes only (fio's READ,WRITE values) leaves a read job alone.
    r = ssdlab(*args, "--max_latency=1s,300us", "--quiet", "--json", "-", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert "job_error" not in doc and doc["simulated_seconds"] >= 5.0, doc.get("job_error")


def test_a_minimum_rate_the_drive_cannot_reach_ends_the_job_with_eio_and_exitall_on_error_ends_its_group(tmp_path):
    job_file = tmp_path / "slo.fio"
    job_file.write_text("[global]\nrw=randread\nbs=4k\nsize=256m\nruntime=10\ntime_based\niodepth=1\n[slo]\nrate_iops_min=1000000\n[reader]\n")
    base = ["run", str(job_file), "--precondition", "seq-fill", *small_args()]
    r = ssdlab(*base, "--quiet", "--json", "-", cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("ssdlab: job slo ended in error 5 (EIO): slo: rate_iops_min=1000000 not met, got "), r.stderr
    doc = json.loads(r.stdout)
    error = doc["job_error"]
    # The baseline is taken 2 s in; the first 1 s cycle after it ends the job.
    assert (error["job"], error["errno"]) == ("slo", 5) and 3.0 <= error["at_seconds"] < 3.01, error
    assert error["message"].startswith("slo: rate_iops_min=1000000 not met, got "), error
    assert doc["simulated_seconds"] >= 10.0, "the other job of the group reads on"
    r = ssdlab(*base, "--exitall_on_error", "--quiet", "--json", "-", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert json.loads(r.stdout)["simulated_seconds"] < 3.01, "exitall_on_error ends the group with it"
    r = ssdlab(*base, "--continue_on_error=all", cwd=tmp_path)
    assert r.returncode == 2 and "continue_on_error with max_latency, rate_min" in r.stderr, r.stderr


def test_fsync_sends_the_drive_flushes_and_fios_json_gives_their_latency(tmp_path):
    args = ["run", "--rw=randwrite", "--bs=4k", "--size=64m", "--iodepth=1", "--number_ios=500", *small_args()]
    r = ssdlab(*args, "--fsync=1", "--output-format=json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    job = json.loads(r.stdout)["jobs"][0]
    sync = job["sync"]
    # fio issues no fsync after the job's last write: 499 for 500 writes.
    assert sync["total_ios"] == 499 and sync["lat_ns"]["N"] == 499 and sync["lat_ns"]["mean"] > 0, sync
    r = ssdlab(*args, "--fsync=1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "flushes (fsync): 499, latency us: mean " in r.stdout, r.stdout
    # Without flushes fio's sync entry is empty.
    r = ssdlab(*args, "--output-format=json", cwd=tmp_path)
    assert json.loads(r.stdout)["jobs"][0]["sync"]["total_ios"] == 0
