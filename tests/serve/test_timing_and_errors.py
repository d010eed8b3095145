"""Emulated latency agrees with the simulator, and a served drive's bad situations get clear
answers: no nbdkit, a missing or unwritable backing path, a full backing file system (issue 11)."""

import json
import os
import subprocess
import sys

import pytest
from served import need, run

# A small, slow conventional drive (4 dies, 1 GiB raw), so its IOPS are far below what this
# host can carry over NBD and the host's own time per request is a small part of each one.
SLOW = [
    "nand.channels=2",
    "nand.packages_per_channel=1",
    "nand.dies_per_package=2",
    "nand.blocks_per_plane=64",
    "drive.capacity_bytes_user=943718400",
    "reduction.enabled=false",
    "controller.map_cache_bytes=0",
]
READS = [*SLOW, "nand.t_read_ns=800000"]
# When the time replies went out after their due time (`late_replies`: count times mean) is more
# than this share of the simulated latency of all replies, the host did not keep up with the
# emulated drive and a timing comparison says nothing about the server: the test is skipped,
# saying so. The share of replies late was the rule before; it skipped the steady-state writes
# on every run (70% late, by 117 us on average) although the served IOPS agreed within 2%: half
# of those writes complete in 17 us in the simulated drive (its write buffer), less than the
# host's own time per request, while the loop's time is the GC stalls' (mean latency 26 ms), so
# the late time was 0.3% of it (BENCHMARKS.md, issue 24 round four).
LATE_SHARE_SKIP = 0.02


def skip_if_the_host_fell_behind(stats):
    late = stats["late_replies"]
    lag_us = late["late"] * late["mean_late_us"]
    latency_us = late["answered"] * stats["latency_us"]["mean"]
    if lag_us > LATE_SHARE_SKIP * latency_us:
        pytest.skip(
            f"the host fell behind the emulated drive: {late['late']} of {late['answered']} replies late, mean {late['mean_late_us']:.0f} us, "
            f"{lag_us / latency_us:.1%} of the simulated latency"
        )


