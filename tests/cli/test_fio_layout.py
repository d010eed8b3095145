"""Reads of never-written space warn; fio's layout makes them touch NAND; a bare run writes."""

import json

from fio_helpers import small_args, ssdlab

READ = ["--rw=randread", "--bs=4k", "--iodepth=4", "--size=64m", "--number_ios=2000"]


def test_reads_of_a_fresh_drive_warn_once_and_touch_no_nand():
    r = ssdlab("run", *small_args(), *READ, "--quiet", "--json", "-")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    warnings = [line for line in r.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "never written" in warnings[0] and "without touching NAND" in warnings[0], r.stderr
    assert doc["nand_page_reads"] == 0 and doc["unmapped_read_bytes"] == doc["host_read_bytes"] > 0


def test_layout_precondition_makes_the_reads_touch_nand():
    r = ssdlab("run", *small_args(), "--precondition", "layout", *READ, "--quiet", "--json", "-")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert "warning" not in r.stderr, r.stderr
    assert doc["unmapped_read_bytes"] == 0 and doc["nand_page_reads"] > 0
    assert doc["preconditions"][0]["bytes_written"] == 64 * 1024 * 1024


def test_pre_read_and_fill_device_are_accepted(tmp_path):
    job = tmp_path / "fill.fio"
    job.write_text("[fill]\nrw=write\nbs=1m\niodepth=8\nfill_device=1\n[read]\nstonewall\nrw=read\nbs=128k\nsize=64m\npre_read=1\n")
    r = ssdlab("run", *small_args(), str(job), "--quiet", "--json", "-")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    fill, read = doc["jobs"]
    usable = doc["profile"]["usable_bytes"]
    # Every whole 1 MiB block up to the device's end: no partial last block, as fio, whose
    # fill on a device stops where the next block no longer fits (io_u_fits).
    assert fill["host_write_bytes"] == usable // (1 << 20) * (1 << 20)
    assert read["unmapped_read_bytes"] == 0 and read["nand_page_reads"] > 0 and "warning" not in r.stderr


def test_bare_run_writes_instead_of_reading_an_empty_drive():
    r = ssdlab("run", *small_args())
    assert r.returncode == 0, r.stderr
    assert "no job given: running --rw=randwrite --bs=4k --iodepth=32 --runtime=60 --time_based" in r.stdout
    assert "warning" not in r.stderr


def test_layout_writes_a_span_that_is_no_multiple_of_its_block_whole():
    # A job issues no partial block (as fio); the layout writes the span's tail as a command of
    # its own, so a sequential read of 1000 KiB finds every byte written.
    read = ["--rw=read", "--bs=8k", "--size=1000k"]
    r = ssdlab("run", *small_args(), "--precondition", "layout", *read, "--quiet", "--json", "-")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert "warning" not in r.stderr, r.stderr
    assert doc["preconditions"][0]["bytes_written"] == 1000 * 1024
    assert doc["unmapped_read_bytes"] == 0 and doc["host_read_bytes"] == 1000 * 1024
