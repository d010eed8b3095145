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
"""

from __future__ import annotations

import math

from ssdlab import _native

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


def scaled_background_mark(base: dict, blocks_ratio: float) -> int | None:
    """The background GC schedule's start mark (free blocks per die) on a die with
    `blocks_ratio` of the blocks: the same share of the die's blocks, but at least one above
    the low-water mark. None when the schedule is not `background` (a burst's high mark stays:
    the blocks a burst reclaims set how long the die is busy, which does not shrink)."""
    ftl = base["ftl"]
    if ftl.get("gc_schedule", "paced") != "background":
        return None
    low = ftl["gc_low_free_blocks_per_die"]
    return min(ftl["gc_high_free_blocks_per_die"], max(low + 1, round(ftl["gc_high_free_blocks_per_die"] * blocks_ratio)))


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
    high = ftl.get("gc_high_free_blocks_per_die", 0) if ftl.get("gc_schedule", "paced") != "paced" else 0
    # (A smaller spare caps the schedule's high mark; keeping room for it keeps the schedule.)
    needed = max(ftl["gc_low_free_blocks_per_die"], high) + 4
    new_blocks = min(blocks, max(24, int(blocks * scale), math.ceil(needed / spare_over_raw)))
    if new_blocks >= blocks:
        return blocks, user
    full_reserve = gc_reserve_blocks_per_die(base)
    mark = scaled_background_mark(base, new_blocks / blocks)
    scaled = base if mark is None else {**base, "ftl": {**ftl, "gc_high_free_blocks_per_die": mark}}
    reserve = gc_reserve_blocks_per_die(scaled)
    capacity = user * (new_blocks - reserve) / (blocks - full_reserve)
    return new_blocks, int(capacity) // 4096 * 4096


def capacity_ratio(base: dict, scale: float) -> float:
    """The scaled drive's user capacity over the full drive's."""
    return scaled_blocks_and_capacity(base, scale)[1] / base["drive"]["capacity_bytes_user"]
