"""HD Tach: full-surface sequential read and write, MB/s against position, and averages."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ssdlab.drive import Drive
from ssdlab.lab import charts
from ssdlab.lab.context import COMPRESSIBLE, ReviewContext
from ssdlab.lab.host import HD_TACH
from ssdlab.lab.results import Ranked, SuiteResult

NAME = "hdtach"
ERA = "2012"  # the review era (and preset) this test belongs to
#: CPU seconds the suite took in a full-scale review of force-gs-240 (a parallel review runs the
#: longest jobs first; see `ssdlab.lab.parallel`).
WEIGHT = 9.0
TITLE = "HD Tach"
METHOD = (
    "HD Tach reads the whole surface sequentially, then writes it (highly compressible data), at QD1 in "
    "128 KiB transfers, with the test bed's own time per command (77.7 us, see lab/host.py); MB/s against "
    "position on the drive, and the average of each pass. Clean is a secure-erased drive, as in the "
    "articles: the read pass reads never-written sectors, the write pass then fills the drive."
)

POINTS = 100


def _profile(series: pd.DataFrame, column: str, span: float) -> np.ndarray:
    """MB/s at each percent of the surface, from the per-second series (position follows bytes moved)."""
    done = (series[column] * series["span_seconds"]).cumsum() * 1e6
    position = np.clip(done / span * 100.0, 0, 100)
    grid = np.linspace(0.5, 99.5, POINTS)
    return np.interp(grid, position, series[column]) if len(series) > 1 else np.full(POINTS, series[column].mean())


def measure(ctx: ReviewContext, drive: Drive, condition: str) -> tuple[pd.DataFrame, dict]:
    """One read pass and one write pass over the whole usable span: MB/s against position, and
    the passes' averages (with their runs' summaries under "runs")."""
    span = float(drive.info["usable_bytes"])
    read = ctx.run(drive, ["rw=read", "bs=128k", "iodepth=1", *HD_TACH.options()], f"HD Tach read ({condition})")
    write_frame, write_average, write_summary = measure_write(ctx, drive, condition)
    frame = pd.DataFrame(
        {
            "position_pct": write_frame["position_pct"],
            "read_mbps": _profile(read.series, "read_mbps", span),
            "write_mbps": write_frame["write_mbps"],
            "condition": condition,
        }
    )
    return frame, {"read": read.summary["read_mbps"], "write": write_average, "runs": {"read": read.summary, "write": write_summary}}


def measure_write(ctx: ReviewContext, drive: Drive, condition: str) -> tuple[pd.DataFrame, float, dict]:
    """One write pass over the whole usable span: MB/s against position, its average and the
    run's summary."""
    span = float(drive.info["usable_bytes"])
    write = ctx.run(drive, ["rw=write", "bs=128k", "iodepth=1", f"data_pattern={COMPRESSIBLE}", *HD_TACH.options()], f"HD Tach write ({condition})")
    frame = pd.DataFrame(
        {
            "position_pct": np.linspace(0.5, 99.5, POINTS),
            "write_mbps": _profile(write.series, "write_mbps", span),
            "condition": condition,
        }
    )
    return frame, write.summary["write_mbps"], write.summary


def chart(ctx: ReviewContext, frames: list[pd.DataFrame], name: str, title: str) -> str:
    """HD Tach lines (one colour per condition; read solid, write dashed) against position."""
    return charts.line_chart(
        ctx.out_dir / "charts" / name,
        ctx.chart_title(title),
        frames[0]["position_pct"].tolist(),
        charts.read_write_series(frames),
        "position on the drive (%)",
        "MB/s",
    )


METRICS = {"avg_read": "average read", "avg_write": "average write"}


def run(ctx: ReviewContext) -> SuiteResult:
    result = SuiteResult(NAME, TITLE, METHOD, METRICS)
    drive = ctx.new_drive()
    drive.secure_erase()
    # Clean as the articles ran it: a secure-erased drive, so the read pass reads never-written
    # sectors (as a read after TRIM does); the write pass then fills it.
    frame, averages = measure(ctx, drive, "clean")
    result.add("avg_read", averages["read"], "MB/s", "compressible", "clean", run=averages["runs"]["read"])
    result.add("avg_write", averages["write"], "MB/s", "compressible", "clean", run=averages["runs"]["write"])
    result.tables["hdtach"] = frame
    result.charts.append(
        (chart(ctx, [frame], "hdtach.png", "HD Tach, compressible data, clean drive"), "HD Tach read (solid) and write (dashed), MB/s against position")
    )
    clean = (("compressible", "clean", ""),)
    result.ranked.append(Ranked("avg_read", "HD Tach average read, clean drive", clean))
    result.ranked.append(Ranked("avg_write", "HD Tach average write, compressible data", clean))
    return result
