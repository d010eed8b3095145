"""Degradation grows with torture time (issue 21).

After a sequential fill, 4 KiB random writes at QD32 move a growing share of the user space out
of the fill's whole, sequential blocks into blocks of randomly mixed sectors: after x drive
writes a share 1 - exp(-x) of the sectors has been rewritten at random. A whole-surface HD Tach
pass after the torture sees that share: on a conventional drive its sequential writes must
collect blocks whose valid data the pass invalidates only slowly (more GC copies per byte), on a
SandForce drive its sequential reads find more sectors in chunks scattered over separate pages
(more page reads per byte). A torture three times longer rewrites a larger share, so the pass
after 60 minutes must be markedly slower than after 20 minutes, from that mechanism alone (the
random-write rate itself is at greedy GC's steady state within the first minutes; see
docs/validation.md).

Scale 0.05: capacity and torture time shrink together, so the drive writes of each torture
are those of the full-size test.
"""

from pathlib import Path

import pytest

from ssdlab.lab.context import INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.suites import hdtach
from ssdlab.lab.suites.resiliency import _torture

SCALE = 0.05


def after_torture(profile: str, minutes: float, out: Path) -> dict:
    """HD Tach read and write averages (MB/s) after `minutes` of incompressible torture."""
    ctx = ReviewContext(profile, [], scale=SCALE, out_dir=out)
    drive = ctx.new_drive()
    _torture(ctx, drive, INCOMPRESSIBLE, minutes, "torture time")
    _, averages = hdtach.measure(ctx, drive, "after torture")
    return averages


@pytest.mark.parametrize(
    ("profile", "direction", "most"),
    [
        # Conventional controller: the write pass pays GC for the mixed blocks.
        ("conventional-240", "write", 0.92),
        # SandForce SF-2281: the read pass reads scattered chunks page by page.
        ("force-gs-240", "read", 0.95),
    ],
)
def test_sixty_minutes_of_torture_degrade_more_than_twenty(profile, direction, most, tmp_path):
    twenty = after_torture(profile, 20, tmp_path)
    sixty = after_torture(profile, 60, tmp_path)
    ratio = sixty[direction] / twenty[direction]
    run20, run60 = twenty["runs"][direction], sixty["runs"][direction]
    cost = "write_amplification" if direction == "write" else "nand_reads_per_read_sector"
    print(
        f"{profile}: HD Tach {direction} after 20 min {twenty[direction]:.1f} MB/s ({cost} {run20[cost]:.2f}), "
        f"after 60 min {sixty[direction]:.1f} MB/s ({cost} {run60[cost]:.2f}): 60/20 = {ratio:.3f}"
    )
    # The mechanism, not only the figure: the pass's added work grows with the torture.
    assert run60[cost] > 1.1 * run20[cost], (run20[cost], run60[cost])
    assert ratio < most, ratio
