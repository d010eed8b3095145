"""SNIA PTS IOPS test: random access at the specification's R/W mixes x block sizes, in rounds
until the 4 KiB 100% write IOPS is in steady state; results averaged over the measurement window."""

from __future__ import annotations

from ssdlab.lab.context import ReviewContext
from ssdlab.lab.pts import charts, procedure
from ssdlab.lab.results import SuiteResult

NAME = "pts-iops"
TITLE = "SNIA PTS: IOPS"
METHOD = (
    "Purge, WIPC (2 x capacity, 128 KiB sequential), then rounds: for each R/W mix (100/0, 95/5, 65/35, 50/50, "
    "35/65, 5/95, 0/100), for each block size (1024, 128, 64, 32, 16, 8, 4, 0.5 KiB), random IO at QD32 for {step}. "
    "Rounds until the 4 KiB 100% write IOPS is in steady state (5-round window: data within 20%, best-fit "
    "line within 10% of the average), at most 25; IOPS are averages over the measurement window."
)

#: R/W mixes in the specification's order (percent read).
MIXES = (100, 95, 65, 50, 35, 5, 0)
#: Block sizes in the specification's order, in bytes.
BLOCKS = (1 << 20, 128 << 10, 64 << 10, 32 << 10, 16 << 10, 8 << 10, 4 << 10, 512)
TRACKING = "4 KiB 0/100"

METRICS = {
    "iops_4k_write": "4 KiB random write IOPS (steady state)",
    "iops_4k_read": "4 KiB random read IOPS (steady state)",
    "iops_4k_65_35": "4 KiB random 65/35 R/W IOPS (steady state)",
    "iops_512_write": "0.5 KiB random write IOPS (steady state)",
    "iops_1m_read": "1024 KiB random read IOPS (steady state)",
    "rounds": "rounds run",
    "steady": "steady state reached (1 yes, 0 no)",
}


def run(ctx: ReviewContext) -> SuiteResult:
    result = SuiteResult(NAME, TITLE, METHOD.format(step=procedure.step_text(ctx)), METRICS)
    rounds, means = procedure.random_rounds_test(
        ctx, result.notes, "IOPS", MIXES, BLOCKS, procedure.QUEUE_DEPTH, lambda r: r[TRACKING]["iops"], "4 KiB 100% write IOPS"
    )
    table = procedure.mix_by_block(means, MIXES, BLOCKS, "iops")
    shown = table.reset_index()
    result.tables["pts_iops"] = shown
    result.tables["pts_iops_rounds"] = rounds.frame
    by = dict(zip(means["step"], means["iops"], strict=True))
    pat = ctx.pts_pattern
    result.add("iops_4k_write", by[TRACKING], "IOPS", pat, "steady state")
    result.add("iops_4k_read", by["4 KiB 100/0"], "IOPS", pat, "steady state")
    result.add("iops_4k_65_35", by["4 KiB 65/35"], "IOPS", pat, "steady state")
    result.add("iops_512_write", by["0.5 KiB 0/100"], "IOPS", pat, "steady state")
    result.add("iops_1m_read", by["1024 KiB 100/0"], "IOPS", pat, "steady state")
    result.add("rounds", len(rounds.tracking), "rounds", pat)
    result.add("steady", 1.0 if rounds.steady else 0.0, "", pat)
    out = ctx.out_dir / "charts"
    result.charts.append(
        (
            charts.convergence(
                out / "pts_iops_convergence.png",
                ctx.chart_title("PTS IOPS: steady-state convergence (write-heavy steps)"),
                rounds.frame,
                ["4 KiB 0/100", "8 KiB 0/100", "64 KiB 0/100", "4 KiB 65/35", "0.5 KiB 0/100"],
                "iops",
                "IOPS",
                rounds.window,
            ),
            "Steady-state convergence: IOPS per round of selected steps",
        )
    )
    result.charts.append(
        (
            charts.measurement_window(
                out / "pts_iops_window.png",
                ctx.chart_title("PTS IOPS: 4 KiB 100% write IOPS, measurement window"),
                rounds.tracking,
                rounds.window,
                "IOPS",
                rounds.steady,
            ),
            "Measurement window of the tracking variable with its average, range and slope bands",
        )
    )
    result.charts.append(
        (
            charts.grouped_bars(out / "pts_iops_bars.png", ctx.chart_title("PTS IOPS: by R/W mix and block size (measurement window average)"), table, "IOPS"),
            "IOPS by block size and mix",
        )
    )
    return result
