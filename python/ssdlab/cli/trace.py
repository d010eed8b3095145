"""`ssdlab trace`: statistics of a block trace, generated Storage Bench workloads, replay against a drive."""

from __future__ import annotations

import json
import math
import os

import click

from ssdlab import paths
from ssdlab import preconditions as pre
from ssdlab.cli.app import OVERRIDES, PRECONDITION_TIMING, check_io, cli, fail, profile_input, seed_option, write_output
from ssdlab.drive import DEFAULT_PROFILE, Drive
from ssdlab.errors import SsdlabError


@cli.group("trace")
def trace_group() -> None:
    """Block traces: statistics, generated workloads, replay."""


@trace_group.command("stats")
@click.argument("path")
@click.option("--format", "fmt", default=None, metavar="NAME", help="Trace format (detected when not given).")
@click.option("--skip-bad", is_flag=True, help="Count and skip malformed lines instead of stopping.")
@click.option("--time-unit", type=click.Choice(["ns", "us", "ms", "s"]), default=None, help="Unit of the trace's timestamps (default: the format's own).")
@click.option("--volume", default=None, metavar="ID|all", help="One volume of a trace of several (as the trace names it), or all of them (listed).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def trace_stats_command(path: str, fmt: str | None, skip_bad: bool, time_unit: str | None, volume: str | None, as_json: bool) -> None:
    """Statistics of a trace file."""
    from ssdlab import traces

    try:
        paths.input_file("trace", path)
        s = traces.stats(path, fmt, skip_bad, time_unit, volume)
    except SsdlabError as error:
        fail(str(error))
    if as_json:
        click.echo(json.dumps(s, indent=2))
        return
    total = s["requests"]
    click.echo(f"{path}: {s['format']} trace, {total:,} requests over {s['duration_seconds']:,.1f} s")
    click.echo("  " + ", ".join(f"{op} {n:,}" for op, n in s["ops"].items()))
    click.echo(f"  bytes read {s['bytes_read']:,}, written {s['bytes_written']:,}, trimmed {s['bytes_trimmed']:,}; span {s['span_bytes']:,} bytes")
    click.echo(f"  sequential {s['sequential_share'] * 100:.1f}%, mean queue depth {s['mean_queue_depth']:.3f}, at QD1 {s['qd1_share'] * 100:.1f}%")
    top = sorted(s["sizes"], key=lambda x: -x[1])[:8]
    sizes = [f"{size // 1024 if size % 1024 == 0 else size / 1024:g}K {n / total * 100:.1f}%" for size, n in top]
    click.echo("  sizes: " + ", ".join(sizes + _rest(total, top)))
    depths = s["queue_depths"][:8]
    click.echo("  queue depths: " + ", ".join([f"{d}: {n / total * 100:.1f}%" for d, n in depths] + _rest(total, depths, "deeper")))
    if s["skipped_lines"]:
        click.echo(f"  skipped {s['skipped_lines']:,} malformed line{'' if s['skipped_lines'] == 1 else 's'}")
    if s["queue_depth_saturated"]:
        click.echo(
            f"  {s['queue_depth_saturated']:,} requests arrived with the deepest tracked queue (65,536) outstanding: the trace's "
            "response times are implausible, or that many requests share one timestamp (a trace recorded with a coarse clock)"
        )
    _print_trace_volumes_and_content(s)


def _wa_text(wa: float | None) -> str:
    """The replay's write amplification as its line says it: a trace of a few writes can leave
    them all in the drive's write buffer, which programs nothing until it fills or is flushed,
    and the data-reduction engine stores nothing for zeros and duplicates."""
    if wa is None:
        return "WA n/a (no writes)"
    if wa == 0:
        return "WA 0.000 (nothing programmed: the writes wait in the drive's write buffer, or the engine absorbed them as zeros or duplicates)"
    return f"WA {wa:.3f}"


def _rest(total: int, shown: list, name: str = "other") -> list[str]:
    """The share of `total` the listed (value, count) pairs leave out, as one more item (none
    when they cover everything), so a list cut to its first entries still adds up to 100%."""
    rest = total - sum(n for _, n in shown)
    return [f"{name} {rest / total * 100:.1f}%"] if total and rest > 0 else []


def _print_trace_volumes_and_content(s: dict) -> None:
    """`trace stats`' lines on volumes, passed-over requests and written content."""
    volumes = s["volumes"]
    if len(volumes) > 1 or s["other_volume_requests"]:
        shown = ", ".join(f"{vid}: {n:,}" for vid, n in volumes[:20])
        more = f" and {len(volumes) - 20:,} more" if len(volumes) > 20 else ""
        click.echo(f"  volumes (requests): {shown}{more}")
        if s["volumes_not_listed_requests"]:
            click.echo(f"  {s['volumes_not_listed_requests']:,} requests of volumes past the listed limit")
    if s["other_volume_requests"]:
        click.echo(f"  passed over {s['other_volume_requests']:,} requests of other volumes")
    if s["requests_without_direction"]:
        click.echo(f"  passed over {s['requests_without_direction']:,} requests the trace gives no direction (read or write) for")
    content = s.get("content")
    if content:
        bound = " (at least: too many distinct contents to remember them all)" if content["distinct_capped"] else ""
        click.echo(
            f"  written blocks with content hashes {content['written_blocks']:,}: duplicates {content['duplicate_share'] * 100:.1f}%{bound}, "
            f"all zeros {content['zero_blocks']:,}"
        )


@trace_group.command("generate")
@click.argument("name")
@click.option("--out", "out_path", required=True, metavar="FILE", help="Output (MSR/SNIA CSV; gzip when it ends in .gz).")
@seed_option()
def trace_generate_command(name: str, out_path: str, seed: int) -> None:
    """Generate a workload with the published Storage Bench statistics (heavy2011, light2011, light2010, heavy2010, gaming2010)."""
    from ssdlab import traces

    try:
        check_io({}, {"--out": out_path}, files_only=("--out",))
        if name not in traces.workloads():
            raise SsdlabError(f"unknown workload {name!r} (expected one of: {', '.join(traces.workloads())})")
        with paths.atomic_output(out_path, "--out", owned=True) as temp:
            n = traces.generate(name, temp, seed)
    except SsdlabError as error:
        fail(str(error))
    click.echo(f"wrote {n:,} requests to {out_path}")


#: A trace file up to this size is read through before the replay's drive is built (about a
#: million requests of a text trace; a few seconds).
TRACE_PRECHECK_BYTES = 64 << 20


@trace_group.command("replay")
@click.argument("path")
@click.option("--profile", default=DEFAULT_PROFILE, show_default=True, help="Built-in profile name or TOML path.")
@OVERRIDES
@click.option("--format", "fmt", default=None, metavar="NAME", help="Trace format (detected when not given).")
@click.option(
    "--mode",
    type=click.Choice(["queue-depth", "timestamps"]),
    default="queue-depth",
    show_default=True,
    help="queue-depth: as fast as the drive allows, keeping the trace's queue depths; timestamps: at the recorded times.",
)
@click.option("--time-scale", type=float, default=1.0, show_default=True, help="Timestamps mode: factor on inter-arrival times.")
@click.option("--time-unit", type=click.Choice(["ns", "us", "ms", "s"]), default=None, help="Unit of the trace's timestamps (default: the format's own).")
@click.option("--remap", is_flag=True, help="Fold addresses beyond the drive into it.")
@click.option("--skip-bad", is_flag=True, help="Count and skip malformed lines instead of stopping.")
@click.option("--volume", default=None, metavar="ID", help="Replay this volume of a trace of several (as the trace names it).")
@click.option(
    "--data_pattern",
    "--data-pattern",
    "data_pattern",
    type=click.Choice(["zeros", "repeating", "text", "random"]),
    default="random",
    show_default=True,
    help="Data written by the trace's writes (the same option and default as `run`'s, fio's random).",
)
@click.option("--data-file", "data_file", default=None, metavar="PATH", help="Write this file's 4 KiB blocks in order, all of it, instead of --data_pattern.")
@click.option("--precondition", "steps", multiple=True, metavar="STEP", help=f"Before the replay: {', '.join(pre.NAMES)} (repeatable, in order).")
@seed_option()
@click.option("--json", "json_path", metavar="FILE|-", help="Write the summary as JSON (- for stdout).")
@PRECONDITION_TIMING
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
    volume: str | None,
    data_pattern: str,
    data_file: str | None,
    steps: tuple[str, ...],
    seed: int,
    json_path: str | None,
    precondition_timing: str,
) -> None:
    """Replay a block trace against a drive."""
    try:
        for step in steps:
            pre.parse(step)
        if not (math.isfinite(time_scale) and 0 < time_scale <= 1e6):
            raise SsdlabError(f"--time-scale: expected a positive number no larger than 1e6 (got {time_scale})")
        if time_scale != 1.0 and mode != "timestamps":
            # Before, ignored without a word: queue-depth mode keeps the trace's depths, not its times.
            raise SsdlabError(f"--time-scale {time_scale:g}: scales the recorded times, which only --mode timestamps follows (--mode {mode} ignores them)")
        profile_input(profile)
        check_io(
            {"trace": path, "--data-file": data_file, "--profile": profile if os.path.isfile(profile) else None},
            {"--json": json_path},
            text_inputs=("--profile",),
        )
        if os.path.getsize(path) <= TRACE_PRECHECK_BYTES:
            # Read through once before the drive is built and preconditioned, so a bad line fails
            # in seconds, not after them (a longer trace is checked as it replays).
            from ssdlab import traces

            traces.stats(path, fmt, skip_bad, time_unit, volume)
        drive = Drive(profile, overrides, seed=seed, precondition_timing=precondition_timing)
        for step in steps:
            drive.precondition(step)
        result = drive.replay(
            path,
            format=fmt,
            mode=mode,
            time_scale=time_scale,
            remap=remap,
            skip_bad=skip_bad,
            pattern=data_pattern,
            time_unit=time_unit,
            data_file=data_file,
            volume=volume,
        )
    except SsdlabError as error:
        fail(str(error))
    s = result.summary
    if json_path:
        write_output(json_path, json.dumps(s, indent=2) + "\n", "--json")
        if json_path == "-":
            return
    click.echo(f"replayed {s['requests']:,} requests ({s['mode']}) in {s['simulated_seconds']:,.2f} s simulated, {s['wall_seconds']:,.1f} s wall")
    click.echo(
        f"  average {s['average_mbps']:,.1f} MB/s (reads {s['read_mbps']:,.1f}, writes {s['write_mbps']:,.1f}); "
        f"busy {s['busy_seconds']:,.2f} s (reads {s['busy_read_seconds']:,.2f}, writes {s['busy_write_seconds']:,.2f})"
    )
    lat = s.get("latency_us") or {}
    if lat:
        click.echo(
            f"  latency us: p50 {lat['p50']:,.1f}  p99 {lat['p99']:,.1f}  p99.9 {lat['p999']:,.1f}  max {lat['max']:,.1f}; "
            + _wa_text(s.get("write_amplification"))
        )
    from ssdlab import fio

    warning = fio.unwritten_read_warning(
        [{"unmapped_read_bytes": s.get("unmapped_read_bytes", 0), "host_read_bytes": s["read_bytes"]}], "fill the drive first with --precondition seq-fill"
    )
    if warning:
        click.echo(f"ssdlab: warning: {warning}", err=True)
    if s.get("remapped"):
        click.echo(f"  {s['remapped']:,} requests remapped into the drive")
    if s.get("skipped_lines"):
        click.echo(f"  skipped {s['skipped_lines']:,} malformed line{'' if s['skipped_lines'] == 1 else 's'}")
    if s.get("other_volume_requests"):
        click.echo(f"  passed over {s['other_volume_requests']:,} requests of other volumes")
    if s.get("requests_without_direction"):
        click.echo(f"  passed over {s['requests_without_direction']:,} requests the trace gives no direction for")
    red = s.get("reduction") or {}
    if red.get("dedup_hit_rate") is not None:
        click.echo(
            f"  data reduction: stored {red['bytes_stored']:,} bytes, deduplicated {red['dedup_hit_rate'] * 100:.1f}% of written sectors, "
            f"zeros {red['zero_sector_rate'] * 100:.1f}%"
        )
