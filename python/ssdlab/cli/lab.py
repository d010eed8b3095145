"""`ssdlab review`, `pts`, `compare` and `calibrate`: the lab's suites, their results database and reports."""

from __future__ import annotations

import math
import os
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ssdlab import paths
from ssdlab.cli.app import (
    DB_OUTPUT,
    JOBS,
    OVERRIDES,
    PRECONDITION_TIMING,
    check_io,
    cli,
    fail,
    jobs_or_default,
    out_folder,
    profile_input,
    quiet_option,
    seed_option,
)
from ssdlab.drive import DEFAULT_PROFILE
from ssdlab.errors import InputOutputError, SsdlabError
from ssdlab.lab.db import check_results_file
from ssdlab.progress import ProgressBars
from ssdlab.report_text import review_summary

if TYPE_CHECKING:
    from ssdlab.lab.parallel import SuiteTime
    from ssdlab.lab.review import Preset, Review


#: Longest --label: it names the drive in chart titles, legends and table headers.
LABEL_MAX_CHARS = 80


@cli.command("review")
@click.argument("profile", default=DEFAULT_PROFILE)
@OVERRIDES
@click.option("--out", "out_dir", default=None, metavar="DIR", help="Output folder (default: review-PROFILE).")
@DB_OUTPUT
@click.option(
    "--scale",
    type=click.FloatRange(0.001, 1.0),
    default=1.0,
    show_default=True,
    help="Shorten the review (smaller drive and spans, shorter tests); below 1 it is marked not comparable.",
)
@click.option(
    "--suites",
    default=None,
    metavar="A,B",
    help="Run these suites (names, or 2012 / 2020s for an era's preset, pts for the SNIA tests); default: the preset of the drive's era.",
)
@seed_option(stored=True)
@click.option(
    "--label", default=None, metavar="NAME", help="The drive's name in the results database and charts (default: the profile's name, plus any --set overrides)."
)
@click.option(
    "--ambient-c",
    type=click.FloatRange(-40.0, 100.0),
    default=None,
    metavar="C",
    help="Ambient temperature of the thermal test, degrees C (default: 40, a warm case).",
)
@quiet_option()
@JOBS
@PRECONDITION_TIMING
def review_command(
    profile: str,
    overrides: tuple[str, ...],
    out_dir: str | None,
    db_path: str | None,
    scale: float,
    suites: str | None,
    seed: int,
    label: str | None,
    ambient_c: float | None,
    quiet: bool,
    jobs: int | None,
    precondition_timing: str,
) -> None:
    """Review a drive: run its era's tests and write a report (charts, tables, raw data). The
    preset follows the drive: the articles' tests (2012) for the SATA drives of the articles,
    today's tests (2020s) for NVMe drives and SATA drives with an SLC cache."""
    from ssdlab.lab.review import parse_suites

    try:
        _check_scale(scale)
        names = parse_suites(suites) if suites is not None else None
        started = time.monotonic()
        done = _run_lab(
            profile,
            overrides,
            out_folder(out_dir, f"review-{Path(profile).stem}"),
            db_path,
            scale,
            seed,
            label,
            quiet,
            names,
            lambda model, chosen, preset: f"reviewing {model} (scale {scale:g}){'' if preset == 'none' else ', preset ' + preset}: {', '.join(chosen)}",
            jobs=jobs_or_default(jobs),
            precondition_timing=precondition_timing,
            ambient_c=ambient_c,
        )
    except SsdlabError as error:
        fail(str(error))
    click.echo(review_summary(done.headlines, done.report, done.database, time.monotonic() - started) if not quiet else f"report: {done.report}")


def _check_scale(scale: float) -> None:
    if not math.isfinite(scale):
        raise SsdlabError(f"--scale: expected a number from 0.001 to 1 (got {scale})")


def _check_db(db_path: str, folder_made_by_run: bool = False) -> None:
    """Check `--db` before anything runs: an output appended to (an existing regular file or a
    new one) that is, or can become, a results database. With `folder_made_by_run` (calibrate,
    whose run creates the database's folder), a missing folder is accepted when its nearest
    existing folder is a writable folder; nothing is created here."""
    check_results_file(Path(db_path), "--db")  # standard output, a non-file, not a database
    folder = Path(db_path).absolute().parent
    if folder.is_dir() or not folder_made_by_run:
        paths.output_file("--db", db_path, stdout=False)
    else:
        existing = next(p for p in (folder, *folder.parents) if p.exists())
        if not existing.is_dir() or not os.access(existing, os.W_OK):
            raise InputOutputError(f"--db {db_path}: its folder {folder} cannot be created ({existing} is not a writable folder)")


