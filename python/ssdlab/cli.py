"""The ``ssdlab`` command line.

Flags are validated once here (click) or in the core (profiles, fio options), turned into typed
settings, and every user mistake ends as a one-line message on stderr with exit status 2.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import signal
import sys
import time
import tomllib
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ssdlab import __version__, paths
from ssdlab import preconditions as pre
from ssdlab.drive import DEFAULT_PROFILE, Drive, jobs_from_file, profile_names, profile_source
from ssdlab.errors import InputOutputError, SsdlabError
from ssdlab.lab.db import check_results_file
from ssdlab.progress import ProgressBars
from ssdlab.report_text import drive_header, review_summary, run_summary

if TYPE_CHECKING:
    from ssdlab.lab.review import Review


def _printable(line: str) -> str:
    """One line of a message, printable: control characters and bytes that are not UTF-8 are
    shown escaped (a binary file's content is never echoed raw)."""
    line = line.encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in line)


def _error_lines(message: str) -> list[str]:
    """A message as error lines: one per problem it reports (a job file's problems are each a
    line naming file:line), each printable."""
    return [_printable(part.strip()) for part in str(message).splitlines() if part.strip()] or ["(no message)"]


def _fail(message: str) -> None:
    try:
        for line in _error_lines(message):
            click.echo(f"ssdlab: error: {line}", err=True)
    except (OSError, ValueError):
        pass  # standard error is closed too: the exit status says it
    sys.exit(2)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ssdlab")
def cli() -> None:
    """ssdlab: simulate SSDs and review them."""


# Issue 23 (speed): how preconditioning runs, and how many suites run at once.
_PRECONDITION_TIMING = click.option(
    "--precondition-timing",
    "precondition_timing",
    type=click.Choice(["fast", "full"]),
    default="fast",
    show_default=True,
    help="fast: preconditioning fills and TRIMs run without timing (the same FTL state, docs/fast-forward.md); full: timed.",
)
_JOBS = click.option(
    "--jobs", type=click.IntRange(1, 256), default=None, help="Suites run at once, each on its own drive (default: one per core; results as a serial run)."
)


def _jobs(jobs: int | None) -> int:
    from ssdlab.lab.parallel import default_jobs

    return default_jobs() if jobs is None else jobs


@cli.command("profiles")
def profiles_command() -> None:
    """List the built-in drive profiles."""
    for name in profile_names():
        model = tomllib.loads(profile_source(name))["drive"]["model"]
        marker = " (default)" if name == DEFAULT_PROFILE else ""
        click.echo(f"{name + marker:<28} {model}")


@cli.group("profile")
def profile_group() -> None:
    """Inspect profiles."""


@profile_group.command("show")
@click.argument("name")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Override a profile field.")
def profile_show(name: str, overrides: tuple[str, ...]) -> None:
    """Print a profile's TOML (built-in NAME or a path)."""
    try:
        _profile_input(name, "PROFILE")
        click.echo(profile_source(name, overrides), nl=False)
    except SsdlabError as error:
        _fail(str(error))


def _refuse_empty_profile(profile: str) -> None:
    if profile == "":
        raise InputOutputError("profile: empty name; give a built-in profile's name or a TOML file")


def _profile_input(profile: str, option: str = "--profile") -> None:
    """A profile given as a path is an input file like any other (built-in names are not).
    `option` names it in messages: ``--profile`` for `run`, ``PROFILE`` where it is the
    command's argument (`review`, `pts`, `profile show`)."""
    _refuse_empty_profile(profile)
    if profile not in profile_names():
        if os.path.sep in profile or profile.endswith(".toml") or os.path.lexists(profile):
            paths.input_file(option, profile, paths.MAX_TEXT_FILE_BYTES)


def _io(inputs: dict[str, str | None], outputs: dict[str, str | None], text_inputs: tuple[str, ...] = ()) -> None:
    """Check every input and output path of a command before anything runs (issue 19): inputs
    are readable regular files (text formats within their size bound), outputs are writable
    files, and no output is the same file as an input or another output."""
    for name, path in inputs.items():
        if path is not None:
            paths.input_file(name, path, paths.MAX_TEXT_FILE_BYTES if name in text_inputs else None)
    for name, path in outputs.items():
        if path is not None:
            paths.output_file(name, path)
    paths.check_distinct(inputs, outputs)


def _write_output(path: str, text: str, option: str) -> None:
    """Write one output: ``-`` is standard output, anything else goes through a temporary file
    renamed into place."""
    if path == "-":
        click.echo(text, nl=False)
    else:
        paths.write_atomic(path, text, option)


def _fio_options(args: list[str]) -> list[str]:
    """Turn ``--rw=randwrite --bs 4k --time_based`` into ``["rw=randwrite", "bs=4k", "time_based"]``."""
    from ssdlab import fio

    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--") or len(arg) <= 2:
            raise SsdlabError(f"unexpected argument {arg!r} (fio options are written --name=value)")
        body = arg[2:]
        if "=" in body:
            out.append(body)
        elif i + 1 < len(args) and not args[i + 1].startswith("--") and fio.takes_next_word(arg):
            out.append(f"{body}={args[i + 1]}")
            i += 1
        else:
            out.append(body)
        i += 1
    return out


