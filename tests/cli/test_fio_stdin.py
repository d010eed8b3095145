"""A job file read from standard input (`ssdlab run -`, as `fio -`): the same jobs as from a
file, messages that name `<stdin>` and the line, and an endless or binary input refused in one
line without a traceback."""

import json
import subprocess
import sys

from fio_helpers import small_args

JOB = "[global]\nbs=8k\niodepth=4\nsize=16m\nnumber_ios=300\n[w]\nrw=randwrite\n[r]\nstonewall\nrw=randread\nnumber_ios=200\n"


def run(*args, stdin, cwd=None):
    """`ssdlab run` with `stdin` (bytes, or an open file) as its standard input."""
    feed = {"input": stdin} if isinstance(stdin, bytes) else {"stdin": stdin}
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", "run", *small_args(), *args], capture_output=True, cwd=cwd, timeout=600, **feed)


def figures(result):
    assert result.returncode == 0, result.stderr.decode()
    doc = json.loads(result.stdout)
    return [(job["reads"], job["writes"], job["host_write_bytes"]) for job in doc["jobs"]]


def error_lines(result):
    assert result.returncode == 2, (result.returncode, result.stderr.decode())
    text = result.stderr.decode()
    assert "Traceback" not in text and "panicked" not in text, text
    return [line.removeprefix("ssdlab: error: ") for line in text.splitlines() if line.strip()]


def test_job_file_from_stdin_runs_as_the_same_file(tmp_path):
    path = tmp_path / "job.fio"
    path.write_text(JOB)
    from_file = figures(run(str(path), "--quiet", "--json", "-", stdin=b""))
    assert from_file == [(0, 300, 300 * 8192), (200, 0, 0)], from_file
    assert figures(run("-", "--quiet", "--json", "-", stdin=JOB.encode())) == from_file
    assert figures(run("--job-file", "-", "--quiet", "--json", "-", stdin=JOB.encode())) == from_file
    # Command-line options still override the file's, as for a file.
    doc = json.loads(run("-", "--number_ios=50", "--quiet", "--json", "-", stdin=JOB.encode()).stdout)
    assert [job["writes"] + job["reads"] for job in doc["jobs"]] == [50, 50]


def test_include_is_read_from_the_current_folder(tmp_path):
    (tmp_path / "common.fio").write_text("bs=16k\nsize=16m\nnumber_ios=40\n")
    result = run("-", "--quiet", "--json", "-", stdin=b"[global]\ninclude common.fio\n[w]\nrw=write\n", cwd=tmp_path)
    assert figures(result) == [(0, 40, 40 * 16384)]


def test_problems_name_stdin_and_the_line():
    lines = error_lines(run("-", stdin=b"[global]\nbs=4k\nbogus=1\n[a]\nrw=sideways\n"))
    assert len(lines) == 2, lines
    assert lines[0].startswith("<stdin>:3:") and "bogus" in lines[0]
    assert lines[1].startswith("<stdin>:5:") and "sideways" in lines[1]


def test_endless_input_is_refused_after_the_bound():
    with open("/dev/zero", "rb") as zero:
        lines = error_lines(run("-", stdin=zero))
    assert len(lines) == 1 and "standard input gave more than 4,194,304 bytes" in lines[0], lines


def test_binary_input_is_named_not_echoed():
    lines = error_lines(run("-", stdin=b"[a]\nrw=read\n\x00\x1b[31m"))
    assert len(lines) == 1 and lines[0].startswith("<stdin>:3: binary data"), lines
    assert "\x1b" not in lines[0]


def test_stdin_and_a_file_is_two_job_files(tmp_path):
    path = tmp_path / "job.fio"
    path.write_text(JOB)
    lines = error_lines(run("-", str(path), stdin=JOB.encode()))
    assert lines == [f"give one job file, not 2 (-, {path})"], lines
