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