def _run_help() -> str:
    """The run command's help: fio's rw values and how ssdlab treats fio options."""
    from ssdlab import _native

    _, no_effect, _, rw_values = _native.fio_catalogue()
    return (
        "Run a workload against a drive in simulated time: fio options after `run`, or an fio job file.\n\n"
        "\b\n"
        "  ssdlab run --rw=randwrite --bs=4k --iodepth=32 --runtime=60 --time_based\n"
        "  ssdlab run job.fio --runtime=60 --size=1g    (fio's form; command-line options override the file's)\n\n"
        f"rw values: {rw_values}. Sizes and times are read as fio reads them (4k = 4kb = 4096; "
        "kb_base=1000 makes k 1000; KiB is always 1024; bare runtime in s, bare thinktime in us): docs/fio.md. "
        f"Accepted without effect in a simulation: {', '.join(sorted({k for k, _ in no_effect}))}. "
        "Without options or a job file, `ssdlab run` runs 4 KiB random writes at QD32 for a simulated minute on the fresh drive "
        "(reads of a drive nobody wrote never touch NAND)."
    )


class _RunCommand(click.Command):
    """``run`` with its help text built from the core's option catalogue."""

    def get_help(self, ctx: click.Context) -> str:
        self.help = _run_help()
        return super().get_help(ctx)

    def get_short_help_str(self, limit: int = 45) -> str:
        """The line `ssdlab --help` lists (the full help is built only when asked for)."""
        return "Run a workload (fio options or job file)."


@cli.command(
    "run",
    cls=_RunCommand,
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.option("--profile", "profile", default=DEFAULT_PROFILE, show_default=True, help="Built-in profile name or TOML path.")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Override a profile field (repeatable).")
@click.option(
    "--job-file",
    type=click.Path(dir_okay=False),
    help=(
        "fio job file (or give it as `ssdlab run job.fio`): its groups run one after the other, "
        "the jobs of a group side by side; fio options given too override the file's."
    ),
)
@click.option(
    "--precondition",
    "steps",
    multiple=True,
    metavar="STEP",
    help=f"Before the job: layout (write the job's span once, as fio lays out its file), {', '.join(pre.NAMES)} (repeatable, in order).",
)
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=1, show_default=True, help="Seed of every random choice.")
@click.option(
    "--content", type=click.Choice(["modeled", "real"]), default="modeled", show_default=True, help="Data-reduction content: modeled (fast) or real bytes."
)
@click.option("--data-file", "data_file", default=None, metavar="PATH", help="Write this file's 4 KiB blocks in order, all of it (again only past its end).")
@click.option("--json", "json_path", metavar="FILE|-", help="Write the summary as JSON (- for stdout).")
@click.option(
    "--output-format",
    "output_format",
    type=click.Choice(["normal", "json"]),
    default="normal",
    show_default=True,
    help="json: print fio's JSON output shape (one entry per group of jobs) on stdout instead of the text summary.",
)
@click.option("--series", "series_path", metavar="FILE.csv|-", help="Write the per-second series of the last job as CSV (- for stdout).")
@click.option("--quiet", is_flag=True, help="No progress bars and no text summary.")
@_PRECONDITION_TIMING
@click.pass_context
def run_command(
    ctx: click.Context,
    profile: str,
    overrides: tuple[str, ...],
    job_file: str | None,
    steps: tuple[str, ...],
    seed: int,
    content: str,
    data_file: str | None,
    json_path: str | None,
    output_format: str,
    series_path: str | None,
    quiet: bool,
    precondition_timing: str,
) -> None:
    from ssdlab import _native, fio

    redirect = contextlib.ExitStack()
    try:
        if job_file is not None:
            paths.text_path("--job-file", job_file)  # an empty path is refused, not run as no job file
        positional_file, rest = fio.split_job_file(list(ctx.args))
        if positional_file and job_file:
            raise SsdlabError(f"give the job file once (--job-file {job_file} and {positional_file})")
        job_file = job_file or positional_file
        options, fio_output, display = fio.command_line_only(_fio_options(rest))
        own = {opt for param in ctx.command.params for opt in getattr(param, "opts", [])}
        for option in options:
            spelled = "--" + option.split("=", 1)[0].replace("_", "-")
            if spelled in own:
                raise SsdlabError(f"--{option.split('=', 1)[0]}: did you mean {spelled} (an option of ssdlab run, spelled with hyphens)?")
        for step in steps:
            if step != "layout":
                pre.parse(step)
        if output_format == "json" and (json_path == "-" or series_path == "-"):
            raise SsdlabError("--output-format=json prints on standard output; write --json/--series to a file")
        _profile_input(profile)
        _io(
            {"--job-file": job_file, "--data-file": data_file, "--profile": profile if os.path.isfile(profile) else None},
            {"--json": json_path, "--series": series_path, "--output": fio_output},
            text_inputs=("--job-file", "--profile"),
        )
        bare = not job_file and not options
        drive = Drive(profile, overrides, seed=seed, content=content, precondition_timing=precondition_timing)
        if job_file:
            jobs = jobs_from_file(job_file, options)
        else:
            # fio's command line: every --name starts a job (options before it are global).
            jobs = _native.jobs_from_options(fio.BARE_RUN_OPTIONS if bare else options)
        for job in jobs:
            drive.check_job(job)
        # fio's log files are outputs too: checked before the run, like --json and --series.
        logs = [(option, str(log)) for number, job in enumerate(jobs, 1) for option, log in fio.log_paths(job, number=number)]
        for option, log in logs:
            paths.output_file(option, log)
        if logs:
            paths.check_distinct(
                {"--job-file": job_file, "--data-file": data_file, "--profile": profile if os.path.isfile(profile) else None},
                [("--json", json_path), ("--series", series_path), ("--output", fio_output), *logs],
            )
        # fio's --output=FILE: what the run prints on standard output goes to FILE instead.
        captured = io.StringIO()
        if fio_output not in (None, "-"):
            redirect.enter_context(contextlib.redirect_stdout(captured))
        bars = ProgressBars(enabled=not quiet and sys.stderr.isatty())
        human = not quiet and json_path != "-" and series_path != "-" and output_format == "normal"
        if human:
            click.echo(drive_header(drive.info))
            if bare:
                click.echo(f"no job given: running {' '.join('--' + o for o in fio.BARE_RUN_OPTIONS)} (see ssdlab run --help)")
            no_effect = sorted({key for job in jobs for key in job.no_effect} | set(display))
            if no_effect:
                click.echo(f"accepted without effect in a simulation: {', '.join(no_effect)}")
        records = []
        for step in steps:
            if step == "layout":
                record = fio.lay_out(drive, jobs, progress=bars)
            else:
                record = drive.precondition(step, progress=bars)
            records.append(record)
            if human:
                click.echo(f"precondition {step}: {record['simulated_seconds']:,.1f} s simulated")
        results = []
        logs_written = []
        for number, job in enumerate(jobs, 1):
            if job.pre_read:
                fio.pre_read(drive, job, progress=bars)
            result = drive.run(job=job, progress=bars, data_file=data_file)
            results.append(result)
            logs_written += fio.write_logs(job, result, number=number)
            if human:
                click.echo(run_summary(result.summary))
        bars.close()
    except SsdlabError as error:
        _fail(str(error))
    except OSError as error:
        _fail(str(error))
    warning = fio.unwritten_read_warning([r.summary for r in results])
    if warning:
        click.echo(f"ssdlab: warning: {warning}", err=True)
    if human and logs_written:
        click.echo(f"logs: {', '.join(str(p) for p in logs_written)}")
    last = results[-1]
    document = dict(last.summary)
    document["master_seed"] = seed
    document["profile"] = {k: v for k, v in drive.info.items() if k != "source"}
    document["preconditions"] = records
    document["jobs"] = [r.summary for r in results]
    if output_format == "json":
        click.echo(fio.dump_json(fio.fio_json(results, jobs, seed)))
    if json_path:
        _write_output(json_path, json.dumps(document, indent=2) + "\n", "--json")
    if series_path:
        _write_output(series_path, last.series.to_csv(index=False), "--series")
    redirect.close()
    if fio_output not in (None, "-"):
        _write_output(fio_output, captured.getvalue(), "--output")


