"""Ctrl-C and SIGTERM stop a run within one second of wall time, whatever a completion costs."""

import signal
import subprocess
import sys
import time

import pytest

JOBS = {
    "4 KiB random writes": ["--rw=randwrite", "--bs=4k", "--iodepth=32"],
    "1 MiB sequential writes": ["--rw=write", "--bs=1m", "--iodepth=32"],
}


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
@pytest.mark.parametrize("job", list(JOBS), ids=list(JOBS))
def test_a_signal_stops_a_run_within_one_second(signum, job):
    p = subprocess.Popen(
        [sys.executable, "-m", "ssdlab.cli", "run", *JOBS[job], "--runtime=100000", "--time_based", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # Long enough to be simulating (interpreter start, profile, drive), whatever the machine's load.
    time.sleep(5)
    assert p.poll() is None, p.communicate()
    sent = time.perf_counter()
    p.send_signal(signum)
    _, err = p.communicate(timeout=60)
    took = time.perf_counter() - sent
    assert p.returncode == 130 and err.strip() == "ssdlab: interrupted", (p.returncode, err)
    assert took < 1.0, f"stopped {took:.2f} s after the signal"
