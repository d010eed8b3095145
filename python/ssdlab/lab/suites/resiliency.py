"""Resiliency: performance clean, after a random-write torture, and after TRIM of the whole
user space (what a format does)."""

from __future__ import annotations

import pandas as pd

from ssdlab.lab import charts
from ssdlab.lab.context import COMPRESSIBLE, INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.results import SuiteResult
from ssdlab.lab.suites import as_ssd, atto, hdtach

NAME = "resiliency"
TITLE = "Resiliency: clean, after torture, after TRIM"
METHOD = (
    "Clean: measured on a secure-erased drive. Torture: secure erase, sequential fill of the whole user space, "
    "then 4 KiB random writes over 100% of it at QD32 (60 min of incompressible data for AS-SSD; 20 min of "
    "compressible data for HD Tach and ATTO), then measure. TRIM: TRIM the whole user space, measure again."
)

TRIM_ALL = ["rw=trim", "bs=1g", "iodepth=1"]


def _torture(ctx: ReviewContext, drive, pattern: str, minutes: float, label: str) -> None:
    drive.secure_erase()
    ctx.run(drive, ["rw=write", "bs=128k", "iodepth=32", f"data_pattern={pattern}"], f"fill ({label})")
    ctx.run(drive, ["rw=randwrite", "bs=4k", "iodepth=32", f"runtime={ctx.seconds(minutes * 60)}", "time_based",
                    f"data_pattern={pattern}"], f"torture {minutes:g} min ({label})")


def run(ctx: ReviewContext) -> SuiteResult:
    result = SuiteResult(NAME, TITLE, METHOD)
    rows = []

    # AS-SSD with incompressible data, 60 minutes of torture.
    drive = ctx.new_drive()
    drive.secure_erase()
    for condition in ("clean", "after torture", "after TRIM"):
        if condition == "after torture":
            _torture(ctx, drive, INCOMPRESSIBLE, 60, "incompressible")
        elif condition == "after TRIM":
            ctx.run(drive, TRIM_ALL, "TRIM all")
        figures = as_ssd.measure(ctx, drive, condition)
        for direction in ("read", "write"):
            result.add(f"AS-SSD sequential {direction}", figures[direction], "MB/s", "incompressible", condition)
            rows.append({"test": f"AS-SSD {direction}", "data": "incompressible (60 min torture)", "condition": condition, "MB/s": figures[direction]})

    # HD Tach and ATTO with compressible data, 20 minutes of torture.
    hd_frames, atto_frames = [], []
    drive = ctx.new_drive()
    drive.secure_erase()
    ctx.run(drive, ["rw=write", "bs=128k", "iodepth=32", f"data_pattern={COMPRESSIBLE}"], "HD Tach prepare (clean)")
    for condition in ("clean", "after torture", "after TRIM"):
        if condition == "after torture":
            _torture(ctx, drive, COMPRESSIBLE, 20, "compressible")
        elif condition == "after TRIM":
            ctx.run(drive, TRIM_ALL, "TRIM all")
        frame, averages = hdtach.measure(ctx, drive, condition)
        hd_frames.append(frame)
        for direction in ("read", "write"):
            result.add(f"HD Tach average {direction}", averages[direction], "MB/s", "compressible", condition)
            rows.append({"test": f"HD Tach {direction}", "data": "compressible (20 min torture)", "condition": condition, "MB/s": averages[direction]})
        atto_frames.append(atto.measure(ctx, drive, condition))
    table = pd.DataFrame(rows).pivot_table(index=["test", "data"], columns="condition", values="MB/s", sort=False)
    table = table[["clean", "after torture", "after TRIM"]].reset_index()
    result.tables["resiliency"] = table
    result.tables["resiliency_hdtach"] = pd.concat(hd_frames, ignore_index=True)
    result.tables["resiliency_atto"] = pd.concat(atto_frames, ignore_index=True)
    result.charts.append((hdtach.chart(ctx, hd_frames, "resiliency_hdtach.png", "HD Tach: clean, after torture, after TRIM"),
                          "HD Tach after a 20 min compressible torture and after TRIM"))
    result.charts.append((atto.chart(ctx, atto_frames, "resiliency_atto.png", "ATTO: clean, after torture, after TRIM"),
                          "ATTO after the torture and after TRIM"))
    labels = [f"{r['test']} {r['condition']}" for r in rows]
    result.charts.append((charts.bar_chart(ctx.out_dir / "charts" / "resiliency.png", "Resiliency", labels,
                                           [r["MB/s"] for r in rows], "MB/s"), "Resiliency summary"))
    return result
