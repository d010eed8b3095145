"""How a drive degrades with torture time (issue 21): for each torture length, the torture's own
4 KiB random-write rate (mean IOPS per tenth of the run, and the spread of its per-second IOPS
after the first tenth), the drive writes it made, and an HD Tach pass after it (read and write
averages, and what each pass paid: write amplification, NAND page reads per sector read).

Usage: .venv/bin/python scripts/torture_time.py PROFILE SCALE MINUTES[,MINUTES...] [c|i]
       [--seed N] [--set SECTION.FIELD=VALUE ...]
(c: compressible data, i: incompressible, the default). Example:
.venv/bin/python scripts/torture_time.py conventional-240 0.05 5,20,60,120
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from tempfile import TemporaryDirectory

import numpy as np

from ssdlab.errors import SsdlabError
from ssdlab.lab.context import COMPRESSIBLE, INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.suites import hdtach


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="torture_time.py", description=__doc__.strip().splitlines()[0])
    parser.add_argument("profile")
    parser.add_argument("scale", type=float)
    parser.add_argument("minutes", help="torture lengths in minutes, comma-separated")
    parser.add_argument("pattern", nargs="?", choices=("c", "i"), default="i", help="c: compressible, i: incompressible")
    parser.add_argument("--seed", type=int, default=1, help="the review's seed (default 1)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="SECTION.FIELD=VALUE", help="a profile override")
    args = parser.parse_args(argv)
    try:
        minutes = [float(m) for m in args.minutes.split(",")]
    except ValueError:
        parser.error(f"MINUTES must be numbers separated by commas (got {args.minutes!r})")
    if not 0 < args.scale <= 1 or any(m <= 0 for m in minutes):
        parser.error("SCALE must be in (0, 1] and every MINUTES positive")
    pattern = COMPRESSIBLE if args.pattern == "c" else INCOMPRESSIBLE
    try:
        return run(args.profile, args.scale, minutes, pattern, args.seed, args.overrides)
    except (SsdlabError, ValueError) as error:
        print(f"torture_time: {error}", file=sys.stderr)
        return 2


def per_second_spread(iops: np.ndarray) -> str:
    """The per-second IOPS after the first tenth: mean, standard deviation, range, and the lag
    (in seconds, 2 to 20) at which the series correlates most with itself: the period of a
    cycle, if it has one."""
    x = iops[len(iops) // 10 :].astype(float)
    text = f"per second after the first tenth: mean {x.mean():,.0f}, std {x.std():,.0f}, {x.min():,.0f} to {x.max():,.0f}"
    lags = range(2, min(21, len(x) // 3))
    if x.std() > 0 and len(lags) > 0:
        centred = x - x.mean()
        correlation = {k: float(np.corrcoef(centred[:-k], centred[k:])[0, 1]) for k in lags}
        lag = max(correlation, key=correlation.get)
        text += f", strongest self-correlation {correlation[lag]:.2f} at {lag} s"
    return text


def run(profile: str, scale: float, minutes: list[float], pattern: str, seed: int, overrides: list[str]) -> int:
    """Torture a fresh drive for each length in `minutes` and print what it did and left."""
    with TemporaryDirectory() as out:
        ctx = ReviewContext(profile, overrides, scale=scale, out_dir=Path(out), seed=seed)
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
                f"{profile} {m:g} min: {drive_writes:.2f} drive writes, torture IOPS per tenth {tenths} "
                f"({per_second_spread(series['iops'].to_numpy())}); HD Tach after: "
                f"read {after['read']:.1f} MB/s ({read['nand_reads_per_read_sector']:.2f} page reads per sector), "
                f"write {after['write']:.1f} MB/s (WA {write['write_amplification']:.2f})",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
