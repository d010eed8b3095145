"""The :class:`Drive` API: a simulated SSD driven from Python."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from ssdlab import _native, paths
from ssdlab import preconditions as pre
from ssdlab.errors import ConfigError, RequestError, WorkloadError

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


#: Most bytes one `Drive.read` returns (the bytes are built in memory).
MAX_READ_BYTES = 1 << 30

#: How preconditioning runs: ``"fast"`` (fast-forward: the FTL's work without timing, for
#: steps whose commands do not depend on time; docs/fast-forward.md) or ``"full"`` (timed,
#: as a measured run). Either way a step ends with the drive idle.
PRECONDITION_TIMINGS = ("fast", "full")


def _job_inputs(where: str, options, job, name, seed, data_file) -> tuple[object, str | None]:
    """The job of a run or fast-forward (from fio-style ``options`` or a job object, not both),
    with its seed and data file checked: (job, data file's checked path)."""
    if job is None:
        job = _native.job_from_options(_text(where, "name", name), _strings(where, "options", options))
    elif options is not None:
        raise TypeError(f"{where}: give options or job, not both")
    if seed is not None:
        _whole(where, "seed", seed)
    if data_file is not None:
        data_file = paths.input_file("data_file", data_file)
    return job, data_file


def _advance_until_done(advance, label: str, progress) -> float:
    """Call ``advance(n)`` (-> done, simulated s, fraction, completions) in slices sized by
    `_Slices` until it is done, reporting each slice to ``progress``; returns the wall seconds."""
    started = time.perf_counter()
    slices = _Slices()
    while True:
        done, sim_s, fraction, completed = slices.timed(advance)
        if progress is not None:
            progress(label, fraction if not done else 1.0, sim_s, completed)
        if done:
            return time.perf_counter() - started


def _whole(where: str, name: str, value: object, low: int = 0, high: int = 2**64 - 1) -> int:
    """`value` as a whole number from `low` to `high`, or an error naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where}: {name} must be a whole number (got {type(value).__name__} {value!r:.60})")
    if not low <= value <= high:
        raise RequestError(f"{where}: {name} must be {low} to {high} (got {value})")
    return value


def _strings(where: str, name: str, value: object) -> list[str]:
    """`value` as a list of strings: a lone string is refused (it would be read character by
    character), as is any item that is not a string."""
    if value is None:
        return []
    if isinstance(value, (str, bytes)):
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        # The fix shown is the one that works: one item per option ("rw=randwrite bs=4k" is two).
        hint = repr(text.split()[:4])[:80] if text.split() else repr([text])
        raise TypeError(f"{where}: {name} must be a list of strings, one item per option, not a single string (write {hint})")
    try:
        items = list(value)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{where}: {name} must be a list of strings (got {type(value).__name__})") from None
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{where}: every item of {name} must be a string (got {type(item).__name__} {item!r:.60})")
    return items


def _text(where: str, name: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where}: {name} must be a string (got {type(value).__name__} {value!r:.60})")
    return value


@dataclass
class RunResult:
    """What one job reports: the summary (a dict with the keys of ``ssdlab run --json``) and
    the per-second series as a data frame; for a job whose fio logs average over windows that
    are not whole seconds (``log_avg_msec``), those windows too (``end_ms``, ``span_ms``,
    ``ios``, ``read_bytes``, ``write_bytes``, ``latency_sum_ns``; ``None`` otherwise) and
    whether they stopped at their bound (``ssdlab_drive::MAX_LOG_WINDOWS``)."""

    summary: dict
    series: pd.DataFrame = field(repr=False)
    log_windows: pd.DataFrame | None = field(default=None, repr=False)
    log_windows_truncated: bool = False

    @property
    def write_amplification(self) -> float | None:
        """NAND bytes programmed / host bytes written (None when nothing was written)."""
        return self.summary["write_amplification"]

    @property
    def iops(self) -> float:
        """Commands completed per simulated second."""
        return self.summary["iops"]


#: Words of the memory check's refusal of a drive too large for the memory left
#: (`crates/ssdlab-core/src/memory_room.rs`, `refusal`).
_NO_ROOM = "the drive's tables need at least"


class Drive:
    """A simulated drive built from a profile (built-in name or TOML path).

    ``overrides`` are ``section.field=value`` strings, as ``--set`` on the command line.
    ``seed`` drives every random choice: each job draws its own seed from it in order.
    ``content`` is ``"modeled"`` (fingerprints and compressed sizes drawn from the pattern's
    measured distribution; fast) or ``"real"`` (real bytes, really hashed and compressed, and
    readable with :meth:`read` and :meth:`read_sector`); it matters only for drives with data
    reduction. A real-bytes drive keeps its stored data in memory, at most
    ``real_bytes_limit`` bytes (default 8 GiB): a write beyond it fails with a clear error.
    A drive may be used from any thread; calls on one drive take turns, a whole run or replay
    being one turn (a second thread's run starts when the first has finished, so each summary
    counts only its own commands). :meth:`close` (or a ``with`` block) releases the drive.
    ``precondition_timing`` is how :meth:`precondition` runs its steps by default (see
    ``PRECONDITION_TIMINGS``).
    """

    def __init__(
        self,
        profile: str = DEFAULT_PROFILE,
        overrides: Sequence[str] = (),
        seed: int = 1,
        track_tags: bool = False,
        content: str = "modeled",
        real_bytes_limit: int = 8 << 30,
        precondition_timing: str = "fast",
    ) -> None:
        self._turn = threading.RLock()
        self._native_drive = None
        _text("Drive", "profile", profile)
        overrides = _strings("Drive", "overrides", overrides)
        if isinstance(seed, int) and not isinstance(seed, bool) and not 0 <= seed < 2**64:
            raise WorkloadError(f"seed must be between 0 and 2^64-1 (got {seed})")
        _whole("Drive", "seed", seed)
        if isinstance(real_bytes_limit, int) and not isinstance(real_bytes_limit, bool) and not 0 <= real_bytes_limit < 2**64:
            raise WorkloadError(f"real_bytes_limit must be between 0 and 2^64-1 bytes (got {real_bytes_limit})")
        _whole("Drive", "real_bytes_limit", real_bytes_limit)
        if not isinstance(track_tags, bool):
            raise TypeError(f"Drive: track_tags must be True or False (got {type(track_tags).__name__})")
        _text("Drive", "content", content)
        _check_profile_file(profile)
        self._track_tags = track_tags
        self.precondition_timing = _timing("Drive", precondition_timing)
        try:
            self._native_drive = _native.NativeDrive(profile, overrides, seed, track_tags, content, real_bytes_limit)
        except ConfigError as error:
            # A drive dropped in a reference cycle keeps its tables until Python's cycle
            # collector runs (a suite's frame held by an exception's traceback, as matplotlib's
            # text parsing leaves them, holds the suite's drive). When the memory check refuses
            # this drive (`memory_room.rs`), collect such drives and try once more.
            if _NO_ROOM not in str(error) or gc.collect() == 0:
                raise
            self._native_drive = _native.NativeDrive(profile, overrides, seed, track_tags, content, real_bytes_limit)
        self.info: dict = self._native.info()

    @property
    def _native(self):
        if self._native_drive is None:
            raise RequestError("this drive is closed")
        return self._native_drive

    def close(self) -> None:
        """Release the drive (its memory); later calls raise. Waits for a run in progress on
        another thread to finish its turn."""
        with self._turn:
            self._native_drive = None

    def __enter__(self) -> Drive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        with self._turn:
            return self._native.state()

    def secure_erase(self) -> float:
        """ATA SECURE ERASE; returns the simulated seconds it took."""
        with self._turn:
            return self._native.secure_erase()

    def flush(self) -> float:
        """FLUSH CACHE; returns the simulated seconds it took."""
        with self._turn:
            return self._native.flush()

    def idle(self, seconds: float) -> int:
        """Stay idle for ``seconds`` (idle-time GC works); returns blocks reclaimed."""
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise TypeError(f"Drive.idle: seconds must be a number (got {type(seconds).__name__})")
        with self._turn:
            return self._native.idle(float(seconds))

    def set_power_state(self, state: int) -> float:
        """Set Features, Power Management: move to NVMe power state ``state`` (PS0 = 0) on a drive
        whose profile has ``[power]``. An operational state becomes the state the drive works in;
        a non-operational one is a rest the drive stays in until a command arrives. Returns the
        simulated seconds the transition took."""
        state = _whole("Drive.set_power_state", "state", state, 0, 31)
        with self._turn:
            return self._native.set_power_state(state)

    def set_apst(self, on: bool) -> None:
        """Set Features, Autonomous Power State Transition: APST on or off (on at power-on when the
        profile has an APST table)."""
        if not isinstance(on, bool):
            raise TypeError(f"Drive.set_apst: on must be True or False (got {type(on).__name__})")
        with self._turn:
            self._native.set_apst(on)

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
        the 4 KiB blocks of ``data_file`` in order (the whole file, streamed with bounded
        memory; started again from its beginning only when the run writes more than it holds,
        which the summary's ``data_file`` says), so real files go through the data-reduction
        engine. Releases the GIL while
        simulating; Ctrl-C raises ``KeyboardInterrupt`` between slices."""
        if progress is not None and not callable(progress):
            # (Checked before the run: it failed after the first slice had been simulated.)
            raise TypeError(f"Drive.run: progress must be a callable (label, fraction, simulated_seconds, completed) or None (got {type(progress).__name__})")
        with self._turn:
            return self._run(options, job, name, seed, progress, data_file)

    def _run(self, options, job, name, seed, progress, data_file) -> RunResult:
        job, data_file = _job_inputs("Drive.run", options, job, name, seed, data_file)
        native_run = self._native.start_run(job, seed, data_file)
        wall = _advance_until_done(lambda n: self._native.advance(native_run, n), job.name, progress)
        summary = self._native.run_summary(native_run, wall)
        _note_data_file(summary, data_file)
        series = pd.DataFrame({k: v for k, v in native_run.series_columns()})
        if not series.empty:
            series["second"] = series["second"].astype("int64")
            series["free_blocks"] = series["free_blocks"].astype("int64")
        columns, truncated = native_run.log_window_columns() or (None, False)
        log_windows = pd.DataFrame(dict(columns)) if columns is not None else None
        return RunResult(summary=summary, series=series, log_windows=log_windows, log_windows_truncated=truncated)

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
        large_pattern: str | None = None,
        large_bytes: int = 65536,
        volume: str | None = None,
    ) -> RunResult:
        """Replay a block trace (only its first ``max_requests`` when given). ``mode="queue-depth"`` issues requests as fast as the drive
        allows while keeping each request's queue depth from the trace (the Storage Bench way);
        ``mode="timestamps"`` issues them at their recorded times times ``time_scale``. Writes
        carry ``pattern`` data (or the blocks of ``data_file``). Addresses beyond the drive are an
        error unless ``remap``. ``time_unit`` (``ns``, ``us``, ``ms``, ``s``) overrides the
        unit of the format's timestamps (MQSim's DiskSim-style traces use nanoseconds). With
        ``large_pattern``, writes of at least ``large_bytes`` carry that pattern instead (a
        workload whose large transfers are media, archives and downloads). ``volume`` picks one
        volume of a trace of several (its identifier as the trace writes it: ``0``, ``hm,0``,
        ``8,16``); without it a second volume is an error. A trace that records content hashes
        (FIU) names what each write holds (docs/model.md, Traces)."""
        with self._turn:
            path = paths.input_file("trace", path)
            if data_file is not None:
                data_file = paths.input_file("data_file", data_file)
            if volume is not None and not isinstance(volume, str):
                raise TypeError(f"Drive.replay: volume must be a string (got {type(volume).__name__})")
            if seed is not None:
                _whole("Drive.replay", "seed", seed)
            if max_requests is not None:
                _whole("Drive.replay", "max_requests", max_requests)
            if isinstance(time_scale, bool) or not isinstance(time_scale, (int, float)):
                raise TypeError(f"Drive.replay: time_scale must be a number (got {type(time_scale).__name__})")
            _whole("Drive.replay", "large_bytes", large_bytes, 1)
            large = (large_pattern, large_bytes) if large_pattern is not None else None
            return self._replay(
                path, format, mode, float(time_scale), remap, skip_bad, pattern, seed, max_requests, progress, time_unit, data_file, large, volume
            )

    def _replay(
        self, path, format, mode, time_scale, remap, skip_bad, pattern, seed, max_requests, progress, time_unit, data_file, large=None, volume=None
    ) -> RunResult:
        large_pattern, large_bytes = large if large is not None else (None, 65536)
        native_replay = self._native.start_replay(
            path, format, mode, time_scale, remap, skip_bad, pattern, seed, max_requests, time_unit, data_file, large_pattern, large_bytes, volume
        )
        started = time.perf_counter()
        slices = _Slices()
        while True:
            done, sim_s, completed = slices.timed(lambda n: self._native.advance_replay(native_replay, n))
            if progress is not None:
                progress(f"replay {path}", 1.0 if done else 0.0, sim_s, completed)
            if done:
                break
        summary = self._native.replay_summary(native_replay, time.perf_counter() - started)
        _note_data_file(summary, data_file)
        return RunResult(summary=summary, series=pd.DataFrame())

    def wait_until_idle(self) -> float:
        """Wait until the drive has finished everything booked so far (buffered programs, GC
        already started); returns the simulated seconds waited."""
        with self._turn:
            return self._native.wait_until_idle()

    def fast_forward(
        self,
        options: Sequence[str] | None = None,
        *,
        job: object | None = None,
        name: str = "job",
        seed: int | None = None,
        progress: ProgressCallback | None = None,
        data_file: str | None = None,
    ) -> dict:
        """Do a write or TRIM job without timing (fast-forward): the FTL places the data, GC
        and wear happen as in a timed run of the job, nothing is booked, and the drive ends idle
        at a well-defined simulated time (its start plus what its busiest resource needed).
        Only jobs whose commands do not depend on time qualify (one job, writes and TRIMs,
        ended by size or count); others raise ``WorkloadError``. Returns a summary (``timing``:
        ``"fast-forward"``, ``ios``, ``write_amplification``, ``seed``, ``simulated_seconds``...)."""
        with self._turn:
            job, data_file = _job_inputs("Drive.fast_forward", options, job, name, seed, data_file)
            native = self._native.start_fast_forward(job, seed, data_file)
            wall = _advance_until_done(lambda n: self._native.advance_fast_forward(native, n), job.name, progress)
            return self._native.fast_forward_summary(native, wall)

    def check_job(self, job: object) -> None:
        """Raise if ``job`` cannot run on this drive (span beyond capacity, thinktime past the clock)."""
        self._native.check_job(job)

    def precondition(self, step: str, progress: ProgressCallback | None = None, timing: str | None = None) -> dict:
        """Apply one preconditioning step (see :mod:`ssdlab.preconditions`); returns a record of
        it. Fills and TRIMs are fast-forwarded (``timing="fast"``, the drive's default) or run
        with timing (``"full"``); either way the step ends with the drive idle."""
        pre.parse(_text("Drive.precondition", "step", step))
        timing = self.precondition_timing if timing is None else _timing("Drive.precondition", timing)
        with self._turn:
            return self._precondition(step, progress, timing)

    def _precondition(self, step: str, progress: ProgressCallback | None, timing: str = "full") -> dict:
        started = self.now_seconds
        # A secure erase or an idle period is done by the native drive; a fill or TRIM comes
        # back as its job (ssdlab.preconditions: one definition in Rust).
        kind, job, reclaimed = self._native.start_precondition(step)
        record: dict = {"step": step}
        if kind == "idle":
            record["blocks_reclaimed"] = reclaimed
        elif job is not None:
            if timing == "fast":
                summary = self.fast_forward(job=job, progress=progress)
            else:
                summary = self.run(job=job, progress=progress).summary
                self.wait_until_idle()
            record.update(write_amplification=summary["write_amplification"], seed=summary["seed"], timing=timing)
        record["simulated_seconds"] = self.now_seconds - started
        return record

    def write(self, offset: int, data: bytes) -> float:
        """Write ``data`` at byte ``offset`` (both in whole 512-byte sectors) as one command and
        wait for it; returns the simulated seconds it took. On a data-reduction drive the bytes
        go through the engine (hash, dedup, compression)."""
        _whole("Drive.write", "offset", offset)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"Drive.write: data must be bytes (got {type(data).__name__})")
        with self._turn:
            return self._native.write(offset, bytes(data))

    def read(self, offset: int, length: int) -> bytes:
        """Read ``length`` bytes at byte ``offset`` as one command and wait for it (drives that
        keep their bytes: data-reduction profiles with ``content="real"``)."""
        _whole("Drive.read", "offset", offset)
        _whole("Drive.read", "length", length, 0, MAX_READ_BYTES)
        with self._turn:
            usable = self.info.get("usable_bytes") or self.info.get("capacity_bytes_user")
            if usable is not None and offset + length > usable:
                raise RequestError(f"Drive.read: {length} bytes at {offset} reach beyond the drive's {usable} bytes")
            data, _ = self._native.read(offset, length)
        return data

    def read_sector(self, sector: int) -> bytes:
        """The 4096 bytes of a logical sector (data-reduction drives with ``content="real"``)."""
        _whole("Drive.read_sector", "sector", sector)
        with self._turn:
            return self._native.read_sector(sector)

    def read_tag(self, sector: int) -> int:
        """Content tag of a 4 KiB logical sector (drives built with ``track_tags=True``); 0 when
        the sector was never written or was trimmed. Tags count from 1 since the drive was
        built: a write command of n sectors takes the next n + 1 numbers, the first n for its
        sectors in order (so a test can know what each sector must hold from the writes it
        made)."""
        _whole("Drive.read_tag", "sector", sector)
        if not self._track_tags:
            raise RequestError("Drive.read_tag: this drive does not track content tags; build it with Drive(..., track_tags=True)")
        with self._turn:
            return self._native.read_tag(sector)


