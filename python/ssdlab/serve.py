"""``ssdlab serve``: the simulated drive as a real block device over NBD.

nbdkit (the maintained NBD server) does the protocol; ssdlab's plugin (``ssdlab._nbd``, built
with the package) is the drive, storing its data in a backing file. ``ssdlab stats`` reads the
live figures from the server's control socket.
"""

from __future__ import annotations

import errno
import json
import os
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab import paths
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
    secure_erase: bool = False
    precondition: list[str] = field(default_factory=list)
    #: Write whole 128 KiB units of data bypassing the page cache (O_DIRECT) where the file
    #: system allows it (docs/backing-file.md).
    direct_data: bool = False
    #: The paths ssdlab chose beside the backing file ("socket", "control"): their errors say so.
    defaulted: set[str] = field(default_factory=set)


#: The failure modes of `--fault` (docs/power-loss.md), each `NAME` or `NAME=P` (P: the
#: probability that it strikes at a power cut, in (0, 1]).
FAULT_NAMES = ("lying-flush", "shorn-writes", "unserializable-writes", "metadata-corruption", "dead-device")


def check_fault(text: str) -> str:
    """A `--fault` value, checked: `NAME` or `NAME=P` with P in (0, 1]."""
    name, _, p = text.partition("=")
    if name not in FAULT_NAMES:
        raise SsdlabError(f"--fault: unknown failure mode `{name}` (expected one of {', '.join(FAULT_NAMES)}, each NAME or NAME=P)")
    if p:
        try:
            value = float(p)
        except ValueError:
            value = -1.0
        if not 0.0 < value <= 1.0:
            raise SsdlabError(f"--fault {name}: probability `{p}` is not a number in (0, 1]")
    return text


#: Exit code of the plugin after a power cut (ssdlab-nbd's POWER_CUT_EXIT).
POWER_CUT_EXIT = 75

#: Longest answer read from a control socket (a day's per-second series is ~10 MB).
MAX_CONTROL_REPLY_BYTES = 256 << 20


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
    # The socket's path percent-encoded, as NBD URIs are read (a space, `%`, `&`, `#`, `?` or
    # a non-ASCII letter otherwise names another socket or breaks the URI).
    return f"nbd+unix:///?socket={urllib.parse.quote(os.fsencode(str(options.socket)), safe='/')}"


def _defaults(options: ServeOptions) -> ServeOptions:
    """Fill in the default socket and control paths and make every path absolute: nbdkit
    changes folder to / when it daemonises, so a relative path would land there."""
    backing = Path(paths.text_path("--backing", options.backing)).absolute()
    if not backing.name or backing.is_dir():
        raise SsdlabError(f"--backing {paths.shown(options.backing)}: is a folder; give the backing file's name (created if missing)")
    options.backing = str(backing)
    if options.socket is None and options.port is None:
        options.socket = str(backing.with_name(backing.name + ".sock"))
        options.defaulted.add("socket")
    if options.control is None:
        options.control = str(backing.with_name(backing.name + ".control"))
        options.defaulted.add("control")
    options.control = str(Path(paths.text_path("--control", options.control)).absolute())
    if options.socket is not None:
        options.socket = str(Path(paths.text_path("--socket", options.socket)).absolute())
    if options.pidfile is not None:
        options.pidfile = str(Path(paths.text_path("--pidfile", options.pidfile)).absolute())
    if not _is_builtin(options.profile) and Path(options.profile).exists():
        options.profile = str(Path(options.profile).absolute())
    return options


def _is_builtin(profile: str) -> bool:
    from ssdlab.drive import profile_names

    return profile in profile_names()


