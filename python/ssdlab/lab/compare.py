"""Comparison pages and the calibration page, from the results database."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from ssdlab import __version__, paths
from ssdlab.errors import SsdlabError
from ssdlab.lab import calibration
from ssdlab.lab.context import ReviewContext
from ssdlab.lab.db import ResultsDatabase
from ssdlab.lab.headlines import headline_charts, scale_label
from ssdlab.lab.parallel import run_reviews
from ssdlab.lab.report import check_report_folder, claim_report_folder, comparison_page, linked_outputs, remove_stale_outputs
from ssdlab.lab.review import run_review


def compare(db_path: Path, out_dir: Path, drives: list[str], highlight: str | None, include_scaled: bool) -> Path:
    """Bar charts of the headline figures across drives; returns the page's path."""
    check_report_folder(out_dir, "comparison", db_path)
    db = ResultsDatabase(db_path, create=False)
    try:
        frame = db.latest(drives or None, include_scaled)
    finally:
        db.close()
    if frame.empty:
        hint = "" if include_scaled else " (reviews at --scale below 1 are left out: add --include-scaled to compare them)"
        raise SsdlabError(f"{db_path}: no {'' if include_scaled else 'full-scale '}results for {', '.join(drives) or 'any drive'}{hint}")
    known = sorted(set(frame["drive"]))
    missing = [d for d in drives if d not in known]
    if missing:
        raise SsdlabError(f"{db_path}: no {'' if include_scaled else 'full-scale '}results for {missing[0]!r} (drives there: {', '.join(known)})")
    if highlight is not None and highlight not in known:
        raise SsdlabError(f"--highlight {highlight!r}: no such drive among the results (drives there: {', '.join(known)})")
    paths.output_folder(out_dir)  # (created once the results are known good: no empty folder after an error)
    with claim_report_folder(out_dir, "comparison"):
        return _comparison_into(out_dir, frame, highlight, include_scaled)


def _comparison_into(out_dir: Path, frame: pd.DataFrame, highlight: str | None, include_scaled: bool) -> Path:
    """`compare` once its folder is checked and claimed: the charts, the table and the page."""
    earlier = linked_outputs(out_dir)
    made = headline_charts(frame, out_dir / "charts", "compare", highlight)
    table = frame.pivot_table(index=["suite", "metric", "title", "pattern", "condition"], columns="drive", values="value", sort=False).reset_index()
    with paths.atomic_output(out_dir / "comparison.csv", "comparison") as temp:
        table.to_csv(temp, index=False)
    shown = table.drop(columns=["metric"]).rename(columns={"suite": "test", "title": "figure", "pattern": "data"})
    scales = frame.drop_duplicates("drive").set_index("drive")["scale"]
    if scales.nunique() > 1:  # each drive's column says its scale, as its bars do
        shown = shown.rename(columns={d: f"{d} ({scale_label(s)})" for d, s in scales.items()})
    units = frame.drop_duplicates(["suite", "metric"]).set_index(["suite", "metric"])["unit"]
    shown.insert(4, "unit", units.reindex(list(zip(table["suite"], table["metric"], strict=True))).to_numpy())
    page = comparison_page(out_dir, made, shown, highlight, include_scaled)
    remove_stale_outputs(out_dir, earlier)
    return page


def calibration_runs() -> list[tuple[str, tuple[str, ...], list[str]]]:
    """The suites behind the published figures, per drive (profile and overrides: a firmware
    variant is its own drive), in the order the figures are listed."""
    runs: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for p in calibration.PUBLISHED:
        suites = runs.setdefault((p.drive, p.overrides), [])
        if p.suite not in suites:
            suites.append(p.suite)
    return [(profile, overrides, suites) for (profile, overrides), suites in runs.items()]


def calibrate(
    db_path: Path,
    out_path: Path,
    scale: float,
    progress,
    echo: Callable[[str], None] | None,
    jobs: int = 1,
    precondition_timing: str = "fast",
    run_today: bool = True,
) -> Path:
    """Run the calibration suites and write a markdown page of published beside simulated. The
    suites of every calibration run share one pool of `jobs` processes (`ssdlab.lab.parallel`);
    each run's report and database rows are written in order once its suites are done. At full
    scale the whole-drive fills of today's drives run too, unless `run_today` is false: then the
    page keeps its today's-drives section as it was."""
    check_calibration_page(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    reviews = []
    for profile, overrides, suites in calibration_runs():
        if echo:
            echo(f"calibration run: {profile}{' ' + ' '.join(overrides) if overrides else ''} ({', '.join(suites)})")
        folder = "-".join([profile, *[o.split("=", 1)[1] for o in overrides]])
        ctx = ReviewContext(
            profile,
            overrides,
            scale=scale,
            out_dir=db_path.parent / f"review-{folder}",
            progress=progress,
            precondition_timing=precondition_timing,
            page_name="calibration review",
        )
        reviews.append((ctx, list(suites)))
    for ctx, suites in reviews:
        # Before any run: the suites write their charts into these folders as they go. A user's
        # own review beside the database is not replaced by a calibration's partial one.
        elsewhere = f"give --db in a folder of its own: calibrate writes a review-DRIVE folder per drive beside {db_path.name}"
        check_report_folder(ctx.out_dir, "review", db_path, ctx.page_subject(suites), elsewhere)
    with contextlib.ExitStack() as claims:
        for ctx, _ in reviews:
            paths.output_folder(ctx.out_dir)
            claims.enter_context(claim_report_folder(ctx.out_dir, "review"))
        for (ctx, suites), results in zip(reviews, run_reviews(reviews, jobs), strict=True):
            run_review(ctx, suites, db_path, precomputed=results)
    todays = {}
    if scale >= 1.0 and run_today:
        for profile in dict.fromkeys(p.drive for p in calibration.TODAYS_PUBLISHED):
            if echo:
                echo(f"calibration run: {profile} (whole-drive fill)")
            todays[profile] = calibration.whole_drive_fill(profile)
    return write_calibration_page(db_path, out_path, scale, todays)


#: The first line of every calibration page ssdlab writes.
PAGE_HEADING = "# Calibration: published figures beside simulated ones"


def check_calibration_page(out_path: Path) -> None:
    """Refuse, before any run, to overwrite a file that is not a calibration page ssdlab wrote
    (or a path that is a folder)."""
    if out_path.is_dir():
        raise SsdlabError(f"--out {out_path}: is a folder; give the page's file name")
    if out_path.exists():
        with out_path.open("rb") as f:
            first = f.read(len(PAGE_HEADING.encode()))
        if first != PAGE_HEADING.encode():
            raise SsdlabError(f"--out {out_path}: exists and is not a calibration page ssdlab wrote; not overwriting it (name another file)")


#: The heading of the today's-drives section (issue 20), kept as it is when no fills ran.
TODAY_HEADING = "## Today's drives: whole-drive fill (issue 20)"


def _kept_today_section(out_path: Path) -> list[str]:
    """The today's-drives section of the page already at `out_path` (up to the next section),
    or nothing."""
    if not out_path.is_file():
        return []
    lines = out_path.read_text().splitlines()
    if TODAY_HEADING not in lines:
        return []
    start = lines.index(TODAY_HEADING)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end] + ([""] if lines[end - 1] != "" else [])


