"""Charts of the tests of today's drives that the shared chart forms do not cover: the
whole-drive fill (MB/s against GB written, the SLC cache and the post-cache rate marked) and
latency percentiles against queue depth (a log axis: medians and tails differ a thousandfold).
They follow the rules of `ssdlab.lab.charts` (title with drive and scale, headroom, legend
outside the plot)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from ssdlab.lab import charts
from ssdlab.lab.charts import _save


def fill_chart(
    path: Path,
    title: str,
    gb_written: Sequence[float],
    mbps: Sequence[float],
    cache_gb: float | None,
    post_cache_mbps: float | None,
    average_mbps: float,
) -> str:
    """Write speed against GB written, with the cache size found (a vertical line), the
    post-cache rate and the average (horizontal lines)."""
    fig, ax = charts.figure(4.2)
    x = list(gb_written)
    ax.plot(x, list(mbps), color=charts.HIGHLIGHT, linewidth=1.4, label="write speed")
    top = charts.value_top(list(mbps))
    end = x[-1] if x else 1.0
    if cache_gb is not None:
        ax.plot(
            [cache_gb, cache_gb], [0, top / (1 + charts.HEADROOM)], color="#1f77b4", linestyle="--", linewidth=1.2, label=f"SLC cache found: {cache_gb:,.3g} GB"
        )
    if post_cache_mbps is not None:
        ax.plot(
            [0, end], [post_cache_mbps, post_cache_mbps], color="#2ca02c", linestyle=":", linewidth=1.6, label=f"post-cache rate: {post_cache_mbps:,.0f} MB/s"
        )
    ax.plot([0, end], [average_mbps, average_mbps], color=charts.OTHERS, linestyle="-.", linewidth=1.0, label=f"average: {average_mbps:,.0f} MB/s")
    charts.set_value_limits(ax, list(mbps))
    ax.set_xlim(-0.01 * end, end * 1.01)
    ax.xaxis.set_major_formatter(charts.THOUSANDS)
    ax.set_xlabel("GB written")
    ax.set_ylabel("MB/s")
    charts.set_title(ax, title)
    ax.grid(alpha=0.3)
    charts.outside_legend(fig, ax, ncol=2)
    return _save(fig, path)


def latency_chart(path: Path, title: str, depths: Sequence[int], series: Sequence[charts.Series]) -> str:
    """Latency percentiles against queue depth: log-2 depth axis, log latency axis with a
    factor of headroom at both ends (no series on the frame), legend under the plot."""
    fig, ax = charts.figure(4.2)
    for s in series:
        ax.plot(
            list(depths), list(s.values), color=s.color, linestyle=s.linestyle, marker=s.marker, markersize=4, linewidth=s.linewidth, label=s.label, alpha=0.9
        )
    values = [v for s in series for v in s.values if v is not None and math.isfinite(v) and v > 0]
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(depths), [f"QD{d}" for d in depths])
    ax.minorticks_off()
    ax.set_yscale("log")
    if values:
        ax.set_ylim(min(values) / 2, max(values) * 2)
    ax.yaxis.set_major_formatter(charts.THOUSANDS)
    ax.set_xlabel("queue depth")
    ax.set_ylabel("latency (us, log scale)")
    charts.set_title(ax, title)
    ax.grid(alpha=0.3)
    charts.outside_legend(fig, ax)
    return _save(fig, path)
