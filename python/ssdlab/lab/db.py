"""The results database: SQLite, one row per drive, suite, metric, data pattern and condition,
with run metadata (profile hash, version, seed, scale).

Each suite's rows go in with one transaction, so a crash mid-review leaves earlier results
intact. A file that is not an ssdlab results database is refused, never modified.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from ssdlab import paths
from ssdlab.errors import SsdlabError
from ssdlab.lab.results import SuiteResult

SCHEMA_VERSION = "4"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, drive TEXT NOT NULL, model TEXT NOT NULL, profile_hash TEXT NOT NULL,
    version TEXT NOT NULL, seed INTEGER NOT NULL, scale REAL NOT NULL, started TEXT NOT NULL, out_dir TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    run_id TEXT NOT NULL REFERENCES runs(run_id), drive TEXT NOT NULL, suite TEXT NOT NULL, metric TEXT NOT NULL,
    pattern TEXT NOT NULL, condition TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL, title TEXT NOT NULL DEFAULT '',
    utilization TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS results_by_drive ON results (drive, suite, metric);
CREATE TABLE IF NOT EXISTS sweep_points (
    sweep TEXT NOT NULL, point_key TEXT NOT NULL, point_index INTEGER NOT NULL, axes TEXT NOT NULL, profile TEXT NOT NULL,
    overrides TEXT NOT NULL, profile_hash TEXT NOT NULL, preconditions TEXT NOT NULL, workload TEXT NOT NULL, seed INTEGER NOT NULL,
    version TEXT NOT NULL, summary TEXT, error TEXT, wall_seconds REAL NOT NULL, recorded TEXT NOT NULL,
    PRIMARY KEY (sweep, point_key)
);
"""


class ResultsDatabaseError(SsdlabError):
    """The results database cannot be used (corrupt, not ours, unwritable)."""


def check_results_file(path: Path, option: str = "") -> None:
    """Refuse a results-database path that cannot be one, without opening or writing it:
    standard output (``-``), a folder, a FIFO, device or socket, or an existing non-empty file
    that is not SQLite (or another application's SQLite file). The one check of every
    database path (review, pts, calibrate, compare, sweeps). Commands call this before they
    run anything, so a bad `--db` fails in a second, not after a review's work. `option` (such
    as ``--db``) starts the message when given."""
    if str(path) == "-":
        name = option or "results database"
        raise ResultsDatabaseError(f"{name} -: a results database is a file (it is read and appended to), not standard output; give a file name")
    path = Path(path)
    name = f"{option} {paths.shown(path)}" if option else paths.shown(path)
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return  # (a path that cannot exist is the output check's to name)
    except OSError as error:
        raise ResultsDatabaseError(f"{name}: {paths.why(error)}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ResultsDatabaseError(f"{name}: is a folder; give the results database's file name (e.g. {path / 'results.sqlite'})")
    if not stat.S_ISREG(info.st_mode):
        raise ResultsDatabaseError(f"{name}: is {paths.kind_of(info.st_mode)}; give a regular file (an SQLite results database)")
    if info.st_size == 0:
        return
    with open(path, "rb") as f:
        if f.read(16) != b"SQLite format 3\x00":
            raise ResultsDatabaseError(f"{name}: not an SQLite database (corrupt, or not an ssdlab results file); left untouched")
    # Another application's SQLite file is refused here too, read-only (calibrate found it only
    # when it stored its first results, after minutes of work).
    try:
        with contextlib.closing(sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=30)) as conn:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as error:
        raise ResultsDatabaseError(f"{name}: cannot read the results database: {error}; left untouched") from None
    if tables and not {"meta", "runs", "results"} <= tables:
        raise ResultsDatabaseError(f"{name}: an SQLite file but not an ssdlab results database; left untouched")


