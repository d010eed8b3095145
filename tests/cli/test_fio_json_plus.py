"""fio's ``--output-format=json+``: fio's JSON with each latency's histogram in fio's own
buckets (``bins``: the bucket's value in ns -> commands), which fio's ``fio_jsonplus_clat2csv``
and plotting scripts read. Before, ssdlab refused it. The bucket values are checked against a
reimplementation of fio's ``plat_idx_to_val`` here and, where fio 3.33 is installed, against the
bins fio itself writes."""

import json
import shutil
import subprocess

import pytest
from fio_helpers import small_args, ssdlab

JOB = ["--rw=randrw", "--bs=4k", "--size=4m", "--iodepth=4", "--number_ios=3000", "--name=j"]


def fio_bucket_values() -> set[int]:
    """Every value fio names a latency bucket by (``plat_idx_to_val`` of its 1,856 buckets)."""
    values = set(range(128))
    for index in range(128, 29 * 64):
        error_bits = (index >> 6) - 1
        base = 1 << (error_bits + 6)
        values.add(base + int(((index % 64) + 0.5) * (1 << error_bits)))
    return values


def entry_of(*args) -> dict:
    done = ssdlab("run", *small_args(), *JOB, *args)
    assert done.returncode == 0, done.stderr
    (entry,) = json.loads(done.stdout)["jobs"]
    return entry


def test_bins_count_every_command_in_fios_buckets():
    entry = entry_of("--output-format=json+")
    buckets = fio_bucket_values()
    for kind in ("read", "write"):
        clat = entry[kind]["clat_ns"]
        assert list(clat) == ["min", "max", "mean", "stddev", "N", "percentile", "bins"], list(clat)
        bins = {int(value): n for value, n in clat["bins"].items()}
        assert sum(bins.values()) == clat["N"] == entry[kind]["total_ios"] > 0
        assert set(bins) <= buckets, sorted(set(bins) - buckets)[:5]
        assert list(bins) == sorted(bins)
        # The buckets hold the latencies: the smallest and largest within a bucket's width (1.6%).
        assert min(bins) >= clat["min"] * 0.98 and max(bins) <= clat["max"] * 1.02, (min(bins), clat["min"], max(bins), clat["max"])
        # lat_ns carries no percentiles by default, so no bins either (as fio's).
        assert "bins" not in entry[kind]["lat_ns"] and "percentile" not in entry[kind]["lat_ns"]
    # A direction without commands has none.
    assert "bins" not in entry["trim"]["clat_ns"]


def test_plain_json_has_no_bins_and_the_same_figures():
    plus = entry_of("--output-format=json+")
    plain = entry_of("--output-format=json")
    assert "bins" not in plain["write"]["clat_ns"]
    assert {k: v for k, v in plus["write"]["clat_ns"].items() if k != "bins"} == plain["write"]["clat_ns"]


def test_fios_own_bins_use_the_same_bucket_values(tmp_path):
    if not shutil.which("fio"):
        pytest.skip("fio is not installed")
    done = subprocess.run(
        ["fio", "--ioengine=null", "--output-format=json+", "--size=64m", "--bs=4k", "--rw=randread", "--runtime=1", "--time_based", "--name=j"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    clat = json.loads(done.stdout)["jobs"][0]["read"]["clat_ns"]
    assert list(clat) == ["min", "max", "mean", "stddev", "N", "percentile", "bins"], list(clat)
    bins = {int(value): n for value, n in clat["bins"].items()}
    assert set(bins) <= fio_bucket_values() and sum(bins.values()) == clat["N"]
