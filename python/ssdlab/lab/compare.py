"""Comparison pages and the calibration page, from the results database."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pandas as pd

from ssdlab import __version__
from ssdlab.errors import SsdlabError
from ssdlab.lab import calibration, charts
from ssdlab.lab.context import ReviewContext
from ssdlab.lab.db import ResultsDatabase
from ssdlab.lab.report import comparison_page
from ssdlab.lab.review import check_output, run_review

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


def compare(db_path: Path, out_dir: Path, drives: list[str], highlight: str | None, include_scaled: bool) -> Path:
    """Bar charts of the headline figures across drives; returns the page's path."""
    check_output(out_dir)
    db = ResultsDatabase(db_path, create=False)
    frame = db.latest(drives or None, include_scaled)
    db.close()
    if frame.empty:
        raise SsdlabError(f"{db_path}: no {'' if include_scaled else 'full-scale '}results for {', '.join(drives) or 'any drive'}")
    made = []
    for i, (suite, metric, pattern, condition) in enumerate(HEADLINES):
        rows = frame[(frame["suite"] == suite) & (frame["metric"] == metric) & (frame["pattern"] == pattern) & (frame["condition"] == condition)]
        if rows.empty:
            continue
        title = f"{metric} ({pattern}{', ' + condition if condition else ''})"
        made.append((charts.bar_chart(out_dir / "charts" / f"compare_{i:02d}.png", title, rows["drive"].tolist(),
                                      rows["value"].tolist(), rows["unit"].iloc[0], highlight), title))
    table = frame.pivot_table(index=["suite", "metric", "pattern", "condition"], columns="drive", values="value", sort=False).reset_index()
    table.to_csv(out_dir / "comparison.csv", index=False)
    return comparison_page(out_dir, made, table)


def calibration_runs() -> list[tuple[str, list[str]]]:
    """The suites behind the published figures, per drive, in the order the figures are listed."""
    runs: dict[str, list[str]] = {}
    for p in calibration.PUBLISHED:
        suites = runs.setdefault(p.drive, [])
        if p.suite not in suites:
            suites.append(p.suite)
    return list(runs.items())


def calibrate(db_path: Path, out_path: Path, scale: float, progress, echo: Callable[[str], None] | None) -> Path:
    """Run the calibration suites and write a markdown page of published beside simulated."""
    out_path.parent.mkdir(parents=True, exist_ok=True)
    for profile, suites in calibration_runs():
        if echo:
            echo(f"calibration run: {profile} ({', '.join(suites)})")
        ctx = ReviewContext(profile, scale=scale, out_dir=db_path.parent / f"review-{profile}", progress=progress)
        run_review(ctx, suites, db_path)
    return write_calibration_page(db_path, out_path, scale)


def write_calibration_page(db_path: Path, out_path: Path, scale: float = 1.0) -> Path:
    """Write the calibration page from the results already in `db_path`."""
    db = ResultsDatabase(db_path, create=False)
    frame = db.latest(include_scaled=scale < 1.0)
    db.close()
    figures = calibration.table(frame)
    ratio_rows = calibration.ratios(frame)

    def md(frame: pd.DataFrame) -> str:
        cols = list(frame.columns)
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for row in frame.itertuples(index=False):
            cells = []
            for value in row:
                if isinstance(value, float):
                    cells.append("-" if pd.isna(value) else f"{value:,.2f}")
                else:
                    cells.append("-" if value is None else str(value))
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)

    text = [
        "# Calibration: published figures beside simulated ones",
        "",
        f"Generated by `ssdlab calibrate` (ssdlab {__version__}, scale {scale:g}{', NOT comparable' if scale < 1 else ''}). "
        "Each simulated figure comes from the suite named in the table, run on the built-in profile; difference = "
        "(simulated - published) / published. Profile parameters are typical values of the period with their sources "
        "in the profile files; the figures with role 'calibrated from' were used to set one parameter each (the SandForce "
        "engines' back-end rates, encryption and ECC of stored bytes, and the SF-1200 read-command setup time): they "
        "are not independent checks. Every other row is a check.",
        "",
        md(figures),
        "",
        "## SF-1200 compressible / incompressible ratios (Corsair Force 100 GB, firmware 3.0.1)",
        "",
        md(ratio_rows),
        "",
        "## Not simulated",
        "",
        *[f"- {what}: {why}." for what, why in calibration.NOT_SIMULATED],
        "",
    ]
    out_path.write_text("\n".join(text))
    return out_path
