"""Design-space sweeps: ``ssdlab sweep SPEC.toml``.

A spec (``ssdlab.sweep.spec``) names a base profile, axes over profile fields and workload
options, preconditions, seeds, and a grid or a seeded sample of points. The points run on a
local process pool by default or on an existing Dask cluster (``ssdlab.sweep.execute``); each
result is stored in the results database as it arrives, so an interrupted sweep started again
runs only what is missing. At the end every point is written as Parquet (one file per sweep)
and the plots a paper would show are drawn with an HTML index (``ssdlab.sweep.plots``).

The outputs hold the points of the spec as it is now: rows the database keeps from an earlier
version of the spec (same name, other points) stay stored but are left out. Before any point
runs, every file the sweep will write in the output folder is checked: a file there that ssdlab
did not write (not listed in the folder's ``.ssdlab-outputs``), a folder or FIFO at an output's
name, or an input (the spec, the profile, the database, the scheduler file) is refused; a run
of the same sweep into the same folder replaces its own files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ssdlab import paths
from ssdlab.lab.db import ResultsDatabase, check_results_file
from ssdlab.sweep import execute as _execute
from ssdlab.sweep.spec import Spec, load

__all__ = ["SweepResult", "check_outputs", "load", "run_sweep", "write_outputs"]


@dataclass
class SweepResult:
    """What a sweep left behind."""

    spec: Spec
    ran: int
    failed: int
    points_per_minute: float
    parquet: Path
    page: Path
    #: Points stored whose job ended in error as fio counts it (`max_latency`, `rate_min`, a
    #: failed verify): ran, kept with their `job_error.*` columns, left out of the plots.
    ended_in_error: int = 0


def output_names(spec: Spec) -> list[str]:
    """The files a sweep may write in its output folder (besides the default database)."""
    # Imported here: workers unpickle points from ssdlab.sweep and need no matplotlib.
    from ssdlab.sweep import plots as _plots

    return [f"sweep-{spec.name}.parquet", "index.html", *_plots.planned(spec)]


def check_outputs(spec: Spec, out: Path, db_path: Path, dask_scheduler_file: str | None = None) -> None:
    """Before any point runs: the database can be one, and no output of the sweep would
    replace a file ssdlab did not write, a non-file, or an input."""
    check_results_file(db_path, "results database")
    inputs = {
        "the sweep spec": str(spec.path),
        "the sweep's profile": spec.profile_file,
        "the results database": str(db_path),
        "the Dask scheduler file": dask_scheduler_file,
    }
    paths.check_replaceable("--out", out, output_names(spec), inputs)


def _stored_points(spec: Spec, db_path: Path):
    """The stored rows of the spec's points only (by key), with each point's index, axes and
    seed as the spec gives them now."""
    db = ResultsDatabase(db_path)
    try:
        stored = db.sweep_points(spec.name)
    finally:
        db.close()
    current = {p.key: p for p in spec.points}
    rows = stored[stored["point_key"].isin(current)].copy()
    rows["point_index"] = [current[k].index for k in rows["point_key"]]
    rows["axes"] = [json.dumps(current[k].axes) for k in rows["point_key"]]
    rows["seed"] = [current[k].seed for k in rows["point_key"]]
    return rows.sort_values("point_index").reset_index(drop=True)


def write_outputs(spec: Spec, db_path: Path, out: Path, dask_scheduler_file: str | None = None) -> tuple[Path, Path, int]:
    """Parquet of the spec's stored points and the plots with their HTML index; also how many
    of the points' jobs ended in error."""
    out.mkdir(parents=True, exist_ok=True)
    check_outputs(spec, out, db_path, dask_scheduler_file)  # again: something may have appeared while the points ran
    points = _stored_points(spec, db_path)
    from ssdlab.sweep import plots as _plots

    df = _plots.frame(points)
    parquet = out / f"sweep-{spec.name}.parquet"
    paths.record_outputs(out, [parquet.name])
    with paths.atomic_output(parquet, "sweep data") as temp:
        df.to_parquet(temp, index=False)
    made = _plots.draw(spec, df, out)
    ended = int(df["job_error.errno"].notna().sum()) if "job_error.errno" in df else 0
    return parquet, _plots.index_page(spec, df, made, out, parquet), ended


def run_sweep(
    spec: Spec,
    out: Path,
    db_path: Path | None = None,
    workers: int | None = None,
    dask_address: str | None = None,
    dask_scheduler_file: str | None = None,
    echo=None,
    bar: bool = False,
) -> SweepResult:
    """Run what is missing of `spec`, then write its Parquet file and plots into `out`."""
    db_path = db_path or out / "results.sqlite"
    # Every refusal before the folder is made: a refused sweep leaves no folder behind.
    paths.not_a_folder(out)
    check_outputs(spec, out, db_path, dask_scheduler_file)
    paths.output_folder(out)  # a folder that can be written (created if missing), before any point runs
    if echo and spec.duplicates:
        echo(f"{spec.duplicates} sampled draw(s) repeated an earlier point: each point runs once")
    progress = _execute.execute(spec, db_path, workers, dask_address, dask_scheduler_file, echo, bar)
    parquet, page, ended = write_outputs(spec, db_path, out, dask_scheduler_file)
    return SweepResult(spec, progress.done, len(progress.failures), progress.points_per_minute, parquet, page, ended)
