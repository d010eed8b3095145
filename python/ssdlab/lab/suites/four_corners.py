"""Four corners (Iometer): 4 KiB random read and write over an 8 GB span, 128 KiB and 2 MiB
sequential over the whole span, compressible ("normal") and incompressible ("random") data,
4K-aligned and 512 B-aligned random variants."""

from __future__ import annotations

import pandas as pd

from ssdlab.lab import tables
from ssdlab.lab.context import COMPRESSIBLE, GB, INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.host import IOMETER
from ssdlab.lab.results import Ranked, SuiteResult

NAME = "four-corners"
ERA = "2012"  # the review era (and preset) this test belongs to
TITLE = "Four corners (Iometer)"
METHOD = (
    "Secure erase per data pattern. 4 KiB random reads (QD3, {three}) over a span of {span} written beforehand; "
    "4 KiB random writes over {span} at QD3 for {three} and at QD32; 4K-aligned and 512 B-aligned. "
    "128 KiB sequential writes then reads over the whole span at QD1 for {one} each; 2 MiB sequential for {three}. "
    "Iometer's compressible ('normal', repeating bytes) and incompressible ('random') data. Every command carries the "
    "test bed's own time (27.7 us, lab/host.py)."
)


#: Tests: (key, title).
TESTS = [
    ("rand_read_4k", "4K random read"),
    ("rand_write_4k", "4K random write"),
    ("rand_write_4k_qd32", "4K random write QD32"),
    ("seq_write_128k", "128K sequential write"),
    ("seq_read_128k", "128K sequential read"),
    ("seq_read_2m", "2M sequential read"),
    ("seq_write_2m", "2M sequential write"),
]
ALIGNMENTS = {"4k-aligned": "aligned_4k", "512b-aligned": "aligned_512b"}
#: Tests also reported in IOPS, as the reviews gave them.
IOPS_TESTS = ("rand_read_4k", "rand_write_4k", "rand_write_4k_qd32")
#: Metric keys and titles: MB/s per test and alignment (``KEY.ALIGNMENT``), and IOPS of the 4 KiB
#: random tests (``KEY_iops.ALIGNMENT``).
METRICS = {
    **{f"{key}.{suffix}": f"{title} ({alignment})" for key, title in TESTS for alignment, suffix in ALIGNMENTS.items()},
    **{f"{key}_iops.{suffix}": f"{title} IOPS ({alignment})" for key, title in TESTS if key in IOPS_TESTS for alignment, suffix in ALIGNMENTS.items()},
}
#: Each test's settings, as the ranked charts' headings name them (`{span}`: the random tests'
#: span, `span_label`).
SETTINGS = {
    "rand_read_4k": "QD3, {span} span",
    "rand_write_4k": "QD3, {span} span",
    "rand_write_4k_qd32": "{span} span",
    "seq_write_128k": "QD1, whole span",
    "seq_read_128k": "QD1, whole span",
    "seq_read_2m": "QD1, whole span",
    "seq_write_2m": "QD1, whole span",
}
#: The random tests' span at full scale.
SPAN_BYTES = 8 * GB


def span_label(ctx: ReviewContext) -> str:
    """The random tests' span as this review's text names it ("8 GB" at full scale)."""
    return ctx.span_label(SPAN_BYTES, "8 GB")


def metric_key(test: str, alignment: str) -> str:
    """The metric key of a test (by title) and alignment."""
    return f"{dict((t, k) for k, t in TESTS)[test]}.{ALIGNMENTS[alignment]}"


#: The suite's independent parts (one drive per data pattern) and the CPU seconds each took in a
#: full-scale review of force-gs-240 (the pool runs the longest first); see `ssdlab.lab.parallel`.
PARTS = {"compressible": 30.0, "incompressible": 22.0}
PATTERNS = {"compressible": COMPRESSIBLE, "incompressible": INCOMPRESSIBLE}


def _method(ctx: ReviewContext) -> str:
    return METHOD.format(three=ctx.duration_label(180), one=ctx.duration_label(60), span=span_label(ctx))


def run(ctx: ReviewContext) -> SuiteResult:
    return assemble(ctx, {part: run_part(ctx, part) for part in PARTS})


