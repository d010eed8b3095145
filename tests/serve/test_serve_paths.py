"""Issue 19: no path given to `ssdlab serve` is ever deleted unless it is a stale socket of its
own; background starts say whether they serve; kills and busy ports get clear lines."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest
from served import SANDFORCE, Served, need

OVERRIDES = [a for o in SANDFORCE[1] for a in ("--set", o)]


def ssdlab(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True, timeout=120, **kwargs)


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line_error(r: subprocess.CompletedProcess, expected: str) -> None:
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(lines) == 1 and expected in lines[0], (r.returncode, r.stderr)


def test_the_image_of_a_running_server_survives_being_given_as_control(serve, tmp_path):
    first = serve()
    before = digest(first.backing)
    r = ssdlab("serve", *OVERRIDES, "--backing", str(tmp_path / "other.img"), "--control", str(first.backing))
    one_line_error(r, "is a regular file")
    assert first.backing.is_file() and digest(first.backing) == before
    assert first.stats()["backing_file"]  # the first server still answers
    # Its live control socket and NBD socket are refused too, not replaced.
    r = ssdlab("serve", *OVERRIDES, "--backing", str(tmp_path / "other.img"), "--control", str(first.control))
    one_line_error(r, "a running server answers")
    r = ssdlab("serve", *OVERRIDES, "--backing", str(tmp_path / "other.img"), "--socket", str(first.socket))
    one_line_error(r, "a running server answers")
    assert first.socket.is_socket() and first.control.is_socket()
    first.stats()


def test_control_equal_to_socket_or_backing_and_other_files_are_refused_and_kept(tmp_path):
    need("nbdkit")
    keep = tmp_path / "notes.txt"
    keep.write_text("precious")
    backing = tmp_path / "d.img"
    r = ssdlab("serve", *OVERRIDES, "--backing", str(backing), "--control", str(keep))
    one_line_error(r, "notes.txt: is a regular file")
    r = ssdlab("serve", *OVERRIDES, "--backing", str(backing), "--socket", str(keep))
    one_line_error(r, "notes.txt: is a regular file")
    r = ssdlab("serve", *OVERRIDES, "--backing", str(backing), "--control", str(tmp_path / "s"), "--socket", str(tmp_path / "s"))
    one_line_error(r, "is the same path as --socket")
    r = ssdlab("serve", *OVERRIDES, "--backing", str(backing), "--control", str(backing))
    one_line_error(r, "is the same path as --backing")
    r = ssdlab("serve", *OVERRIDES, "--backing", str(backing), "--control", str(tmp_path))
    one_line_error(r, "is a folder")
    r = ssdlab("serve", *OVERRIDES, "--backing", str(backing), "--background", "--pidfile", str(keep))
    one_line_error(r, "is not a pid file")
    assert keep.read_text() == "precious"
    assert not backing.exists()  # nothing started, nothing created


def test_pidfile_needs_background_and_an_existing_folder(tmp_path):
    need("nbdkit")
    r = ssdlab("serve", *OVERRIDES, "--backing", str(tmp_path / "d.img"), "--pidfile", str(tmp_path / "p"))
    one_line_error(r, "--pidfile: only with --background")
    r = ssdlab("serve", *OVERRIDES, "--backing", str(tmp_path / "d.img"), "--background", "--pidfile", str(tmp_path / "no" / "p"))
    one_line_error(r, "does not exist")


def _stop(pidfile, sig=signal.SIGTERM) -> None:
    pid = int(pidfile.read_text())
    os.kill(pid, sig)
    _wait_gone(pid)


def _wait_gone(pid: int) -> None:
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"server {pid} did not stop")


def test_background_start_with_a_relative_backing_serves_and_restarts_after_kill_9(tmp_path):
    need("nbdkit")
    pidfile = tmp_path / "d.pid"
    r = ssdlab("serve", *OVERRIDES, "--backing", "d.img", "--background", "--pidfile", "d.pid", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    try:
        # The control socket is beside the image, not in / (nbdkit changes folder to /).
        assert (tmp_path / "d.img.control").is_socket() and f"control: {tmp_path / 'd.img.control'}" in r.stdout, r.stdout
        assert json.loads(ssdlab("stats", "--socket", str(tmp_path / "d.img.control")).stdout)["backing_file"]
    finally:
        _stop(pidfile, signal.SIGKILL)
    # kill -9 left both sockets: a background restart replaces them (stale, ours) and says what
    # it recovered.
    r = ssdlab("serve", *OVERRIDES, "--backing", "d.img", "--background", "--pidfile", "d.pid", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    try:
        assert "recovered" in r.stdout, r.stdout
        assert json.loads(ssdlab("stats", "--socket", str(tmp_path / "d.img.control")).stdout)
    finally:
        _stop(pidfile)
    # After a clean stop too.
    r = ssdlab("serve", *OVERRIDES, "--backing", "d.img", "--background", "--pidfile", "d.pid", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    _stop(pidfile)


def test_the_stop_command_of_a_background_server_works_as_printed_in_a_folder_with_a_space(tmp_path):
    # A probe (2026-12-07): `stop it with: kill $(cat /tmp/a b/p.pid)` was printed unquoted, and
    # pasted into a shell it read `/tmp/a`.
    need("nbdkit")
    folder = tmp_path / "a b"
    folder.mkdir()
    pidfile = folder / "p.pid"
    r = ssdlab("serve", *OVERRIDES, "--backing", "d.img", "--background", "--pidfile", "p.pid", cwd=folder)
    assert r.returncode == 0, r.stderr
    try:
        (line,) = [row for row in r.stdout.splitlines() if row.startswith("stop it with: ")]
        pid = int(pidfile.read_text())
        done = subprocess.run(["sh", "-c", line.removeprefix("stop it with: ")], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, (line, done.stderr)
        _wait_gone(pid)
    finally:
        if pidfile.exists():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pidfile.read_text()), signal.SIGKILL)


def test_kill_9_under_a_foreground_serve_says_so_and_the_next_serve_recovers(tmp_path):
    s = Served(tmp_path, *SANDFORCE).start()
    children = subprocess.run(["pgrep", "-P", str(s.process.pid)], capture_output=True, text=True).stdout.split()
    assert len(children) == 1, children
    os.kill(int(children[0]), signal.SIGKILL)
    out, err = s.process.communicate(timeout=60)
    assert s.process.returncode == 2 and "was killed (SIGKILL)" in err and "recovers" in err and "Traceback" not in err, err
    s.process = None
    s2 = Served(tmp_path, *SANDFORCE)
    s2.start()
    assert s2.stats()
    text = s2.stop()
    assert "recovered" in text, text


def test_ctrl_c_while_the_drive_is_being_opened_does_not_claim_it_was_saved(tmp_path):
    # Ctrl-C reaches nbdkit too; before the drive is open (here: preconditioned at start) nbdkit
    # has not set its handlers and dies of the signal, with no clean shutdown. `serve` said
    # "stopped; the drive's state is saved" all the same.
    need("nbdkit")
    backing = tmp_path / "drive.img"
    cmd = [sys.executable, "-m", "ssdlab.cli", "serve", "force-gs-240", "--backing", str(backing), *OVERRIDES, "--precondition", "rand-fill"]
    p = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)
    )
    deadline = time.time() + 60
    while not subprocess.run(["pgrep", "-P", str(p.pid), "nbdkit"], capture_output=True).stdout:
        assert p.poll() is None and time.time() < deadline, p.communicate()
        time.sleep(0.01)
    time.sleep(0.2)  # nbdkit is loading the plugin, which preconditions the drive (about a second)
    assert not (tmp_path / "drive.img.control").exists(), "the drive was open already: too fast a machine for this test"
    os.killpg(p.pid, signal.SIGINT)  # Ctrl-C: the whole process group
    out, err = p.communicate(timeout=60)
    assert "state is saved" not in out + err and "interrupted while the drive was being opened" in out, (out, err)
    assert p.returncode == 130 and "Traceback" not in err, (p.returncode, err)
    s = Served(tmp_path, *SANDFORCE).start()  # the file opens again
    s.stop()


def test_a_busy_port_names_the_port(tmp_path):
    need("nbdkit")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = ssdlab("serve", *OVERRIDES, "--backing", str(tmp_path / "d.img"), "--port", str(port))
        one_line_error(r, f"--port {port}: already in use")


def test_a_control_socket_answering_garbage_gets_one_line(tmp_path):
    # Cause 8: the control protocol trusts its peer.
    path = tmp_path / "fake.control"
    replies = [b"\xff\xfe not text", b"[1, 2, 3]", b"not json at all", b'{"power_cut": 5}']
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen()

    def answer() -> None:
        for reply in replies:
            conn, _ = listener.accept()
            conn.recv(100)
            conn.sendall(reply)
            conn.close()

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        one_line_error(ssdlab("stats", "--socket", str(path)), "not text")
        one_line_error(ssdlab("stats", "--socket", str(path)), "did not answer ssdlab's statistics")
        one_line_error(ssdlab("ctl", "stats", "--socket", str(path)), "did not answer ssdlab's statistics")
        one_line_error(ssdlab("ctl", "power-cut", "--socket", str(path)), "did not confirm the power cut")
    finally:
        thread.join(timeout=10)
        listener.close()


@pytest.mark.parametrize("what", ["file", "folder"])
def test_stats_on_something_that_is_not_a_socket(tmp_path, what):
    path = tmp_path / "x"
    path.write_text("x") if what == "file" else path.mkdir()
    one_line_error(ssdlab("stats", "--socket", str(path)), "cannot reach the server's control socket")


def test_the_pidfile_of_a_running_process_is_not_taken(tmp_path):
    # serve took over a live server's pid file, so `kill $(cat FILE)` stopped the wrong server.
    need("nbdkit")
    pidfile = tmp_path / "p.pid"
    r = ssdlab("serve", *OVERRIDES, "--backing", str(tmp_path / "first.img"), "--background", "--pidfile", str(pidfile))
    assert r.returncode == 0, r.stderr
    try:
        before = pidfile.read_text()
        r = ssdlab("serve", *OVERRIDES, "--backing", str(tmp_path / "d.img"), "--background", "--pidfile", str(pidfile))
        one_line_error(r, "is still running")
        assert pidfile.read_text() == before and not (tmp_path / "d.img").exists()
    finally:
        _stop(pidfile)
    # A pid reused by another program since (this test's own) leaves the file stale: taken.
    pidfile.write_text(f"{os.getpid()}\n")
    r = ssdlab("serve", *OVERRIDES, "--backing", str(tmp_path / "d.img"), "--background", "--pidfile", str(pidfile))
    assert r.returncode == 0, r.stderr
    _stop(pidfile)


def test_secure_erase_never_empties_a_file_that_is_not_a_drive(tmp_path):
    # --secure-erase made a text file into a 69 GB drive image.
    need("nbdkit")
    notes = tmp_path / "notes.txt"
    notes.write_text("someone's data\n" * 1000)
    before = digest(notes)
    r = ssdlab("serve", *OVERRIDES, "--backing", str(notes), "--secure-erase", "--background", "--pidfile", str(tmp_path / "p.pid"))
    assert r.returncode == 2 and "not an ssdlab backing file" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert digest(notes) == before


def test_the_uri_names_the_socket_percent_encoded():
    from ssdlab.serve import ServeOptions, uri

    options = ServeOptions(profile="force-gs-240", backing="x", socket="/tmp/a b/pct%41 é&#?.sock")
    assert uri(options) == "nbd+unix:///?socket=/tmp/a%20b/pct%2541%20%C3%A9%26%23%3F.sock"
    assert uri(ServeOptions(profile="p", backing="x", socket="/tmp/plain/d.img.sock")) == "nbd+unix:///?socket=/tmp/plain/d.img.sock"


def test_secure_erase_takes_a_blank_sparse_file_but_not_zeros_then_data(tmp_path):
    need("nbdkit")
    # Zeros at the start, data after them: the header check alone took it for blank.
    iso = tmp_path / "image.iso"
    with open(iso, "wb") as f:
        f.write(b"\0" * (64 << 10) + b"CD001 data" + b"\0" * 100)
    before = digest(iso)
    r = ssdlab("serve", *OVERRIDES, "--backing", str(iso), "--secure-erase", "--background", "--pidfile", str(tmp_path / "p.pid"))
    assert r.returncode == 2 and "not an ssdlab backing file" in r.stderr, r.stderr
    assert digest(iso) == before
    # A sparse blank file (truncate) is a drive to empty.
    blank = tmp_path / "blank.img"
    with open(blank, "wb") as f:
        f.truncate(1 << 30)
    r = ssdlab("serve", *OVERRIDES, "--backing", str(blank), "--secure-erase", "--background", "--pidfile", str(tmp_path / "b.pid"))
    assert r.returncode == 0, r.stderr
    _stop(tmp_path / "b.pid")
