"""A review's report as a reader sees it (issue 26, item 4).

The review runs in this process with a spy on the chart writer: before each chart is saved,
its matplotlib artists are checked (every series inside the plot, off the frame; value labels,
legends and titles clear of the data area and of each other; the title names the drive and the
scale). Then the page is opened in headless Chromium: every chart written is on the page and
loads, the console shows no errors. A screenshot is kept in test-artifacts/ (needs Debian's
`chromium`; required when CI is set). The same checks run on the review of a drive of today
(Samsung 980 PRO, the 2020s preset, issue 22)."""

import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from matplotlib.collections import PathCollection
from matplotlib.patches import Rectangle

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCALE = 0.02
#: The drive each review names in its chart titles.
FORCE_GS = "Corsair Force GS 240 GB"
TODAY = "Samsung 980 PRO 1 TB"
#: Pixels (at the chart's 200 dpi) a series keeps from the plot frame.
CLEARANCE_PX = 2.0


def chromium(*args):
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args], capture_output=True, text=True, timeout=120)


def dumped_body(*args):
    """The `<body ...>` line of the page chromium renders with `--dump-dom` and `args`, and the
    run itself. Headless chromium now and then exits without printing any DOM (seen once in a
    whole suite, the same page loading in every other run): such a run is tried once more, and a
    second empty one fails with chromium's exit status and the end of its stderr."""
    for _attempt in range(2):
        dom = chromium("--dump-dom", *args)
        body = next((line for line in dom.stdout.splitlines() if "<body" in line), None)
        if body is not None:
            return body, dom
    raise AssertionError(f"chromium printed no <body> twice (exit {dom.returncode}): {dom.stderr[-2000:]}")


def _overlap(a, b, tolerance=0.5) -> bool:
    """Whether two display-space boxes overlap by more than `tolerance` pixels."""
    return min(a.x1, b.x1) - max(a.x0, b.x0) > tolerance and min(a.y1, b.y1) - max(a.y0, b.y0) > tolerance


def _inside(box, frame, clearance) -> bool:
    c = clearance - 0.01
    return box.x0 >= frame.x0 + c and box.x1 <= frame.x1 - c and box.y0 >= frame.y0 + c and box.y1 <= frame.y1 - c


def inspect(fig, name: str, model: str = FORCE_GS) -> list[str]:
    """What is wrong with one chart, from its artists (empty when nothing); its title must name
    `model` and the scale."""
    problems = []
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    suptitle = [fig._suptitle] if fig._suptitle is not None else []
    for ax in axes:
        frame = ax.get_window_extent(renderer)
        titles = [t for t in (ax.title, ax._left_title, ax._right_title, *suptitle) if t.get_text()]
        title = "\n".join(t.get_text() for t in titles)
        if model not in title or f"scale {SCALE:g}" not in title:
            problems.append(f"{name}: title does not name the drive and the scale: {title!r}")
        for t in titles:
            box = t.get_window_extent(renderer)
            if _overlap(box, frame):
                problems.append(f"{name}: the title overlaps the plot")
            if box.x0 < -0.5 or box.x1 > fig.bbox.x1 + 0.5:
                problems.append(f"{name}: the title runs off the image")
        for line in ax.get_lines():
            if len(line.get_xydata()) == 0:
                continue
            points = ax.transData.transform(line.get_xydata())
            top, bottom = points[:, 1].max(), points[:, 1].min()
            if top > frame.y1 - CLEARANCE_PX or bottom < frame.y0 + CLEARANCE_PX:
                where = f"y {bottom:.1f}..{top:.1f} px, frame {frame.y0:.1f}..{frame.y1:.1f}"
                problems.append(f"{name}: line {line.get_label()!r} lies on the plot frame ({where})")
            ylim, ydata = ax.get_ylim(), line.get_ydata()
            if max(ydata) >= ylim[1] or min(ydata) <= ylim[0]:
                problems.append(f"{name}: line {line.get_label()!r} reaches the axis limit {ylim}")
        for collection in ax.collections:
            if isinstance(collection, PathCollection) and len(collection.get_offsets()):
                points = ax.transData.transform(collection.get_offsets())
                if points[:, 1].max() > frame.y1 - CLEARANCE_PX or points[:, 1].min() < frame.y0 + CLEARANCE_PX:
                    problems.append(f"{name}: scatter points lie on the plot frame")
        bars = [p for p in ax.patches if isinstance(p, Rectangle)]
        if bars and max(b.get_x() + b.get_width() for b in bars) >= ax.get_xlim()[1]:
            problems.append(f"{name}: a bar reaches the right edge of the plot")
        for text in ax.texts:
            if text.get_text().strip() and not _inside(text.get_window_extent(renderer), frame, 0):
                problems.append(f"{name}: text {text.get_text()!r} leaves the plot")
        labels = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        for a, b in zip(labels, labels[1:], strict=False):
            if _overlap(a, b):
                problems.append(f"{name}: x tick labels overlap")
        legends = [*fig.legends, *([ax.get_legend()] if ax.get_legend() else [])]
        for legend in legends:
            box = legend.get_window_extent(renderer)
            if _overlap(box, frame):
                problems.append(f"{name}: the legend covers the plot")
            for t in titles:
                if _overlap(box, t.get_window_extent(renderer)):
                    problems.append(f"{name}: the legend overlaps the title")
    return problems