def _md(frame: pd.DataFrame) -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        cells = []
        for value in row:
            if isinstance(value, float):
                cells.append("-" if pd.isna(value) else f"{value:,.2f}")
            else:
                cells.append("-" if value is None else str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary_lines(s: dict) -> list[str]:
    """The page's summary: the mechanism checks' count and errors, then the misses."""
    if s["checks"]:
        head = (
            f"**{s['checks']} mechanism checks"
            + (f" ({s['today_checks']} of them from today's whole-drive fills)" if s.get("today_checks") else "")
            + f": median error {s['median_pct']:.1f}%, worst {s['worst_pct']:+.1f}% ({s['worst']}).** "
            f"{s['bound']} rows are bound by a parameter (not checks), {s['set_from']} set a value."
        )
    else:
        head = f"**No mechanism checks.** {s['bound']} rows are bound by a parameter, {s['set_from']} set a value."
    lines = [head, ""]
    if s["misses"]:
        lines.append(f"Figures the model misses (more than {calibration.MISS_PCT:g}% off; the reasons are in docs/validation.md):")
        lines.append("")
        lines += [f"- {drive}: {figure}: {pct:+.1f}% ({cls})" for drive, figure, cls, pct in s["misses"]]
        lines.append("")
    return lines


def write_calibration_page(db_path: Path, out_path: Path, scale: float = 1.0, todays: dict | None = None) -> Path:
    """Write the calibration page from the results already in `db_path` (and the whole-drive
    fills of today's drives in `todays`, profile -> figures, when given; otherwise the page's
    today's-drives section stays as it was)."""
    db = ResultsDatabase(db_path, create=False)
    frame = db.latest(include_scaled=scale < 1.0)
    db.close()
    figures = calibration.classified(frame)
    ratio_rows = calibration.ratios(frame)
    today_rows = calibration.todays_table(todays) if todays else None
    today = (
        [
            TODAY_HEADING,
            "",
            "128 KiB sequential writes at QD32 over the whole user space from a secure-erased drive, full size "
            "(docs/todays-drives.md). Roles: 'set from' = a profile parameter was set from this figure; 'set from "
            "spec' = the figure follows from a data-sheet value; 'informed by' = a choice of mechanism (not a number) "
            "was made with the figure in view; 'check' = nothing was set from it. Each 'check' is then classed by its "
            "fill's run with the classifier of the rows above ('bound (measured)'; 'bound by a parameter' or 'mechanism "
            "check'), and the page's summary counts its mechanism checks with the others. The post-cache rate is the rate "
            "the drive drops to at the cliff (the median over the first tenth of what is written after it).",
            "",
            _md(today_rows),
            "",
        ]
        if todays
        else _kept_today_section(out_path)
    )
    text = [
        PAGE_HEADING,
        "",
        f"Generated by `ssdlab calibrate` (ssdlab {__version__}, scale {scale:g}{', NOT comparable' if scale < 1 else ''}). "
        "Each simulated figure comes from the suite named in the table, run on the built-in profile; difference = "
        "(simulated - published) / published. A drive named with a `[controller.firmware=...]` override is the profile's "
        "firmware variant. Every row is classed by running it (issue 21): 'bound (measured)' is what the run that "
        "measured the figure saturated (the busiest of the host link, the command processor, the write cap, the "
        "engine's front and back end, the NAND dies and channels, the test bed's host time), and what added work "
        "(GC, map-page reads, whole pages read for scattered data). Classes: 'set from' = a value was set from this "
        "figure (named; no value is set from two figures); 'bound by a parameter' = one saturated resource that one "
        "value governs, and no mechanism added work: the figure echoes that value and is not a check; 'mechanism "
        "check' = the figure comes out of the model's mechanisms. The summary counts mechanism checks only.",
        "",
        *summary_lines(calibration.summary(figures, today_rows)),
        _md(figures),
        "",
        "## SF-1200 compressible / incompressible ratios (Corsair Force 100 GB, firmware 3.0.1)",
        "",
        _md(ratio_rows),
        "",
        *today,
        "## Not simulated",
        "",
        *[f"- {what}: {why}." for what, why in calibration.NOT_SIMULATED],
        "",
    ]
    paths.write_atomic(out_path, "\n".join(text), "--out")
    return out_path
