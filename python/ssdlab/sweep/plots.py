"""The plots of a sweep (PNG and SVG) and its HTML index, from the stored points.

Drawn when the sweep has the axes they need:

- WA against spare factor, one line per GC policy, with the analytic greedy curve (axis
  `spare_factor`);
- steady-state IOPS against spare factor (axis `spare_factor`);
- WA and write MB/s against compressibility (`buffer_compress_percentage`) and dedup share
  (`dedupe_percentage`);
- p99.9 latency against utilisation (1 - spare factor, or against `iodepth` when that is the
  load axis);
- any two axes as a heat map (`[plot] heatmap = ["axis a", "axis b"]`, `metric = "iops"`;
  by default the first two axes and write amplification).
"""

from __future__ import annotations

import html
import json
import tomllib
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ssdlab import _native, paths  # noqa: E402
from ssdlab.sweep.spec import Spec  # noqa: E402


def planned(spec: Spec) -> list[str]:
    """The names of the plot files `draw` may write for this spec's axes (whether it does
    depends on the results): checked before any point runs, so none replaces a file ssdlab
    did not write."""
    targets = {a.target for a in spec.axes}
    names = []
    if "spare_factor" in targets:
        names += ["wa_vs_spare", "iops_vs_spare"]
    names += [f"wa_rate_vs_{option}" for option in ("buffer_compress_percentage", "dedupe_percentage") if option in targets]
    if "spare_factor" in targets or "iodepth" in targets:
        names.append("p999_vs_utilisation")
    heat = spec.plots.get("heatmap") or [a.name for a in spec.axes[:2]]
    if len(heat) == 2 and heat[0] != heat[1]:
        names.append("heatmap")
    return [f"{name}.{suffix}" for name in names for suffix in ("png", "svg")]


def frame(points: pd.DataFrame) -> pd.DataFrame:
    """Stored points flattened: one row per point, its axes as `axis.NAME` columns and its
    summary's keys (nested ones joined with dots) as columns. `seed` is the point's seed (the
    spec's); the run summary's own seed (derived from it for the job) is `run_seed`."""
    rows = []
    for r in points.itertuples(index=False):
        row = {
            "point_index": r.point_index,
            "seed": r.seed,
            "point_key": r.point_key,
            "profile_hash": r.profile_hash,
            "workload": r.workload,
            "version": r.version,
            "error": r.error,
            "point_wall_seconds": r.wall_seconds,
        }
        for k, v in json.loads(r.axes).items():
            row[f"axis.{k}"] = v
        if isinstance(r.summary, str):
            flat = pd.json_normalize(json.loads(r.summary), sep=".").iloc[0].to_dict()
            if "seed" in flat:
                flat["run_seed"] = flat.pop("seed")
            row.update({k: v for k, v in flat.items() if k not in row})
        rows.append(row)
    return _one_type_per_column(pd.DataFrame(rows))


