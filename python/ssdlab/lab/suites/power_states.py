"""NVMe power states: idle power in each state, the walk APST takes an idle drive on, wake-up
latency from each state measured in simulated time, and active power (read, write, mixed) with
energy per GB, all from the drive's power-state and energy models."""

from __future__ import annotations

import tomllib

import pandas as pd

from ssdlab.lab import charts, today_charts
from ssdlab.lab.context import GB, INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.results import Ranked, SuiteResult, Table

NAME = "power-states"
ERA = "2020s"
TITLE = "Power states"
#: NVMe power states with APST apply to NVMe drives with a `[power]` section.
INTERFACES = ("nvme",)
PROFILE_SECTIONS = ("power",)
#: Full-scale durations, seconds: the idle window per state, the APST walk, each active load.
IDLE_SECONDS = 10.0
APST_SECONDS = 5.0
LOAD_SECONDS = 60
#: Full-scale idle before the measurements: at least REST_SECONDS, on until the drive is at
#: rest, at most REST_LIMIT_SECONDS.
REST_SECONDS = 60.0
REST_LIMIT_SECONDS = 1800.0
#: Time step of the APST walk's power trace, seconds.
APST_STEP = 0.01
METHOD = (
    "Secure erase, {span} written sequentially (data to read), then idle until the drive is at rest: at least {rest}, "
    "and on until a second passes with no NAND operation (the drive has folded its SLC cache and finished its "
    "background work), at most {rest_limit}. Idle power per state: the host puts the drive in the state with Set Features (APST off), it "
    "idles {idle}, power = the drive's energy over the window / its length. APST walk: APST on, one 4 KiB read, then "
    "{apst} of idle, power and state every 10 ms (the host's APST table of the profile). Wake-up latency: for an "
    "operational state, the host sets it, idles 1 s, sets PS0 and reads one 4 KiB block at QD1; for a "
    "non-operational state, the drive idles until APST has taken it there (or the host sets it when APST does "
    "not), then the read arrives; latency from the host's request to the read's completion, against the same read "
    "in PS0 (the drive's own first-command time). Active power in PS0: 128 KiB sequential read and write at QD32, "
    "4 KiB random read at QD32 and a 70/30 4 KiB random mix at QD32 over {span}, {load} each (incompressible); energy "
    "per GB: the drive's energy over the bytes moved. Power levels are modelled (state descriptors, energy per "
    "NAND operation, controller active and idle power), not measured on hardware."
)

METRICS = {
    "idle_w": "idle power in the state",
    "apst_idle_w": "idle power with APST (after the walk)",
    "wake_ms": "wake-up latency to the first command",
    "exit_ms": "wake-up latency less the first-command time",
    "active_w": "active power",
    "energy_j_per_gb": "energy per GB moved",
}

#: Active loads: condition label, fio options.
LOADS = (
    ("128K sequential read QD32", ["rw=read", "bs=128k", "iodepth=32"]),
    ("128K sequential write QD32", ["rw=write", "bs=128k", "iodepth=32"]),
    ("4K random read QD32", ["rw=randread", "bs=4k", "iodepth=32"]),
    ("4K random 70/30 mix QD32", ["rw=randrw", "rwmixread=70", "bs=4k", "iodepth=32"]),
)
ONE_READ = ["rw=randread", "bs=4k", "iodepth=1", "size=4k", "number_ios=1"]


def _energy(state: dict) -> float:
    """The drive's energy so far that idle windows see: state power plus NAND operations."""
    return float(state.get("state_energy_joules") or 0.0) + float(state["operation_energy_joules"])


def _read_ms(ctx: ReviewContext, drive, label: str) -> float:
    """One 4 KiB read at QD1 of the drive's first block; its latency in ms."""
    return ctx.run(drive, ONE_READ, label).summary["latency_us"]["mean"] / 1e3


def _state_now(drive) -> int:
    return int(drive.state()["power_state"]["state"])


def _reach(drive, state: int, limit_s: float = 60.0) -> bool:
    """Idle until APST has taken the drive into `state` (entered); False if it does not within
    `limit_s`."""
    waited = 0.0
    while waited < limit_s:
        s = drive.state()["power_state"]
        if s["state"] == state and not s["entering"]:
            return True
        if s["state"] > state:
            return False
        drive.idle(0.001)
        waited += 0.001
    return False


def _idle_to_rest(drive, at_least_s: float, limit_s: float) -> tuple[float, bool]:
    """Idle `at_least_s`, and on in steps of a second until the drive is at rest: a second that
    began and ended with the flash idle (every die and channel done with the work booked) and
    booked no NAND operation (no folding, no GC started), at most `limit_s` in all. Returns the
    seconds idled and whether the drive came to rest. (The last second of the first stretch is
    the first test: a drive at rest within `at_least_s` idles exactly that long.)"""
    first = max(at_least_s - 1.0, 0.0)
    drive.idle(first)
    waited = first
    while True:
        before = drive.state()
        drive.idle(1.0)
        waited += 1.0
        after = drive.state()
        quiet = float(after["operation_energy_joules"]) == float(before["operation_energy_joules"])
        if quiet and before["flash_idle_seconds"] <= before["now_seconds"] and after["flash_idle_seconds"] <= after["now_seconds"]:
            return waited, True
        if waited >= limit_s:
            return waited, False


