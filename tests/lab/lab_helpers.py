"""Shared helpers of the lab's command-line tests: the real CLI as a subprocess, the one-line
error it must give, and the quickest review."""

import subprocess
import sys
from pathlib import Path

#: The quickest review: one small drive at scale 0.02, the power suite only, no progress bars.
QUICK = ["vertex3-120", "--scale", "0.02", "--suites", "power", "--quiet"]


def ssdlab(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the ``ssdlab`` command line in ``cwd``; returns the completed process."""
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def one_error(r: subprocess.CompletedProcess, says: str) -> None:
    """Assert that ``r`` failed as bad input must: exit 2, one ``ssdlab: error:`` line holding
    ``says``, no traceback."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ssdlab: error: ") and says in lines[0], r.stderr
    assert "Traceback" not in r.stderr
