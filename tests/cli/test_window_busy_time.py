"""A run's busy time and energy are the work that runs inside its window (docs/model.md). A
write completes once its data is in the write buffer; its programs and GC queue on the dies.
Before, a run counted all the work it booked: 20,000 writes into the buffer of a shrunk
1-channel 980 PRO reported its dies 54 times busy and 14.7 W (its highest power state is
8.5 W), and the random reads after them, which waited behind that work, counted none of it."""

import json

from fio_helpers import ssdlab

#: A Samsung 980 PRO shrunk to one channel of two dies (reads go first on its NAND).
DRIVE = [
    "--profile", "samsung-980-pro-1tb", "--set", "nand.channels=1", "--set", "nand.dies_per_package=2",
    "--set", "nand.blocks_per_plane=256", "--set", "drive.capacity_bytes_user=5500002304",
    "--set", "slc_cache.static_bytes=512000000", "--set", "slc_cache.dynamic_max_bytes=2000000000",
]  # fmt: skip

JOBS = "[global]\nbs=4k\niodepth=32\nnumber_ios=20000\n[w]\nrw=randwrite\n[r]\nstonewall\nrw=randread\n"


def test_writes_into_the_buffer_and_the_reads_behind_them_count_their_own_time(tmp_path):
    job = tmp_path / "two.fio"
    job.write_text(JOBS)
    out = tmp_path / "two.json"
    done = ssdlab("run", str(job), *DRIVE, "--precondition", "seq-fill", "--precondition", "rand-fill", "--json", str(out), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    writes, reads = json.loads(out.read_text())["jobs"]
    for run in (writes, reads):
        u = run["utilization"]
        assert u["dies"] <= 1.0 + 1e-9 and u["channels"] <= 1.0 + 1e-9, (run["job"], u)
        assert run["mean_power_watts"] < 8.49, (run["job"], run["mean_power_watts"])
    # The reads ran while the dies finished the writes' queued work: the dies were busy.
    assert reads["utilization"]["dies"] > 0.5, reads["utilization"]
