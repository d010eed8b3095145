"""fio's rate limits on mixed jobs and jobs of several block sizes, and fio's flow control
(``flow``, ``flow_id``, ``flow_sleep``), through the real CLI: the figures within 1% of what
fio 3.33 itself gives on its null engine (those comparisons skip, saying why, where fio is not
installed), and what stays refused named at its ``file:line``."""

import json
import shutil
import subprocess

import pytest
from fio_helpers import small_args, ssdlab

needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (apt-get install fio) to compare with")


def fio_null(tmp_path, job_text: str) -> list[dict]:
    """Run a job file with fio's null engine (no device: the rates and the flow alone set the
    pace); returns fio's JSON jobs."""
    path = tmp_path / "fio-null.fio"
    path.write_text(job_text)
    r = subprocess.run(["fio", str(path), "--ioengine=null", "--output-format=json"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout[r.stdout.index("{") :])["jobs"]


def ssdlab_json(tmp_path, job_text: str, *extra: str) -> dict:
    path = tmp_path / "ssdlab.fio"
    path.write_text(job_text)
    r = ssdlab("run", str(path), "--precondition", "layout", *small_args(), *extra, "--quiet", "--json", "-", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout[r.stdout.index("{") :])


def within_1_percent(got: float, want: float) -> bool:
    return abs(got - want) <= 0.01 * want


@needs_fio
@pytest.mark.parametrize(
    "options",
    [
        "rw=randrw\nbs=4k\nrate_iops=500,200\n",
        "rw=randrw\nbs=4k\nrate_iops=500,200\nrwmixread=90\n",
        "rw=randrw\nbssplit=4k/50:64k/50\nrate=10m,5m\n",
        "rw=randread\nbsrange=4k-64k\nrate=2m\n",
    ],
)
def test_rates_per_direction_and_by_bytes_match_fio(tmp_path, options):
    text = f"[job]\nsize=64m\ntime_based\nruntime=8\niodepth=16\n{options}"
    (theirs,) = fio_null(tmp_path, text)
    ours = ssdlab_json(tmp_path, text)
    seconds = ours["simulated_seconds"]
    for direction, ours_bytes in (("read", ours["host_read_bytes"]), ("write", ours["host_write_bytes"])):
        want = theirs[direction]["bw_bytes"]
        got = ours_bytes / seconds
        if want == 0:
            assert got == 0, (direction, got)
        else:
            assert within_1_percent(got, want), (options, direction, got, want)


@needs_fio
def test_flow_keeps_fios_proportion_between_jobs(tmp_path):
    # fio's flow.fio example (weights 1 and 8), shortened.
    text = "[global]\ntime_based\nruntime=5\niodepth=16\nsize=64m\nbs=8k\nflow_sleep=1000\n[job2]\nrw=write\nflow=1\n[job1]\nrw=randread\nflow=8\n"
    jobs = {j["jobname"]: j for j in fio_null(tmp_path, text)}
    theirs = jobs["job1"]["read"]["total_ios"] / jobs["job2"]["write"]["total_ios"]
    ours = ssdlab_json(tmp_path, text)
    assert within_1_percent(ours["reads"] / ours["writes"], theirs), (ours["reads"], ours["writes"], theirs)


def test_what_stays_refused_is_named_at_its_line(tmp_path):
    path = tmp_path / "refused.fio"
    path.write_text(
        "[global]\nsize=64m\n"
        "[both]\nrw=randrw\nrate=1m\nrate_iops=100\n"
        "[tw]\nrw=trimwrite\nrate_iops=100\n"
        "[heavy]\nrw=randread\nflow=1001\n"
        "[negative]\nrw=randread\nflow=-2147483649\n"
    )
    r = ssdlab("run", str(path), *small_args(), cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    lines = [line.removeprefix("ssdlab: error: ") for line in r.stderr.splitlines() if line.strip()]
    assert any(line.startswith(f"{path}:") and "rate and rate_iops are mutually exclusive" in line for line in lines), r.stderr
    assert any(line.startswith(f"{path}:") and "rate on rw=trimwrite is not simulated" in line for line in lines), r.stderr
    assert any(line.startswith(f"{path}:12: flow: must be 0 to 1000") for line in lines), r.stderr
    assert any(line.startswith(f"{path}:15: flow: expected a whole number from -2147483648 to 1000") for line in lines), r.stderr


def test_fios_butterfly_weights_of_2_and_minus_2_run_both_jobs_freely(tmp_path):
    # fio's butterfly.fio (flow=2, flow=-2): fio 3.33 wraps -2 to 2^32 - 2 in an unsigned int,
    # the flow's total to 0, and holds neither job back. One job limited to 1,000 IOPS: the
    # other runs at the drive's pace (with weights 2 and 2 it would be held to the first's).
    text = "[global]\nsize=4m\nbs=4k\n[forward]\nrw=read\nflow=2\n[backward]\nrw=read:-8k\nflow=-2\nrate_iops=1000\n"
    (tmp_path / "b.fio").write_text(text)
    r = ssdlab("run", str(tmp_path / "b.fio"), *small_args(), "--precondition=seq-fill", "--output-format=json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    jobs = {j["jobname"]: j for j in json.loads(r.stdout)["jobs"]}
    assert jobs["forward"]["read"]["total_ios"] == 1024 and jobs["backward"]["read"]["total_ios"] == 1024
    assert jobs["forward"]["job_runtime"] < 300 and jobs["backward"]["job_runtime"] > 900, (jobs["forward"]["job_runtime"], jobs["backward"]["job_runtime"])
    (tmp_path / "p.fio").write_text(text.replace("flow=-2", "flow=2"))
    r = ssdlab("run", str(tmp_path / "p.fio"), *small_args(), "--precondition=seq-fill", "--output-format=json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    paced = {j["jobname"]: j for j in json.loads(r.stdout)["jobs"]}
    assert paced["forward"]["job_runtime"] > 900, paced["forward"]["job_runtime"]


def test_flow_id_and_flow_sleep_without_a_weight_are_listed_as_changing_nothing(tmp_path):
    r = ssdlab("run", "--rw=randread", "--size=64m", "--number_ios=100", "--flow_id=3", "--flow_sleep=100", *small_args(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "flow_id" in r.stdout and "flow_sleep" in r.stdout, r.stdout
