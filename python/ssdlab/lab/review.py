"""Run a review end to end: suites, raw data, charts, report, database rows."""

from __future__ import annotations

import contextlib
import re
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from ssdlab import __version__, paths
from ssdlab.errors import SsdlabError
from ssdlab.lab import calibration, published_today, tables
from ssdlab.lab import ranked as ranked_charts
from ssdlab.lab import report as report_files
from ssdlab.lab.context import ReviewContext
from ssdlab.lab.db import ResultsDatabase
from ssdlab.lab.headlines import COMPARED, HEADLINES, headline_charts, headline_table
from ssdlab.lab.parallel import SuiteTime, run_reviews
from ssdlab.lab.report import check_report_folder, review_page
from ssdlab.lab.results import SuiteResult, Table
from ssdlab.lab.suites import ARTICLE_SUITES, ERAS, PTS_SUITES, SUITES, why_not

#: What each era's preset is called in the report.
ERA_TITLES = {"2012": "the articles' tests", "2020s": "today's tests"}


def parse_suites(text: str | None, default: list[str] = ARTICLE_SUITES, option: str = "--suites", choices: Sequence[str] | None = None) -> list[str]:
    """Suite names from a comma-separated list (`default` when not given); ``pts`` stands for
    every PTS test, an era (``2012``, ``2020s``) for every suite of that era. With `choices`
    (``pts --tests``: the PTS tests), only those and ``pts`` are accepted, and an error lists
    them alone."""
    if text is None:
        return list(default)
    names = [s.strip() for s in text.split(",") if s.strip()]
    known = list(SUITES) if choices is None else list(choices)
    groups = {"pts": PTS_SUITES, **(ERAS if choices is None else {})}
    expected = ", ".join([*known, *groups])
    what = "suite" if choices is None else "PTS test"
    if not names:
        raise SsdlabError(f"{option} {text!r} names no {what} (expected some of: {expected})")
    expanded: list[str] = []
    for n in names:
        for name in groups.get(n, [n]):
            if name not in known:
                if name in SUITES:
                    raise SsdlabError(f"{option}: {name!r} is not a {what} (expected some of: {expected})")
                raise SsdlabError(f"{option}: unknown {what} {name!r} (expected some of: {expected})")
            if name not in expanded:
                expanded.append(name)
    return expanded


def interface_family(interface: str) -> str:
    """The family of a profile's host interface: "nvme" (PCIe) or "sata"."""
    return "nvme" if interface.startswith("pcie") else "sata"


@dataclass(frozen=True)
class Preset:
    """The suites a review runs and why: an era's preset chosen from the drive, or the suites
    named with ``--suites``."""

    #: "2012", "2020s", or "" for suites named by hand.
    era: str
    suites: tuple[str, ...]
    #: Why these suites, for the report ("chosen from the profile: an NVMe drive (pcie4)").
    reason: str
    #: Suites of the era left out because they do not apply to this drive, with why.
    left_out: tuple[tuple[str, str], ...] = field(default=())
    #: The preset's name when it is not an era's ("SNIA PTS" for `ssdlab pts`).
    title: str = ""

    @property
    def label(self) -> str:
        """The preset's name as the report gives it."""
        if self.title:
            return self.title
        return f"{self.era} ({ERA_TITLES.get(self.era, self.era)})" if self.era else "none"


def preset_for(info: dict) -> Preset:
    """The preset a review of this drive runs (`info`: the drive's facts, with its profile's
    TOML as ``source``). NVMe drives get today's tests (era ``2020s``). SATA drives with an SLC
    cache (the Samsung 870 EVO and QVO) get them too: their defining behaviour is the cache, and
    reviews of them run today's tests (docs/todays-lab.md). Other SATA drives, the drives of
    the articles, get the articles' tests (``2012``). Suites that declare host interfaces they
    apply to (``INTERFACES``), or the profile sections they need (``PROFILE_SECTIONS``: a heat
    or power-state model), are left out of other drives' presets, and the report says so."""
    family = interface_family(str(info["host_interface"]))
    sections = set(tomllib.loads(info["source"]))
    cache = "slc_cache" in sections
    if family == "nvme":
        era, why = "2020s", f"an NVMe drive ({info['host_interface']})"
    elif cache:
        era, why = "2020s", f"a SATA drive ({info['host_interface']}) with an SLC cache"
    else:
        era, why = "2012", f"a SATA drive ({info['host_interface']}) without an SLC cache, as in the articles"
    reasons = {n: why_not(n, family, sections) for n in ERAS.get(era, [])}
    chosen = tuple(n for n, why in reasons.items() if why is None)
    left = tuple((n, why) for n, why in reasons.items() if why is not None)
    return Preset(era, chosen, f"chosen from the profile: {why}", left)


