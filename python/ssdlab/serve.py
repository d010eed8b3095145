"""``ssdlab serve``: the simulated drive as a real block device over NBD.

nbdkit (the maintained NBD server) does the protocol; ssdlab's plugin (``ssdlab._nbd``, built
with the package) is the drive, storing its data in a backing file. ``ssdlab stats`` reads the
live figures from the server's control socket.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab.drive import profile_source
from ssdlab.errors import SsdlabError

INSTALL_HINT = "install it with `sudo apt-get install nbdkit` (Debian, Ubuntu) or `sudo dnf install nbdkit` (Fedora), then try again"


@dataclass
class ServeOptions:
    """What to serve and how."""

    profile: str
    backing: str
    overrides: list[str] = field(default_factory=list)
    socket: str | None = None
    port: int | None = None
    latency: str = "none"
    seed: int = 1
    control: str | None = None
    background: bool = False
    pidfile: str | None = None
    power_cut_after: int | None = None
    faults: list[str] = field(default_factory=list)


#: Exit code of the plugin after a power cut (ssdlab-nbd's POWER_CUT_EXIT).
POWER_CUT_EXIT = 75


def nbdkit_path() -> str:
    """The nbdkit binary, or a clear error saying how to install it."""
    found = shutil.which("nbdkit")
    if not found:
        raise SsdlabError(f"nbdkit is not installed: {INSTALL_HINT}")
    return found


def plugin_path() -> Path:
    """The plugin shared object shipped with the package."""
    from ssdlab._nbd import PLUGIN

    if not PLUGIN.is_file():
        raise SsdlabError(f"{PLUGIN}: the nbdkit plugin is missing from this installation (rebuild: bash scripts/setup.sh or pip install .)")
    return PLUGIN


def uri(options: ServeOptions) -> str:
    """The NBD URI clients connect to."""
    if options.port is not None:
        return f"nbd://127.0.0.1:{options.port}"
    return f"nbd+unix:///?socket={options.socket}"


def _defaults(options: ServeOptions) -> ServeOptions:
    backing = Path(options.backing)
    if options.socket is None and options.port is None:
        options.socket = str(backing.with_name(backing.name + ".sock"))
    if options.control is None:
        options.control = str(backing.with_name(backing.name + ".control"))
    return options


def check(options: ServeOptions) -> None:
    """Refuse what can be refused before nbdkit starts: the profile, the backing path, the
    endpoints."""
    profile_source(options.profile, options.overrides)
    backing = Path(options.backing)
    if backing.is_dir():
        raise SsdlabError(f"--backing {backing}: is a folder; give a file name")
    folder = backing.resolve().parent
    if not folder.is_dir():
        raise SsdlabError(f"--backing {backing}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (backing.exists() and not os.access(backing, os.W_OK)):
        raise SsdlabError(f"--backing {backing}: not writable")
    if options.latency not in ("none", "emulate"):
        raise SsdlabError(f"--latency: expected none or emulate (got {options.latency})")
    if options.port is not None and not 1 <= options.port <= 65535:
        raise SsdlabError(f"--port: expected 1 to 65535 (got {options.port})")


def command(options: ServeOptions) -> list[str]:
    """The nbdkit command line."""
    cmd = [nbdkit_path()]
    if options.background:
        if options.pidfile:
            cmd += ["--pidfile", options.pidfile]
    else:
        cmd += ["--foreground", "--exit-with-parent"]
    if options.port is not None:
        cmd += ["--port", str(options.port), "--ipaddr", "127.0.0.1"]
    else:
        cmd += ["--unix", str(options.socket)]
    # Enough worker threads for NCQ's 32 commands in flight on a connection.
    cmd += ["--threads", "64", "--filter=blocksize-policy", str(plugin_path())]
    cmd += [f"profile={options.profile}", f"backing={options.backing}", f"latency={options.latency}", f"seed={options.seed}", f"control={options.control}"]
    cmd += [f"set={o}" for o in options.overrides]
    if options.power_cut_after is not None:
        cmd += [f"power-cut-after={options.power_cut_after}"]
    if options.faults:
        cmd += [f"fault={','.join(options.faults)}"]
    cmd += ["blocksize-minimum=512", "blocksize-preferred=4096", "blocksize-maximum=33554432"]
    return cmd


def _error_of(stderr: str) -> str:
    """nbdkit's last error line, without its prefixes."""
    lines = [line for line in stderr.splitlines() if "error" in line.lower()] or stderr.splitlines() or ["nbdkit failed"]
    line = lines[-1]
    for prefix in ("nbdkit: ", "ssdlab[1]: ", "ssdlab: ", "error: "):
        while prefix in line:
            line = line.split(prefix, 1)[1]
    return line.strip()


def serve(options: ServeOptions, echo) -> int:
    """Run the server (foreground: until Ctrl-C or SIGTERM; background: start it and return)."""
    options = _defaults(options)
    check(options)
    cmd = command(options)
    if options.background:
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            raise SsdlabError(f"nbdkit: {_error_of(result.stderr)}")
        echo(uri(options))
        echo(f"control: {options.control}")
        if options.pidfile:
            echo(f"stop it with: kill $(cat {options.pidfile})")
        return 0
    for stale in (options.socket, options.control):
        if stale and Path(stale).is_socket():
            Path(stale).unlink()  # from a server that did not stop cleanly
    process = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    errors: list[str] = []
    ready = threading.Event()

    def relay() -> None:
        # nbdkit's messages pass through once it serves; before, errors are kept for one clean
        # line of our own.
        for line in process.stderr:  # type: ignore[union-attr]
            errors.append(line)
            if ready.is_set() or "ssdlab: recovered" in line:
                sys.stderr.write(line)

    reader = threading.Thread(target=relay, daemon=True)
    reader.start()
    stop = {"signal": None}

    def forward(signum, frame) -> None:
        stop["signal"] = signum
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        # The plugin opens its control socket once nbdkit listens.
        while process.poll() is None and not Path(str(options.control)).is_socket():
            time.sleep(0.05)
        if process.poll() is None:
            ready.set()
            echo(f"serving {uri(options)} (control: {options.control}); Ctrl-C to stop")
        code = process.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    reader.join(timeout=5)
    if options.socket and Path(options.socket).is_socket():
        Path(options.socket).unlink()
    if code == POWER_CUT_EXIT:
        echo("the drive lost power; `ssdlab serve` of " + options.backing + " recovers it")
        return 0
    if code != 0 and stop["signal"] is None:
        raise SsdlabError(f"nbdkit: {_error_of(''.join(errors))}")
    echo("stopped; the drive's state is saved in " + options.backing)
    return 0


def power_cut(control: str) -> str:
    """Cut a running server's power; returns what it said was lost."""
    text = stats(control, "power-cut")
    try:
        return json.loads(text)["power_cut"]
    except (ValueError, KeyError):
        raise SsdlabError(f"{control}: the server did not confirm the power cut (answered {text.strip()[:200]!r})") from None


def stats(control: str, command_word: str = "stats") -> str:
    """Send a running server's control socket one command word (`stats`: JSON, `series`: CSV,
    `power-cut`: its confirmation) and return the answer."""
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(10)
            s.connect(control)
            s.sendall(command_word.encode() + b"\n")
            chunks = []
            while True:
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    except OSError as error:
        raise SsdlabError(f"{control}: cannot reach the server's control socket: {error.strerror or error}") from None
    text = b"".join(chunks).decode()
    if command_word == "stats":
        json.loads(text)  # a server answers JSON; anything else is not ours
    return text
