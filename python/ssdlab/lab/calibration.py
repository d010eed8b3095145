"""Published figures (BRIEF section 3) beside simulated ones."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


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

    @property
    def fitted(self) -> bool:
        """Whether a profile parameter was set from this figure (so it is no independent check)."""
        return (self.drive, self.metric, self.pattern, self.condition) in FITTED


#: Figures a profile parameter was calibrated from (see the profile files): the SF-2281 back-end
#: write rate from the Force GS AS-SSD clean write, the SF-1200 back-end rates from the Force 100
#: 2 MB incompressible write and read.
FITTED = {
    ("force-gs-240", "AS-SSD sequential write", "incompressible", "clean"),
    ("force-100-sf1200", "2M sequential write (4k-aligned)", "incompressible", ""),
    ("force-100-sf1200", "2M sequential read (4k-aligned)", "incompressible", ""),
}

PUBLISHED = [
    # Corsair Force GS 240 GB, AS-SSD incompressible after a 60 min incompressible torture
    # (firmware 5.0.2 / 5.0.3; ssdlab models no firmware version, so both are listed).
    *[Published("force-gs-240", "resiliency", f"AS-SSD sequential {d}", "incompressible", c, v, "MB/s", f"Force GS review, fw {fw}")
      for fw, figures in (("5.0.2", ((("read", "clean"), 494.1), (("read", "after torture"), 372.3), (("read", "after TRIM"), 479.8),
                                      (("write", "clean"), 270.5), (("write", "after torture"), 74.9), (("write", "after TRIM"), 220.2))),
                          ("5.0.3", ((("read", "clean"), 507.6), (("read", "after torture"), 501.1), (("read", "after TRIM"), 506.0),
                                      (("write", "clean"), 266.8), (("write", "after torture"), 156.2), (("write", "after TRIM"), 150.3))))
      for (d, c), v in figures],
    # Force GS HD Tach after a 20 min compressible torture.
    Published("force-gs-240", "resiliency", "HD Tach average read", "compressible", "clean", 402, "MB/s", "Force GS review, HD Tach"),
    Published("force-gs-240", "resiliency", "HD Tach average read", "compressible", "after torture", 182, "MB/s", "Force GS review, HD Tach"),
    Published("force-gs-240", "resiliency", "HD Tach average write", "compressible", "after torture", 398, "MB/s", "Force GS review, HD Tach (write unchanged)"),
    # Corsair Force LS 240 GB (Phison), the 2013 TRIM validation: fill, 30 min of 4 KB random writes
    # at QD32, one HD Tach pass (climbs as GC catches up), TRIM, one more pass. The article gives
    # approximate values ("~30", "a peak of 350", "~360").
    Published("force-ls-240", "resiliency", "HD Tach write start (30 min torture)", "incompressible", "after torture", 30, "MB/s", "Force LS review, HD Tach (approximate)"),
    Published("force-ls-240", "resiliency", "HD Tach write peak (30 min torture)", "incompressible", "after torture", 350, "MB/s", "Force LS review, HD Tach (approximate)"),
    Published("force-ls-240", "resiliency", "HD Tach write average (30 min torture)", "incompressible", "after TRIM", 360, "MB/s", "Force LS review, HD Tach (approximate)"),
    # Corsair Force 100 GB, SF-1200 firmware 3.0.1, compressible vs incompressible (Iometer).
    Published("force-100-sf1200", "four-corners", "4K random write (4k-aligned)", "compressible", "", 164.6, "MB/s", "SF-1200 review, Iometer"),
    Published("force-100-sf1200", "four-corners", "4K random write (4k-aligned)", "incompressible", "", 122.5, "MB/s", "SF-1200 review, Iometer"),
    Published("force-100-sf1200", "four-corners", "4K random read (4k-aligned)", "compressible", "", 52.1, "MB/s", "SF-1200 review, Iometer"),
    Published("force-100-sf1200", "four-corners", "4K random read (4k-aligned)", "incompressible", "", 42.8, "MB/s", "SF-1200 review, Iometer"),
    Published("force-100-sf1200", "four-corners", "2M sequential read (4k-aligned)", "compressible", "", 265.2, "MB/s", "SF-1200 review, Iometer"),
    Published("force-100-sf1200", "four-corners", "2M sequential read (4k-aligned)", "incompressible", "", 212.4, "MB/s", "SF-1200 review, Iometer"),
    Published("force-100-sf1200", "four-corners", "2M sequential write (4k-aligned)", "compressible", "", 251.7, "MB/s", "SF-1200 review, Iometer"),
    Published("force-100-sf1200", "four-corners", "2M sequential write (4k-aligned)", "incompressible", "", 144.4, "MB/s", "SF-1200 review, Iometer"),
    # OCZ Agility 2, SF-1200 firmware 3.0.5.
    Published("agility2-100-sf1200", "four-corners", "4K random write (4k-aligned)", "compressible", "", 44.2, "MB/s", "SF-1200 review, Iometer (3.0.5)"),
    Published("agility2-100-sf1200", "four-corners", "4K random write (4k-aligned)", "incompressible", "", 46.3, "MB/s", "SF-1200 review, Iometer (3.0.5)"),
]

#: Figures with no simulated counterpart yet, listed so the page is complete.
NOT_SIMULATED = [
    ("Force GS rated 555 MB/s read, 525 MB/s write, 90K IOPS 4 KB random write", "manufacturer ratings, not measurements"),
    ("SandForce drives of the time: 128 GB NAND for 100 GB (93.1 GiB) user; 7-15% spare",
     "built into the profiles: see spare/user and spare/raw in each report"),
]


def table(results: pd.DataFrame) -> pd.DataFrame:
    """Published beside simulated (from a results frame as `ResultsDatabase.latest` returns)."""
    rows = []
    for p in PUBLISHED:
        match = results[(results["drive"] == p.drive) & (results["suite"] == p.suite) & (results["metric"] == p.metric)
                        & (results["pattern"] == p.pattern) & (results["condition"] == p.condition)]
        simulated = float(match["value"].iloc[-1]) if len(match) else None
        rows.append({
            "drive": p.drive, "figure": f"{p.metric} ({p.pattern}{', ' + p.condition if p.condition else ''})",
            "published": p.value, "simulated": simulated,
            "difference_pct": None if simulated is None else (simulated - p.value) / p.value * 100.0,
            "unit": p.unit, "role": "calibrated from" if p.fitted else "check", "source": p.source,
        })
    return pd.DataFrame(rows)


def ratios(results: pd.DataFrame) -> pd.DataFrame:
    """The SF-1200 compressible/incompressible ratios, published beside simulated."""
    out = []
    pub = {(p.metric, p.pattern): p.value for p in PUBLISHED if p.drive == "force-100-sf1200"}
    sim = results[results["drive"] == "force-100-sf1200"]
    for metric in sorted({m for m, _ in pub}):
        published = pub[(metric, "compressible")] / pub[(metric, "incompressible")]
        c = sim[(sim["metric"] == metric) & (sim["pattern"] == "compressible")]["value"]
        i = sim[(sim["metric"] == metric) & (sim["pattern"] == "incompressible")]["value"]
        simulated = float(c.iloc[-1]) / float(i.iloc[-1]) if len(c) and len(i) and float(i.iloc[-1]) > 0 else None
        out.append({"figure": f"{metric}: compressible / incompressible", "published": published, "simulated": simulated,
                    "difference_pct": None if simulated is None else (simulated - published) / published * 100.0})
    return pd.DataFrame(out)
