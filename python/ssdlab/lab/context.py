"""What a review runs against, and the helpers suites share."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab import _native
from ssdlab.drive import Drive, RunResult, profile_info, profile_source
from ssdlab.lab.scaling import scaled_blocks_and_capacity
from ssdlab.lab.tables import size_text

GB = 1_000_000_000
GIB = 1 << 30

#: Data patterns of the articles: Iometer's "normal" (compressible) and "random" data.
COMPRESSIBLE = "repeating"
INCOMPRESSIBLE = "random"


@dataclass
class ReviewContext:
    """A review's settings: the profile, overrides, scale (1.0 = as the articles did it), seed,
    output folder and a progress callback."""

    profile: str
    overrides: Sequence[str] = ()
    scale: float = 1.0
    seed: int = 1
    out_dir: Path = Path("review")
    progress: Callable[[str, float, float, int], None] | None = None
    #: The suite running now (set by the review), named in progress bars.
    suite: str | None = None
    #: The drive's name in the results database and the charts (default: see `drive_label`).
    label: str | None = None
    #: Data pattern of the SNIA PTS tests: "random" (the specification's), "text" or "repeating".
    pts_pattern: str = "random"
    #: How steps whose timing is not measured (fills, TRIM of everything, PTS WIPC) run:
    #: "fast" (fast-forward) or "full" (timed); see `precondition`.
    precondition_timing: str = "fast"
    #: Ambient temperature of the thermal test, degrees C (None: the profile's `thermal.ambient_c`).
    ambient_c: float | None = None
    #: What the report page is called (None: "review", or "PTS report" when every suite is one
    #: of the PTS's); `calibrate` names its reviews "calibration review". See `page_subject`.
    page_name: str | None = None
    _info: dict | None = field(default=None, repr=False)

    def scaled_overrides(self, extra: Sequence[str] = ()) -> list[str]:
        """Overrides that shrink the drive for scaled runs: fewer blocks per plane and a user
        capacity that keeps the full drive's ratio of user data to the blocks GC can fill (the
        free and open blocks GC keeps per die do not shrink; see `ssdlab.lab.scaling`), so the
        geometry's parallelism and GC's behaviour stay; a map cache shrinks with the spans, so
        it covers the same share of them. `extra` are a suite's overrides (applied after these,
        and read here: the user space a test leaves unused changes what GC keeps free)."""
        overrides = list(self.overrides)
        if self.scale >= 1.0:
            return overrides
        base = self._full_profile(extra)
        blocks = base["nand"]["blocks_per_plane"]
        new_blocks, capacity = scaled_blocks_and_capacity(base, self.scale)
        overrides += [f"nand.blocks_per_plane={new_blocks}", f"drive.capacity_bytes_user={capacity}"]
        map_cache = base["controller"].get("map_cache_bytes", 0)
        if map_cache:
            page = base["nand"]["page_bytes"]
            overrides.append(f"controller.map_cache_bytes={max(page, int(map_cache * self.scale) // page * page)}")
        overrides += _scaled_today(base, new_blocks / blocks, self.scale)
        return overrides

    def _full_profile(self, extra: Sequence[str] = ()) -> dict:
        """The profile as reviewed before scaling (with the review's and `extra` overrides), as
        parsed TOML."""
        import tomllib

        return tomllib.loads(profile_source(self.profile, [*self.overrides, *extra]))

    def new_drive(self, extra: Sequence[str] = (), content: str = "modeled") -> Drive:
        """A factory-fresh drive for a suite."""
        return Drive(self.profile, self.scaled_overrides(extra) + list(extra), seed=self.seed, content=content, precondition_timing=self.precondition_timing)

    def info(self) -> dict:
        """Profile facts (of the drive as reviewed, scaled if so), read from the profile: the
        same as ``self.new_drive().info`` without building a drive."""
        if self._info is None:
            self._info = profile_info(self.profile, self.scaled_overrides())
        return self._info

    def drive_label(self) -> str:
        """The drive's name in the results database: the label given, else the profile's name,
        followed by the overrides when there are any (so a modified drive never passes for the
        built-in one, in comparisons or on the calibration page)."""
        if self.label:
            return self.label
        name = self.info()["name"]
        return f"{name} [{', '.join(self.overrides)}]" if self.overrides else name

    def page_subject(self, suites: Sequence[str]) -> str:
        """What the report page of `suites` is ("review of force-gs-240", "PTS report of ...",
        "calibration review of ..."): written into the page, so a later run into the same folder
        replaces it only with a page of the same subject (`report.check_report_folder`)."""
        from ssdlab.lab.suites import PTS_SUITES

        name = self.page_name or ("PTS report" if suites and all(s in PTS_SUITES for s in suites) else "review")
        # The drive as built (the profile and its overrides, in any order), not its --label: a
        # review of the same drive under another label still replaces its page.
        drive = self.info()["name"] + (f" [{', '.join(sorted(self.overrides))}]" if self.overrides else "")
        return f"{name} of {drive}"

    def profile_hash(self) -> str:
        """Hash of the effective profile text, to tell results of different profiles apart."""
        return hashlib.sha256(self.info()["source"].encode()).hexdigest()[:16]

    def seconds(self, full: float, minimum: float = 1.0) -> float:
        """A duration in simulated seconds, scaled."""
        return max(minimum, full * self.scale)

    def capacity_ratio(self) -> float:
        """The reviewed drive's user capacity over the full drive's: `scale`, or more where the
        scaled drive keeps more blocks than `scale` of them (see `ssdlab.lab.scaling`)."""
        if self.scale >= 1.0:
            return 1.0
        base = self._full_profile()
        return scaled_blocks_and_capacity(base, self.scale)[1] / base["drive"]["capacity_bytes_user"]

    def span_seconds(self, full: float, minimum: float = 1.0) -> float:
        """A duration in simulated seconds of a test that writes over the whole drive, scaled
        with the drive's capacity (so the test writes the same share of the drive as at full
        scale, and ends in the same state)."""
        return max(minimum, full * self.capacity_ratio())

    def span_bytes(self, full: float) -> int:
        """A span in bytes, scaled, a whole number of MiB."""
        return max(64 << 20, int(full * self.scale) // (1 << 20) * (1 << 20))

    def span_label(self, full: float, nominal: str) -> str:
        """How a span that is `nominal` ("8 GB") at full scale reads in this review's text: the
        nominal size at full scale (the articles' names), else the size this review used
        (`span_bytes`, "400 MB" at scale 0.05)."""
        return nominal if self.scale >= 1.0 else size_text(self.span_bytes(full))

    def run(self, drive: Drive, options: list[str], name: str) -> RunResult:
        """Run one job with progress reporting under `name` (prefixed with the suite's)."""
        return drive.run(options, name=f"{self.suite}: {name}" if self.suite else name, progress=self.progress)

    def precondition(self, drive: Drive, options: list[str], name: str, progress=None) -> dict:
        """Run a step whose timing the test does not measure (a fill, a TRIM of the whole
        span): fast-forwarded when the review's precondition timing is "fast" (the FTL's work
        without timing, docs/fast-forward.md), else with timing; either way it ends with the
        drive idle, so what follows starts from the same state. Returns the step's summary."""
        label = f"{self.suite}: {name}" if self.suite else name
        progress = self.progress if progress is None else progress
        # A fill writes every byte of its span, its last block cut to the span's end (as the
        # seq-fill step; a plain job issues whole blocks only, as fio's).
        job = _native.job_from_options(label, list(options), fill=True)
        if self.precondition_timing == "fast":
            return drive.fast_forward(job=job, progress=progress)
        summary = drive.run(job=job, progress=progress).summary
        drive.wait_until_idle()
        return summary

    def scale_label(self) -> str:
        """The scale as chart titles name it."""
        return "full scale" if self.scale >= 1.0 else f"scale {self.scale:g}, not comparable"

    def chart_title(self, test: str) -> str:
        """A chart's title: the test on the first line, the drive (its name in the results
        database too when that is not the profile's) and the scale on the second, so a chart
        copied out of the report keeps its context."""
        label = self.drive_label()
        drive = self.info()["model"] + (f" [{label}]" if label != self.info()["name"] else "")
        return f"{test}\n{drive}, {self.scale_label()}"

    def duration_label(self, full_seconds: float, minimum: float = 1.0) -> str:
        """How long a test that takes `full_seconds` at full scale ran in this review ("30 min"
        at full scale, "3 min" at scale 0.1, "45 s" below two minutes)."""
        return duration_text(self.seconds(full_seconds, minimum))

    @property
    def comparable(self) -> bool:
        """Whether results can be compared with published figures (full scale only)."""
        return self.scale >= 1.0


def _scaled_today(base: dict, capacity_ratio: float, scale: float) -> list[str]:
    """Overrides that shrink today's drives' SLC cache with the capacity (so the cache keeps its
    share of the drive, and a static cache never outgrows a small array), the host memory
    buffer with the spans (as the SRAM map cache is), and the heat capacities of the thermal
    model with the durations (so the drive heats and cools in the scaled time as it would in the
    full time; the temperatures it settles at do not change), for scaled runs."""
    overrides = []
    thermal = base.get("thermal")
    if thermal:
        for key in ("controller_j_per_k", "nand_j_per_k"):
            overrides.append(f"thermal.{key}={float(thermal[key]) * scale!r}")
    slc = base.get("slc_cache")
    if slc:
        for key in ("static_bytes", "dynamic_max_bytes"):
            if key in slc:
                overrides.append(f"slc_cache.{key}={int(slc[key] * capacity_ratio)}")
    hmb = base["controller"].get("hmb_bytes", 0)
    if hmb:
        page = base["nand"]["page_bytes"]
        overrides.append(f"controller.hmb_bytes={max(page, int(hmb * scale) // page * page)}")
    return overrides


def duration_text(seconds: float) -> str:
    """A duration in the words of a review: whole minutes from two minutes up (any length from
    ten), else seconds."""
    if seconds >= 600 or (seconds >= 120 and seconds % 60 == 0):
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.3g} s"
