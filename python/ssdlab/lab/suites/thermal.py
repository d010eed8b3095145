"""Thermal throttling: a 20-minute sustained sequential write at a given ambient temperature,
write speed and temperature every second on one chart, the points where the firmware's
throttling steps engage and release marked; then idle time to cool and a write to show the
speed back."""

from __future__ import annotations

import math

import pandas as pd

from ssdlab.lab import today_charts
from ssdlab.lab.context import INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.results import Ranked, SuiteResult

NAME = "thermal"
ERA = "2020s"
TITLE = "Thermal throttling"
#: Profile sections the suite needs (the drive's heat model).
PROFILE_SECTIONS = ("thermal",)
#: Ambient temperature of the test when the review does not give one, degrees C: a warm case, the
#: drive in the M.2 slot between the CPU and the graphics card, as TechPowerUp's thermal tests
#: place it (the temperature is assumed).
DEFAULT_AMBIENT_C = 40.0
#: Durations at full scale, seconds: the sustained write, the idle time after it, the write
#: after cooling.
WRITE_SECONDS = 1200
COOL_SECONDS = 300
AGAIN_SECONDS = 60
METHOD = (
    "Secure erase; 128 KiB sequential writes of incompressible data at QD32 for {write}, time based (the "
    "whole user space written again and again), at an ambient temperature of {ambient:g} C; then {cool} of idle; "
    "then the same writes for {again}. Every second: write speed, the controller's and the NAND's temperature "
    "from the drive's thermal model (two nodes, each a heat capacity with a thermal resistance to the air, heated "
    "by the energy model's power) and the firmware's throttling step (each step lets every die work only part of "
    "the time). Throttle points: the seconds at which the step changes. Baseline: the same {write} of writes on a "
    "fresh drive whose firmware does not throttle (the profile's throttling steps off): what throttling cost is "
    "the difference. Scaled reviews shrink the heat capacities with the durations (the drive heats and cools in "
    "the scaled time)."
)

METRICS = {
    "peak_c": "peak composite temperature",
    "first_throttle_s": "time to the first throttling step",
    "throttled_share": "share of the write throttled",
    "mean_write_mbps": "mean write speed over the sustained write",
    "baseline_write_mbps": "mean write speed without throttling (the same write, steps off)",
    "throttle_cost": "speed lost to throttling",
    "after_idle_c": "composite temperature after the idle time",
    "after_idle_write_mbps": "write speed after cooling",
}


def _write(ctx: ReviewContext, drive, seconds: float, label: str) -> pd.DataFrame:
    run = ctx.run(drive, ["rw=write", "bs=128k", "iodepth=32", f"runtime={seconds:g}", "time_based", f"data_pattern={INCOMPRESSIBLE}"], label)
    return run.series.copy()


def throttle_points(seconds: pd.Series, steps: pd.Series) -> list[tuple[float, int]]:
    """The (second, new step) pairs where the throttling step changes."""
    points = []
    before = 0
    for second, step in zip(seconds, steps, strict=True):
        if math.isnan(step):
            continue
        if int(step) != before:
            points.append((float(second), int(step)))
            before = int(step)
    return points


