"""ext4 on the served drive through nbdfuse and a loop device, across a server restart (issue 11).
Skipped, with the reason, where FUSE, loop devices or root are missing."""

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from served import SANDFORCE, need, run

ROOT = Path(__file__).resolve().parents[2]


def filesystem_possible() -> str | None:
    """Why an ext4-through-FUSE test cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (loop devices and mounts)"
    if not Path("/dev/fuse").exists():
        return "no /dev/fuse (FUSE missing)"
    if not Path("/dev/loop-control").exists():
        return "no /dev/loop-control (loop devices missing)"
    return None


class Mounted:
    """The served drive as a file system: nbdfuse -> loop device -> ext4."""

    def __init__(self, folder: Path, uri: str) -> None:
        self.fuse = folder / "fuse"
        self.mnt = folder / "mnt"
        self.fuse.mkdir(exist_ok=True)
        self.mnt.mkdir(exist_ok=True)
        self.uri = uri
        self.device = None
        self.nbdfuse = None

    def attach(self) -> str:
        self.nbdfuse = subprocess.Popen(["nbdfuse", str(self.fuse), self.uri], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 30
        while not (self.fuse / "nbd").exists():
            assert self.nbdfuse.poll() is None, self.nbdfuse.stderr.read()
            assert time.time() < deadline, "nbdfuse did not start"
            time.sleep(0.05)
        self.device = run("losetup", "--find", "--show", str(self.fuse / "nbd")).stdout.strip()
        return self.device

    def detach(self) -> None:
        run("umount", str(self.mnt), check=False)
        if self.device:
            run("losetup", "-d", self.device, check=False)
            self.device = None
        if self.nbdfuse:
            run("fusermount3", "-u", str(self.fuse), check=False)
            self.nbdfuse.wait(timeout=30)
            self.nbdfuse.stderr.close()
            self.nbdfuse = None


def test_ext4_tree_survives_fstrim_and_a_server_restart(serve, tmp_path):
    reason = filesystem_possible()
    if reason:
        pytest.skip(f"ext4 through nbdfuse and a loop device: {reason}")
    need("nbdfuse", "losetup", "mkfs.ext4", "fstrim", "fusermount3")
    source = tmp_path / "tree"
    for part in ("crates", "python", "docs"):
        shutil.copytree(ROOT / part, source / part, ignore=shutil.ignore_patterns("target", "*.so", "__pycache__"))
    s = serve(SANDFORCE)
    fs = Mounted(tmp_path, s.uri)
    try:
        device = fs.attach()
        run("mkfs.ext4", "-q", device)
        run("mount", device, str(fs.mnt))
        shutil.copytree(source, fs.mnt / "tree")
        run("sync")
        run("fstrim", str(fs.mnt))
    finally:
        fs.detach()
    s.stop()
    s.start()
    fs = Mounted(tmp_path, s.uri)
    try:
        device = fs.attach()
        run("mount", device, str(fs.mnt))
        run("diff", "-r", str(source), str(fs.mnt / "tree"))
    finally:
        fs.detach()
    assert s.stats()["trims"] == 0  # a new server: the fstrim happened before the restart
