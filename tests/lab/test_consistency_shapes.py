"""IO consistency differs in shape between GC schedules (issue 15): a paced drive (Neutron) is
tight, a drive collecting in threshold bursts (Samsung 830) spreads, a background-GC drive that
falls behind (Force GS) lies between; extra over-provisioning lets background GC keep up."""

from pathlib import Path

import pytest

from ssdlab.lab.context import ReviewContext
from ssdlab.lab.suites import consistency


def spread(profile: str, tmp_path: Path) -> dict:
    ctx = ReviewContext(profile, scale=0.05, out_dir=tmp_path)
    ctx.suite = consistency.NAME
    result = consistency.run(ctx)
    return {(m.key, m.condition): m.value for m in result.metrics}


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    out = tmp_path_factory.mktemp("shapes")
    return {p: spread(p, out) for p in ("neutron-240", "force-gs-240", "samsung-830-256")}


def test_paced_is_tighter_than_background_which_is_tighter_than_bursts(shapes):
    ratio = {p: m[("steady_p01_over_mean", "default OP")] for p, m in shapes.items()}
    assert ratio["neutron-240"] > 0.85, ratio
    assert ratio["neutron-240"] > ratio["force-gs-240"] > ratio["samsung-830-256"], ratio
    std = {p: m[("steady_iops_std", "default OP")] / m[("steady_iops_mean", "default OP")] for p, m in shapes.items()}
    assert std["neutron-240"] < std["force-gs-240"] < std["samsung-830-256"], std


def test_background_gc_keeps_up_with_more_spare(shapes):
    gs = shapes["force-gs-240"]
    assert gs[("steady_p01_over_mean", "25% extra OP")] > gs[("steady_p01_over_mean", "default OP")] + 0.2, gs
