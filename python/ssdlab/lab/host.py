"""The benchmark host: the test bed's own time per command, separate from the drive.

A published figure includes the host's time for every command (operating system, storage
driver, the benchmark program), which the drive model does not contain. At high queue depth
the drive hides it; at QD1 it adds to every command. The lab runs each test with the test bed
of the article it reproduces, as ssdlab's ``host_time`` option: after each completion that
slot waits that long before its next command, the other slots going on (fio's ``thinktime``
pauses the whole job instead, which is the same only at QD1).

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
        """The job options that put this host's time into a job."""
        return [f"host_time={self.per_command_ns}ns"] if self.per_command_ns else []


#: No host time: the drive alone (fio-style runs, PTS, traces).
NONE = TestBed("none", 0, "the drive alone")

#: HD Tach on the Force GS article's test bed (Windows, SATA 6 Gb/s, QD1 128 KiB transfers).
#: Set from the Force GS clean HD Tach read, 402 MB/s on a secure-erased drive: 128 KiB every
#: 326.0 us, of which the simulated drive and link take 248.3 us (reading unmapped sectors of
#: the force-gs-240 profile), leaving 77.7 us for the host.
HD_TACH = TestBed("hd-tach", 77_700, "calibrated from the Force GS clean HD Tach read (402 MB/s)")

#: Iometer (the four corners) on the SF-1200 review's test bed (Windows 7 x64, X58, SATA 3 Gb/s,
#: QD3 4 KiB random writes over 8 GB). Set from the Corsair Force 100 (SF-1200 firmware 3.0.1)
#: 4 KiB random write of compressible data, 164.6 MB/s: the drive alone is bound by the
#: SATA 3 Gb/s link there (228.9 MB/s), and 27.69 us per command brings it to 164.6 (found by
#: bisection over 30 s runs of the suite's job on the force-100-sf1200 profile, the drive
#: secure-erased and the 8 GB span written first). The same test bed then gives the
#: incompressible 4 KiB random write (122.5 MB/s published) as a check; the SF-2281 articles'
#: Iometer test beds (Sandy Bridge) are taken to be the same, as no figure sets them apart.
IOMETER = TestBed("iometer", 27_690, "calibrated from the Force 100 (SF-1200) 4 KiB random write of compressible data (164.6 MB/s)")
