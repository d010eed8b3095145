"""Published figures of today's drives beside the review suites' simulated ones (issue 22).

Each row names the suite and metric key its simulated counterpart is recorded under (the
suites of the ``2020s`` preset), the figure's source, and its role (the constants of
`ssdlab.lab.calibration`): ``calibrated from`` where a profile parameter was set from this very
figure (the profile file says which), ``set from spec`` where the figure follows from a
data-sheet value the profile took, ``check`` where nothing was set from it.

The whole-drive-fill figures are the issue-20 table, measured by TechPowerUp: a secure-erased
drive written with 1 MB sequential blocks in a single thread, speed twice a second. The lab's
fill writes 128 KiB at QD32 (the issue's procedure); at these transfer sizes both keep the
drive's queue busy, so the figures compare, but the procedures are not identical.
"""

from __future__ import annotations

import pandas as pd

from ssdlab.lab.calibration import CALIBRATED, CHECK, INFORMED, SPEC, Published

_TPU = "TechPowerUp review, whole-drive fill"
_SOURCES = {
    "samsung-980-pro-1tb": f"{_TPU} (techpowerup.com/review/samsung-980-pro-1-tb-ssd/6.html)",
    "samsung-980-1tb": f"{_TPU} (techpowerup.com/review/samsung-980-non-pro-1-tb/6.html)",
    "samsung-970-evo-500": f"{_TPU} (techpowerup.com/reviews/Samsung/970_Evo_SSD_500_GB/6.html)",
    "wd-sn580-1tb": f"{_TPU} (techpowerup.com/review/wd-blue-sn580-1-tb/6.html)",
    "samsung-870-evo-4tb": f"{_TPU} (techpowerup.com/review/samsung-870-evo-4-tb/6.html)",
}


def _fill(drive: str, metric: str, value: float, unit: str, role: str, why: str, source: str | None = None) -> Published:
    return Published(drive, "fill", metric, "incompressible", "", value, unit, f"{source or _SOURCES[drive]}; {why}", role)


