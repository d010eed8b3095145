"""Traces from the command line: stats of every format, replay end to end, generated workloads,
and bad input (exit status 2, one line, no traceback)."""

import gzip
import json
import subprocess
import sys

import pytest

from small_drive import small_args

SAMPLES = {
    "msr": "128166372003061629,hm,0,Read,4096,4096,1010\n128166372003071629,hm,0,Write,8192,16384,500\n128166372003081629,hm,0,Write,24576,4096,500\n",
    "blkparse": (
        "  8,0    0        1     0.000000000  4162  Q   R 8 + 8 [fio]\n"
        "  8,0    0        2     0.000100000  4162  Q   W 16 + 32 [fio]\n"
        "  8,0    0        3     0.000200000  4162  Q   W 48 + 8 [fio]\n"
        "CPU0 (8,0):\n Reads Queued: 1\n"
    ),
    "fio2": "fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x read 4096 4096\n/dev/x write 8192 16384\n/dev/x write 24576 4096\n/dev/x close\n",
    "fio3": "fio version 3 iolog\n0 /dev/x add\n1 /dev/x read 4096 4096\n2 /dev/x write 8192 16384\n3 /dev/x write 24576 4096\n",
    "spc": "0,8,4096,r,0.000\n0,16,16384,w,0.001\n0,48,4096,w,0.002\n",
    "disksim": "0.000 0 8 8 1\n1.000 0 16 32 0\n2.000 0 48 8 0\n",
}


