"""A served drive for the block-device tests, and the real clients they use (qemu-io, qemu-img,
fio, nbdcopy, nbdinfo, nbdfuse: Debian packages that .ci/run installs). A test whose client is
missing is skipped with a message naming it."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

#: Small drives (8 GiB raw) with the Force GS layout: the SandForce one and, with the engine off,
#: a conventional one.
SMALL = ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=7499997184"]
SANDFORCE = ("force-gs-240", SMALL)
CONVENTIONAL = ("force-gs-240", [*SMALL, "reduction.enabled=false", "controller.map_cache_bytes=0"])


def need(*tools: str) -> None:
    """Skip the test (with a clear message) unless every tool is installed."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (Debian: apt-get install nbdkit libnbd-bin qemu-utils fio fuse3)")


class Served:
    """A running `ssdlab serve` (foreground, as a child)."""

    def __init__(
        self,
        folder: Path,
        profile: str,
        overrides: list[str],
        latency: str = "none",
        name: str = "drive.img",
        faults: tuple[str, ...] = (),
        precondition: tuple[str, ...] = (),
        flags: tuple[str, ...] = (),
    ) -> None:
        need("nbdkit")
        self.flags = list(flags)
        self.faults = list(faults)
        self.precondition = list(precondition)
        self.folder = folder
        self.profile = profile
        self.overrides = overrides
        self.latency = latency
        self.backing = folder / name
        self.socket = folder / (name + ".sock")
        self.control = folder / (name + ".control")
        self.process: subprocess.Popen | None = None

    @property
    def uri(self) -> str:
        return f"nbd+unix:///?socket={self.socket}"

    def start(self) -> Served:
        cmd = [sys.executable, "-m", "ssdlab.cli", "serve", self.profile, "--backing", str(self.backing), "--latency", self.latency]
        for o in self.overrides:
            cmd += ["--set", o]
        for f in self.faults:
            cmd += ["--fault", f]
        for step in self.precondition:
            cmd += ["--precondition", step]
        cmd += self.flags
        # A server that lost power leaves its sockets behind; wait for the new ones.
        self.control.unlink(missing_ok=True)
        self.socket.unlink(missing_ok=True)
        self.process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # A server-side precondition of a whole 240 GB drive takes a minute or two before it serves.
        deadline = time.time() + (600 if self.precondition else 60)
        while not self.control.is_socket():
            if self.process.poll() is not None:
                raise AssertionError(f"ssdlab serve exited: {self.process.stderr.read()}")
            if time.time() > deadline:
                raise AssertionError("ssdlab serve did not start in time")
            time.sleep(0.05)
        return self

    def stop(self) -> str:
        """Stop cleanly (SIGTERM, as a user would); returns what the server printed."""
        if self.process is None:
            return ""
        self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=300)
        code = self.process.returncode
        self.process = None
        assert code == 0, (code, out, err)
        return out + err

    def stats(self) -> dict:
        import json

        r = subprocess.run([sys.executable, "-m", "ssdlab.cli", "stats", "--socket", str(self.control)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    def allocated_bytes(self) -> int:
        return self.backing.stat().st_blocks * 512


def run(*cmd: str, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    r = subprocess.run(list(cmd), capture_output=True, text=True, **kwargs)
    if check:
        assert r.returncode == 0, (cmd, r.stdout[-2000:], r.stderr[-2000:])
    return r