def check(options: ServeOptions) -> None:
    """Refuse what can be refused before nbdkit starts: the profile, the backing path, the
    endpoints. No path is ever deleted here except a stale socket (nobody answers on it) at
    the socket or control path."""
    for step in options.precondition:
        _precondition_step(step)
    if options.pidfile is not None and not options.background:
        raise SsdlabError("--pidfile: only with --background (a foreground server's process id is this command's)")
    if options.latency not in ("none", "emulate"):
        raise SsdlabError(f"--latency: expected none or emulate (got {options.latency})")
    if options.port is not None and not 1 <= options.port <= 65535:
        raise SsdlabError(f"--port: expected 1 to 65535 (got {options.port})")
    looks_like_a_path = os.path.sep in options.profile or options.profile.endswith(".toml") or os.path.lexists(options.profile)
    if not _is_builtin(options.profile) and looks_like_a_path:
        # (A name that is neither a built-in profile nor a path gets the list of built-in
        # profiles from profile_source below, as `run` and `review` give it.)
        paths.input_file("profile", options.profile, paths.MAX_TEXT_FILE_BYTES)
    profile_source(options.profile, options.overrides)
    backing = Path(options.backing)
    try:
        info = backing.stat()
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise SsdlabError(f"--backing {paths.shown(backing)}: {paths.why(error)}") from None
    if info is not None and backing.is_dir():
        raise SsdlabError(f"--backing {paths.shown(backing)}: is a folder; give a file name")
    if info is not None and not backing.is_file():
        raise SsdlabError(f"--backing {paths.shown(backing)}: is {paths.kind_of(info.st_mode)}; give a regular file")
    folder = backing.parent
    if not folder.is_dir():
        raise SsdlabError(f"--backing {paths.shown(backing)}: folder {paths.shown(folder)} does not exist")
    if info is not None and not os.access(backing, os.W_OK):
        raise SsdlabError(f"--backing {paths.shown(backing)}: not writable")
    if not os.access(folder, os.W_OK):
        # The file may be writable: the folder is what is not (a new file, or the sockets
        # beside it, would be made there).
        raise SsdlabError(f"--backing {paths.shown(backing)}: its folder {paths.shown(folder)} is not writable")
    # No two of the paths may be the same file: --control on the backing image or on the NBD
    # socket would replace it.
    named = {"--backing": options.backing, "--socket": options.socket, "--control": options.control, "--pidfile": options.pidfile}
    seen: dict[str, str] = {}
    for name, path in named.items():
        if path is None:
            continue
        key = os.path.realpath(path)
        if key in seen:
            raise SsdlabError(f"{name} {paths.shown(path)}: is the same path as {seen[key]}; give another path")
        seen[key] = name
    if options.pidfile is not None:
        paths.output_file("--pidfile", options.pidfile, stdout=False)  # an old pid file only: below
        _check_pidfile(options.pidfile)
    if options.port is not None:
        _check_port(options.port)
    # Only a stale socket of a server that did not stop cleanly may be replaced.
    # A path ssdlab chose is named as such (a long --backing path made a socket path too long,
    # and the error named --socket, which the user had not given).
    label = {name: f"--{name}" + (" (by default beside --backing)" if name in options.defaulted else "") for name in ("socket", "control")}
    if options.socket is not None:
        paths.claim_socket(label["socket"], options.socket)
    paths.claim_socket(label["control"], str(options.control))


def _precondition_step(step: str) -> str:
    """A `--precondition` step, checked as the plugin checks it (the one definition of the steps
    of `ssdlab run --precondition`, ssdlab.preconditions), passed on as given."""
    from ssdlab import preconditions as pre

    if step == "layout":
        raise SsdlabError("--precondition layout: a served drive has no job whose span to lay out; use seq-fill")
    pre.parse(step)
    return step


def _check_pidfile(path: str) -> None:
    """nbdkit overwrites the pid file: only a missing file or an old pid file may be there."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except FileNotFoundError:
        return
    except OSError as error:
        raise SsdlabError(f"--pidfile {paths.shown(path)}: {paths.why(error)}") from None
    if not head.strip().isdigit():
        raise SsdlabError(f"--pidfile {paths.shown(path)}: exists and is not a pid file; give another path (it would be overwritten)")
    # The pid file of a server still running stays its own (`kill $(cat FILE)` would stop the
    # wrong one).
    pid = int(head.strip())
    if pid > 0 and _server_running(pid):
        raise SsdlabError(f"--pidfile {paths.shown(path)}: server {pid} named in it is still running; stop it or give another path")


def _server_running(pid: int) -> bool:
    """Whether process `pid` is a running nbdkit (a pid reused by another program since a crash
    leaves the file stale)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"nbdkit" in f.read(1 << 16)
    except (FileNotFoundError, ProcessLookupError):
        return False
    except OSError:
        # No /proc to read: whether the process exists at all.
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, OverflowError):
            return False
        except PermissionError:
            return True
        return True


def _check_port(port: int) -> None:
    """Refuse a TCP port something already listens on, naming it."""
    with socket.socket(socket.AF_INET) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError as error:
            reason = "already in use" if error.errno == errno.EADDRINUSE else (error.strerror or str(error))
            raise SsdlabError(f"--port {port}: {reason}; give another port") from None


