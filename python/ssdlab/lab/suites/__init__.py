"""The review suites, in the order a review runs them.

Each module has ``NAME``, ``TITLE``, ``METRICS`` (metric key -> display title: the keys are what the
results database, the calibration page and the headline charts refer to) and
``run(ctx) -> SuiteResult``.
"""

from ssdlab.lab.suites import as_ssd, atto, consistency, four_corners, hdtach, power, resiliency, storage_bench

SUITES = {m.NAME: m for m in (four_corners, as_ssd, atto, hdtach, resiliency, consistency, power, storage_bench)}
