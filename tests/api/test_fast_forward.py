"""Fast-forwarded preconditioning (issue 23) against timed preconditioning, through the Python
API and the command line: the same drive state, the same measured job after it."""

import json
import subprocess
import sys

import pytest

from ssdlab import Drive, WorkloadError

MEASURED = ["rw=randwrite", "bs=4k", "iodepth=32", "number_ios=60000"]

# The Samsung 980 (DRAM-less with HMB, SLC cache, power states, heat) shrunk to 64 blocks of 48
# pages per plane (1.5 GiB raw, 3072/2097024 of the drive): capacity, SLC cache and map caches
# in that ratio.
_RATIO = 64 * 48 / (5461 * 384)
TODAY_SMALL = [
    "nand.blocks_per_plane=64",
    "nand.pages_per_block=48",
    f"drive.capacity_bytes_user={int(1_000_204_886_016 * _RATIO) // 4096 * 4096}",
    f"slc_cache.static_bytes={int(6_000_000_000 * _RATIO)}",
    f"slc_cache.dynamic_max_bytes={int(154_000_000_000 * _RATIO)}",
    "controller.map_cache_bytes=16384",
    f"controller.hmb_bytes={int(67_108_864 * _RATIO) // 16384 * 16384}",
]


def _state_without_clock(drive):
    """The drive's state less what follows the clock (the time, when the flash is next idle,
    the base power's energy over it, the temperatures: compared apart)."""
    state = drive.state()
    for key in ("now_seconds", "flash_idle_seconds", "state_energy_joules", "thermal"):
        state.pop(key, None)
    return state


@pytest.mark.parametrize("profile", ["force-gs-240", "conventional-240", "samsung-980-1tb"])
def test_fast_and_timed_preconditioning_leave_the_same_drive(profile, small_overrides):
    overrides = TODAY_SMALL if profile.startswith("samsung-980") else small_overrides
    drives = {timing: Drive(profile, overrides, seed=7, precondition_timing=timing) for timing in ("fast", "full")}
    records = {}
    for timing, drive in drives.items():
        records[timing] = [drive.precondition(step) for step in ("secure-erase", "seq-fill", "rand-fill")]
    assert _state_without_clock(drives["fast"]) == _state_without_clock(drives["full"])
    # The same heat over about the same time (the fast-forward's is a lower bound).
    heat = {timing: drive.state().get("thermal") for timing, drive in drives.items()}
    if heat["full"]:
        for node in ("controller_c", "nand_c"):
            assert heat["fast"][node] == pytest.approx(heat["full"][node], abs=1.0), heat
        assert heat["fast"]["throttle_step"] == heat["full"]["throttle_step"] == 0
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
