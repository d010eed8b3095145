"""fio's own example job files (in ../shared/fio-examples, not copied into the project) run as
they are, with --runtime/--size from the command line where a job would take simulated hours;
those refused name every reason at once."""

import json

import pytest
from fio_helpers import EXAMPLES, VERIFY_FAILS, ssdlab

#: Files ssdlab refuses, and a piece of each reason it must give (all in one message).
REFUSED: dict[str, list[str]] = {}
#: How many of the 21 run.
RUNNING = 21


def example_files():
    if not EXAMPLES.is_dir():
        return []
    return sorted(EXAMPLES.glob("*.fio"))


pytestmark = pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"fio's examples are not at {EXAMPLES} (set SSDLAB_FIO_EXAMPLES)")


def test_the_examples_run_or_name_every_reason(tmp_path):
    files = example_files()
    assert len(files) == 21, [f.name for f in files]
    ran, refused = [], {}
    for path in files:
        # Overrides keep CI short: the files ask for up to 15 simulated minutes per job, or the
        # whole 240 GB drive.
        r = ssdlab("run", str(path), "--runtime=5", "--size=256m", "--quiet", "--json", "-", cwd=tmp_path)
        assert "Traceback" not in r.stderr and "panicked" not in r.stderr, (path.name, r.stderr)
        if r.returncode == 0:
            doc = json.loads(r.stdout)
            assert doc["ios"] > 0, path.name
            ran.append(path.name)
        else:
            assert r.returncode == 2, (path.name, r.returncode, r.stderr)
            refused[path.name] = r.stderr
    assert len(ran) == RUNNING, (ran, sorted(refused))
    assert sorted(refused) == sorted(REFUSED), refused
    for name, pieces in REFUSED.items():
        message = refused[name]
        for piece in pieces:
            assert piece in message, (name, piece, message)
        # Each reason on its own line, with the file and line it stands at.
        reasons = [line.removeprefix("ssdlab: error: ") for line in message.splitlines() if line.strip()]
        assert len(reasons) == len(pieces), message
        assert all(line.startswith(f"{EXAMPLES / name}:") for line in reasons), message


