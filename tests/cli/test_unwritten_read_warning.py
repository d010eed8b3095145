"""The warning about reads of sectors nobody wrote (a new user's probe, 2026-12): it said "0.000 GB
of the 0.000 GB read (100%)" for a small read, and would have for nothing read at all."""

import json
import subprocess
import sys

from ssdlab import fio


def test_the_warning_gives_sizes_in_the_unit_they_reach():
    assert fio.unwritten_read_warning([{"unmapped_read_bytes": 8192, "host_read_bytes": 8192}]).startswith(
        "8.19 kB of the 8.19 kB read (100%) were never written"
    )
    line = fio.unwritten_read_warning([{"unmapped_read_bytes": 4096, "host_read_bytes": 2 * 10**9}])
    assert line.startswith("4.10 kB of the 2.00 GB read (under 1%)"), line
    assert fio.unwritten_read_warning([{"unmapped_read_bytes": 3 * 10**9, "host_read_bytes": 4 * 10**9}]).startswith("3.00 GB of the 4.00 GB read (75%)")


def test_no_warning_for_nothing_read():
    assert fio.unwritten_read_warning([{"unmapped_read_bytes": 0, "host_read_bytes": 0}]) is None
    assert fio.unwritten_read_warning([{"unmapped_read_bytes": 4096, "host_read_bytes": 0}]) is None
    assert fio.unwritten_read_warning([]) is None


def test_a_small_read_of_a_new_drive_says_its_size():
    r = subprocess.run([sys.executable, "-m", "ssdlab.cli", "run", "--rw=randread", "--bs=4k", "--size=8k"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "0.000 GB" not in r.stderr and "8.19 kB of the 8.19 kB read (100%) were never written" in r.stderr, r.stderr


def test_misaligned_reads_count_their_own_bytes_of_unwritten_sectors(tmp_path):
    # Regression (a trace probe, 2026-12-07): the unwritten bytes were the read bytes times the
    # share of unmapped 4 KiB sectors touched, so a read of 4 KiB at offset 1 KiB (two sectors)
    # beside a read of written data counted 5,461 B where 4,096 B were never written.
    trace = tmp_path / "x.csv"
    trace.write_text("1,h,1,Read,1024,4096,1\n2,h,1,Write,65536,4096,1\n3,h,1,Read,65536,4096,1\n4,h,1,Read,130048,1024,1\n")
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab.cli", "trace", "replay", str(trace), "--json", "-"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    summary = summary.get("summary", summary)
    # 4,096 B at 1 KiB (two unwritten sectors), none of the written 64 KiB, 1,024 B at 127 KiB.
    assert summary["unmapped_read_bytes"] == 4096 + 1024, summary
