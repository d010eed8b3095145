"""fio's queue-depth distribution in its JSON (``iodepth_level``: the share of a job's commands
sent at 1, 2-3, 4-7, ... 32-63, 64+ of its commands outstanding; ``iodepth_submit`` and
``iodepth_complete``), which ssdlab's JSON lacked. A QD32 job on a device gives fio's familiar
``1=0.1%, 2=0.1%, 4=0.1%, ... 32=99.x%``: its first 31 commands go out at depths 1 to 31, every
later one at 32 (over 4,096 commands: 0.1, 0.1, 0.1, 0.2, 0.4, 99.2)."""

import json

import pytest
from fio_helpers import small_args, ssdlab

#: fio 3.33's keys of the three entries, in its order.
DEPTH_KEYS = ["1", "2", "4", "8", "16", "32", ">=64"]
BATCH_KEYS = ["0", "4", "8", "16", "32", "64", ">=64"]


def run_json(*options: str) -> list[dict]:
    done = ssdlab("run", *small_args(), "--bs=4k", "--output-format=json", *options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["jobs"]


def test_a_qd32_job_sends_all_but_its_first_31_commands_at_depth_32():
    (entry,) = run_json("--rw=randwrite", "--size=16m", "--iodepth=32")
    keys = list(entry)
    # fio's order: after job_runtime (and fio's CPU figures), before the latency ranges.
    assert keys.index("job_runtime") < keys.index("iodepth_level") < keys.index("iodepth_submit") < keys.index("iodepth_complete") < keys.index("latency_ns")
    level = entry["iodepth_level"]
    assert list(level) == DEPTH_KEYS
    counts = entry["ssdlab"]["depth_levels"]["levels"]
    # 1 at depth 1, 2 at 2-3, 4 at 4-7, 8 at 8-15, 16 at 16-31, the rest at 32.
    assert counts == [1, 2, 4, 8, 16, 4096 - 31, 0], counts
    # Each a share of all 4096 commands; 1, 2 and 4 of them are under 0.1%, shown as fio's 0.1.
    assert [level[k] for k in DEPTH_KEYS] == pytest.approx([0.1, 0.1, 0.1, 8 / 40.96, 16 / 40.96, 4065 / 40.96, 0.0]), level
    for key in ("iodepth_submit", "iodepth_complete"):
        assert list(entry[key]) == BATCH_KEYS
        assert entry[key]["4"] == 100.0 and sum(entry[key].values()) == 100.0, entry[key]


def test_a_qd1_job_is_all_at_depth_1():
    (entry,) = run_json("--rw=randread", "--size=4m", "--iodepth=1", "--precondition=seq-fill")
    assert entry["iodepth_level"] == dict(zip(DEPTH_KEYS, [100.0, 0, 0, 0, 0, 0, 0], strict=True))


def test_commands_waiting_in_the_hosts_queue_count_as_outstanding():
    # The drive takes 32 commands (NCQ); a job at depth 64 keeps the other 32 in the host's
    # queue, and fio counts them in its depth: every command after the first 63 goes out at 64.
    (entry,) = run_json("--rw=randwrite", "--size=16m", "--iodepth=64")
    counts = entry["ssdlab"]["depth_levels"]["levels"]
    assert counts == [1, 2, 4, 8, 16, 32, 4096 - 63], counts
    assert entry["iodepth_level"][">=64"] > 98


def test_the_ramp_is_not_counted_and_a_group_adds_its_jobs_up():
    # After a ramp the job is at its depth: all of its counted commands went out at 32.
    (entry,) = run_json("--rw=randwrite", "--size=1g", "--iodepth=32", "--time_based", "--runtime=1", "--ramp_time=1")
    assert entry["iodepth_level"]["32"] == 100.0, entry["iodepth_level"]
    # Two jobs of depth 16 side by side: each job's own depth, not the group's 32.
    jobs = run_json("--rw=randwrite", "--size=8m", "--iodepth=16", "--numjobs=2")
    assert len(jobs) == 2
    for job in jobs:
        counts = job["ssdlab"]["depth_levels"]["levels"]
        assert counts[:4] == [1, 2, 4, 8] and counts[4] == 2048 - 15 and sum(counts[5:]) == 0, counts
    (group,) = run_json("--rw=randwrite", "--size=8m", "--iodepth=16", "--numjobs=2", "--group_reporting")
    assert group["ssdlab"]["depth_levels"]["levels"] == [2, 4, 8, 16, 2 * (2048 - 15), 0, 0]
