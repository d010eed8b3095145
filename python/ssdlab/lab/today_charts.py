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


def thermal_chart(
    path: Path,
    title: str,
    seconds: Sequence[float],
    mbps: Sequence[float],
    controller_c: Sequence[float],
    nand_c: Sequence[float],
    points: Sequence[tuple[float, int]],
    steps_c: Sequence[float],
    baseline_seconds: Sequence[float] = (),
    baseline_mbps: Sequence[float] = (),
) -> str:
    """Write speed (left axis; the baseline without throttling in grey) and the controller's and
    NAND's temperatures (right axis) against time, the throttling steps' temperatures as dotted
    lines and the points where a step engages (down triangle) or releases (up triangle) marked
    on the hotter node's curve. The title is the figure's (both axes share it)."""
    fig, ax = charts.figure(4.8)
    x = list(seconds)
    if len(baseline_mbps):
        ax.plot(list(baseline_seconds), list(baseline_mbps), color=charts.OTHERS, linewidth=0.8, label="write speed without throttling (MB/s, left axis)")
    ax.plot(x, list(mbps), color=charts.HIGHLIGHT, linewidth=1.0, label="write speed (MB/s, left axis)")
    charts.set_value_limits(ax, [*mbps, *baseline_mbps])
    ax.set_ylabel("MB/s")
    ax.set_xlabel("seconds")
    ax.grid(alpha=0.3)
    temps = ax.twinx()
    temps.plot(x, list(controller_c), color="#1f77b4", linewidth=1.5, label="controller (C, right axis)")
    temps.plot(x, list(nand_c), color="#ff7f0e", linewidth=1.5, linestyle="--", label="NAND (C, right axis)")
    end = x[-1] if x else 1.0
    for i, at_c in enumerate(steps_c):
        temps.plot([0, end], [at_c, at_c], color=charts.OTHERS, linestyle=":", linewidth=1.0, label=f"throttle step {i + 1}: {at_c:g} C")
    composite = [max(a, b) for a, b in zip(controller_c, nand_c, strict=True)]
    by_time = dict(zip(x, composite, strict=True))
    engage = [(t, by_time[t]) for t, step in points if step > 0 and _up(points, t)]
    release = [(t, by_time[t]) for t, step in points if not _up(points, t)]
    if engage:
        temps.scatter([p[0] for p in engage], [p[1] for p in engage], marker="v", color="#9467bd", s=22, zorder=5, label="throttling step up")
    if release:
        temps.scatter([p[0] for p in release], [p[1] for p in release], marker="^", color="#2ca02c", s=22, zorder=5, label="throttling step down")
    values = [v for v in [*controller_c, *nand_c, *steps_c] if v is not None and math.isfinite(v)]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    margin = max(1.0, 0.12 * (high - low))
    temps.set_ylim(low - margin, high + margin)
    temps.set_ylabel("temperature (C)")
    ax.set_xlim(-0.01 * end, end * 1.01)
    fig.suptitle(charts._wrapped(title, 11), fontsize=11)
    handles, labels = [], []
    for a in (ax, temps):
        h, lab = a.get_legend_handles_labels()
        handles += h
        labels += lab
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=8, frameon=False)
    return _save(fig, path)


def _up(points: Sequence[tuple[float, int]], at: float) -> bool:
    """Whether the step change at time `at` is to a higher step than the one before."""
    before = 0
    for t, step in points:
        if t == at:
            return step > before
        before = step
    return False


def log_bars(path: Path, title: str, labels: Sequence[str], values: Sequence[float], unit: str) -> str:
    """Vertical bars on a log value axis (idle power from watts down to milliwatts, latencies
    from microseconds to milliseconds), each labelled with its value, a factor of headroom at
    both ends."""
    fig, ax = charts.figure(3.8)
    x = list(range(len(labels)))
    shown = [v if v and v > 0 else float("nan") for v in values]
    ax.bar(x, shown, color=charts.CONDITION_COLORS[0], width=0.6)
    finite = [v for v in shown if math.isfinite(v)]
    ax.set_yscale("log")
    if finite:
        ax.set_ylim(min(finite) / 3, max(finite) * 6)
    for i, v in enumerate(shown):
        if math.isfinite(v):
            ax.text(i, v * 1.25, f"{v:.3g}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, list(labels))
    ax.set_xlim(-0.6, len(labels) - 0.4)
    ax.set_ylabel(unit)
    charts.set_title(ax, title)
    ax.grid(alpha=0.3, axis="y")
    return _save(fig, path)


def apst_walk_chart(path: Path, title: str, seconds: Sequence[float], watts: Sequence[float], states: Sequence[int]) -> str:
    """Power of an idle drive against time on a log axis as APST moves it down the states, each
    state's stretch labelled with its name in the legend."""
    fig, ax = charts.figure(3.8)
    x, y = list(seconds), [w if w > 0 else float("nan") for w in watts]
    ax.step(x, y, where="post", color=charts.OTHERS, linewidth=1.0)
    for i, state in enumerate(sorted(set(states))):
        xs = [t for t, s in zip(x, states, strict=True) if s == state]
        ys = [w for w, s in zip(y, states, strict=True) if s == state]
        ax.scatter(xs, ys, s=6, color=charts.CONDITION_COLORS[i % len(charts.CONDITION_COLORS)], label=f"PS{state}", zorder=3)
    finite = [v for v in y if math.isfinite(v)]
    ax.set_yscale("log")
    if finite:
        ax.set_ylim(min(finite) / 3, max(finite) * 3)
    end = x[-1] if x else 1.0
    ax.set_xlim(-0.02 * end, end * 1.02)
    ax.set_xlabel("seconds of idle")
    ax.set_ylabel("power (W, log scale)")
    charts.set_title(ax, title)
    ax.grid(alpha=0.3)
    charts.outside_legend(fig, ax, ncol=min(5, len(set(states))))
    return _save(fig, path)