def worker_threads(latency: str) -> int:
    """nbdkit's worker threads per connection for a latency mode.

    Emulated replies each hold a thread until their simulated completion, so the pool must
    cover NCQ's 32 commands in flight with room to spare (64). Without emulation a request
    holds its thread only while the server works on it, and 16 keep 2 cores busy; fewer matter
    because nbdkit keeps, per worker thread, a data buffer as large as the largest request the
    thread has served until the connection closes: 64 threads filled by 1 MiB writes held
    64 MiB (BENCHMARKS.md, issue 24 round five).
    """
    return 64 if latency == "emulate" else 16


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
    cmd += ["--threads", str(worker_threads(options.latency)), "--filter=blocksize-policy", str(plugin_path())]
    cmd += [f"profile={options.profile}", f"backing={options.backing}", f"latency={options.latency}", f"seed={options.seed}", f"control={options.control}"]
    cmd += [f"set={o}" for o in options.overrides]
    if options.power_cut_after is not None:
        cmd += [f"power-cut-after={options.power_cut_after}"]
    if options.faults:
        cmd += [f"fault={','.join(check_fault(f) for f in options.faults)}"]
    if options.secure_erase:
        cmd += ["secure-erase=yes"]
    if options.direct_data:
        cmd += ["direct-data=yes"]
    cmd += [f"precondition={_precondition_step(step)}" for step in options.precondition]
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


def _recovery_lines(stderr: str) -> list[str]:
    """What the plugin said at start (recovery report, data-loss warnings), as the foreground
    start relays it."""
    return [line for line in stderr.splitlines() if "ssdlab:" in line and "error" not in line.lower()]


def _answers(options: ServeOptions) -> bool:
    """Does the export answer (an NBD greeting on its socket or port) and the control socket
    (a JSON `stats`)?"""
    try:
        family, address = (socket.AF_INET, ("127.0.0.1", options.port)) if options.port is not None else (socket.AF_UNIX, options.socket)
        with socket.socket(family) as s:
            s.settimeout(2)
            s.connect(address)
            greeting = s.recv(8)
        if greeting != b"NBDMAGIC":
            return False
        json.loads(stats(str(options.control)))
        return True
    except (OSError, SsdlabError, ValueError):
        return False


def _start_background(options: ServeOptions, cmd: list[str], echo) -> int:
    """Start nbdkit in the background; return only once the export and the control socket
    answer (else an error saying it is not serving)."""
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise SsdlabError(f"nbdkit: {_error_of(result.stderr)}")
    for line in _recovery_lines(result.stderr):
        echo(line)
    deadline = time.monotonic() + BACKGROUND_START_S
    while not _answers(options):
        if time.monotonic() > deadline:
            raise SsdlabError(f"the background server is not serving {uri(options)} after {BACKGROUND_START_S:g} s (nbdkit said: {_error_of(result.stderr)})")
        time.sleep(0.05)
    echo(uri(options))
    echo(f"control: {options.control}")
    if options.pidfile:
        echo(f"stop it with: kill $(cat {shlex.quote(str(options.pidfile))})")
    return 0


#: How long a background start may take to answer once nbdkit has forked (the drive is built
#: and recovered before the fork).
BACKGROUND_START_S = 20.0


#: Tables from which opening a drive takes long enough to say so (a 4 TB drive: 37 to 72 s).
OPENING_NOTE_FROM_BYTES = 1 << 30


def _opening_line(options: ServeOptions) -> str | None:
    """A line before a large drive is opened (its tables built, or loaded and its journal
    replayed), which otherwise says nothing until it serves; `None` for a small drive."""
    from ssdlab.drive import profile_info

    tables = profile_info(options.profile, options.overrides)["table_bytes"]
    if tables < OPENING_NOTE_FROM_BYTES:
        return None
    return f"opening {options.backing}: the drive's tables take {tables / (1 << 30):.1f} GiB, a minute or so to build or load"


