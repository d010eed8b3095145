"""Plots in the PTS report layout: steady-state convergence, the measurement window with its
average, range and slope bands, results as grouped bars, and IOPS against time or data written."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ssdlab.lab.charts import _save, plt, set_title
from ssdlab.lab.pts import steady_state as ss


def convergence(path: Path, title: str, frame: pd.DataFrame, steps: Sequence[str], column: str, ylabel: str, window: ss.Window) -> str:
    """The chosen steps' `column` per round, the measurement window shaded."""
    fig, ax = plt.subplots(figsize=(8, 4.2))
    for step in steps:
        rows = frame[frame["step"] == step]
        ax.plot(rows["round"], rows[column], marker="o", markersize=3, label=step)
    ax.axvspan(window.first_round - 0.5, window.last_round + 0.5, color="#2ca02c", alpha=0.12, label="measurement window")
    ax.set_xlabel("round")
    ax.set_ylabel(ylabel)
    set_title(ax, title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    return _save(fig, path)


def measurement_window(path: Path, title: str, values: Sequence[float], window: ss.Window, ylabel: str, steady: bool) -> str:
    """The tracking variable in the window, its average, the 110%/90% range band (rule a: a 20%
    excursion) and the best-fit line (rule b) with its allowed +-5% band around the average."""
    xs = np.arange(window.first_round, window.last_round + 1)
    ys = np.asarray(values[window.first_round - 1 : window.last_round], dtype=float)
    fig, ax = plt.subplots(figsize=(8, 4.2))
    ax.plot(xs, ys, "o-", color="#1f77b4", label="tracking variable")
    avg = window.average
    ax.axhline(avg, color="k", lw=1, label=f"average {avg:,.1f}")
    ax.axhline(avg * 1.1, color="#d62728", lw=1, ls="--", label="110% / 90% of average")
    ax.axhline(avg * 0.9, color="#d62728", lw=1, ls="--")
    ax.plot(
        xs,
        window.intercept + window.slope * xs,
        color="#ff7f0e",
        lw=1.5,
        label=f"best fit (excursion {window.slope_excursion / abs(avg) * 100 if avg else 0:.1f}%)",
    )
    ax.set_xticks(xs)
    ax.set_xlabel("round")
    ax.set_ylabel(ylabel)
    test, _, rest = title.partition("\n")
    set_title(ax, f"{test} ({'steady state' if steady else 'NOT in steady state'})" + (f"\n{rest}" if rest else ""))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    low, high = min(ys.min(), avg * 0.85), max(ys.max(), avg * 1.15)
    ax.set_ylim(low - 0.05 * abs(high - low), high + 0.05 * abs(high - low))
    return _save(fig, path)


def grouped_bars(path: Path, title: str, table: pd.DataFrame, ylabel: str, log: bool = True) -> str:
    """One group per row of `table` (R/W mix), one bar per column (block size)."""
    fig, ax = plt.subplots(figsize=(9, 4.6))
    n_groups, n_bars = table.shape
    width = 0.8 / n_bars
    for j, column in enumerate(table.columns):
        ax.bar(np.arange(n_groups) + (j - (n_bars - 1) / 2) * width, table[column].to_numpy(dtype=float), width, label=str(column))
    ax.set_xticks(np.arange(n_groups), [str(i) for i in table.index])
    ax.set_xlabel(table.index.name or "")
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    set_title(ax, title)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=4, title=table.columns.name)
    return _save(fig, path)


def scatter(path: Path, title: str, x: Sequence[float], y: Sequence[float], xlabel: str, ylabel: str, marks: Sequence[tuple[float, str]] = ()) -> str:
    """Points of y against x (IOPS against time or against data written), with labelled marks."""
    fig, ax = plt.subplots(figsize=(9, 4.2))
    ax.plot(list(x), list(y), ".", markersize=2, color="#1f77b4")
    for at, label in marks:
        ax.axvline(at, color="#7f7f7f", lw=0.8, ls=":")
        ax.text(at, ax.get_ylim()[1], f" {label}", fontsize=7, va="top", rotation=90)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    set_title(ax, title)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    return _save(fig, path)
