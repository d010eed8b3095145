"""AS-SSD sequential: incompressible 16 MiB transfers at QD1 over a 1 GB test file."""

from __future__ import annotations

from ssdlab.drive import Drive
from ssdlab.lab.context import GB, INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.results import Ranked, SuiteResult

NAME = "as-ssd"
ERA = "2012"  # the review era (and preset) this test belongs to
TITLE = "AS-SSD incompressible sequential"
METHOD = (
    "AS-SSD writes a {size} test file of incompressible data, reads it back sequentially in 16 MiB transfers at "
    "QD1, then rewrites it; MB/s of the read and the write. Clean: on a secure-erased drive."
)


def measure(ctx: ReviewContext, drive: Drive, condition: str) -> dict:
    """Run AS-SSD's sequential test on `drive` as it is; returns read and write MB/s, and the
    two runs' summaries under "runs"."""
    size = ctx.span_bytes(1 * GB)
    data = f"data_pattern={INCOMPRESSIBLE}"
    ctx.precondition(drive, ["rw=write", "bs=16m", "iodepth=1", f"size={size}", data], f"AS-SSD test file ({condition})")
    read = ctx.run(drive, ["rw=read", "bs=16m", "iodepth=1", f"size={size}"], f"AS-SSD read ({condition})").summary
    write = ctx.run(drive, ["rw=write", "bs=16m", "iodepth=1", f"size={size}", data], f"AS-SSD write ({condition})").summary
    return {"read": read["read_mbps"], "write": write["write_mbps"], "runs": {"read": read, "write": write}}


METRICS = {"seq_read": "sequential read", "seq_write": "sequential write"}


def run(ctx: ReviewContext) -> SuiteResult:
    result = SuiteResult(NAME, TITLE, METHOD.format(size=ctx.span_label(1 * GB, "1 GB")), METRICS)
    drive = ctx.new_drive()
    drive.secure_erase()
    figures = measure(ctx, drive, "clean")
    result.add("seq_read", figures["read"], "MB/s", "incompressible", "clean", run=figures["runs"]["read"])
    result.add("seq_write", figures["write"], "MB/s", "incompressible", "clean", run=figures["runs"]["write"])
    clean = (("incompressible", "clean", ""),)
    result.ranked.append(Ranked("seq_read", "AS-SSD sequential read, incompressible, clean drive", clean))
    result.ranked.append(Ranked("seq_write", "AS-SSD sequential write, incompressible, clean drive", clean))
    return result
