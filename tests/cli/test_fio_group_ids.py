"""fio's ``groupid`` in its JSON, numbered as fio numbers them: one more at each job with
``stonewall`` or ``new_group`` (not at a ``numjobs`` copy, not at a ``wait_for``, which waits
without starting a reporting group). ssdlab numbered its own groups of jobs run one after the
other, so ``new_group`` beside other jobs kept the id and ``wait_for`` took a new one (fio's
``nfs.fio`` example: fio 0 and 0, ssdlab 0 and 1)."""

import json
import shutil
import subprocess

import pytest
from fio_helpers import small_args, ssdlab

#: a (2 copies), b (new_group beside them), d (stonewall), e (waits for d), f (both).
JOBS = (
    "[global]\nsize=4m\nbs=4k\n[a]\nrw=write\nnumjobs=2\n[b]\nnew_group\nrw=read\n[d]\nstonewall\nrw=read\n"
    "[e]\nwait_for=d\nrw=randread\n[f]\nrw=write\nnew_group\nstonewall\n"
)
#: fio 3.33's ids of the jobs above (null engine), one entry per job.
FIO_IDS = [("a", 0), ("a", 0), ("b", 1), ("d", 2), ("e", 2), ("f", 3)]


def ids(tmp_path, text: str) -> list[tuple[str, int]]:
    path = tmp_path / "groups.fio"
    path.write_text(text)
    r = ssdlab("run", str(path), *small_args(), "--output-format=json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return [(j["jobname"], j["groupid"]) for j in json.loads(r.stdout)["jobs"]]


def test_group_ids_are_fios(tmp_path):
    assert ids(tmp_path, JOBS) == FIO_IDS
    # A stonewall in [global] makes every job a group of its own, the first one 0.
    assert ids(tmp_path, "[global]\nsize=1m\nstonewall\n[x]\nrw=write\n[y]\nrw=read\n") == [("x", 0), ("y", 1)]


def test_with_group_reporting_each_entry_has_its_first_jobs_id(tmp_path):
    # fio: a (0), b (1), d and e merged (2), f (3). ssdlab reports the jobs it runs side by side
    # as one entry (a, a and b under a's id) and a group started by wait_for as one of its own.
    got = ids(tmp_path, JOBS.replace("[global]\n", "[global]\ngroup_reporting\n"))
    assert got == [("a", 0), ("d", 2), ("e", 2), ("f", 3)]


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (apt-get install fio) to compare with")
def test_the_ids_above_are_what_fio_gives(tmp_path):
    path = tmp_path / "groups.fio"
    path.write_text(JOBS)
    r = subprocess.run(["fio", str(path), "--ioengine=null", "--output-format=json"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    jobs = json.loads(r.stdout[r.stdout.index("{") :])["jobs"]
    assert [(j["jobname"], j["groupid"]) for j in jobs] == FIO_IDS


def test_bw_agg_is_a_share_of_the_fio_groups_bandwidth(tmp_path):
    # Rate-limited so the shares are exact: d reads 4 MiB at 4 MiB/s, then e (wait_for=d, fio's
    # group 2 with d) 4 MiB at 2 MiB/s: the group's bandwidth is 8 MiB over e's 2 s, so fio 3.33
    # gives d 100 and e 50 (a, a 50 each, b 100, f 100). ssdlab took e's share of its own run (100).
    path = tmp_path / "rates.fio"
    path.write_text(JOBS.replace("bs=4k\n", "bs=4k\nrate=4m\n").replace("wait_for=d\n", "wait_for=d\nrate=2m\n"))
    r = ssdlab("run", str(path), *small_args(), "--output-format=json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    agg = [(j["jobname"], j["read"]["bw_agg"] if j["read"]["io_bytes"] else j["write"]["bw_agg"]) for j in json.loads(r.stdout)["jobs"]]
    want = [("a", 50), ("a", 50), ("b", 100), ("d", 100), ("e", 50), ("f", 100)]
    assert agg == [(name, pytest.approx(share, abs=1)) for name, share in want], agg
