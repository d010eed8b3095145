"""The Drive API: runs, series, determinism, preconditions."""

import pandas as pd
import pytest

from ssdlab import ConfigError, Drive, WorkloadError


def test_run_reports_the_documented_keys(small_overrides):
    drive = Drive(overrides=small_overrides, seed=5)
    drive.precondition("seq-fill")
    result = drive.run(["rw=randwrite", "bs=4k", "iodepth=32", "runtime=3", "time_based"])
    s = result.summary
    for key in ("write_amplification", "iops", "read_mbps", "write_mbps", "host_write_bytes", "nand_write_bytes", "simulated_seconds", "wall_seconds", "seed"):
        assert key in s
    assert set(s["latency_us"]) >= {"p50", "p99", "p999", "max"}
    assert s["simulated_seconds"] == pytest.approx(3.0, abs=0.05)
    assert s["nand_write_bytes"] >= s["host_write_bytes"] * 0.99
    assert isinstance(result.series, pd.DataFrame)
    assert list(result.series["second"]) == list(range(len(result.series)))
    assert len(result.series) == 3  # the drain after the runtime is in the summary, not the series
    assert (result.series["span_seconds"] == 1.0).all()
    in_series = (result.series["iops"] * result.series["span_seconds"]).sum()
    assert s["ios"] - 32 <= in_series <= s["ios"]


def test_same_seed_same_results_different_seed_differs(small_overrides):
    def once(seed):
        drive = Drive(overrides=small_overrides, seed=seed)
        drive.precondition("seq-fill")
        s = drive.run(["rw=randrw", "bs=4k", "iodepth=8", "number_ios=20000"]).summary
        s.pop("wall_seconds")
        return s

    assert once(3) == once(3)
    assert once(3) != once(4)


def test_random_writes_after_fill_amplify_and_trim_restores(small_overrides):
    drive = Drive(overrides=small_overrides, seed=2)
    drive.precondition("seq-fill")
    tortured = drive.run(["rw=randwrite", "bs=4k", "iodepth=32", f"io_size={2 * drive.info['usable_bytes']}"])
    assert tortured.write_amplification > 2.0
    drive.precondition("trim-all")
    assert drive.state()["valid_sectors"] == 0
    clean = drive.run(["rw=write", "bs=128k", "iodepth=32", "size=256m"])
    # After a full TRIM sequential writes need almost no garbage collection.
    assert clean.write_amplification < 1.05


def test_reserved_user_space_is_extra_spare(small_overrides):
    base = Drive(overrides=small_overrides)
    extra = Drive(overrides=small_overrides + ["drive.reserved_user_fraction=0.25"])
    assert extra.info["usable_bytes"] < base.info["usable_bytes"]
    assert extra.info["spare_over_user"] > base.info["spare_over_user"] + 0.3
    assert extra.info["spare_over_raw"] > base.info["spare_over_raw"]


def test_bad_profile_and_bad_job_raise_typed_errors(small_overrides):
    with pytest.raises(ConfigError, match="planes_per_die"):
        Drive(overrides=small_overrides + ["nand.planes_per_die=0"])
    drive = Drive(overrides=small_overrides)
    with pytest.raises(WorkloadError, match="unknown fio option `frobnicate`"):
        drive.run(["rw=write", "frobnicate=1"])
    with pytest.raises(WorkloadError, match="beyond the usable capacity"):
        drive.run(["rw=write", "size=100g"])


def test_progress_is_reported(small_overrides):
    drive = Drive(overrides=small_overrides)
    seen = []
    drive.run(["rw=write", "bs=128k", "iodepth=32"], progress=lambda job, f, sim, n: seen.append((f, sim)))
    assert seen and seen[-1][0] == 1.0
    assert all(b[1] >= a[1] for a, b in zip(seen, seen[1:], strict=False))


def test_large_random_writes_in_steady_state_move_as_much_data_as_small_ones():
    # Regression: GC programs waited for the GC reads of every die booked before them in the
    # same command, so once a command put two program units on a die (above 512 KiB on this
    # 32-die layout) GC ran die after die and 1 MiB random writes fell to a tenth of the data
    # rate of 4 KiB ones at the same write amplification.
    from ssdlab import Drive

    raw = 32 * 2 * 64 * 256 * 8192
    drive = Drive("conventional-240", ["nand.blocks_per_plane=64", f"drive.capacity_bytes_user={raw * 88 // 100 // 4096 * 4096}"])
    drive.run(["rw=write", "bs=128k", "iodepth=32"])
    drive.run(["rw=randwrite", "bs=4k", "iodepth=32", f"io_size={2 * drive.info['capacity_bytes_user']}"])
    rates = {}
    for bs in ("4k", "1m"):
        s = drive.run(["rw=randwrite", f"bs={bs}", "iodepth=32", "runtime=20", "time_based"]).summary
        rates[bs] = (s["write_mbps"], s["write_amplification"])
    (small, wa_small), (large, wa_large) = rates["4k"], rates["1m"]
    assert abs(wa_large - wa_small) / wa_small < 0.1, rates
    assert abs(large - small) / small < 0.15, rates