def ssdlab(*args):
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True)


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_stats_of_every_format(tmp_path, fmt):
    path = tmp_path / f"t.{fmt}"
    path.write_text(SAMPLES[fmt])
    r = ssdlab("trace", "stats", str(path), "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["format"] == fmt and s["requests"] == 3
    assert s["ops"] == {"read": 1, "write": 2}
    assert s["bytes_written"] == 20480 and s["bytes_read"] == 4096
    assert s["sequential_share"] == pytest.approx(1 / 3)  # the second write follows the first


def test_gzip_and_named_format(tmp_path):
    path = tmp_path / "t.gz"
    path.write_bytes(gzip.compress(SAMPLES["disksim"].encode()))
    r = ssdlab("trace", "stats", str(path), "--format", "disksim", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["requests"] == 3


@pytest.mark.parametrize("fmt", ["disksim", "msr"])
def test_replay_end_to_end(tmp_path, fmt):
    path = tmp_path / f"t.{fmt}"
    path.write_text(SAMPLES[fmt])
    for mode in ("queue-depth", "timestamps"):
        r = ssdlab("trace", "replay", str(path), *small_args(), "--mode", mode, "--json", "-")
        assert r.returncode == 0, r.stderr
        s = json.loads(r.stdout)
        assert s["requests"] == 3 and s["reads"] == 1 and s["writes"] == 2 and s["mode"] == mode
    r = ssdlab("trace", "replay", str(path), *small_args())
    assert r.returncode == 0 and "average" in r.stdout


def test_generated_light_workload_and_its_replay(tmp_path):
    path = tmp_path / "light.csv.gz"
    r = ssdlab("trace", "generate", "light2011", "--out", str(path), "--seed", "3")
    assert r.returncode == 0, r.stderr
    s = json.loads(ssdlab("trace", "stats", str(path), "--json").stdout)
    assert s["ops"] == {"read": 372_630, "write": 459_709}
    assert s["mean_queue_depth"] == pytest.approx(2.2029, rel=0.02)
    assert s["sequential_share"] == pytest.approx(0.62, rel=0.02)
    r = ssdlab("trace", "replay", str(path), *small_args(), "--remap", "--json", "-")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["requests"] == 832_339 and out["remapped"] > 0
    assert out["busy_seconds"] <= out["simulated_seconds"] + 1e-9


@pytest.mark.parametrize(
    "text, args, expected",
    [
        ("0,8,4096,r,0.000\n0,xx,4096,w,0.001\n", [], ":2: LBA"),
        ("0.5 0 8 8 1\n0.1 0 9 8 1\n", [], ":2: timestamps go backwards"),
        ("", [], "empty"),
        ("what is this\n", [], "cannot tell the trace format"),
        ("0,8,4096,r,0.0\n", ["--format", "pcap"], "unknown trace format `pcap`"),
    ],
)
def test_bad_traces_exit_2_with_file_and_line(tmp_path, text, args, expected):
    path = tmp_path / "bad.trace"
    path.write_text(text)
    r = ssdlab("trace", "stats", str(path), *args)
    assert r.returncode == 2, r.stdout
    assert expected in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_skip_bad_counts_and_addresses_beyond_the_drive(tmp_path):
    path = tmp_path / "mixed.spc"
    path.write_text("0,8,4096,r,0.000\n0,xx,4096,w,0.001\n0,16,4096,w,0.002\n")
    s = json.loads(ssdlab("trace", "stats", str(path), "--skip-bad", "--json").stdout)
    assert s["requests"] == 2 and s["skipped_lines"] == 1
    far = tmp_path / "far.disksim"
    far.write_text("0.0 0 8 8 1\n1.0 0 900000000000 8 0\n")
    r = ssdlab("trace", "replay", str(far), *small_args())
    assert r.returncode == 2 and "beyond the drive" in r.stderr and "Traceback" not in r.stderr
    assert "replay with --remap" in r.stderr, r.stderr  # the message names the option
    r = ssdlab("trace", "replay", str(far), *small_args(), "--remap", "--json", "-")
    assert r.returncode == 0 and json.loads(r.stdout)["remapped"] == 1
    r = ssdlab("trace", "generate", "superheavy", "--out", str(tmp_path / "x.csv"))
    assert r.returncode == 2 and "unknown workload" in r.stderr


def test_variants_written_in_the_wild(tmp_path):
    # A header naming the columns, SPC's optional fields, blkparse's journal flushes (no sector):
    # each used to stop the trace at its first line.
    variants = {
        "hdr.csv": ("msr", "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n" + SAMPLES["msr"]),
        "extra.spc": ("spc", "0,8,4096,r,0.000,3\n0,16,16384,w,0.001,3\n0,48,4096,w,0.002,3\n"),
        "flush.blk": ("blkparse", SAMPLES["blkparse"].replace("CPU0", "  8,0    1       17     0.000300000   250  Q FWS [jbd2/sda1-8]\nCPU0")),
    }
    for name, (fmt, text) in variants.items():
        path = tmp_path / name
        path.write_text(text)
        r = ssdlab("trace", "stats", str(path), "--json")
        assert r.returncode == 0, (name, r.stderr)
        s = json.loads(r.stdout)
        assert (s["format"], s["requests"], s["ops"]) == (fmt, 3, {"read": 1, "write": 2}), name


def test_fio_v3_timestamps_are_microseconds(tmp_path):
    # fio writes v3 iolog timestamps in microseconds (they were read as milliseconds: 1000x slow).
    path = tmp_path / "t.log"
    path.write_text("fio version 3 iolog\n0 /dev/x add\n0 /dev/x open\n0 /dev/x write 0 4096\n2500 /dev/x write 4096 4096\n")
    s = json.loads(ssdlab("trace", "stats", str(path), "--json").stdout)
    assert s["duration_seconds"] == pytest.approx(0.0025)


def test_a_trace_of_several_devices_is_refused_not_overlaid_on_one_drive(tmp_path):
    # fio's iolog of two files (or blkparse of two disks): both wrote offset 0 of the one drive.
    path = tmp_path / "two.log"
    path.write_text("fio version 2 iolog\n/dev/sda add\n/dev/sdb add\n/dev/sda write 0 4096\n/dev/sdb write 0 4096\n")
    r = ssdlab("trace", "replay", str(path), *small_args())
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"{path}:5: a request for device `/dev/sdb`, where the requests before are for `/dev/sda`" in r.stderr
    s = json.loads(ssdlab("trace", "stats", str(path), "--skip-bad", "--json").stdout)
    assert s["requests"] == 1 and s["skipped_lines"] == 1


def test_a_trace_without_requests_is_refused_by_replay_as_by_stats(tmp_path):
    # `trace stats` refused it; `trace replay` printed "replayed 0 requests" and exit 0.
    path = tmp_path / "empty.log"
    path.write_text("fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x close\n")
    for command in (["stats", str(path)], ["replay", str(path), *small_args()]):
        r = ssdlab("trace", *command)
        assert r.returncode == 2 and r.stderr.strip() == f"ssdlab: error: {path}: the trace has no requests", r.stderr


def test_a_replay_of_reads_of_a_fresh_drive_warns_and_has_no_write_amplification(tmp_path):
    trace = tmp_path / "reads.csv"
    trace.write_text("128166372003061629,hm,0,Read,383496192,32768,1331\n128166372016853707,hm,0,Read,1048576,4096,26866\n")
    r = ssdlab("trace", "replay", str(trace), *small_args())
    assert r.returncode == 0, r.stderr
    assert "WA n/a (no writes)" in r.stdout and "WA 0.000" not in r.stdout, r.stdout
    assert "were never written" in r.stderr and "--precondition seq-fill" in r.stderr, r.stderr
    r = ssdlab("trace", "replay", str(trace), *small_args(), "--precondition", "seq-fill")
    assert r.returncode == 0 and "never written" not in r.stderr, r.stderr


def test_a_bad_line_of_a_replayed_trace_is_found_before_the_drive_is_built(tmp_path):
    # The trace is read through first: its bad line 3 is reported, not the drive's bad setting
    # (which building the drive would have found first), and no preconditioning runs before it.
    trace = tmp_path / "bad.csv"
    trace.write_text("128166372003061629,hm,0,Read,4096,4096,1\n128166372003061630,hm,0,Read,8192,4096,1\n128166372003061631,hm,0,Rxad,8192,4096,1\n")
    r = ssdlab("trace", "replay", str(trace), "--set", "nand.channels=0", "--precondition", "seq-fill")
    assert r.returncode == 2, r.stderr
    assert ":3: Type: `Rxad` is neither Read nor Write" in r.stderr and "Traceback" not in r.stderr, r.stderr
