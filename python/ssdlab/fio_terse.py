"""fio's terse output (``--output-format=terse``, ``--minimal``): one line per entry of fio's
JSON, fields separated by ``;``, as fio 3.33's `show_thread_status_terse_all` and
`show_ddir_status_terse` (``stat.c``) write them, in terse versions 2 to 5 (3 by default).

Each line is made from the entry of fio's JSON document that ssdlab writes (`fio.fio_output`),
so the two never disagree. What ssdlab does not have is written as fio writes a figure it did
not measure: no submission latency (``slat``: zeros, as fio's synchronous engines), and the
host's CPU figures (``usr_cpu``, ``sys_cpu``, context switches, faults) as zeros: a simulation
has no host.
"""

from __future__ import annotations

from ssdlab.fio import DEPTH_KEYS, RANGE_KEYS, RANGE_KEYS_MS, EntrySettings, aggregate_of, group_aggregates
from ssdlab.fio_cli_options import DEFAULT_TERSE_VERSION

#: fio's ``FIO_IO_U_LIST_MAX_LEN``: the percentile fields of a direction, padded with ``0%=0``.
PERCENTILE_FIELDS = 20


def terse_text(document: dict, settings: list[EntrySettings], version: int = DEFAULT_TERSE_VERSION) -> str:
    """fio's terse lines of every entry of `document` (fio's JSON document), each ending with a
    newline; `settings` are the entries' own (`fio.fio_output`)."""
    entries = document["jobs"]
    aggregates = {gid: group_aggregates([e for e in entries if e["groupid"] == gid]) for gid in {e["groupid"] for e in entries}}
    version_text = document.get("fio version", "")
    return "".join(_line(entry, setting, aggregates[entry["groupid"]], version, version_text) for entry, setting in zip(entries, settings, strict=True))


def _line(entry: dict, setting: EntrySettings, aggregate: dict[str, int], version: int, version_text: str) -> str:
    """One entry's terse line (`show_thread_status_terse_all`)."""
    name = entry["jobname"]
    if version == 2:
        fields = [f"2;{name};{entry['groupid']};{entry['error']}"]
    else:
        fields = [f"{version};{version_text};{name};{entry['groupid']};{entry['error']}"]
    if "read" in entry:
        kinds = ["read", "write"] + (["trim"] if version in (2, 4, 5) else [])
        if "mixed" in entry:
            kinds.append("mixed")  # `unified_rw_reporting=both`: after the directions
    else:
        kinds = ["mixed"]  # `unified_rw_reporting=mixed`: in the read direction's place only
    for kind in kinds:
        fields += _direction(entry, kind, setting, aggregate_of(aggregate, entry, kind), version)
    # The host's CPU figures: not simulated.
    fields += ["0.000000%", "0.000000%", "0", "0", "0"]
    depth = entry["iodepth_level"]
    fields += [f"{depth[key]:3.1f}%" for key in DEPTH_KEYS]
    # fio's `stat_calc_lat_nu`: the ns ranges added into the first us range.
    us = [entry["latency_us"][key] for key in RANGE_KEYS]
    us[0] += sum(entry["latency_ns"].values())
    fields += [f"{share:3.2f}%" for share in us]
    fields += [f"{entry['latency_ms'][key]:3.2f}%" for key in RANGE_KEYS_MS]
    if setting.continue_on_error:
        # fio's error count and first error; the simulated drive returns no IO errors.
        fields += ["0", "0"]
    line = ";".join(fields)
    if setting.description:
        line += ("\n" if version == 2 else "") + ";" + setting.description
    return line + "\n"


def _direction(entry: dict, kind: str, setting: EntrySettings, agg_bytes_per_s: int, version: int) -> list[str]:
    """One direction's fields (`show_ddir_status_terse`): KiB moved, KiB/s and IOPS over its
    runtime (ms) in fio's integers, the latencies in us, the percentiles, the bandwidth samples
    (and, in version 5, their count and the IOPS samples)."""
    part = entry[kind]
    runtime = part["runtime"]
    bw = (1000 * part["io_bytes"]) // runtime // 1024 if runtime else 0
    iops = (1000 * part["total_ios"]) // runtime if runtime else 0
    fields = [str(part["io_bytes"] >> 10), str(bw), str(iops), str(runtime)]
    fields += _latency(part["slat_ns"])
    fields += _latency(part["clat_ns"])
    fields += _percentiles(part, setting)
    fields += _latency(part["lat_ns"])
    if part["bw_samples"]:
        kib_per_s = agg_bytes_per_s // 1024
        share = min(100.0, part["bw_mean"] * 100 / kib_per_s) if kib_per_s else 100.0
        fields += [str(part["bw_min"]), str(part["bw_max"]), f"{share:f}%", f"{part['bw_mean']:f}", f"{part['bw_dev']:f}"]
    else:
        fields += ["0", "0", "0.000000%", "0.000000", "0.000000"]
    if version == 5:
        fields.append(str(part["bw_samples"]))
        if part["iops_samples"]:
            fields += [str(part["iops_min"]), str(part["iops_max"]), f"{part['iops_mean']:f}", f"{part['iops_stddev']:f}", str(part["iops_samples"])]
        else:
            fields += ["0", "0", "0.000000", "0.000000", "0"]
    return fields


def _latency(lat: dict) -> list[str]:
    """A latency's smallest, largest (whole us, cut as fio's integer division), mean and
    deviation (us), or fio's zeros for none."""
    if not lat["N"]:
        return ["0", "0", "0.000000", "0.000000"]
    return [str(lat["min"] // 1000), str(lat["max"] // 1000), f"{lat['mean'] / 1000:f}", f"{lat['stddev'] / 1000:f}"]


def _percentiles(part: dict, setting: EntrySettings) -> list[str]:
    """The 20 percentile fields: the total latency's when the job asks for them (fio's
    ``lat_percentiles``), else the completion latency's (``clat_percentiles``), else none; each
    ``P%=US`` (whole us), padded with ``0%=0``. A direction without commands gives 0 for each
    percentile of the list, as fio's."""
    if setting.lat_percentiles:
        values = part["lat_ns"].get("percentile")
    elif setting.clat_percentiles:
        values = part["clat_ns"].get("percentile")
    else:
        return ["0%=0"] * PERCENTILE_FIELDS
    listed = [(f"{p:f}", 0) for p in setting.percentiles] if values is None else [(key, ns // 1000) for key, ns in values.items()]
    fields = [f"{key}%={us}" for key, us in listed[:PERCENTILE_FIELDS]]
    return fields + ["0%=0"] * (PERCENTILE_FIELDS - len(fields))
