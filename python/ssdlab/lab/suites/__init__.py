"""The review suites, in the order a review runs them.

Each module has ``NAME``, ``TITLE``, ``METRICS`` (metric key -> display title: the keys are what the
results database, the calibration page and the headline charts refer to) and
``run(ctx) -> SuiteResult``. A suite of a review era has ``ERA``: ``"2012"`` for the articles'
tests, ``"2020s"`` for the tests reviews of today's drives run (whole-drive fill, cache recovery,
sustained and mixed IO, random reads over spans, heat and power states). A suite that only
applies to some host interfaces lists them in ``INTERFACES`` (families: ``"sata"``, ``"nvme"``);
without it a suite applies to every drive. A suite that needs a model only some profiles have
lists the profile sections in ``PROFILE_SECTIONS`` (``"thermal"``, ``"power"``).

``ARTICLE_SUITES`` are the articles' tests (the ``2012`` preset); ``TODAY_SUITES`` the ``2020s``
preset; ``ERAS`` maps each era to its suites; ``PTS_SUITES`` are the SNIA PTS tests (``ssdlab
pts``, or ``--suites pts`` in a review). Which preset a review runs is decided in
``ssdlab.lab.review.preset_for``.
"""

import importlib
import importlib.util

from ssdlab.lab.suites import (
    as_ssd,
    atto,
    cache_recovery,
    consistency,
    fill,
    four_corners,
    hdtach,
    power,
    pts_hir,
    pts_iops,
    pts_latency,
    pts_throughput,
    pts_wsat,
    read_span,
    resiliency,
    storage_bench,
    sustained,
)

#: Suites of today's drives that other work adds (issue 20's heat and power-state model):
#: registered here as soon as their modules exist, in this order after the others.
_OPTIONAL = ("thermal", "power_states")


def _present(names: tuple[str, ...]) -> list:
    found = []
    for name in names:
        if importlib.util.find_spec(f"{__name__}.{name}") is not None:
            found.append(importlib.import_module(f"{__name__}.{name}"))
    return found


_ORDER = [
    four_corners,
    as_ssd,
    atto,
    hdtach,
    resiliency,
    consistency,
    power,
    storage_bench,
    fill,
    cache_recovery,
    sustained,
    read_span,
    *_present(_OPTIONAL),
    pts_iops,
    pts_throughput,
    pts_latency,
    pts_wsat,
    pts_hir,
]

# (A module both imported above and found as optional is listed once.)
_ORDER = list(dict.fromkeys(_ORDER))
SUITES = {m.NAME: m for m in _ORDER}

#: Suite names per review era, in the order a review runs them.
ERAS: dict[str, list[str]] = {}
for _module in _ORDER:
    if getattr(_module, "ERA", None):
        ERAS.setdefault(_module.ERA, []).append(_module.NAME)

ARTICLE_SUITES = list(ERAS["2012"])
TODAY_SUITES = list(ERAS["2020s"])
PTS_SUITES = [m.NAME for m in (pts_iops, pts_throughput, pts_latency, pts_wsat, pts_hir)]


def applies(name: str, interface_family: str, sections: set[str] | None = None) -> bool:
    """Whether suite `name` applies to a drive of this host-interface family ("sata", "nvme")
    whose profile has `sections` (None: not checked)."""
    return why_not(name, interface_family, sections) is None


def why_not(name: str, interface_family: str, sections: set[str] | None = None) -> str | None:
    """Why suite `name` does not apply to such a drive (None when it does)."""
    module = SUITES[name]
    interfaces = getattr(module, "INTERFACES", None)
    if interfaces is not None and interface_family not in interfaces:
        return f"applies to {', '.join(interfaces)} drives only"
    needed = [s for s in getattr(module, "PROFILE_SECTIONS", ()) if sections is not None and s not in sections]
    if needed:
        return f"needs the profile's {', '.join(f'[{s}]' for s in needed)} model, which this profile has not"
    return None
