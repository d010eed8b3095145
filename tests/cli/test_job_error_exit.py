"""`ssdlab run` ends with exit status 1 when a job of the run ended in error, as fio's main
returns non-zero when a job's error is set, so `ssdlab run job.fio && ...` sees it: a failed
verify (fio's EILSEQ), `max_latency` (ETIMEDOUT) and `latency_target` missed at depth 1
(ETIMEDOUT). Every output is written whole first; then one line per such job on standard error
(also with --quiet). A clean run exits 0; a sweep whose points' jobs end in error goes on and
records them."""

import csv
import json
import re
import subprocess
import sys

from fio_helpers import VERIFY_FAILS, small_args, ssdlab

VERIFY_LINE = "ssdlab: job r ended in error 84 (EILSEQ): verify failed for 16 blocks, the first at offset 0"


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if " ended in error " in line]


def test_a_verify_failure_exits_1_after_every_output_is_written(tmp_path):
    outputs = ["--json", "run.json", "--series", "series.csv", "--output-format=json", "--output=fio.json", "--write_lat_log=lat"]
    r = ssdlab("run", *small_args(), *VERIFY_FAILS, *outputs, "--quiet", cwd=tmp_path)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert r.stderr.splitlines() == [VERIFY_LINE], r.stderr
    # Every output is whole: each group's summary, fio's JSON with the job's error, the series
    # and the last job's latency logs (fio's options after --name are that job's).
    doc = json.loads((tmp_path / "run.json").read_text())
    assert [j["job"] for j in doc["jobs"]] == ["w", "o", "r"] and doc["verify"]["failures"] == 16, doc["verify"]
    assert [j["error"] for j in json.loads((tmp_path / "fio.json").read_text())["jobs"]] == [0, 0, 84]
    rows = list(csv.DictReader((tmp_path / "series.csv").read_text().splitlines()))
    assert rows and "iops" in rows[0], rows[:1]
    assert sorted(p.name for p in tmp_path.glob("lat_*.log")) == ["lat_clat.3.log", "lat_lat.3.log", "lat_slat.3.log"]
    # Without --quiet the text summary comes first, then the line (standard error after
    # standard output, in one stream).
    merged = subprocess.run(
        [sys.executable, "-m", "ssdlab.cli", "run", *small_args(), *VERIFY_FAILS], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path
    )
    assert merged.returncode == 1, merged.stdout
    lines = merged.stdout.splitlines()
    assert lines[-1] == VERIFY_LINE and any("VERIFY FAILED for 16 blocks" in line for line in lines[:-1]), lines


def test_max_latency_exits_1_and_later_groups_still_run(tmp_path):
    # Group 1 reads at QD32 with a 300 us limit: a read waits longer within its first 32 reads
    # and ends the job (fio's ETIMEDOUT); group 2 reads without a limit and runs as usual.
    job = tmp_path / "limit.fio"
    job.write_text("[global]\nrw=randread\nbs=4k\nsize=256m\nruntime=2\ntime_based\n[limited]\niodepth=32\nmax_latency=300us\n[free]\nstonewall\niodepth=1\n")
    r = ssdlab("run", str(job), "--precondition", "seq-fill", *small_args(), "--json", "run.json", cwd=tmp_path)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "JOB limited ENDED IN ERROR" in r.stdout and "job free: randread QD1" in r.stdout, r.stdout
    (line,) = error_lines(r.stderr)
    assert re.fullmatch(r"ssdlab: job limited ended in error 110 \(ETIMEDOUT\): fio: latency of \d+ nsec exceeds specified max \(300000 nsec\)", line), line
    doc = json.loads((tmp_path / "run.json").read_text())
    limited, free = doc["jobs"]
    assert limited["job_error"]["errno"] == 110 and "job_error" not in free and free["simulated_seconds"] >= 2.0, free.get("job_error")


