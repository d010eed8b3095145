"""Tables as the report shows them: readable headings, numbers formatted by their unit and
right-aligned, text left-aligned, one table per test."""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from ssdlab.lab.results import SuiteResult, Table

#: Decimals shown per unit.
DECIMALS = {"IOPS": 0, "MB/s": 1, "W": 2, "s": 1, "us": 1, "x": 3, "rounds": 0, "%": 1}


def number(value, unit: str = "") -> str:
    """A figure in its unit's precision, with thousands separators ("-" when missing)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and unit not in DECIMALS:
        return f"{value:,}"
    decimals = DECIMALS.get(unit)
    if decimals is None:
        return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    if value and abs(value) < 10.0**-decimals:
        # Too small for the unit's precision (PS4's 0.005 W read "0.00 W"): significant digits.
        return f"{value:.2g}"
    return f"{value:,.{decimals}f}"


def from_frame(caption: str, frame: pd.DataFrame, units: dict[str, str] | None = None, csv: str | None = None) -> Table:
    """A page table from a data frame: numeric columns formatted with the unit given for them
    (else by magnitude) and right-aligned."""
    units = units or {}
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) for c in frame.columns]
    rows = []
    for record in frame.itertuples(index=False):
        cells = []
        for column, value, is_number in zip(frame.columns, record, numeric, strict=True):
            if isinstance(value, bool):
                cells.append("yes" if value else "no")
            elif is_number:
                cells.append(number(value, units.get(column, "")))
            else:
                cells.append("" if value is None else str(value))
        rows.append(cells)
    return Table(caption, [str(c) for c in frame.columns], rows, numeric, csv)


def metrics_table(result: SuiteResult, caption: str | None = None, title: Callable[[str], str] | None = None) -> Table:
    """The suite's figures: a row per metric and data pattern, a column per condition (in the
    order measured), the unit in its own column; one "value" column when no condition is set."""
    frame = result.frame()
    conditions = list(dict.fromkeys(frame["condition"]))
    columns = ["figure", "data", *(c or "value" for c in conditions), "unit"]
    numeric = [False, False, *([True] * len(conditions)), False]
    rows: dict[tuple[str, str], list[str]] = {}
    for m in result.metrics:
        name = title(m.key) if title else m.title
        row = rows.setdefault((name, m.pattern), [name, m.pattern or "-", *(["-"] * len(conditions)), m.unit])
        row[2 + conditions.index(m.condition)] = number(m.value, m.unit)
    return Table(caption or f"{result.title}: figures", columns, list(rows.values()), numeric, f"{result.name}_metrics")


def size_text(bytes_: float) -> str:
    """A size as a review writes it, three significant digits (whole GB from 100 GB up): GB from
    1 GB up (rounded), else MB."""
    if bytes_ >= 99.95e9:
        return f"{bytes_ / 1e9:,.0f} GB"
    return f"{bytes_ / 1e9:,.3g} GB" if bytes_ >= 0.9995e9 else f"{bytes_ / 1e6:,.3g} MB"