def _timing(where: str, timing: object) -> str:
    """A precondition timing (``PRECONDITION_TIMINGS``), or an error naming the choices."""
    if timing not in PRECONDITION_TIMINGS:
        raise WorkloadError(f"{where}: precondition timing must be one of {', '.join(PRECONDITION_TIMINGS)} (got {timing!r:.60})")
    return str(timing)


def fast_forward_refusal(job: object) -> str | None:
    """Why ``job`` (from :func:`jobs_from_file` or ``_native.job_from_options``) cannot be
    fast-forwarded, or None when it can."""
    return _native.NativeDrive.fast_forward_refusal(job)


def _note_data_file(summary: dict, data_file: str | None) -> None:
    """Say in the summary which data file the writes carried and how many times over: the
    file is streamed whole and started again only when the run writes more than it holds
    (passes > 1). Passes = 4 KiB sectors written / 4 KiB blocks of the file."""
    if data_file is None:
        return
    import os

    size = os.stat(data_file).st_size
    blocks = -(-size // 4096)
    written = (summary.get("host_write_bytes") or 0) // 4096
    passes = written / blocks if blocks else 0.0
    summary["data_file"] = {"path": data_file, "bytes": size, "passes": round(passes, 4), "cycled": passes > 1}
    summary["data_pattern"] = f"file {data_file}"


def jobs_from_file(path: str, overrides: Sequence[str] = ()) -> list:
    """The groups of jobs of an fio job file, to pass as ``Drive.run(job=...)`` one after the
    other (the jobs of a group run side by side); ``overrides`` (``key=value``) apply to every
    job after the file's own options, as fio's command line does. ``-`` reads the job file from
    standard input, as ``fio -`` does (at most :data:`paths.MAX_TEXT_FILE_BYTES` are read, so an
    endless input is refused, not waited on; includes are relative to the current folder)."""
    overrides = _strings("jobs_from_file", "overrides", overrides)
    if path == "-":
        return _native.jobs_from_bytes(STDIN_ORIGIN, paths.read_stdin("job file -", paths.MAX_TEXT_FILE_BYTES), overrides)
    checked = paths.input_file("job file", path, paths.MAX_TEXT_FILE_BYTES)
    return _native.jobs_from_file(checked, overrides)


#: How a job file read from standard input is named in messages (``<stdin>:3: ...``).
STDIN_ORIGIN = "<stdin>"


def _check_profile_file(name_or_path: str) -> None:
    """A profile given as a path (not a built-in name) must be a readable TOML file of sane
    size: checked here (`paths.input_file`), with one clear error, before Rust reads it."""
    if name_or_path not in profile_names() and ("/" in name_or_path or name_or_path.endswith(".toml")):
        paths.input_file("profile", name_or_path, paths.MAX_TEXT_FILE_BYTES)


def profile_names() -> list[str]:
    """Names of the built-in profiles."""
    return list(_native.profile_names())


def profile_source(name_or_path: str, overrides: Sequence[str] = ()) -> str:
    """TOML text of a profile after overrides (validated)."""
    name_or_path = _text("profile_source", "name_or_path", name_or_path)
    overrides = _strings("profile_source", "overrides", overrides)
    _check_profile_file(name_or_path)
    return _native.profile_source(name_or_path, overrides)


def profile_info(name_or_path: str, overrides: Sequence[str] = (), content: str = "modeled") -> dict:
    """The facts ``Drive(name_or_path, overrides, content=content).info`` holds (names,
    capacities, spare ratios, geometry, idle power), without building the drive: a large drive's
    tables take seconds and gigabytes to make."""
    name_or_path = _text("profile_info", "name_or_path", name_or_path)
    overrides = _strings("profile_info", "overrides", overrides)
    content = _text("profile_info", "content", content)
    _check_profile_file(name_or_path)
    return _native.profile_info(name_or_path, overrides, content)


def release_memory() -> int:
    """Give the memory of dropped drives back to the system; returns the bytes given back.

    A process keeps the large tables of the drives it dropped (blocks of 32 MiB and up, at
    most 4 GiB in all) for the next drive it builds, which takes them instead of fresh pages the
    kernel must zero (a review, a sweep or a calibration builds drive after drive in the same
    worker processes); a table none of them fits gives them back first. Call this when a
    long-lived process is done with drives for a while."""
    return _native.release_memory()