def test_numjobs_copies_share_the_drive_and_are_counted(tmp_path):
    r = ssdlab("run", str(EXAMPLES / "fio-rand-write.fio"), "--runtime=2", "--size=256m", "--quiet", "--json", "-", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    # numjobs=4 at iodepth=16: 64 commands outstanding, 32 in the drive, 32 in the host's queue.
    assert doc["jobs_in_group"] == 4 and doc["iodepth"] == 64, (doc["jobs_in_group"], doc["iodepth"])
    assert doc["host_queued_max"] == 32


def test_latency_profile_searches_for_its_depth(tmp_path):
    # fio's latency-target example: the depth doubles from 1 while 99.9% of a window's reads
    # finish within 500 ms (all of them do here), up to its iodepth of 128, then one final window.
    r = ssdlab(
        "run", str(EXAMPLES / "latency-profile.fio"), "--runtime=30", "--time_based", "--size=256m", "--latency_window=1s",
        "--precondition", "layout", "--quiet", "--json", "-", cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    search = doc["latency_target"]
    assert search["settled"] and search["depth"] == 128 and search["failed_at_depth_1_us"] is None, search
    assert (search["target_us"], search["window_ms"], search["percentile"]) == (500_000.0, 1000.0, 99.9)
    # The figures are the final window's: about one second, after eight windows of search.
    assert 1.0 <= doc["simulated_seconds"] < 1.1 and 8.0 <= doc["ramp_seconds"] < 8.2, (doc["simulated_seconds"], doc["ramp_seconds"])
    # A target no read can meet ends the job at its first read, as fio's error does.
    r = ssdlab(
        "run", str(EXAMPLES / "latency-profile.fio"), "--runtime=5", "--size=256m", "--latency_target=1us", "--latency_percentile=100",
        "--precondition", "layout", "--output-format=json", cwd=tmp_path,
    )  # fmt: skip
    # fio's exit status for a job that ended in error: 1, after the output.
    assert r.returncode == 1 and "ssdlab: job device ended in error 110 (ETIMEDOUT): fio: latency of " in r.stderr, r.stderr
    job = json.loads(r.stdout)["jobs"][0]
    assert (job["error"], job["latency_depth"], job["latency_target"], job["read"]["total_ios"]) == (110, 1, 1000, 1), job


def test_basic_verify_reads_back_each_block_it_wrote_and_finds_it_as_written(tmp_path):
    # fio's basic-verify.fio: 4 KiB random writes at QD16 with verify=crc32c, then every distinct
    # block read back once and checked; fio counts those reads in the job's read figures.
    r = ssdlab("run", str(EXAMPLES / "basic-verify.fio"), "--size=64m", "--output-format=json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    job = json.loads(r.stdout)["jobs"][0]
    verify = job["ssdlab"]["verify"]
    assert (job["error"], job["job options"]["verify"], verify["failures"], verify["phase_ran"]) == (0, "crc32c", 0, True), verify
    assert job["write"]["total_ios"] == 16384
    # About 63% of the span's blocks were written at independent random offsets, each read once.
    assert job["read"]["total_ios"] == verify["blocks_verified"] and 9000 < verify["blocks_verified"] < 11500, verify
    assert job["read"]["io_bytes"] == verify["bytes_verified"] == 4096 * verify["blocks_verified"]
    r = ssdlab("run", str(EXAMPLES / "basic-verify.fio"), "--size=64m", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert f"verify (crc32c): {verify['blocks_verified']:,} blocks" in r.stdout and "all as written" in r.stdout, r.stdout


def test_surface_scan_reads_back_what_its_first_group_wrote(tmp_path):
    # fio's surface-scan.fio: a group writes with verify headers (do_verify=0), the next reads
    # everything back with verify; verify_interval changes nothing simulated and is listed so.
    r = ssdlab("run", str(EXAMPLES / "surface-scan.fio"), "--runtime=2", "--size=64m", "--output-format=json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    write, read = json.loads(r.stdout)["jobs"]
    assert write["ssdlab"]["verify"]["blocks_verified"] == 0 and write["read"]["total_ios"] == 0
    verify = read["ssdlab"]["verify"]
    assert (read["error"], verify["method"], verify["blocks_verified"], verify["failures"]) == (0, "meta", 1024, 0), verify
    # verify_pattern fills the buffers: the SandForce engine compresses them well.
    assert write["ssdlab"]["reduction"]["data_reduction_ratio"] > 2.0


def test_a_verify_failure_is_a_result_stated_plainly_with_fio_error_eilseq(tmp_path):
    # Group 1 writes 4 MiB with verify headers, group 2 overwrites 64 KiB of it without, group 3
    # reads the 4 MiB back with verify: the 16 overwritten blocks fail. The run exits 1 after
    # its output, as fio does when a job ended in error.
    r = ssdlab("run", *VERIFY_FAILS, "--output-format=json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    last = json.loads(r.stdout)["jobs"][2]
    verify = last["ssdlab"]["verify"]
    assert (last["error"], verify["failures"], verify["first_failure_offset"], verify["blocks_verified"]) == (84, 16, 0, 1024), verify
    r = ssdlab("run", *VERIFY_FAILS, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "VERIFY FAILED for 16 blocks, the first at offset 0" in r.stdout, r.stdout
    assert r.stderr == "ssdlab: job r ended in error 84 (EILSEQ): verify failed for 16 blocks, the first at offset 0\n", r.stderr


def test_a_job_with_do_verify_0_says_why_nothing_was_read_back(tmp_path):
    r = ssdlab("run", "--name=w", "--rw=write", "--size=1m", "--verify=md5", "--do_verify=0", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "do_verify=0: written with verify headers, not read back" in r.stdout and "runtime" not in r.stdout, r.stdout


def test_backwards_read_moves_the_jobs_size_as_fio(tmp_path):
    # fio's backwards-read.fio (rw=read:-8k, bs=4k): fio reads `size` bytes, stepping back 4 KiB
    # per read and wrapping to the end, not one 12 KiB stride per read.
    r = ssdlab("run", str(EXAMPLES / "backwards-read.fio"), "--size=1m", "--output-format=json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    job = json.loads(r.stdout)["jobs"][0]
    assert (job["read"]["total_ios"], job["read"]["io_bytes"]) == (256, 1 << 20), job["read"]
