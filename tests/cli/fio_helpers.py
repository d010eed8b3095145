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


#: Three groups one after the other: 4 MiB written with verify headers, 64 KiB of it overwritten
#: without, the 4 MiB read back with verify: the 16 overwritten blocks fail.
VERIFY_FAILS = [
    "--bs=4k", "--iodepth=4",
    "--name=w", "--rw=write", "--size=4m", "--verify=crc32c", "--do_verify=0",
    "--name=o", "--stonewall", "--rw=write", "--size=64k",
    "--name=r", "--stonewall", "--rw=read", "--size=4m", "--verify=crc32c",
]  # fmt: skip