def _run_lab(
    profile: str,
    overrides: tuple[str, ...],
    out: Path,
    db_path: str | None,
    scale: float,
    seed: int,
    label: str | None,
    quiet: bool,
    names: list[str] | None,
    heading: Callable[[str, list[str], str], str],
    pts_pattern: str = "random",
    jobs: int = 1,
    precondition_timing: str = "fast",
    ambient_c: float | None = None,
    preset_of: Callable[[dict], Preset] | None = None,
) -> Review:
    """What `review` and `pts` share: check the database path and label, build the drive once
    (the profile is validated before any output), choose the drive's preset when no suites are
    named (or `preset_of` the drive's facts: the PTS tests), run the suites with progress (bars
    on a terminal, lines in a log), return what was written. `heading` gives the first line from
    the drive's model name, the suites and the preset's label."""
    from ssdlab.lab.context import ReviewContext
    from ssdlab.lab.review import chosen_suites, preset_for, review

    if db_path is not None:
        _check_db(db_path)
    profile_input(profile, "PROFILE")
    if label is not None and not label.strip():
        raise SsdlabError("--label: must not be empty")
    if label is not None and any(unicodedata.category(c) == "Cc" for c in label):
        raise SsdlabError("--label: must not hold control characters (a newline, a tab, ...)")
    if label is not None and len(label) > LABEL_MAX_CHARS:
        raise SsdlabError(f"--label: at most {LABEL_MAX_CHARS} characters (got {len(label)}): it names the drive in charts and tables")
    if ambient_c is not None and not math.isfinite(ambient_c):
        raise SsdlabError(f"--ambient-c: expected a temperature from -40 to 100 C (got {ambient_c})")
    bars = ProgressBars(enabled=not quiet)
    ctx = ReviewContext(
        profile,
        overrides,
        scale=scale,
        seed=seed,
        out_dir=out,
        progress=bars,
        label=label,
        pts_pattern=pts_pattern,
        precondition_timing=precondition_timing,
        ambient_c=ambient_c,
    )
    model = ctx.info()["model"]
    if preset_of is not None:
        preset = preset_of(ctx.info())
    else:
        preset = preset_for(ctx.info()) if names is None else chosen_suites(names, ctx.info())
    names = list(preset.suites)
    if not quiet:
        click.echo(heading(model, names, preset.label))

    def done(name: str, took: SuiteTime) -> None:
        # Wall time from the suite's own start (in its worker, in a parallel review) to its
        # end, not from the review's start: the suites of a parallel review overlap.
        bars.close()
        if not quiet:
            click.echo(f"  {name}: done in {took.text()}")

    return review(ctx, names, Path(db_path) if db_path else out / "results.sqlite", on_suite=done, preset=preset, jobs=jobs)


