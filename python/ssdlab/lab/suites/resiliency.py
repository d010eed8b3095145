"""Resiliency: performance clean, after a random-write torture, and after TRIM of the whole
user space (what a format does)."""

from __future__ import annotations

import pandas as pd

from ssdlab.lab import charts, tables
from ssdlab.lab.context import COMPRESSIBLE, INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.results import Ranked, SuiteResult
from ssdlab.lab.suites import as_ssd, atto, hdtach
from ssdlab.preconditions import TRIM_ALL, trim_all_options  # noqa: F401  (TRIM_ALL: re-exported for tests)

NAME = "resiliency"
ERA = "2012"  # the review era (and preset) this test belongs to
TITLE = "Resiliency: clean, after torture, after TRIM"
METHOD = (
    "Clean: measured on a secure-erased drive. Torture: secure erase, sequential fill of the whole user space, "
    "then 4 KiB random writes over 100% of it at QD32 ({sixty} of incompressible data for AS-SSD; {twenty} of "
    "compressible data for HD Tach and ATTO), then measure. TRIM: TRIM the whole user space, measure again. "
    "TRIM validation (the 2013 method): secure erase, sequential fill, {thirty} of incompressible 4 KiB random writes "
    "at QD32 over the whole span, one HD Tach write pass (how fast it starts, how high GC lets it climb), TRIM of "
    "the whole user space, one more HD Tach write pass."
)


def _torture(ctx: ReviewContext, drive, pattern: str, minutes: float, label: str) -> None:
    drive.secure_erase()
    ctx.precondition(drive, ["rw=write", "bs=128k", "iodepth=32", f"data_pattern={pattern}"], f"fill ({label})")
    ctx.run(
        drive,
        ["rw=randwrite", "bs=4k", "iodepth=32", f"runtime={ctx.seconds(minutes * 60)}", "time_based", f"data_pattern={pattern}"],
        f"torture {ctx.duration_label(minutes * 60)} ({label})",
    )


METRICS = {
    "as_ssd_seq_read": "AS-SSD sequential read",
    "as_ssd_seq_write": "AS-SSD sequential write",
    "hdtach_avg_read": "HD Tach average read",
    "hdtach_avg_write": "HD Tach average write",
    "trim_validation_write_start": "TRIM validation: HD Tach write start",
    "trim_validation_write_peak": "TRIM validation: HD Tach write peak",
    "trim_validation_write_average": "TRIM validation: HD Tach write average",
}


#: The suite's independent parts (each on its own drive), with the CPU seconds each took in a
#: full-scale review of force-gs-240: a parallel review runs them as separate jobs, the longest
#: first (`ssdlab.lab.parallel`); `run` runs them in order.
PARTS = {"as-ssd": 47.0, "hdtach-atto": 139.0, "trim-validation": 72.0}


def _durations(ctx: ReviewContext) -> dict[str, str]:
    return {"sixty": ctx.duration_label(3600), "twenty": ctx.duration_label(1200), "thirty": ctx.duration_label(1800)}


def run(ctx: ReviewContext) -> SuiteResult:
    return assemble(ctx, {part: run_part(ctx, part) for part in PARTS})


def run_part(ctx: ReviewContext, part: str) -> dict:
    """One part of the suite on its own drive: its metrics (in the order a whole run records
    them), table rows and frames."""
    durations = _durations(ctx)
    sink = SuiteResult(NAME, TITLE, "", METRICS)
    if part == "as-ssd":
        rows = _as_ssd(ctx, sink, durations)
        return {"metrics": sink.metrics, "rows": rows}
    if part == "hdtach-atto":
        rows, hd_frames, atto_frames = _hdtach_atto(ctx, sink)
        return {"metrics": sink.metrics, "rows": rows, "hd_frames": hd_frames, "atto_frames": atto_frames}
    if part == "trim-validation":
        rows = _trim_validation(ctx, sink)
        return {"metrics": sink.metrics, "rows": rows, "tables": sink.tables, "charts": sink.charts, "views": sink.views}
    raise KeyError(f"suite {NAME} has no part {part!r}")


