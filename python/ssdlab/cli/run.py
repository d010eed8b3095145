"""`ssdlab run`: a workload given as fio options or an fio job file, against a drive in simulated time."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys

import click

from ssdlab import job_errors, paths
from ssdlab import preconditions as pre
from ssdlab.cli.app import OVERRIDES, PRECONDITION_TIMING, check_io, cli, fail, profile_input, quiet_option, seed_option, write_output
from ssdlab.drive import DEFAULT_PROFILE, Drive, jobs_from_file
from ssdlab.errors import SsdlabError
from ssdlab.progress import ProgressBars
from ssdlab.report_text import drive_header, run_summary


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
        "(reads of a drive nobody wrote never touch NAND). "
        "Exit status, as fio's: 0, or 1 when a job ended in error (max_latency, rate_min, latency_target, verify; "
        "after every output, with a line per job on stderr); 2 for bad input."
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
@OVERRIDES
@click.option(
    "--job-file",
    type=click.Path(dir_okay=False),
    help=(
        "fio job file (or give it as `ssdlab run job.fio`; - reads it from standard input, as `fio -`): "
        "its groups run one after the other, "
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
@seed_option()
@click.option(
    "--content", type=click.Choice(["modeled", "real"]), default="modeled", show_default=True, help="Data-reduction content: modeled (fast) or real bytes."
)
@click.option("--data-file", "data_file", default=None, metavar="PATH", help="Write this file's 4 KiB blocks in order, all of it (again only past its end).")
@click.option("--json", "json_path", metavar="FILE|-", help="Write the summary as JSON (- for stdout).")
@click.option(
    "--output-format",
    "output_format",
    default=None,
    metavar="FORMAT[,FORMAT]",
    help="fio's output formats, on stdout: normal (the text summary, the default), json (fio's JSON shape), "
    "json+ (the same with each latency's histogram bins), terse (fio's terse lines; also --minimal, --append-terse, --terse-version=2..5).",
)
@click.option("--series", "series_path", metavar="FILE.csv|-", help="Write the per-second series of the last job as CSV (- for stdout).")
@quiet_option("No progress bars and no text summary.")
@PRECONDITION_TIMING
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
    output_format: str | None,
    series_path: str | None,
    quiet: bool,
    precondition_timing: str,
) -> None:
    from ssdlab import _native, fio, fio_cli_options, fio_terse

    redirect = contextlib.ExitStack()
    try:
        if job_file is not None:
            paths.text_path("--job-file", job_file)  # an empty path is refused, not run as no job file
        positional_file, rest = fio.split_job_file(list(ctx.args))
        if positional_file and job_file:
            raise SsdlabError(f"give the job file once (--job-file {job_file} and {positional_file})")
        job_file = job_file or positional_file
        job_input = None if job_file == "-" else job_file  # `-`: read from standard input, not a path to check
        command_line = fio.command_line_only(_fio_options(rest))
        options, fio_output, display = command_line.options, command_line.output, command_line.display
        formats = fio_cli_options.output_formats(output_format, command_line.minimal, command_line.append_terse)
        own = {opt for param in ctx.command.params for opt in getattr(param, "opts", [])}
        for option in options:
            spelled = "--" + option.split("=", 1)[0].replace("_", "-")
            if spelled in own:
                raise SsdlabError(f"--{option.split('=', 1)[0]}: did you mean {spelled} (an option of ssdlab run, spelled with hyphens)?")
        for step in steps:
            if step != "layout":
                pre.parse(step)
        printed = sorted(formats - {"normal"})
        if printed and (json_path == "-" or series_path == "-"):
            raise SsdlabError(f"fio's {' and '.join(printed)} output prints on standard output; write --json/--series to a file")
        profile_input(profile)
        check_io(
            {"--job-file": job_input, "--data-file": data_file, "--profile": profile if os.path.isfile(profile) else None},
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
        if "json+" in formats:
            # fio's json+: each latency's histogram in fio's buckets, kept by the run.
            jobs = [job.with_fio_bins() for job in jobs]
        for job in jobs:
            drive.check_job(job)
        # fio's log files are outputs too: checked before the run, like --json and --series.
        # A log file several groups share (fio's per_job_logs=0) is one output.
        logs = list(dict.fromkeys((option, str(log)) for number, job in enumerate(jobs, 1) for option, log in fio.log_paths(job, number=number)))
        for option, log in logs:
            paths.output_file(option, log)
        if logs:
            paths.check_distinct(
                {"--job-file": job_input, "--data-file": data_file, "--profile": profile if os.path.isfile(profile) else None},
                [("--json", json_path), ("--series", series_path), ("--output", fio_output), *logs],
            )
        for option, log in logs:
            paths.check_owned(option, log)
        # fio's --output=FILE: what the run prints on standard output goes to FILE instead.
        captured = io.StringIO()
        if fio_output not in (None, "-"):
            redirect.enter_context(contextlib.redirect_stdout(captured))
        bars = ProgressBars(enabled=not quiet and sys.stderr.isatty())
        human = not quiet and json_path != "-" and series_path != "-" and "normal" in formats
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
        log_text: dict = {}  # each log file's rows so far (a shared file gets each group's in turn)
        for number, job in enumerate(jobs, 1):
            if job.pre_read:
                fio.pre_read(drive, job, progress=bars)
            result = drive.run(job=job, progress=bars, data_file=data_file)
            results.append(result)
            logs_written += [p for p in fio.write_logs(job, result, number=number, earlier=log_text) if p not in logs_written]
            if result.log_windows_truncated:
                click.echo(
                    f"ssdlab: warning: group {number}'s logs stopped at {len(result.log_windows):,} windows of log_avg_msec "
                    f"(the most a run keeps); the run's figures cover all of it",
                    err=True,
                )
            if human:
                click.echo(run_summary(result.summary))
        bars.close()
    except SsdlabError as error:
        fail(str(error))
    except OSError as error:
        fail(str(error))
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
    if formats & {"json", "terse"}:
        # The terse lines, then the JSON document, as fio orders them (fio prints its normal text
        # after both; ssdlab's text summaries came as the groups ran).
        fio_document, entry_settings = fio.fio_output(results, jobs, seed)
        if "terse" in formats:
            click.echo(fio_terse.terse_text(fio_document, entry_settings, command_line.terse_version), nl=False)
        if "json" in formats:
            click.echo(fio.dump_json(fio_document))
    if json_path:
        write_output(json_path, json.dumps(document, indent=2) + "\n", "--json")
    if series_path:
        write_output(series_path, last.series.to_csv(index=False), "--series")
    redirect.close()
    if fio_output not in (None, "-"):
        write_output(fio_output, captured.getvalue(), "--output")
    _exit_if_a_job_failed([r.summary for r in results])


def _exit_if_a_job_failed(summaries: list[dict]) -> None:
    """After every output is written: a line on standard error for each job that ended in error
    (even with --quiet), then exit status 1, as fio's main returns non-zero when a job's error
    is set (so `ssdlab run job.fio && ...` sees it). Status 2 stays for bad input."""
    failed = [failure for summary in summaries for failure in job_errors.failures(summary)]
    if not failed:
        return
    sys.stdout.flush()  # the outputs before the lines (the exit skips main's own flush)
    with contextlib.suppress(OSError):  # standard error closed: the exit status says it
        for failure in failed:
            click.echo(failure.line(), err=True)
    sys.exit(1)
