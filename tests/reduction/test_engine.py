"""The data-reduction engine from Python and the command line."""

import json
import subprocess
import sys

import pytest

from small_drive import SMALL
from ssdlab import ConfigError, Drive, WorkloadError


def test_compressible_data_is_reduced_and_reported(small_overrides):
    drive = Drive(overrides=small_overrides)
    assert drive.info["data_reduction"] is True
    result = drive.run(["rw=write", "bs=128k", "iodepth=32", "size=512m", "data_pattern=repeating"])
    s = result.summary
    assert s["write_amplification"] < 0.2
    red = s["reduction"]
    assert red["data_reduction_ratio"] > 5
    assert red["bytes_after_compression"] < red["bytes_after_dedup"] / 20
    assert s["data_pattern"] == "repeating"


def test_fio_compress_and_dedupe_percentages(small_overrides):
    drive = Drive(overrides=small_overrides)
    s = drive.run(["rw=write", "bs=128k", "iodepth=32", "size=512m", "buffer_compress_percentage=50", "dedupe_percentage=30"]).summary
    red = s["reduction"]
    assert 0.25 < red["dedup_hit_rate"] < 0.35
    ratio = red["bytes_after_dedup"] / red["bytes_after_compression"]
    assert 1.6 < ratio < 2.2, ratio


def test_real_bytes_read_back_and_trim_reads_zero(small_overrides):
    drive = Drive(overrides=small_overrides, content="real")
    drive.run(["rw=write", "bs=64k", "iodepth=4", "size=8m", "data_pattern=text"])
    data = drive.read_sector(10)
    assert len(data) == 4096 and any(data)
    assert b" " in data  # text-like
    drive.run(["rw=trim", "bs=4k", "offset=40960", "size=4k", "iodepth=1"])
    assert drive.read_sector(10) == bytes(4096)
    assert drive.read_sector(11) != bytes(4096)


def test_bad_engine_inputs_raise(small_overrides):
    drive = Drive(overrides=small_overrides)
    with pytest.raises(WorkloadError, match="unknown pattern `sparkly`"):
        drive.run(["rw=write", "data_pattern=sparkly"])
    with pytest.raises(WorkloadError, match="buffer_compress_percentage"):
        drive.run(["rw=write", "buffer_compress_percentage=101"])
    with pytest.raises(WorkloadError, match="dedupe_percentage"):
        drive.run(["rw=write", "dedupe_percentage=-5"])
    with pytest.raises(ConfigError, match="larger than a page"):
        Drive(overrides=small_overrides + ["reduction.ecc_unit_bytes=16384"])
    with pytest.raises(WorkloadError, match="content mode"):
        Drive(overrides=small_overrides, content="imaginary")


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--rw=write", "--data_pattern=sparkly"], "unknown pattern `sparkly`"),
        (["--rw=write", "--buffer_compress_percentage=150"], "must be 0 to 100"),
        (["--rw=write", "--dedupe_percentage=101"], "must be 0 to 100"),
        (["--set", "reduction.ecc_unit_bytes=16384", "--rw=write"], "larger than a page"),
    ],
)
def test_cli_engine_errors_exit_2(args, expected):
    r = subprocess.run([sys.executable, "-m", "ssdlab.cli", "run", *args], capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert expected in r.stderr and "Traceback" not in r.stderr


def test_cli_reports_reduction_in_json():
    args = []
    for item in SMALL:
        args += ["--set", item]
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab.cli", "run", *args, "--rw=write", "--bs=128k", "--size=256m", "--data_pattern=text", "--json", "-"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["profile"]["data_reduction"] is True
    assert 0.3 < doc["write_amplification"] < 0.9
    assert doc["reduction"]["data_reduction_ratio"] > 1.2