def _as_ssd(ctx: ReviewContext, result: SuiteResult, durations: dict[str, str]) -> list[dict]:
    """AS-SSD with incompressible data, 60 minutes of torture."""
    rows = []
    drive = ctx.new_drive()
    drive.secure_erase()
    for condition in ("clean", "after torture", "after TRIM"):
        if condition == "after torture":
            _torture(ctx, drive, INCOMPRESSIBLE, 60, "incompressible")
        elif condition == "after TRIM":
            ctx.precondition(drive, trim_all_options(drive.info["usable_bytes"]), "TRIM all")
        figures = as_ssd.measure(ctx, drive, condition)
        for direction in ("read", "write"):
            result.add(f"as_ssd_seq_{direction}", figures[direction], "MB/s", "incompressible", condition, run=figures["runs"][direction])
            data = f"incompressible ({durations['sixty']} torture)"
            rows.append({"test": f"AS-SSD {direction}", "data": data, "condition": condition, "MB/s": figures[direction]})
    return rows


def _hdtach_atto(ctx: ReviewContext, result: SuiteResult) -> tuple[list[dict], list[pd.DataFrame], list[pd.DataFrame]]:
    """HD Tach and ATTO with compressible data, 20 minutes of torture."""
    rows: list[dict] = []
    hd_frames, atto_frames = [], []
    drive = ctx.new_drive()
    drive.secure_erase()
    # What each HD Tach read pass reads (the article's sequence): clean = the secure-erased drive
    # (never-written sectors; the clean write pass then fills it), after torture = the data the
    # write pass and the torture left, after TRIM = trimmed sectors. Clean and after TRIM read
    # the same kind of sectors.
    for condition in ("clean", "after torture", "after TRIM"):
        if condition == "after torture":
            _torture(ctx, drive, COMPRESSIBLE, 20, "compressible")
        elif condition == "after TRIM":
            ctx.precondition(drive, trim_all_options(drive.info["usable_bytes"]), "TRIM all")
        frame, averages = hdtach.measure(ctx, drive, condition)
        hd_frames.append(frame)
        for direction in ("read", "write"):
            result.add(f"hdtach_avg_{direction}", averages[direction], "MB/s", "compressible", condition, run=averages["runs"][direction])
            data = f"compressible ({ctx.duration_label(1200)} torture)"
            rows.append({"test": f"HD Tach {direction}", "data": data, "condition": condition, "MB/s": averages[direction]})
        atto_frames.append(atto.measure(ctx, drive, condition))
    return rows, hd_frames, atto_frames


