"""Sustained random writes and mixed IO: 4 KiB random writes at QD32 after a whole-drive fill
(IOPS every second), then a 70/30 read/write mix at QD1 to QD32 with latency percentiles."""

from __future__ import annotations

import pandas as pd

from ssdlab.lab import charts, today_charts
from ssdlab.lab.context import INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.results import Ranked, SuiteResult

NAME = "sustained"
ERA = "2020s"
TITLE = "Sustained random write and mixed IO"
QUEUE_DEPTHS = (1, 2, 4, 8, 16, 32)
METHOD = (
    "Secure erase, sequential fill of the whole user space (128 KiB, QD32), then 4 KiB random writes of "
    "incompressible data at QD32 over the whole span for {duration}: IOPS every second. Then, on the drive as that "
    "left it, 4 KiB random IO with 70% reads and 30% writes over the whole span at QD 1, 2, 4, 8, 16 and 32, "
    "{step} each: IOPS and latency percentiles of reads and writes."
)

METRICS = {
    "steady_iops_mean": "4K random write QD32: steady-state IOPS (mean from 70% of the run)",
    "steady_iops_p01": "4K random write QD32: steady-state IOPS, 1st percentile",
    "early_iops_mean": "4K random write QD32: early IOPS (mean of the first 5%)",
    "write_amplification": "4K random write QD32: write amplification",
    "mixed_iops": "70/30 mix: IOPS",
    "mixed_read_p50_us": "70/30 mix: read latency, median",
    "mixed_read_p99_us": "70/30 mix: read latency, 99th percentile",
    "mixed_read_p999_us": "70/30 mix: read latency, 99.9th percentile",
    "mixed_write_p50_us": "70/30 mix: write latency, median",
    "mixed_write_p99_us": "70/30 mix: write latency, 99th percentile",
}