def _apst_limit_s(power: dict) -> float:
    """Longest APST's walk can take to reach its deepest state, plus a second."""
    return sum(power.get("apst_idle_ms", [])) / 1e3 + sum(power["entry_latency_us"]) / 1e6 + 1.0


def run(ctx: ReviewContext) -> SuiteResult:
    drive = ctx.new_drive()
    power = tomllib.loads(drive.info["source"]).get("power")
    result = SuiteResult(
        NAME,
        TITLE,
        METHOD.format(
            rest=ctx.duration_label(REST_SECONDS),
            rest_limit=ctx.duration_label(REST_LIMIT_SECONDS),
            idle=ctx.duration_label(IDLE_SECONDS),
            # (The APST walk is not scaled: its steps are the profile's APST idle times.)
            apst=f"{APST_SECONDS:g} s",
            load=ctx.duration_label(LOAD_SECONDS),
            span=ctx.span_label(16 * GB, "16 GB"),
        ),
        METRICS,
    )
    if not power:
        result.notes.append("The profile has no power states ([power]).")
        return result
    states = len(power["state_mw"])
    drive.secure_erase()
    span = ctx.span_bytes(16 * GB)
    ctx.run(drive, ["rw=write", "bs=128k", "iodepth=32", f"size={span}", f"data_pattern={INCOMPRESSIBLE}"], "data to read")
    rest_s = ctx.seconds(REST_LIMIT_SECONDS)
    idled_s, at_rest = _idle_to_rest(drive, ctx.seconds(REST_SECONDS), rest_s)
    if not at_rest:
        result.notes.append(f"The drive was still doing NAND work (folding or GC) after {idled_s:,.0f} s of idle: the idle power figures include that work.")

    # Idle power in each state, the host's choice (APST off).
    idle_s = ctx.seconds(IDLE_SECONDS)
    rows = []
    drive.set_apst(False)
    for ps in range(states):
        drive.set_power_state(ps)
        before, t0 = _energy(drive.state()), drive.now_seconds
        drive.idle(idle_s)
        watts = (_energy(drive.state()) - before) / (drive.now_seconds - t0)
        rows.append({"state": f"PS{ps}", "operational": bool(power["operational"][ps]), "spec_max_w": power["state_mw"][ps] / 1e3, "idle_w": watts})
    drive.set_power_state(0)

    # The APST walk: one read, then idle with APST on, state and power every 10 ms.
    apst = bool(power.get("apst_idle_ms")) and any(power["apst_idle_ms"])
    walk = []
    if apst:
        drive.set_apst(True)
        _read_ms(ctx, drive, "APST walk: one read")
        start = drive.now_seconds
        energy = _energy(drive.state())
        steps = int(round(APST_SECONDS / APST_STEP))
        for _ in range(steps):
            drive.idle(APST_STEP)
            now = _energy(drive.state())
            walk.append({"time_s": drive.now_seconds - start, "state": _state_now(drive), "power_w": (now - energy) / APST_STEP})
            energy = now
        tail = walk[-int(len(walk) / 5) :]
        result.add("apst_idle_w", sum(r["power_w"] for r in tail) / len(tail), "W", "", f"after {APST_SECONDS:g} s idle (PS{walk[-1]['state']})")

    # Wake-up latency from each state.
    if apst:
        drive.set_apst(True)
    _read_ms(ctx, drive, "wake-up: warm-up read")
    drive.idle(0.001)
    first_ms = _read_ms(ctx, drive, "wake-up: read in PS0")
    for row in rows:
        ps = int(row["state"][2:])
        if ps == 0:
            row["wake_ms"], row["how"] = first_ms, "already in PS0"
        elif power["operational"][ps]:
            if apst:
                drive.set_apst(False)
            drive.set_power_state(ps)
            drive.idle(1.0)
            transition_ms = drive.set_power_state(0) * 1e3
            row["wake_ms"], row["how"] = transition_ms + _read_ms(ctx, drive, f"wake-up from PS{ps}"), "host sets PS0, then reads"
            if apst:
                drive.set_apst(True)
        else:
            drive.idle(0.001)
            how = "APST took the drive there"
            if not (apst and _reach(drive, ps, _apst_limit_s(power))):
                drive.set_power_state(ps)
                how = "host set the state"
            row["wake_ms"], row["how"] = _read_ms(ctx, drive, f"wake-up from PS{ps}"), how
        row["exit_ms"] = row["wake_ms"] - first_ms
        row["spec_exit_ms"] = power["exit_latency_us"][ps] / 1e3
        row["spec_entry_ms"] = power["entry_latency_us"][ps] / 1e3
    for row in rows:
        result.add("idle_w", row["idle_w"], "W", "", row["state"])
        result.add("wake_ms", row["wake_ms"], "ms", "", row["state"])
        result.add("exit_ms", row["exit_ms"], "ms", "", row["state"])

    # Active power in PS0.
    active = []
    load_s = ctx.seconds(LOAD_SECONDS)
    for label, options in LOADS:
        summary = ctx.run(drive, [*options, f"size={span}", f"runtime={load_s:g}", "time_based", f"data_pattern={INCOMPRESSIBLE}"], f"active: {label}").summary
        moved_gb = (summary["host_read_bytes"] + summary["host_write_bytes"]) / 1e9
        active.append(
            {
                "load": label,
                "power_w": summary["mean_power_watts"],
                "mbps": summary["read_mbps"] + summary["write_mbps"],
                "energy_j_per_gb": summary["energy_joules"] / moved_gb if moved_gb else None,
            }
        )
        result.add("active_w", summary["mean_power_watts"], "W", "incompressible", label)
        result.add("energy_j_per_gb", active[-1]["energy_j_per_gb"], "J/GB", "incompressible", label)
    drive.close()

    states_frame = pd.DataFrame(rows)
    result.tables["power_states"] = states_frame
    result.tables["power_active"] = pd.DataFrame(active)
    if walk:
        result.tables["power_apst_walk"] = pd.DataFrame(walk)
    result.views.append(
        Table(
            "Power states: the profile's descriptors, idle power and wake-up latency measured in simulated time",
            [
                "state",
                "operational",
                "max power (spec), W",
                "idle power, W",
                "entry (spec), ms",
                "exit (spec), ms",
                "wake-up, ms",
                "wake-up less first command, ms",
                "how",
            ],
            [
                [
                    r["state"],
                    "yes" if r["operational"] else "no",
                    f"{r['spec_max_w']:.3g}",
                    f"{r['idle_w']:.3g}",
                    f"{r['spec_entry_ms']:g}",
                    f"{r['spec_exit_ms']:g}",
                    f"{r['wake_ms']:.3f}",
                    f"{r['exit_ms']:.3f}",
                    r["how"],
                ]
                for r in rows
            ],
            [False, False, True, True, True, True, True, True, False],
            csv="power_states",
        )
    )
    result.views.append(
        Table(
            "Active power in PS0 and energy per GB moved",
            ["load", "MB/s", "power, W", "energy, J/GB"],
            [[a["load"], f"{a['mbps']:,.0f}", f"{a['power_w']:.2f}", f"{a['energy_j_per_gb']:.3g}" if a["energy_j_per_gb"] else ""] for a in active],
            [False, True, True, True],
            csv="power_active",
        )
    )
    labels = [r["state"] for r in rows]
    result.charts.append(
        (
            today_charts.log_bars(
                ctx.out_dir / "charts" / "power_states_idle.png",
                ctx.chart_title("Power states: idle power in each state (Set Features, APST off)"),
                labels,
                [r["idle_w"] for r in rows],
                "idle power (W, log scale)",
            ),
            "Idle power in each power state",
        )
    )
    result.charts.append(
        (
            today_charts.log_bars(
                ctx.out_dir / "charts" / "power_states_wake.png",
                ctx.chart_title("Power states: wake-up latency to the first 4 KiB read at QD1"),
                labels,
                [r["wake_ms"] for r in rows],
                "latency (ms, log scale)",
            ),
            "Wake-up latency from each state: the host's request to the first read's completion",
        )
    )
    if walk:
        result.charts.append(
            (
                today_charts.apst_walk_chart(
                    ctx.out_dir / "charts" / "power_states_apst.png",
                    ctx.chart_title("Power states: an idle drive under APST, power every 10 ms"),
                    [r["time_s"] for r in walk],
                    [r["power_w"] for r in walk],
                    [r["state"] for r in walk],
                ),
                "Power of the idle drive as APST moves it down the states",
            )
        )
    bars = [charts.Bar(a["load"], a["power_w"], True, charts.CONDITION_COLORS[i % len(charts.CONDITION_COLORS)]) for i, a in enumerate(active)]
    result.charts.append(
        (
            charts.ranked_bars(
                ctx.out_dir / "charts" / "power_states_active.png",
                ctx.chart_title("Power states: active power in PS0"),
                bars,
                "W",
                lower_is_better=True,
                rank=False,
            ),
            "Active power by load",
        )
    )
    result.ranked.append(
        Ranked(
            "apst_idle_w", "Power: idle with APST", (("", f"after {APST_SECONDS:g} s idle (PS{walk[-1]['state']})" if walk else "", ""),), lower_is_better=True
        )
    )
    result.ranked.append(
        Ranked("energy_j_per_gb", "Power: energy per GB, 128K sequential write QD32", (("incompressible", LOADS[1][0], ""),), lower_is_better=True)
    )
    result.ranked.append(Ranked("active_w", "Power: 128K sequential write QD32", (("incompressible", LOADS[1][0], ""),), lower_is_better=True))
    return result
