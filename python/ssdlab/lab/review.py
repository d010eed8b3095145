"""Run a review end to end: suites, raw data, charts, report, database rows."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ssdlab import __version__, paths
from ssdlab.errors import SsdlabError
from ssdlab.lab import calibration
from ssdlab.lab import ranked as ranked_charts
from ssdlab.lab.context import ReviewContext
from ssdlab.lab.db import ResultsDatabase
from ssdlab.lab.headlines import headline_charts, headline_table
from ssdlab.lab.report import review_page
from ssdlab.lab.results import SuiteResult, Table
from ssdlab.lab.suites import ARTICLE_SUITES, PTS_SUITES, SUITES


def parse_suites(text: str | None, default: list[str] = ARTICLE_SUITES, option: str = "--suites") -> list[str]:
    """Suite names from a comma-separated list (`default` when not given); ``pts`` stands for
    every PTS test."""
    if text is None:
        return list(default)
    names = [s.strip() for s in text.split(",") if s.strip()]
    expected = ", ".join([*SUITES, "pts"])
    if not names:
        raise SsdlabError(f"{option} {text!r} names no suite (expected some of: {expected})")
    expanded: list[str] = []
    for n in names:
        for name in PTS_SUITES if n == "pts" else [n]:
            if name not in SUITES:
                raise SsdlabError(f"{option}: unknown suite {name!r} (expected some of: {expected})")
            if name not in expanded:
                expanded.append(name)
    return expanded


def check_output(out_dir: Path) -> None:
    """Refuse an output folder that cannot be written, before any work."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        probe = out_dir / ".ssdlab-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise SsdlabError(f"{out_dir}: output folder is not writable: {error.strerror or error}") from None


@dataclass
class Review:
    """What a review wrote: the report, the results database, and the figures at a glance."""

    report: Path
    database: Path
    headlines: Table


def run_review(ctx: ReviewContext, suites: Sequence[str], db_path: Path, on_suite=None) -> Path:
    """Run `suites` against `ctx`'s drive; returns the report's path."""
    return review(ctx, suites, db_path, on_suite).report


def review(ctx: ReviewContext, suites: Sequence[str], db_path: Path, on_suite=None) -> Review:
    """Run `suites` against `ctx`'s drive, write the report and the database rows."""
    check_output(ctx.out_dir)
    db = ResultsDatabase(db_path)
    info = ctx.info()
    meta = {"version": __version__, "profile_hash": ctx.profile_hash(), "seed": ctx.seed, "scale": ctx.scale}
    meta["overrides"] = list(ctx.overrides)
    drive = meta["drive"] = ctx.drive_label()
    run_id = db.start_run(drive, info["model"], meta["profile_hash"], __version__, ctx.seed, ctx.scale, ctx.out_dir)
    data_dir = ctx.out_dir / "data"
    data_dir.mkdir(exist_ok=True)
    results: list[SuiteResult] = []
    for name in suites:
        started = time.perf_counter()
        ctx.suite = name
        result = SUITES[name].run(ctx)
        ctx.suite = None
        results.append(result)
        db.add_suite(run_id, drive, result)
        with paths.atomic_output(data_dir / f"{name}_metrics.csv", "data") as temp:
            result.frame().to_csv(temp, index=False)
        for table_name, frame in result.tables.items():
            with paths.atomic_output(data_dir / f"{table_name}.csv", "data") as temp:
                frame.to_csv(temp, index=False)
        if on_suite is not None:
            on_suite(name, time.perf_counter() - started)
    cal = None
    if ctx.comparable:
        frame = db.latest([drive])
        cal = calibration.table(frame)
        cal = cal[cal["drive"] == drive]
    others = _against_other_drives(db, ctx, drive)
    same_scale = db.latest(include_scaled=True)
    same_scale = same_scale[same_scale["scale"] == ctx.scale]
    db.close()
    ranked = {r.name: ranked_charts.draw(ctx, r, same_scale, drive) for r in results}
    glance = headline_table(results)
    report = review_page(ctx.out_dir, info, meta, results, cal, others, ranked, glance)
    return Review(report, db_path, glance)


def _against_other_drives(db: ResultsDatabase, ctx: ReviewContext, drive: str) -> list[tuple[str, str]]:
    """Headline bar charts across the drives in the database reviewed at the same scale (full
    scale, or this shortened scale), this drive highlighted; none when it is the only one."""
    frame = db.latest(include_scaled=not ctx.comparable)
    frame = frame[frame["scale"] == ctx.scale]
    if frame["drive"].nunique() < 2 or drive not in set(frame["drive"]):
        return []
    return headline_charts(frame, ctx.out_dir / "charts", "against", drive)