def test_the_check_finds_a_line_on_the_frame_and_a_legend_over_the_data():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1, 2], [100, 402, 300], label="read")
    ax.set_ylim(0, 402)  # the axis stops at the data's maximum
    ax.legend(loc="upper right")
    ax.set_title("HD Tach")
    problems = inspect(fig, "old.png")
    plt.close(fig)
    assert any("lies on the plot frame" in p for p in problems)
    assert any("legend covers the plot" in p for p in problems)
    assert any("does not name the drive" in p for p in problems)
    # A long title centred on a plot pushed right by long bar labels runs off the image.
    fig, ax = plt.subplots(figsize=(8, 1.6), layout="constrained")
    ax.barh([0, 1], [1, 2])
    ax.set_yticks([0, 1], ["force-gs-240 (incompressible)", "conventional-240 (compressible)"])
    ax.set_xlim(0, 3)
    ax.set_title("4K random read, QD3, 8 GB span: MB/s\nCorsair Force GS 240 GB (SF-2281, 24 nm Toggle MLC), scale 0.02, not comparable")
    problems = inspect(fig, "bars.png")
    plt.close(fig)
    assert any("runs off the image" in p for p in problems)


def _checked(tmp_path_factory, profile: str, model: str, suites):
    """A whole review at a small scale (`suites`, or the drive's preset when None); every
    chart's artists inspected before it is saved (through the shared writer, which today's
    chart module uses too)."""
    from ssdlab.lab import charts, today_charts
    from ssdlab.lab.context import ReviewContext
    from ssdlab.lab.pts import charts as pts_charts
    from ssdlab.lab.review import review

    out = tmp_path_factory.mktemp(f"review-{profile}")
    seen: dict[str, list[str]] = {}
    original = charts._save

    def spy(fig, path, svg=True):
        seen[Path(path).name] = inspect(fig, Path(path).name, model)
        return original(fig, path, svg)

    mp = pytest.MonkeyPatch()
    for module in (charts, today_charts, pts_charts):
        mp.setattr(module, "_save", spy)
    try:
        done = review(ReviewContext(profile, scale=SCALE, out_dir=out), suites, out / "results.sqlite")
    finally:
        mp.undo()
    return out, done, seen


@pytest.fixture(scope="module")
def checked_review(tmp_path_factory):
    """The articles' review of the Force GS."""
    from ssdlab.lab.suites import ARTICLE_SUITES

    return _checked(tmp_path_factory, "force-gs-240", FORCE_GS, ARTICLE_SUITES)


@pytest.fixture(scope="module")
def checked_today_review(tmp_path_factory):
    """The review of a drive of today (its preset: the 2020s suites)."""
    return _checked(tmp_path_factory, "samsung-980-pro-1tb", TODAY, None)


