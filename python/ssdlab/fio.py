"""fio's ways around a run: its job-file argument, the layout of a job's span before it reads,
the warning for reads of never-written space, fio's log files and fio's JSON output shape.

The job file itself is parsed in the core (``ssdlab-workload``); this module only arranges what
fio does around it.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from ssdlab import __version__, fio_cli_options, job_errors, paths
from ssdlab.errors import SsdlabError
from ssdlab.report_text import bytes_text

#: The job of a bare ``ssdlab run`` (no options, no job file): 4 KiB random writes at QD32 for a
#: simulated minute on the fresh drive. fio itself refuses to run without a size; the fio
#: defaults (``rw=read``) would read a drive nobody wrote, which a drive answers from its map
#: without touching NAND, so they would measure the link, not the drive.
BARE_RUN_OPTIONS = ["rw=randwrite", "bs=4k", "iodepth=32", "runtime=60", "time_based"]

#: The block of the job that lays out a span: 128 KiB sequential writes at QD32.
LAYOUT_BLOCK = 128 * 1024


#: fio's command-line options about its progress display, which ssdlab's own progress replaces.
DISPLAY_OPTIONS = ("eta", "eta-newline", "eta_newline", "eta-interval", "eta_interval", "status-interval", "status_interval")


class FioCommandLine(NamedTuple):
    """What `command_line_only` takes out of a run's fio options."""

    #: The job options.
    options: list[str]
    #: fio's ``--output=FILE`` (None when not given).
    output: str | None
    #: The display and other no-effect options given.
    display: list[str]
    #: fio's ``--minimal`` (terse output only) was given.
    minimal: bool = False
    #: fio's ``--append-terse`` (terse output too) was given.
    append_terse: bool = False
    #: fio's ``--terse-version`` (3 unless given).
    terse_version: int = fio_cli_options.DEFAULT_TERSE_VERSION


#: fio's output options that take no value (getopt's ``no_argument``).
_TERSE_FLAGS = ("minimal", "append-terse", "append_terse")


def command_line_only(options: list[str]) -> FioCommandLine:
    """fio's options of its command line that are not job options: ``output=FILE`` (where fio
    writes what it prints), its terse output (``minimal``, ``append-terse``, ``terse-version``)
    and its progress display (``eta``, ``status-interval``, ...), which ssdlab's progress
    replaces. fio's other options of its own (``--readonly``, ...) are refused with the reason,
    or listed with the display options when they change nothing (``fio_cli_options``)."""
    rest: list[str] = []
    output = None
    display: list[str] = []
    minimal = append_terse = False
    version = fio_cli_options.DEFAULT_TERSE_VERSION
    for item in options:
        key, equals, value = item.partition("=")
        fio_cli_options.refuse(key)
        if key == "output":
            if not value.strip():
                raise SsdlabError("--output: give a file name (fio writes what it prints there)")
            output = value
        elif key in _TERSE_FLAGS:
            if equals:
                raise SsdlabError(f"--{key} takes no value (given {value!r})")
            minimal = minimal or key == "minimal"
            append_terse = append_terse or key != "minimal"
        elif key.replace("_", "-") == "terse-version":
            version = fio_cli_options.terse_version(value)
        elif key in DISPLAY_OPTIONS or fio_cli_options.no_effect(key):
            display.append(key)
        else:
            rest.append(item)
    return FioCommandLine(rest, output, display, minimal, append_terse, version)


#: fio's options that take no value on its command line (fio's FIO_OPT_STR_SET: getopt's
#: optional argument, given only as ``--time_based=1``): the word after one is not its value,
#: so ``--time_based job.fio`` names a job file, as in fio.
FLAG_OPTIONS = frozenset(
    {
        "time_based",
        "group_reporting",
        "stonewall",
        "wait_for_previous",
        "new_group",
        "thread",
        "exitall",
        "exitall_on_error",
        "norandommap",
        "zero_buffers",
        "refill_buffers",
    }
)


def takes_next_word(option: str) -> bool:
    """Whether ``--option WORD`` gives WORD as the option's value (``--bs 4k``), as fio's
    command line reads it."""
    name = option[2:]
    return option.startswith("--") and "=" not in option and name not in FLAG_OPTIONS and name.replace("_", "-") not in fio_cli_options.FLAGS


def split_job_file(args: list[str]) -> tuple[str | None, list[str]]:
    """The job file given as ``ssdlab run job.fio`` (fio's own form; ``-`` for standard input),
    and the other arguments."""
    # Anything that exists counts (a folder or FIFO given as the job file is then refused as
    # such by the input check, not taken for a stray argument).
    # `-` is the job file read from standard input (`fio -`).
    files = [a for a in args if a == "-" or (not a.startswith("-") and (a.endswith((".fio", ".job", ".ini")) or os.path.lexists(a)))]
    # A value written after its option (`--bs 4k`) is not a job file.
    candidates = []
    for index, arg in enumerate(args):
        if arg in files and not (index > 0 and takes_next_word(args[index - 1])):
            candidates.append(arg)
    if len(candidates) > 1:
        raise SsdlabError(f"give one job file, not {len(candidates)} ({', '.join(candidates)})")
    if not candidates:
        return None, args
    rest = list(args)
    rest.remove(candidates[0])
    return candidates[0], rest


