"""How a drive degrades with torture time (issue 21): for each torture length, the torture's own
4 KiB random-write rate (mean IOPS per tenth of the run), the drive writes it made, and an HD Tach
pass after it (read and write averages, and what each pass paid: write amplification, NAND page
reads per sector read).

Usage: .venv/bin/python scripts/torture_time.py PROFILE SCALE MINUTES[,MINUTES...] [c|i]
(c: compressible data, i: incompressible, the default). Example:
.venv/bin/python scripts/torture_time.py conventional-240 0.05 5,20,60,120
"""

from __future__ import annotations

import sys
from pathlib import Path
from tempfile import TemporaryDirectory

from ssdlab.errors import SsdlabError
from ssdlab.lab.context import COMPRESSIBLE, INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.suites import hdtach


def main(argv: list[str]) -> int:
    if len(argv) not in (3, 4):
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    profile = argv[0]
    try:
        scale = float(argv[1])
        minutes = [float(m) for m in argv[2].split(",")]
    except ValueError:
        print(f"torture_time: SCALE and MINUTES must be numbers (got {argv[1]!r} and {argv[2]!r})", file=sys.stderr)
        return 2
    if not 0 < scale <= 1 or any(m <= 0 for m in minutes) or (len(argv) == 4 and argv[3] not in ("c", "i")):
        print("torture_time: SCALE must be in (0, 1], MINUTES positive, the pattern c or i", file=sys.stderr)
        return 2
    pattern = COMPRESSIBLE if len(argv) == 4 and argv[3] == "c" else INCOMPRESSIBLE
    try:
        return run(profile, scale, minutes, pattern)
    except (SsdlabError, ValueError) as error:
        print(f"torture_time: {error}", file=sys.stderr)
        return 2


def run(profile: str, scale: float, minutes: list[float], pattern: str) -> int:
    """Torture a fresh drive for each length in `minutes` and print what it did and left."""
    with TemporaryDirectory() as out:
        ctx = ReviewContext(profile, [], scale=scale, out_dir=Path(out))
        for m in minutes:
            drive = ctx.new_drive()
            drive.secure_erase()
            ctx.precondition(drive, ["rw=write", "bs=128k", "iodepth=32", f"data_pattern={pattern}"], "fill")
            run = drive.run(["rw=randwrite", "bs=4k", "iodepth=32", f"runtime={ctx.seconds(m * 60)}", "time_based", f"data_pattern={pattern}"], name="torture")
            series = run.series
            tenths = [round(v) for v in series["iops"].groupby(series.index * 10 // len(series)).mean()]
            drive_writes = run.summary["host_write_bytes"] / drive.info["usable_bytes"]
            _, after = hdtach.measure(ctx, drive, "after torture")
            read, write = after["runs"]["read"], after["runs"]["write"]
            print(
                f"{profile} {m:g} min: {drive_writes:.2f} drive writes, torture IOPS per tenth {tenths}; HD Tach after: "
                f"read {after['read']:.1f} MB/s ({read['nand_reads_per_read_sector']:.2f} page reads per sector), "
                f"write {after['write']:.1f} MB/s (WA {write['write_amplification']:.2f})",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