def _one_type_per_column(df: pd.DataFrame) -> pd.DataFrame:
    """A column whose values are of several types (not just whole numbers and decimals) is
    written as text, so Parquet can store it (a spec refuses such an axis; this keeps the output
    whole whatever the rows hold)."""
    for column in df.columns:
        if df[column].dtype != object:
            continue
        values = df[column].dropna()
        kinds = {"number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v).__name__ for v in values}
        if len(kinds) > 1:
            df[column] = df[column].map(lambda v: v if v is None or (isinstance(v, float) and v != v) else str(v))
    return df


def _save(fig, out: Path, name: str) -> list[str]:
    fig.tight_layout()
    paths.record_outputs(out, [f"{name}.png", f"{name}.svg"])
    with paths.atomic_output(out / f"{name}.png", "plot") as temp:
        fig.savefig(temp, dpi=110, format="png")
    with paths.atomic_output(out / f"{name}.svg", "plot") as temp:
        fig.savefig(temp, format="svg")
    plt.close(fig)
    return [f"{name}.png", f"{name}.svg"]


def _mean(df: pd.DataFrame, by: list[str], value: str) -> pd.DataFrame:
    return df.groupby(by, dropna=False)[value].mean().reset_index()


def _base_policy(spec: Spec) -> str:
    return tomllib.loads(spec.base_source)["ftl"]["gc_policy"]


def _slots_per_block(spec: Spec) -> int:
    n = tomllib.loads(spec.base_source)["nand"]
    return n["planes_per_die"] * n["pages_per_block"] * n["page_bytes"] // 4096


def drawn_points(df: pd.DataFrame) -> pd.DataFrame:
    """The points the plots show: those that ran, and whose job did not end in error (fio's
    max_latency, rate_min, a failed verify end a job early: its figures are not the point's; such
    points were drawn before 2026-12-07)."""
    ok = df[df["error"].isna()] if "error" in df else df
    return ok[ok["job_error.errno"].isna()] if "job_error.errno" in ok else ok


def draw(spec: Spec, df: pd.DataFrame, out: Path) -> list[tuple[str, list[str]]]:
    """Draw every plot the sweep's axes allow; returns (title, files) pairs."""
    out.mkdir(parents=True, exist_ok=True)
    ok = drawn_points(df)
    made: list[tuple[str, list[str]]] = []
    axes = {a.name: a for a in spec.axes}
    spare = next((a.name for a in spec.axes if a.target == "spare_factor"), None)
    policy = next((a.name for a in spec.axes if a.target == "ftl.gc_policy"), None)
    if spare and "write_amplification" in ok:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        groups = ok.groupby(f"axis.{policy}") if policy else [(_base_policy(spec), ok)]
        for label, g in groups:
            m = _mean(g, [f"axis.{spare}"], "write_amplification")
            ax.plot(m[f"axis.{spare}"], m["write_amplification"], "o-", label=f"simulated, {label}")
        xs = sorted(ok[f"axis.{spare}"].unique())
        if xs:
            import numpy as np

            grid = np.linspace(min(xs), max(xs), 60)
            b = _slots_per_block(spec)
            ax.plot(grid, [_native.greedy_wa(float(x), b) for x in grid], "k--", label=f"analytic greedy (b = {b} slots per block)")
        ax.set_xlabel("spare factor (T - U) / T")
        ax.set_ylabel("write amplification")
        ax.set_title("Write amplification against spare factor")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        made.append(("Write amplification against spare factor, with the analytic greedy model", _save(fig, out, "wa_vs_spare")))
    if spare and "iops" in ok:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        groups = ok.groupby(f"axis.{policy}") if policy else [("", ok)]
        for label, g in groups:
            m = _mean(g, [f"axis.{spare}"], "iops")
            ax.plot(m[f"axis.{spare}"], m["iops"], "o-", label=str(label) or "simulated")
        ax.set_xlabel("spare factor (T - U) / T")
        ax.set_ylabel("IOPS (steady state)")
        ax.set_title("Steady-state IOPS against spare factor")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        made.append(("Steady-state IOPS against spare factor", _save(fig, out, "iops_vs_spare")))
    for option, label in (("buffer_compress_percentage", "compressibility (% of each block compressible)"), ("dedupe_percentage", "dedup share (%)")):
        axis = next((a.name for a in spec.axes if a.target == option), None)
        if axis and "write_amplification" in ok:
            fig, ax1 = plt.subplots(figsize=(7, 4.5))
            m = _mean(ok, [f"axis.{axis}"], "write_amplification")
            ax1.plot(m[f"axis.{axis}"], m["write_amplification"], "o-", color="tab:blue", label="write amplification")
            ax1.set_xlabel(label)
            ax1.set_ylabel("write amplification", color="tab:blue")
            if "write_mbps" in ok:
                ax2 = ax1.twinx()
                m2 = _mean(ok, [f"axis.{axis}"], "write_mbps")
                ax2.plot(m2[f"axis.{axis}"], m2["write_mbps"], "s--", color="tab:orange", label="write MB/s")
                ax2.set_ylabel("write MB/s", color="tab:orange")
            ax1.set_title(f"Write amplification and data rate against {label.split(' (')[0]}")
            ax1.grid(alpha=0.3)
            made.append((f"WA and data rate against {label}", _save(fig, out, f"wa_rate_vs_{option}")))
    load = spare or next((a.name for a in spec.axes if a.target == "iodepth"), None)
    if load and "latency_us.p999" in ok:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        m = _mean(ok, [f"axis.{load}"], "latency_us.p999")
        x = 1 - m[f"axis.{load}"] if load == spare else m[f"axis.{load}"]
        ax.plot(x, m["latency_us.p999"], "o-")
        ax.set_xlabel("utilisation (1 - spare factor)" if load == spare else "queue depth")
        ax.set_ylabel("p99.9 latency (us)")
        ax.set_yscale("log")
        ax.set_title("p99.9 latency against utilisation")
        ax.grid(alpha=0.3, which="both")
        made.append(("p99.9 latency against utilisation", _save(fig, out, "p999_vs_utilisation")))
    heat = spec.plots.get("heatmap") or [a.name for a in spec.axes[:2]]
    metric = spec.plots.get("metric", "write_amplification")
    if len(heat) == 2 and all(h in axes for h in heat) and metric in ok and heat[0] != heat[1]:
        table = ok.pivot_table(index=f"axis.{heat[1]}", columns=f"axis.{heat[0]}", values=metric, aggfunc="mean")
        fig, ax = plt.subplots(figsize=(7, 5))
        image = ax.imshow(table.values, aspect="auto", origin="lower", cmap="viridis")
        ax.set_xticks(range(len(table.columns)), [f"{c:.3g}" if isinstance(c, float) else str(c) for c in table.columns], rotation=45)
        ax.set_yticks(range(len(table.index)), [f"{c:.3g}" if isinstance(c, float) else str(c) for c in table.index])
        ax.set_xlabel(heat[0])
        ax.set_ylabel(heat[1])
        fig.colorbar(image, ax=ax, label=metric)
        for (i, j), value in pd.DataFrame(table.values).stack().items():
            ax.text(j, i, f"{value:.3g}", ha="center", va="center", fontsize=7, color="white")
        ax.set_title(f"{metric} by {heat[0]} and {heat[1]}")
        made.append((f"{metric} by {heat[0]} and {heat[1]}", _save(fig, out, "heatmap")))
    return made


def index_page(spec: Spec, df: pd.DataFrame, made: list[tuple[str, list[str]]], out: Path, parquet: Path) -> Path:
    """The sweep's HTML page: its plots and the table of points."""
    parts = [
        f'<!doctype html><html><head><meta charset=\'utf-8\'><meta name="generator" content="ssdlab sweep"><title>sweep {html.escape(spec.name)}</title>',
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}img{max-width:100%}"
        "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px}</style></head><body>",
        f"<h1>Sweep {html.escape(spec.name)}</h1>",
        f"<p>Profile {html.escape(spec.profile)}; workload <code>{html.escape(' '.join(spec.workload))}</code>; "
        f"preconditions {html.escape(', '.join(spec.preconditions) or 'none')}; {len(spec.points)} points ({spec.sample}); "
        f"data: <a href='{html.escape(parquet.name)}'>{html.escape(parquet.name)}</a>.</p>",
    ]
    for title, files in made:
        parts.append(f"<h2>{html.escape(title)}</h2><img src='{files[0]}' alt='{html.escape(title)}'><p><a href='{files[1]}'>SVG</a></p>")
    columns = [c for c in df.columns if c.startswith("axis.")] + [
        c for c in ("seed", "write_amplification", "iops", "write_mbps", "latency_us.p999", "error", "job_error.errno") if c in df.columns
    ]
    parts.append("<h2>Points</h2>" + df[columns].to_html(index=False, float_format=lambda v: f"{v:.4g}", na_rep=""))
    parts.append("</body></html>")
    page = out / "index.html"
    paths.record_outputs(out, [page.name])
    paths.write_atomic(page, "\n".join(parts), "sweep page")
    return page
