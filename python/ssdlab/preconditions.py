"""Preconditioning steps applied before a measured job.

- ``secure-erase``: ATA SECURE ERASE (every block erased, every mapping dropped).
- ``seq-fill``: write the whole usable span once, 128 KiB sequential at QD32.
- ``rand-fill``: 4 KiB random writes at QD32 amounting to twice the usable span (the SNIA
  steady-state convention), after which GC is in steady state for uniform random writes.
- ``idle:SECONDS``: leave the drive idle so idle-time GC can work (a number of seconds, or a
  time as fio writes it: ``idle:500ms``, ``idle:5m``).
- ``trim-all``: TRIM the whole usable span (what a format does).
"""

from ssdlab.errors import WorkloadError

SEQUENTIAL_FILL = ["rw=write", "bs=128k", "iodepth=32"]
RANDOM_FILL = ["rw=randwrite", "bs=4k", "iodepth=32"]
TRIM_ALL = ["rw=trim", "bs=1g", "iodepth=1"]


def trim_all_options(usable_bytes: int) -> list[str]:
    """TRIM of the whole usable span: 1 GiB commands, or one command of the whole span on a
    drive smaller than that (a shortened review's drive)."""
    bs = min(1 << 30, usable_bytes // 4096 * 4096)
    return ["rw=trim", f"bs={bs}", "iodepth=1"]


NAMES = ("secure-erase", "seq-fill", "rand-fill", "trim-all", "idle:SECONDS")


def parse(step: str) -> tuple[str, float | None]:
    """Validate one step name; returns ``(kind, seconds)``."""
    if step in ("secure-erase", "seq-fill", "rand-fill", "trim-all"):
        return step, None
    if step.startswith("idle:"):
        text = step.split(":", 1)[1]
        try:
            seconds = float(text)
        except ValueError:
            from ssdlab import _native

            try:
                seconds = _native.parse_time_ns(text, "s") / 1e9
            except ValueError:
                seconds = -1.0
        if not seconds >= 0:
            raise WorkloadError(f"precondition {step!r}: expected idle:SECONDS with a non-negative number")
        return "idle", seconds
    raise WorkloadError(f"unknown precondition {step!r} (expected one of: {', '.join(NAMES)})")