#: Longest --label: it names the drive in chart titles, legends and table headers.
LABEL_MAX_CHARS = 80
#: Reviews and PTS runs store their seed in the results database (an SQLite integer: signed 64 bits).
_DB_SEED_HELP = "Seed of every random choice (0 to 2^63-1: the results database stores it)."


@cli.command("review")
@click.argument("profile", default=DEFAULT_PROFILE)
@click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Override a profile field (repeatable).")
@click.option("--out", "out_dir", default=None, metavar="DIR", help="Output folder (default: review-PROFILE).")
@click.option("--db", "db_path", default=None, metavar="FILE", help="Results database (default: OUT/results.sqlite).")
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
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=1, show_default=True, help=_DB_SEED_HELP)
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
@click.option("--quiet", is_flag=True, help="No progress output.")
@_JOBS
@_PRECONDITION_TIMING
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
            _out_folder(out_dir, f"review-{Path(profile).stem}"),
            db_path,
            scale,
            seed,
            label,
            quiet,
            names,
            lambda model, chosen, preset: f"reviewing {model} (scale {scale:g}){'' if preset == 'none' else ', preset ' + preset}: {', '.join(chosen)}",
            jobs=_jobs(jobs),
            precondition_timing=precondition_timing,
            ambient_c=ambient_c,
        )
    except SsdlabError as error:
        _fail(str(error))
    click.echo(review_summary(done.headlines, done.report, done.database, time.monotonic() - started) if not quiet else f"report: {done.report}")