#: The temporary files `paths.atomic_output` makes (`.NAME.XXXXXXXX.tmp.SUFFIX`).
_TEMPORARY = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp(\.[A-Za-z0-9]+)?$")


def _remove_stale_temporaries(out_dir: Path) -> None:
    """Remove what an interrupted review left of its temporary files in its `charts/` and
    `data/` (a worker stopped mid-write does not clean up): only names of the form ssdlab's
    atomic writes give them, in a folder this review is allowed to write (checked before)."""
    for folder in (out_dir / "charts", out_dir / "data"):
        if folder.is_dir() and not folder.is_symlink():
            for entry in folder.iterdir():
                if _TEMPORARY.match(entry.name) and entry.is_file() and not entry.is_symlink():
                    entry.unlink(missing_ok=True)


def chosen_suites(names: Sequence[str], info: dict | None = None, option: str = "--suites", reason: str | None = None) -> Preset:
    """The `Preset` of suites named by hand (with `option`, ``--suites``). With the drive's facts
    (`info`), a suite named that does not apply to it (another interface, or a model its profile
    has not: the thermal suite on a drive without ``[thermal]``) is left out and the report says
    why, as a preset does; when none of them applies, that is the user's error. `reason` is why
    these suites, for the report (default: they were named with `option`)."""
    reason = reason or f"suites chosen with {option}: {', '.join(names)}"
    if info is None:
        return Preset("", tuple(names), reason)
    family = interface_family(str(info["host_interface"]))
    sections = set(tomllib.loads(info["source"]))
    reasons = {n: why_not(n, family, sections) for n in names}
    chosen = tuple(n for n, why in reasons.items() if why is None)
    left = tuple((n, why) for n, why in reasons.items() if why is not None)
    if not chosen:
        raise SsdlabError(f"{option}: none of the suites named applies to this drive: " + "; ".join(f"{n} {why}" for n, why in left))
    return Preset("", chosen, reason, left)


def pts_preset(names: Sequence[str], info: dict | None, named: bool) -> Preset:
    """The `Preset` of an ``ssdlab pts`` run: the PTS tests `names`, chosen with ``--tests`` when
    `named`, else every test of the specification."""
    reason = f"tests chosen with --tests: {', '.join(names)}" if named else f"every test of the specification ({', '.join(names)})"
    return replace(chosen_suites(names, info, "--tests", reason), title="SNIA PTS")


@dataclass
class Review:
    """What a review wrote: the report, the results database, and the figures at a glance."""

    report: Path
    database: Path
    headlines: Table


def run_review(
    ctx: ReviewContext, suites: Sequence[str], db_path: Path, on_suite=None, jobs: int = 1, precomputed: dict[str, SuiteResult] | None = None
) -> Path:
    """Run `suites` against `ctx`'s drive; returns the report's path."""
    return review(ctx, suites, db_path, on_suite, jobs=jobs, precomputed=precomputed).report


