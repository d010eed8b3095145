"""Storage Bench 2011: the Heavy and Light workloads replayed as fast as the drive allows while
keeping the traces' queue depths; average MB/s (all, reads, writes) and disk busy time."""

from __future__ import annotations

import pandas as pd

from ssdlab import traces
from ssdlab.lab import tables
from ssdlab.lab.context import ReviewContext
from ssdlab.lab.results import Ranked, SuiteResult

NAME = "storage-bench"
ERA = "2012"  # the review era (and preset) this test belongs to
TITLE = "Storage Bench 2011 (Heavy and Light)"
METHOD = (
    "The 2011 Heavy (2,168,893 reads, 1,783,447 writes, 106 GB written) and Light (372,630 reads, 459,709 writes) "
    "workloads, generated with their published statistics (the recorded traces are not public), replayed after a "
    "secure erase and a sequential fill, each request issued once fewer requests are outstanding than the trace "
    "had. Writes of 64 KiB and more carry incompressible data, smaller ones text-like data: the large transfers are "
    "files (the Heavy workload's downloads, torrents, 7-zip archives, JPEG exports and game installs; the Light "
    "workload's installs and media), which do not compress, the small ones file-system metadata and documents (an "
    "assumption from the articles' descriptions). Average data rate = bytes moved / disk busy time (idle excluded)."
)

#: Writes at least this large carry incompressible data (files), smaller ones text (see METHOD).
LARGE_WRITE_BYTES = 64 * 1024

WORKLOADS = ("heavy2011", "light2011")


METRICS = {
    "average_rate": "average data rate",
    "average_read_rate": "average read rate",
    "average_write_rate": "average write rate",
    "busy": "disk busy time",
    "busy_reads": "disk busy time (reads)",
    "busy_writes": "disk busy time (writes)",
}


#: The suite's independent parts (one drive per workload) and the CPU seconds each took in a
#: full-scale review of force-gs-240 (the pool runs the longest first); see `ssdlab.lab.parallel`.
PARTS = {"heavy2011": 30.0, "light2011": 12.0}


def run(ctx: ReviewContext) -> SuiteResult:
    return assemble(ctx, {part: run_part(ctx, part) for part in PARTS})


def run_part(ctx: ReviewContext, name: str) -> dict:
    """One workload replayed on its own drive: its metrics and its table row."""
    if name not in WORKLOADS:
        raise KeyError(f"suite {NAME} has no part {name!r}")
    result = SuiteResult(NAME, TITLE, METHOD, METRICS)
    trace_dir = ctx.out_dir / "traces"
    trace_dir.mkdir(parents=True, exist_ok=True)
    path = trace_dir / f"{name}-seed{ctx.seed}.csv.gz"
    if not path.exists():
        traces.generate(name, str(path), ctx.seed)
    # From the workload's definition, not from whether the trace was cached: the same
    # command with the same seed replays the same requests.
    limit = None if ctx.scale >= 1.0 else max(1000, int(traces.workload_requests(name) * ctx.scale))
    drive = ctx.new_drive()
    drive.secure_erase()
    ctx.precondition(drive, ["rw=write", "bs=128k", "iodepth=32", "data_pattern=text"], f"fill before {name}")
    s = drive.replay(
        str(path), remap=True, pattern="text", large_pattern="random", large_bytes=LARGE_WRITE_BYTES, max_requests=limit, progress=ctx.progress
    ).summary
    for metric, key, unit in (
        ("average_rate", "average_mbps", "MB/s"),
        ("average_read_rate", "read_mbps", "MB/s"),
        ("average_write_rate", "write_mbps", "MB/s"),
        ("busy", "busy_seconds", "s"),
        ("busy_reads", "busy_read_seconds", "s"),
        ("busy_writes", "busy_write_seconds", "s"),
    ):
        result.add(metric, s[key], unit, "text", name)
    row = {
        "workload": name,
        "requests": s["requests"],
        "average MB/s": s["average_mbps"],
        "read MB/s": s["read_mbps"],
        "write MB/s": s["write_mbps"],
        "busy s": s["busy_seconds"],
        "busy reads s": s["busy_read_seconds"],
        "busy writes s": s["busy_write_seconds"],
        "WA": s["write_amplification"],
    }
    return {"metrics": result.metrics, "row": row}


def assemble(ctx: ReviewContext, parts: dict[str, dict]) -> SuiteResult:
    """The suite's result from its parts' outputs (the same whichever process ran them)."""
    result = SuiteResult(NAME, TITLE, METHOD, METRICS)
    rows = []
    for name in WORKLOADS:
        result.metrics += parts[name]["metrics"]
        rows.append(parts[name]["row"])
    table = pd.DataFrame(rows)
    result.tables["storage_bench"] = table
    units = {"average MB/s": "MB/s", "read MB/s": "MB/s", "write MB/s": "MB/s", "busy s": "s", "busy reads s": "s", "busy writes s": "s", "WA": "x"}
    shown = table.rename(columns={"busy s": "busy (s)", "busy reads s": "busy, reads (s)", "busy writes s": "busy, writes (s)", "WA": "write amplification"})
    units.update({"busy (s)": "s", "busy, reads (s)": "s", "busy, writes (s)": "s", "write amplification": "x"})
    result.views.append(tables.from_frame("Storage Bench 2011: average data rates and disk busy time", shown, units, "storage_bench"))
    for name, label in (("heavy2011", "Heavy 2011"), ("light2011", "Light 2011")):
        rows_ = (("text", name, ""),)
        result.ranked.append(Ranked("average_rate", f"Storage Bench {label}: average data rate", rows_))
        result.ranked.append(Ranked("busy", f"Storage Bench {label}: disk busy time", rows_, lower_is_better=True))
    if ctx.scale < 1.0:
        result.notes.append(f"Shortened: only the first {ctx.scale:g} of each trace's requests, folded into the smaller drive.")
    return result
