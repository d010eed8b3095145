"""Charts in the forms a review uses (matplotlib), each as a PNG at twice the screen resolution
(200 dpi, drawn 8 inches wide: 1600 px shown 800 px wide) and an SVG beside it.

Rules every chart follows (tests/lab/test_report_browser.py checks them on the artists):
- the title names the test, then the drive and the scale (a PNG copied out keeps its context);
- a value axis never stops at the data: there is headroom above the largest value and below
  zero, so no series lies on the plot frame;
- legends sit outside the plot, under it, so they cover no data;
- line charts draw one colour per condition and one line style per direction (read solid,
  write dashed), earlier conditions wider underneath, so equal curves stay visible;
- ranked bar charts show one metric, one bar per drive (and data pattern or condition), the
  best at the top and the reviewed drive highlighted, as AnandTech's Bench drew them.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from ssdlab import paths  # noqa: E402

#: Value-axis labels with thousands separators (30,000 rather than 30000).
THOUSANDS = FuncFormatter(lambda v, _: f"{v:,.0f}" if abs(v) >= 1000 or v == int(v) else f"{v:g}")

HIGHLIGHT = "#d62728"
OTHERS = "#8c8c8c"
#: PNG resolution: 2x a 100 dpi screen.
DPI = 200
#: Figure width in inches (800 CSS pixels on the page).
WIDTH_IN = 8.0
#: One colour per condition (colour-blind-safe order), paired read/write lines share it.
CONDITION_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]
#: One marker per condition, so curves lying on each other are still told apart.
CONDITION_MARKERS = ["o", "s", "^", "D", "v", "P"]
#: Line widths per condition: the first drawn widest, underneath.
CONDITION_WIDTHS = [3.4, 2.3, 1.3, 1.0, 1.0, 1.0]
#: Share of the value range kept free above the largest value (and below zero).
HEADROOM = 0.12


def _save(fig, path: Path, svg: bool = True) -> str:
    """Write the PNG at 200 dpi and an SVG beside it; returns the PNG's file name. (`svg` is
    kept for callers that passed it: every chart gets its SVG.)"""
    del svg
    path.parent.mkdir(parents=True, exist_ok=True)
    if not fig.get_layout_engine():
        fig.tight_layout()
    # Through a temporary file renamed into place: a chart already there stays whole until the
    # new one is complete.
    with paths.atomic_output(path, "chart") as temp:
        fig.savefig(temp, dpi=DPI, format="png")
    with paths.atomic_output(path.with_suffix(".svg"), "chart") as temp:
        fig.savefig(temp, format="svg")
    plt.close(fig)
    return path.name


def _wrapped(title: str, fontsize: float) -> str:
    width = max(40, int(0.92 * WIDTH_IN * 72 / (fontsize * 0.55)))
    return "\n".join(wrapped for line in title.split("\n") for wrapped in textwrap.wrap(line, width) or [""])


def set_title(ax, title: str, fontsize: float = 11, loc: str = "center") -> None:
    """The chart's title over the plot, each line wrapped to the figure's width."""
    ax.set_title(_wrapped(title, fontsize), fontsize=fontsize, loc=loc)


def figure(height_in: float):
    """A figure of the report's width with a constrained layout (title, axes and an outside
    legend never overlap)."""
    return plt.subplots(figsize=(WIDTH_IN, height_in), layout="constrained")


def value_top(values: Sequence[float]) -> float:
    """The top of a linear value axis: the largest value plus headroom (1 when all are zero)."""
    top = max((v for v in values if v is not None and math.isfinite(v)), default=0.0)
    return top * (1 + HEADROOM) if top > 0 else 1.0


def set_value_limits(ax, values: Sequence[float], axis: str = "y") -> None:
    """Linear value axis from just below zero (so a zero line stays off the frame; no negative
    tick appears) to the top with headroom."""
    top = value_top(values)
    (ax.set_ylim if axis == "y" else ax.set_xlim)(-0.03 * top, top)
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(THOUSANDS)


def outside_legend(fig, ax, ncol: int | None = None) -> None:
    """The legend under the plot, in as many columns as fit."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncol=ncol or min(3, len(labels)), fontsize=8, frameon=False)


@dataclass(frozen=True)
class Series:
    """One line of a line chart: its values, legend label and style."""

    label: str
    values: Sequence[float]
    color: str
    linestyle: str = "-"
    marker: str | None = None
    linewidth: float = 1.5