def review(
    ctx: ReviewContext,
    suites: Sequence[str] | None,
    db_path: Path,
    on_suite=None,
    preset: Preset | None = None,
    jobs: int = 1,
    precomputed: dict[str, SuiteResult] | None = None,
) -> Review:
    """Run `suites` against `ctx`'s drive, write the report and the database rows. Without
    `suites`, the drive's preset runs (`preset_for`); `preset` says which preset the suites
    given are, for the report (default: suites named by hand). The suites run as `jobs`
    independent jobs on a process pool (`ssdlab.lab.parallel`; 1: one after another in this
    process); each suite is stored once it and every suite before it are done, so the database
    holds what a serial run stores, in its order. `on_suite` is told each suite's name and how
    long it took (`parallel.SuiteTime`) as it is done. `precomputed` (suite name -> result) skips
    running: the suites were run already (a calibration runs several reviews' suites on one
    pool), and the caller checked and marked the output folder (`check_report_folder`,
    `report.claim_report_folder`) before it ran them."""
    if suites is None:
        preset = preset_for(ctx.info())
        suites = list(preset.suites)
    elif preset is None:
        preset = chosen_suites(suites, ctx.info())
        suites = list(preset.suites)
    if precomputed is None:
        # (With results run already, the caller checked and marked the folder before running
        # them: the suites have written their charts into it since.)
        check_report_folder(ctx.out_dir, "review", db_path, ctx.page_subject(suites))
    paths.output_folder(ctx.out_dir)
    if precomputed is not None:
        return _review_into(ctx, suites, db_path, on_suite, preset, jobs, precomputed)
    # First into the folder, before the database, charts and data: a run stopped from here on
    # leaves a folder the next review knows as one ssdlab started; and held for the whole run,
    # so another review into this folder is refused rather than mixed with this one.
    with report_files.claim_report_folder(ctx.out_dir, "review"):
        return _review_into(ctx, suites, db_path, on_suite, preset, jobs, None)


def _review_into(
    ctx: ReviewContext,
    suites: Sequence[str],
    db_path: Path,
    on_suite,
    preset: Preset,
    jobs: int,
    precomputed: dict[str, SuiteResult] | None,
) -> Review:
    """`review` once its folder is checked and claimed: run the suites (unless `precomputed`),
    store them, write the report."""
    earlier_files = report_files.linked_outputs(ctx.out_dir)  # what a review before this one wrote here
    db = ResultsDatabase(db_path)
    # Read once, before any suite runs: it refuses results ssdlab did not store, and the ranked
    # charts below compare with it (this review's own run has no results until its suites end).
    latest = db.latest(include_scaled=True)
    info = ctx.info()
    meta = {"version": __version__, "profile_hash": ctx.profile_hash(), "seed": ctx.seed, "scale": ctx.scale}
    meta["overrides"] = list(ctx.overrides)
    meta["preset"] = preset.label
    meta["preset_reason"] = preset.reason
    meta["left_out"] = [f"{SUITES[n].TITLE}: {why}" for n, why in preset.left_out]
    drive = meta["drive"] = ctx.drive_label()
    earlier = db.conn.execute("SELECT profile_hash, model FROM runs WHERE drive = ? ORDER BY rowid DESC LIMIT 1", (drive,)).fetchone()
    if earlier is not None and earlier[0] != meta["profile_hash"]:
        # Each drive's latest run is the one compared and ranked: this review takes the name's
        # place. Said, not refused (a profile changed on purpose is reviewed again this way).
        sys.stderr.write(
            f"ssdlab: warning: {db_path} holds results of another drive named {drive!r} ({earlier[1]}, another profile); "
            "this review's figures replace them in comparisons (name this drive with another --label to keep both)\n"
        )
    _remove_stale_temporaries(ctx.out_dir)
    run_id = db.start_run(drive, info["model"], meta["profile_hash"], __version__, ctx.seed, ctx.scale, ctx.out_dir)
    data_dir = ctx.out_dir / "data"
    data_dir.mkdir(exist_ok=True)
    order = list(suites)
    ready: dict[str, SuiteResult] = {}
    stored: list[SuiteResult] = []
    ranked: dict[str, list[tuple[str, str]]] = {}

    def store(name: str, result: SuiteResult) -> None:
        db.add_suite(run_id, drive, result)
        with paths.atomic_output(data_dir / f"{name}_metrics.csv", "data") as temp:
            result.frame().to_csv(temp, index=False)
        for table_name, frame in result.tables.items():
            with paths.atomic_output(data_dir / f"{table_name}.csv", "data") as temp:
                frame.to_csv(temp, index=False)
        stored.append(result)

    # The ranked charts compare this drive with the other drives' latest reviews at this scale,
    # which this review does not change: read them once, so each suite's charts are drawn as
    # soon as the suite is done (while later jobs still run, in a parallel review) from its own
    # figures, the rows the database will hold for it.
    others = latest[(latest["scale"] == ctx.scale) & (latest["drive"] != drive)]

    def done(_review: int, name: str, took: SuiteTime, result: SuiteResult) -> None:
        ranked[name] = ranked_charts.draw(ctx, result, ranked_charts.with_rows(others, drive, result), drive)
        ready[name] = result
        while len(stored) < len(order) and order[len(stored)] in ready:
            store(order[len(stored)], ready[order[len(stored)]])
        if on_suite is not None:
            on_suite(name, took)

    try:
        if precomputed is None:
            run_reviews([(ctx, order)], jobs, done)
        else:
            for name in order:
                done(0, name, SuiteTime(0.0, 0.0), precomputed[name])
    except BaseException:
        # Stopped (Ctrl-C, a failed suite): the suites stored so far stay; a run with none is
        # not left behind as an empty record.
        with contextlib.suppress(Exception):
            db.drop_run_if_empty(run_id)
        raise
    results = stored
    cal = None
    if ctx.comparable:
        frame = db.latest([drive])
        cal = pd.concat([calibration.table(frame), published_today.table(frame)], ignore_index=True)
        cal = cal[cal["drive"] == drive].copy()
        for column in ("published", "simulated", "difference_pct"):
            cal[column] = pd.to_numeric(cal[column], errors="coerce")
    against = _against_other_drives(db, ctx, drive)
    db.close()
    glance = at_a_glance(results)
    report = review_page(ctx.out_dir, info, meta, results, cal, against, ranked, glance, methodology(results), ctx.page_subject(suites))
    report_files.remove_stale_outputs(ctx.out_dir, earlier_files)
    return Review(report, db_path, glance)


