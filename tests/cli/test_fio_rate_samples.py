"""fio's bandwidth and IOPS samples in its JSON (``bw_min``, ``bw_max``, ``bw_agg``,
``bw_mean``, ``bw_dev``, ``bw_samples`` and the ``iops_*`` twins): tools that label results
with ``bw_mean``/``iops_stddev`` failed on ssdlab's JSON, which had none. Counts are fio 3.33's
on the same jobs (``ioengine=null``): a 2 s time-based job gives 3 samples of 500 ms (fio does
not sample the window its runtime ends on), 9 for 5 s; ``iopsavgtime=250`` gives 7 in 2 s."""

import json

import pytest
from fio_helpers import small_args, ssdlab

#: The keys of a direction of fio 3.33's JSON job entry, in its order.
FIO_DIRECTION_KEYS = [
    "io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "runtime", "total_ios", "short_ios", "drop_ios",
    "slat_ns", "clat_ns", "lat_ns",
    "bw_min", "bw_max", "bw_agg", "bw_mean", "bw_dev", "bw_samples",
    "iops_min", "iops_max", "iops_mean", "iops_stddev", "iops_samples",
]  # fmt: skip


def run_json(*options: str, cwd=None) -> list[dict]:
    done = ssdlab("run", *small_args(), "--bs=4k", "--output-format=json", *options, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["jobs"]


@pytest.mark.parametrize(("runtime", "samples"), [("2", 3), ("5", 9)])
def test_a_time_based_job_has_one_sample_per_whole_window_but_its_last(runtime, samples):
    (entry,) = run_json("--rw=randwrite", "--size=64m", "--time_based", f"--runtime={runtime}")
    write = entry["write"]
    assert list(write) == FIO_DIRECTION_KEYS
    assert (write["bw_samples"], write["iops_samples"]) == (samples, samples), write
    assert write["bw_min"] <= write["bw_mean"] <= write["bw_max"]
    assert write["iops_min"] <= write["iops_mean"] <= write["iops_max"]
    # The samples' mean is the job's rate over its windows: near its rate over the whole run.
    assert write["bw_mean"] == pytest.approx(write["bw"], rel=0.05), write
    assert write["iops_mean"] == pytest.approx(write["iops"], rel=0.05), write
    assert write["bw_dev"] >= 0 and write["iops_stddev"] >= 0
    assert write["bw_agg"] == pytest.approx(100.0, abs=5.0), write
    # A direction that moved nothing has no samples, as fio's.
    for kind in ("read", "trim"):
        assert [entry[kind][k] for k in ("bw_samples", "bw_min", "bw_mean", "bw_agg", "iops_samples", "iops_max")] == [0, 0, 0.0, 0.0, 0, 0]


def test_bwavgtime_and_iopsavgtime_set_the_windows(tmp_path):
    (entry,) = run_json("--rw=randwrite", "--size=64m", "--time_based", "--runtime=2", "--bwavgtime=100", "--iopsavgtime=250")
    write = entry["write"]
    assert (write["bw_samples"], write["iops_samples"]) == (19, 7), write
    # A bandwidth log without bwavgtime samples at its own log_avg_msec, as fio's.
    (logged,) = run_json("--rw=randwrite", "--size=64m", "--time_based", "--runtime=2", "--write_bw_log=x", "--log_avg_msec=200", cwd=tmp_path)
    assert logged["write"]["bw_samples"] == 9 and logged["write"]["iops_samples"] == 3, logged["write"]


def test_a_groups_samples_add_its_jobs_up_and_bw_agg_is_each_jobs_share():
    common = ["--rw=randwrite", "--size=64m", "--time_based", "--runtime=2", "--numjobs=2"]
    apart = run_json(*common)
    (group,) = run_json(*common, "--group_reporting")
    assert len(apart) == 2
    # fio adds a group's jobs' rates (its `sum_stat` with pure_sum): means and extremes summed.
    assert group["write"]["bw_samples"] == sum(job["write"]["bw_samples"] for job in apart) == 6
    assert group["write"]["bw_mean"] == pytest.approx(sum(job["write"]["bw_mean"] for job in apart), rel=1e-9)
    assert group["write"]["bw_min"] == sum(job["write"]["bw_min"] for job in apart)
    assert group["write"]["bw_mean"] == pytest.approx(group["write"]["bw"], rel=0.05)
    # Each job's mean bandwidth as a share of the group's: two like jobs near half each.
    shares = [job["write"]["bw_agg"] for job in apart]
    assert sum(shares) == pytest.approx(100.0, abs=5.0) and all(40 < s < 60 for s in shares), shares
    assert group["write"]["bw_agg"] == pytest.approx(100.0, abs=5.0)


def test_the_mixed_entry_adds_the_directions_up():
    (entry,) = run_json("--rw=randrw", "--size=64m", "--time_based", "--runtime=2", "--unified_rw_reporting=both")
    read, write, mixed = entry["read"], entry["write"], entry["mixed"]
    assert read["bw_samples"] == write["bw_samples"] == 3
    assert mixed["bw_samples"] == 6
    assert mixed["iops_mean"] == pytest.approx(read["iops_mean"] + write["iops_mean"], rel=1e-9)


def test_a_job_shorter_than_a_window_has_no_samples():
    # fio samples only whole windows: 1 MiB at QD1 is over long before 500 ms.
    (entry,) = run_json("--rw=write", "--size=1m")
    assert entry["write"]["total_ios"] == 256 and entry["write"]["bw_samples"] == 0 and entry["write"]["bw_mean"] == 0.0


def test_windows_count_from_the_ramps_end_and_each_jobs_start():
    # fio 3.33 (null engine, rate_iops=1000): ramp_time=1 runtime=2 gives 3 samples; two jobs
    # delayed by startdelay=1, reported as one, give 6 and a least bandwidth of 2 x 4,000 KiB/s.
    paced = ["--rw=randwrite", "--size=64m", "--time_based", "--runtime=2", "--rate_iops=1000"]
    (ramped,) = run_json(*paced, "--ramp_time=1")
    assert (ramped["write"]["bw_samples"], ramped["write"]["bw_min"], ramped["write"]["bw_max"]) == (3, 4000, 4000), ramped["write"]
    (group,) = run_json(*paced, "--numjobs=2", "--startdelay=1", "--group_reporting")
    assert (group["write"]["bw_samples"], group["write"]["bw_min"], group["write"]["iops_min"]) == (6, 8000, 2000), group["write"]


def test_the_mixed_entry_of_both_is_a_share_of_the_groups_reads():
    # fio 3.33 divides `both`'s mixed bandwidth by the group's read bandwidth: with reads a
    # fifth of the commands, each job's mixed share is 100 while its reads and writes are half.
    jobs = run_json("--rw=randrw", "--rwmixread=20", "--size=64m", "--time_based", "--runtime=2", "--numjobs=2", "--unified_rw_reporting=both")
    for job in jobs:
        assert job["mixed"]["bw_agg"] == 100.0, job["mixed"]
        assert 40 < job["read"]["bw_agg"] < 60 and 40 < job["write"]["bw_agg"] < 60, (job["read"]["bw_agg"], job["write"]["bw_agg"])
