"""Published figures (BRIEF section 3) beside simulated ones.

Each published figure names the suite and the metric *key* its simulated counterpart is
recorded under (never a display title). Its class on the calibration page (issue 21) is found
by running it, from what bounded the run that measured it (``ssdlab.lab.bounds``):

- *set from*: a profile parameter or a test bed's host time (``ssdlab.lab.host``) was set from
  this figure (``Published.sets`` names it; a parameter is set from one figure at most);
- *bound by a parameter*: the run was bound by one resource that one value governs (the link,
  the engine's back end, the write cap, the test bed's host time, tPROG...), with no mechanism
  adding work: the figure echoes that value and is no check;
- *mechanism check*: everything else (GC, map-page reads, scattered data, latency through
  several stages): the figure comes out of the model's mechanisms.

The ``role`` field keeps its older meaning for figures declared elsewhere (today's drives):
``calibrated from`` marks a figure a value was set from; for the articles' figures every other
row is classed by running it. ``note`` says where a profile *choice* was made from a figure's
direction (so only its size is a check).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ssdlab.lab import bounds
from ssdlab.lab.suites import SUITES

CHECK = "check"
CALIBRATED = "calibrated from"
INFORMED = "informed by"
SPEC = "set from spec"


@dataclass(frozen=True)
class Published:
    """One published figure and where the simulated counterpart is found."""

    drive: str
    suite: str
    metric: str
    pattern: str
    condition: str
    value: float
    unit: str
    source: str
    role: str = CHECK
    #: Profile overrides of the drive the figure was published for (a firmware variant).
    overrides: tuple[str, ...] = ()
    #: The value set from this figure (role ``calibrated from``), as the page names it.
    sets: str = ""
    #: A profile choice made from this figure's direction, or another caveat, for the page.
    note: str = ""

    @property
    def label(self) -> str:
        """The drive's name in the results database (as `ReviewContext.drive_label` makes it)."""
        return f"{self.drive} [{', '.join(self.overrides)}]" if self.overrides else self.drive

    @property
    def title(self) -> str:
        """The metric's display title, from its suite's table."""
        return SUITES[self.suite].METRICS[self.metric]


def _firmware(fw: str) -> tuple[str, ...]:
    """The overrides of the Force GS firmware variant (5.0.3 is the profile's own)."""
    return () if fw == "5.0.3" else (f"controller.firmware={fw}",)


def _as_ssd(fw: str, figures: dict[tuple[str, str], float]) -> list[Published]:
    # The SF-2281 back-end write rate is set from the clean write on firmware 5.0.3 (the
    # profile's own firmware); the 5.0.2 clean write is then a run like any other.
    return [
        Published(
            "force-gs-240",
            "resiliency",
            f"as_ssd_seq_{d}",
            "incompressible",
            c,
            v,
            "MB/s",
            f"Force GS review, fw {fw}",
            CALIBRATED if (d, c) == ("write", "clean") and fw == "5.0.3" else CHECK,
            _firmware(fw),
            sets="reduction.backend_write_mbps of the SF-2281 profiles" if (d, c) == ("write", "clean") and fw == "5.0.3" else "",
        )
        for (d, c), v in figures.items()
    ]


SF1200 = "SF-1200 review, Iometer"