def at_a_glance(results: list[SuiteResult]) -> Table:
    """The headline figures (`headlines.HEADLINES`), and for suites without any there (today's
    tests), the figures each suite draws as ranked charts; a figure the suite withheld
    (`SuiteResult.withhold`) shows why in its place. Suites that draw no ranked chart either
    (the SNIA PTS tests) give the figures `compare` ranks them on (`headlines.COMPARED`, in
    whatever data pattern the run wrote)."""
    glance = headline_table(results)
    with_headlines = {suite for suite, *_ in HEADLINES}
    for result in results:
        if result.name in with_headlines:
            continue
        if not result.ranked:
            for suite, key, _pattern, condition in COMPARED:
                for m in result.metrics:
                    if suite == result.name and (m.key, m.condition) == (key, condition):
                        data = ", ".join(x for x in (m.pattern, condition) if x) or "-"
                        glance.rows.append([result.title, m.title, data, tables.number(m.value, m.unit), m.unit])
            continue
        shown = set()
        for ranked in result.ranked:
            for pattern, condition, _ in ranked.rows:
                data = ", ".join(x for x in (pattern, condition) if x) or "-"
                for m in result.metrics:
                    if (m.key, m.pattern, m.condition) == (ranked.key, pattern, condition) and (m.key, pattern, condition) not in shown:
                        shown.add((m.key, pattern, condition))
                        glance.rows.append([result.title, m.title, data, tables.number(m.value, m.unit), m.unit])
                why = result.withheld.get((ranked.key, pattern, condition))
                if why is not None and (ranked.key, pattern, condition) not in shown:
                    shown.add((ranked.key, pattern, condition))
                    glance.rows.append([result.title, result.catalogue[ranked.key], data, why, ""])
    return glance


def methodology(results: list[SuiteResult]) -> Table:
    """Each test that ran: its era and its procedure (as run, with this review's durations)."""
    rows = [[r.title, getattr(SUITES.get(r.name), "ERA", "") or "-", r.method] for r in results]
    return Table("Tests run and their procedures", ["test", "era", "procedure"], rows, [False, False, False])


def _against_other_drives(db: ResultsDatabase, ctx: ReviewContext, drive: str) -> list[tuple[str, str]]:
    """Headline bar charts across the drives in the database reviewed at the same scale (full
    scale, or this shortened scale), this drive highlighted; none when it is the only one."""
    frame = db.latest(include_scaled=not ctx.comparable)
    frame = frame[frame["scale"] == ctx.scale]
    if frame["drive"].nunique() < 2 or drive not in set(frame["drive"]):
        return []
    return headline_charts(frame, ctx.out_dir / "charts", "against", drive)
