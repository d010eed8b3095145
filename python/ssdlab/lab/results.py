"""What a suite produces.

Every figure a suite records has a stable identifier (its ``key``, what the results database,
the calibration page and the headline charts refer to) and a display title; the suite module
declares both in its ``METRICS`` table, and recording a figure under a key the suite does not
declare is an error, so renaming a title can never silently disconnect a published figure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class Metric:
    """One measured figure: a row of the results database."""

    key: str
    title: str
    value: float
    unit: str
    pattern: str = ""
    condition: str = ""
    #: How busy each resource was in the run that measured the figure (the run summary's
    #: ``utilization``: what bounds it), when the suite says which run that was.
    utilization: dict | None = None


@dataclass(frozen=True)
class Ranked:
    """A ranked bar chart the review draws once the suite's figures are in the results
    database: one metric, one bar per drive reviewed at the same scale (and per data pattern or
    condition listed), this drive highlighted."""

    #: Metric key (of the suite's METRICS).
    key: str
    #: The chart's heading (the test and its settings).
    title: str
    #: Data patterns and conditions drawn, as (pattern, condition, label suffix) triples; the
    #: suffix is added to the drive's name on its bar ("" for none).
    rows: tuple[tuple[str, str, str], ...]
    lower_is_better: bool = False
    #: Whether bars are sorted best first (False: in the order of `rows`, e.g. before/after).
    rank: bool = True


@dataclass
class Table:
    """A table as the page shows it: column headings, rows of already formatted cells, and
    which columns hold numbers (right-aligned); text columns are left-aligned."""

    caption: str
    columns: list[str]
    rows: list[list[str]]
    numeric: list[bool]
    #: Name of the CSV in data/ with the raw figures, if any.
    csv: str | None = None


@dataclass
class SuiteResult:
    """A suite's figures, raw data frames, charts (file names in the output folder) and the
    methodology in a sentence or two. ``catalogue`` maps the suite's metric keys to titles.
    ``tables`` are raw data (written as CSV); ``views`` are what the page shows."""

    name: str
    title: str
    method: str
    catalogue: dict[str, str]
    metrics: list[Metric] = field(default_factory=list)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    charts: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Ranked bar charts to draw from the results database (see `Ranked`).
    ranked: list[Ranked] = field(default_factory=list)
    #: Tables for the page (default: the metrics, one row per figure).
    views: list[Table] = field(default_factory=list)
    #: Charts side by side on the page (2: pairs, e.g. two conditions of one plot).
    figure_columns: int = 1
    #: Figures the suite ran for but gives no value of, with why in a few words ("none (no
    #: cliff)"), by (metric key, pattern, condition): the headline figures show the reason in
    #: the figure's place (see `withhold`).
    withheld: dict[tuple[str, str, str], str] = field(default_factory=dict)

    def add(self, key: str, value: float | None, unit: str, pattern: str = "", condition: str = "", run: dict | None = None) -> None:
        """Record a metric under one of the suite's keys (skipped when the value is missing);
        `run` is the summary of the run that measured it, whose utilization says what bounds it."""
        if key not in self.catalogue:
            raise KeyError(f"suite {self.name} records metric {key!r}, which its METRICS table does not declare")
        if value is not None:
            utilization = run.get("utilization") if run else None
            self.metrics.append(Metric(key, self.catalogue[key], float(value), unit, pattern, condition, utilization))

    def withhold(self, key: str, why: str, pattern: str = "", condition: str = "") -> None:
        """Give no figure under one of the suite's keys, and say why in a few words (the headline
        figures print `why` where the value would be; a note on the suite's page says more)."""
        if key not in self.catalogue:
            raise KeyError(f"suite {self.name} withholds metric {key!r}, which its METRICS table does not declare")
        self.withheld[(key, pattern, condition)] = why

    def frame(self) -> pd.DataFrame:
        """The metrics as a data frame."""
        return pd.DataFrame([m.__dict__ for m in self.metrics], columns=["key", "title", "value", "unit", "pattern", "condition"])