def run_part(ctx: ReviewContext, label: str) -> dict:
    """The tests of one data pattern on its own drive: metrics and table rows."""
    result = SuiteResult(NAME, TITLE, "", METRICS)
    pattern = PATTERNS[label]
    span = ctx.span_bytes(SPAN_BYTES)
    three_min = f"runtime={ctx.seconds(180)}"
    one_min = f"runtime={ctx.seconds(60)}"
    rows = []
    # Every Iometer command carries the test bed's own time (lab/host.py).
    host = IOMETER.options()
    data = f"data_pattern={pattern}"
    drive = ctx.new_drive()
    drive.secure_erase()
    ctx.precondition(drive, ["rw=write", "bs=128k", "iodepth=32", f"size={span}", data], f"prepare {span_label(ctx)} ({label})")
    tests = [
        ("4K random read", "4k-aligned", ["rw=randread", "bs=4k", "iodepth=3", f"size={span}", three_min, "time_based"]),
        ("4K random read", "512b-aligned", ["rw=randread", "bs=4k", "blockalign=512", "iodepth=3", f"size={span}", three_min, "time_based"]),
        ("4K random write", "4k-aligned", ["rw=randwrite", "bs=4k", "iodepth=3", f"size={span}", three_min, "time_based", data]),
        ("4K random write", "512b-aligned", ["rw=randwrite", "bs=4k", "blockalign=512", "iodepth=3", f"size={span}", three_min, "time_based", data]),
        ("4K random write QD32", "4k-aligned", ["rw=randwrite", "bs=4k", "iodepth=32", f"size={span}", three_min, "time_based", data]),
        ("128K sequential write", "4k-aligned", ["rw=write", "bs=128k", "iodepth=1", one_min, "time_based", data]),
    ]
    for test, alignment, options in tests:
        s = ctx.run(drive, options + host, f"{test} {alignment} ({label})").summary
        mbps = s["read_mbps"] if "read" in test else s["write_mbps"]
        result.add(metric_key(test, alignment), mbps, "MB/s", label, run=s)
        _add_iops(result, test, alignment, s["iops"], label)
        rows.append({"test": test, "alignment": alignment, "data": label, "MB/s": mbps, "IOPS": s["iops"]})
    # Sequential reads need the whole span written first.
    ctx.precondition(drive, ["rw=write", "bs=128k", "iodepth=32", data], f"fill for sequential reads ({label})")
    for test, options in (
        ("128K sequential read", ["rw=read", "bs=128k", "iodepth=1", one_min, "time_based"]),
        ("2M sequential read", ["rw=read", "bs=2m", "iodepth=1", three_min, "time_based"]),
        ("2M sequential write", ["rw=write", "bs=2m", "iodepth=1", three_min, "time_based", data]),
    ):
        s = ctx.run(drive, options + host, f"{test} ({label})").summary
        mbps = s["read_mbps"] if "read" in test else s["write_mbps"]
        result.add(metric_key(test, "4k-aligned"), mbps, "MB/s", label, run=s)
        _add_iops(result, test, "4k-aligned", s["iops"], label)
        rows.append({"test": test, "alignment": "4k-aligned", "data": label, "MB/s": mbps, "IOPS": s["iops"]})
    return {"metrics": result.metrics, "rows": rows}


def assemble(ctx: ReviewContext, parts: dict[str, dict]) -> SuiteResult:
    """The suite's result from its parts' outputs."""
    result = SuiteResult(NAME, TITLE, _method(ctx), METRICS)
    rows = []
    for part in PARTS:
        result.metrics += parts[part]["metrics"]
        rows += parts[part]["rows"]
    table = pd.DataFrame(rows)
    result.tables["four_corners"] = table
    result.views.append(view(table))
    both = (("compressible", "", "compressible"), ("incompressible", "", "incompressible"))
    for key, title in TESTS:
        heading = f"Iometer {title}, 4K-aligned, {SETTINGS[key].format(span=span_label(ctx))}"
        result.ranked.append(Ranked(f"{key}.aligned_4k", f"{heading}: MB/s", both))
        if key in IOPS_TESTS:
            result.ranked.append(Ranked(f"{key}_iops.aligned_4k", f"{heading}: IOPS", both))
    return result


def _add_iops(result: SuiteResult, test: str, alignment: str, iops: float, pattern: str) -> None:
    key = metric_key(test, alignment)
    name, suffix = key.split(".")
    if name in IOPS_TESTS:
        result.add(f"{name}_iops.{suffix}", iops, "IOPS", pattern)


def view(table: pd.DataFrame) -> tables.Table:
    """One row per test and alignment; MB/s and IOPS per data pattern side by side."""
    wide = table.pivot_table(index=["test", "alignment"], columns="data", values=["MB/s", "IOPS"], sort=False)
    frame = pd.DataFrame({"test": [t for t, _ in wide.index], "alignment": [a for _, a in wide.index]})
    units = {}
    for data in ("compressible", "incompressible"):
        for unit in ("MB/s", "IOPS"):
            column = f"{data}, {unit}"
            frame[column] = wide[(unit, data)].to_numpy() if (unit, data) in wide.columns else float("nan")
            units[column] = unit
    return tables.from_frame("Four corners: MB/s and IOPS by test and data pattern", frame, units, "four_corners")