PUBLISHED = [
    # Corsair Force GS 240 GB, AS-SSD incompressible after a 60 min incompressible torture.
    *_as_ssd(
        "5.0.2",
        {
            ("read", "clean"): 494.1,
            ("read", "after torture"): 372.3,
            ("read", "after TRIM"): 479.8,
            ("write", "clean"): 270.5,
            ("write", "after torture"): 74.9,
            ("write", "after TRIM"): 220.2,
        },
    ),
    *_as_ssd(
        "5.0.3",
        {
            ("read", "clean"): 507.6,
            ("read", "after torture"): 501.1,
            ("read", "after TRIM"): 506.0,
            ("write", "clean"): 266.8,
            ("write", "after torture"): 156.2,
            ("write", "after TRIM"): 150.3,
        },
    ),
    # Force GS HD Tach after a 20 min compressible torture, on firmware 5.0.2 (the article's TRIM
    # section). The clean read (a secure-erased drive, the same on either firmware) set the HD
    # Tach test bed's time per command (ssdlab.lab.host.HD_TACH). The SF-2281's whole-page reads
    # (partial_page_reads = false) were chosen because the tortured read is so much slower.
    Published(
        "force-gs-240",
        "resiliency",
        "hdtach_avg_read",
        "compressible",
        "clean",
        402,
        "MB/s",
        "Force GS review, fw 5.0.2, HD Tach",
        CALIBRATED,
        _firmware("5.0.2"),
        sets="the HD Tach test bed's host time per command (lab/host.py)",
    ),
    Published(
        "force-gs-240",
        "resiliency",
        "hdtach_avg_read",
        "compressible",
        "after torture",
        182,
        "MB/s",
        "Force GS review, fw 5.0.2, HD Tach",
        CHECK,
        _firmware("5.0.2"),
        note="reduction.partial_page_reads = false was chosen from this figure's direction (slower than clean): only its size is a check",
    ),
    Published(
        "force-gs-240",
        "resiliency",
        "hdtach_avg_write",
        "compressible",
        "after torture",
        398,
        "MB/s",
        "Force GS review, fw 5.0.2, HD Tach (write unchanged)",
        CHECK,
        _firmware("5.0.2"),
    ),
    # Corsair Force LS 240 GB (Phison), the 2013 TRIM validation: fill, 30 min of 4 KB random writes
    # at QD32, one HD Tach pass (climbs as GC catches up), TRIM, one more pass. The article gives
    # approximate values ("~30", "a peak of 350", "~360").
    Published(
        "force-ls-240", "resiliency", "trim_validation_write_start", "incompressible", "after torture", 30, "MB/s", "Force LS review, HD Tach (approximate)"
    ),
    Published(
        "force-ls-240", "resiliency", "trim_validation_write_peak", "incompressible", "after torture", 350, "MB/s", "Force LS review, HD Tach (approximate)"
    ),
    Published(
        "force-ls-240", "resiliency", "trim_validation_write_average", "incompressible", "after TRIM", 360, "MB/s", "Force LS review, HD Tach (approximate)"
    ),
    # Corsair Force 100 GB, SF-1200 firmware 3.0.1, compressible vs incompressible (Iometer). The
    # SF-1200 back-end rates are set from the 2 MB incompressible write and read; its
    # partial-page reads were chosen because compressible 4 KB random reads are faster.
    # The Iometer test bed's host time per command was set from this one (lab/host.py).
    Published(
        "force-100-sf1200",
        "four-corners",
        "rand_write_4k.aligned_4k",
        "compressible",
        "",
        164.6,
        "MB/s",
        SF1200,
        CALIBRATED,
        sets="the Iometer test bed's host time per command (lab/host.py)",
    ),
    Published("force-100-sf1200", "four-corners", "rand_write_4k.aligned_4k", "incompressible", "", 122.5, "MB/s", SF1200),
    Published(
        "force-100-sf1200",
        "four-corners",
        "rand_read_4k.aligned_4k",
        "compressible",
        "",
        52.1,
        "MB/s",
        SF1200,
        note="reduction.partial_page_reads = true was chosen from this figure's direction (faster than incompressible): only its size is a check",
    ),
    Published("force-100-sf1200", "four-corners", "rand_read_4k.aligned_4k", "incompressible", "", 42.8, "MB/s", SF1200),
    Published("force-100-sf1200", "four-corners", "seq_read_2m.aligned_4k", "compressible", "", 265.2, "MB/s", SF1200),
    Published(
        "force-100-sf1200",
        "four-corners",
        "seq_read_2m.aligned_4k",
        "incompressible",
        "",
        212.4,
        "MB/s",
        SF1200,
        CALIBRATED,
        sets="reduction.backend_read_mbps of the SF-1200 profiles",
    ),
    Published("force-100-sf1200", "four-corners", "seq_write_2m.aligned_4k", "compressible", "", 251.7, "MB/s", SF1200),
    Published(
        "force-100-sf1200",
        "four-corners",
        "seq_write_2m.aligned_4k",
        "incompressible",
        "",
        144.4,
        "MB/s",
        SF1200,
        CALIBRATED,
        sets="reduction.backend_write_mbps of the SF-1200 profiles",
    ),
    # OCZ Agility 2, SF-1200 firmware 3.0.5: its small-random-write cap (a token bucket at the
    # rate the firmware notes give) decides these.
    Published("agility2-100-sf1200", "four-corners", "rand_write_4k.aligned_4k", "compressible", "", 44.2, "MB/s", "SF-1200 review, Iometer (3.0.5)"),
    Published("agility2-100-sf1200", "four-corners", "rand_write_4k.aligned_4k", "incompressible", "", 46.3, "MB/s", "SF-1200 review, Iometer (3.0.5)"),
]

