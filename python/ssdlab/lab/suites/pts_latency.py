"""SNIA PTS latency test: QD1 random IO at 8, 4 and 0.5 KiB x R/W mixes 100/0, 65/35, 0/100, in
rounds until the 4 KiB 100% write average latency is in steady state."""

from __future__ import annotations

from ssdlab.lab.context import ReviewContext
from ssdlab.lab.pts import charts, procedure
from ssdlab.lab.results import SuiteResult

NAME = "pts-latency"
TITLE = "SNIA PTS: latency"
METHOD = (
    "Purge, WIPC (2 x capacity, 128 KiB sequential), then rounds: for each R/W mix (100/0, 65/35, 0/100), for each "
    "block size (8, 4, 0.5 KiB), random IO at QD1 (one thread, one command) for {step}. Rounds until the 4 KiB "
    "100% write average latency is in steady state (5-round window), at most 25. Average and percentiles are "
    "averages over the window; the maximum is the largest in it."
)

MIXES = (100, 65, 0)
BLOCKS = (8 << 10, 4 << 10, 512)
TRACKING = "4 KiB 0/100"

METRICS = {
    "lat_4k_read_mean": "4 KiB random read, average latency (QD1)",
    "lat_4k_write_mean": "4 KiB random write, average latency (QD1)",
    "lat_4k_write_max": "4 KiB random write, maximum latency (QD1)",
    "lat_4k_write_p999": "4 KiB random write, 99.9th percentile latency (QD1)",
    "lat_4k_read_p999": "4 KiB random read, 99.9th percentile latency (QD1)",
}


def run(ctx: ReviewContext) -> SuiteResult:
    result = SuiteResult(NAME, TITLE, METHOD.format(step=procedure.step_text(ctx)), METRICS)
    rounds, means = procedure.random_rounds_test(
        ctx, result.notes, "Latency", MIXES, BLOCKS, 1, lambda r: r[TRACKING]["latency_mean_us"], "4 KiB 100% write average latency"
    )
    table = means[["step", "latency_mean_us", "latency_p99_us", "latency_p999_us", "latency_max_us", "iops"]].rename(
        columns={
            "step": "block size and R/W mix",
            "latency_mean_us": "average (us)",
            "latency_p99_us": "99% (us)",
            "latency_p999_us": "99.9% (us)",
            "latency_max_us": "maximum (us)",
            "iops": "IOPS",
        }
    )
    result.tables["pts_latency"] = table.reset_index(drop=True)
    result.tables["pts_latency_rounds"] = rounds.frame
    row = {s: r for s, r in zip(means["step"], means.to_dict("records"), strict=True)}
    pat = ctx.pts_pattern
    result.add("lat_4k_read_mean", row["4 KiB 100/0"]["latency_mean_us"], "us", pat, "QD1")
    result.add("lat_4k_write_mean", row[TRACKING]["latency_mean_us"], "us", pat, "QD1")
    result.add("lat_4k_write_max", row[TRACKING]["latency_max_us"], "us", pat, "QD1")
    result.add("lat_4k_write_p999", row[TRACKING]["latency_p999_us"], "us", pat, "QD1")
    result.add("lat_4k_read_p999", row["4 KiB 100/0"]["latency_p999_us"], "us", pat, "QD1")
    out = ctx.out_dir / "charts"
    result.charts.append(
        (
            charts.convergence(
                out / "pts_latency_convergence.png",
                ctx.chart_title("PTS latency: average latency convergence"),
                rounds.frame,
                ["4 KiB 0/100", "8 KiB 0/100", "0.5 KiB 0/100", "4 KiB 65/35"],
                "latency_mean_us",
                "average latency (us)",
                rounds.window,
            ),
            "Steady-state convergence: average latency per round",
        )
    )
    result.charts.append(
        (
            charts.measurement_window(
                out / "pts_latency_window.png",
                ctx.chart_title("PTS latency: 4 KiB 100% write average latency, measurement window"),
                rounds.tracking,
                rounds.window,
                "us",
                rounds.steady,
            ),
            "Measurement window of the tracking variable",
        )
    )
    avg = procedure.mix_by_block(means, MIXES, BLOCKS, "latency_mean_us")
    result.charts.append(
        (
            charts.grouped_bars(
                out / "pts_latency_bars.png", ctx.chart_title("PTS latency: average by R/W mix and block size (QD1)"), avg, "average latency (us)", log=False
            ),
            "Average latency",
        )
    )
    return result