def line_chart(
    path: Path,
    title: str,
    x: Sequence[float],
    series: Sequence[Series],
    xlabel: str,
    ylabel: str,
    logx: bool = False,
    xticklabels: Sequence[str] | None = None,
) -> str:
    """Lines against x (ATTO by transfer size, HD Tach against position), headroom above."""
    fig, ax = figure(4.0)
    markers = len(x) < 40
    for s in series:
        ax.plot(
            list(x),
            list(s.values),
            color=s.color,
            linestyle=s.linestyle,
            linewidth=s.linewidth,
            marker=s.marker if markers else None,
            markersize=4,
            markevery=None if markers else max(1, len(x) // 12),
            label=s.label,
            alpha=0.9,
        )
    if logx:
        ax.set_xscale("log", base=2)
    if xticklabels is not None:
        ax.set_xticks(list(x), list(xticklabels), rotation=45, fontsize=8)
        ax.minorticks_off()
    set_value_limits(ax, [v for s in series for v in s.values])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    set_title(ax, title)
    ax.grid(alpha=0.3)
    outside_legend(fig, ax)
    return _save(fig, path)


def read_write_series(frames) -> list[Series]:
    """Read and write lines per condition, from frames with `read_mbps`, `write_mbps` and a
    single `condition` each (ATTO and HD Tach): one colour and marker per condition, read
    solid and write dashed."""
    series: list[Series] = []
    for i, frame in enumerate(frames):
        condition = frame["condition"].iloc[0]
        style = {"color": CONDITION_COLORS[i % 6], "marker": CONDITION_MARKERS[i % 6], "linewidth": CONDITION_WIDTHS[min(i, 5)] if len(frames) > 1 else 1.8}
        series.append(Series(f"read, {condition}", frame["read_mbps"].tolist(), linestyle="-", **style))
        series.append(Series(f"write, {condition}", frame["write_mbps"].tolist(), linestyle="--", **style))
    return series


def condition_series(frames, column: str, direction: str) -> list[Series]:
    """One line per condition of one direction (`column` of frames with a single `condition`)."""
    linestyle = "-" if direction == "read" else "--"
    return [
        Series(
            f"{direction}, {frame['condition'].iloc[0]}",
            frame[column].tolist(),
            CONDITION_COLORS[i % 6],
            linestyle,
            CONDITION_MARKERS[i % 6],
            CONDITION_WIDTHS[min(i, 5)] if len(frames) > 1 else 1.8,
        )
        for i, frame in enumerate(frames)
    ]


@dataclass(frozen=True)
class Bar:
    """One bar of a ranked chart."""

    label: str
    value: float
    highlighted: bool = False
    #: A colour of its own (e.g. a condition's, as in the line charts); default by highlight.
    color: str | None = None


def _value_text(value: float) -> str:
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:,.1f}"
    return f"{value:,.2f}"


def ranked_bars(path: Path, title: str, bars: Sequence[Bar], unit: str, lower_is_better: bool = False, rank: bool = True) -> str:
    """One metric: horizontal bars, best at the top (or in the given order when `rank` is
    false), highlighted bars in red, each value written at its bar's end (inside the plot: the
    axis runs past the longest bar)."""
    order = sorted(range(len(bars)), key=lambda i: (bars[i].value if lower_is_better else -bars[i].value, i)) if rank else list(range(len(bars)))
    fig, ax = figure(0.95 + 0.32 * len(bars))
    ys = list(range(len(order)))[::-1]  # first (best) at the top
    values = [bars[i].value for i in order]
    ax.barh(ys, values, color=[bars[i].color or (HIGHLIGHT if bars[i].highlighted else OTHERS) for i in order], height=0.7)
    ax.set_yticks(ys, [bars[i].label for i in order], fontsize=9)
    for y, i in zip(ys, order, strict=True):
        ax.text(bars[i].value, y, f" {_value_text(bars[i].value)}", va="center", fontsize=8.5, fontweight="bold" if bars[i].highlighted else None)
    top = max(values, default=0.0)
    ax.set_xlim(0, top * 1.22 if top > 0 else 1.0)
    ax.xaxis.set_major_formatter(THOUSANDS)
    ax.set_ylim(-0.6, len(order) - 0.4)
    ax.set_xlabel(f"{unit} ({'lower' if lower_is_better else 'higher'} is better)" if rank else unit, fontsize=9)
    # Over the whole figure: long drive names push the plot right, a title centred on it would
    # run off the image.
    fig.suptitle(_wrapped(title, 10), fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    return _save(fig, path)


def bar_chart(path: Path, title: str, labels: Sequence[str], values: Sequence[float], unit: str, highlight: str | None = None) -> str:
    """One metric across drives (`labels`), best at the top, `highlight` in red."""
    return ranked_bars(path, title, [Bar(label, value, label == highlight) for label, value in zip(labels, values, strict=True)], unit)


def linear_scale(values: Sequence[float], article_top: float) -> tuple[float, str]:
    """The top of a linear IOPS axis: the article's where every value lies under it, else the
    next multiple of 10K at least 2% above the data, with a note saying the scale was extended."""
    top = max(values, default=0.0)
    if top < article_top:
        return article_top, ""
    extended = math.ceil(top * 1.02 / 10_000) * 10_000
    return extended, f"scale extended from the article's 0-{article_top / 1000:g}K: the data exceed it"


def iops_scatter(path: Path, title: str, seconds: Sequence[float], iops: Sequence[float], log: bool, ylim: tuple[float, float] | None = None) -> str:
    """IOPS every second, as the IO-consistency plots show it. Log plots use the articles' fixed
    decades (1 to 100K IOPS, more if the data need it; seconds without a completion are drawn
    at 1, just above the frame) so drives and runs compare at a glance; a linear plot keeps the
    `ylim` asked for unless data lie above it, then the axis is extended and the chart says so
    (a chart never hides data)."""
    fig, ax = figure(4.2)
    values = [max(v, 1.0) if log else v for v in iops]
    if not log and ylim is not None:
        top, note = linear_scale(values, ylim[1])
        if note:
            ax.set_xlabel(f"time (s); {note}")
        ylim = (-0.03 * top, top)
    ax.scatter(list(seconds), values, s=10 if len(values) < 300 else 4, color=HIGHLIGHT, linewidths=0)
    if log:
        ax.set_yscale("log")
        if ylim is None:
            top = max(values, default=1.0)
            ylim = (0.6, 10 ** max(5, math.ceil(math.log10(top * 1.2))))
    if ylim is not None:
        ax.set_ylim(*ylim)
    if not log:
        ax.yaxis.set_major_formatter(THOUSANDS)
    if not ax.get_xlabel():
        ax.set_xlabel("time (s)")
    ax.set_ylabel("4 KiB random write IOPS")
    set_title(ax, title)
    ax.grid(alpha=0.3)
    return _save(fig, path)
