"""The ``ssdlab`` command group and what its commands share: one-line errors, the entry point
that turns every failure into one, the checks of input and output paths, and options several
commands take.

Flags are validated once here (click) or in the core (profiles, fio options), turned into typed
settings, and every user mistake ends as a one-line message on stderr with exit status 2.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import click

from ssdlab import __version__, paths
from ssdlab.drive import profile_names
from ssdlab.errors import InputOutputError, SsdlabError


def _printable(line: str) -> str:
    """One line of a message, printable: control characters and bytes that are not UTF-8 are
    shown escaped (a binary file's content is never echoed raw)."""
    line = line.encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in line)


def _error_lines(message: str) -> list[str]:
    """A message as error lines: one per problem it reports (a job file's problems are each a
    line naming file:line), each printable."""
    return [_printable(part.strip()) for part in str(message).splitlines() if part.strip()] or ["(no message)"]


def fail(message: str) -> None:
    """Print `message` as error lines on standard error and exit with status 2."""
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


#: `--set SECTION.FIELD=VALUE`: profile overrides, for every command that builds a drive.
OVERRIDES = click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Override a profile field (repeatable).")

#: Largest seed of a command that stores it in a results database (an SQLite integer: signed 64 bits).
DB_SEED_MAX = 2**63 - 1


def seed_option(stored: bool = False):
    """`--seed`: the one seed every random choice of a command comes from. With `stored` (reviews,
    PTS: the results database keeps it) it is at most 2^63-1, else any 64-bit value."""
    if stored:
        return click.option(
            "--seed",
            type=click.IntRange(0, DB_SEED_MAX),
            default=1,
            show_default=True,
            help="Seed of every random choice (0 to 2^63-1: the results database stores it).",
        )
    return click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=1, show_default=True, help="Seed of every random choice.")


def quiet_option(help: str = "No progress output."):
    """`--quiet`: no progress output (`help` says what else it leaves out, where it does)."""
    return click.option("--quiet", is_flag=True, help=help)


#: `--db` of a command that adds its results to a database (default: in its output folder).
DB_OUTPUT = click.option("--db", "db_path", default=None, metavar="FILE", help="Results database (default: OUT/results.sqlite).")

#: `--precondition-timing` (issue 23): preconditioning fast-forwarded or timed.
PRECONDITION_TIMING = click.option(
    "--precondition-timing",
    "precondition_timing",
    type=click.Choice(["fast", "full"]),
    default="fast",
    show_default=True,
    help="fast: preconditioning fills and TRIMs run without timing (the same FTL state, docs/fast-forward.md); full: timed.",
)
#: `--jobs` (issue 23): how many suites run at once.
JOBS = click.option(
    "--jobs", type=click.IntRange(1, 256), default=None, help="Suites run at once, each on its own drive (default: one per core; results as a serial run)."
)


def jobs_or_default(jobs: int | None) -> int:
    """The suites to run at once: `--jobs` as given, else one per core."""
    from ssdlab.lab.parallel import default_jobs

    return default_jobs() if jobs is None else jobs


def refuse_empty_profile(profile: str) -> None:
    """Refuse an empty profile name (it is neither a built-in profile nor a file)."""
    if profile == "":
        raise InputOutputError("profile: empty name; give a built-in profile's name or a TOML file")


def profile_input(profile: str, option: str = "--profile") -> None:
    """A profile given as a path is an input file like any other (built-in names are not).
    `option` names it in messages: ``--profile`` for `run`, ``PROFILE`` where it is the
    command's argument (`review`, `pts`, `profile show`)."""
    refuse_empty_profile(profile)
    if profile not in profile_names():
        if os.path.sep in profile or profile.endswith(".toml") or os.path.lexists(profile):
            paths.input_file(option, profile, paths.MAX_TEXT_FILE_BYTES)


def check_io(
    inputs: dict[str, str | None],
    outputs: dict[str, str | None],
    text_inputs: tuple[str, ...] = (),
    *,
    files_only: tuple[str, ...] = (),
    not_replaced: tuple[str, ...] = (),
) -> None:
    """Check every input and output path of a command before anything runs (issue 19): inputs
    are readable regular files (text formats within their size bound), outputs are writable
    files that ssdlab wrote or that are not there yet (`not_replaced`: outputs appended to, or
    with a check of their own), `files_only` outputs cannot be standard output, and no output
    is the same file as an input or another output."""
    for name, path in inputs.items():
        if path is not None:
            paths.input_file(name, path, paths.MAX_TEXT_FILE_BYTES if name in text_inputs else None)
    for name, path in outputs.items():
        if path is not None:
            paths.output_file(name, path, stdout=name not in files_only)
    paths.check_distinct(inputs, outputs)  # before ownership: "the same file as the trace" says more
    for name, path in outputs.items():
        if path not in (None, "-") and name not in not_replaced:
            paths.check_owned(name, path)


def write_output(path: str, text: str, option: str) -> None:
    """Write one output: ``-`` is standard output, anything else goes through a temporary file
    renamed into place, listed as ssdlab's in its folder (a later run may replace it)."""
    if path == "-":
        click.echo(text, nl=False)
    else:
        paths.write_atomic(path, text, option, owned=True)


def out_folder(out_dir: str | None, default: str) -> Path:
    """The output folder of --out (`default` when not given); an empty path is refused, not
    taken as the default or the current folder."""
    if out_dir == "":
        raise InputOutputError("--out: empty path; give a folder name")
    return Path(out_dir or default)


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
        fail(f"{error.format_message()} (see: {command} --help)")
    except click.ClickException as error:
        fail(error.format_message())
    except click.exceptions.Exit as exit_:
        sys.exit(exit_.exit_code)
    except SsdlabError as error:
        fail(str(error))
    except MemoryError:
        fail("out of memory")
    except BrokenPipeError:
        # The reader went away (`| head`): nothing more to say; keep Python quiet at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(2)
    except OSError as error:
        where = f"{paths.shown(error.filename)}: " if error.filename else ""
        if error.errno == 9 and not error.filename:
            where = "standard output: "
        fail(f"{where}{error.strerror or error}")