def run(ctx: ReviewContext) -> SuiteResult:
    duration = ctx.seconds(1800, minimum=20)
    step = ctx.seconds(60, minimum=2)
    result = SuiteResult(NAME, TITLE, METHOD.format(duration=ctx.duration_label(1800, minimum=20), step=ctx.duration_label(60, minimum=2)), METRICS)
    drive = ctx.new_drive()
    drive.secure_erase()
    ctx.precondition(drive, ["rw=write", "bs=128k", "iodepth=32", f"data_pattern={INCOMPRESSIBLE}"], "fill")
    writes = ctx.run(
        drive, ["rw=randwrite", "bs=4k", "iodepth=32", f"runtime={duration}", "time_based", f"data_pattern={INCOMPRESSIBLE}"], "4K random write QD32"
    )
    series = writes.series[["second", "iops", "free_blocks", "write_amplification"]].copy()
    tail = series[series["second"] >= duration * 0.7]
    pattern, condition = "incompressible", "after a full fill"
    result.add("steady_iops_mean", tail["iops"].mean(), "IOPS", pattern, condition)
    result.add("steady_iops_p01", tail["iops"].quantile(0.01), "IOPS", pattern, condition)
    result.add("early_iops_mean", series[series["second"] < duration * 0.05]["iops"].mean(), "IOPS", pattern, condition)
    result.add("write_amplification", writes.summary["write_amplification"], "x", pattern, condition)
    result.tables["sustained_random_write"] = series
    out = ctx.out_dir / "charts"
    title = f"Sustained 4K random write QD32 after a full fill, {duration:g} s"
    result.charts.append(
        (
            charts.iops_scatter(out / "sustained_all_log.png", ctx.chart_title(f"{title}, log scale"), series["second"], series["iops"], log=True),
            "IOPS every second, log scale",
        )
    )
    # A linear axis from the data (there is no article's scale to keep), with headroom.
    top = charts.value_top(series["iops"].tolist())
    result.charts.append(
        (
            charts.iops_scatter(
                out / "sustained_all_linear.png", ctx.chart_title(f"{title}, linear scale"), series["second"], series["iops"], log=False, ylim=(0, top)
            ),
            "IOPS every second, linear scale",
        )
    )
    rows = []
    for qd in QUEUE_DEPTHS:
        mixed = ctx.run(
            drive,
            ["rw=randrw", "rwmixread=70", "bs=4k", f"iodepth={qd}", f"runtime={step}", "time_based", f"data_pattern={INCOMPRESSIBLE}"],
            f"70/30 mix QD{qd}",
        ).summary
        reads, writes_ = mixed.get("read_latency_us") or {}, mixed.get("write_latency_us") or {}
        label = f"QD{qd}"
        result.add("mixed_iops", mixed["iops"], "IOPS", pattern, label)
        result.add("mixed_read_p50_us", reads.get("p50"), "us", pattern, label)
        result.add("mixed_read_p99_us", reads.get("p99"), "us", pattern, label)
        result.add("mixed_read_p999_us", reads.get("p999"), "us", pattern, label)
        result.add("mixed_write_p50_us", writes_.get("p50"), "us", pattern, label)
        result.add("mixed_write_p99_us", writes_.get("p99"), "us", pattern, label)
        rows.append(
            {
                "queue_depth": qd,
                "iops": mixed["iops"],
                **{f"read_{k}_us": reads.get(k) for k in ("p50", "p99", "p999")},
                **{f"write_{k}_us": writes_.get(k) for k in ("p50", "p99", "p999")},
            }
        )
    mix = pd.DataFrame(rows)
    result.tables["sustained_mixed"] = mix
    depths = mix["queue_depth"].tolist()
    labels = [f"QD{q}" for q in depths]
    lines = [
        charts.Series("read, median", mix["read_p50_us"].tolist(), charts.CONDITION_COLORS[0], "-", charts.CONDITION_MARKERS[0], 1.8),
        charts.Series("read, 99th percentile", mix["read_p99_us"].tolist(), charts.CONDITION_COLORS[1], "-", charts.CONDITION_MARKERS[1], 1.8),
        charts.Series("read, 99.9th percentile", mix["read_p999_us"].tolist(), charts.CONDITION_COLORS[2], "-", charts.CONDITION_MARKERS[2], 1.8),
        charts.Series("write, median", mix["write_p50_us"].tolist(), charts.CONDITION_COLORS[0], "--", charts.CONDITION_MARKERS[0], 1.2),
        charts.Series("write, 99th percentile", mix["write_p99_us"].tolist(), charts.CONDITION_COLORS[1], "--", charts.CONDITION_MARKERS[1], 1.2),
    ]
    result.charts.append(
        (
            today_charts.latency_chart(
                out / "sustained_mixed_latency.png",
                ctx.chart_title("70/30 random read/write mix, 4 KiB: latency percentiles against queue depth"),
                depths,
                lines,
            ),
            "Latency percentiles of the 70/30 mix, reads solid and writes dashed",
        )
    )
    result.charts.append(
        (
            charts.line_chart(
                out / "sustained_mixed_iops.png",
                ctx.chart_title("70/30 random read/write mix, 4 KiB: IOPS against queue depth"),
                depths,
                [charts.Series("IOPS", mix["iops"].tolist(), charts.HIGHLIGHT, "-", "o", 1.8)],
                "queue depth",
                "IOPS",
                logx=True,
                xticklabels=labels,
            ),
            "IOPS of the 70/30 mix",
        )
    )
    result.figure_columns = 2
    one = ((pattern, condition, ""),)
    result.ranked.append(Ranked("steady_iops_mean", f"Sustained 4K random write QD32 after a full fill (from t = {duration * 0.7:g} s), mean IOPS", one))
    result.ranked.append(Ranked("mixed_iops", "70/30 random mix, 4 KiB, QD32: IOPS", ((pattern, "QD32", ""),)))
    result.ranked.append(
        Ranked("mixed_read_p99_us", "70/30 random mix, 4 KiB, QD1: read latency, 99th percentile", ((pattern, "QD1", ""),), lower_is_better=True)
    )
    return result
