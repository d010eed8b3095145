"""Charts in the forms a review uses (matplotlib): PNG for the page, plus SVG beside bar and
line charts (sharp at any size, and editable)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HIGHLIGHT = "#d62728"
OTHERS = "#7f7f7f"


def _save(fig, path: Path, svg: bool = True) -> str:
    """Write the PNG (and an SVG beside it unless told not to); returns the PNG's file name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    if svg:
        fig.savefig(path.with_suffix(".svg"))
    plt.close(fig)
    return path.name


def bar_chart(path: Path, title: str, labels: Sequence[str], values: Sequence[float], unit: str, highlight: str | None = None) -> str:
    """Horizontal bars, best at the top, the reviewed drive highlighted (the articles' style)."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    height = 0.6 + 0.45 * len(values)
    fig, ax = plt.subplots(figsize=(8, max(1.8, height)))
    ys = range(len(order))
    colors = [HIGHLIGHT if labels[i] == highlight else OTHERS for i in order]
    ax.barh(list(ys), [values[i] for i in order], color=colors)
    ax.set_yticks(list(ys), [labels[i] for i in order])
    for y, i in zip(ys, order, strict=True):
        ax.text(values[i], y, f" {values[i]:,.1f}", va="center", fontsize=9)
    ax.set_xlabel(unit)
    ax.set_title(title)
    ax.margins(x=0.15)
    return _save(fig, path)


def line_chart(
    path: Path,
    title: str,
    x: Sequence[float],
    series: dict[str, Sequence[float]],
    xlabel: str,
    ylabel: str,
    logx: bool = False,
    xticklabels: Sequence[str] | None = None,
) -> str:
    """One line per series (ATTO by transfer size, HD Tach against position)."""
    fig, ax = plt.subplots(figsize=(8, 4.2))
    for name, ys in series.items():
        ax.plot(list(x), list(ys), marker="o" if len(x) < 40 else None, markersize=3, label=name)
    if logx:
        ax.set_xscale("log", base=2)
    if xticklabels is not None:
        ax.set_xticks(list(x), list(xticklabels), rotation=45, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_ylim(bottom=0)
    return _save(fig, path)


def read_write_series(frames) -> dict[str, list[float]]:
    """Read and write lines per condition, from frames with `read_mbps`, `write_mbps` and a
    single `condition` each (ATTO and HD Tach)."""
    series: dict[str, list[float]] = {}
    for frame in frames:
        condition = frame["condition"].iloc[0]
        series[f"read ({condition})"] = frame["read_mbps"].tolist()
        series[f"write ({condition})"] = frame["write_mbps"].tolist()
    return series


def linear_scale(values: Sequence[float], article_top: float) -> tuple[float, str]:
    """The top of a linear IOPS axis: the article's where every value fits under it, else the
    next multiple of 10K above the data, with a note saying the scale was extended."""
    top = max(values, default=0.0)
    if top <= article_top:
        return article_top, ""
    extended = math.ceil(top * 1.02 / 10_000) * 10_000
    return extended, f"scale extended from the article's 0-{article_top / 1000:g}K: the data exceed it"


def iops_scatter(path: Path, title: str, seconds: Sequence[float], iops: Sequence[float], log: bool, ylim: tuple[float, float] | None = None) -> str:
    """IOPS every second, as the IO-consistency plots show it. Log plots use the articles' fixed
    decades (1 to 100K IOPS, more if the data need it) so drives and runs compare at a glance;
    a linear plot keeps the `ylim` asked for unless data lie above it, then the axis is extended
    and the chart says so (a chart never hides data)."""
    fig, ax = plt.subplots(figsize=(8, 4))
    values = [max(v, 1.0) if log else v for v in iops]
    if not log and ylim is not None:
        top, note = linear_scale(values, ylim[1])
        if note:
            ylim = (ylim[0], top)
            ax.text(0.99, 0.98, note, transform=ax.transAxes, ha="right", va="top", fontsize=8, color="#555555")
    ax.scatter(list(seconds), values, s=3, color=HIGHLIGHT)
    if log:
        ax.set_yscale("log")
        if ylim is None:
            top = max(values, default=1.0)
            ylim = (1.0, 10 ** max(5, math.ceil(math.log10(top * 1.05))))
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("4 KiB random write IOPS")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    return _save(fig, path, svg=False)  # thousands of points: PNG only
