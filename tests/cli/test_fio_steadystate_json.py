"""fio's JSON `steadystate` entry of a job with `steadystate` (`ss`): the rule as fio writes it,
whether it was met, what it measured and the judged window's IOPS and bandwidth samples, in the
keys fio 3.33 gives (checked against fio itself, null engine, where it is installed)."""

import json
import shutil
import subprocess

import pytest
from fio_helpers import small_args, ssdlab

#: A job whose IOPS are steady from its first second: 1,000 writes a second of 4 KiB.
STEADY = ["--name=s", "--rw=randwrite", "--bs=4k", "--size=64m", "--rate_iops=1000", "--runtime=10", "--time_based", "--ss=iops:20%", "--ss_dur=3"]


def entry(*args):
    r = ssdlab("run", *small_args(), "--quiet", *args, "--output-format=json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["jobs"][0]


def test_a_met_rule_and_its_window():
    ss = entry(*STEADY)["steadystate"]
    assert (ss["ss"], ss["duration"], ss["attained"], ss["criterion"]) == ("iops:20.000000%", 3, 1, "0.000000%"), ss
    assert ss["data"] == {"bw_mean": 4_096_000, "iops_mean": 1000, "iops": [1000] * 3, "bw": [4_096_000] * 3}, ss["data"]


def test_a_rule_not_met_gives_its_last_window_and_no_entry_without_a_rule():
    # A fresh drive's writes speed up and slow down as the buffer and GC go: a 0.1% slope
    # limit is not met over 2 s windows.
    ss = entry("--rw=randwrite", "--bs=4k", "--size=64m", "--runtime=4", "--time_based", "--ss=iops_slope:0.001%", "--ss_dur=2")["steadystate"]
    assert ss["ss"] == "iops_slope:0.001000%" and ss["attained"] == 0 and len(ss["data"]["iops"]) == 2, ss
    assert float(ss["criterion"].rstrip("%")) > 0.001, ss
    assert "steadystate" not in entry("--rw=randwrite", "--bs=4k", "--size=64m", "--number_ios=100")


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_the_entry_has_fios_keys():
    real = json.loads(subprocess.run(["fio", "--ioengine=null", "--output-format=json", *STEADY], capture_output=True, text=True).stdout)
    theirs = real["jobs"][0]["steadystate"]
    ours = entry(*STEADY)["steadystate"]
    assert set(ours) == set(theirs) and set(ours["data"]) == set(theirs["data"]), (ours, theirs)
    assert (ours["ss"], ours["duration"], ours["attained"]) == (theirs["ss"], theirs["duration"], theirs["attained"])