def serve(options: ServeOptions, echo) -> int:
    """Run the server (foreground: until Ctrl-C or SIGTERM; background: start it and return
    once it answers)."""
    options = _defaults(options)
    check(options)
    cmd = command(options)
    opening = _opening_line(options)
    if opening:
        echo(opening)
    if options.background:
        return _start_background(options, cmd, echo)
    process = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    errors: list[str] = []
    ready = threading.Event()

    def relay() -> None:
        # nbdkit's messages pass through once it serves; before, errors are kept for one clean
        # line of our own.
        for line in process.stderr:  # type: ignore[union-attr]
            errors.append(line)
            if ready.is_set() or any(said in line for said in ("ssdlab: recovered", "ssdlab: precondition ", "ssdlab: the drive is dead")):
                sys.stderr.write(line)

    reader = threading.Thread(target=relay, daemon=True)
    reader.start()
    stop = {"signal": None}

    def serving() -> bool:
        # The plugin opens its control socket once nbdkit listens, the drive opened.
        return Path(str(options.control)).is_socket()

    def forward(signum, frame) -> None:
        first = stop["signal"] is None
        stop["signal"] = signum
        if process.poll() is None:
            # Asked whether it serves rather than whether the loop below has seen it yet: a stop
            # within the loop's 50 ms of the socket appearing was taken for one while opening.
            if first and serving():
                # The checkpoint at the stop takes a while on a large drive (49 s for the
                # 4 TB samsung-870-evo-4tb here) and said nothing until it was done.
                # nbdkit stops once its clients have disconnected: say so, or a client left
                # connected reads as a save that never ends.
                echo(f"stopping: once every client has disconnected, saving the drive's state in {options.backing} (a large drive takes a while)")
            process.send_signal(signal.SIGTERM)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while process.poll() is None and not serving():
            time.sleep(0.05)
        if process.poll() is None:
            ready.set()
            if stop["signal"] is None:
                echo(f"serving {uri(options)} (control: {options.control}); Ctrl-C to stop")
        code = process.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    reader.join(timeout=5)
    # Sockets this server bound and left behind (a killed nbdkit): stale ones only.
    for path in (options.socket, options.control):
        if path and paths.socket_state(path) == "stale":
            Path(path).unlink()
    if code == POWER_CUT_EXIT:
        echo("the drive lost power; `ssdlab serve` of " + options.backing + " recovers it")
        return 0
    if code < 0 and stop["signal"] is not None and not ready.is_set():
        # nbdkit ended by the signal itself, without its clean shutdown: it was still opening
        # the drive (building, recovering or preconditioning it) and had not set its handlers.
        echo(f"interrupted while the drive was being opened, before it served: nothing was saved; `ssdlab serve` of {options.backing} opens it again")
        return 130
    if code < 0:
        # Killed by another hand (a serving nbdkit stops cleanly on the signal we forward),
        # also while it stopped: its journal holds what it committed.
        name = signal.Signals(-code).name
        during = " while it stopped" if stop["signal"] is not None else ""
        raise SsdlabError(f"the server (nbdkit) was killed ({name}){during}; `ssdlab serve` of {options.backing} recovers the drive from its journal")
    if code != 0 and stop["signal"] is None:
        raise SsdlabError(f"nbdkit: {_error_of(''.join(errors))}")
    # The plugin's checkpoint at the stop can fail (a full file system): nbdkit still exits 0.
    failed = next((line.strip() for line in errors if "clean shutdown failed" in line), None)
    if failed is not None:
        raise SsdlabError(
            f"stopped, but the drive's state was not saved ({failed.removeprefix('ssdlab: error: ')}); "
            f"free space where {options.backing} is, then `ssdlab serve` of it recovers the drive from its journal"
        )
    echo("stopped; the drive's state is saved in " + options.backing)
    return 0


def power_cut(control: str) -> str:
    """Cut a running server's power; returns what it said was lost."""
    text = stats(control, "power-cut")
    try:
        answer = json.loads(text)["power_cut"]
        if not isinstance(answer, str):
            raise TypeError(answer)
        return answer
    except (ValueError, KeyError, TypeError):
        raise SsdlabError(f"{control}: the server did not confirm the power cut (answered {text.strip()[:200]!r})") from None


def stats(control: str, command_word: str = "stats") -> str:
    """Send a running server's control socket one command word (`stats`: JSON, `series`: CSV,
    `power-cut`: its confirmation) and return the answer."""
    paths.text_path("--socket", control)  # an empty path is refused, not tried
    try:
        mode = os.stat(control).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISSOCK(mode):
        raise SsdlabError(f"{paths.shown(control)}: cannot reach the server's control socket: is {paths.kind_of(mode)}, not a socket (FILE.control by default)")
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(10)
            s.connect(control)
            s.sendall(command_word.encode() + b"\n")
            chunks = []
            received = 0
            while True:
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
                received += len(chunk)
                if received > MAX_CONTROL_REPLY_BYTES:
                    raise SsdlabError(f"{control}: the control socket's answer is longer than {MAX_CONTROL_REPLY_BYTES} bytes; is this an ssdlab server?")
    except OSError as error:
        raise SsdlabError(f"{control}: cannot reach the server's control socket: {error.strerror or error}{_nbd_socket_hint(control)}") from None
    try:
        text = b"".join(chunks).decode()
    except UnicodeDecodeError:
        raise SsdlabError(f"{control}: the control socket answered something that is not text; is this an ssdlab server?") from None
    if command_word == "stats":
        try:
            document = json.loads(text)  # a server answers a JSON object; anything else is not ours
        except ValueError:
            document = None
        if not isinstance(document, dict):
            got, hint = text.strip()[:80], _nbd_socket_hint(control)
            raise SsdlabError(f"{control}: the control socket did not answer ssdlab's statistics (got {got!r}); is this an ssdlab server?{hint}")
    return text


def _nbd_socket_hint(control: str) -> str:
    """Where the control socket is when `control` looks like a server's NBD socket (which drops a
    line that is not NBD)."""
    if control.endswith(".sock") and Path(control.removesuffix(".sock") + ".control").is_socket():
        return f" (this looks like the NBD socket; the control socket is {control.removesuffix('.sock')}.control)"
    return ""
