"""fio's own example job files (in ../shared/fio-examples, not copied into the project) run as
they are, with --runtime/--size from the command line where a job would take simulated hours;
those refused name every reason at once."""

import json

import pytest
from fio_helpers import EXAMPLES, ssdlab

#: Files ssdlab refuses, and a piece of each reason it must give (all in one message).
REFUSED = {
    "basic-verify.fio": ["verify:"],
    "latency-profile.fio": ["latency_target:", "latency_window:", "latency_percentile:"],
    "surface-scan.fio": ["verify:", "verify_pattern:", "verify_interval:"],
}
#: How many of the 21 run.
RUNNING = 18


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
