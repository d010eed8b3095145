"""How a scaled review (`--scale s < 1`) shrinks a drive while keeping the ratios that decide its
garbage collection.

A drive is shrunk by giving each die fewer blocks (`nand.blocks_per_plane`): dies, channels,
planes, pages and timings stay, so the array's parallelism and every rate (host, bus, NAND,
background GC per host unit) stay. What does not shrink with the blocks is what the firmware
counts in whole blocks per die: the free blocks GC keeps (its low-water mark, the high mark of
a burst or background schedule) and the open blocks. On a full-size die they are a few blocks
in two thousand; on a die shrunk to a hundred blocks they take a third of its spare area, and GC
then works with much less room than on the full drive (higher write amplification, a background
GC that falls behind where the full drive's keeps up).

So the user capacity is not shrunk with the raw capacity alone: it keeps its ratio to the blocks
that can hold data, the die's blocks less those GC keeps out of use (`gc_reserve_blocks_per_die`).
The spare area left for GC to work with keeps its share of the die, and steady-state write
amplification, free-block levels and per-second IOPS stay those of the full drive. The price:
a scaled drive reports a larger spare/raw than the full drive (the reserve is a larger share of
its blocks), and its capacity is not exactly `scale` times the full one.

Background GC's start mark is not a share of the die but a buffer in absolute blocks (how long a
die copies at the bounded rate before it falls to its low-water mark), like a burst's size, so
it stays; but the reserve it holds depends on whether background GC keeps up, which is only
estimated, and on a small die the mark is reached early in the spare area. A drive with
background GC therefore keeps at least `REPRESENTATIVE_SPARE_BLOCKS_PER_DIE` spare blocks per
die from scale `REPRESENTATIVE_FROM_SCALE` up (fewer below, in proportion), and tests that write
over the whole drive for a time scale their durations with the capacity, not with `scale`
(`ReviewContext.span_seconds`). `not_representative` says what a scaled IO-consistency run
does not represent.
"""

from __future__ import annotations

import math

from ssdlab import _native

#: Spare blocks per die a scaled drive with background GC keeps at least, from scale
#: `REPRESENTATIVE_FROM_SCALE` up: its start mark (6 free blocks on the built-in profiles) and the
#: reserve then stay a small share of the spare area. Below that scale the floor shrinks in
#: proportion (quick looks stay quick) and the IO-consistency figures are not representative.
REPRESENTATIVE_SPARE_BLOCKS_PER_DIE = 32
#: The smallest scale at which a background-GC drive keeps `REPRESENTATIVE_SPARE_BLOCKS_PER_DIE`.
REPRESENTATIVE_FROM_SCALE = 0.05

#: On average half of each open block (host and GC) holds data: together one block per die
#: that holds none.
OPEN_BLOCKS_EMPTY_PER_DIE = 1.0


def gc_reserve_blocks_per_die(base: dict) -> float:
    """Blocks per die the firmware keeps out of data in steady random writes: the free blocks
    its GC schedule holds, plus the empty half of the two open blocks.

    `paced` GC holds a die at its low-water mark (half a block above it on average, the victim
    in progress); `burst` GC swings between the low-water mark and its high mark (their middle);
    `background` GC holds the die at its high mark while the write amplification greedy GC
    needs at the drive's spare factor (the finite-block analytic model, over the user space the
    test uses) is within its rate, else the die falls to its low-water mark and is held there as
    `paced` holds it.

    `base` is the profile as a parsed TOML table."""
    ftl = base["ftl"]
    low = float(ftl["gc_low_free_blocks_per_die"])
    schedule = ftl.get("gc_schedule", "paced")
    high = float(ftl.get("gc_high_free_blocks_per_die", low + 1))
    if schedule == "burst":
        free = (low + high) / 2
    elif schedule == "background" and greedy_wa_of(base) - 1.0 <= ftl.get("gc_background_units_per_host_unit", 1):
        free = high + 0.5
    else:
        free = low + 0.5
    return free + OPEN_BLOCKS_EMPTY_PER_DIE


