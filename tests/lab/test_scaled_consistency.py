"""A scaled review represents the full drive in the IO-consistency test (issue 21, item 3): the
suite's steady-state figures (mean, 1st/10th/50th/99th percentile of per-second IOPS, and
1st percentile over mean) at scale 0.05 are within 15% of those at scale 0.5, for every built-in
profile whose review runs the suite (the SATA drives without an SLC cache: the 2012 preset).

What runs: `consistency.run_part` as a review runs it (secure erase, fast-forwarded sequential
fill, 4 KiB random writes QD32 for 2000 s times the drive's capacity ratio), on one seed.
The CI-sized test runs the default over-provisioning part only (nine profiles at two scales);
`--runslow` adds the 25%-extra-OP part. On the shared 2-core machine the default-OP test took
92 s, both parts together 234 s (the scale-0.5 runs are most of it). Both print the figures
side by side. How the scaled drive is built: `ssdlab.lab.scaling`.
"""

from pathlib import Path

import pytest

from ssdlab.drive import profile_names
from ssdlab.lab.context import ReviewContext
from ssdlab.lab.review import preset_for
from ssdlab.lab.suites import consistency

SMALL, LARGE = 0.05, 0.5
TOLERANCE = 0.15
FIGURES = ("steady_iops_mean", "steady_iops_p01", "steady_iops_p10", "steady_iops_p50", "steady_iops_p99", "steady_p01_over_mean")


def consistency_profiles() -> list[str]:
    """The built-in profiles whose review runs the IO-consistency suite."""
    return [p for p in profile_names() if consistency.NAME in preset_for(ReviewContext(p, scale=0.01).info()).suites]


def figures(profile: str, scale: float, part: str, out: Path) -> dict[str, float]:
    ctx = ReviewContext(profile, scale=scale, out_dir=out / f"{profile}-{scale:g}")
    ctx.suite = consistency.NAME
    return {m.key: m.value for m in consistency.run_part(ctx, part)["metrics"]}


def compare(part: str, out: Path) -> None:
    rows, misses = [], []
    for profile in consistency_profiles():
        small, large = figures(profile, SMALL, part, out), figures(profile, LARGE, part, out)
        for key in FIGURES:
            deviation = small[key] / large[key] - 1.0
            rows.append(f"{profile:20s} {key:22s} {small[key]:10.4g} {large[key]:10.4g} {deviation:+7.1%}")
            if abs(deviation) > TOLERANCE:
                misses.append(rows[-1])
    print(f"\nIO consistency, {part}: figure at scale {SMALL:g}, at scale {LARGE:g}, deviation")
    print("\n".join(rows))
    assert not misses, "beyond 15%:\n" + "\n".join(misses)


def test_the_suite_runs_on_the_drives_of_the_articles():
    # Guards the profile list the comparison runs over (a preset change would empty it).
    profiles = consistency_profiles()
    assert "force-ls-240" in profiles and "samsung-830-256" in profiles and "samsung-980-pro-1tb" not in profiles, profiles


def test_scale_005_represents_scale_05_at_default_op(tmp_path):
    compare("default OP", tmp_path)


@pytest.mark.slow
def test_scale_005_represents_scale_05_with_25_percent_extra_op(tmp_path):
    compare("25% extra OP", tmp_path)