def assemble(ctx: ReviewContext, parts: dict[str, dict]) -> SuiteResult:
    """The suite's result from its parts' outputs (the same whichever process ran them)."""
    durations = _durations(ctx)
    result = SuiteResult(NAME, TITLE, METHOD.format(**durations), METRICS)
    rows = []
    for part in PARTS:
        result.metrics += parts[part]["metrics"]
        rows += parts[part]["rows"]
    hd_frames, atto_frames = parts["hdtach-atto"]["hd_frames"], parts["hdtach-atto"]["atto_frames"]
    trim = parts["trim-validation"]
    result.tables.update(trim["tables"])
    result.charts += trim["charts"]
    result.views += trim["views"]
    table = pd.DataFrame(rows).pivot_table(index=["test", "data"], columns="condition", values="MB/s", sort=False)
    table = table[["clean", "after torture", "after TRIM"]].reset_index()
    result.tables["resiliency"] = table
    result.tables["resiliency_hdtach"] = pd.concat(hd_frames, ignore_index=True)
    result.tables["resiliency_atto"] = pd.concat(atto_frames, ignore_index=True)
    result.views.insert(0, tables.from_frame("Resiliency: MB/s clean, after torture, after TRIM", table, dict.fromkeys(CONDITIONS, "MB/s"), "resiliency"))
    twenty = durations["twenty"]
    result.charts.append(
        (
            hdtach.chart(ctx, hd_frames, "resiliency_hdtach.png", f"HD Tach: clean, after a {twenty} compressible torture, after TRIM"),
            f"HD Tach after a {twenty} compressible torture and after TRIM; one colour per condition, read solid, write dashed",
        )
    )
    result.charts.append(
        (
            atto.chart(ctx, atto_frames, "resiliency_atto.png", f"ATTO: clean, after a {twenty} compressible torture, after TRIM"),
            "ATTO after the torture and after TRIM; one colour per condition, read solid, write dashed",
        )
    )
    # The TRIM-validation chart (drawn first) after the clean / torture / TRIM ones.
    result.charts.append(result.charts.pop(0))
    for key, test, pattern, minutes in (
        ("as_ssd_seq_read", "AS-SSD sequential read", "incompressible", durations["sixty"]),
        ("as_ssd_seq_write", "AS-SSD sequential write", "incompressible", durations["sixty"]),
        ("hdtach_avg_read", "HD Tach average read", "compressible", twenty),
        ("hdtach_avg_write", "HD Tach average write", "compressible", twenty),
    ):
        rows_ = tuple((pattern, c, c) for c in CONDITIONS)
        result.ranked.append(Ranked(key, f"{test}: clean, after a {minutes} {pattern} torture, after TRIM", rows_, rank=False))
    return result


CONDITIONS = ("clean", "after torture", "after TRIM")


def _trim_validation(ctx: ReviewContext, result: SuiteResult) -> list[dict]:
    """HD Tach write passes after a 30 min incompressible torture and after TRIM: where the pass
    starts (first percent of the surface), its peak as GC catches up, and its average."""
    drive = ctx.new_drive()
    _torture(ctx, drive, INCOMPRESSIBLE, 30, "TRIM validation")
    thirty = ctx.duration_label(1800)
    frames, rows, figures = [], [], []
    for condition in ("after torture", "after TRIM"):
        if condition == "after TRIM":
            ctx.precondition(drive, trim_all_options(drive.info["usable_bytes"]), "TRIM all (TRIM validation)")
        frame, average, summary = hdtach.measure_write(ctx, drive, condition)
        frames.append(frame)
        curve = frame["write_mbps"]
        for metric, value in (("start", float(curve.iloc[0])), ("peak", float(curve.max())), ("average", average)):
            result.add(f"trim_validation_write_{metric}", value, "MB/s", "incompressible", condition, run=summary)
            figures.append({"figure": f"HD Tach write {metric}", "condition": condition, "MB/s": value})
        rows.append({"test": "HD Tach write (TRIM validation)", "data": f"incompressible ({thirty} torture)", "condition": condition, "MB/s": average})
    result.tables["trim_validation_hdtach"] = pd.concat(frames, ignore_index=True)
    result.charts.append(
        (
            charts.line_chart(
                ctx.out_dir / "charts" / "trim_validation_hdtach.png",
                ctx.chart_title(f"TRIM validation: HD Tach write after a {thirty} incompressible torture, and after TRIM"),
                frames[0]["position_pct"].tolist(),
                charts.condition_series(frames, "write_mbps", "write"),
                "position on the drive (%)",
                "MB/s",
            ),
            "TRIM validation: one HD Tach write pass after the torture (GC catching up), one after TRIM",
        )
    )
    wide = pd.DataFrame(figures).pivot_table(index="figure", columns="condition", values="MB/s", sort=False)
    wide = wide[["after torture", "after TRIM"]].reset_index()
    caption = f"TRIM validation: HD Tach write pass after a {thirty} incompressible torture, and after TRIM (MB/s)"
    result.views.append(tables.from_frame(caption, wide, {"after torture": "MB/s", "after TRIM": "MB/s"}, "trim_validation_hdtach"))
    return rows