class ResultsDatabase:
    """An open results database."""

    def __init__(self, path: Path, create: bool = True) -> None:
        self.path = Path(path)
        check_results_file(self.path)
        if not self.path.exists() and not create:
            raise ResultsDatabaseError(f"{self.path}: no such results database")
        try:
            if not create and self._current_schema_read_only():
                return
            self.conn = sqlite3.connect(self.path, timeout=30)
            existing = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if existing and not {"meta", "runs", "results"} <= existing:
                raise ResultsDatabaseError(f"{self.path}: an SQLite file but not an ssdlab results database; left untouched")
            if not create and not existing:
                # Opened to read (compare, calibrate's page): an empty file is not made into one.
                raise ResultsDatabaseError(f"{self.path}: not an ssdlab results database (it holds no tables); left untouched")
            if self.conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise ResultsDatabaseError(f"{self.path}: the database is corrupt; left untouched")
            with self.conn:
                self.conn.executescript(SCHEMA)
                columns = {r[1] for r in self.conn.execute("PRAGMA table_info(results)")}
                if "title" not in columns:
                    # Schema 1 kept display titles in `metric`; their titles stay empty.
                    self.conn.execute("ALTER TABLE results ADD COLUMN title TEXT NOT NULL DEFAULT ''")
                if "utilization" not in columns:
                    # Before schema 4 no figure said what bounds it; those stay empty.
                    self.conn.execute("ALTER TABLE results ADD COLUMN utilization TEXT NOT NULL DEFAULT ''")
                self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
        except sqlite3.DatabaseError as error:
            raise ResultsDatabaseError(f"{self.path}: cannot use the results database: {error}") from None

    def _current_schema_read_only(self) -> bool:
        """Open a database of the current schema read-only (a reader, such as compare, needs
        no write: a read-only file is read, and nothing is changed). False when it needs the
        writable open (an older schema to bring up to date, or a check to fail there)."""
        conn = sqlite3.connect(f"{self.path.absolute().as_uri()}?mode=ro", uri=True, timeout=30)
        try:
            existing = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"meta", "runs", "results"} <= existing:
                conn.close()
                return False
            columns = {r[1] for r in conn.execute("PRAGMA table_info(results)")}
            if not {"title", "utilization"} <= columns or conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                conn.close()
                return False
        except sqlite3.DatabaseError:
            conn.close()
            return False
        self.conn = conn
        return True

    def start_run(self, drive: str, model: str, profile_hash: str, version: str, seed: int, scale: float, out_dir: Path) -> str:
        """Record a new review run; returns its id."""
        run_id = uuid.uuid4().hex[:12]
        started = datetime.now(UTC).isoformat(timespec="seconds")
        with self.conn:
            self.conn.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?)", (run_id, drive, model, profile_hash, version, seed, scale, started, str(out_dir)))
        return run_id

    def drop_run_if_empty(self, run_id: str) -> None:
        """Remove the record of run `run_id` when it has no results (a review stopped before its
        first suite was stored), so no empty run is left behind."""
        with self.conn:
            self.conn.execute("DELETE FROM runs WHERE run_id = ? AND NOT EXISTS (SELECT 1 FROM results WHERE run_id = ?)", (run_id, run_id))

    def add_suite(self, run_id: str, drive: str, result: SuiteResult) -> None:
        """Store one suite's metrics, all or nothing."""
        rows = [
            (
                run_id,
                drive,
                result.name,
                m.key,
                m.pattern,
                m.condition,
                m.value,
                m.unit,
                m.title,
                json.dumps(m.utilization, sort_keys=True) if m.utilization else "",
            )
            for m in result.metrics
        ]
        with self.conn:
            self.conn.executemany(
                "INSERT INTO results (run_id, drive, suite, metric, pattern, condition, value, unit, title, utilization) VALUES (?,?,?,?,?,?,?,?,?,?)", rows
            )

    def latest(self, drives: list[str] | None = None, include_scaled: bool = False) -> pd.DataFrame:
        """Results of each drive's latest run (full-scale runs only unless told otherwise). The
        latest is the one recorded last (by insertion order, so two reviews started in the same
        second are never merged)."""
        query = """
            SELECT r.*, u.model, u.scale, u.started FROM results r JOIN runs u USING (run_id)
            WHERE u.rowid = (SELECT MAX(v.rowid) FROM runs v WHERE v.drive = u.drive AND (? OR v.scale >= 1.0)
                             AND EXISTS (SELECT 1 FROM results w WHERE w.run_id = v.run_id))
        """
        frame = pd.read_sql_query(query, self.conn, params=(1 if include_scaled else 0,))
        if drives:
            frame = frame[frame["drive"].isin(drives)]
        # ssdlab stores finite numbers only: anything else was put there by another program.
        values = pd.to_numeric(frame["value"], errors="coerce")
        bad = frame[values.isna() | values.abs().eq(float("inf"))]
        if len(bad):
            row = bad.iloc[0]
            shown = repr(row["value"]) if isinstance(row["value"], str) else row["value"]
            raise ResultsDatabaseError(
                f"{self.path}: the result {row['drive']} / {row['suite']} / {row['metric']} ({row['condition'] or 'no condition'}) "
                f"is {shown}, not a finite number (the database was changed outside ssdlab)"
            )
        return frame.assign(value=values.astype(float))

    def sweep_done_keys(self, sweep: str) -> set[str]:
        """Keys of the points of `sweep` that have a result (failed points run again)."""
        rows = self.conn.execute("SELECT point_key FROM sweep_points WHERE sweep = ? AND error IS NULL", (sweep,))
        return {r[0] for r in rows}

    def add_sweep_point(self, row: dict) -> None:
        """Store one point's outcome as it arrives (replacing an earlier failure of it)."""
        columns = [
            "sweep",
            "point_key",
            "point_index",
            "axes",
            "profile",
            "overrides",
            "profile_hash",
            "preconditions",
            "workload",
            "seed",
            "version",
            "summary",
            "error",
            "wall_seconds",
            "recorded",
        ]
        with self.conn:
            self.conn.execute(f"INSERT OR REPLACE INTO sweep_points ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", [row[c] for c in columns])

    def sweep_points(self, sweep: str) -> pd.DataFrame:
        """Every stored point of `sweep`, in point order."""
        return pd.read_sql_query("SELECT * FROM sweep_points WHERE sweep = ? ORDER BY point_index", self.conn, params=(sweep,))

    def close(self) -> None:
        self.conn.close()
