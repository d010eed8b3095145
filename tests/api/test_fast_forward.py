"""Fast-forwarded preconditioning (issue 23) against timed preconditioning, through the Python
API and the command line: the same drive state, the same measured job after it."""

import json
import subprocess
import sys

import pytest

from ssdlab import Drive, WorkloadError

MEASURED = ["rw=randwrite", "bs=4k", "iodepth=32", "number_ios=60000"]


def _state_without_clock(drive):
    state = drive.state()
    state.pop("now_seconds")
    return state


@pytest.mark.parametrize("profile", ["force-gs-240", "conventional-240"])
def test_fast_and_timed_preconditioning_leave_the_same_drive(profile, small_overrides):
    drives = {timing: Drive(profile, small_overrides, seed=7, precondition_timing=timing) for timing in ("fast", "full")}
    records = {}
    for timing, drive in drives.items():
        records[timing] = [drive.precondition(step) for step in ("secure-erase", "seq-fill", "rand-fill")]
    assert _state_without_clock(drives["fast"]) == _state_without_clock(drives["full"])
    for fast, full in zip(records["fast"][1:], records["full"][1:], strict=True):
        assert fast["write_amplification"] == full["write_amplification"]
        assert fast["seed"] == full["seed"]
        assert (fast["timing"], full["timing"]) == ("fast", "full")
        # The fast-forward's clock is a lower bound of the timed step's.
        assert 0 < fast["simulated_seconds"] <= full["simulated_seconds"]
    fast = drives["fast"].run(MEASURED).summary
    full = drives["full"].run(MEASURED).summary
    for key in ("iops", "write_amplification", "write_mbps"):
        assert fast[key] == pytest.approx(full[key], rel=0.01), key
    for key in ("p50", "p99", "p999"):
        assert fast["latency_us"][key] == pytest.approx(full["latency_us"][key], rel=0.01), key


def test_a_time_based_job_is_refused_naming_why(small_overrides):
    drive = Drive(overrides=small_overrides)
    with pytest.raises(WorkloadError, match="cannot be fast-forwarded: its length is a time"):
        drive.fast_forward(["rw=randwrite", "bs=4k", "runtime=5", "time_based"])
    with pytest.raises(WorkloadError, match="precondition timing must be one of fast, full"):
        Drive(overrides=small_overrides, precondition_timing="quick")


def test_the_command_line_records_how_each_step_ran(tmp_path, small_overrides):
    sets = [a for o in small_overrides for a in ("--set", o)]
    documents = {}
    for timing in ("fast", "full"):
        out = tmp_path / f"{timing}.json"
        r = subprocess.run(
            [sys.executable, "-m", "ssdlab.cli", "run", *sets, "--precondition", "seq-fill", "--precondition-timing", timing, "--json", str(out), "--quiet"]
            + ["--rw=randwrite", "--bs=4k", "--iodepth=32", "--number_ios=20000"],
            capture_output=True,
            text=True,
        )
        assert r.returncode == 0, r.stderr
        documents[timing] = json.loads(out.read_text())
    assert documents["fast"]["preconditions"][0]["timing"] == "fast"
    assert documents["full"]["preconditions"][0]["timing"] == "full"
    assert documents["fast"]["iops"] == pytest.approx(documents["full"]["iops"], rel=0.01)
    assert documents["fast"]["write_amplification"] == documents["full"]["write_amplification"]