#: Figures with no simulated counterpart yet, listed so the page is complete.
NOT_SIMULATED = [
    ("Force GS rated 555 MB/s read, 525 MB/s write, 90K IOPS 4 KB random write", "manufacturer ratings, not measurements"),
    (
        "SandForce drives of the time: 128 GB NAND for 100 GB (93.1 GiB) user; 7-15% spare",
        "built into the profiles: see spare/user and spare/raw in each report",
    ),
]


def _match(results: pd.DataFrame, drive: str, suite: str, metric: str, pattern: str, condition: str) -> pd.DataFrame:
    return results[
        (results["drive"] == drive)
        & (results["suite"] == suite)
        & (results["metric"] == metric)
        & (results["pattern"] == pattern)
        & (results["condition"] == condition)
    ]


def _simulated(results: pd.DataFrame, drive: str, suite: str, metric: str, pattern: str, condition: str) -> float | None:
    match = _match(results, drive, suite, metric, pattern, condition)
    return float(match["value"].iloc[-1]) if len(match) else None


def _utilization(results: pd.DataFrame, p: Published) -> dict | None:
    match = _match(results, p.label, p.suite, p.metric, p.pattern, p.condition)
    if not len(match) or "utilization" not in match.columns:
        return None
    return bounds.parse(match["utilization"].iloc[-1])


def classify(p: Published, utilization: dict | None) -> tuple[str, str]:
    """(class, what) of a published figure: set from (the value it set), else as its run's
    utilization says (bound by a parameter, naming it, or a mechanism check)."""
    if p.role == CALIBRATED:
        return bounds.SET_FROM, p.sets
    return bounds.classify(utilization)


def classified(results: pd.DataFrame) -> pd.DataFrame:
    """Every published figure beside its simulated counterpart, classed by running it: what
    bounded the run (measured), the class, and what the class rests on."""
    rows = []
    for p in PUBLISHED:
        simulated = _simulated(results, p.label, p.suite, p.metric, p.pattern, p.condition)
        utilization = _utilization(results, p)
        cls, what = classify(p, utilization)
        rows.append(
            {
                "drive": p.label,
                "figure": f"{p.title} ({p.pattern}{', ' + p.condition if p.condition else ''})",
                "published": p.value,
                "simulated": simulated,
                "difference_pct": None if simulated is None else (simulated - p.value) / p.value * 100.0,
                "unit": p.unit,
                "class": cls,
                "bound (measured)": bounds.describe(utilization) if utilization else "-",
                "rests on": what + (f"; {p.note}" if p.note else ""),
                "source": p.source,
            }
        )
    return pd.DataFrame(rows)