def _out_folder(out_dir: str | None, default: str) -> Path:
    """The output folder of --out (`default` when not given); an empty path is refused, not
    taken as the default or the current folder."""
    if out_dir == "":
        raise InputOutputError("--out: empty path; give a folder name")
    return Path(out_dir or default)


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
        paths.output_file("--db", db_path)
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
) -> Review:
    """What `review` and `pts` share: check the database path and label, build the drive once
    (the profile is validated before any output), choose the drive's preset when no suites are
    named, run the suites with progress (bars on a terminal, lines in a log), return what was
    written. `heading` gives the first line from the drive's model name, the suites and the
    preset's label."""
    from ssdlab.lab.context import ReviewContext
    from ssdlab.lab.review import chosen_suites, preset_for, review

    if db_path is not None:
        _check_db(db_path)
    _profile_input(profile, "PROFILE")
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
    preset = preset_for(ctx.info()) if names is None else chosen_suites(names, ctx.info())
    names = list(preset.suites)
    if not quiet:
        click.echo(heading(model, names, preset.label))

    def done(name: str, wall: float) -> None:
        bars.close()
        if not quiet:
            click.echo(f"  {name}: done in {wall:,.1f} s")

    return review(ctx, names, Path(db_path) if db_path else out / "results.sqlite", on_suite=done, preset=preset, jobs=jobs)


@cli.command("pts")
@click.argument("profile", default=DEFAULT_PROFILE)
@click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Override a profile field (repeatable).")
@click.option("--out", "out_dir", default=None, metavar="DIR", help="Output folder (default: pts-PROFILE).")
@click.option("--db", "db_path", default=None, metavar="FILE", help="Results database (default: OUT/results.sqlite).")
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
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=1, show_default=True, help=_DB_SEED_HELP)
@click.option("--label", default=None, metavar="NAME", help="The drive's name in the results database (default: the profile's name, plus any --set overrides).")
@click.option("--quiet", is_flag=True, help="No progress output.")
@_JOBS
@_PRECONDITION_TIMING
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
    from ssdlab.lab.review import parse_suites
    from ssdlab.lab.suites import PTS_SUITES

    try:
        _check_scale(scale)
        names = parse_suites(tests, default=PTS_SUITES, option="--tests")
        others = [n for n in names if n not in PTS_SUITES]
        if others:
            raise SsdlabError(f"--tests: {others[0]!r} is not a PTS test (expected some of: {', '.join(PTS_SUITES)})")
        report = _run_lab(
            profile,
            overrides,
            _out_folder(out_dir, f"pts-{Path(profile).stem}"),
            db_path,
            scale,
            seed,
            label,
            quiet,
            names,
            lambda model, _names, _preset: f"SNIA PTS on {model} (scale {scale:g}, data {pattern}): {', '.join(names)}",
            pts_pattern=pattern,
            jobs=_jobs(jobs),
            precondition_timing=precondition_timing,
        ).report
    except SsdlabError as error:
        _fail(str(error))
    click.echo(f"report: {report}")


@cli.command("compare")
@click.argument("drives", nargs=-1)
@click.option("--db", "db_path", required=True, metavar="FILE", help="Results database to read.")
@click.option("--out", "out_dir", default="compare", show_default=True, metavar="DIR")
@click.option("--highlight", default=None, metavar="DRIVE", help="Drive to highlight in the charts.")
@click.option("--include-scaled", is_flag=True, help="Also use shortened (scaled) reviews.")
def compare_command(drives: tuple[str, ...], db_path: str, out_dir: str, highlight: str | None, include_scaled: bool) -> None:
    """Draw comparison charts across drives from stored results."""
    from ssdlab.lab.compare import compare

    try:
        paths.input_file("--db", db_path)
        page = compare(Path(db_path), _out_folder(out_dir, "compare"), list(drives), highlight, include_scaled)
    except SsdlabError as error:
        _fail(str(error))
    click.echo(f"comparison: {page}")


@cli.command("calibrate")
@click.option("--db", "db_path", default="calibration/results.sqlite", show_default=True, metavar="FILE")
@click.option("--out", "out_path", default="calibration.md", show_default=True, metavar="FILE", help="The calibration page (markdown) to write.")
@click.option("--scale", type=click.FloatRange(0.001, 1.0), default=1.0, show_default=True)
@click.option("--keep-today", is_flag=True, help="Keep the page's today's-drives section as it is (no whole-drive fills).")
@click.option("--quiet", is_flag=True)
@_JOBS
@_PRECONDITION_TIMING
def calibrate_command(db_path: str, out_path: str, scale: float, keep_today: bool, quiet: bool, jobs: int | None, precondition_timing: str) -> None:
    """Run the suites behind the published figures and write the calibration page."""
    from ssdlab.lab.compare import calibrate

    try:
        _check_scale(scale)
        _io({}, {"--out": out_path})
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
            jobs=_jobs(jobs),
            precondition_timing=precondition_timing,
            run_today=not keep_today,
        )
    except SsdlabError as error:
        _fail(str(error))
    click.echo(f"calibration page: {page}")


@cli.group("trace")
def trace_group() -> None:
    """Block traces: statistics, generated workloads, replay."""