@cli.command("pts")
@click.argument("profile", default=DEFAULT_PROFILE)
@OVERRIDES
@click.option("--out", "out_dir", default=None, metavar="DIR", help="Output folder (default: pts-PROFILE).")
@DB_OUTPUT
@click.option(
    "--scale",
    type=click.FloatRange(0.001, 1.0),
    default=1.0,
    show_default=True,
    help="Quick version: smaller drive, shorter round steps and fewer HIR bursts; below 1 it is marked not comparable.",
)
@click.option("--tests", default=None, metavar="A,B", help="Run only these tests: pts-iops, pts-throughput, pts-latency, pts-wsat, pts-hir.")
@click.option(
    "--pattern",
    type=click.Choice(["random", "text", "repeating"]),
    default="random",
    show_default=True,
    help="Data written: random (incompressible, as the specification requires) or a compressible pattern.",
)
@seed_option(stored=True)
@click.option("--label", default=None, metavar="NAME", help="The drive's name in the results database (default: the profile's name, plus any --set overrides).")
@quiet_option()
@JOBS
@PRECONDITION_TIMING
def pts_command(
    profile: str,
    overrides: tuple[str, ...],
    out_dir: str | None,
    db_path: str | None,
    scale: float,
    tests: str | None,
    pattern: str,
    seed: int,
    label: str | None,
    quiet: bool,
    jobs: int | None,
    precondition_timing: str,
) -> None:
    """Run the SNIA Solid State Storage Performance Test Specification (IOPS, throughput,
    latency, write saturation, host idle recovery) against a drive and write its report."""
    from ssdlab.lab.review import parse_suites, pts_preset
    from ssdlab.lab.suites import PTS_SUITES

    try:
        _check_scale(scale)
        names = parse_suites(tests, default=PTS_SUITES, option="--tests", choices=PTS_SUITES)
        started = time.monotonic()
        done = _run_lab(
            profile,
            overrides,
            out_folder(out_dir, f"pts-{Path(profile).stem}"),
            db_path,
            scale,
            seed,
            label,
            quiet,
            names,
            lambda model, _names, _preset: f"SNIA PTS on {model} (scale {scale:g}, data {pattern}): {', '.join(names)}",
            pts_pattern=pattern,
            jobs=jobs_or_default(jobs),
            precondition_timing=precondition_timing,
            preset_of=lambda info: pts_preset(names, info, named=tests is not None),
        )
    except SsdlabError as error:
        fail(str(error))
    click.echo(review_summary(done.headlines, done.report, done.database, time.monotonic() - started) if not quiet else f"report: {done.report}")


@cli.command("compare")
@click.argument("drives", nargs=-1)
@click.option("--db", "db_path", required=True, metavar="FILE", help="Results database to read.")
@click.option("--out", "out_dir", default="compare", show_default=True, metavar="DIR", help="Output folder of the comparison's charts and tables.")
@click.option("--highlight", default=None, metavar="DRIVE", help="Drive to highlight in the charts.")
@click.option("--include-scaled", is_flag=True, help="Also use shortened (scaled) reviews.")
def compare_command(drives: tuple[str, ...], db_path: str, out_dir: str, highlight: str | None, include_scaled: bool) -> None:
    """Draw comparison charts across drives from stored results."""
    from ssdlab.lab.compare import compare

    try:
        paths.input_file("--db", db_path)
        page = compare(Path(db_path), out_folder(out_dir, "compare"), list(drives), highlight, include_scaled)
    except SsdlabError as error:
        fail(str(error))
    click.echo(f"comparison: {page}")


@cli.command("calibrate")
@click.option(
    "--db",
    "db_path",
    default="calibration/results.sqlite",
    show_default=True,
    metavar="FILE",
    help="Results database the calibration runs are added to (the page is written from it).",
)
@click.option("--out", "out_path", default="calibration.md", show_default=True, metavar="FILE", help="The calibration page (markdown) to write.")
@click.option(
    "--scale",
    type=click.FloatRange(0.001, 1.0),
    default=1.0,
    show_default=True,
    help="Shorten the suites (below 1 the page says it is not comparable, and today's whole-drive fills are left out).",
)
@click.option("--keep-today", is_flag=True, help="Keep the page's today's-drives section as it is (no whole-drive fills).")
@quiet_option()
@JOBS
@PRECONDITION_TIMING
def calibrate_command(db_path: str, out_path: str, scale: float, keep_today: bool, quiet: bool, jobs: int | None, precondition_timing: str) -> None:
    """Run the suites behind the published figures and write the calibration page."""
    from ssdlab.lab.compare import calibrate

    try:
        _check_scale(scale)
        check_io({}, {"--out": out_path}, files_only=("--out",), not_replaced=("--out",))  # a calibration page: checked by calibrate
        # The database's folder is created by the run when missing (the default is calibration/).
        _check_db(db_path, folder_made_by_run=True)
        paths.check_distinct({}, {"--db": db_path, "--out": out_path})
        bars = ProgressBars(enabled=not quiet)
        page = calibrate(
            Path(db_path),
            Path(out_path),
            scale,
            bars,
            echo=None if quiet else click.echo,
            jobs=jobs_or_default(jobs),
            precondition_timing=precondition_timing,
            run_today=not keep_today,
        )
    except SsdlabError as error:
        fail(str(error))
    click.echo(f"calibration page: {page}")