def table(results: pd.DataFrame) -> pd.DataFrame:
    """Published beside simulated (from a results frame as `ResultsDatabase.latest` returns),
    in the columns review pages show; `role` holds each figure's class."""
    frame = classified(results)
    frame["role"] = frame["class"]
    return frame[["drive", "figure", "published", "simulated", "difference_pct", "unit", "role", "source"]]


def ratios(results: pd.DataFrame) -> pd.DataFrame:
    """The SF-1200 compressible/incompressible ratios, published beside simulated. A ratio is
    derived from two rows above, so it is never counted as a check of its own; it is bound by
    parameters when both of its rows are."""
    out = []
    pub = {(p.metric, p.pattern): p for p in PUBLISHED if p.drive == "force-100-sf1200"}
    for metric in sorted({m for m, _ in pub}):
        compressible, incompressible = pub[(metric, "compressible")], pub[(metric, "incompressible")]
        published = compressible.value / incompressible.value
        c = _simulated(results, "force-100-sf1200", "four-corners", metric, "compressible", "")
        i = _simulated(results, "force-100-sf1200", "four-corners", metric, "incompressible", "")
        simulated = c / i if c is not None and i else None
        classes = [classify(p, _utilization(results, p))[0] for p in (compressible, incompressible)]
        mechanism = bounds.MECHANISM in classes
        out.append(
            {
                "figure": f"{compressible.title}: compressible / incompressible",
                "published": published,
                "simulated": simulated,
                "difference_pct": None if simulated is None else (simulated - published) / published * 100.0,
                "class": "derived (not counted): " + ("rests on a mechanism check" if mechanism else "both rows set from or bound by parameters"),
            }
        )
    return pd.DataFrame(out)


#: A figure further off than this is a miss, named in the page's summary.
MISS_PCT = 15.0


def summary(frame: pd.DataFrame, today: pd.DataFrame | None = None) -> dict:
    """The page's summary of `classified()` rows and, when given, of `todays_table()` rows (their
    'check' figures classed by their runs, by the same classifier): how many of each class; the
    mechanism checks' count, median and worst absolute error; the figures the model misses
    (beyond ``MISS_PCT``, any class)."""
    today_checks = 0
    if today is not None and len(today):
        counted = today[today["class"].isin([bounds.MECHANISM, bounds.BOUND])]
        today_checks = int((counted["class"] == bounds.MECHANISM).sum())
        frame = pd.concat([frame, counted[["drive", "figure", "published", "simulated", "difference_pct", "class"]]], ignore_index=True)
    measured = frame[frame["difference_pct"].notna()]
    checks = measured[measured["class"] == bounds.MECHANISM]
    errors = checks["difference_pct"].abs()
    worst = checks.loc[errors.idxmax()] if len(checks) else None
    misses = measured[measured["difference_pct"].abs() > MISS_PCT]
    return {
        "checks": len(checks),
        "today_checks": today_checks,
        "median_pct": float(errors.median()) if len(checks) else None,
        "worst_pct": float(worst["difference_pct"]) if worst is not None else None,
        "worst": f"{worst['drive']}: {worst['figure']}" if worst is not None else None,
        "bound": int((frame["class"] == bounds.BOUND).sum()),
        "set_from": int((frame["class"] == bounds.SET_FROM).sum()),
        "misses": [(r["drive"], r["figure"], r["class"], float(r["difference_pct"])) for _, r in misses.iterrows()],
        "checks_beyond_40": [(r["drive"], r["figure"], float(r["difference_pct"])) for _, r in checks[errors > 40.0].iterrows()],
    }


# --- Today's drives (issue 20): whole-drive fill -----------------------------------------------
#
# Whole-drive fill: secure erase, then 128 KiB sequential writes at QD32 over the whole user
# space (`ssdlab run --profile P --precondition secure-erase --rw=write --bs=128k --iodepth=32`).
# The figures are read off the per-second series: the bytes written before the cliff (the first
# of two consecutive seconds below CLIFF_FRACTION of the opening rate, the median of the first
# five seconds), the rate the drive drops to (the median rate of the seconds from the cliff until
# POST_CACHE_SHARE of what is written after it), and bytes over seconds of the whole fill. The
# same rule as the Rust `FillFigures` (crates/ssdlab-drive/src/fill.rs).

