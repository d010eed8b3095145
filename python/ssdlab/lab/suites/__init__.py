"""The review suites, in the order a review runs them.

Each module has ``NAME``, ``TITLE``, ``METRICS`` (metric key -> display title: the keys are what the
results database, the calibration page and the headline charts refer to) and
``run(ctx) -> SuiteResult``.

``ARTICLE_SUITES`` are the articles' tests, what ``ssdlab review`` runs by default;
``PTS_SUITES`` are the SNIA PTS tests (``ssdlab pts``, or ``--suites pts`` in a review).
"""

from ssdlab.lab.suites import (
    as_ssd,
    atto,
    consistency,
    four_corners,
    hdtach,
    power,
    pts_hir,
    pts_iops,
    pts_latency,
    pts_throughput,
    pts_wsat,
    resiliency,
    storage_bench,
)

ARTICLE_SUITES = [m.NAME for m in (four_corners, as_ssd, atto, hdtach, resiliency, consistency, power, storage_bench)]
PTS_SUITES = [m.NAME for m in (pts_iops, pts_throughput, pts_latency, pts_wsat, pts_hir)]
SUITES = {
    m.NAME: m
    for m in (four_corners, as_ssd, atto, hdtach, resiliency, consistency, power, storage_bench, pts_iops, pts_throughput, pts_latency, pts_wsat, pts_hir)
}
