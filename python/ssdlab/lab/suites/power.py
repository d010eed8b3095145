"""Power: idle, sequential write and 4 KiB random write at QD32, from the energy model."""

from __future__ import annotations

from ssdlab.lab.context import GB, INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.results import Ranked, SuiteResult

NAME = "power"
ERA = "2012"  # the review era (and preset) this test belongs to
#: CPU seconds the suite took in a full-scale review of force-gs-240 (a parallel review runs the
#: longest jobs first; see `ssdlab.lab.parallel`).
WEIGHT = 37.0
TITLE = "Power"
METHOD = (
    "Mean power from the energy model (energy per page read and program, per block erase, per byte on the "
    "channels, controller active power, idle power of controller and array): idle for {d}, 128 KiB "
    "sequential writes at QD32 for {d}, 4 KiB random writes at QD32 over {span} for {d} (incompressible). "
    "Idle is measured twice: on the secure-erased drive, where idle GC has nothing to do, and on a drive "
    "tortured first (filled, then one drive write of 4 KiB random writes, both untimed), where the firmware's "
    "idle GC runs in the idle time and its reads, programs and erases count in the mean power."
)


METRICS = {
    "idle": "idle",
    "idle_after_torture": "idle after random writes (idle GC running)",
    "seq_write": "sequential write",
    "rand_write_4k_qd32": "4K random write QD32",
}


def idle_watts(drive, seconds: float) -> float:
    """Mean power over `seconds` of idle: the model's idle power plus the energy of whatever
    the drive does meanwhile (idle GC)."""
    before = drive.state()["operation_energy_joules"]
    drive.idle(seconds)
    work = drive.state()["operation_energy_joules"] - before
    return drive.info["idle_watts"] + work / seconds


def run(ctx: ReviewContext) -> SuiteResult:
    result = SuiteResult(NAME, TITLE, METHOD.format(d=ctx.duration_label(60), span=ctx.span_label(8 * GB, "8 GB")), METRICS)
    drive = ctx.new_drive()
    drive.secure_erase()
    seconds = ctx.seconds(60)
    result.add("idle", idle_watts(drive, seconds), "W", "", "idle")
    tortured = ctx.new_drive()
    data = f"data_pattern={INCOMPRESSIBLE}"
    ctx.precondition(tortured, ["rw=write", "bs=128k", "iodepth=32", data], "fill")
    ctx.precondition(tortured, ["rw=randwrite", "bs=4k", "iodepth=32", data], "random writes")
    result.add("idle_after_torture", idle_watts(tortured, seconds), "W", "", "idle after random writes")
    seq = ctx.run(drive, ["rw=write", "bs=128k", "iodepth=32", f"runtime={seconds}", "time_based", data], "sequential write").summary
    rnd = ctx.run(
        drive,
        ["rw=randwrite", "bs=4k", "iodepth=32", f"size={ctx.span_bytes(8 * GB)}", f"runtime={seconds}", "time_based", data],
        "4K random write",
    ).summary
    result.add("seq_write", seq["mean_power_watts"], "W", "incompressible", "load")
    result.add("rand_write_4k_qd32", rnd["mean_power_watts"], "W", "incompressible", "load")
    result.ranked.append(Ranked("idle", "Power: idle", (("", "idle", ""),), lower_is_better=True))
    after = (("", "idle after random writes", ""),)
    result.ranked.append(Ranked("idle_after_torture", "Power: idle after random writes (idle GC)", after, lower_is_better=True))
    result.ranked.append(Ranked("seq_write", "Power: 128K sequential write QD32, incompressible", (("incompressible", "load", ""),), lower_is_better=True))
    result.ranked.append(Ranked("rand_write_4k_qd32", "Power: 4K random write QD32, incompressible", (("incompressible", "load", ""),), lower_is_better=True))
    return result
