"""Random reads over a span: 4 KiB random reads at QD1 over 1 GB, 8 GB, 64 GB and the whole
drive, which shows how much of the map the controller keeps at hand (DRAM, SRAM, a host memory
buffer) and what a miss costs."""

from __future__ import annotations

import tomllib

import pandas as pd

from ssdlab.lab import charts
from ssdlab.lab.context import GB, INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.results import Ranked, SuiteResult
from ssdlab.lab.tables import size_text

NAME = "read-span"
ERA = "2020s"
TITLE = "Random read over a span"
#: Spans at full scale (the last: the whole user space).
SPANS = (1 * GB, 8 * GB, 64 * GB)
METHOD = (
    "Secure erase, sequential fill of the whole user space (128 KiB, QD32, incompressible), then {idle} idle (folding "
    "moves the SLC cache's data into native blocks, so every span reads the same kind of block). Then 4 KiB random "
    "reads at QD1 over the first {spans} and the whole user space, each for {run} after {ramp} of warm-up (not "
    "counted). Map-page reads: map pages read from flash because the controller's map cache (SRAM, host memory "
    "buffer) lacked them, per 1,000 reads."
)

METRICS = {
    "iops": "4K random read QD1: IOPS",
    "mean_latency_us": "4K random read QD1: mean latency",
    "p99_latency_us": "4K random read QD1: 99th percentile latency",
    "map_reads_per_1000": "map pages read from flash per 1,000 reads",
}


def map_cache_note(source: str) -> str | None:
    """What the profile keeps of the map: DRAM, or an SRAM cache and a host memory buffer."""
    controller = tomllib.loads(source).get("controller", {})
    sram, hmb = controller.get("map_cache_bytes", 0), controller.get("hmb_bytes", 0)
    if not sram and not hmb:
        return "The whole map is in the drive's DRAM: no span needs a map read from flash."
    parts = [f"{size_text(sram)} of SRAM"] if sram else []
    if hmb:
        parts.append(f"a {size_text(hmb)} host memory buffer")
    return f"DRAM-less controller: map pages are cached in {' and '.join(parts)} (as reviewed, scaled with the spans); a miss reads the map page from flash."


def span_bytes(ctx: ReviewContext, full: int) -> int:
    """A span of `full` bytes at full scale, scaled with the drive: whole 4 KiB sectors, at
    least 64 MiB (as `ReviewContext.span_bytes`)."""
    return max(64 << 20, int(full * min(ctx.scale, 1.0)) // 4096 * 4096)


def run(ctx: ReviewContext) -> SuiteResult:
    seconds, ramp, idle = ctx.seconds(30), ctx.seconds(10), ctx.seconds(600, minimum=10)
    drive = ctx.new_drive()
    capacity = drive.info["usable_bytes"]
    spans = sorted({s for s in (span_bytes(ctx, full) for full in SPANS) if s < capacity})
    labels = [size_text(s) for s in spans] + ["whole drive"]
    result = SuiteResult(
        NAME,
        TITLE,
        METHOD.format(idle=ctx.duration_label(600, minimum=10), spans=", ".join(labels[:-1]), run=ctx.duration_label(30), ramp=ctx.duration_label(10)),
        METRICS,
    )
    note = map_cache_note(ctx.info()["source"])
    if note:
        result.notes.append(note)
    drive.secure_erase()
    ctx.precondition(drive, ["rw=write", "bs=128k", "iodepth=32", f"data_pattern={INCOMPRESSIBLE}"], "fill")
    drive.idle(idle)
    rows = []
    for span, label in zip([*spans, capacity], labels, strict=True):
        summary = ctx.run(
            drive,
            ["rw=randread", "bs=4k", "iodepth=1", f"size={span}", f"ramp_time={ramp}", f"runtime={seconds}", "time_based"],
            f"4K random read QD1 over {label}",
        ).summary
        latency = summary.get("read_latency_us") or {}
        reads = summary.get("reads") or 0
        map_reads = summary.get("map_page_reads")
        per_1000 = map_reads / reads * 1000 if map_reads is not None and reads else None
        result.add("iops", summary["iops"], "IOPS", "incompressible", label)
        result.add("mean_latency_us", latency.get("mean"), "us", "incompressible", label)
        result.add("p99_latency_us", latency.get("p99"), "us", "incompressible", label)
        result.add("map_reads_per_1000", per_1000, "x", "incompressible", label)
        rows.append({"span": label, "span_bytes": span, "iops": summary["iops"], "mean_latency_us": latency.get("mean"), "map_reads_per_1000": per_1000})
    table = pd.DataFrame(rows)
    result.tables["read_span"] = table
    x = list(range(len(rows)))
    result.charts.append(
        (
            charts.line_chart(
                ctx.out_dir / "charts" / "read_span_iops.png",
                ctx.chart_title("4K random read QD1 over a span: IOPS"),
                x,
                [charts.Series("IOPS", table["iops"].tolist(), charts.HIGHLIGHT, "-", "o", 1.8)],
                "span read",
                "IOPS",
                xticklabels=labels,
            ),
            "IOPS of 4 KiB random reads at QD1 against the span read",
        )
    )
    if table["map_reads_per_1000"].notna().any() and table["map_reads_per_1000"].fillna(0).max() > 0:
        result.charts.append(
            (
                charts.line_chart(
                    ctx.out_dir / "charts" / "read_span_map_reads.png",
                    ctx.chart_title("4K random read QD1 over a span: map pages read from flash"),
                    x,
                    [
                        charts.Series(
                            "map-page reads per 1,000 reads", table["map_reads_per_1000"].fillna(0).tolist(), charts.CONDITION_COLORS[0], "-", "s", 1.8
                        )
                    ],
                    "span read",
                    "map-page reads per 1,000 reads",
                    xticklabels=labels,
                ),
                "Map pages the controller had to read from flash, per 1,000 reads",
            )
        )
        result.figure_columns = 2
    result.ranked.append(Ranked("iops", "4K random read QD1 over the whole drive: IOPS", (("incompressible", "whole drive", ""),)))
    result.ranked.append(Ranked("iops", f"4K random read QD1 over {labels[0]}: IOPS", (("incompressible", labels[0], ""),)))
    return result
