"""What a probe of the README's and docs' commands found (2026-12-06): a folder given as the
job file, a mistyped profile name for `serve`, and the run summary's line of internal writes on
a drive that folds its SLC cache."""

import subprocess
import sys

from ssdlab import Drive
from ssdlab.report_text import run_summary


def ssdlab(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def one_line(r, says):
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == 2 and len(lines) == 1 and says in lines[0], (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr


def test_a_folder_given_as_the_job_file_is_named_as_one(tmp_path):
    (tmp_path / "jobs").mkdir()
    # It was taken for a stray argument: "unexpected argument 'jobs' (fio options are written --name=value)".
    one_line(ssdlab("run", "jobs", cwd=tmp_path), "--job-file jobs: is a folder; give a regular file")


def test_serve_lists_the_built_in_profiles_for_a_mistyped_name(tmp_path):
    r = ssdlab("serve", "force-gs240", "--backing", str(tmp_path / "d.img"))
    one_line(r, "force-gs240: no such profile file, and not a built-in profile (built-in: force-gs-240")
    assert not (tmp_path / "d.img").exists()
    one_line(ssdlab("serve", "./nope.toml", "--backing", str(tmp_path / "d.img")), "profile ./nope.toml: no such file")


def test_the_run_summary_says_when_internal_writes_are_folding():
    from ssdlab.lab.context import ReviewContext

    drive = Drive("samsung-980-pro-1tb", ReviewContext("samsung-980-pro-1tb", scale=0.01).scaled_overrides())
    summary = drive.run(["rw=write", "bs=128k", "iodepth=32"]).summary
    folded = summary["tiers"]["fold_write_bytes"]
    assert folded > 0, summary["tiers"]
    line = next(line for line in run_summary(summary).splitlines() if "write amplification" in line)
    assert "GC and folding" in line and "of it folding" in line, line
    small = ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=1999998976"]
    plain = Drive("force-gs-240", small).run(["rw=randwrite", "bs=4k", "number_ios=1000"]).summary
    line = next(line for line in run_summary(plain).splitlines() if "write amplification" in line)
    assert ", GC " in line and "folding" not in line, line


def test_trace_stats_lists_add_up_to_all_requests(tmp_path):
    # Queue depths were cut to the first eight with no word of the rest (76.5% shown of the
    # Storage Bench trace); sizes likewise.
    trace = tmp_path / "deep.csv"
    # Twenty requests arriving 1 us apart, each taking 1 s: queue depths 1 to 20.
    trace.write_text("".join(f"{128166372000000000 + i * 10},h,0,Read,{i * 4096},{4096 * (1 + i % 10)},10000000\n" for i in range(20)))
    r = ssdlab("trace", "stats", str(trace))
    assert r.returncode == 0, r.stderr
    depths = next(line for line in r.stdout.splitlines() if "queue depths:" in line)
    sizes = next(line for line in r.stdout.splitlines() if "sizes:" in line)
    assert depths.endswith("deeper 60.0%"), depths
    assert sizes.endswith("other 20.0%"), sizes


def test_a_group_of_jobs_is_named_as_one():
    r = ssdlab("run", "--size=64m", "--bs=4k", "--name=w", "--rw=randwrite", "--number_ios=100", "--name=r", "--rw=randread", "--number_ios=50")
    assert r.returncode == 0, r.stderr
    head = next(line for line in r.stdout.splitlines() if "simulated in" in line)
    # It read "job w: randwrite QD2", though the figures are of both jobs.
    assert head.startswith("jobs w and 1 more, side by side (first: randwrite), QD2 in all"), head
    assert "the first job's)" in head, head
