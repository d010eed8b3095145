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
