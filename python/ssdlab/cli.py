"""The ``ssdlab`` command line.

Flags are validated once here (click) or in the core (profiles, fio options), turned into typed
settings, and every user mistake ends as a one-line message on stderr with exit status 2.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ssdlab import __version__
from ssdlab import preconditions as pre
from ssdlab.drive import DEFAULT_PROFILE, Drive, jobs_from_file, profile_names, profile_source
from ssdlab.errors import SsdlabError
from ssdlab.progress import ProgressBars
from ssdlab.report_text import drive_header, review_summary, run_summary

if TYPE_CHECKING:
    from ssdlab.lab.review import Review


def _fail(message: str) -> None:
    click.echo(f"ssdlab: error: {message}", err=True)
    sys.exit(2)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ssdlab")
def cli() -> None:
    """ssdlab: simulate SSDs and review them."""


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
        click.echo(profile_source(name, overrides), nl=False)
    except SsdlabError as error:
        _fail(str(error))


def _check_outputs(**paths: str | None) -> None:
    """Refuse output paths that cannot be written, before any simulation runs: a missing
    folder, a folder where a file is expected, two outputs on standard output."""
    to_stdout = [f"--{name.replace('_', '-')}" for name, path in paths.items() if path == "-"]
    if len(to_stdout) > 1:
        raise SsdlabError(f"{' and '.join(to_stdout)} cannot both write to standard output (-)")
    for name, path in paths.items():
        if not path or path == "-":
            continue
        target = Path(path)
        if target.is_dir():
            raise SsdlabError(f"--{name.replace('_', '-')} {path}: is a folder; give a file name")
        parent = target.resolve().parent
        if not parent.is_dir():
            raise SsdlabError(f"--{name.replace('_', '-')} {path}: folder {parent} does not exist")
        if not os.access(parent, os.W_OK):
            raise SsdlabError(f"--{name.replace('_', '-')} {path}: folder {parent} is not writable")


def _check_input(option: str, path: str | None) -> None:
    """Refuse an input file that cannot be read, before any simulation runs."""
    if path is None:
        return
    target = Path(path)
    if not target.is_file():
        raise SsdlabError(f"{option} {path}: no such file")
    if not os.access(target, os.R_OK):
        raise SsdlabError(f"{option} {path}: not readable")


def _fio_options(args: list[str]) -> list[str]:
    """Turn ``--rw=randwrite --bs 4k --time_based`` into ``["rw=randwrite", "bs=4k", "time_based"]``."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--") or len(arg) <= 2:
            raise SsdlabError(f"unexpected argument {arg!r} (fio options are written --name=value)")
        body = arg[2:]
        if "=" in body:
            out.append(body)
        elif i + 1 < len(args) and not args[i + 1].startswith("--"):
            out.append(f"{body}={args[i + 1]}")
            i += 1
        else:
            out.append(body)
        i += 1
    return out


