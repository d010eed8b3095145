"""SLC cache recovery: how much the cache takes at full speed again after the drive idled for a
while, once a sequential write has exhausted it."""

from __future__ import annotations

import pandas as pd

from ssdlab.lab import charts
from ssdlab.lab.context import ReviewContext
from ssdlab.lab.results import Ranked, SuiteResult
from ssdlab.lab.suites import fill
from ssdlab.lab.tables import size_text

NAME = "cache-recovery"
ERA = "2020s"
TITLE = "SLC cache recovery"
#: Idle periods at full scale, seconds.
IDLE_SECONDS = (30, 300, 1800)
METHOD = (
    "For each idle period, a secure-erased drive: 128 KiB sequential writes at QD32 (incompressible, pieces of {piece} "
    "timed on the simulated clock) until the SLC cache is exhausted (the whole-drive fill's cliff: two consecutive "
    "pieces below 85% of the opening rate, the median of the first five); then the drive idles for {idles} "
    "(folding moves SLC data into native blocks as the NAND allows); then the write continues at the next address "
    "until the cliff again (two consecutive pieces below 85% of the first write's opening rate, after at least one "
    "piece at cache speed, in which the drive's counters show no host data going into SLC; or once it has written "
    "the fresh drive's cache and four pieces more). GB at cache speed: "
    "the pieces of the second write at 85% of the first write's opening rate or faster (the first pieces after an "
    "idle period can be slower: the drive first fills the native blocks it had open when the cache ran out). The "
    "fresh drive's figure is the first write's."
)

METRICS = {
    "cache_speed_gb": "GB written at cache speed",
    "recovered_fraction": "share of the fresh drive's cache recovered",
}


def until_cliff(fraction: float, reference: float | None = None, limit_bytes: float | None = None, cache_left: bool = False):
    """A stop rule for `fill.write_pieces`: two consecutive pieces below `fraction` of the
    reference rate (default: the median of the first five pieces, as the fill rule takes it)
    after at least one piece at or above it; or `limit_bytes` written. With `cache_left`, two
    slow pieces that still wrote host data into SLC (the drive's counters) do not stop it: a
    slowdown while the cache still takes the data is not the cache's end. (A DRAM-less drive's
    map checkpoint slows its cache writes by about a quarter for several seconds; the figure
    stays the GB written at cache speed, counted wherever those pieces are.)"""

    def stop(pieces: list[fill.Piece]) -> bool:
        rates = [p.mbps for p in pieces]
        opening = reference if reference is not None else (float(pd.Series(rates[:5]).median()) if len(rates) >= 5 else None)
        if limit_bytes is not None and sum(p.bytes for p in pieces) >= limit_bytes:
            return True
        if opening is None or len(rates) < 2:
            return False
        fast = [r >= fraction * opening for r in rates]
        if cache_left and (pieces[-1].slc_bytes or pieces[-2].slc_bytes):
            return False
        return any(fast) and not fast[-1] and not fast[-2]

    return stop


def gb_at_speed(pieces: list[fill.Piece], reference: float, fraction: float) -> float:
    """GB written in pieces at or above `fraction` of `reference`. (After an idle period the
    first pieces may be slower: the drive first fills the native blocks it had open when the
    cache ran out, so the fast pieces are counted wherever they are.)"""
    return sum(p.bytes for p in pieces if p.mbps >= fraction * reference) / 1e9


def idle_periods(ctx: ReviewContext) -> list[tuple[float, str]]:
    """This review's idle periods as (simulated seconds, label): `IDLE_SECONDS` times the scale,
    without the one-second floor of other scaled durations, so they keep their ratios and stay
    distinct at any scale (at scale 0.001: 0.03 s, 0.3 s and 1.8 s; with the floor the first
    two were 1 s each, two rows "after 1 s idle" of the same measurement). The label is the
    time as run, to three significant digits (docs/scaled-reviews.md)."""
    return [(ctx.seconds(s, minimum=0.0), ctx.duration_label(s, minimum=0.0)) for s in IDLE_SECONDS]