def ssdlab_run(overrides, *args):
    cmd = [sys.executable, "-m", "ssdlab.cli", "run", "--quiet", "--json", "-"]
    for o in overrides:
        cmd += ["--set", o]
    r = subprocess.run([*cmd, *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def fio(uri, *args):
    r = run("fio", "--ioengine=nbd", f"--uri={uri}", "--name=job", "--output-format=json", *args)
    return json.loads(r.stdout[r.stdout.index("{") :])["jobs"][0]


def test_emulated_qd1_random_reads_match_the_simulator(serve, tmp_path):
    """fio's QD1 4 KiB random reads over NBD with `--latency emulate` within 10% of `ssdlab run`
    of the same job on the same drive state (the same sequential fill of the span with random
    data, then the reads; the simulator's reads after a `stonewall`, not beside the fill).

    It failed by turns (-10.4 to -11%) with the reply wait of before: a sleep to shortly before
    the due time, then `sched_yield` in a loop, which on a loaded 2-core machine loses the
    processor for a whole scheduler slice (2% of replies 1.4 ms late). The wait is now one
    absolute `clock_nanosleep` aimed early by a running median of wake-up overshoots
    (crates/ssdlab-serve/src/clock.rs), and a restored drive remembers which map pages are in
    flash (it read its map for free after a restart: faster than the simulator). The slow-read
    drive (800 us reads) keeps the client's own turnaround (fio and NBD, 20-30 us here, over 150 us
    at a load average of 7) a small share of each request; on the shipped profile (137 us reads
    on this state) it alone is more than 10%: BENCHMARKS.md, issue 24."""
    need("fio")
    s = serve(("force-gs-240", READS))
    fio(s.uri, "--rw=write", "--bs=128k", "--iodepth=32", "--size=256m", "--refill_buffers")
    s.stop()
    s.latency = "emulate"
    s.start()
    served = fio(s.uri, "--rw=randread", "--bs=4k", "--iodepth=1", "--size=256m", "--runtime=8", "--time_based")["read"]["iops"]
    job = tmp_path / "qd1.fio"
    job.write_text("[fill]\nrw=write\nbs=128k\niodepth=32\nsize=256m\n[test]\nstonewall\nrw=randread\nbs=4k\niodepth=1\nsize=256m\nruntime=8\ntime_based\n")
    simulated = ssdlab_run(READS, "--job-file", str(job))["iops"]
    stats = s.stats()
    # The claim is emulated time while the host keeps up; the server's own count says when it
    # did not (a machine loaded by other work: 6-36% of replies late at a load average of 8-10).
    skip_if_the_host_fell_behind(stats)
    assert abs(served - simulated) / simulated < 0.10, (served, simulated, stats["late_replies"])


def test_emulated_qd32_random_writes_in_steady_state_match_the_simulator(serve):
    need("fio")
    s = serve(("force-gs-240", SLOW))
    # Preconditioning as fast as the host allows: a sequential fill, then twice the drive in
    # 4 KiB random writes (the simulator's seq-fill and rand-fill). Uniform random offsets, with
    # repeats, as the simulator draws them (fio's default random map visits each block once).
    fio(s.uri, "--rw=write", "--bs=128k", "--iodepth=32", "--size=100%")
    fio(s.uri, "--rw=randwrite", "--bs=4k", "--iodepth=32", "--size=100%", "--io_size=1887436800", "--norandommap", "--randrepeat=0")
    s.stop()
    s.latency = "emulate"
    s.start()
    served = fio(s.uri, "--rw=randwrite", "--bs=4k", "--iodepth=32", "--size=100%", "--runtime=15", "--time_based", "--norandommap")["write"]["iops"]
    simulated = ssdlab_run(
        SLOW, "--precondition", "seq-fill", "--precondition", "rand-fill", "--rw=randwrite", "--bs=4k", "--iodepth=32", "--runtime=15", "--time_based"
    )["iops"]
    stats = s.stats()
    skip_if_the_host_fell_behind(stats)
    assert abs(served - simulated) / simulated < 0.10, (served, simulated, stats["late_replies"])


def test_serve_without_nbdkit_says_how_to_install_it(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path)}  # nothing on the path
    r = subprocess.run([sys.executable, "-m", "ssdlab.cli", "serve", "--backing", str(tmp_path / "d.img")], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "nbdkit is not installed" in r.stderr and "apt-get install nbdkit" in r.stderr, r.stderr


@pytest.mark.parametrize("backing, expected", [("/nonexistent/folder/d.img", "does not exist"), ("{tmp}", "is a folder")])
def test_a_bad_backing_path_is_a_clear_error_at_start(tmp_path, backing, expected):
    need("nbdkit")
    r = subprocess.run([sys.executable, "-m", "ssdlab.cli", "serve", "--backing", backing.format(tmp=tmp_path)], capture_output=True, text=True)
    assert r.returncode == 2 and expected in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_full_backing_file_system_fails_writes_and_keeps_acknowledged_data(serve, tmp_path):
    need("qemu-io")
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small tmpfs")
    small = tmp_path / "small"
    small.mkdir()
    run("mount", "-t", "tmpfs", "-o", "size=480m", "tmpfs", str(small))
    try:
        # Conventional: no deduplication of the repeated data below.
        drive = ("force-gs-240", ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=7499997184", "reduction.enabled=false"])
        s = serve(drive, name="small/drive.img")
        run("qemu-io", "-f", "raw", "-c", "write -P 0x42 0 16M", "-c", "flush", s.uri)
        # Random (incompressible) data until the file system is nearly full.
        random_mib = tmp_path / "random.bin"
        random_mib.write_bytes(os.urandom(1 << 20))
        r = run("qemu-io", "-f", "raw", *sum((["-c", f"write -s {random_mib} {(16 + i) << 20} 1M"] for i in range(400)), []), s.uri, check=False)
        assert "No space left on device" in r.stdout + r.stderr, (r.stdout + r.stderr)[-2000:]
        run("qemu-io", "-f", "raw", "-c", "read -P 0x42 0 16M", s.uri)
        assert s.stats()["data_failure"] is None
        s.stop()
    finally:
        run("umount", "-l", str(small), check=False)
