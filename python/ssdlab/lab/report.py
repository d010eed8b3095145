"""HTML pages: one per review, and a comparison page across drives."""

from __future__ import annotations

import html
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from ssdlab.lab.results import SuiteResult

STYLE = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1000px; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #d62728; padding-bottom: 0.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; } th { background: #f3f3f3; }
td:first-child, th:first-child { text-align: left; }
.method { color: #444; font-style: italic; } .warn { background: #fff3cd; padding: 0.6em; border: 1px solid #e0c060; }
figure { margin: 1em 0; } figcaption { font-size: 0.85em; color: #555; } img { max-width: 100%; }
"""


def _table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, float_format=lambda x: f"{x:,.2f}", na_rep="-", border=0)


# Marks the page once every image has loaded (or not), so headless tests can check it.
SELF_CHECK = """
<script>
window.addEventListener('load', function () {
  var images = Array.prototype.slice.call(document.images);
  var broken = images.filter(function (i) { return !(i.complete && i.naturalWidth > 0); });
  document.body.setAttribute('data-images', images.length);
  document.body.setAttribute('data-broken-images', broken.length);
});
</script>
"""


def _figure(out_dir: Path, file_name: str, caption: str) -> str:
    svg = Path(file_name).with_suffix(".svg").name
    link = f" (<a href='charts/{html.escape(svg)}'>SVG</a>)" if (out_dir / "charts" / svg).exists() else ""
    return f"<figure><img src='charts/{html.escape(file_name)}' alt='{html.escape(caption)}'><figcaption>{html.escape(caption)}{link}</figcaption></figure>"


def _page(title: str, body: str) -> str:
    return (
        f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{STYLE}</style></head><body>\n{body}\n{SELF_CHECK}</body></html>\n"
    )


def review_page(
    out_dir: Path, info: dict, meta: dict, suites: list[SuiteResult], calibration: pd.DataFrame | None, against: list[tuple[str, str]] = ()
) -> Path:
    """Write `index.html` for one review; `against` are bar charts of this drive among the others
    in the results database."""
    parts = [f"<h1>{html.escape(info['model'])}</h1>"]
    parts.append(
        f"<p>ssdlab {html.escape(meta['version'])} &middot; profile <code>{html.escape(info['name'])}</code> "
        f"(hash {html.escape(meta['profile_hash'])}) &middot; seed {meta['seed']} &middot; scale {meta['scale']:g} "
        f"&middot; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC</p>"
    )
    if meta.get("overrides"):
        parts.append(
            f"<p>Results stored as <code>{html.escape(meta['drive'])}</code>; profile overrides: <code>{html.escape(', '.join(meta['overrides']))}</code></p>"
        )
    if meta["scale"] < 1.0:
        parts.append(
            f"<p class='warn'>Shortened review (scale {meta['scale']:g}): smaller drive and spans, shorter tests. "
            "Not comparable with published figures or with full-scale reviews.</p>"
        )
    summary = pd.DataFrame(
        [
            ("user capacity", f"{info['capacity_bytes_user'] / 1e9:,.1f} GB"),
            ("raw NAND", f"{info['raw_bytes'] / 2**30:,.1f} GiB"),
            ("spare / user", f"{info['spare_over_user'] * 100:.1f}%"),
            ("spare / raw", f"{info['spare_over_raw'] * 100:.1f}%"),
            (
                "NAND",
                f"{info['dies']} dies, {info['channels']} channels, {info['bus']} at {info['bus_mbps']:.0f} MB/s, "
                f"{info['page_bytes']} B pages x {info['planes_per_die']} planes",
            ),
            ("host interface", f"{info['host_interface']} ({info['link_mbps']:.0f} MB/s)"),
            ("data reduction", "on" if info["data_reduction"] else "off"),
            ("GC policy", info["gc_policy"]),
        ],
        columns=["property", "value"],
    )
    parts.append("<h2>The drive</h2>" + _table(summary))
    for suite in suites:
        parts.append(f"<h2 id='{suite.name}'>{html.escape(suite.title)}</h2>")
        parts.append(f"<p class='method'>{html.escape(suite.method)}</p>")
        for note in suite.notes:
            parts.append(f"<p class='warn'>{html.escape(note)}</p>")
        for file_name, caption in suite.charts:
            parts.append(_figure(out_dir, file_name, caption))
        if suite.metrics:
            parts.append(_table(suite.frame()))
        for name, frame in suite.tables.items():
            if len(frame) <= 40:
                parts.append(f"<p>{html.escape(name)} (<a href='data/{html.escape(name)}.csv'>CSV</a>)</p>" + _table(frame))
            else:
                parts.append(f"<p>{html.escape(name)}: {len(frame)} rows, <a href='data/{html.escape(name)}.csv'>CSV</a></p>")
    if against:
        parts.append(
            "<h2 id='against'>Against the other drives in the database</h2>"
            "<p class='method'>Each drive's latest review at the same scale; this drive highlighted.</p>"
        )
        for file_name, caption in against:
            parts.append(_figure(out_dir, file_name, caption))
    if calibration is not None and len(calibration):
        parts.append("<h2>Calibration</h2><p>Published figures beside this run's.</p>" + _table(calibration))
    path = out_dir / "index.html"
    path.write_text(_page(info["model"], "\n".join(parts)))
    return path


def comparison_page(out_dir: Path, charts: list[tuple[str, str]], table: pd.DataFrame) -> Path:
    """Write `index.html` comparing drives."""
    parts = ["<h1>ssdlab: drives compared</h1>", "<p>Latest full-scale review of each drive in the results database.</p>"]
    for file_name, caption in charts:
        parts.append(_figure(out_dir, file_name, caption))
    parts.append(_table(table))
    path = out_dir / "index.html"
    path.write_text(_page("ssdlab comparison", "\n".join(parts)))
    return path
