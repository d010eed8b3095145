"""`ssdlab sweep`: a design-space sweep from a TOML spec, on local processes or a Dask cluster."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ssdlab.cli.app import DB_OUTPUT, check_io, cli, fail, out_folder, quiet_option
from ssdlab.errors import SsdlabError


@cli.command("sweep")
@click.argument("spec_path", metavar="SPEC.toml")
@click.option("--out", "out_dir", default=None, metavar="DIR", help="Output folder (default: sweep-NAME).")
@DB_OUTPUT
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
@quiet_option()
def sweep_command(spec_path, out_dir, db_path, workers, dask_address, dask_scheduler_file, open_page, quiet) -> None:
    """Run a design-space sweep: every point of SPEC.toml not yet stored, then Parquet and plots."""
    from ssdlab.sweep import load, run_sweep

    if dask_address and dask_scheduler_file:
        fail("give either --dask or --dask-scheduler-file, not both")
    try:
        check_io(
            {"SPEC.toml": spec_path, "--dask-scheduler-file": dask_scheduler_file},
            {"--db": db_path},
            text_inputs=("SPEC.toml", "--dask-scheduler-file"),
            files_only=("--db",),
            not_replaced=("--db",),
        )
        if dask_scheduler_file is not None:
            from ssdlab.sweep.execute import check_scheduler_file

            check_scheduler_file(dask_scheduler_file)
        if dask_address is not None:
            from ssdlab.sweep.execute import local_dask_workers

            local_dask_workers(dask_address)
        spec = load(spec_path)
        out = out_folder(out_dir, f"sweep-{spec.name}")
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
        fail(str(error))
    except OSError as error:
        fail(str(error))
    ended = f", {result.ended_in_error} whose job ended in error (left out of the plots; job_error.* columns)" if result.ended_in_error else ""
    click.echo(f"ran {result.ran} point(s), {result.failed} failed{ended}; data {result.parquet}; plots {result.page}")
    if open_page:
        import webbrowser

        webbrowser.open(result.page.resolve().as_uri())
    if result.failed:
        sys.exit(1)