def published_today() -> list[Published]:
    """The published figures of today's drives, each with its source and role."""
    return [
        # Samsung 980 PRO 1 TB: "starts out at 4 GB/s ... until 113 GB ... still 1.5 GB/s ... on average 1.9 GB/s".
        _fill("samsung-980-pro-1tb", "cache_gb", 113, "GB", SPEC, "follows from the data sheet's TurboWrite (6 GB static + 108 GB intelligent)"),
        _fill("samsung-980-pro-1tb", "cache_write_mbps", 4000, "MB/s", CALIBRATED, "set media.pslc_t_prog_ns"),
        _fill("samsung-980-pro-1tb", "post_cache_mbps", 1500, "MB/s", CALIBRATED, "set media.t_prog_ns, through flushing the cache behind the writes"),
        _fill("samsung-980-pro-1tb", "average_mbps", 1900, "MB/s", INFORMED, "chose the flush's pace (one SLC block folded per native block)"),
        # Samsung 980 1 TB (DRAM-less, HMB): "2.5 GB/s ... until 160 GB ... around 500 MB/s ... around 600 MB/s".
        _fill("samsung-980-1tb", "cache_gb", 160, "GB", SPEC, "follows from the data sheet's TurboWrite 2.0 (160 GB)"),
        _fill("samsung-980-1tb", "cache_write_mbps", 2500, "MB/s", CALIBRATED, "set media.pslc_t_prog_ns"),
        _fill("samsung-980-1tb", "post_cache_mbps", 500, "MB/s", CALIBRATED, "set media.t_prog_ns, through flushing the cache behind the writes"),
        _fill("samsung-980-1tb", "average_mbps", 600, "MB/s", CHECK, "flushing the cache behind the writes (the 980 PRO's rule)"),
        # Samsung 970 EVO 500 GB: "well over 2 GB/s ... after around 22 GB ... a bit above 600 MB/s ... 663 MB/s".
        _fill("samsung-970-evo-500", "cache_gb", 22, "GB", SPEC, "follows from the data sheet's TurboWrite (4 GB static + 18 GB intelligent)"),
        _fill("samsung-970-evo-500", "post_cache_mbps", 600, "MB/s", CALIBRATED, "set media.t_prog_ns"),
        _fill("samsung-970-evo-500", "average_mbps", 663, "MB/s", CHECK, "TLC written directly, folding at the end of the fill"),
        # WD SN580 1 TB: "around 4 GB/s ... until 341 GB ... 450 MB/s ... 596 MB/s".
        _fill("wd-sn580-1tb", "cache_gb", 341, "GB", CHECK, "the free-space rule: every free block in pSLC mode (no firmware limit)"),
        _fill(
            "wd-sn580-1tb", "cache_write_mbps", 4000, "MB/s", CHECK, "nothing set from it (media.pslc_t_prog_ns was set from the product brief's 4,150 MB/s)"
        ),
        _fill("wd-sn580-1tb", "post_cache_mbps", 450, "MB/s", CALIBRATED, "set media.t_prog_ns, through folding while writing"),
        _fill("wd-sn580-1tb", "average_mbps", 596, "MB/s", CHECK, "folding while writing"),
        # Samsung 870 EVO 4 TB (SATA): "around 480 MB/s ... after just 24 GB ... 400 MB/s ... 416 MB/s".
        _fill("samsung-870-evo-4tb", "cache_gb", 24, "GB", CALIBRATED, "set slc_cache.dynamic_max_bytes (the data sheet says 78 GB)"),
        _fill("samsung-870-evo-4tb", "cache_write_mbps", 480, "MB/s", CHECK, "the SATA link's limit"),
        _fill("samsung-870-evo-4tb", "post_cache_mbps", 400, "MB/s", CALIBRATED, "set media.t_prog_ns"),
        _fill("samsung-870-evo-4tb", "average_mbps", 416, "MB/s", CHECK, "TLC written directly, folding at the end of the fill"),
        # Samsung 870 QVO 1 TB (SATA, QLC): the data sheet, and TechPowerUp's fill average.
        _fill("samsung-870-qvo-1tb", "cache_gb", 42, "GB", SPEC, "Intelligent TurboWrite 6 GB static + 36 GB intelligent", "Samsung 870 QVO data sheet (1 TB)"),
        _fill(
            "samsung-870-qvo-1tb", "post_cache_mbps", 80, "MB/s", CALIBRATED, "set media.t_prog_ns", "Samsung 870 QVO data sheet (1 TB), write after TurboWrite"
        ),
        _fill(
            "samsung-870-qvo-1tb",
            "average_mbps",
            116,
            "MB/s",
            CHECK,
            "folding; the 870 QVO TechPowerUp reviewed is the 1 TB (techpowerup.com/review/samsung-870-qvo-1-tb/)",
            "TechPowerUp, whole-drive fill chart of the 870 EVO 4 TB review (techpowerup.com/review/samsung-870-evo-4-tb/6.html)",
        ),
        # Samsung 980 1 TB: rated 4 KB random read at QD1. The data sheet's test span is not
        # stated there; compared with the smallest span of the read-span suite (map pages cached).
        Published(
            "samsung-980-1tb",
            "read-span",
            "iops",
            "incompressible",
            "1 GB",
            17_000,
            "IOPS",
            "Samsung 980 data sheet, 4 KB random read QD1 (1 TB), as listed by Guru3D (guru3d.com/articles-pages/samsung-980-1tb-nvme-ssd-review,2.html); "
            "its span is not stated: compared with the 1 GB span",
            CHECK,
        ),
    ]


def table(results: pd.DataFrame) -> pd.DataFrame:
    """`published_today()` beside simulated figures, in the columns of `calibration.table`
    (from a results frame as `ResultsDatabase.latest` returns)."""
    rows = []
    for p in published_today():
        match = results[
            (results["drive"] == p.label)
            & (results["suite"] == p.suite)
            & (results["metric"] == p.metric)
            & (results["pattern"] == p.pattern)
            & (results["condition"] == p.condition)
        ]
        simulated = float(match["value"].iloc[-1]) if len(match) else None
        rows.append(
            {
                "drive": p.label,
                "figure": f"{p.title} ({p.pattern}{', ' + p.condition if p.condition else ''})",
                "published": p.value,
                "simulated": simulated,
                "difference_pct": None if simulated is None else (simulated - p.value) / p.value * 100.0,
                "unit": p.unit,
                "role": p.role,
                "source": p.source,
            }
        )
    return pd.DataFrame(rows, columns=["drive", "figure", "published", "simulated", "difference_pct", "unit", "role", "source"])
