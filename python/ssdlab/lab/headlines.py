"""The headline figures drives are compared on, and their bar charts (the reviewed drive
highlighted, as the articles drew them)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ssdlab.lab import charts

#: The headline figures compared across drives: (suite, metric, pattern, condition).
HEADLINES = [
    ("four-corners", "4K random read (4k-aligned)", "incompressible", ""),
    ("four-corners", "4K random write (4k-aligned)", "compressible", ""),
    ("four-corners", "4K random write (4k-aligned)", "incompressible", ""),
    ("four-corners", "128K sequential read (4k-aligned)", "compressible", ""),
    ("four-corners", "128K sequential write (4k-aligned)", "compressible", ""),
    ("four-corners", "128K sequential write (4k-aligned)", "incompressible", ""),
    ("as-ssd", "sequential read", "incompressible", "clean"),
    ("as-ssd", "sequential write", "incompressible", "clean"),
    ("hdtach", "average read", "compressible", "clean"),
    ("consistency", "steady-state IOPS (mean from 70% of the run)", "incompressible", "default OP"),
    ("consistency", "steady-state IOPS (mean from 70% of the run)", "incompressible", "25% extra OP"),
    ("power", "4K random write QD32", "incompressible", "load"),
    ("storage-bench", "average data rate", "text", "heavy2011"),
    ("storage-bench", "average read rate", "text", "heavy2011"),
    ("storage-bench", "average write rate", "text", "heavy2011"),
    ("storage-bench", "disk busy time", "text", "heavy2011"),
    ("storage-bench", "average data rate", "text", "light2011"),
    ("storage-bench", "disk busy time", "text", "light2011"),
]


def headline_charts(frame: pd.DataFrame, charts_dir: Path, prefix: str, highlight: str | None) -> list[tuple[str, str]]:
    """One bar chart per headline figure present in `frame` (rows of several drives, as
    `ResultsDatabase.latest` returns); returns (file name, title) pairs."""
    made = []
    for i, (suite, metric, pattern, condition) in enumerate(HEADLINES):
        rows = frame[(frame["suite"] == suite) & (frame["metric"] == metric) & (frame["pattern"] == pattern) & (frame["condition"] == condition)]
        if rows.empty:
            continue
        title = f"{metric} ({pattern}{', ' + condition if condition else ''})"
        made.append((charts.bar_chart(charts_dir / f"{prefix}_{i:02d}.png", title, rows["drive"].tolist(),
                                      rows["value"].tolist(), rows["unit"].iloc[0], highlight), title))
    return made
