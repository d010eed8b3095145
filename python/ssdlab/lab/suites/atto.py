"""ATTO: transfer sizes 0.5 KiB to 8 MiB, compressible data, read and write MB/s per size."""

from __future__ import annotations

import pandas as pd

from ssdlab.drive import Drive
from ssdlab.lab import charts, tables
from ssdlab.lab.context import COMPRESSIBLE, ReviewContext
from ssdlab.lab.results import SuiteResult

NAME = "atto"
ERA = "2012"  # the review era (and preset) this test belongs to
TITLE = "ATTO"
METHOD = (
    "ATTO writes then reads a {size} file in each transfer size from 0.5 KiB to 8 MiB, overlapped I/O at QD4, with highly compressible data; MB/s per size."
)

SIZES = [512 << i for i in range(15)]  # 0.5 KiB .. 8 MiB


def label(size: int) -> str:
    """ATTO's size labels."""
    return f"{size / 1024:g}K" if size < (1 << 20) else f"{size >> 20}M"


#: Metric keys and titles: read and write MB/s per transfer size (bytes in the key).
METRICS = {f"{d}_{size}": f"{d} {label(size)}" for size in SIZES for d in ("read", "write")}


def measure(ctx: ReviewContext, drive: Drive, condition: str) -> pd.DataFrame:
    """Run ATTO on `drive` as it is."""
    span = ctx.span_bytes(256e6)
    rows = []
    for size in SIZES:
        data = f"data_pattern={COMPRESSIBLE}"
        w = ctx.run(drive, ["rw=write", f"bs={size}", "iodepth=4", f"size={span}", data], f"ATTO write {label(size)} ({condition})").summary
        r = ctx.run(drive, ["rw=read", f"bs={size}", "iodepth=4", f"size={span}"], f"ATTO read {label(size)} ({condition})").summary
        rows.append({"transfer_bytes": size, "transfer": label(size), "write_mbps": w["write_mbps"], "read_mbps": r["read_mbps"], "condition": condition})
    return pd.DataFrame(rows)


def chart(ctx: ReviewContext, frames: list[pd.DataFrame], name: str, title: str) -> str:
    """ATTO lines (one colour per condition; read solid, write dashed) against transfer size."""
    x = frames[0]["transfer_bytes"].tolist()
    return charts.line_chart(
        ctx.out_dir / "charts" / name,
        ctx.chart_title(title),
        x,
        charts.read_write_series(frames),
        "transfer size",
        "MB/s",
        logx=True,
        xticklabels=frames[0]["transfer"].tolist(),
    )


def run(ctx: ReviewContext) -> SuiteResult:
    result = SuiteResult(NAME, TITLE, METHOD.format(size=ctx.span_label(256e6, "256 MB")), METRICS)
    drive = ctx.new_drive()
    drive.secure_erase()
    frame = measure(ctx, drive, "clean")
    for row in frame.itertuples():
        result.add(f"read_{row.transfer_bytes}", row.read_mbps, "MB/s", "compressible", "clean")
        result.add(f"write_{row.transfer_bytes}", row.write_mbps, "MB/s", "compressible", "clean")
    result.tables["atto"] = frame
    result.views.append(view(frame, "ATTO on a clean drive: MB/s by transfer size"))
    result.charts.append(
        (chart(ctx, [frame], "atto.png", "ATTO, compressible data, QD4, clean drive"), "ATTO read (solid) and write (dashed) by transfer size")
    )
    return result


def view(frame: pd.DataFrame, caption: str, csv: str = "atto") -> tables.Table:
    """One row per transfer size; read and write MB/s per condition."""
    conditions = list(dict.fromkeys(frame["condition"]))
    wide = pd.DataFrame({"transfer size": frame[frame["condition"] == conditions[0]]["transfer"].to_numpy()})
    units = {}
    for condition in conditions:
        part = frame[frame["condition"] == condition]
        for direction in ("read", "write"):
            column = f"{direction} MB/s" if len(conditions) == 1 else f"{direction} MB/s, {condition}"
            wide[column] = part[f"{direction}_mbps"].to_numpy()
            units[column] = "MB/s"
    return tables.from_frame(caption, wide, units, csv)
