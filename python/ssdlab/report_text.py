"""Human-readable summaries of runs."""

from __future__ import annotations

from ssdlab.job_errors import ERRNO_NAMES


def _bytes(n: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= size:
            return f"{n / size:,.2f} {unit}"
    return f"{n:,.0f} B"


def bytes_text(n: float) -> str:
    """A byte count in the largest decimal unit it reaches ("8.19 kB", "1.20 GB"), as the run
    summaries write sizes."""
    return _bytes(n)


def drive_header(info: dict) -> str:
    """One paragraph about the drive."""
    return (
        f"{info['model']}  [{info['name']}]\n"
        f"  user {_bytes(info['capacity_bytes_user'])}, raw {info['raw_bytes'] / 2**30:,.1f} GiB, "
        f"spare/user {info['spare_over_user'] * 100:.1f}%, spare/raw {info['spare_over_raw'] * 100:.1f}%"
        + (f" (incl. {info['reserved_user_fraction'] * 100:.0f}% reserved user space)" if info["reserved_user_fraction"] else "")
        + f"\n  {info['dies']} dies on {info['channels']} channels ({info['bus']}, {info['bus_mbps']:.0f} MB/s), "
        f"{info['host_interface']} ({info['link_mbps']:.0f} MB/s), GC {info['gc_policy']}"
        + (f"\n  data reduction on ({info['ecc_unit_bytes']} B ECC units, {info['content_mode']} content)" if info["data_reduction"] else "")
    )


def run_summary(s: dict) -> str:
    """A few lines about one job."""
    group = s.get("jobs_in_group", 1)
    if group > 1:
        # The summary is the group's (every job's IOs), named after its first job.
        who = f"jobs {s['job']} and {group - 1} more, side by side (first: {s['rw']}), QD{s['iodepth']} in all"
        seed = f"seed {s['seed']}, the first job's"
    else:
        who, seed = f"job {s['job']}: {s['rw']} QD{s['iodepth']}", f"seed {s['seed']}"
    lines = [
        f"{who}, {s['simulated_seconds']:,.2f} s simulated in {s['wall_seconds']:,.2f} s wall ({seed})",
        f"  {rate_text(s['iops'], 0)} IOPS   read {rate_text(s['read_mbps'], 1)} MB/s   write {rate_text(s['write_mbps'], 1)} MB/s   {trim_rate(s)}"
        f"({s['ios']:,} IOs: {s['reads']:,} reads, {s['writes']:,} writes, {s['trims']:,} trims)",
    ]
    lines += each_job_lines(s.get("each_job") or [])
    extras = []
    if s.get("host_queued_max"):
        extras.append(f"up to {s['host_queued_max']:,} commands held in the host's queue (drive queue full)")
    if s.get("ramp_seconds"):
        searched = (s.get("latency_target") or {}).get("settled") and s.get("jobs_in_group", 1) == 1
        what = "ramp_time and the depth search" if searched else "ramp"
        extras.append(f"measured after {s['ramp_seconds']:,.1f} s of {what}")
    if s.get("steady_state_seconds") is not None:
        extras.append(f"steady state reached at {s['steady_state_seconds']:,.0f} s")
    if extras:
        lines.append("  " + "; ".join(extras))
    search = s.get("latency_target")
    if search:
        lines.append("  " + latency_target_line(search, alone=s.get("jobs_in_group", 1) == 1))
    verify = s.get("verify")
    if verify:
        lines.append("  " + verify_line(verify))
    flushes = s.get("flushes")
    if flushes:
        lines.append("  " + flush_line(flushes))
    # Each failed job's own error (a group keeps one per job in each_job; the group's
    # job_error is its first).
    errors = [j["job_error"] for j in s.get("each_job") or [] if j.get("job_error")] or [e for e in [s.get("job_error")] if e]
    if errors and not (search and search["failed_at_depth_1_us"] is not None):
        lines += ["  " + job_error_line(error) for error in errors]
    lat = s.get("latency_us")
    if lat:
        lines.append(f"  latency us: mean {lat['mean']:,.1f}  p50 {lat['p50']:,.1f}  p99 {lat['p99']:,.1f}  p99.9 {lat['p999']:,.1f}  max {lat['max']:,.1f}")
    wa = s["write_amplification"]
    lines.append(f"  write amplification {wa:.3f}" if wa is not None else "  write amplification n/a (no writes)")
    folded = (s.get("tiers") or {}).get("fold_write_bytes") or 0
    internal = f"GC and folding {_bytes(s['nand_write_bytes_gc'])}, of it folding {_bytes(folded)}" if folded else f"GC {_bytes(s['nand_write_bytes_gc'])}"
    lines[-1] += f"  (host {_bytes(s['host_write_bytes'])} -> NAND {_bytes(s['nand_write_bytes'])}, {internal})"
    red = s.get("reduction")
    if red:

        def pct(x):
            return "n/a" if x is None else f"{x * 100:.1f}%"

        ratio = red["data_reduction_ratio"]
        lines.append(
            f"  data {s['data_pattern']}: reduction {'n/a' if ratio is None else f'{ratio:.2f}:1'}, dedup hits {pct(red['dedup_hit_rate'])}, "
            f"zero sectors {pct(red['zero_sector_rate'])}, after dedup {_bytes(red['bytes_after_dedup'])}, "
            f"after compression {_bytes(red['bytes_after_compression'])}, stored {_bytes(red['bytes_stored'])}"
        )
    data_file = s.get("data_file")
    if data_file:
        cycled = "; it was started again from its beginning (the run wrote more than it holds)" if data_file["cycled"] else ""
        lines.append(f"  data file {data_file['path']} ({_bytes(data_file['bytes'])}) written {data_file['passes']:.2f} times over{cycled}")
    if s.get("map_page_reads"):
        lines.append(f"  map pages read (map cache misses): {s['map_page_reads']:,}")
    if s.get("nand_reads_per_read_sector") is not None:
        lines.append(f"  NAND senses per 4 KiB read: {s['nand_reads_per_read_sector']:.3f}")
    lines.append(
        f"  busy {s['busy_seconds']:,.2f} s, energy {s['energy_joules']:,.1f} J, mean power {s['mean_power_watts']:.2f} W, "
        f"P/E min/mean/max {s['wear']['min']}/{s['wear']['mean']:.2f}/{s['wear']['max']}, free blocks {s['free_blocks']:,}"
    )
    return "\n".join(lines)


#: Most jobs of a group listed one per line (a numjobs=64 group lists these and a count).
EACH_JOB_LINES = 16


def rate_text(x: float, decimals: int) -> str:
    """A rate with `decimals` places, or, below what those show, two significant digits (0.33
    IOPS, 0.0041 MB/s, not 0 and 0.0)."""
    if x == 0 or x >= 10**-decimals:
        return f"{x:,.{decimals}f}"
    return f"{x:.2g}"


def trim_rate(s: dict) -> str:
    """The trims' rate of a summary or a job's figures (``trim 1.2 MB/s   ``), empty when it
    trimmed nothing (the summaries give reads' and writes' rates only)."""
    if not s.get("host_trim_bytes"):
        return ""
    return f"trim {rate_text(s['host_trim_bytes'] / 1e6 / max(s['simulated_seconds'], 1e-12), 1)} MB/s   "


def each_job_lines(each_job: list[dict]) -> list[str]:
    """One line per job of a group run side by side: its own IOPS, rates (trims' too, when it
    trims) and latency."""
    lines = []
    for j in each_job[:EACH_JOB_LINES]:
        lat = j.get("latency_us")
        latency = f", latency us mean {lat['mean']:,.1f} p99 {lat['p99']:,.1f} max {lat['max']:,.1f}" if lat else ""
        trim = f", {trim_rate(j).rstrip()}" if j.get("host_trim_bytes") else ""
        lines.append(
            f"    job {j['job']}: {j['rw']} QD{j['iodepth']}, {rate_text(j['iops'], 0)} IOPS, read {rate_text(j['read_mbps'], 1)} MB/s, "
            f"write {rate_text(j['write_mbps'], 1)} MB/s{trim} ({j['ios']:,} IOs in {j['simulated_seconds']:,.2f} s){latency}"
        )
    if len(each_job) > EACH_JOB_LINES:
        lines.append(f"    ... and {len(each_job) - EACH_JOB_LINES} more jobs (each in --json's each_job)")
    return lines


def latency_target_line(search: dict, alone: bool) -> str:
    """What fio's latency-target search found, in one line; `alone`: the job ran alone in its
    group (then the figures restart at its final run, as fio's)."""
    jobs = f" (summed over {search['jobs']} jobs)" if search["jobs"] > 1 else ""
    head = (
        f"latency target {search['target_us']:,.1f} us for {search['percentile']:g}% of each {search['window_ms']:,.1f} ms window: "
        f"depth {search['depth']}{jobs}"
    )
    if search["failed_at_depth_1_us"] is not None:
        return head + f"; a command took {search['failed_at_depth_1_us']:,.1f} us at depth 1 and ended the job (fio's error: latency exceeds the target)"
    if search["settled"]:
        return head + (", met over the final window (the figures are that window's)" if alone else ", met over each job's final window")
    return head + ", still searching when the run ended (the figures cover the whole run)"


def flush_line(f: dict) -> str:
    """The flushes of fio's fsync/fdatasync/end_fsync, with their latency (fio's sync figures)."""
    lat = f["latency_us"]
    end = f"; {f['end_flushes']:,} at the jobs' end (end_fsync)" if f["end_flushes"] else ""
    if not lat:
        return f"flushes (fsync): none in the measured part{end}"
    figures = f"mean {lat['mean']:,.1f}  p50 {lat['p50']:,.1f}  p99 {lat['p99']:,.1f}  max {lat['max']:,.1f}"
    return f"flushes (fsync): {f['flushes']:,}, latency us: {figures}{end}"


def job_error_line(error: dict) -> str:
    """A job that a limit of fio's ended in error (`max_latency`, `rate_min`), stated plainly."""
    name = ERRNO_NAMES.get(error["errno"], str(error["errno"]))
    return f"JOB {error['job']} ENDED IN ERROR at {error['at_seconds']:,.3f} s ({name}): {error['message']}"


def verify_line(v: dict) -> str:
    """What fio's verify read back and found, in one line (a failure stated plainly)."""
    jobs = f", {v['jobs']} jobs" if v["jobs"] > 1 else ""
    head = f"verify ({v['method']}{jobs}): {v['blocks_verified']:,} blocks ({_bytes(v['bytes_verified'])}) read back"
    if v["method"] == "null":
        return head + " and not checked (verify=null only pretends)"
    if v["blocks_verified"] == 0 and not v.get("do_verify", True):
        return head + "; do_verify=0: written with verify headers, not read back"
    if v["blocks_verified"] == 0:
        return head + "; no verify phase ran (the write phase ended at its runtime, as fio ends such a job)"
    if not v["failures"]:
        return head + ", all as written"
    stopped = "; verify_fatal stopped the job there" if v["stopped_at_failure"] else ""
    return head + (
        f": VERIFY FAILED for {v['failures']:,} blocks, the first at offset {v['first_failure_offset']:,}"
        f" (not what was last written there with a verify header){stopped}"
    )


def review_summary(headlines, report, database, wall_seconds: float | None = None) -> str:
    """The end of a review in the terminal: the headline figures (a `lab.results.Table` of
    test, figure, data and condition, value, unit) under their tests, then where the report
    and the results database are."""
    lines = ["", "Headline figures:"]
    rows = headlines.rows
    if rows:
        width = max(len(f"{figure}, {data}") for _, figure, data, _, _ in rows)
        number_width = max(len(row[3]) for row in rows)
        test = None
        for this_test, figure, data, value, unit in rows:
            if this_test != test:
                test = this_test
                lines.append(f"  {test}")
            name = figure if data == "-" else f"{figure}, {data}"
            lines.append(f"    {name:<{width}}  {value:>{number_width}} {unit}".rstrip())
    else:
        lines.append("  (none: the suites run record no headline figure)")
    lines.append(f"report:   {report}")
    lines.append(f"database: {database}")
    if wall_seconds is not None:
        lines.append(f"took {wall_seconds:,.0f} s")
    return "\n".join(lines)
