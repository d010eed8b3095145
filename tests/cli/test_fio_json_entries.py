"""fio's JSON entries where a probe of published job files found ssdlab's shape apart from fio
3.33's (``ioengine=null``): a direction without commands still has its latency entries, all
zeros, and a runtime of 0 (a tool reading ``jobs[0]["read"]["lat_ns"]["mean"]`` of a
write-only job failed on ssdlab's); a group reported as one (``group_reporting``) has as its
``job_runtime`` the sum of its jobs' run times (fio: 16 jobs of about 1 s give 16,111)."""

import json

from fio_helpers import small_args, ssdlab

ZERO = {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}


def run_json(*options: str) -> dict:
    done = ssdlab("run", *small_args(), "--bs=4k", "--output-format=json", *options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_direction_without_commands_has_zero_latencies_and_no_runtime():
    (entry,) = run_json("--rw=randwrite", "--size=4m")["jobs"]
    for kind in ("read", "trim"):
        assert entry[kind]["total_ios"] == 0
        assert entry[kind]["runtime"] == 0, entry[kind]
        for lat in ("slat_ns", "clat_ns", "lat_ns"):
            assert entry[kind][lat] == ZERO, (kind, lat, entry[kind])
    assert entry["write"]["clat_ns"]["N"] == 1024 and entry["write"]["runtime"] > 0


def test_group_reporting_job_runtime_is_the_sum_of_its_jobs():
    common = ["--rw=randwrite", "--size=4m", "--numjobs=3"]
    apart = run_json(*common)["jobs"]
    (group,) = run_json(*common, "--group_reporting")["jobs"]
    assert len(apart) == 3
    assert group["job_runtime"] == sum(job["job_runtime"] for job in apart), (group["job_runtime"], [j["job_runtime"] for j in apart])
    assert group["job_runtime"] > 2 * group["write"]["runtime"], group["job_runtime"]


def test_each_job_of_a_group_has_its_own_sync_entry(tmp_path):
    # fio's per-job entries each carry the job's own flushes (a ZFS-style fsync job beside
    # another); ssdlab's had no `sync` entry in a group's per-job entries.
    job = tmp_path / "sync.fio"
    job.write_text("[global]\nsize=16m\nbs=4k\nrw=randwrite\n[a]\nnumber_ios=400\nfsync=4\n[b]\nnumber_ios=300\nfsync=10\n[c]\nnumber_ios=100\n")
    done = ssdlab("run", *small_args(), str(job), "--output-format=json")
    assert done.returncode == 0, done.stderr
    a, b, c = json.loads(done.stdout)["jobs"]
    assert [e["sync"]["total_ios"] for e in (a, b, c)] == [99, 29, 0], [e.get("sync") for e in (a, b, c)]
    assert a["sync"]["lat_ns"]["N"] == 99 and a["sync"]["lat_ns"]["mean"] > 0 and c["sync"]["lat_ns"] == ZERO


def test_a_lone_jobs_trims_have_their_latency():
    # The summary of a job run alone had no trim latency, so fio's JSON gave 500 trims a
    # clat_ns of N 0 (fio: every trim's latency).
    (entry,) = run_json("--rw=randtrim", "--size=4m", "--number_ios=500")["jobs"]
    clat = entry["trim"]["clat_ns"]
    assert entry["trim"]["total_ios"] == clat["N"] == 500, clat
    assert 0 < clat["min"] <= clat["mean"] <= clat["max"] and clat["percentile"], clat