def greedy_wa_of(base: dict) -> float:
    """Steady-state write amplification of greedy GC under uniform random 4 KiB writes over the
    user space of the profile `base` that is used (less `drive.reserved_user_fraction`), by the
    finite-block analytic model."""
    used = base["drive"]["capacity_bytes_user"] * (1.0 - base["drive"].get("reserved_user_fraction", 0.0))
    spare_factor = 1.0 - used / raw_bytes(base)
    nand = base["nand"]
    slots_per_block = nand["planes_per_die"] * nand["pages_per_block"] * nand["page_bytes"] // 4096
    return _native.greedy_wa(max(1e-6, min(spare_factor, 1 - 1e-6)), slots_per_block)


def raw_bytes(base: dict) -> int:
    """Raw capacity of the profile's array in bytes."""
    nand = base["nand"]
    dies = nand["channels"] * nand["packages_per_channel"] * nand["dies_per_package"]
    return dies * nand["planes_per_die"] * nand["blocks_per_plane"] * nand["pages_per_block"] * nand["page_bytes"]


def scaled_blocks_and_capacity(base: dict, scale: float) -> tuple[int, int]:
    """Blocks per plane and user capacity in bytes of the profile `base` shrunk to `scale`
    (below 1): `scale` times the blocks (at least 24, and enough spare blocks per die for the
    GC schedule's marks, two open blocks and a margin), and the user capacity that keeps the
    full drive's ratio of user data to the blocks that can hold data (see the module's doc)."""
    blocks = base["nand"]["blocks_per_plane"]
    user = base["drive"]["capacity_bytes_user"]
    ftl = base["ftl"]
    spare_over_raw = 1.0 - user / raw_bytes(base)
    if spare_over_raw <= 0:
        # No spare area: left unshrunk, for the drive to refuse with its own one-line error.
        return blocks, user
    high = ftl.get("gc_high_free_blocks_per_die", 0) if ftl.get("gc_schedule", "paced") != "paced" else 0
    # (A smaller spare caps the schedule's high mark; keeping room for it keeps the schedule.)
    needed = max(ftl["gc_low_free_blocks_per_die"], high) + 4
    if ftl.get("gc_schedule", "paced") == "background":
        needed = max(needed, spare_floor_blocks_per_die(scale))
    new_blocks = min(blocks, max(24, int(blocks * scale), math.ceil(needed / spare_over_raw)))
    if new_blocks >= blocks:
        return blocks, user
    reserve = gc_reserve_blocks_per_die(base)
    capacity = user * (new_blocks - reserve) / (blocks - reserve)
    return new_blocks, int(capacity) // 4096 * 4096


def spare_floor_blocks_per_die(scale: float) -> float:
    """Spare blocks per die a drive with background GC keeps at `scale` at least."""
    return REPRESENTATIVE_SPARE_BLOCKS_PER_DIE * min(1.0, scale / REPRESENTATIVE_FROM_SCALE)


def spare_blocks_per_die(base: dict) -> float:
    """Spare blocks per die of the profile `base` (raw less user capacity, in blocks)."""
    nand = base["nand"]
    dies = nand["channels"] * nand["packages_per_channel"] * nand["dies_per_package"]
    block_bytes = nand["planes_per_die"] * nand["pages_per_block"] * nand["page_bytes"]
    return (raw_bytes(base) - base["drive"]["capacity_bytes_user"]) / (dies * block_bytes)


def capacity_ratio(base: dict, scale: float) -> float:
    """The scaled drive's user capacity over the full drive's."""
    return scaled_blocks_and_capacity(base, scale)[1] / base["drive"]["capacity_bytes_user"]


def not_representative(base: dict, scale: float, window_seconds: float) -> list[str]:
    """What the IO-consistency figures of the profile `base` at `scale` (below 1) do not
    represent, one sentence each: a background-GC drive below `REPRESENTATIVE_FROM_SCALE`
    (its GC marks take a large share of the spare area), and the tail percentiles of a
    steady-state window of fewer than 100 seconds."""
    notes = []
    if base["ftl"].get("gc_schedule", "paced") == "background" and scale < REPRESENTATIVE_FROM_SCALE:
        notes.append(
            f"Below scale {REPRESENTATIVE_FROM_SCALE:g} this drive's background GC marks take a large share of the "
            "scaled drive's spare area: steady-state IOPS and their spread are not representative of the full drive."
        )
    seconds = int(window_seconds)
    if seconds < 100:
        notes.append(
            f"The steady-state window has {seconds} one-second samples (600 at full scale): its 1st and 99th "
            "percentiles rest on its extreme one or two seconds and vary more from seed to seed than at full scale."
        )
    return notes