def run(ctx: ReviewContext) -> SuiteResult:
    # (Imported here: the calibration module reads the suites' tables.)
    from ssdlab.lab.calibration import CLIFF_FRACTION

    piece = fill.piece_bytes(ctx.info())
    idles = idle_periods(ctx)
    result = SuiteResult(NAME, TITLE, METHOD.format(piece=size_text(piece), idles=" / ".join(label for _, label in idles)), METRICS)
    rows = []
    fresh_gb = None
    frames = []
    for seconds, label in idles:
        drive = ctx.new_drive()
        capacity = drive.info["usable_bytes"]
        drive.secure_erase()
        first = fill.write_pieces(ctx, drive, 0, capacity, piece, "exhaust the cache", until_cliff(CLIFF_FRACTION))
        opening = float(pd.Series([p.mbps for p in first[:5]]).median())
        if fresh_gb is None:
            fresh_gb = gb_at_speed(first, opening, CLIFF_FRACTION)
            rows.append(("fresh drive", 0.0, fresh_gb))
        start = first[-1].end_bytes
        if start >= capacity:
            # No cliff: the write reached the drive's end, nothing is left to write after an idle
            # period, so there is no recovery to measure (every idle period would find the same).
            drive.close()
            # The fill suite withholds the fresh drive's figure for the same reason: the rule
            # would count the whole write.
            rows = [("fresh drive", 0.0, None)] + [(f"after {other} idle", s, None) for s, other in idles]
            frames.append(fill.frame(first).assign(idle="-", phase="exhaust"))
            result.notes.append(
                "No cliff: the drive wrote its whole user space at the opening rate (no SLC cache, or one no faster than "
                "its native writes), so the cache's end and its recovery cannot be seen in the write speed: no figure after idle."
            )
            break
        drive.idle(seconds)
        # At most the fresh drive's cache and four pieces more: a recovered cache is no larger.
        limit = fresh_gb * 1e9 + 4 * piece
        again = fill.write_pieces(ctx, drive, start, capacity, piece, f"write after {label} idle", until_cliff(CLIFF_FRACTION, opening, limit, cache_left=True))
        drive.close()
        rows.append((f"after {label} idle", seconds, gb_at_speed(again, opening, CLIFF_FRACTION)))
        for phase, pieces, offset in (("exhaust", first, 0), ("after idle", again, start)):
            f = fill.frame(pieces, offset)
            f["idle"] = label
            f["phase"] = phase
            frames.append(f)
    throttled = []
    for i, f in enumerate(frames):
        if i and f["phase"].iloc[0] == "exhaust":
            continue  # every idle period's first write is the same write on a fresh drive
        where = fill.throttling(f)
        if where:
            label, phase = f["idle"].iloc[0], f["phase"].iloc[0]
            write = "the first write" if phase == "exhaust" else f"the write after {label} idle"
            throttled.append(f"In {write}, {where}.")
    if throttled:
        result.notes.append(
            "The drive throttled in these writes (its thermal model at the profile's ambient temperature), so their speeds "
            "include throttling, and a throttled piece can fall below the cache-speed threshold while the cache still takes "
            "the data. " + " ".join(throttled)
        )
    for condition, _, gb in rows:
        result.add("cache_speed_gb", gb, "GB", "incompressible", condition)
        if gb is None:
            result.withhold("cache_speed_gb", fill.NO_CLIFF, "incompressible", condition)
        result.add("recovered_fraction", gb / fresh_gb if fresh_gb and gb is not None else None, "x", "incompressible", condition)
    result.tables["cache_recovery"] = pd.DataFrame(rows, columns=["condition", "idle_seconds", "gb_at_cache_speed"])
    result.tables["cache_recovery_pieces"] = pd.concat(frames, ignore_index=True)
    bars = [
        charts.Bar(condition, gb, True, charts.CONDITION_COLORS[i % len(charts.CONDITION_COLORS)])
        for i, (condition, _, gb) in enumerate(rows)
        if gb is not None
    ]
    chart = charts.ranked_bars(
        ctx.out_dir / "charts" / "cache_recovery.png",
        ctx.chart_title("SLC cache recovery: GB written at cache speed after an idle period"),
        bars,
        "GB at cache speed",
        rank=False,
    )
    result.charts.append((chart, "GB written at cache speed on a fresh drive and after each idle period"))
    result.ranked.append(
        Ranked("cache_speed_gb", f"SLC cache recovery: GB at cache speed after {idles[0][1]} idle", (("incompressible", f"after {idles[0][1]} idle", ""),))
    )
    return result