def merged_spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Byte spans ``(start, length)`` merged where they overlap or touch, in order."""
    out: list[list[int]] = []
    for start, length in sorted(spans):
        end = start + length
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(s, e - s) for s, e in out]


def whole_blocks_then_tail(start: int, length: int) -> list[tuple[int, int, int]]:
    """The runs ``(offset, size, block size)`` that cover a span: whole 128 KiB blocks, then
    the span's tail as one command of its own (a job issues no partial block, as fio's; fio's
    layout and ``pre_read`` cover a file's tail with a shorter command)."""
    whole = length // LAYOUT_BLOCK * LAYOUT_BLOCK
    pieces = [(start, whole, LAYOUT_BLOCK), (start + whole, length - whole, length - whole)]
    return [piece for piece in pieces if piece[1] > 0]


def lay_out(drive, jobs: list, progress=None) -> dict:
    """Write every span the jobs will touch once, 128 KiB sequential at QD32 (what fio does when
    it lays out a job's file before the job). Returns a record of it."""
    capacity = drive.info["usable_bytes"]
    spans = merged_spans(span for job in jobs for span in job.spans(capacity))
    started = drive.now_seconds
    written = 0
    for start, length in spans:
        for offset, size, block in whole_blocks_then_tail(start, length):
            options = ["rw=write", f"bs={block}", "iodepth=32", f"offset={offset}", f"size={size}"]
            drive.run(options, name="layout", progress=progress)
        written += length
    return {"step": "layout", "bytes_written": written, "spans": len(spans), "simulated_seconds": drive.now_seconds - started}


def pre_read(drive, job, progress=None) -> None:
    """fio's ``pre_read``: read the job's spans once before it, unmeasured."""
    capacity = drive.info["usable_bytes"]
    for start, length in merged_spans(job.spans(capacity)):
        for offset, size, block in whole_blocks_then_tail(start, length):
            drive.run(["rw=read", f"bs={block}", "iodepth=32", f"offset={offset}", f"size={size}"], name="pre_read", progress=progress)


def unwritten_read_warning(summaries: list[dict], remedy: str = "lay the span out first with --precondition layout (as fio does) or seq-fill") -> str | None:
    """One warning line when the jobs (or a replay) read sectors nobody wrote, or ``None`` (also
    when nothing was read). Sizes in the unit they reach (8.19 kB, not 0.000 GB)."""
    unmapped = sum(s.get("unmapped_read_bytes", 0) for s in summaries)
    read = sum(s.get("host_read_bytes", 0) for s in summaries)
    if unmapped == 0 or read == 0:
        return None
    share = min(unmapped / read, 1.0) * 100
    percent = "under 1%" if share < 1 else f"{share:.0f}%"
    return (
        f"{bytes_text(unmapped)} of the {bytes_text(read)} read ({percent}) were never written (or were trimmed): "
        f"a drive answers those from its map without touching NAND, so these reads measure the link, not the flash; {remedy}"
    )


#: fio's log options and the files each writes (``PREFIX_SUFFIX.N.log``). fio writes one file per
#: thread, numbered from 1 across the job file; ssdlab writes one per group of jobs (their sum),
#: numbered by the group's place in the job file (1 for the first), so two groups that name the
#: same log prefix write two files, as in fio, instead of the second replacing the first.
LOG_FILES = {"bw": ("write_bw_log", ["bw"]), "iops": ("write_iops_log", ["iops"]), "lat": ("write_lat_log", ["lat", "clat", "slat"])}


def log_paths(job, folder: Path = Path("."), number: int = 1) -> list[tuple[str, Path]]:
    """The log files group `number` (from 1, its place in the job file) writes, as
    ``(option, path)``: what `write_logs` writes, so the command line can check them before
    the run."""
    logs = job.logs
    return [(option, _log_path(folder, logs, key, suffix, number)) for key, (option, suffixes) in LOG_FILES.items() if key in logs for suffix in suffixes]


def _log_path(folder: Path, logs: dict, key: str, suffix: str, number: int) -> Path:
    """fio's name of a log file: ``PREFIX_SUFFIX.NUMBER.log``, or ``PREFIX_SUFFIX.log`` with
    fio's ``per_job_logs=0`` (`logs["shared"]`), where every job's rows go in one file."""
    if logs.get("shared") == "1":
        return folder / f"{logs[key]}_{suffix}.log"
    return folder / f"{logs[key]}_{suffix}.{number}.log"


