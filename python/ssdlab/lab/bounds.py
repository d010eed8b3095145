"""What bounds a measured figure, from the utilization of the run that measured it.

Every run reports how busy each resource was (``RunSummary.utilization``: the host link, the
command processor, the firmware's write cap, the engine's front and back end, the NAND dies
and channels, the benchmark host's own time), which share of the programs garbage collection
made, how many map pages were read per command and how many bytes the NAND moved per byte
read. From that, a published figure's simulated counterpart is classed (issue 21):

- **bound by a parameter**: one resource governed by one profile or test-bed value was
  saturated and no mechanism added work (no GC, no map-page reads, no read amplification);
  the figure moves only with that value, so it is no check of the model;
- **mechanism check**: anything else: GC copies, map-page reads, scattered data read in whole
  pages, or a run bound by latency through several stages; the figure comes out of the model's
  mechanisms.

A figure a parameter was *set from* is declared where it is published
(``calibration.Published.sets``) and needs no run to be classed.
"""

from __future__ import annotations

import json

#: A resource this busy over the run set its pace.
SATURATED = 0.85
#: GC programs, GC recoding, map reads per sector read or read amplification above these mean a
#: mechanism added work.
GC_SHARE = 0.10
MAP_READS = 0.10
READ_AMPLIFICATION = 1.10

#: The classes of the calibration page.
SET_FROM = "set from"
BOUND = "bound by a parameter"
MECHANISM = "mechanism check"

#: Each saturable resource and the value that governs it.
PARAMETERS = {
    "link": "host link rate (host.interface)",
    "command processor": "controller.command_processing_ns",
    "write cap": "controller.small_random_write_cap_iops",
    "engine front end": "reduction.compress_mbps / hash_mbps / chunks_per_second",
    "engine back end": "reduction.backend_write_mbps / backend_read_mbps",
    "NAND dies": "nand.t_prog_ns / t_read_ns (assumed)",
    "NAND channels": "nand.bus rate",
    "host time": "the test bed's host time per command (lab/host.py)",
}

RESOURCES = {
    "link": "link",
    "command processor": "command_processor",
    "write cap": "write_cap",
    "engine front end": "engine_front_end",
    "engine back end": "engine_back_end",
    "NAND dies": "dies",
    "NAND channels": "channels",
    "host time": "host_time",
}


def parse(utilization: object) -> dict | None:
    """A utilization from the results database (JSON text) or a run summary (a dict)."""
    if isinstance(utilization, dict):
        return utilization
    if isinstance(utilization, str) and utilization:
        return json.loads(utilization)
    return None


def ranked(u: dict) -> list[tuple[str, float]]:
    """Resources by how busy they were, busiest first (ties in the fixed order above)."""
    return sorted(((name, float(u.get(key, 0.0))) for name, key in RESOURCES.items()), key=lambda x: -x[1])


def mechanisms(u: dict) -> list[str]:
    """What added work beyond the data the host moved, in words."""
    found = []
    gc = max(float(u.get("gc_program_share", 0.0)), float(u.get("engine_back_end_gc_share", 0.0)))
    if gc >= GC_SHARE:
        found.append(f"GC {u.get('gc_program_share', 0.0) * 100:.0f}% of programs")
        if u.get("engine_back_end_gc_share", 0.0) >= GC_SHARE:
            found[-1] += f", {u['engine_back_end_gc_share'] * 100:.0f}% of the back end"
    if float(u.get("map_page_reads_per_read_sector", 0.0)) >= MAP_READS:
        found.append(f"{u['map_page_reads_per_read_sector']:.2f} map-page reads per sector read")
    if float(u.get("read_amplification", 0.0)) >= READ_AMPLIFICATION:
        found.append(f"{u['read_amplification']:.2f} NAND bytes read per byte")
    return found


def describe(u: dict) -> str:
    """The bound in words: the busiest resources and the mechanisms that added work."""
    top = ranked(u)
    name, busy = top[0]
    text = f"{name} {busy * 100:.0f}%" if busy >= SATURATED else f"none saturated: {name} {busy * 100:.0f}%, {top[1][0]} {top[1][1] * 100:.0f}%"
    extra = mechanisms(u)
    return text + (f" ({'; '.join(extra)})" if extra else "")


def classify(u: dict | None) -> tuple[str, str]:
    """(class, what) of a figure measured by a run with utilization `u`: bound by a parameter
    (naming it) or a mechanism check (naming the mechanisms)."""
    if u is None:
        return MECHANISM, "not measured: no run utilization recorded"
    extra = mechanisms(u)
    if extra:
        return MECHANISM, "; ".join(extra)
    name, busy = ranked(u)[0]
    if busy >= SATURATED:
        return BOUND, PARAMETERS[name]
    if float(u.get("host_time", 0.0)) + float(u.get("link", 0.0)) >= 0.9:
        return BOUND, f"{PARAMETERS['host time']} + {PARAMETERS['link']}"
    return MECHANISM, "latency through several stages, none saturated"
