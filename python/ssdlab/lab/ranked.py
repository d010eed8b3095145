"""Ranked bar charts drawn from the results database: one metric per chart, one bar per drive
reviewed at the same scale (each drive's latest review), the reviewed drive highlighted."""

from __future__ import annotations

import re

import pandas as pd

from ssdlab.lab import charts
from ssdlab.lab.context import ReviewContext
from ssdlab.lab.results import Ranked, SuiteResult


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()


def bars(ranked: Ranked, suite: str, frame: pd.DataFrame, drive: str) -> tuple[list[charts.Bar], str]:
    """The bars of one ranked chart from database rows (`ResultsDatabase.latest`), and the
    metric's unit ("" when no drive has the figure)."""
    rows = frame[(frame["suite"] == suite) & (frame["metric"] == ranked.key)]
    made: list[charts.Bar] = []
    unit = ""
    for name in sorted(set(rows["drive"]), key=lambda d: (d != drive, d)):
        mine = rows[rows["drive"] == name]
        for i, (pattern, condition, suffix) in enumerate(ranked.rows):
            hit = mine[(mine["pattern"] == pattern) & (mine["condition"] == condition)]
            if hit.empty:
                continue
            unit = str(hit["unit"].iloc[-1])
            # Conditions in order (before/after) take the line charts' condition colours.
            color = charts.CONDITION_COLORS[i % len(charts.CONDITION_COLORS)] if not ranked.rank and name == drive else None
            made.append(charts.Bar(f"{name} ({suffix})" if suffix else name, float(hit["value"].iloc[-1]), name == drive, color))
    return made, unit


def with_rows(frame: pd.DataFrame, drive: str, result: SuiteResult) -> pd.DataFrame:
    """`frame` (database rows, `ResultsDatabase.latest`) with `result`'s figures added as the
    rows the database stores for them under `drive`."""
    rows = pd.DataFrame(
        {
            "drive": drive,
            "suite": result.name,
            "metric": [m.key for m in result.metrics],
            "pattern": [m.pattern for m in result.metrics],
            "condition": [m.condition for m in result.metrics],
            "value": [float(m.value) for m in result.metrics],
            "unit": [m.unit for m in result.metrics],
        }
    )
    return pd.concat([frame[rows.columns], rows], ignore_index=True) if len(frame) else rows


def draw(ctx: ReviewContext, result: SuiteResult, frame: pd.DataFrame, drive: str) -> list[tuple[str, str]]:
    """Draw `result`'s ranked charts from `frame` (the database's latest rows at this review's
    scale); returns (file name, caption) pairs."""
    made = []
    for i, ranked in enumerate(result.ranked):
        chart_bars, unit = bars(ranked, result.name, frame, drive)
        if not chart_bars:
            continue
        path = ctx.out_dir / "charts" / f"{_slug(result.name)}_{i:02d}_{_slug(ranked.key)}.png"
        drives = len({b.label.split(" (")[0] for b in chart_bars})
        caption = f"{unit}; {drive} highlighted among {drives} drives reviewed at this scale" if drives > 1 else unit
        made.append((charts.ranked_bars(path, ctx.chart_title(ranked.title), chart_bars, unit, ranked.lower_is_better, ranked.rank), caption))
    return made