def write_logs(job, result, folder: Path = Path("."), number: int = 1, earlier: dict[Path, str] | None = None) -> list[Path]:
    """fio's ``write_bw_log``/``write_lat_log``/``write_iops_log`` files for group `number` of jobs,
    in fio's format (``msec, value, direction, bs, offset, priority``), one row per direction
    per window of ``log_avg_msec`` (windowed logging: bs and offset 0, as fio writes them).
    Whole seconds come from the per-second series; other windows from the run's own windows
    (``RunResult.log_windows``). Bandwidth in KiB/s, latency in ns, IOPS. Per-IO logging (fio's
    default without ``log_avg_msec``) is written per second; IOPS and latency rows of a mixed
    job carry both directions together under the reads' 0. `earlier` holds what this run has
    written to each file so far: a file shared by several groups (``per_job_logs=0``) gets
    their rows one group after the other, as fio appends every job's to it."""
    logs = job.logs
    if not any(k in logs for k in ("bw", "lat", "iops")):
        return []
    window_s = max(1, int(logs.get("avg_msec", "1000")) // 1000)
    series = result.series
    written = []
    if result.log_windows is not None:
        rows = _window_rows(result.log_windows)
    elif series.empty:
        rows = []
    else:
        rows = []
        for first in range(0, len(series), window_s):
            part = series.iloc[first : first + window_s]
            span = float(part["span_seconds"].sum()) if "span_seconds" in part else float(len(part))
            weight = part["span_seconds"] if "span_seconds" in part else 1.0
            end_ms = int(round((float(part["second"].iloc[0]) + span) * 1000))
            rows.append(
                {
                    "msec": end_ms,
                    "read_kib": float((part["read_mbps"] * weight).sum() / span * 1e6 / 1024),
                    "write_kib": float((part["write_mbps"] * weight).sum() / span * 1e6 / 1024),
                    "iops": float((part["iops"] * weight).sum() / span),
                    "lat_ns": float((part["mean_latency_us"] * part["iops"] * weight).sum() / max((part["iops"] * weight).sum(), 1e-12) * 1e3),
                }
            )
    reads = result.summary.get("reads", 0) > 0
    writes = result.summary.get("writes", 0) > 0
    main_dir = 0 if reads or not writes else 1

    options = {path: option for option, path in log_paths(job, folder, number)}

    def dump(path: Path, lines: list[str]) -> None:
        text = "".join(lines)
        if earlier is not None:
            text = earlier.get(path, "") + text
            earlier[path] = text
        paths.write_atomic(path, text, options[path], owned=True)
        if path not in written:
            written.append(path)

    if "bw" in logs:
        lines = []
        for r in rows:
            if reads:
                lines.append(f"{r['msec']}, {round(r['read_kib'])}, 0, 0, 0, 0\n")
            if writes:
                lines.append(f"{r['msec']}, {round(r['write_kib'])}, 1, 0, 0, 0\n")
        dump(_log_path(folder, logs, "bw", "bw", number), lines)
    if "iops" in logs:
        dump(_log_path(folder, logs, "iops", "iops", number), [f"{r['msec']}, {round(r['iops'])}, {main_dir}, 0, 0, 0\n" for r in rows])
    if "lat" in logs:
        lines = [f"{r['msec']}, {round(r['lat_ns'])}, {main_dir}, 0, 0, 0\n" for r in rows if r["iops"] > 0]
        for kind in ("lat", "clat"):
            dump(_log_path(folder, logs, "lat", kind, number), lines)
        dump(_log_path(folder, logs, "lat", "slat", number), [f"{r['msec']}, 0, {main_dir}, 0, 0, 0\n" for r in rows if r["iops"] > 0])
    return written


def _window_rows(windows) -> list[dict]:
    """The log rows of the run's own windows (``log_avg_msec`` not whole seconds): each
    window's rates over the time it covers (the last may be partial), its mean latency."""
    rows = []
    for w in windows.itertuples(index=False):
        span_s = max(w.span_ms / 1000, 1e-12)
        rows.append(
            {
                "msec": int(w.end_ms),
                "read_kib": w.read_bytes / span_s / 1024,
                "write_kib": w.write_bytes / span_s / 1024,
                "iops": w.ios / span_s,
                "lat_ns": w.latency_sum_ns / w.ios if w.ios else 0.0,
            }
        )
    return rows


#: Which of fio's latency entries carry percentiles by default: ``clat_ns`` (``clat_percentiles``
#: on), not ``lat_ns`` (``lat_percentiles`` off).
DEFAULT_PERCENTILE_ENTRIES = (True, False)


def _direction(summary: dict, kind: str, entries: tuple[bool, bool] = DEFAULT_PERCENTILE_ENTRIES) -> dict:
    """One direction of fio's JSON job entry (a direction with no commands has runtime 0, as
    fio 3.33 writes it)."""
    count = summary[{"read": "reads", "write": "writes", "trim": "trims"}[kind]]
    io_bytes = summary[{"read": "host_read_bytes", "write": "host_write_bytes", "trim": "host_trim_bytes"}[kind]]
    lat = summary.get({"read": "read_latency_us", "write": "write_latency_us", "trim": "trim_latency_us"}[kind])
    # fio's runtime of a direction counts only when the direction moved bytes (`update_runtime`).
    runtime_ms = round(summary["simulated_seconds"] * 1000) if count else 0
    return _io_entry(summary["simulated_seconds"], count, io_bytes, lat, runtime_ms, entries) | _rate_entries(summary.get("rate_samples"), kind)


#: Where each direction's samples sit in the core's rate samples (reads, writes, trims).
_SAMPLE_INDEX = {"read": 0, "write": 1, "trim": 2}

#: Statistics of no samples.
_NO_SAMPLES = {"samples": 0, "min": 0, "max": 0, "mean": 0.0, "sum_squares": 0.0}


def _rate_entries(samples: dict | None, kind: str) -> dict:
    """fio's ``bw_min`` ... ``iops_samples`` of one direction (`kind`: ``read``, ``write``,
    ``trim``, or ``mixed``, the directions added up) from the core's bandwidth (KiB/s) and IOPS
    samples of the job or group; ``bw_agg`` is its group's share, set by `_fill_bw_agg`."""
    if not samples:
        bw = iops = _NO_SAMPLES
    elif kind == "mixed":
        bw, iops = samples["bw_kib_per_s_mixed"], samples["iops_mixed"]
    else:
        bw, iops = samples["bw_kib_per_s"][_SAMPLE_INDEX[kind]], samples["iops"][_SAMPLE_INDEX[kind]]
    return {
        "bw_min": bw["min"],
        "bw_max": bw["max"],
        "bw_agg": 0.0,
        "bw_mean": bw["mean"],
        "bw_dev": _stddev(bw),
        "bw_samples": bw["samples"],
        "iops_min": iops["min"],
        "iops_max": iops["max"],
        "iops_mean": iops["mean"],
        "iops_stddev": _stddev(iops),
        "iops_samples": iops["samples"],
    }


def _stddev(stats: dict) -> float:
    """fio's standard deviation of samples: ``sqrt(S / (n - 1))``, 0 for fewer than two."""
    n = stats["samples"]
    return math.sqrt(stats["sum_squares"] / (n - 1)) if n > 1 else 0.0


#: fio's keys of its latency ranges (`latency_ns`, `latency_us`: ten; `latency_ms`: twelve).
RANGE_KEYS = ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"]
RANGE_KEYS_MS = [*RANGE_KEYS, "2000", ">=2000"]


def _latency_ranges(figures: dict) -> dict:
    """fio's ``latency_ns``, ``latency_us`` and ``latency_ms`` of a job or group: the share (%)
    of its commands in each of fio's latency ranges (all zeros without commands)."""
    lat = figures.get("latency_us")
    shares = lat.get("shares") if lat else None
    if not shares:
        shares = {"ns": [0.0] * 10, "us": [0.0] * 10, "ms": [0.0] * 12}
    return {
        "latency_ns": dict(zip(RANGE_KEYS, shares["ns"], strict=True)),
        "latency_us": dict(zip(RANGE_KEYS, shares["us"], strict=True)),
        "latency_ms": dict(zip(RANGE_KEYS_MS, shares["ms"], strict=True)),
    }


#: fio's keys of ``iodepth_level`` (commands at 1, 2-3, 4-7, ... 32-63, 64+ outstanding) and of
#: ``iodepth_submit``/``iodepth_complete`` (commands per submission or reap: 0, 1-4, 5-8, ...).
DEPTH_KEYS = ("1", "2", "4", "8", "16", "32", ">=64")
_BATCH_KEYS = ("0", "4", "8", "16", "32", "64", ">=64")


def _distribution(counts: list[int]) -> list[float]:
    """fio's ``stat_calc_dist``: each count's share (%) of their sum, at least 0.1 where any."""
    total = sum(counts)
    if not total:
        return [0.0] * len(counts)
    return [max(n / total * 100.0, 0.1) if n else 0.0 for n in counts]


def _depth_entries(figures: dict) -> dict:
    """fio's ``iodepth_level`` of a job or group: the share (%) of its commands sent to the drive
    at each of fio's depth levels (the job's commands outstanding then, in the drive or the host's
    queue, this one included; `depth_levels.rs`); and ``iodepth_submit``/``iodepth_complete``:
    ssdlab's host submits every command on its own and takes every completion as it comes (fio's
    defaults, ``iodepth_batch_submit=1``, ``iodepth_batch_complete_min=1``, with completions
    apart in time), so all of them are in the 1-4 range."""
    levels = list((figures.get("depth_levels") or {}).get("levels") or [0] * len(DEPTH_KEYS))
    one_each = dict(zip(_BATCH_KEYS, _distribution([0, sum(levels), 0, 0, 0, 0, 0]), strict=True))
    return {
        "iodepth_level": dict(zip(DEPTH_KEYS, _distribution(levels), strict=True)),
        "iodepth_submit": one_each,
        "iodepth_complete": dict(one_each),
    }


def _fill_bw_agg(group_entries: list[dict]) -> None:
    """fio's ``bw_agg`` of each direction of a group's entries: the entry's mean bandwidth
    sample as a share (%) of the group's aggregate bandwidth in that direction (the group's
    bytes over its longest runtime), as fio's `convert_agg_kbytes_percent` figures it: the
    mean cut to an integer, at most 100, and 100 where the group moved at most 1,024 B/s. In
    ``unified_rw_reporting=both`` fio divides the ``mixed`` entry by the group's read
    bandwidth (its `add_mixed_ddir_status_json` passes the read direction); in ``mixed`` mode
    by the group's whole bandwidth."""
    aggregate = group_aggregates(group_entries)
    for entry in group_entries:
        for kind in ("read", "write", "trim", "mixed"):
            part = entry.get(kind)
            if part is None or not part["bw_samples"]:
                continue
            agg = aggregate_of(aggregate, entry, kind)
            part["bw_agg"] = min(100.0, int(part["bw_mean"]) * 100.0 / (agg / 1024.0)) if agg > 1024 else 100.0


def group_aggregates(group_entries: list[dict]) -> dict[str, int]:
    """fio's aggregate bandwidth (bytes/s) of one fio group in each direction (``rs->agg``):
    the group's bytes over its longest runtime (ms), in integers as fio's."""
    aggregate = {}
    for kind in ("read", "write", "trim", "mixed"):
        parts = [entry[kind] for entry in group_entries if kind in entry]
        runtime_ms = max((part["runtime"] for part in parts), default=0)
        aggregate[kind] = sum(part["io_bytes"] for part in parts) * 1000 // runtime_ms if runtime_ms else 0
    return aggregate


def aggregate_of(aggregate: dict[str, int], entry: dict, kind: str) -> int:
    """The group aggregate fio compares an entry's direction `kind` with: its own, but for the
    ``mixed`` entry of ``unified_rw_reporting=both`` the read direction's (fio passes the read
    direction for it)."""
    return aggregate["read"] if kind == "mixed" and "read" in entry else aggregate[kind]


def _io_entry(
    simulated_seconds: float, count: int, io_bytes: int, lat: dict | None, runtime_ms: int, entries: tuple[bool, bool] = DEFAULT_PERCENTILE_ENTRIES
) -> dict:
    """fio's figures of `count` commands moving `io_bytes` in `simulated_seconds` (a direction's
    or the ``mixed`` entry), with their latency `lat` (us) when there is one; `entries` says
    whether ``clat_ns`` and ``lat_ns`` carry the percentiles (fio's ``clat_percentiles`` and
    ``lat_percentiles``: a simulated command has no submission latency, so both are the same
    figures)."""
    sim_s = max(simulated_seconds, 1e-12)
    out = {
        "io_bytes": io_bytes,
        "io_kbytes": io_bytes // 1024,
        "bw_bytes": round(io_bytes / sim_s),
        "bw": round(io_bytes / sim_s / 1024),
        "iops": count / sim_s,
        "runtime": runtime_ms,
        "total_ios": count,
        "short_ios": 0,
        "drop_ios": 0,
    }
    out["slat_ns"] = dict(NO_LATENCY)
    if lat:
        clat = _latency_ns(lat, count)
        without = {k: v for k, v in clat.items() if k not in ("percentile", "bins")}
        out["clat_ns"] = clat if entries[0] else without
        out["lat_ns"] = clat if entries[1] else without
    else:
        # fio writes the latency entries of a direction without commands too, all zeros (tools
        # read `jobs[0]["read"]["lat_ns"]["mean"]` of a write-only job).
        out["clat_ns"] = dict(NO_LATENCY)
        out["lat_ns"] = dict(NO_LATENCY)
    return out


#: fio's latency entry of no commands (and its ``slat_ns``, submission latency, which ssdlab's
#: commands do not have).
NO_LATENCY = {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}


#: fio's ``unified_rw_reporting`` values and the mode each means: ``none`` (reads, writes and
#: trims apart), ``mixed`` (one ``mixed`` entry instead of them, and no ``sync``), ``both``
#: (apart, and the ``mixed`` entry after them).
UNIFIED_RW_MODES = {"0": "none", "none": "none", "1": "mixed", "mixed": "mixed", "2": "both", "both": "both"}


def _mixed(figures: dict, entries: tuple[bool, bool] = DEFAULT_PERCENTILE_ENTRIES) -> dict:
    """fio's ``mixed`` entry (``unified_rw_reporting``): the kinds' figures summed, over the same
    time, with the latency of every command."""
    count = figures["reads"] + figures["writes"] + figures["trims"]
    io_bytes = figures["host_read_bytes"] + figures["host_write_bytes"] + figures["host_trim_bytes"]
    runtime_ms = round(figures["simulated_seconds"] * 1000) if count else 0
    return _io_entry(figures["simulated_seconds"], count, io_bytes, figures.get("latency_us"), runtime_ms, entries) | _rate_entries(
        figures.get("rate_samples"), "mixed"
    )


def _directions(figures: dict, mode: str, sync: dict | None, entries: tuple[bool, bool] = DEFAULT_PERCENTILE_ENTRIES) -> dict:
    """The direction entries of a job's (or group's) fio JSON entry, in fio's order, as its
    ``unified_rw_reporting`` mode shapes them (`sync`: the ``sync`` entry, if the entry has one;
    `entries`: which latency entries carry percentiles)."""
    out = {}
    if mode != "mixed":
        out = {kind: _direction(figures, kind, entries) for kind in ("read", "write", "trim")}
        if sync is not None:
            out["sync"] = sync
    if mode != "none":
        out["mixed"] = _mixed(figures, entries)
    return out


def _percentile_entries(job) -> list[tuple[bool, bool]]:
    """Each job's (``clat_percentiles``, ``lat_percentiles``), in the group's order, as the
    core's job gives them; fio's defaults for a job object that does not say."""
    return [(bool(c), bool(t)) for c, t in (getattr(job, "latency_percentiles", None) or [])]


def _modes(job) -> list[str]:
    """Each job's ``unified_rw_reporting`` mode, in the group's order, as the core's job gives
    it (``none``, ``mixed`` or ``both``); ``none`` for a job object that does not say."""
    given = getattr(job, "unified_rw_reporting", None) or []
    return [UNIFIED_RW_MODES.get(str(v).strip().lower(), "none") for v in given]


def _sync(summary: dict) -> dict:
    """fio's ``sync`` entry: the flushes of ``fsync``/``fdatasync``/``end_fsync`` and their latency."""
    flushes = summary.get("flushes") or {"flushes": 0, "latency_us": None}
    n = flushes["flushes"]
    lat = flushes["latency_us"]
    lat_ns = _latency_ns(lat, n) if lat else dict(NO_LATENCY)
    return {"total_ios": n, "lat_ns": lat_ns}


def _latency_ns(lat: dict, count: int) -> dict:
    """fio's latency entry (ns) of `count` commands from a summary's latency figures (us): the
    smallest, largest, mean and standard deviation of the exact latencies (fio's ``min``,
    ``max``, ``mean``, ``stddev``), the percentiles the job asked for (fio's ``percentile_list``, by default fio's own 1 to
    99.99), keyed as fio keys them (``"99.990000"``); and with fio's ``json+`` (the job's
    summaries carry ``fio_bins``) the commands in each of fio's latency buckets (``bins``)."""
    listed = lat.get("percentiles")
    if listed:
        percentile = {f"{p:.6f}": round(us * 1e3) for p, us in listed}
    else:
        percentile = {"50.000000": round(lat["p50"] * 1e3), "99.000000": round(lat["p99"] * 1e3), "99.900000": round(lat["p999"] * 1e3)}
    out = {
        "min": round(lat["min"] * 1e3),
        "max": round(lat["max"] * 1e3),
        "mean": lat["mean"] * 1e3,
        "stddev": lat["stddev"] * 1e3,
        "N": count,
        "percentile": percentile,
    }
    bins = lat.get("fio_bins")
    if bins is not None:
        # fio's json+: the commands in each of fio's latency buckets, keyed by the bucket's value (ns).
        out["bins"] = {str(value): n for value, n in bins}
    return out


class EntrySettings(NamedTuple):
    """What fio's terse line of one JSON entry needs beyond the entry: its job's percentile list
    and which latencies carry them, its ``continue_on_error`` and its ``description`` (for a
    group reported as one, as fio takes them: see `_group_entry_settings`)."""

    percentiles: list[float]
    clat_percentiles: bool
    lat_percentiles: bool
    continue_on_error: bool
    description: str | None


def _entry_settings(job, index: int) -> EntrySettings:
    """The `EntrySettings` of the job at `index` of a group (no percentile list, fio's other
    defaults, for a job object that does not say: the core's jobs always say)."""
    lists = list(getattr(job, "percentile_lists", None) or [])
    continues = list(getattr(job, "continues_on_error", None) or [])
    clat, lat = (_percentile_entries(job)[index : index + 1] or [DEFAULT_PERCENTILE_ENTRIES])[0]
    given = _given_options(job)
    description = None
    if index < len(given):
        for key, value in [*given[index][0], *given[index][1]]:
            if key == "description":
                description = value
    return EntrySettings(
        list(lists[index]) if index < len(lists) else [],
        clat,
        lat,
        bool(continues[index]) if index < len(continues) else False,
        description,
    )


def _group_entry_settings(job) -> EntrySettings:
    """The `EntrySettings` of a group reported as one: fio's (`__show_run_stats`) percentile
    list, ``clat_percentiles``/``lat_percentiles`` and ``continue_on_error`` are the group's
    last job's (each job's copied over the one before), its description the first job's."""
    last = max(len(_percentile_entries(job)), len(getattr(job, "percentile_lists", None) or []), 1) - 1
    return _entry_settings(job, last)._replace(description=_entry_settings(job, 0).description)


def fio_json(results: list, jobs: list, seed: int) -> dict:
    """fio's ``--output-format=json`` document of the run (`fio_output`'s first part)."""
    return fio_output(results, jobs, seed)[0]


def fio_output(results: list, jobs: list, seed: int) -> tuple[dict, list[EntrySettings]]:
    """fio's ``--output-format=json`` document, and each entry's `EntrySettings` (for fio's terse
    output, `fio_terse`). The document has fio's JSON shape: one entry per job, as fio gives, or one per group of
    jobs side by side when every job of the group has ``group_reporting``; each with
    ``read``/``write``/``trim`` figures, latencies in ns (``clat_ns`` with the job's
    percentiles, fio's ``percentile_list``, by default fio's own list from 1 to 99.99, and the
    exact smallest, largest, mean and standard deviation), fio's bandwidth and IOPS samples
    (``bw_min`` ... ``iops_samples``, windows of ``bwavgtime``/``iopsavgtime``), fio's queue
    depths (``iodepth_level``, ``iodepth_submit``, ``iodepth_complete``), fio's latency ranges
    (``latency_ns``, ``latency_us``, ``latency_ms``), and
    ssdlab's own summary under ``ssdlab`` (a job's entry: its own figures, with the group's
    summary under ``group``). The drive's figures (write amplification, GC, energy) belong to
    the group: the jobs share the drive."""
    now = time.time()
    entries = []
    settings: list[EntrySettings] = []
    group_ids = _fio_group_ids(jobs)
    for ids, (result, job) in zip(group_ids, zip(results, jobs, strict=True), strict=True):
        s = result.summary
        modes = _modes(job)
        percentile_entries = _percentile_entries(job)
        group_id = ids[0]
        if s.get("each_job") and not getattr(job, "group_reporting", False):
            given = _given_options(job)
            first = len(entries)
            entries += [
                _job_entry(
                    figures,
                    (ids[i : i + 1] or [group_id])[0],
                    s,
                    (modes[i : i + 1] or ["none"])[0],
                    (percentile_entries[i : i + 1] or [DEFAULT_PERCENTILE_ENTRIES])[0],
                    dict(given[i][1]) if i < len(given) else {},
                )  # fmt: skip
                for i, figures in enumerate(s["each_job"])
            ]
            settings += [_entry_settings(job, i) for i in range(len(s["each_job"]))]
            # The group's steady-state rule is its first job's (the jobs stop together).
            entries[first].update(_steady_state(s))
            continue
        given = _given_options(job)
        # fio echoes the job's own options as given (tools read `job options`' bs, size,
        # numjobs...); ssdlab adds the ones it always gave (rw, iodepth, numjobs) when they
        # were not given.
        options = dict(given[0][1]) if given else {}
        for key, value in (("rw", s["rw"]), ("iodepth", str(job.iodepth)), ("numjobs", str(s.get("jobs_in_group", 1)))):
            options.setdefault(key, value)
        # fio lists a rate limit among the options as given (`"rate_iops": "1000"`).
        rate = getattr(job, "rate_given", None)
        if rate is not None:
            options.setdefault(rate[0], rate[1])
        # fio's latency-target fields (fio gives them for every job: the depth is the job's
        # iodepth without a target); the target in ns, the window in us, as fio's JSON.
        search = s.get("latency_target")
        latency = {
            "latency_depth": search["depth"] if search else int(options["iodepth"]),
            "latency_target": round(search["target_us"] * 1e3) if search else 0,
            "latency_percentile": search["percentile"] if search else 100.0,
            "latency_window": round(search["window_ms"] * 1e3) if search else 0,
        }
        verify = s.get("verify")
        if verify:
            options.setdefault("verify", verify["method"])
        # A job a limit ended (ETIMEDOUT, EIO) or whose verify failed (EILSEQ) carries fio's
        # error number (`job_errors`, the one reading of a job's error).
        error = job_errors.error_number(s)
        settings.append(_group_entry_settings(job))
        entries.append(
            {
                "jobname": job.name,
                "groupid": group_id,
                "error": error,
                "eta": 0,
                "elapsed": round(s["simulated_seconds"] + s.get("ramp_seconds", 0.0)),
                # fio shows the options as given (a job's own iodepth), not the group's sum.
                "job options": options,
                # fio reports a group as one with its first job's mode.
                # (and its last job's percentile entries, as `_group_entry_settings`).
                **_directions(s, (modes or ["none"])[0], _sync(s), (percentile_entries or [DEFAULT_PERCENTILE_ENTRIES])[-1]),
                "job_runtime": _job_runtime_ms(s),
                **_depth_entries(s),
                **_latency_ranges(s),
                **latency,
                **_steady_state(s),
                "ssdlab": s,
            }
        )
    # fio's `bw_agg` is a share of each fio group's bandwidth (its `groupid`, which a group
    # ssdlab starts at a `wait_for` shares with the group before).
    for group_id in sorted({entry["groupid"] for entry in entries}):
        _fill_bw_agg([entry for entry in entries if entry["groupid"] == group_id])
    document = {
        "fio version": f"ssdlab-{__version__}",
        "timestamp": int(now),
        "timestamp_ms": int(now * 1000),
        "time": time.ctime(now),
        "global options": _global_options(jobs, seed),
        "jobs": entries,
        "disk_util": [],
    }
    return document, settings


def _fio_group_ids(jobs: list) -> list[list[int]]:
    """fio's ``groupid`` of every job of every group, as fio's ``add_job`` numbers them: from 0,
    one more at each job with ``stonewall`` or ``new_group`` where the group before has jobs (a
    ``numjobs`` copy never starts one). A group ssdlab starts at a ``wait_for`` keeps the id of
    the one before (fio: ``wait_for`` waits, it does not start a reporting group), and a
    ``new_group`` inside jobs run side by side starts one (fio's ids; with ``group_reporting``
    ssdlab still reports the jobs run side by side as one entry, under its first job's id)."""
    out, group_id, jobs_in_group = [], 0, 0
    for job in jobs:
        # A job object that does not say is a group of its own, as ssdlab runs it.
        starts = list(getattr(job, "starts_fio_group", None) or [True])
        ids = []
        for starts_group in starts:
            if starts_group and jobs_in_group:
                group_id, jobs_in_group = group_id + 1, 0
            ids.append(group_id)
            jobs_in_group += 1
        out.append(ids)
    return out


def _steady_state(summary: dict) -> dict:
    """fio's ``steadystate`` entry of a job with ``steadystate`` (``{}`` otherwise, or before a
    window was full): the rule as fio writes it (``"iops:20.000000%"``), whether it was met,
    the criterion it measured, and the judged window's IOPS and bandwidth (bytes/s) samples.
    For the ``bw`` rules the deviation and slope are in bytes/s, as fio's."""
    ss = summary.get("steady_state")
    if not ss:
        return {}
    unit = 1e6 if ss["metric"] == "bw" else 1.0  # ssdlab's bandwidth samples are MB/s
    pct = "%" if ss["percent"] else ""
    limit = ss["limit"] * (100 if ss["percent"] else unit)
    criterion = ss["criterion"] * (100 if ss["percent"] else unit)
    iops, bw = ss["iops"], ss["bw_bytes_per_s"]
    return {
        "steadystate": {
            "ss": f"{ss['metric']}{'_slope' if ss['slope_rule'] else ''}:{limit:f}{pct}",
            "duration": round(ss["duration_seconds"]),
            "attained": int(ss["attained"]),
            "criterion": f"{criterion:f}{pct}",
            "max_deviation": ss["max_deviation"] * unit,
            "slope": ss["slope"] * unit,
            "data": {
                "bw_mean": round(sum(bw) / len(bw)) if bw else 0,
                "iops_mean": round(sum(iops) / len(iops)) if iops else 0,
                "iops": [round(v) for v in iops],
                "bw": [round(v) for v in bw],
            },
        }
    }


def _given_options(job) -> list[tuple[list, list]]:
    """Each job's options as given, in the group's order: (global ones, its own), as the
    core's job gives them; none for a job object that does not say."""
    return [(list(g), list(o)) for g, o in (getattr(job, "options_given", None) or [])]


def _global_options(jobs: list, seed: int) -> dict:
    """fio's ``global options``: those of the job file's ``[global]`` sections and of the
    command line beside it, as given (every group's, in order), and the seed ssdlab drew from
    (``randseed``) unless one was given."""
    out: dict = {}
    for job in jobs:
        for global_options, _ in _given_options(job)[:1]:
            for key, value in global_options:
                out.setdefault(key, value)
    out.setdefault("randseed", str(seed))
    return out


def _job_runtime_ms(summary: dict) -> int:
    """fio's ``job_runtime`` of an entry, in ms: a lone job's run time, or for a group reported
    as one (``group_reporting``) the sum of its jobs' (fio's `sum_thread_stats` adds each job's
    ``total_run_time``: 16 jobs of 1 s give 16000)."""
    each = summary.get("each_job")
    if each:
        return sum(round(figures["simulated_seconds"] * 1000) for figures in each)
    return round(summary["simulated_seconds"] * 1000)


def _job_entry(
    figures: dict, group_id: int, group: dict, mode: str = "none", entries: tuple[bool, bool] = DEFAULT_PERCENTILE_ENTRIES, given: dict | None = None
) -> dict:
    """fio's JSON entry of one job of a group run side by side, from its own figures (`mode`:
    its ``unified_rw_reporting``; `entries`: its ``clat_percentiles`` and ``lat_percentiles``;
    `given`: its own options as given, which fio echoes)."""
    options = dict(given or {})
    options.setdefault("rw", figures["rw"])
    options.setdefault("iodepth", str(figures["iodepth"]))
    return {
        "jobname": figures["job"],
        "groupid": group_id,
        "error": job_errors.error_number(figures),
        "eta": 0,
        "elapsed": round(figures["simulated_seconds"] + group.get("ramp_seconds", 0.0)),
        "job options": options,
        # The job's own flushes, as fio's per-job `sync` entry (zero when it does not flush).
        **_directions(figures, mode, _sync(figures), entries),
        "job_runtime": round(figures["simulated_seconds"] * 1000),
        **_depth_entries(figures),
        **_latency_ranges(figures),
        "latency_depth": figures["iodepth"],
        "latency_target": 0,
        "latency_percentile": 100.0,
        "latency_window": 0,
        # The group's summary without its list of jobs: each job's entry carries it, so a
        # group of N jobs would otherwise hold N * N job figures.
        "ssdlab": {**figures, "group": {k: v for k, v in group.items() if k != "each_job"}},
    }


def dump_json(document: dict) -> str:
    """JSON text of a document."""
    return json.dumps(document, indent=2)
