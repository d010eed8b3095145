"""Issue 19, bad input round two, through the real command line: every row of
``bad_inputs_catalogue.ROUND_TWO`` gets one line naming what is wrong and exit status 2, and the
files it names are left as they were. The causes that need a running server are in
tests/serve/test_serve_paths.py, the Python API ones in tests/api/test_bad_api_inputs.py."""

import hashlib
import json
import os
import subprocess
import sys

import pytest
from bad_inputs_catalogue import ROUND_TWO, make_fixtures


def ssdlab(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True, timeout=120, **kwargs)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("round2")
    made = make_fixtures(folder)
    made["trace"] = folder / "t.csv"
    made["trace"].write_text("".join(f"{i * 10000},h,0,{'Read' if i % 2 else 'Write'},{i * 4096},4096,10\n" for i in range(200)))
    return made


def digests(folder) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir() if p.is_file() and not p.is_symlink()}


@pytest.mark.parametrize("cause, what, args, expected", ROUND_TWO, ids=[f"cause{c[0]}-{c[1]}" for c in ROUND_TWO])
def test_round_two_bad_input_gets_one_clear_line(cause, what, args, expected, files):
    before = digests(files["tmp"])
    filled = [a.format(**files) for a in args]
    r = ssdlab(*filled)
    assert r.returncode == 2, (what, r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and expected in lines[0], (what, r.stderr)
    assert digests(files["tmp"]) == before  # nothing written, nothing overwritten


def test_a_trace_starting_with_a_byte_order_mark_reads(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_text("\ufeff" + "".join(f"{i * 10000},h,0,Read,{i * 4096},4096,10\n" for i in range(10)), encoding="utf-8")
    r = ssdlab("trace", "stats", str(path), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["requests"] == 10


def test_outputs_are_written_whole_through_a_temporary_file(tmp_path):
    out = tmp_path / "summary.json"
    r = ssdlab("run", "--rw=randread", "--bs=4k", "--number_ios=50", "--size=1m", "--json", str(out), "--quiet")
    assert r.returncode == 0 and json.loads(out.read_text())["reads"] == 50, r.stderr
    # ssdlab's own output is replaced by a later run.
    r = ssdlab("run", "--rw=randread", "--bs=4k", "--number_ios=100", "--size=1m", "--json", str(out), "--series", str(tmp_path / "s.csv"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["reads"] == 100
    assert (tmp_path / "s.csv").read_text().startswith("second,")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ssdlab-outputs", "s.csv", "summary.json"]  # no temporary left
    # A failing run leaves the old output as it was.
    r = ssdlab("run", "--rw=randread", "--iodepth=65537", "--json", str(out), "--quiet")
    assert r.returncode == 2 and json.loads(out.read_text())["reads"] == 100


def test_closed_and_full_standard_output_get_one_line():
    r = subprocess.run(f"{sys.executable} -m ssdlab.cli profiles >&-", shell=True, capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.strip() == "ssdlab: error: standard output: closed", r.stderr
    r = subprocess.run(f"{sys.executable} -m ssdlab.cli profiles > /dev/full", shell=True, capture_output=True, text=True)
    assert r.returncode == 2 and "No space left on device" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_the_whole_data_file_is_streamed_and_cycling_is_reported(tmp_path):
    # Cause 10: 280 MiB of distinct random blocks (more than the 256 MiB once read into memory),
    # written once over in one run: no block repeats, so dedup finds (almost) nothing.
    data = tmp_path / "big.bin"
    with open(data, "wb") as f:
        for _ in range(280):
            f.write(os.urandom(1 << 20))
    overrides = ["--set", "nand.blocks_per_plane=64", "--set", "drive.capacity_bytes_user=7499997184"]
    r = ssdlab("run", *overrides, "--rw=write", "--bs=128k", "--size=270m", "--data-file", str(data), "--json", "-", "--quiet")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["data_file"]["cycled"] is False and 0.95 < s["data_file"]["passes"] < 1.0, s["data_file"]
    assert s["reduction"]["dedup_hit_rate"] < 0.005, s["reduction"]
    # A run writing more than the file holds cycles and says so, in JSON and in the text summary.
    small = tmp_path / "small.bin"
    small.write_bytes(os.urandom(1 << 20))
    r = ssdlab("run", *overrides, "--rw=write", "--bs=128k", "--size=4m", "--data-file", str(small))
    assert r.returncode == 0, r.stderr
    assert f"data file {small}" in r.stdout and "started again from its beginning" in r.stdout, r.stdout
    assert "data random" not in r.stdout
