"""The headline figures drives are compared on, and their bar charts (the reviewed drive
highlighted, as the articles drew them)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ssdlab.lab import charts, tables
from ssdlab.lab.results import SuiteResult, Table
from ssdlab.lab.suites import SUITES

#: The headline figures compared across drives: (suite, metric key, pattern, condition).
HEADLINES = [
    ("four-corners", "rand_read_4k.aligned_4k", "incompressible", ""),
    ("four-corners", "rand_read_4k_iops.aligned_4k", "incompressible", ""),
    ("four-corners", "rand_write_4k.aligned_4k", "compressible", ""),
    ("four-corners", "rand_write_4k.aligned_4k", "incompressible", ""),
    ("four-corners", "rand_write_4k_iops.aligned_4k", "incompressible", ""),
    ("four-corners", "seq_read_128k.aligned_4k", "compressible", ""),
    ("four-corners", "seq_write_128k.aligned_4k", "compressible", ""),
    ("four-corners", "seq_write_128k.aligned_4k", "incompressible", ""),
    ("as-ssd", "seq_read", "incompressible", "clean"),
    ("as-ssd", "seq_write", "incompressible", "clean"),
    ("hdtach", "avg_read", "compressible", "clean"),
    ("resiliency", "as_ssd_seq_write", "incompressible", "after torture"),
    ("resiliency", "as_ssd_seq_write", "incompressible", "after TRIM"),
    ("resiliency", "hdtach_avg_read", "compressible", "after torture"),
    ("consistency", "steady_iops_mean", "incompressible", "default OP"),
    ("consistency", "steady_iops_mean", "incompressible", "25% extra OP"),
    ("power", "idle", "", "idle"),
    ("power", "rand_write_4k_qd32", "incompressible", "load"),
    ("storage-bench", "average_rate", "text", "heavy2011"),
    ("storage-bench", "average_read_rate", "text", "heavy2011"),
    ("storage-bench", "average_write_rate", "text", "heavy2011"),
    ("storage-bench", "busy", "text", "heavy2011"),
    ("storage-bench", "average_rate", "text", "light2011"),
    ("storage-bench", "busy", "text", "light2011"),
]

#: Figures of today's tests (the 2020s preset) and of the SNIA PTS that `compare` and a review's
#: charts against the other drives rank as well (a review's figures at a glance come from each
#: suite's ranked figures, or from these for the PTS tests, which draw none: `review.at_a_glance`). Conditions that depend on the
#: scale (cache-recovery's idle periods, read-span's spans but the whole drive) and on the
#: ambient temperature (thermal) are left out: they match only within one scale.
COMPARED = [
    ("fill", "average_mbps", "incompressible", ""),
    ("fill", "cache_gb", "incompressible", ""),
    ("fill", "post_cache_mbps", "incompressible", ""),
    ("sustained", "steady_iops_mean", "incompressible", "after a full fill"),
    ("sustained", "mixed_iops", "incompressible", "QD32"),
    ("read-span", "iops", "incompressible", "whole drive"),
    ("power-states", "idle_w", "", "PS0"),
    ("power-states", "active_w", "incompressible", "128K sequential write QD32"),
    ("pts-iops", "iops_4k_write", "random", "steady state"),
    ("pts-iops", "iops_4k_read", "random", "steady state"),
    ("pts-throughput", "seq_write_128k", "random", "steady state"),
    ("pts-throughput", "seq_read_128k", "random", "steady state"),
    ("pts-latency", "lat_4k_read_mean", "random", "QD1"),
    ("pts-wsat", "wsat_steady_iops", "random", ""),
    ("pts-hir", "hir_baseline_iops", "random", ""),
    ("pts-hir", "hir_ws10_recovery", "random", "50 s idle"),
]


#: Short test names for the headline table (where the suite's title is long).
SHORT_TITLES = {"resiliency": "Resiliency", "storage-bench": "Storage Bench 2011", "as-ssd": "AS-SSD", "four-corners": "Four corners"}
#: Units where a smaller figure is the better one.
LOWER_IS_BETTER_UNITS = {"s", "W", "us"}


def _title(suite: str, metric: str, pattern: str, condition: str) -> str:
    return f"{SUITES[suite].METRICS[metric]} ({pattern}{', ' if pattern and condition else ''}{condition})"


def scale_label(scale: float) -> str:
    """A review's scale as a chart or table names it: "full scale", "scale 0.02"."""
    return "full scale" if scale >= 1 else f"scale {scale:g}"


def headline_charts(frame: pd.DataFrame, charts_dir: Path, prefix: str, highlight: str | None) -> list[tuple[str, str]]:
    """One ranked bar chart per headline figure present in `frame` (rows of several drives, as
    `ResultsDatabase.latest` returns), `highlight` in red; returns (file name, caption) pairs.
    When the drives were reviewed at several scales (``compare --include-scaled``), each bar's
    label gives its drive's scale."""
    made = []
    scales = sorted(set(frame["scale"])) if "scale" in frame else [1.0]
    scale = "full scale" if scales == [1.0] else "scale " + ", ".join(f"{s:g}" for s in scales) + (" (not comparable)" if min(scales) < 1 else "")
    # (Numbered in one sequence, HEADLINES first, so the articles' charts keep their files.)
    for i, (suite, metric, pattern, condition) in enumerate(HEADLINES + COMPARED):
        rows = frame[(frame["suite"] == suite) & (frame["metric"] == metric) & (frame["pattern"] == pattern) & (frame["condition"] == condition)]
        if rows.empty or (i >= len(HEADLINES) and highlight is not None and highlight not in set(rows["drive"])):
            continue
        caption = _title(suite, metric, pattern, condition)
        unit = rows["unit"].iloc[0]
        title = f"{SUITES[suite].TITLE}: {caption}\n{highlight + ' highlighted' if highlight else f'{len(rows)} drives'}, {scale}"
        if len(scales) > 1:  # each bar says its drive's scale: the title cannot
            labels = [f"{d} ({scale_label(s)})" for d, s in zip(rows["drive"], rows["scale"], strict=True)]
        else:
            labels = list(rows["drive"])
        bars = [charts.Bar(label, v, d == highlight) for label, d, v in zip(labels, rows["drive"], rows["value"], strict=True)]
        made.append((charts.ranked_bars(charts_dir / f"{prefix}_{i:02d}.png", title, bars, unit, unit in LOWER_IS_BETTER_UNITS), caption))
    return made


def headline_table(results: list[SuiteResult]) -> Table:
    """This review's headline figures, in the order of `HEADLINES`."""
    by_suite = {r.name: r for r in results}
    rows: list[list[str]] = []
    for suite, metric, pattern, condition in HEADLINES:
        result = by_suite.get(suite)
        if result is None:
            continue
        for m in result.metrics:
            if (m.key, m.pattern, m.condition) == (metric, pattern, condition):
                test = SHORT_TITLES.get(suite, result.title)
                rows.append([test, m.title, ", ".join(x for x in (pattern, condition) if x) or "-", tables.number(m.value, m.unit), m.unit])
    return Table("This drive's headline figures", ["test", "figure", "data, condition", "value", "unit"], rows, [False, False, False, True, False])
