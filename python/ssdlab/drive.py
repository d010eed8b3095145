"""The :class:`Drive` API: a simulated SSD driven from Python."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from ssdlab import _native
from ssdlab import preconditions as pre
from ssdlab.errors import WorkloadError

#: Called during long runs with (job name, fraction done 0..1, simulated seconds, completed IOs).
ProgressCallback = Callable[[str, float, float, int], None]

DEFAULT_PROFILE = "force-gs-240"

# Completions simulated per slice between progress reports and Ctrl-C checks: the first slice,
# then sized so that a slice takes about _SLICE_WALL_S of wall time whatever a completion costs
# (Ctrl-C and SIGTERM are seen between slices, so a run stops within about that long).
_SLICE_COMPLETIONS = 2_000
_SLICE_WALL_S = 0.1
_SLICE_LIMITS = (500, 2_000_000)


class _Slices:
    """Slice sizes that follow the measured wall time per completion."""

    def __init__(self) -> None:
        self.size = _SLICE_COMPLETIONS

    def timed(self, step):
        """Run ``step(size)``, then size the next slice from how long this one took."""
        started = time.perf_counter()
        out = step(self.size)
        elapsed = time.perf_counter() - started
        wanted = self.size * _SLICE_WALL_S / max(elapsed, 1e-6)
        self.size = int(min(max(wanted, self.size / 4, _SLICE_LIMITS[0]), self.size * 4, _SLICE_LIMITS[1]))
        return out


@dataclass
class RunResult:
    """What one job reports: the summary (a dict with the keys of ``ssdlab run --json``) and
    the per-second series as a data frame."""

    summary: dict
    series: pd.DataFrame = field(repr=False)

    @property
    def write_amplification(self) -> float | None:
        """NAND bytes programmed / host bytes written (None when nothing was written)."""
        return self.summary["write_amplification"]

    @property
    def iops(self) -> float:
        """Commands completed per simulated second."""
        return self.summary["iops"]


class Drive:
    """A simulated drive built from a profile (built-in name or TOML path).

    ``overrides`` are ``section.field=value`` strings, as ``--set`` on the command line.
    ``seed`` drives every random choice: each job draws its own seed from it in order.
    ``content`` is ``"modeled"`` (fingerprints and compressed sizes drawn from the pattern's
    measured distribution; fast) or ``"real"`` (real bytes, really hashed and compressed, and
    readable with :meth:`read` and :meth:`read_sector`); it matters only for drives with data
    reduction. A real-bytes drive keeps its stored data in memory, at most
    ``real_bytes_limit`` bytes (default 8 GiB): a write beyond it fails with a clear error.
    A drive may be used from any thread; calls on one drive take turns.
    """

    def __init__(
        self,
        profile: str = DEFAULT_PROFILE,
        overrides: Sequence[str] = (),
        seed: int = 1,
        track_tags: bool = False,
        content: str = "modeled",
        real_bytes_limit: int = 8 << 30,
    ) -> None:
        if seed < 0 or seed >= 2**64:
            raise WorkloadError(f"seed must be between 0 and 2^64-1 (got {seed})")
        if real_bytes_limit < 0 or real_bytes_limit >= 2**64:
            raise WorkloadError(f"real_bytes_limit must be between 0 and 2^64-1 bytes (got {real_bytes_limit})")
        self._native = _native.NativeDrive(profile, list(overrides), seed, track_tags, content, real_bytes_limit)
        self.info: dict = self._native.info()

    @property
    def now_seconds(self) -> float:
        """Simulated time since power-on."""
        return self._native.now_ns / 1e9

    @property
    def seed(self) -> int:
        """The seed every job seed is drawn from."""
        return self._native.seed

    def state(self) -> dict:
        """Free blocks, wear and cumulative counters."""
        return self._native.state()

    def secure_erase(self) -> float:
        """ATA SECURE ERASE; returns the simulated seconds it took."""
        return self._native.secure_erase()

    def flush(self) -> float:
        """FLUSH CACHE; returns the simulated seconds it took."""
        return self._native.flush()

    def idle(self, seconds: float) -> int:
        """Stay idle for ``seconds`` (idle-time GC works); returns blocks reclaimed."""
        return self._native.idle(float(seconds))

    def run(
        self,
        options: Sequence[str] | None = None,
        *,
        job: object | None = None,
        name: str = "job",
        seed: int | None = None,
        progress: ProgressCallback | None = None,
        data_file: str | None = None,
    ) -> RunResult:
        """Run one job closed-loop: fio-style ``options`` (``["rw=randwrite", "bs=4k", ...]``)
        or a job object from :func:`jobs_from_file` (a group of jobs run side by side, sharing
        the drive's queue; ``numjobs`` copies likewise). Writes carry the job's data pattern, or
        the 4 KiB blocks of ``data_file`` in order (cycling; the first 256 MiB of a longer
        file), so real files go through the data-reduction engine. Releases the GIL while
        simulating; Ctrl-C raises ``KeyboardInterrupt`` between slices."""
        if job is None:
            job = _native.job_from_options(name, list(options or []))
        native_run = self._native.start_run(job, seed, data_file)
        started = time.perf_counter()
        slices = _Slices()
        while True:
            done, sim_s, fraction, completed = slices.timed(lambda n: self._native.advance(native_run, n))
            if progress is not None:
                progress(job.name, fraction if not done else 1.0, sim_s, completed)
            if done:
                break
        wall = time.perf_counter() - started
        summary = self._native.run_summary(native_run, wall)
        series = pd.DataFrame({k: v for k, v in native_run.series_columns()})
        if not series.empty:
            series["second"] = series["second"].astype("int64")
            series["free_blocks"] = series["free_blocks"].astype("int64")
        return RunResult(summary=summary, series=series)

    def replay(
        self,
        path: str,
        *,
        format: str | None = None,
        mode: str = "queue-depth",
        time_scale: float = 1.0,
        remap: bool = False,
        skip_bad: bool = False,
        pattern: str = "text",
        seed: int | None = None,
        max_requests: int | None = None,
        progress: ProgressCallback | None = None,
        time_unit: str | None = None,
        data_file: str | None = None,
    ) -> RunResult:
        """Replay a block trace (only its first ``max_requests`` when given). ``mode="queue-depth"`` issues requests as fast as the drive
        allows while keeping each request's queue depth from the trace (the Storage Bench way);
        ``mode="timestamps"`` issues them at their recorded times times ``time_scale``. Writes
        carry ``pattern`` data (or the blocks of ``data_file``). Addresses beyond the drive are an
        error unless ``remap``. ``time_unit`` (``ns``, ``us``, ``ms``, ``s``) overrides the
        unit of the format's timestamps (MQSim's DiskSim-style traces use nanoseconds)."""
        native_replay = self._native.start_replay(path, format, mode, time_scale, remap, skip_bad, pattern, seed, max_requests, time_unit, data_file)
        started = time.perf_counter()
        slices = _Slices()
        while True:
            done, sim_s, completed = slices.timed(lambda n: self._native.advance_replay(native_replay, n))
            if progress is not None:
                progress(f"replay {path}", 1.0 if done else 0.0, sim_s, completed)
            if done:
                break
        summary = self._native.replay_summary(native_replay, time.perf_counter() - started)
        return RunResult(summary=summary, series=pd.DataFrame())

    def check_job(self, job: object) -> None:
        """Raise if ``job`` cannot run on this drive (span beyond capacity, thinktime past the clock)."""
        self._native.check_job(job)

    def precondition(self, step: str, progress: ProgressCallback | None = None) -> dict:
        """Apply one preconditioning step (see :mod:`ssdlab.preconditions`); returns a record of it."""
        kind, seconds = pre.parse(step)
        started = self.now_seconds
        if kind == "secure-erase":
            self.secure_erase()
            record: dict = {"step": step}
        elif kind == "idle":
            reclaimed = self.idle(seconds or 0.0)
            record = {"step": step, "blocks_reclaimed": reclaimed}
        else:
            if kind == "seq-fill":
                options = pre.SEQUENTIAL_FILL
            elif kind == "rand-fill":
                options = pre.RANDOM_FILL + [f"io_size={2 * self.info['usable_bytes']}"]
            else:
                options = pre.TRIM_ALL
            result = self.run(options, name=kind, progress=progress)
            record = {"step": step, "write_amplification": result.write_amplification, "seed": result.summary["seed"]}
        record["simulated_seconds"] = self.now_seconds - started
        return record

    def write(self, offset: int, data: bytes) -> float:
        """Write ``data`` at byte ``offset`` (both in whole 512-byte sectors) as one command and
        wait for it; returns the simulated seconds it took. On a data-reduction drive the bytes
        go through the engine (hash, dedup, compression)."""
        return self._native.write(offset, bytes(data))

    def read(self, offset: int, length: int) -> bytes:
        """Read ``length`` bytes at byte ``offset`` as one command and wait for it (drives that
        keep their bytes: data-reduction profiles with ``content="real"``)."""
        data, _ = self._native.read(offset, length)
        return data

    def read_sector(self, sector: int) -> bytes:
        """The 4096 bytes of a logical sector (data-reduction drives with ``content="real"``)."""
        return self._native.read_sector(sector)

    def read_tag(self, sector: int) -> int:
        """Content tag of a 4 KiB logical sector (drives built with ``track_tags=True``)."""
        return self._native.read_tag(sector)


def jobs_from_file(path: str, overrides: Sequence[str] = ()) -> list:
    """The groups of jobs of an fio job file, to pass as ``Drive.run(job=...)`` one after the
    other (the jobs of a group run side by side); ``overrides`` (``key=value``) apply to every
    job after the file's own options, as fio's command line does."""
    return _native.jobs_from_file(path, list(overrides))


def profile_names() -> list[str]:
    """Names of the built-in profiles."""
    return list(_native.profile_names())


def profile_source(name_or_path: str, overrides: Sequence[str] = ()) -> str:
    """TOML text of a profile after overrides (validated)."""
    return _native.profile_source(name_or_path, list(overrides))
