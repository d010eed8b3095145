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


#: Short test names for the headline table (where the suite's title is long).
SHORT_TITLES = {"resiliency": "Resiliency", "storage-bench": "Storage Bench 2011", "as-ssd": "AS-SSD", "four-corners": "Four corners"}
#: Units where a smaller figure is the better one.
LOWER_IS_BETTER_UNITS = {"s", "W", "us"}


def _title(suite: str, metric: str, pattern: str, condition: str) -> str:
    return f"{SUITES[suite].METRICS[metric]} ({pattern}{', ' if pattern and condition else ''}{condition})"


def headline_charts(frame: pd.DataFrame, charts_dir: Path, prefix: str, highlight: str | None) -> list[tuple[str, str]]:
    """One ranked bar chart per headline figure present in `frame` (rows of several drives, as
    `ResultsDatabase.latest` returns), `highlight` in red; returns (file name, caption) pairs."""
    made = []
    scales = sorted(set(frame["scale"])) if "scale" in frame else [1.0]
    scale = "full scale" if scales == [1.0] else "scale " + ", ".join(f"{s:g}" for s in scales) + (" (not comparable)" if min(scales) < 1 else "")
    for i, (suite, metric, pattern, condition) in enumerate(HEADLINES):
        rows = frame[(frame["suite"] == suite) & (frame["metric"] == metric) & (frame["pattern"] == pattern) & (frame["condition"] == condition)]
        if rows.empty:
            continue
        caption = _title(suite, metric, pattern, condition)
        unit = rows["unit"].iloc[0]
        title = f"{SUITES[suite].TITLE}: {caption}\n{highlight + ' highlighted' if highlight else f'{len(rows)} drives'}, {scale}"
        bars = [charts.Bar(d, v, d == highlight) for d, v in zip(rows["drive"], rows["value"], strict=True)]
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