@trace_group.command("stats")
@click.argument("path")
@click.option("--format", "fmt", default=None, metavar="NAME", help="Trace format (detected when not given).")
@click.option("--skip-bad", is_flag=True, help="Count and skip malformed lines instead of stopping.")
@click.option("--time-unit", type=click.Choice(["ns", "us", "ms", "s"]), default=None, help="Unit of the trace's timestamps (default: the format's own).")
@click.option("--volume", default=None, metavar="ID|all", help="One volume of a trace of several (as the trace names it), or all of them (listed).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def trace_stats_command(path: str, fmt: str | None, skip_bad: bool, time_unit: str | None, volume: str | None, as_json: bool) -> None:
    """Statistics of a trace file."""
    from ssdlab import traces

    try:
        paths.input_file("trace", path)
        s = traces.stats(path, fmt, skip_bad, time_unit, volume)
    except SsdlabError as error:
        _fail(str(error))
    if as_json:
        click.echo(json.dumps(s, indent=2))
        return
    total = s["requests"]
    click.echo(f"{path}: {s['format']} trace, {total:,} requests over {s['duration_seconds']:,.1f} s")
    click.echo("  " + ", ".join(f"{op} {n:,}" for op, n in s["ops"].items()))
    click.echo(f"  bytes read {s['bytes_read']:,}, written {s['bytes_written']:,}, trimmed {s['bytes_trimmed']:,}; span {s['span_bytes']:,} bytes")
    click.echo(f"  sequential {s['sequential_share'] * 100:.1f}%, mean queue depth {s['mean_queue_depth']:.3f}, at QD1 {s['qd1_share'] * 100:.1f}%")
    top = sorted(s["sizes"], key=lambda x: -x[1])[:8]
    sizes = [f"{size // 1024 if size % 1024 == 0 else size / 1024:g}K {n / total * 100:.1f}%" for size, n in top]
    click.echo("  sizes: " + ", ".join(sizes + _rest(total, top)))
    depths = s["queue_depths"][:8]
    click.echo("  queue depths: " + ", ".join([f"{d}: {n / total * 100:.1f}%" for d, n in depths] + _rest(total, depths, "deeper")))
    if s["skipped_lines"]:
        click.echo(f"  skipped {s['skipped_lines']:,} malformed line{'' if s['skipped_lines'] == 1 else 's'}")
    if s["queue_depth_saturated"]:
        click.echo(f"  {s['queue_depth_saturated']:,} requests arrived with the deepest tracked queue outstanding (implausible response times)")
    _print_trace_volumes_and_content(s)


def _rest(total: int, shown: list, name: str = "other") -> list[str]:
    """The share of `total` the listed (value, count) pairs leave out, as one more item (none
    when they cover everything), so a list cut to its first entries still adds up to 100%."""
    rest = total - sum(n for _, n in shown)
    return [f"{name} {rest / total * 100:.1f}%"] if total and rest > 0 else []


def _print_trace_volumes_and_content(s: dict) -> None:
    """`trace stats`' lines on volumes, passed-over requests and written content."""
    volumes = s["volumes"]
    if len(volumes) > 1 or s["other_volume_requests"]:
        shown = ", ".join(f"{vid}: {n:,}" for vid, n in volumes[:20])
        more = f" and {len(volumes) - 20:,} more" if len(volumes) > 20 else ""
        click.echo(f"  volumes (requests): {shown}{more}")
        if s["volumes_not_listed_requests"]:
            click.echo(f"  {s['volumes_not_listed_requests']:,} requests of volumes past the listed limit")
    if s["other_volume_requests"]:
        click.echo(f"  passed over {s['other_volume_requests']:,} requests of other volumes")
    if s["requests_without_direction"]:
        click.echo(f"  passed over {s['requests_without_direction']:,} requests the trace gives no direction (read or write) for")
    content = s.get("content")
    if content:
        bound = " (at least: too many distinct contents to remember them all)" if content["distinct_capped"] else ""
        click.echo(
            f"  written blocks with content hashes {content['written_blocks']:,}: duplicates {content['duplicate_share'] * 100:.1f}%{bound}, "
            f"all zeros {content['zero_blocks']:,}"
        )


@trace_group.command("generate")
@click.argument("name")
@click.option("--out", "out_path", required=True, metavar="FILE", help="Output (MSR/SNIA CSV; gzip when it ends in .gz).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=1, show_default=True)
def trace_generate_command(name: str, out_path: str, seed: int) -> None:
    """Generate a workload with the published Storage Bench statistics (heavy2011, light2011, light2010, heavy2010, gaming2010)."""
    from ssdlab import traces

    try:
        _io({}, {"--out": out_path})
        if name not in traces.workloads():
            raise SsdlabError(f"unknown workload {name!r} (expected one of: {', '.join(traces.workloads())})")
        with paths.atomic_output(out_path, "--out") as temp:
            n = traces.generate(name, temp, seed)
    except SsdlabError as error:
        _fail(str(error))
    click.echo(f"wrote {n:,} requests to {out_path}")


#: A trace file up to this size is read through before the replay's drive is built (about a
#: million requests of a text trace; a few seconds).
TRACE_PRECHECK_BYTES = 64 << 20


@trace_group.command("replay")
@click.argument("path")
@click.option("--profile", default=DEFAULT_PROFILE, show_default=True, help="Built-in profile name or TOML path.")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Override a profile field (repeatable).")
@click.option("--format", "fmt", default=None, metavar="NAME", help="Trace format (detected when not given).")
@click.option(
    "--mode",
    type=click.Choice(["queue-depth", "timestamps"]),
    default="queue-depth",
    show_default=True,
    help="queue-depth: as fast as the drive allows, keeping the trace's queue depths; timestamps: at the recorded times.",
)
@click.option("--time-scale", type=float, default=1.0, show_default=True, help="Timestamps mode: factor on inter-arrival times.")
@click.option("--time-unit", type=click.Choice(["ns", "us", "ms", "s"]), default=None, help="Unit of the trace's timestamps (default: the format's own).")
@click.option("--remap", is_flag=True, help="Fold addresses beyond the drive into it.")
@click.option("--skip-bad", is_flag=True, help="Count and skip malformed lines instead of stopping.")
@click.option("--volume", default=None, metavar="ID", help="Replay this volume of a trace of several (as the trace names it).")
@click.option(
    "--data_pattern",
    "--data-pattern",
    "data_pattern",
    type=click.Choice(["zeros", "repeating", "text", "random"]),
    default="random",
    show_default=True,
    help="Data written by the trace's writes (the same option and default as `run`'s, fio's random).",
)
@click.option("--data-file", "data_file", default=None, metavar="PATH", help="Write this file's 4 KiB blocks in order, all of it, instead of --data_pattern.")
@click.option("--precondition", "steps", multiple=True, metavar="STEP", help=f"Before the replay: {', '.join(pre.NAMES)} (repeatable, in order).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=1, show_default=True, help="Seed of every random choice.")
@click.option("--json", "json_path", metavar="FILE|-", help="Write the summary as JSON (- for stdout).")
@_PRECONDITION_TIMING
def trace_replay_command(
    path: str,
    profile: str,
    overrides: tuple[str, ...],
    fmt: str | None,
    mode: str,
    time_scale: float,
    time_unit: str | None,
    remap: bool,
    skip_bad: bool,
    volume: str | None,
    data_pattern: str,
    data_file: str | None,
    steps: tuple[str, ...],
    seed: int,
    json_path: str | None,
    precondition_timing: str,
) -> None:
    """Replay a block trace against a drive."""
    try:
        for step in steps:
            pre.parse(step)
        if not (math.isfinite(time_scale) and 0 < time_scale <= 1e6):
            raise SsdlabError(f"--time-scale: expected a positive number no larger than 1e6 (got {time_scale})")
        _profile_input(profile)
        _io(
            {"trace": path, "--data-file": data_file, "--profile": profile if os.path.isfile(profile) else None},
            {"--json": json_path},
            text_inputs=("--profile",),
        )
        if os.path.getsize(path) <= TRACE_PRECHECK_BYTES:
            # Read through once before the drive is built and preconditioned, so a bad line fails
            # in seconds, not after them (a longer trace is checked as it replays).
            from ssdlab import traces

            traces.stats(path, fmt, skip_bad, time_unit, volume)
        drive = Drive(profile, overrides, seed=seed, precondition_timing=precondition_timing)
        for step in steps:
            drive.precondition(step)
        result = drive.replay(
            path,
            format=fmt,
            mode=mode,
            time_scale=time_scale,
            remap=remap,
            skip_bad=skip_bad,
            pattern=data_pattern,
            time_unit=time_unit,
            data_file=data_file,
            volume=volume,
        )
    except SsdlabError as error:
        _fail(str(error))
    s = result.summary
    if json_path:
        _write_output(json_path, json.dumps(s, indent=2) + "\n", "--json")
        if json_path == "-":
            return
    click.echo(f"replayed {s['requests']:,} requests ({s['mode']}) in {s['simulated_seconds']:,.2f} s simulated, {s['wall_seconds']:,.1f} s wall")
    click.echo(
        f"  average {s['average_mbps']:,.1f} MB/s (reads {s['read_mbps']:,.1f}, writes {s['write_mbps']:,.1f}); "
        f"busy {s['busy_seconds']:,.2f} s (reads {s['busy_read_seconds']:,.2f}, writes {s['busy_write_seconds']:,.2f})"
    )
    lat = s.get("latency_us") or {}
    if lat:
        click.echo(
            f"  latency us: p50 {lat['p50']:,.1f}  p99 {lat['p99']:,.1f}  p99.9 {lat['p999']:,.1f}  max {lat['max']:,.1f}; "
            + (f"WA {s['write_amplification']:.3f}" if s.get("write_amplification") is not None else "WA n/a (no writes)")
        )
    from ssdlab import fio

    warning = fio.unwritten_read_warning(
        [{"unmapped_read_bytes": s.get("unmapped_read_bytes", 0), "host_read_bytes": s["read_bytes"]}], "fill the drive first with --precondition seq-fill"
    )
    if warning:
        click.echo(f"ssdlab: warning: {warning}", err=True)
    if s.get("remapped"):
        click.echo(f"  {s['remapped']:,} requests remapped into the drive")
    if s.get("skipped_lines"):
        click.echo(f"  skipped {s['skipped_lines']:,} malformed line{'' if s['skipped_lines'] == 1 else 's'}")
    if s.get("other_volume_requests"):
        click.echo(f"  passed over {s['other_volume_requests']:,} requests of other volumes")
    if s.get("requests_without_direction"):
        click.echo(f"  passed over {s['requests_without_direction']:,} requests the trace gives no direction for")
    red = s.get("reduction") or {}
    if red.get("dedup_hit_rate") is not None:
        click.echo(
            f"  data reduction: stored {red['bytes_stored']:,} bytes, deduplicated {red['dedup_hit_rate'] * 100:.1f}% of written sectors, "
            f"zeros {red['zero_sector_rate'] * 100:.1f}%"
        )


@cli.command("serve")
@click.argument("profile", default=DEFAULT_PROFILE)
@click.option("--backing", required=True, metavar="FILE", help="Backing file (created when missing; a sparse file holding what the drive stores).")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Override a profile field (repeatable).")
@click.option("--socket", "socket_path", default=None, metavar="PATH", help="Serve on this Unix socket (default: FILE.sock).")
@click.option("--port", type=int, default=None, help="Serve on this TCP port of 127.0.0.1 instead.")
@click.option(
    "--latency",
    type=click.Choice(["none", "emulate"]),
    default="none",
    show_default=True,
    help="none: reply as fast as the host allows; emulate: reply at the simulated completion time.",
)
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=1, show_default=True)
@click.option("--control", default=None, metavar="PATH", help="Control socket for `ssdlab stats` (default: FILE.control).")
@click.option("--background", is_flag=True, help="Start the server in the background and print its URI.")
@click.option("--pidfile", default=None, metavar="PATH", help="With --background: write the server's process id here.")
@click.option(
    "--power-cut-after",
    type=click.IntRange(1, None),
    default=None,
    metavar="N",
    help="Cut the drive's power during a write drawn at random (from --seed) among the first N.",
)
@click.option(
    "--fault",
    "faults",
    multiple=True,
    metavar="NAME[=P]",
    help="A failure mode of the flawed drives of the era, striking at a power cut with probability P (default 1; repeatable; off by default): "
    "lying-flush, shorn-writes, unserializable-writes, metadata-corruption, dead-device. See docs/power-loss.md.",
)
@click.option("--secure-erase", is_flag=True, help="Start from a secure-erased (empty) drive, whatever the backing file held (the way back from dead-device).")
@click.option(
    "--direct-data",
    is_flag=True,
    help="Write whole 128 KiB units of data bypassing the page cache (O_DIRECT) where the file system allows it: "
    "faster writes on hosts where fresh page-cache pages are dear, slower reads (they come from the disk). Off by default.",
)
@click.option(
    "--precondition",
    "steps",
    multiple=True,
    metavar="STEP",
    help=f"At start, on an empty drive: {', '.join(pre.NAMES)} (repeatable, in order), fast-forwarded as `ssdlab run --precondition` does; "
    "what it wrote reads back as generated bytes (docs/backing-file.md).",
)
def serve_command(
    profile, backing, overrides, socket_path, port, latency, seed, control, background, pidfile, power_cut_after, faults, secure_erase, direct_data, steps
) -> None:
    """Serve the simulated drive as a block device over NBD (nbdkit), its data in a backing file.

    Clients: qemu-io, qemu-img, nbdcopy, nbdinfo, fio (ioengine=nbd), nbdfuse. Stop with Ctrl-C or
    SIGTERM: the drive's state is saved in the backing file and the next serve continues it.
    After a power cut (`ssdlab ctl power-cut`, --power-cut-after) or a killed server, the next
    serve recovers the drive from its journal and says what it found.
    """
    from ssdlab.serve import ServeOptions, serve

    if socket_path and port:
        _fail("give either --socket or --port, not both")
    options = ServeOptions(
        profile=profile,
        backing=backing,
        overrides=list(overrides),
        socket=socket_path,
        port=port,
        latency=latency,
        seed=seed,
        control=control,
        background=background,
        pidfile=pidfile,
        power_cut_after=power_cut_after,
        faults=list(faults),
        secure_erase=secure_erase,
        direct_data=direct_data,
        precondition=list(steps),
    )
    try:
        _refuse_empty_profile(profile)  # serve checks the rest of the profile after its steps
        sys.exit(serve(options, click.echo))
    except SsdlabError as error:
        _fail(str(error))


@cli.command("stats")
@click.option("--socket", "control", required=True, metavar="CONTROL", help="The server's control socket (FILE.control by default).")
@click.option("--series", is_flag=True, help="Print the per-second series as CSV instead.")
def stats_command(control: str, series: bool) -> None:
    """Print the live summary of a served drive (the keys of `ssdlab run --json`)."""
    from ssdlab.serve import stats

    try:
        text = stats(control, "series" if series else "stats")
    except SsdlabError as error:
        _fail(str(error))
    if series:
        click.echo(text, nl=False)
    else:
        click.echo(json.dumps(json.loads(text), indent=2))


@cli.group("ctl")
def ctl_group() -> None:
    """Control a running server through its control socket."""


@ctl_group.command("power-cut")
@click.option("--socket", "control", required=True, metavar="CONTROL", help="The server's control socket (FILE.control by default).")
def ctl_power_cut(control: str) -> None:
    """Cut the served drive's power now: what its volatile buffer held is lost, a program in
    flight is torn, and the server stops. The next `ssdlab serve` of the file recovers it."""
    from ssdlab.serve import power_cut

    try:
        click.echo(power_cut(control))
    except SsdlabError as error:
        _fail(str(error))


@ctl_group.command("stats")
@click.option("--socket", "control", required=True, metavar="CONTROL", help="The server's control socket (FILE.control by default).")
@click.option("--series", is_flag=True, help="Print the per-second series as CSV instead.")
@click.pass_context
def ctl_stats(ctx, control: str, series: bool) -> None:
    """The same as `ssdlab stats`."""
    ctx.invoke(stats_command, control=control, series=series)


@cli.command("sweep")
@click.argument("spec_path", metavar="SPEC.toml")
@click.option("--out", "out_dir", default=None, metavar="DIR", help="Output folder (default: sweep-NAME).")
@click.option("--db", "db_path", default=None, metavar="FILE", help="Results database (default: OUT/results.sqlite).")
@click.option("--workers", type=click.IntRange(1, 1024), default=None, help="Local worker processes (default: one per CPU).")
@click.option(
    "--dask",
    "dask_address",
    default=None,
    metavar="ADDRESS",
    help="A Dask scheduler (tcp://10.0.0.5:8786), or local[:N]: N worker processes started here, stopped with the sweep (default: one per CPU).",
)
@click.option("--dask-scheduler-file", default=None, metavar="FILE", help="Run on the Dask cluster this scheduler file describes.")
@click.option("--open", "open_page", is_flag=True, help="Open the plots' page in a browser when done.")
@click.option("--quiet", is_flag=True)
def sweep_command(spec_path, out_dir, db_path, workers, dask_address, dask_scheduler_file, open_page, quiet) -> None:
    """Run a design-space sweep: every point of SPEC.toml not yet stored, then Parquet and plots."""
    from ssdlab.sweep import load, run_sweep

    if dask_address and dask_scheduler_file:
        _fail("give either --dask or --dask-scheduler-file, not both")
    try:
        _io({"SPEC.toml": spec_path, "--dask-scheduler-file": dask_scheduler_file}, {"--db": db_path}, text_inputs=("SPEC.toml", "--dask-scheduler-file"))
        if dask_scheduler_file is not None:
            from ssdlab.sweep.execute import check_scheduler_file

            check_scheduler_file(dask_scheduler_file)
        if dask_address is not None:
            from ssdlab.sweep.execute import local_dask_workers

            local_dask_workers(dask_address)
        spec = load(spec_path)
        out = _out_folder(out_dir, f"sweep-{spec.name}")
        if not quiet:
            click.echo(f"sweep {spec.name}: {len(spec.points)} points ({spec.sample}), {len(spec.axes)} axes")
        result = run_sweep(
            spec,
            out,
            Path(db_path) if db_path else None,
            workers,
            dask_address,
            dask_scheduler_file,
            echo=None if quiet else click.echo,
            bar=not quiet and sys.stderr.isatty(),
        )
    except SsdlabError as error:
        _fail(str(error))
    except OSError as error:
        _fail(str(error))
    click.echo(f"ran {result.ran} point(s), {result.failed} failed; data {result.parquet}; plots {result.page}")
    if open_page:
        import webbrowser

        webbrowser.open(result.page.resolve().as_uri())
    if result.failed:
        sys.exit(1)


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM: stop as Ctrl-C does (the simulation checks between slices)."""
    raise KeyboardInterrupt


def _check_arguments(args: list[str]) -> None:
    """Refuse arguments with bytes that are not UTF-8 (paths and values cross into the core as
    text), naming the argument."""
    for i, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raise InputOutputError(f"argument {i} ({paths.shown(arg)}): not valid UTF-8; ssdlab takes UTF-8 paths and values") from None
        if "\0" in arg:
            raise InputOutputError(f"argument {i}: contains a NUL byte")


class _ClosedStream:
    """Standard output when the process started with it closed: writing says so."""

    def write(self, text: str) -> int:
        raise OSError(9, "closed")

    def flush(self) -> None:
        pass


def main() -> None:
    """Entry point of the ``ssdlab`` command: every way a command can fail ends here as one
    line on standard error with exit status 2 (130 when interrupted)."""
    signal.signal(signal.SIGTERM, _terminate)
    if sys.stdout is None:
        sys.stdout = _ClosedStream()  # type: ignore[assignment]
    try:
        _check_arguments(sys.argv[1:])
        cli.main(standalone_mode=False, prog_name="ssdlab")
        try:
            sys.stdout.flush()
        except OSError as error:
            raise OSError(error.errno, f"cannot write: {error.strerror}", "standard output") from None
    except click.exceptions.Abort:
        click.echo("ssdlab: interrupted", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        click.echo("ssdlab: interrupted", err=True)
        sys.exit(130)
    except click.UsageError as error:
        command = error.ctx.command_path if error.ctx else "ssdlab"
        _fail(f"{error.format_message()} (see: {command} --help)")
    except click.ClickException as error:
        _fail(error.format_message())
    except click.exceptions.Exit as exit_:
        sys.exit(exit_.exit_code)
    except SsdlabError as error:
        _fail(str(error))
    except MemoryError:
        _fail("out of memory")
    except BrokenPipeError:
        # The reader went away (`| head`): nothing more to say; keep Python quiet at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(2)
    except OSError as error:
        where = f"{paths.shown(error.filename)}: " if error.filename else ""
        if error.errno == 9 and not error.filename:
            where = "standard output: "
        _fail(f"{where}{error.strerror or error}")


if __name__ == "__main__":
    main()
