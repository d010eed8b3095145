"""SNIA PTS host idle recovery (HIR): on a write-saturated drive, bursts of 5 s of 4 KiB random
writes alternate with idle periods of 5, 10, 15, 25 and 50 s (wait states 1, 2, 3, 5, 10), with
a return to the continuous-write baseline after each wait state; shows what idle GC recovers."""

from __future__ import annotations

import tomllib

import pandas as pd

from ssdlab.lab.context import ReviewContext
from ssdlab.lab.pts import charts, procedure
from ssdlab.lab.results import SuiteResult

NAME = "pts-hir"
TITLE = "SNIA PTS: host idle recovery"
METHOD = (
    "Purge, WIPC (2 x capacity, 128 KiB sequential), write saturation (4 KiB random writes at QD32 for 2 x the user "
    "capacity), then for each wait state 1, 2, 3, 5 and 10: {reps} repetitions of 5 s of 4 KiB random writes at QD32 "
    "followed by 5 s x wait state of idle, then {back:g} s of continuous writes (return to baseline). IOPS of each "
    "burst against time; recovery = a wait state's average burst IOPS over the saturated baseline."
)

#: Wait states: idle time after each 5 s burst is 5 s times the state.
WAIT_STATES = (1, 2, 3, 5, 10)
BURST_SECONDS = 5.0
#: Bursts per wait state, at full scale.
REPETITIONS = 360
#: Continuous writes after each wait state, simulated seconds at full scale.
BASELINE_SECONDS = 1800.0

METRICS = {
    "hir_baseline_iops": "saturated baseline IOPS (continuous 4 KiB random writes)",
    **{f"hir_ws{w}_iops": f"wait state {w} ({w * 5:g} s idle): average burst IOPS" for w in WAIT_STATES},
    **{f"hir_ws{w}_recovery": f"wait state {w}: burst IOPS / baseline IOPS" for w in WAIT_STATES},
}


def has_idle_gc(info: dict) -> bool:
    """Whether the drive collects garbage when idle (its idle target is above its low-water mark)."""
    ftl = tomllib.loads(info["source"])["ftl"]
    return ftl["gc_idle_target_free_blocks_per_die"] > ftl["gc_low_free_blocks_per_die"]


def repetitions(ctx: ReviewContext) -> int:
    """Bursts per wait state in this run (360 at full scale, scaled, at least 5)."""
    return max(5, round(REPETITIONS * ctx.scale))


def baseline_seconds(ctx: ReviewContext) -> float:
    """Continuous writes after each wait state in this run, simulated seconds."""
    return ctx.seconds(BASELINE_SECONDS, minimum=30)


def run(ctx: ReviewContext) -> SuiteResult:
    result = SuiteResult(NAME, TITLE, METHOD.format(reps=repetitions(ctx), back=baseline_seconds(ctx)), METRICS)
    drive = ctx.new_drive()
    if not has_idle_gc(drive.info):
        result.notes.append(
            "This drive does no idle-time garbage collection (its profile's idle target is not above its low-water mark): HIR does not apply and was not run."
        )
        return result
    conditions: list[str] = []
    procedure.purge_and_precondition(ctx, drive, conditions)
    pattern = procedure.pattern_option(ctx)
    write = ["rw=randwrite", "bs=4k", f"iodepth={procedure.QUEUE_DEPTH}", pattern]
    capacity = drive.info["capacity_bytes_user"]
    saturate = ctx.run(drive, [*write, f"io_size={2 * capacity}"], "write saturation (2 x capacity, 4 KiB random)")
    conditions.append(f"write saturation: 4 KiB random writes of 2 x user capacity ({2 * capacity / 1e9:,.1f} GB)")
    tail = saturate.series.tail(max(1, min(len(saturate.series) // 10, 600)))
    baseline = float((tail["iops"] * tail["span_seconds"]).sum() / tail["span_seconds"].sum())
    reps = repetitions(ctx)
    back = baseline_seconds(ctx)
    rows: list[dict] = []
    marks: list[tuple[float, str]] = []
    t0 = drive.now_seconds
    phase = procedure.Phase(ctx, "wait states", len(WAIT_STATES) * (reps + 1))
    for state in WAIT_STATES:
        marks.append(((drive.now_seconds - t0) / 60, f"WS{state}"))
        for rep in range(reps):
            start = drive.now_seconds - t0
            burst = phase.run(drive, [*write, f"runtime={BURST_SECONDS:g}", "time_based"], f"WS{state} burst {rep + 1}")
            rows.append({"minute": start / 60, "wait_state": state, "kind": "burst", "iops": burst.summary["iops"]})
            drive.idle(BURST_SECONDS * state)
        start = drive.now_seconds - t0
        continuous = phase.run(drive, [*write, f"runtime={back:g}", "time_based"], f"WS{state} return to baseline")
        for second, iops in zip(continuous.series["second"], continuous.series["iops"], strict=True):
            rows.append({"minute": (start + second) / 60, "wait_state": state, "kind": "baseline", "iops": iops})
    phase.finish()
    frame = pd.DataFrame(rows)
    pat = ctx.pts_pattern
    result.add("hir_baseline_iops", baseline, "IOPS", pat)
    summary = []
    for state in WAIT_STATES:
        bursts = frame[(frame["wait_state"] == state) & (frame["kind"] == "burst")]["iops"]
        result.add(f"hir_ws{state}_iops", bursts.mean(), "IOPS", pat, f"{state * 5:g} s idle")
        result.add(f"hir_ws{state}_recovery", bursts.mean() / baseline if baseline else None, "x", pat, f"{state * 5:g} s idle")
        summary.append(
            {
                "wait state": state,
                "idle after each burst (s)": BURST_SECONDS * state,
                "bursts": reps,
                "average burst IOPS": bursts.mean(),
                "burst IOPS / baseline": bursts.mean() / baseline if baseline else None,
            }
        )
    conditions.append(
        f"wait states {', '.join(map(str, WAIT_STATES))}: {reps} bursts of {BURST_SECONDS:g} s each, then {back:g} s of continuous writes; data {pat}"
    )
    result.notes.append("Test conditions: " + "; ".join(conditions) + ".")
    result.tables["pts_hir"] = pd.DataFrame(summary)
    result.tables["pts_hir_samples"] = frame
    out = ctx.out_dir / "charts"
    result.charts.append(
        (
            charts.scatter(
                out / "pts_hir.png",
                ctx.chart_title("HIR: IOPS of each burst and of the returns to baseline"),
                frame["minute"],
                frame["iops"],
                "time (minutes)",
                "IOPS",
                marks,
            ),
            "IOPS against time",
        )
    )
    return result
