"""fio's JSON echoes the options a job was given (`job options`: its own section's; `global
options`: the job file's `[global]`), as given: tools read `jobs[0]["job options"]["bs"]`,
`["size"]`, `["numjobs"]` and `["global options"]["rw"]` to label results. Compared with fio
3.33 itself (null engine) where it is installed."""

import json
import shutil
import subprocess

import pytest
from fio_helpers import small_args, ssdlab

JOB = (
    "[global]\nbs=8k\nsize=16m\nioengine=libaio\ndirect=1\n"
    "[writer]\nrw=randwrite\niodepth=4\nnumber_ios=200\ntime_based=0\n"
    "[reader]\nstonewall\nrw=randread\nnumber_ios=100\nbs=16k\n"
)


def ssdlab_json(*args, cwd=None):
    r = ssdlab("run", *small_args(), "--quiet", *args, "--output-format=json", cwd=cwd)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_job_files_options_are_echoed_as_given(tmp_path):
    (tmp_path / "e.fio").write_text(JOB)
    doc = ssdlab_json(str(tmp_path / "e.fio"))
    assert {k: doc["global options"][k] for k in ("bs", "size", "ioengine", "direct")} == {"bs": "8k", "size": "16m", "ioengine": "libaio", "direct": "1"}
    writer, reader = doc["jobs"]
    assert writer["job options"] == {"rw": "randwrite", "iodepth": "4", "number_ios": "200", "time_based": "0", "numjobs": "1"}, writer["job options"]
    # A flag given without a value is echoed with an empty one; a job's own bs beside [global]'s.
    assert reader["job options"]["stonewall"] == "" and reader["job options"]["bs"] == "16k", reader["job options"]


def test_command_line_jobs_echo_their_options():
    doc = ssdlab_json("--bs=4k", "--size=16m", "--name=w", "--rw=randwrite", "--number_ios=50", "--iodepth=2")
    assert doc["global options"]["bs"] == "4k" and doc["jobs"][0]["job options"]["number_ios"] == "50", doc["jobs"][0]["job options"]
    # Without --name the options are the job's own (fio would run no job).
    doc = ssdlab_json("--rw=randwrite", "--bs=4k", "--size=16m", "--number_ios=50")
    assert doc["jobs"][0]["job options"]["bs"] == "4k", doc["jobs"][0]["job options"]


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_every_option_fio_echoes_is_echoed_alike(tmp_path):
    (tmp_path / "e.fio").write_text(JOB)
    real = json.loads(
        subprocess.run(["fio", "--output-format=json", "--ioengine=null", str(tmp_path / "e.fio")], capture_output=True, text=True, cwd=tmp_path).stdout
    )
    doc = ssdlab_json(str(tmp_path / "e.fio"))
    assert real["global options"].items() <= doc["global options"].items(), (real["global options"], doc["global options"])
    for fio_job, ours in zip(real["jobs"], doc["jobs"], strict=True):
        assert fio_job["job options"].items() <= ours["job options"].items(), (fio_job["job options"], ours["job options"])
