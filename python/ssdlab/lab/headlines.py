"""The headline figures drives are compared on, and their bar charts (the reviewed drive
highlighted, as the articles drew them)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ssdlab.lab import charts
from ssdlab.lab.suites import SUITES

#: The headline figures compared across drives: (suite, metric key, pattern, condition).
HEADLINES = [
    ("four-corners", "rand_read_4k.aligned_4k", "incompressible", ""),
    ("four-corners", "rand_write_4k.aligned_4k", "compressible", ""),
    ("four-corners", "rand_write_4k.aligned_4k", "incompressible", ""),
    ("four-corners", "seq_read_128k.aligned_4k", "compressible", ""),
    ("four-corners", "seq_write_128k.aligned_4k", "compressible", ""),
    ("four-corners", "seq_write_128k.aligned_4k", "incompressible", ""),
    ("as-ssd", "seq_read", "incompressible", "clean"),
    ("as-ssd", "seq_write", "incompressible", "clean"),
    ("hdtach", "avg_read", "compressible", "clean"),
    ("consistency", "steady_iops_mean", "incompressible", "default OP"),
    ("consistency", "steady_iops_mean", "incompressible", "25% extra OP"),
    ("power", "rand_write_4k_qd32", "incompressible", "load"),
    ("storage-bench", "average_rate", "text", "heavy2011"),
    ("storage-bench", "average_read_rate", "text", "heavy2011"),
    ("storage-bench", "average_write_rate", "text", "heavy2011"),
    ("storage-bench", "busy", "text", "heavy2011"),
    ("storage-bench", "average_rate", "text", "light2011"),
    ("storage-bench", "busy", "text", "light2011"),
]


def headline_charts(frame: pd.DataFrame, charts_dir: Path, prefix: str, highlight: str | None) -> list[tuple[str, str]]:
    """One bar chart per headline figure present in `frame` (rows of several drives, as
    `ResultsDatabase.latest` returns); returns (file name, title) pairs."""
    made = []
    for i, (suite, metric, pattern, condition) in enumerate(HEADLINES):
        rows = frame[(frame["suite"] == suite) & (frame["metric"] == metric) & (frame["pattern"] == pattern) & (frame["condition"] == condition)]
        if rows.empty:
            continue
        title = f"{SUITES[suite].METRICS[metric]} ({pattern}{', ' + condition if condition else ''})"
        made.append(
            (
                charts.bar_chart(charts_dir / f"{prefix}_{i:02d}.png", title, rows["drive"].tolist(), rows["value"].tolist(), rows["unit"].iloc[0], highlight),
                title,
            )
        )
    return made
