"""SNIA PTS write saturation (WSAT): 4 KiB random writes at QD32 from a purged drive for four
times the user capacity (or 24 simulated hours, whichever comes first); IOPS against time and
against total data written, from fresh-out-of-box to steady state."""

from __future__ import annotations

import math

import pandas as pd

from ssdlab.lab.context import ReviewContext, duration_text
from ssdlab.lab.pts import charts, procedure
from ssdlab.lab.results import SuiteResult

NAME = "pts-wsat"
TITLE = "SNIA PTS: write saturation"
METHOD = (
    "Purge, then 4 KiB random writes at QD32 over the whole user capacity until 4 x the user capacity is written "
    "or {limit} pass, no preconditioning; IOPS per {sample} against time and against total GB written. "
    "Fresh IOPS is the first {sample}'s; steady IOPS is the average over the last of the four drive fills."
)

#: Drive fills written (the specification's 4 x user capacity).
FILLS = 4
#: Time limit of the test, simulated seconds (the specification's 24 hours).
LIMIT_SECONDS = 24 * 3600

METRICS = {
    "wsat_fresh_iops": "fresh-out-of-box IOPS (first minute)",
    "wsat_steady_iops": "steady IOPS (average over the last drive fill)",
    "wsat_steady_over_fresh": "steady IOPS / fresh IOPS",
    "wsat_write_amplification": "write amplification over the last drive fill",
}


def bucket_seconds(duration: float) -> int:
    """Sample length of the plots: a minute, as the specification's, unless the run is too short
    to show 20 samples (shortened runs), then as long as gives about 100 samples."""
    return 60 if duration >= 20 * 60 else max(1, math.ceil(duration / 100))


def run(ctx: ReviewContext) -> SuiteResult:
    limit = ctx.seconds(LIMIT_SECONDS, minimum=60)
    limit_text = "24 simulated hours" if limit == LIMIT_SECONDS else f"{duration_text(limit)} of simulated time"
    result = SuiteResult(NAME, TITLE, METHOD.format(limit=limit_text, sample="minute"), METRICS)
    drive = ctx.new_drive()
    drive.secure_erase()
    capacity = drive.info["capacity_bytes_user"]
    r = ctx.run(
        drive,
        ["rw=randwrite", "bs=4k", f"iodepth={procedure.QUEUE_DEPTH}", f"io_size={FILLS * capacity}", f"runtime={limit:g}", procedure.pattern_option(ctx)],
        "4 KiB random write from purged",
    )
    series = r.series
    bucket = bucket_seconds(float(series["second"].max() + 1) if len(series) else 1.0)
    frame = samples(series, bucket)
    if bucket != 60:  # a short run: samples shorter than the specification's minute
        result.method = METHOD.format(limit=limit_text, sample=f"{bucket} s sample")
    written = frame["tgbw_gb"].iloc[-1] if len(frame) else 0.0
    last_fill = frame[frame["tgbw_gb"] > written - capacity / 1e9]
    fresh = frame["iops"].iloc[0]
    steady = float((last_fill["iops"] * last_fill["seconds"]).sum() / last_fill["seconds"].sum())
    nand = last_fill["nand_gb"].sum()
    pat = ctx.pts_pattern
    result.add("wsat_fresh_iops", fresh, "IOPS", pat)
    result.add("wsat_steady_iops", steady, "IOPS", pat)
    result.add("wsat_steady_over_fresh", steady / fresh if fresh else None, "x", pat)
    result.add("wsat_write_amplification", nand / last_fill["host_gb"].sum() if len(last_fill) else None, "x", pat)
    fills = written * 1e9 / capacity
    result.notes.append(
        f"Test conditions: purge (ATA SECURE ERASE); 4 KiB random writes at QD{procedure.QUEUE_DEPTH}, data {pat}; "
        f"{written:,.1f} GB written ({fills:.2f} drive fills) in {r.summary['simulated_seconds'] / 3600:,.2f} simulated hours; "
        f"samples of {int(frame['seconds'].iloc[0]) if len(frame) else 0} s."
    )
    result.tables["pts_wsat"] = frame
    out = ctx.out_dir / "charts"
    marks = [(capacity * k / 1e9, f"{k} fill{'s' if k > 1 else ''}") for k in range(1, FILLS + 1) if capacity * k / 1e9 <= written * 1.0001]
    result.charts.append(
        (
            charts.scatter(out / "pts_wsat_time.png", ctx.chart_title("WSAT: IOPS against time"), frame["minute"], frame["iops"], "time (minutes)", "IOPS"),
            "IOPS against time",
        )
    )
    result.charts.append(
        (
            charts.scatter(
                out / "pts_wsat_tgbw.png",
                ctx.chart_title("WSAT: IOPS against total GB written"),
                frame["tgbw_gb"],
                frame["iops"],
                "total GB written",
                "IOPS",
                marks,
            ),
            "IOPS against total data written",
        )
    )
    return result


def samples(series: pd.DataFrame, seconds: int) -> pd.DataFrame:
    """Per-second series in samples of `seconds`: IOPS, GB written, total GB written (TGBW) and
    the write amplification within each sample (the series carries it cumulatively)."""
    s = series.copy()
    s["host_gb"] = s["write_mbps"] * s["span_seconds"] / 1000.0
    s["ios"] = s["iops"] * s["span_seconds"]
    s["host_cum"] = s["host_gb"].cumsum()
    s["nand_cum"] = s["host_cum"] * s["write_amplification"].fillna(0.0)
    s["bucket"] = s["second"] // seconds
    g = s.groupby("bucket").agg(
        ios=("ios", "sum"), span=("span_seconds", "sum"), host_gb=("host_gb", "sum"), host_cum=("host_cum", "last"), nand_cum=("nand_cum", "last")
    )
    nand = g["nand_cum"].diff().fillna(g["nand_cum"])
    frame = pd.DataFrame(
        {
            "minute": g.index.to_numpy() * seconds / 60.0,
            "seconds": g["span"].to_numpy(),
            "iops": (g["ios"] / g["span"]).to_numpy(),
            "host_gb": g["host_gb"].to_numpy(),
            "tgbw_gb": g["host_cum"].to_numpy(),
            "nand_gb": nand.to_numpy(),
        }
    )
    frame["write_amplification"] = frame["nand_gb"] / frame["host_gb"].where(frame["host_gb"] > 0)
    return frame
