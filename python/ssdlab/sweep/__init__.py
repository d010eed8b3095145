"""Design-space sweeps: ``ssdlab sweep SPEC.toml``.

A spec (``ssdlab.sweep.spec``) names a base profile, axes over profile fields and workload
options, preconditions, seeds, and a grid or a seeded sample of points. The points run on a
local process pool by default or on an existing Dask cluster (``ssdlab.sweep.execute``); each
result is stored in the results database as it arrives, so an interrupted sweep started again
runs only what is missing. At the end every point is written as Parquet (one file per sweep)
and the plots a paper would show are drawn with an HTML index (``ssdlab.sweep.plots``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ssdlab import paths
from ssdlab.lab.db import ResultsDatabase
from ssdlab.sweep import execute as _execute
from ssdlab.sweep.spec import Spec, load

__all__ = ["SweepResult", "load", "run_sweep", "write_outputs"]


@dataclass
class SweepResult:
    """What a sweep left behind."""

    spec: Spec
    ran: int
    failed: int
    points_per_minute: float
    parquet: Path
    page: Path


def write_outputs(spec: Spec, db_path: Path, out: Path) -> tuple[Path, Path]:
    """Parquet of every stored point and the plots with their HTML index."""
    out.mkdir(parents=True, exist_ok=True)
    db = ResultsDatabase(db_path)
    try:
        points = db.sweep_points(spec.name)
    finally:
        db.close()
    # Imported here: workers unpickle points from ssdlab.sweep and need no matplotlib.
    from ssdlab.sweep import plots as _plots

    df = _plots.frame(points)
    parquet = out / f"sweep-{spec.name}.parquet"
    with paths.atomic_output(parquet, "sweep data") as temp:
        df.to_parquet(temp, index=False)
    made = _plots.draw(spec, df, out)
    return parquet, _plots.index_page(spec, df, made, out, parquet)


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
    paths.output_folder(out)  # a folder that can be written (created if missing), before any point runs
    db_path = db_path or out / "results.sqlite"
    progress = _execute.execute(spec, db_path, workers, dask_address, dask_scheduler_file, echo, bar)
    parquet, page = write_outputs(spec, db_path, out)
    return SweepResult(spec, progress.done, len(progress.failures), progress.points_per_minute, parquet, page)
