"""Shared helpers of the fio tests: the real CLI as a subprocess, the small drive, fio's examples."""

import os
import subprocess
import sys
from pathlib import Path

from small_drive import small_args  # noqa: F401 (the fio tests import it from here)

#: fio's own example job files, kept beside the project (never copied into it).
EXAMPLES = Path(os.environ.get("SSDLAB_FIO_EXAMPLES", Path(__file__).resolve().parents[2].parent / "shared" / "fio-examples"))


def ssdlab(*args, cwd=None, env=None, timeout=600):
    """Run the ``ssdlab`` command line; returns the completed process."""
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)
