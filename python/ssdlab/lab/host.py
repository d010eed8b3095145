"""The benchmark host: the test bed's own time per command, separate from the drive.

A published figure includes the host's time for every command (operating system, storage
driver, the benchmark program), which the drive model does not contain. At high queue depth
the drive hides it; at QD1 it adds to every command. The lab runs each test with the test bed
of the article it reproduces, as fio's ``thinktime`` (the job waits that long after each
completion before issuing the next command).

Each value says where it comes from. A value set from a published figure is labelled on the
calibration page (role "calibrated from"); no figure sets more than one value.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TestBed:
    """A benchmark host: its time per command and where the number comes from."""

    name: str
    per_command_ns: int
    source: str

    def options(self) -> list[str]:
        """The fio options that put this host's time into a job."""
        return [f"thinktime={self.per_command_ns}ns"] if self.per_command_ns else []


#: No host time: the drive alone (fio-style runs, PTS, traces).
NONE = TestBed("none", 0, "the drive alone")

#: HD Tach on the Force GS article's test bed (Windows, SATA 6 Gb/s, QD1 128 KiB transfers).
#: Set from the Force GS clean HD Tach read, 402 MB/s on a secure-erased drive: 128 KiB every
#: 326.0 us, of which the simulated drive and link take 248.3 us (reading unmapped sectors of
#: the force-gs-240 profile), leaving 77.7 us for the host.
HD_TACH = TestBed("hd-tach", 77_700, "calibrated from the Force GS clean HD Tach read (402 MB/s)")
