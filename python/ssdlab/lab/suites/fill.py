"""Whole-drive fill: write speed against GB written from a secure-erased drive, the SLC cache's
size, the rate after it and the average (the figures reviews of today's drives give)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from ssdlab import _native
from ssdlab.drive import Drive
from ssdlab.lab import today_charts
from ssdlab.lab.context import INCOMPRESSIBLE, ReviewContext
from ssdlab.lab.results import Ranked, SuiteResult
from ssdlab.lab.tables import size_text

NAME = "fill"
ERA = "2020s"
TITLE = "Whole-drive fill"
#: Pieces a whole fill is written in (at most): each is timed on the simulated clock, so the
#: speed is known per 1/2000 of the drive (0.5 GB of a 1 TB drive) however short the run.
PIECES = 2000
BLOCK = 128 * 1024
METHOD = (
    "Secure erase, then 128 KiB sequential writes of incompressible data at QD32 over the whole user space "
    "({capacity}), in {pieces:,} consecutive pieces of {piece} (one fio job each, timed on the simulated clock): "
    "write speed against GB written. The figures follow the calibration page's whole-drive-fill rule "
    "(fill_figures in lab/calibration.py) applied to the pieces: the opening rate is the median of the first five; "
    "the cliff is the first of two consecutive pieces below 85% of it; the SLC cache is what was written before "
    "the cliff; the post-cache rate is the median from the cliff on; the average is all bytes over all time. "
    "Without a cliff the fill shows no cache: no cache size, cache or post-cache rate is given. "
    "Where the data landed (SLC, native blocks, folding) comes from the drive's own tier counters."
)
#: What the headline figures show for the cache's figures of a fill without a cliff.
NO_CLIFF = "none (no cliff)"

METRICS = {
    "cache_gb": "SLC cache written at full speed",
    "cache_write_mbps": "write speed in the SLC cache",
    "post_cache_mbps": "write speed after the cache",
    "average_mbps": "average over the whole fill",
    "slc_host_gb": "host data written into SLC (drive's counters)",
    "native_host_gb": "host data written directly to native blocks (drive's counters)",
    "fold_gb": "data folded from SLC into native blocks (drive's counters)",
}


@dataclass(frozen=True)
class Piece:
    """One timed piece of a sequential write."""

    end_bytes: int
    seconds: float
    bytes: int
    slc_bytes: int
    native_bytes: int
    fold_bytes: int
    #: The firmware's throttling step when the piece ended (0: not throttling); None for a
    #: drive without a thermal model.
    throttle_step: int | None = None

    @property
    def mbps(self) -> float:
        return self.bytes / 1e6 / self.seconds if self.seconds > 0 else 0.0


def piece_bytes(info: dict) -> int:
    """The size of one piece: 1/`PIECES` of the user space (`info`: the drive's facts), but at
    least twice the drive's write buffer; whole 128 KiB blocks. The first pieces of a write
    run faster than the NAND while the buffer fills (it fills at the link's rate less the
    NAND's, so it takes up to 3.3 buffers of data on today's profiles): with pieces of two
    buffers that is at most two pieces, and the fill rule's median of the first five skips
    them."""
    buffer = tomllib.loads(info["source"]).get("controller", {}).get("write_buffer_bytes", 0)
    return max(BLOCK, info["usable_bytes"] // PIECES, 2 * buffer) // BLOCK * BLOCK


def write_pieces(
    ctx: ReviewContext, drive: Drive, start: int, end: int, piece: int, label: str, stop: Callable[[list[Piece]], bool] | None = None
) -> list[Piece]:
    """128 KiB sequential writes at QD32 from byte `start` to `end` in pieces of `piece` bytes,
    each timed on the simulated clock; stops early when `stop(pieces so far)` says so. Progress
    is reported as one job (`label`), not one per piece."""
    pieces: list[Piece] = []
    offset = start
    began = drive.now_seconds
    name = f"{ctx.suite}: {label}" if ctx.suite else label
    options = ["rw=write", f"bs={BLOCK}", "iodepth=32", f"data_pattern={INCOMPRESSIBLE}"]
    while offset < end:
        size = min(piece, end - offset)
        before = drive.now_seconds
        # Every byte of the span, the last piece's last block cut to its end (fill=True).
        run = drive.run(job=_native.job_from_options(label, [*options, f"offset={offset}", f"size={size}"], fill=True))
        tiers = run.summary.get("tiers")
        if tiers is None:
            # A drive without an SLC cache reports no tiers: every host byte went to native blocks.
            tiers = {"native_write_bytes": run.summary.get("host_write_bytes", 0)}
        thermal = drive.state().get("thermal")
        offset += size
        pieces.append(
            Piece(
                offset,
                drive.now_seconds - before,
                size,
                tiers.get("slc_write_bytes", 0),
                tiers.get("native_write_bytes", 0),
                tiers.get("fold_write_bytes", 0),
                int(thermal["throttle_step"]) if thermal else None,
            )
        )
        done = offset >= end or (stop is not None and stop(pieces))
        if ctx.progress is not None:
            ctx.progress(name, 1.0 if done else (offset - start) / (end - start), drive.now_seconds - began, (offset - start) // BLOCK)
        if done:
            break
    return pieces


def frame(pieces: list[Piece], start_bytes: int = 0) -> pd.DataFrame:
    """The pieces as a series: GB written (at each piece's end, from `start_bytes`), MB/s, the
    seconds each took (`span_seconds`, as fill_figures reads it), cumulative tier counters, and
    (for a drive with a thermal model) the throttling step each piece ended in."""
    columns = {
        "gb_written": [(p.end_bytes - start_bytes) / 1e9 for p in pieces],
        "write_mbps": [p.mbps for p in pieces],
        "span_seconds": [p.seconds for p in pieces],
        "slc_gb": pd.Series([p.slc_bytes for p in pieces], dtype="float64").cumsum() / 1e9,
        "native_gb": pd.Series([p.native_bytes for p in pieces], dtype="float64").cumsum() / 1e9,
        "fold_gb": pd.Series([p.fold_bytes for p in pieces], dtype="float64").cumsum() / 1e9,
    }
    if any(p.throttle_step is not None for p in pieces):
        columns["throttle_step"] = [p.throttle_step or 0 for p in pieces]
    return pd.DataFrame(columns)


def cache_rate(series: pd.DataFrame, cache_gb: float) -> float | None:
    """Mean write speed of the pieces wholly inside the cache (bytes over seconds)."""
    inside = series[series["gb_written"] <= cache_gb]
    seconds = inside["span_seconds"].sum()
    return float(inside["gb_written"].iloc[-1] * 1e3 / seconds) if len(inside) and seconds > 0 else None


def no_cliff_note(series: pd.DataFrame, average_mbps: float) -> str:
    """The note on a fill without a cliff (`series` as `frame` gives it): the speeds it ran at,
    that it shows no cache, and where its data went by the drive's tier counters (and how fast
    the pieces that went wholly into SLC and wholly into native blocks ran)."""
    from ssdlab.lab.calibration import CLIFF_FRACTION

    rates = series["write_mbps"]
    opening = float(rates.iloc[:5].median())
    # (The last piece may be a short one: its rate is left out of the range.)
    whole = rates.iloc[:-1] if len(rates) > 1 else rates
    low, high = f"{whole.min():,.0f}", f"{whole.max():,.0f}"
    speed = f"at one speed, {low} MB/s" if low == high else f"at {low} to {high} MB/s a piece, {average_mbps:,.0f} MB/s on average"
    text = (
        f"No cliff: the write speed never fell below {CLIFF_FRACTION:.0%} of its opening rate ({opening:,.0f} MB/s) for two "
        f"pieces in a row; the whole fill of {size_text(series['gb_written'].iloc[-1] * 1e9)} ran {speed}. It shows no SLC "
        "cache, so no figure is given for the cache's size (the rule would count the whole fill), its write speed or the "
        "speed after it. "
    )
    slc, native = series["slc_gb"].iloc[-1] * 1e9, series["native_gb"].iloc[-1] * 1e9
    if slc <= 0:
        return text + f"The drive's counters put no host data into SLC ({size_text(native)} directly into native blocks)."
    text += f"The drive's counters put {size_text(slc)} of host data into SLC and {size_text(native)} directly into native blocks"
    into_slc, into_native = series["slc_gb"].diff().fillna(series["slc_gb"]), series["native_gb"].diff().fillna(series["native_gb"])
    gb = series["gb_written"].diff().fillna(series["gb_written"])
    speeds = []
    for tier, only in (("SLC", (into_slc > 0) & (into_native <= 0)), ("native blocks", (into_native > 0) & (into_slc <= 0))):
        seconds = series["span_seconds"][only].sum()
        if seconds > 0:
            speeds.append(f"{gb[only].sum() * 1e3 / seconds:,.0f} MB/s into {tier}")
    return text + (f" (pieces written wholly there: {' and '.join(speeds)})." if speeds else ".")


def throttling(series: pd.DataFrame) -> str | None:
    """Where a write's throttling began (`series` as `frame` gives it, with a `throttle_step`
    column for a drive with a thermal model), as a phrase, or None when the drive did not
    throttle: where the first piece that ended throttled ended and the share of such pieces."""
    if "throttle_step" not in series or not (series["throttle_step"] > 0).any():
        return None
    throttled = series["throttle_step"] > 0
    first = int(throttled.to_numpy().argmax())
    seconds = float(series["span_seconds"].iloc[: first + 1].sum())
    return (
        f"the first piece that ended throttled ended at {size_text(series['gb_written'].iloc[first] * 1e9)} "
        f"({seconds:,.1f} s in), and {throttled.mean():.0%} of the pieces ended throttled"
    )


def counters_note(series: pd.DataFrame, cache_gb: float, piece: int) -> str | None:
    """A note when the drive's tier counters disagree with the cache the write speed shows
    (`cache_gb`, what the fill rule found before its cliff): host data still going into SLC well
    after the cliff (the slowdown was not the cache running out), or far less host data in SLC
    than was written at full speed (native writes kept the cache's speed). None when they agree
    within a tenth of the cache or two pieces."""
    from ssdlab.lab.calibration import CLIFF_FRACTION

    slc = series["slc_gb"]
    total = float(slc.iloc[-1])
    margin = max(0.1 * cache_gb, 2 * piece / 1e9)
    at_cliff = int((series["gb_written"] < cache_gb).sum())  # the piece the cliff falls in
    before = float(slc.iloc[min(at_cliff, len(slc) - 1)])
    found = f"The write speed shows {size_text(cache_gb * 1e9)} written at cache speed"
    if total - before > margin:
        steps = series["throttle_step"] if "throttle_step" in series else None
        hot = steps is not None and bool((steps.iloc[: at_cliff + 2] > 0).any())
        why = "the drive throttling (see the note on throttling), not" if hot else "not"
        return (
            f"{found}, but the drive's counters show it still writing host data into SLC after that "
            f"({size_text((total - before) * 1e9)} more, {size_text(total * 1e9)} in all): the slowdown at the cliff is "
            f"{why} the SLC cache running out, and the cache figures here measure that slowdown."
        )
    if total < cache_gb - margin:
        folds = series["fold_gb"]
        folding = at_cliff < len(folds) and float(folds.iloc[at_cliff]) > float(folds.iloc[max(at_cliff - 2, 0)])
        where = " it is where the drive began folding SLC data into native blocks while writing" if folding else " it is a later slowdown"
        return (
            f"{found}, but the drive's counters put only {size_text(total * 1e9)} of host data into SLC: after that its writes "
            f"to native blocks ran at {CLIFF_FRACTION:.0%} of the opening rate or faster, so the cliff at "
            f"{size_text(cache_gb * 1e9)} is not the cache's end;{where}."
        )
    return None


def run(ctx: ReviewContext) -> SuiteResult:
    # (Imported here: the calibration module reads the suites' tables.)
    from ssdlab.lab.calibration import fill_figures

    drive = ctx.new_drive()
    capacity = drive.info["usable_bytes"]
    piece = piece_bytes(drive.info)
    result = SuiteResult(NAME, TITLE, METHOD.format(capacity=size_text(capacity), pieces=-(-capacity // piece), piece=size_text(piece)), METRICS)
    drive.secure_erase()
    series = frame(write_pieces(ctx, drive, 0, capacity, piece, "whole-drive fill"))
    figures = fill_figures(series)
    cliff = figures["cliff"]
    pattern = "incompressible"
    if cliff:
        result.add("cache_gb", figures["cache_gb"], "GB", pattern)
        result.add("cache_write_mbps", cache_rate(series, figures["cache_gb"]), "MB/s", pattern)
        result.add("post_cache_mbps", figures["post_cache_mbps"] or None, "MB/s", pattern)
    else:
        # The rule finds no end of a cache: what it would call the cache is the whole fill, which
        # is no measure of the SLC cache (the drive's counters say where the data went).
        for key in ("cache_gb", "cache_write_mbps", "post_cache_mbps"):
            result.withhold(key, NO_CLIFF, pattern)
    result.add("average_mbps", figures["average_mbps"], "MB/s", pattern)
    last = series.iloc[-1]
    result.add("slc_host_gb", last["slc_gb"], "GB", pattern)
    result.add("native_host_gb", last["native_gb"], "GB", pattern)
    result.add("fold_gb", last["fold_gb"], "GB", pattern)
    result.tables["fill"] = series
    if cliff and figures["post_cache_mbps"] and figures["cache_gb"] * 1e9 < 5 * piece:
        result.notes.append(
            f"The cache found ({figures['cache_gb']:,.3g} GB) is under five pieces of {size_text(piece)}: the rule's opening rate "
            "is partly the post-cache rate, so these figures are not reliable at this scale."
        )
    if not cliff:
        result.notes.append(no_cliff_note(series, figures["average_mbps"]))
    else:
        disagree = counters_note(series, figures["cache_gb"], piece)
        if disagree:
            result.notes.append(disagree)
    throttled = throttling(series)
    if throttled:
        result.notes.append(
            f"The drive throttled during the fill (its thermal model at the profile's ambient temperature): {throttled}. "
            "The speeds from there on are the throttled drive's."
        )
    chart = today_charts.fill_chart(
        ctx.out_dir / "charts" / "fill.png",
        ctx.chart_title("Whole-drive fill: 128 KiB sequential writes QD32 from a secure-erased drive"),
        series["gb_written"].tolist(),
        series["write_mbps"].tolist(),
        figures["cache_gb"] if cliff else None,
        (figures["post_cache_mbps"] or None) if cliff else None,
        figures["average_mbps"],
    )
    result.charts.append((chart, "Write speed against GB written; the SLC cache found and the post-cache rate marked"))
    one = ((pattern, "", ""),)
    result.ranked.append(Ranked("average_mbps", "Whole-drive fill: average write speed", one))
    result.ranked.append(Ranked("cache_gb", "Whole-drive fill: GB written at SLC-cache speed", one))
    result.ranked.append(Ranked("post_cache_mbps", "Whole-drive fill: write speed after the SLC cache", one))
    return result
