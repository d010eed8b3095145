"""IO consistency: IOPS every second during 2000 s of 4 KiB random writes at QD32, at the
default over-provisioning and with 25% of the user space left unused."""

from __future__ import annotations

import pandas as pd

from ssdlab.drive import profile_source
from ssdlab.lab import charts
from ssdlab.lab.context import INCOMPRESSIBLE, ReviewContext, duration_text
from ssdlab.lab.results import Ranked, SuiteResult
from ssdlab.lab.scaling import not_representative

NAME = "consistency"
ERA = "2012"  # the review era (and preset) this test belongs to
TITLE = "IO consistency"
METHOD = (
    "Secure erase, sequential fill, then 4 KiB random writes of incompressible data at QD32 over the whole "
    "usable span for {duration}; IOPS every second. Again with 25% extra over-provisioning: only 75% of the user "
    "space is used and the rest stays trimmed."
)


METRICS = {
    "steady_iops_mean": "steady-state IOPS (mean from 70% of the run)",
    "steady_iops_p01": "steady-state IOPS, 1st percentile",
    "steady_iops_p10": "steady-state IOPS, 10th percentile",
    "steady_iops_p50": "steady-state IOPS, median",
    "steady_iops_p99": "steady-state IOPS, 99th percentile",
    "steady_iops_std": "steady-state IOPS, standard deviation",
    "steady_p01_over_mean": "spread: steady-state 1st percentile / mean (1 = perfectly steady)",
    "early_iops_mean": "early IOPS (mean of the first 5%)",
    "write_amplification": "write amplification",
}


#: The suite's independent parts (one drive per over-provisioning) and the CPU seconds each took
#: in a full-scale review of force-gs-240 (the pool runs the longest first); see `ssdlab.lab.parallel`.
PARTS = {"default OP": 26.0, "25% extra OP": 39.0}
EXTRA = {"default OP": [], "25% extra OP": ["drive.reserved_user_fraction=0.25"]}


def run(ctx: ReviewContext) -> SuiteResult:
    return assemble(ctx, {part: run_part(ctx, part) for part in PARTS})


def run_part(ctx: ReviewContext, label: str) -> dict:
    """The run at one over-provisioning on its own drive: metrics, series and charts."""
    duration = round(ctx.span_seconds(2000, minimum=20))
    result = SuiteResult(NAME, TITLE, "", METRICS)
    late = duration * 0.7  # 1400 s of 2000
    extra = EXTRA[label]
    drive = ctx.new_drive(extra)
    drive.secure_erase()
    ctx.precondition(drive, ["rw=write", "bs=128k", "iodepth=32", f"data_pattern={INCOMPRESSIBLE}"], f"fill ({label})")
    run = ctx.run(
        drive,
        ["rw=randwrite", "bs=4k", "iodepth=32", f"runtime={duration}", "time_based", f"data_pattern={INCOMPRESSIBLE}"],
        f"4K random write QD32 ({label})",
    )
    series = run.series[["second", "iops", "free_blocks", "write_amplification"]].copy()
    series["condition"] = label
    tail = series[series["second"] >= late]
    result.add("steady_iops_mean", tail["iops"].mean(), "IOPS", "incompressible", label)
    result.add("steady_iops_p01", tail["iops"].quantile(0.01), "IOPS", "incompressible", label)
    result.add("steady_iops_p10", tail["iops"].quantile(0.10), "IOPS", "incompressible", label)
    result.add("steady_iops_p50", tail["iops"].quantile(0.50), "IOPS", "incompressible", label)
    result.add("steady_iops_p99", tail["iops"].quantile(0.99), "IOPS", "incompressible", label)
    result.add("steady_iops_std", tail["iops"].std(), "IOPS", "incompressible", label)
    mean = tail["iops"].mean()
    result.add("steady_p01_over_mean", tail["iops"].quantile(0.01) / mean if mean else None, "x", "incompressible", label)
    result.add("early_iops_mean", series[series["second"] < duration * 0.05]["iops"].mean(), "IOPS", "incompressible", label)
    result.add("write_amplification", run.summary["write_amplification"], "x", "incompressible", label)
    slug = "default" if label == "default OP" else "op25"
    top, extended = charts.linear_scale(tail["iops"].tolist(), 40_000)
    linear_caption = f"{label}: from t = {late:g} s, linear 0-{top / 1000:g}K" + (f" ({extended})" if extended else " (the article's scale)")
    # (file suffix, title after the job's name, caption, rows, log scale, y limits): the articles' three views of a run.
    views = (
        ("all", f", the whole {duration:g} s run, {label}", f"{label}: whole run, log scale", series, True, None),
        ("late_log", f" from t = {late:g} s, {label}, log scale", f"{label}: from t = {late:g} s, log scale", tail, True, None),
        ("late_linear", f" from t = {late:g} s, {label}, linear scale", linear_caption, tail, False, (0, 40_000)),
    )
    out = ctx.out_dir / "charts"
    for suffix, title, caption, rows, log, ylim in views:
        path = charts.iops_scatter(
            out / f"consistency_{slug}_{suffix}.png",
            ctx.chart_title(f"IO consistency: 4K random write QD32{title}"),
            rows["second"],
            rows["iops"],
            log=log,
            ylim=ylim,
        )
        result.charts.append((path, caption))
    return {"metrics": result.metrics, "series": series, "charts": result.charts}


def scaled_notes(ctx: ReviewContext, duration: float) -> list[str]:
    """What the report says about a scaled run: the drive and duration as scaled, and what its
    figures do not represent (`ssdlab.lab.scaling.not_representative`)."""
    import tomllib

    base = tomllib.loads(profile_source(ctx.profile, ctx.overrides))
    ratio = ctx.capacity_ratio()
    notes = [
        f"Scaled: a drive with {ratio:.3g} of the full drive's user capacity (each die keeps the full drive's share of "
        f"blocks GC can fill), written for {duration_text(duration)} (2000 s times that share)."
    ]
    return notes + not_representative(base, ctx.scale, duration * 0.3)


def assemble(ctx: ReviewContext, parts: dict[str, dict]) -> SuiteResult:
    """The suite's result from its parts' outputs."""
    duration = round(ctx.span_seconds(2000, minimum=20))
    result = SuiteResult(NAME, TITLE, METHOD.format(duration=duration_text(duration)), METRICS)
    late = duration * 0.7
    frames = []
    for part in PARTS:
        result.metrics += parts[part]["metrics"]
        frames.append(parts[part]["series"])
        result.charts += parts[part]["charts"]
    result.tables["consistency"] = pd.concat(frames, ignore_index=True)
    if not ctx.comparable:
        result.notes += scaled_notes(ctx, duration)
    # Side by side as the articles showed them: default OP left, 25% extra OP right.
    per_condition = len(result.charts) // 2
    result.charts = [result.charts[i + k * per_condition] for i in range(per_condition) for k in (0, 1)]
    result.figure_columns = 2
    rows = (("incompressible", "default OP", "default OP"), ("incompressible", "25% extra OP", "25% extra OP"))
    result.ranked.append(Ranked("steady_iops_mean", f"4K random write QD32, steady state (from t = {late:g} s), mean IOPS", rows))
    result.ranked.append(Ranked("steady_iops_p01", f"4K random write QD32, steady state (from t = {late:g} s), 1st percentile IOPS", rows))
    return result