def _no_chart_problems(seen, at_least: int) -> None:
    assert len(seen) >= at_least, sorted(seen)
    problems = [p for found in seen.values() for p in found]
    assert not problems, "\n".join(problems)


def test_every_chart_keeps_its_series_off_the_frame_and_names_drive_and_scale(checked_review):
    _no_chart_problems(checked_review[2], 30)


def test_every_chart_of_todays_review_keeps_its_series_off_the_frame_and_names_drive_and_scale(checked_today_review):
    _no_chart_problems(checked_today_review[2], 8)


def _charts_on_page(out: Path, seen) -> str:
    """Every chart written is on the page at twice the resolution, with its SVG; returns the page."""
    page = (out / "index.html").read_text()
    shown = re.findall(r"<img src='charts/([^']+)'[^>]*width=\"(\d+)\"", page)
    assert {name for name, _ in shown} == set(seen)
    for name, width in shown:
        png = out / "charts" / name
        real_width = struct.unpack(">II", png.read_bytes()[16:24])[0]
        assert real_width == 2 * int(width) and real_width >= 1500, (name, real_width, width)
        assert png.with_suffix(".svg").read_text().lstrip().startswith("<?xml"), name
    return page


def test_every_chart_is_on_the_page_at_twice_the_resolution_with_its_svg(checked_review):
    out, _, seen = checked_review
    page = _charts_on_page(out, seen)
    # No internal metric key reaches the page; numbers are right-aligned, text left-aligned.
    text = re.sub(r"charts/[^'\"]+", "", page)
    assert "aligned_4k" not in text and "rand_read_4k" not in text and "_metrics" not in text.replace("_metrics.csv", "")
    assert '<td class="num">' in page and '<td class="text">' in page
    # Durations follow the scale: nothing says 30 or 60 minutes in a review at 2%.
    assert not re.search(r"\b(20|30|60) min\b", page), re.findall(r".{40}\b(?:20|30|60) min\b.{20}", page)


def test_todays_review_shows_every_chart_its_preset_and_durations_as_run(checked_today_review):
    from ssdlab.lab.suites import TODAY_SUITES

    out, _, seen = checked_today_review
    page = _charts_on_page(out, seen)
    assert "Preset: <strong>2020s" in page and 'id="methodology"' in page
    for name in TODAY_SUITES:
        assert f'id="{name}"' in page, name
    text = re.sub(r"charts/[^'\"]+", "", page)
    assert "cache_gb" not in text and "_metrics" not in text.replace("_metrics.csv", "")
    # Durations follow the scale: the 30 s / 5 min / 30 min idle periods are shown as run.
    assert not re.search(r"\b(5|30) min\b", page), re.findall(r".{40}\b(?:5|30) min\b.{20}", page)


def _loads_in_chromium(out: Path, seen, shot_name: str) -> None:
    url = (out / "index.html").as_uri()
    body, dom = dumped_body("--window-size=1400,1000", "--virtual-time-budget=10000", "--enable-logging=stderr", "--v=0", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-broken-images="0"' in body, body
    images = int(body.split('data-images="')[1].split('"')[0])
    assert images == len(seen)
    assert 'data-overlapping-elements="0"' in body, body  # no chart or table over another
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line or "Failed to load resource" in line]
    assert not console, console
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / shot_name
    s = chromium("--window-size=1400,4000", f"--screenshot={shot}", url)
    assert s.returncode == 0 and shot.stat().st_size > 50_000


@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"), reason="chromium is not installed")
def test_report_loads_every_chart_in_chromium_without_console_errors(checked_review):
    assert CHROMIUM is not None, "CI must install chromium (see .ci/run)"
    out, _, seen = checked_review
    _loads_in_chromium(out, seen, "review-report.png")


@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"), reason="chromium is not installed")
def test_todays_report_loads_every_chart_in_chromium_without_console_errors(checked_today_review):
    assert CHROMIUM is not None, "CI must install chromium (see .ci/run)"
    out, _, seen = checked_today_review
    _loads_in_chromium(out, seen, "review-report-980-pro.png")
