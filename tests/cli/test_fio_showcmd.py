"""ssdlab reads fio's example job files as fio does: fio's own `--showcmd` (the file as fio read
it: comments gone, variables expanded, `timeout` as `runtime`) written back as a job file gives
ssdlab the same groups and jobs as the original file."""

import os
import re
import shlex
import shutil
import subprocess

import pytest
from fio_helpers import EXAMPLES

from ssdlab import _native

FIO = shutil.which("fio")
pytestmark = [
    pytest.mark.skipif(FIO is None, reason="fio is not installed (apt-get install fio; .ci/run installs it)"),
    pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"fio's examples are not at {EXAMPLES}"),
]


ENV = {**os.environ, "uri": "nbd://x"}


def fio_reads(path):
    """Whether this fio parses the file (newer examples use options an older fio lacks)."""
    return subprocess.run([FIO, "--parse-only", str(path)], capture_output=True, text=True, timeout=30, env=ENV).returncode == 0


def as_read_by_fio(path, folder):
    """The job file as fio read it, from `fio --showcmd`."""
    out = subprocess.run([FIO, "--showcmd", str(path)], capture_output=True, text=True, timeout=30, env=ENV).stdout
    words = shlex.split(out)[1:]
    # `--name=` starts a job on fio's command line; a `name=` inside [global] shows the same way.
    sections = set(re.findall(r"^\s*\[([^\]]+)\]", path.read_text(), re.M))
    lines = ["[global]"]
    for word in words:
        key, _, value = word.removeprefix("--").partition("=")
        if key == "name" and value in sections:
            lines.append(f"[{value}]")
        else:
            lines.append(f"{key}={value}" if value else key)
    target = folder / path.name
    target.write_text("\n".join(lines) + "\n")
    return target


def shape(groups):
    return [(g.name, g.rw, g.iodepth, g.jobs, g.runtime_seconds, sorted(g.no_effect)) for g in groups]


def test_examples_read_as_fio_reads_them(tmp_path):
    compared = 0
    for path in sorted(EXAMPLES.glob("*.fio")):
        if not fio_reads(path):
            continue
        try:
            ours = _native.jobs_from_file(str(path), [])
        except Exception:
            continue  # refused (test_fio_examples holds which and why)
        theirs = _native.jobs_from_file(str(as_read_by_fio(path, tmp_path)), [])
        assert shape(ours) == shape(theirs), path.name
        compared += 1
    assert compared >= 17, compared