def run(ctx: ReviewContext) -> SuiteResult:
    ambient = ctx.ambient_c if ctx.ambient_c is not None else DEFAULT_AMBIENT_C
    drive = ctx.new_drive([f"thermal.ambient_c={ambient!r}"])
    write_s, cool_s, again_s = ctx.seconds(WRITE_SECONDS), ctx.seconds(COOL_SECONDS), ctx.seconds(AGAIN_SECONDS)
    result = SuiteResult(
        NAME,
        TITLE,
        METHOD.format(write=ctx.duration_label(WRITE_SECONDS), ambient=ambient, cool=ctx.duration_label(COOL_SECONDS), again=ctx.duration_label(AGAIN_SECONDS)),
        METRICS,
    )
    drive.secure_erase()
    start = drive.now_seconds
    hot = _write(ctx, drive, write_s, "sustained write")
    hot["phase"] = "sustained write"
    hot["time_s"] = hot["second"]
    # Idle: temperature every second as the drive cools (and folds its SLC cache meanwhile).
    idle_start = drive.now_seconds - start
    rows = []
    for i in range(int(math.ceil(cool_s))):
        drive.idle(min(1.0, cool_s - i))
        t = drive.state().get("thermal") or {}
        rows.append(
            {
                "time_s": idle_start + i + 1,
                "write_mbps": math.nan,
                "controller_c": t.get("controller_c"),
                "nand_c": t.get("nand_c"),
                "throttle_step": t.get("throttle_step"),
            }
        )
    cool = pd.DataFrame(rows)
    cool["phase"] = "idle"
    again_start = drive.now_seconds - start
    again = _write(ctx, drive, again_s, "write after cooling")
    again["phase"] = "write after cooling"
    again["time_s"] = again["second"] + again_start
    drive.close()
    columns = ["time_s", "phase", "write_mbps", "controller_c", "nand_c", "throttle_step"]
    series = pd.concat([hot.reindex(columns=columns), cool.reindex(columns=columns), again.reindex(columns=columns)], ignore_index=True)
    series["composite_c"] = series[["controller_c", "nand_c"]].max(axis=1)
    result.tables["thermal"] = series
    if hot["controller_c"].isna().all() if "controller_c" in hot else True:
        result.notes.append("The profile has no thermal model ([thermal]): no temperatures to show.")
        return result
    points = throttle_points(series["time_s"], series["throttle_step"])
    hot_steps = hot["throttle_step"].fillna(0)
    throttled = hot_steps > 0
    first = float(hot.loc[throttled, "second"].iloc[0]) if throttled.any() else None
    composite = hot[["controller_c", "nand_c"]].max(axis=1)
    result.add("peak_c", float(composite.max()), "C", "incompressible", f"ambient {ambient:g} C")
    result.add("first_throttle_s", first, "s", "incompressible", f"ambient {ambient:g} C")
    result.add("throttled_share", float(throttled.mean()), "x", "incompressible", f"ambient {ambient:g} C")
    result.add("mean_write_mbps", float(hot["write_mbps"].mean()), "MB/s", "incompressible", f"ambient {ambient:g} C")
    # Baseline: the same write on a fresh drive whose firmware does not throttle.
    base_drive = ctx.new_drive([f"thermal.ambient_c={ambient!r}", "thermal.throttle_c=[]", "thermal.throttle_nand_duty=[]"])
    base_drive.secure_erase()
    baseline = _write(ctx, base_drive, write_s, "baseline without throttling")
    base_drive.close()
    result.tables["thermal_baseline"] = baseline
    base_mbps = float(baseline["write_mbps"].mean())
    result.add("baseline_write_mbps", base_mbps, "MB/s", "incompressible", f"ambient {ambient:g} C")
    result.add("throttle_cost", 1.0 - float(hot["write_mbps"].mean()) / base_mbps if base_mbps else None, "x", "incompressible", f"ambient {ambient:g} C")
    result.add(
        "after_idle_c",
        float(cool[["controller_c", "nand_c"]].max(axis=1).iloc[-1]) if len(cool) else None,
        "C",
        "",
        f"after {ctx.duration_label(COOL_SECONDS)} idle",
    )
    result.add("after_idle_write_mbps", float(again["write_mbps"].median()), "MB/s", "incompressible", f"after {ctx.duration_label(COOL_SECONDS)} idle")
    if not throttled.any():
        result.notes.append(f"The drive did not throttle: its composite temperature peaked at {composite.max():.1f} C at {ambient:g} C ambient.")
    steps = _profile_steps(drive.info)
    chart = today_charts.thermal_chart(
        ctx.out_dir / "charts" / "thermal.png",
        ctx.chart_title(f"Thermal: 128 KiB sequential writes QD32 at {ambient:g} C ambient, then idle"),
        series["time_s"].tolist(),
        series["write_mbps"].tolist(),
        series["controller_c"].tolist(),
        series["nand_c"].tolist(),
        points,
        steps,
        baseline["second"].tolist(),
        baseline["write_mbps"].tolist(),
    )
    result.charts.append(
        (
            chart,
            "Write speed (left axis; grey: the same write without throttling) and temperatures (right axis) every second; "
            "throttling steps marked where they engage and release",
        )
    )
    one = (("incompressible", f"ambient {ambient:g} C", ""),)
    result.ranked.append(Ranked("mean_write_mbps", f"Thermal: mean write speed over the sustained write at {ambient:g} C", one))
    result.ranked.append(Ranked("peak_c", f"Thermal: peak composite temperature at {ambient:g} C", one, lower_is_better=True))
    return result


def _profile_steps(info: dict) -> list[float]:
    import tomllib

    return [float(t) for t in tomllib.loads(info["source"]).get("thermal", {}).get("throttle_c", [])]
