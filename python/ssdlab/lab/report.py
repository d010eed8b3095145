"""HTML pages, built from the Jinja2 templates in ``lab/templates`` (shipped with the package):
one page per review, and a comparison page across drives."""

from __future__ import annotations

import fcntl
import html
import os
import re
import struct
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

import jinja2
import pandas as pd

from ssdlab import paths
from ssdlab.errors import InputOutputError, SsdlabError
from ssdlab.lab import tables
from ssdlab.lab.results import SuiteResult, Table
from ssdlab.lab.suites import PTS_SUITES

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("ssdlab.lab", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


@dataclass(frozen=True)
class Figure:
    """A chart on the page: PNG file name, caption, SVG file name (if written) and its size in
    CSS pixels (half the PNG's: the PNGs are drawn at twice the screen resolution)."""

    file: str
    caption: str
    svg: str | None
    width: int
    height: int


def figure(out_dir: Path, file_name: str, caption: str) -> Figure:
    """The page's view of a chart written in `out_dir`/charts."""
    png = out_dir / "charts" / file_name
    svg = png.with_suffix(".svg")
    with png.open("rb") as f:
        header = f.read(24)  # PNG signature, then the IHDR chunk: width and height first
    width, height = struct.unpack(">II", header[16:24])
    return Figure(file_name, caption, svg.name if svg.exists() else None, width // 2, height // 2)


def drive_table(info: dict) -> Table:
    """The drive's facts."""
    rows = [
        ["user capacity", f"{info['capacity_bytes_user'] / 1e9:,.1f} GB"],
        ["raw NAND", f"{info['raw_bytes'] / 2**30:,.1f} GiB"],
        ["spare / user", f"{info['spare_over_user'] * 100:.1f}%"],
        ["spare / raw", f"{info['spare_over_raw'] * 100:.1f}%"],
        [
            "NAND",
            f"{info['dies']} dies, {info['channels']} channels, {info['bus']} at {info['bus_mbps']:.0f} MB/s, "
            f"{info['page_bytes']:,} B pages x {info['planes_per_die']} planes",
        ],
        ["host interface", f"{info['host_interface']} ({info['link_mbps']:.0f} MB/s)"],
        ["data reduction", "on" if info["data_reduction"] else "off"],
        ["GC policy", str(info["gc_policy"])],
    ]
    return Table("", ["property", "value"], rows, [False, False])


def _suite_view(out_dir: Path, suite: SuiteResult, ranked: list[tuple[str, str]]) -> dict:
    views = suite.views or ([tables.metrics_table(suite)] if suite.metrics else [])
    shown = {t.csv for t in views}
    return {
        "name": suite.name,
        "title": suite.title,
        "method": suite.method,
        "notes": suite.notes,
        "ranked": [figure(out_dir, f, c) for f, c in ranked],
        "figures": [figure(out_dir, f, c) for f, c in suite.charts],
        "grid": suite.figure_columns > 1,
        "tables": views,
        "raw": [f"{suite.name}_metrics", *(name for name in suite.tables if name not in shown)],
    }


def review_page(
    out_dir: Path,
    info: dict,
    meta: dict,
    suites: list[SuiteResult],
    calibration: pd.DataFrame | None,
    against: list[tuple[str, str]] = (),
    ranked: dict[str, list[tuple[str, str]]] | None = None,
    headlines: Table | None = None,
    methodology: Table | None = None,
    subject: str | None = None,
) -> Path:
    """Write `index.html` for one review (`subject`: `ReviewContext.page_subject`, marked in the
    page). `ranked` holds each suite's ranked bar charts (drawn
    from the results database), `against` the headline charts among the other drives there,
    `headlines` the figures at a glance, `methodology` each test's era and procedure. The
    preset that ran is named from `meta` (``preset``, ``preset_reason``, ``left_out``)."""
    scale = meta["scale"]
    page = _ENV.get_template("review.html").render(
        page_kind="review",
        subject=subject,
        title=f"{info['model']}: ssdlab {'PTS report' if suites and all(s.name in PTS_SUITES for s in suites) else 'review'}",
        model=info["model"],
        profile=info["name"],
        meta=meta,
        scale_label="full scale" if scale >= 1 else f"scale {scale:g}",
        generated=f"{datetime.now(UTC):%Y-%m-%d %H:%M}",
        headlines=headlines,
        drive=drive_table(info),
        suites=[_suite_view(out_dir, s, (ranked or {}).get(s.name, [])) for s in suites],
        against=[figure(out_dir, f, c) for f, c in against],
        calibration=tables.from_frame("", calibration) if calibration is not None and len(calibration) else None,
        preset=meta.get("preset"),
        preset_reason=meta.get("preset_reason"),
        left_out=meta.get("left_out", []),
        methodology=methodology,
    )
    path = out_dir / "index.html"
    paths.write_atomic(path, page, "report")
    return path


#: What marks a page ssdlab wrote (in base.html): ``<meta name="generator" content="ssdlab KIND">``.
_GENERATOR = re.compile(r'<meta name="generator" content="ssdlab ([a-z]+)">')
#: What a review page is of (`ReviewContext.page_subject`): ``<meta name="ssdlab-subject" ...>``.
_SUBJECT = re.compile(r'<meta name="ssdlab-subject" content="([^"]*)">')
#: What each kind of page writes beside its index.html.
_FOLDER_OUTPUTS = {"review": ("data", "charts"), "comparison": ("comparison.csv", "charts")}


def _page_head(page: Path) -> str | None:
    """The first 64 KiB of the page at `page`, where ssdlab's marks are (None when unreadable)."""
    try:
        with page.open("rb") as f:
            return f.read(65536).decode("utf-8", "replace")
    except OSError:
        return None


def _kind_in(head: str | None) -> str | None:
    """`page_kind` of a page's head."""
    if head is None:
        return None
    found = _GENERATOR.search(head)
    if found:
        return found.group(1)
    titled = re.search(r"<title>[^<]*ssdlab (review|comparison)</title>", head)
    return "" if head.lstrip().lower().startswith("<!doctype html") and titled else None


def _subject_in(head: str | None) -> str | None:
    """`page_subject` of a page's head."""
    found = _SUBJECT.search(head) if head is not None else None
    return html.unescape(found.group(1)) if found else None


def page_kind(page: Path) -> str | None:
    """What kind of page ssdlab wrote at `page` ("review", "comparison"; "" for an ssdlab page
    written before pages carried the mark, known by its title), or None when it is not a page
    ssdlab wrote. Reads at most 64 KiB."""
    return _kind_in(_page_head(page))


def page_subject(page: Path) -> str | None:
    """The subject marked in the ssdlab page at `page` ("review of force-gs-240"), or None (no
    mark: another kind of page, or one written before pages carried it). Reads at most 64 KiB."""
    return _subject_in(_page_head(page))


#: The file a review, PTS run or comparison writes first into its folder, before any chart or
#: data file: it names the kind of page ssdlab is writing there (``ssdlab review``), so a folder a
#: run of ssdlab started and did not finish (stopped, killed) is known as ssdlab's; the run holds
#: a lock on it while it writes (`claim_report_folder`).
MARKER = ".ssdlab-report"
_MARKER_LINE = re.compile(r"ssdlab ([a-z]+)")


def marker_kind(out_dir: Path) -> str | None:
    """The kind of page ("review", "comparison") that the marker in `out_dir` names, or None
    when there is no marker (or it is not one ssdlab wrote: a symbolic link, a folder, another
    first line)."""
    marker = out_dir / MARKER
    if marker.is_symlink() or not marker.is_file():
        return None
    try:
        with marker.open("rb") as f:
            first = f.read(256).decode("utf-8", "replace").split("\n", 1)[0].strip()
    except OSError:
        return None
    found = _MARKER_LINE.fullmatch(first)
    return found.group(1) if found and found.group(1) in _FOLDER_OUTPUTS else None


class FolderClaim:
    """A folder this process writes a page into: the marker file held open with an exclusive
    lock (``flock``) until `release` (or the process ends), so another run of ssdlab refuses the
    folder rather than mix its page and files with this one's."""

    def __init__(self, fd: int | None) -> None:
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> FolderClaim:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()


def _holder(fd: int) -> str:
    """Which process holds the marker's lock, as ' (process N)' for the error (the holder writes
    its id just after it takes the lock: read again for a moment when it has not yet), else ''."""
    for _ in range(20):
        found = re.search(rb"\nprocess (\d+)\n", os.pread(fd, 256, 0))
        if found:
            return f" (process {int(found.group(1))})"
        time.sleep(0.01)
    return ""


def claim_report_folder(out_dir: Path, kind: str) -> FolderClaim:
    """Claim `out_dir` (checked with `check_report_folder`, and existing) for a `kind` page: write
    its marker (`MARKER`: the kind, and this process's id) before any chart or data file, and hold
    an exclusive lock on it for the whole run. Refuses the folder when another process holds
    the lock (another review or comparison writing into it). On a file system without locks the
    folder is claimed without one."""
    marker = out_dir / MARKER
    try:
        fd = os.open(marker, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    except OSError as error:
        raise InputOutputError(f"--out {out_dir}: cannot write its {MARKER}: {error.strerror or error}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise SsdlabError(f"--out {out_dir}: another ssdlab {kind} is writing into it{holder}; wait for it to end or give another folder") from None
    except OSError:
        pass  # no locks on this file system
    try:
        # Written over, then cut to length: the first line (the kind) is never seen missing.
        text = f"ssdlab {kind}\nprocess {os.getpid()}\n".encode()
        os.pwrite(fd, text, 0)
        os.ftruncate(fd, len(text))
    except OSError as error:
        os.close(fd)
        raise InputOutputError(f"--out {out_dir}: cannot write its {MARKER}: {error.strerror or error}") from None
    return FolderClaim(fd)


def check_report_folder(out_dir: Path, kind: str, db_path: Path | None = None, subject: str | None = None, elsewhere: str = "give another folder") -> None:
    """Before any work: refuse to write a `kind` page ("review", "comparison") into a folder
    that holds a page ssdlab did not write, another kind of ssdlab page (a comparison into a
    review's folder would replace the review), or this page's companions (``data/``,
    ``charts/``, ``comparison.csv``) without an ssdlab page beside them nor ssdlab's marker
    (`MARKER`, naming this kind: a run of ssdlab started there and did not finish): ssdlab
    replaces only what it wrote. And refuse a results database (`db_path`) that is one of the
    page's outputs (it would be overwritten by the report). With `subject` (a review's
    `ReviewContext.page_subject`), also refuse a page of another subject: a review does not
    replace a PTS report, the review of another drive, or a calibration's review (before
    2026-12-07 it did, silently, with the charts and data only that page had). `elsewhere`
    says where else to write, in the message."""
    outputs = _FOLDER_OUTPUTS[kind]
    if db_path is not None:
        db, out = Path(db_path).absolute(), out_dir.absolute()
        if db == out / "index.html" or db.parent in {out / name for name in outputs} or db in {out / name for name in outputs}:
            raise SsdlabError(f"--db {db_path}: is where the {kind} writes its page or data; give a path outside them")
    if not out_dir.is_dir():
        return
    marker = out_dir / MARKER
    if (marker.exists() or marker.is_symlink()) and (marker.is_symlink() or not marker.is_file()):
        raise SsdlabError(f"--out {out_dir}: holds a {MARKER} that is not a file ssdlab wrote; not writing into it (give another folder)")
    marked = marker_kind(out_dir)
    page = out_dir / "index.html"
    if page.exists() or page.is_symlink():
        head = _page_head(page) if page.is_file() else None  # read once for both marks
        found = _kind_in(head)
        if found is None:
            raise SsdlabError(f"--out {out_dir}: holds an index.html ssdlab did not write; not replacing it (give another folder)")
        if found and found != kind:
            raise SsdlabError(f"--out {out_dir}: holds an ssdlab {found} page, which a {kind} would replace ({elsewhere})")
        earlier = _subject_in(head) if subject is not None else None
        if earlier is not None and earlier != subject:
            raise SsdlabError(f"--out {out_dir}: holds the ssdlab {earlier}, which this {subject} would replace ({elsewhere})")
        return
    if marked is not None and marked != kind:
        raise SsdlabError(f"--out {out_dir}: holds an unfinished ssdlab {marked}, which a {kind} would replace (give another folder)")
    if marked == kind:
        return  # a run of ssdlab started this page here and did not finish it
    for name in outputs:
        if (out_dir / name).exists() or (out_dir / name).is_symlink():
            raise SsdlabError(f"--out {out_dir}: has {name} but no page ssdlab wrote beside it; not writing into it (give another folder)")


#: Folders beside a page whose files the page links (charts, data tables).
_LINKED_FOLDERS = ("charts", "data")
#: Most bytes of a page read for its links (ssdlab's largest pages are a few hundred KiB).
_PAGE_READ_BYTES = 16 << 20


class _Links(HTMLParser):
    """The `href` and `src` values of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.extend(value for name, value in attrs if name in ("href", "src") and value)


def linked_outputs(out_dir: Path) -> set[Path]:
    """The files under ``charts/`` and ``data/`` that the ssdlab page in `out_dir` links to and
    that were written no later than the page: what that review or comparison wrote there (a
    file changed after the page, or one the page does not link, is not counted). Empty when
    the folder holds no ssdlab page."""
    page = out_dir / "index.html"
    if page.is_symlink() or not page.is_file() or page_kind(page) is None:
        return set()
    try:
        written = page.stat().st_mtime_ns
        with page.open("rb") as f:
            text = f.read(_PAGE_READ_BYTES).decode("utf-8", "replace")
    except OSError:
        return set()
    parser = _Links()
    parser.feed(text)
    found = set()
    for link in parser.found:
        parts = urlsplit(link)
        if parts.scheme or parts.netloc:
            continue
        rel = PurePosixPath(unquote(parts.path))
        if rel.is_absolute() or len(rel.parts) != 2 or rel.parts[0] not in _LINKED_FOLDERS or rel.parts[1] in ("", ".", ".."):
            continue
        path = out_dir / rel.parts[0] / rel.parts[1]
        try:
            if not path.is_symlink() and path.is_file() and path.stat().st_mtime_ns <= written:
                found.add(path)
        except OSError:
            continue
    return found


def remove_stale_outputs(out_dir: Path, earlier: set[Path]) -> list[Path]:
    """After a page is written again into `out_dir`: remove the files the page before linked
    (`earlier`, from `linked_outputs` before the run) that the new page does not link (charts
    and data of tests not run this time), so the folder holds only the new page's files.
    Returns what was removed."""
    now = linked_outputs(out_dir)
    removed = []
    for path in sorted(earlier - now):
        try:
            path.unlink()
            removed.append(path)
        except FileNotFoundError:
            continue
    return removed


def comparison_page(out_dir: Path, charts: list[tuple[str, str]], table: pd.DataFrame, highlight: str | None = None, include_scaled: bool = False) -> Path:
    """Write `index.html` comparing drives."""
    page = _ENV.get_template("comparison.html").render(
        page_kind="comparison",
        title="ssdlab comparison",
        figures=[figure(out_dir, f, c) for f, c in charts],
        comparison=tables.from_frame("Headline and other figures, one column per drive", table, csv="../comparison"),
        highlight=highlight,
        include_scaled=include_scaled,
    )
    path = out_dir / "index.html"
    paths.write_atomic(path, page, "comparison")
    return path