#: A second below this fraction of the opening rate is past the cliff.
CLIFF_FRACTION = 0.85

#: The post-cache rate is read over this share of the bytes written after the cliff: reviews
#: give the rate the drive drops to ("after the cache, writes drop to X MB/s"), which on a drive
#: that speeds up again as it fills (the Samsung 980 PRO) is not the rate of the whole remainder.
POST_CACHE_SHARE = 0.1

#: Roles of today's figures.
SET_FROM = "set from"


@dataclass(frozen=True)
class FillFigure:
    """One published whole-drive-fill figure (the issue-20 table) and its role."""

    drive: str
    figure: str  # "cache_gb", "post_cache_mbps" or "average_mbps"
    value: float
    role: str
    note: str


#: The issue-20 table. "set from": a profile parameter was set from this figure (named in the
#: profile); "set from spec": the figure follows from a data-sheet value; "informed by": a choice
#: of mechanism (not a number) was made with the figure in view; "check": nothing was set from it.
TODAYS_PUBLISHED = [
    FillFigure("samsung-980-pro-1tb", "cache_gb", 113, SPEC, "TurboWrite 6 + 108 GB from the data sheet"),
    FillFigure("samsung-980-pro-1tb", "post_cache_mbps", 1500, SET_FROM, "media.t_prog_ns, through flushing the cache behind the writes (when_full = flush)"),
    FillFigure(
        "samsung-980-pro-1tb",
        "average_mbps",
        1900,
        INFORMED,
        "the flush's pace (one SLC block folded per native block) was chosen over paced GC's free-space-neutral pace (+38%) with this figure in view",
    ),
    FillFigure("samsung-980-1tb", "cache_gb", 160, SPEC, "TurboWrite 2.0 160 GB from the data sheet"),
    FillFigure("samsung-980-1tb", "post_cache_mbps", 500, SET_FROM, "media.t_prog_ns, through flushing the cache behind the writes (when_full = flush)"),
    FillFigure("samsung-980-1tb", "average_mbps", 600, CHECK, "flushing the cache behind the writes, the 980 PRO's rule"),
    FillFigure("samsung-970-evo-500", "cache_gb", 22, SPEC, "TurboWrite 4 + 18 GB from the data sheet"),
    FillFigure("samsung-970-evo-500", "post_cache_mbps", 600, SET_FROM, "media.t_prog_ns"),
    FillFigure("samsung-970-evo-500", "average_mbps", 663, CHECK, "TLC written directly, folding at the end of the fill"),
    FillFigure("wd-sn580-1tb", "cache_gb", 341, CHECK, "free-space rule: every free block in pSLC mode"),
    FillFigure("wd-sn580-1tb", "post_cache_mbps", 450, SET_FROM, "media.t_prog_ns, through folding while writing"),
    FillFigure("wd-sn580-1tb", "average_mbps", 596, CHECK, "folding while writing"),
    FillFigure("samsung-870-evo-4tb", "cache_gb", 24, SET_FROM, "slc_cache.dynamic_max_bytes (data sheet says 78 GB)"),
    FillFigure("samsung-870-evo-4tb", "post_cache_mbps", 400, SET_FROM, "media.t_prog_ns"),
    FillFigure("samsung-870-evo-4tb", "average_mbps", 416, CHECK, "TLC written directly, folding at the end of the fill"),
]

TODAYS_TITLES = {
    "cache_gb": "SLC cache written at full speed (GB)",
    "post_cache_mbps": "post-cache write (MB/s)",
    "average_mbps": "average over the whole fill (MB/s)",
}