@cli.command(
    "run",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.option("--profile", "profile", default=DEFAULT_PROFILE, show_default=True, help="Built-in profile name or TOML path.")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Override a profile field (repeatable).")
@click.option("--job-file", type=click.Path(dir_okay=False), help="fio job file; its jobs run one after the other.")
@click.option("--precondition", "steps", multiple=True, metavar="STEP", help=f"Before the job: {', '.join(pre.NAMES)} (repeatable, in order).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=1, show_default=True, help="Seed of every random choice.")
@click.option(
    "--content", type=click.Choice(["modeled", "real"]), default="modeled", show_default=True, help="Data-reduction content: modeled (fast) or real bytes."
)
@click.option("--data-file", "data_file", default=None, metavar="PATH", help="Write this file's 4 KiB blocks (in order, cycling) instead of the data pattern.")
@click.option("--json", "json_path", metavar="FILE|-", help="Write the summary as JSON (- for stdout).")
@click.option("--series", "series_path", metavar="FILE.csv|-", help="Write the per-second series of the last job as CSV (- for stdout).")
@click.option("--quiet", is_flag=True, help="No progress bars and no text summary.")
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
    series_path: str | None,
    quiet: bool,
) -> None:
    """Run a workload against a drive in simulated time.

    fio options follow the command: --rw=randwrite --bs=4k --iodepth=32 --runtime=60 --time_based.
    """
    try:
        options = _fio_options(list(ctx.args))
        if job_file and options:
            raise SsdlabError("give either fio options or --job-file, not both")
        for step in steps:
            pre.parse(step)
        _check_outputs(json=json_path, series=series_path)
        _check_input("--data-file", data_file)
        drive = Drive(profile, overrides, seed=seed, content=content)
        jobs = jobs_from_file(job_file) if job_file else None
        if jobs is None:
            from ssdlab import _native

            jobs = [_native.job_from_options("cli", options)]
        for job in jobs:
            drive.check_job(job)
        bars = ProgressBars(enabled=not quiet and sys.stderr.isatty())
        human = not quiet and json_path != "-" and series_path != "-"
        if human:
            click.echo(drive_header(drive.info))
        records = []
        for step in steps:
            record = drive.precondition(step, progress=bars)
            records.append(record)
            if human:
                click.echo(f"precondition {step}: {record['simulated_seconds']:,.1f} s simulated")
        results = []
        for job in jobs:
            result = drive.run(job=job, progress=bars, data_file=data_file)
            results.append(result)
            if human:
                click.echo(run_summary(result.summary))
        bars.close()
    except SsdlabError as error:
        _fail(str(error))
    except OSError as error:
        _fail(str(error))
    last = results[-1]
    document = dict(last.summary)
    document["master_seed"] = seed
    document["profile"] = {k: v for k, v in drive.info.items() if k != "source"}
    document["preconditions"] = records
    document["jobs"] = [r.summary for r in results]
    try:
        if json_path == "-":
            click.echo(json.dumps(document, indent=2))
        elif json_path:
            Path(json_path).write_text(json.dumps(document, indent=2) + "\n")
        if series_path == "-":
            click.echo(last.series.to_csv(index=False), nl=False)
        elif series_path:
            last.series.to_csv(series_path, index=False)
    except OSError as error:
        _fail(f"cannot write output: {error}")


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
@click.option("--suites", default=None, metavar="A,B", help="Run only these suites.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=1, show_default=True)
@click.option(
    "--label", default=None, metavar="NAME", help="The drive's name in the results database and charts (default: the profile's name, plus any --set overrides)."
)
@click.option("--quiet", is_flag=True, help="No progress output.")
def review_command(
    profile: str,
    overrides: tuple[str, ...],
    out_dir: str | None,
    db_path: str | None,
    scale: float,
    suites: str | None,
    seed: int,
    label: str | None,
    quiet: bool,
) -> None:
    """Run every test of the articles against a drive and write a report (charts, tables, raw data)."""
    from ssdlab.lab.review import parse_suites

    try:
        _check_scale(scale)
        names = parse_suites(suites)
        started = time.monotonic()
        done = _run_lab(
            profile,
            overrides,
            Path(out_dir or f"review-{Path(profile).stem}"),
            db_path,
            scale,
            seed,
            label,
            quiet,
            names,
            lambda model: f"reviewing {model} (scale {scale:g}): {', '.join(names)}",
        )
    except SsdlabError as error:
        _fail(str(error))
    click.echo(review_summary(done.headlines, done.report, done.database, time.monotonic() - started) if not quiet else f"report: {done.report}")


def _check_scale(scale: float) -> None:
    if not math.isfinite(scale):
        raise SsdlabError(f"--scale: expected a number from 0.001 to 1 (got {scale})")


def _run_lab(
    profile: str,
    overrides: tuple[str, ...],
    out: Path,
    db_path: str | None,
    scale: float,
    seed: int,
    label: str | None,
    quiet: bool,
    names: list[str],
    heading: Callable[[str], str],
    pts_pattern: str = "random",
) -> Review:
    """What `review` and `pts` share: check the database path and label, build the drive once
    (the profile is validated before any output), run the suites with progress (bars on a
    terminal, lines in a log), return what was written. `heading` gives the first line from
    the drive's model name."""
    from ssdlab.lab.context import ReviewContext
    from ssdlab.lab.review import review

    if db_path is not None and Path(db_path).is_dir():
        raise SsdlabError(f"--db {db_path}: is a folder; give the results database's file name")
    if label is not None and not label.strip():
        raise SsdlabError("--label: must not be empty")
    bars = ProgressBars(enabled=not quiet)
    ctx = ReviewContext(profile, overrides, scale=scale, seed=seed, out_dir=out, progress=bars, label=label, pts_pattern=pts_pattern)
    model = ctx.info()["model"]
    if not quiet:
        click.echo(heading(model))

    def done(name: str, wall: float) -> None:
        bars.close()
        if not quiet:
            click.echo(f"  {name}: done in {wall:,.1f} s")

    return review(ctx, names, Path(db_path) if db_path else out / "results.sqlite", on_suite=done)


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
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=1, show_default=True)
@click.option("--label", default=None, metavar="NAME", help="The drive's name in the results database (default: the profile's name, plus any --set overrides).")
@click.option("--quiet", is_flag=True, help="No progress output.")
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
            Path(out_dir or f"pts-{Path(profile).stem}"),
            db_path,
            scale,
            seed,
            label,
            quiet,
            names,
            lambda model: f"SNIA PTS on {model} (scale {scale:g}, data {pattern}): {', '.join(names)}",
            pts_pattern=pattern,
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
        page = compare(Path(db_path), Path(out_dir), list(drives), highlight, include_scaled)
    except SsdlabError as error:
        _fail(str(error))
    click.echo(f"comparison: {page}")


@cli.command("calibrate")
@click.option("--db", "db_path", default="calibration/results.sqlite", show_default=True, metavar="FILE")
@click.option("--out", "out_path", default="calibration.md", show_default=True, metavar="FILE", help="The calibration page (markdown) to write.")
@click.option("--scale", type=click.FloatRange(0.001, 1.0), default=1.0, show_default=True)
@click.option("--quiet", is_flag=True)
def calibrate_command(db_path: str, out_path: str, scale: float, quiet: bool) -> None:
    """Run the suites behind the published figures and write the calibration page."""
    from ssdlab.lab.compare import calibrate

    try:
        bars = ProgressBars(enabled=not quiet)
        page = calibrate(Path(db_path), Path(out_path), scale, bars, echo=None if quiet else click.echo)
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
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def trace_stats_command(path: str, fmt: str | None, skip_bad: bool, time_unit: str | None, as_json: bool) -> None:
    """Statistics of a trace file."""
    from ssdlab import traces

    try:
        s = traces.stats(path, fmt, skip_bad, time_unit)
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
    click.echo("  sizes: " + ", ".join(f"{size // 1024 if size % 1024 == 0 else size / 1024:g}K {n / total * 100:.1f}%" for size, n in top))
    click.echo("  queue depths: " + ", ".join(f"{d}: {n / total * 100:.1f}%" for d, n in s["queue_depths"][:8]))
    if s["skipped_lines"]:
        click.echo(f"  skipped {s['skipped_lines']:,} malformed lines")
    if s["queue_depth_saturated"]:
        click.echo(f"  {s['queue_depth_saturated']:,} requests arrived with the deepest tracked queue outstanding (implausible response times)")


@trace_group.command("generate")
@click.argument("name")
@click.option("--out", "out_path", required=True, metavar="FILE", help="Output (MSR/SNIA CSV; gzip when it ends in .gz).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=1, show_default=True)
def trace_generate_command(name: str, out_path: str, seed: int) -> None:
    """Generate a workload with the published Storage Bench statistics (heavy2011, light2011, light2010, heavy2010, gaming2010)."""
    from ssdlab import traces

    try:
        n = traces.generate(name, out_path, seed)
    except SsdlabError as error:
        _fail(str(error))
    click.echo(f"wrote {n:,} requests to {out_path}")


@trace_group.command("replay")
@click.argument("path")
@click.option("--profile", default=DEFAULT_PROFILE, show_default=True)
@click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE")
@click.option("--format", "fmt", default=None, metavar="NAME")
@click.option("--mode", type=click.Choice(["queue-depth", "timestamps"]), default="queue-depth", show_default=True)
@click.option("--time-scale", type=float, default=1.0, show_default=True, help="Timestamps mode: factor on inter-arrival times.")
@click.option("--time-unit", type=click.Choice(["ns", "us", "ms", "s"]), default=None, help="Unit of the trace's timestamps (default: the format's own).")
@click.option("--remap", is_flag=True, help="Fold addresses beyond the drive into it.")
@click.option("--skip-bad", is_flag=True)
@click.option("--data-pattern", default="text", show_default=True, help="Data written by the trace's writes.")
@click.option("--data-file", "data_file", default=None, metavar="PATH", help="Write this file's 4 KiB blocks (in order, cycling) instead of --data-pattern.")
@click.option("--precondition", "steps", multiple=True, metavar="STEP")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=1, show_default=True)
@click.option("--json", "json_path", metavar="FILE|-")
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
    data_pattern: str,
    data_file: str | None,
    steps: tuple[str, ...],
    seed: int,
    json_path: str | None,
) -> None:
    """Replay a block trace against a drive."""
    try:
        for step in steps:
            pre.parse(step)
        if not (math.isfinite(time_scale) and 0 < time_scale <= 1e6):
            raise SsdlabError(f"--time-scale: expected a positive number no larger than 1e6 (got {time_scale})")
        _check_outputs(json=json_path)
        _check_input("trace", path)
        _check_input("--data-file", data_file)
        drive = Drive(profile, overrides, seed=seed)
        for step in steps:
            drive.precondition(step)
        result = drive.replay(
            path, format=fmt, mode=mode, time_scale=time_scale, remap=remap, skip_bad=skip_bad, pattern=data_pattern, time_unit=time_unit, data_file=data_file
        )
    except SsdlabError as error:
        _fail(str(error))
    s = result.summary
    try:
        if json_path == "-":
            click.echo(json.dumps(s, indent=2))
            return
        if json_path:
            Path(json_path).write_text(json.dumps(s, indent=2) + "\n")
    except OSError as error:
        _fail(f"cannot write output: {error}")
    click.echo(f"replayed {s['requests']:,} requests ({s['mode']}) in {s['simulated_seconds']:,.2f} s simulated, {s['wall_seconds']:,.1f} s wall")
    click.echo(
        f"  average {s['average_mbps']:,.1f} MB/s (reads {s['read_mbps']:,.1f}, writes {s['write_mbps']:,.1f}); "
        f"busy {s['busy_seconds']:,.2f} s (reads {s['busy_read_seconds']:,.2f}, writes {s['busy_write_seconds']:,.2f})"
    )
    lat = s.get("latency_us") or {}
    if lat:
        click.echo(
            f"  latency us: p50 {lat['p50']:,.1f}  p99 {lat['p99']:,.1f}  p99.9 {lat['p999']:,.1f}  max {lat['max']:,.1f}; "
            f"WA {s['write_amplification'] or 0:.3f}"
        )
    if s.get("remapped"):
        click.echo(f"  {s['remapped']:,} requests remapped into the drive")
    if s.get("skipped_lines"):
        click.echo(f"  skipped {s['skipped_lines']:,} malformed lines")


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
    type=click.Choice(["lying-flush", "shorn-writes"]),
    help="A failure mode of the flawed drives of the era (repeatable; off by default): see docs/power-loss.md.",
)
def serve_command(profile, backing, overrides, socket_path, port, latency, seed, control, background, pidfile, power_cut_after, faults) -> None:
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
    )
    try:
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
@click.option("--dask", "dask_address", default=None, metavar="ADDRESS", help="Run on this Dask scheduler (e.g. tcp://10.0.0.5:8786).")
@click.option("--dask-scheduler-file", default=None, metavar="FILE", help="Run on the Dask cluster this scheduler file describes.")
@click.option("--open", "open_page", is_flag=True, help="Open the plots' page in a browser when done.")
@click.option("--quiet", is_flag=True)
def sweep_command(spec_path, out_dir, db_path, workers, dask_address, dask_scheduler_file, open_page, quiet) -> None:
    """Run a design-space sweep: every point of SPEC.toml not yet stored, then Parquet and plots."""
    from ssdlab.sweep import load, run_sweep

    if dask_address and dask_scheduler_file:
        _fail("give either --dask or --dask-scheduler-file, not both")
    try:
        spec = load(spec_path)
        out = Path(out_dir or f"sweep-{spec.name}")
        if not quiet:
            click.echo(f"sweep {spec.name}: {len(spec.points)} points ({spec.sample}), {len(spec.axes)} axes")
        _check_outputs(db=db_path)
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


def main() -> None:
    """Entry point of the ``ssdlab`` command."""
    signal.signal(signal.SIGTERM, _terminate)
    try:
        cli.main(standalone_mode=False, prog_name="ssdlab")
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


if __name__ == "__main__":
    main()