def test_a_latency_target_missed_at_depth_1_exits_1_also_with_quiet(tmp_path):
    args = ["run", "--name=target", "--rw=randread", "--size=64m", "--runtime=2", "--latency_target=1us", "--precondition", "layout", *small_args()]
    r = ssdlab(*args, "--quiet", "--json", "run.json", cwd=tmp_path)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert r.stdout == "", r.stdout
    (line,) = r.stderr.splitlines()
    assert re.fullmatch(r"ssdlab: job target ended in error 110 \(ETIMEDOUT\): fio: latency of \d+ nsec exceeds specified max \(1000 nsec\)", line), line
    doc = json.loads((tmp_path / "run.json").read_text())
    assert doc["latency_target"]["failed_at_depth_1_us"] is not None and doc["job_error"]["job"] == "target", doc["latency_target"]


def test_a_clean_run_exits_0_without_an_error_line(tmp_path):
    r = ssdlab("run", *small_args(), "--rw=randwrite", "--number_ios=200", "--verify=crc32c", "--size=4m", "--quiet", "--json", "run.json", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert json.loads((tmp_path / "run.json").read_text())["verify"]["failures"] == 0


def test_a_sweep_whose_points_jobs_end_in_error_goes_on_and_records_them(tmp_path):
    overrides = ", ".join(f'"{item}"' for item in small_args()[1::2])
    spec = tmp_path / "s.toml"
    spec.write_text(
        f'[sweep]\nname = "err"\nprofile = "force-gs-240"\noverrides = [{overrides}]\n'
        'workload = ["rw=randwrite", "bs=4k", "io_size=4m", "max_latency=1us"]\n[[axis]]\noption = "iodepth"\nvalues = [1, 2]\n'
    )
    r = ssdlab("sweep", str(spec), "--out", "out", "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "ran 2 point(s), 0 failed, 2 whose job ended in error (left out of the plots; job_error.* columns)" in r.stdout, r.stdout
    import pandas as pd

    df = pd.read_parquet(tmp_path / "out" / "sweep-err.parquet")
    assert df["job_error.errno"].tolist() == [110, 110] and df["error"].isna().all(), df.filter(like="error")


def test_each_failed_job_of_a_group_has_its_own_line_and_error(tmp_path):
    # Two jobs of one group miss their minimum rate, a third has none; then two jobs of one
    # group verify blocks nobody wrote with a verify header: every failed job is named, each
    # with its own error in fio's JSON (before, the core kept the group's first error only, and
    # a verify failure was "one of jobs a and 1 more").
    job = tmp_path / "two.fio"
    job.write_text(
        "[global]\nbs=4k\nsize=64m\nrw=randread\n"
        "[a]\ntime_based\nruntime=5\nrate_iops_min=10000000\n[b]\ntime_based\nruntime=5\nrate_iops_min=10000000\n[c]\ntime_based\nruntime=5\n"
        "[va]\nstonewall\nrw=read\nsize=1m\nverify=crc32c\n[vb]\nrw=read\noffset=8m\nsize=2m\nverify=crc32c\n"
    )
    r = ssdlab("run", str(job), *small_args(), "--output-format=json", "--output=fio.json", "--quiet", cwd=tmp_path)
    assert r.returncode == 1, (r.returncode, r.stderr)
    lines = error_lines(r.stderr)
    assert [line.split(" ended")[0] for line in lines] == ["ssdlab: job a", "ssdlab: job b", "ssdlab: job va", "ssdlab: job vb"], lines
    assert lines[2].endswith("verify failed for 256 blocks, the first at offset 0") and lines[3].endswith(
        "verify failed for 512 blocks, the first at offset 8,388,608"
    ), lines
    errors = {j["jobname"]: j["error"] for j in json.loads((tmp_path / "fio.json").read_text())["jobs"]}
    assert errors == {"a": 5, "b": 5, "c": 0, "va": 84, "vb": 84}, errors