def fill_figures(series: pd.DataFrame) -> dict[str, float]:
    """Cache size (GB), post-cache rate and average (MB/s) of a whole-drive fill's series, and
    "cliff": whether the rate fell below `CLIFF_FRACTION` of the opening rate at all (as the Rust
    FillFigures' `cliff`). Without a cliff "cache_gb" is everything written (the rule finds no
    end of a cache) and "post_cache_mbps" 0: callers that report a cache check "cliff"."""
    rates = series["write_mbps"].to_numpy(dtype=float)
    spans = series["span_seconds"].to_numpy(dtype=float)
    opening = float(pd.Series(rates[:5]).median()) if len(rates) else 0.0

    def below(i: int) -> bool:
        return i < len(rates) and rates[i] < CLIFF_FRACTION * opening

    cliff = next((i for i in range(len(rates)) if below(i) and (below(i + 1) or i + 1 == len(rates))), len(rates))
    written = rates * 1e6 * spans
    # The rate the drive drops to: the seconds from the cliff until a tenth of what is written
    # after it (as the Rust FillFigures reads it).
    after = written[cliff:]
    window = int((after.cumsum() - after < POST_CACHE_SHARE * after.sum()).sum()) if len(after) else 0
    post = float(pd.Series(rates[cliff : cliff + max(window, 1)]).median()) if cliff < len(rates) else 0.0
    # The cliff's own second is part cache, part post-cache (as in the Rust FillFigures).
    share = min(max((rates[cliff] - post) / (opening - post), 0.0), 1.0) if cliff < len(rates) and opening > post else 0.0
    return {
        "cache_gb": float(written[:cliff].sum() + (share * opening * 1e6 * spans[cliff] if share else 0.0)) / 1e9,
        "post_cache_mbps": post,
        "average_mbps": float(written.sum()) / 1e6 / float(spans.sum()) if spans.sum() > 0 else 0.0,
        "cliff": cliff < len(rates),
    }


def whole_drive_fill(profile: str, overrides: tuple[str, ...] = ()) -> dict:
    """Run the whole-drive fill on a fresh drive and return its figures (``fill_figures``) and,
    under "utilization", what the fill's run saturated (to class its 'check' figures)."""
    from ssdlab.drive import Drive

    drive = Drive(profile, overrides)
    drive.secure_erase()
    result = drive.run(["rw=write", "bs=128k", "iodepth=32"], name="whole-drive-fill")
    return {**fill_figures(result.series), "utilization": result.summary.get("utilization")}


def todays_class(p: FillFigure, utilization: dict | None) -> tuple[str, str]:
    """(class, what) of a whole-drive-fill figure, by the rules of the articles' figures: a
    figure something was set from (role 'set from', 'set from spec') or chosen with in view
    ('informed by') is no check; a 'check' is classed by its run, as ``bounds.classify`` classes
    the articles' figures (bound by a parameter, or a mechanism check)."""
    if p.role != CHECK:
        return p.role, p.note
    if utilization is None:
        return CHECK, "not classed: no run utilization recorded"
    return bounds.classify(utilization)


def todays_table(simulated: dict[str, dict]) -> pd.DataFrame:
    """The issue-20 table beside simulated fills (`simulated`: profile -> `whole_drive_fill`),
    each 'check' classed by its run (column "class")."""
    rows = []
    for p in TODAYS_PUBLISHED:
        run = simulated.get(p.drive, {})
        sim = run.get(p.figure)
        utilization = bounds.parse(run.get("utilization"))
        cls, _ = todays_class(p, utilization) if sim is not None else (p.role, "")
        rows.append(
            {
                "drive": p.drive,
                "figure": TODAYS_TITLES[p.figure],
                "published": float(p.value),
                "simulated": sim,
                "difference_pct": None if sim is None else (sim - p.value) / p.value * 100.0,
                "role": p.role,
                "class": cls,
                "bound (measured)": bounds.describe(utilization) if utilization and p.role == CHECK else "-",
                "what": p.note,
            }
        )
    return pd.DataFrame(rows)
