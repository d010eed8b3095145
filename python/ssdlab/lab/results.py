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


@dataclass
class SuiteResult:
    """A suite's figures, raw data frames, charts (file names in the output folder) and the
    methodology in a sentence or two. ``catalogue`` maps the suite's metric keys to titles."""

    name: str
    title: str
    method: str
    catalogue: dict[str, str]
    metrics: list[Metric] = field(default_factory=list)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    charts: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, key: str, value: float | None, unit: str, pattern: str = "", condition: str = "") -> None:
        """Record a metric under one of the suite's keys (skipped when the value is missing)."""
        if key not in self.catalogue:
            raise KeyError(f"suite {self.name} records metric {key!r}, which its METRICS table does not declare")
        if value is not None:
            self.metrics.append(Metric(key, self.catalogue[key], float(value), unit, pattern, condition))

    def frame(self) -> pd.DataFrame:
        """The metrics as a data frame."""
        return pd.DataFrame([m.__dict__ for m in self.metrics], columns=["key", "title", "value", "unit", "pattern", "condition"])
