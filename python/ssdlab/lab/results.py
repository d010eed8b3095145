"""What a suite produces."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class Metric:
    """One measured figure: a row of the results database."""

    name: str
    value: float
    unit: str
    pattern: str = ""
    condition: str = ""


@dataclass
class SuiteResult:
    """A suite's figures, raw data frames, charts (file names in the output folder) and the
    methodology in a sentence or two."""

    name: str
    title: str
    method: str
    metrics: list[Metric] = field(default_factory=list)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    charts: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, name: str, value: float | None, unit: str, pattern: str = "", condition: str = "") -> None:
        """Record a metric (skipped when the value is missing)."""
        if value is not None:
            self.metrics.append(Metric(name, float(value), unit, pattern, condition))

    def frame(self) -> pd.DataFrame:
        """The metrics as a data frame."""
        return pd.DataFrame([m.__dict__ for m in self.metrics], columns=["name", "value", "unit", "pattern", "condition"])
