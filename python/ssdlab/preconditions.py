"""Preconditioning steps applied before a measured job (``--precondition STEP``).

The steps, their options and what they do to a drive are defined once, in Rust
(``crates/ssdlab-drive/src/precondition.rs``), for ``ssdlab run``, ``trace replay``, sweeps
and ``ssdlab serve`` alike; this module is their Python face:

- ``secure-erase``: ATA SECURE ERASE (every block erased, every mapping dropped).
- ``seq-fill``: write the whole usable span once, 128 KiB sequential at QD32.
- ``rand-fill``: 4 KiB random writes at QD32 amounting to twice the usable span (the SNIA
  steady-state convention), after which GC is in steady state for uniform random writes.
- ``idle:SECONDS``: leave the drive idle so idle-time GC can work (a number of seconds, or a
  time as fio writes it: ``idle:500ms``, ``idle:5m``).
- ``trim-all``: TRIM the whole usable span (what a format does).
"""

from ssdlab import _native

#: The steps ``--precondition`` takes, as help texts list them.
NAMES = tuple(_native.PRECONDITION_STEPS)


def parse(step: str) -> str:
    """Check one step; returns its kind (``secure-erase``, ``seq-fill``, ``rand-fill``,
    ``trim-all`` or ``idle``). Raises ``WorkloadError`` naming the choices."""
    return _native.precondition_kind(step)


def trim_all_options(usable_bytes: int) -> list[str]:
    """TRIM of the whole usable span (the ``trim-all`` step's job): 1 GiB commands, or one
    command of the whole span on a drive smaller than that (a shortened review's drive)."""
    return _native.precondition_options("trim-all", usable_bytes)


#: The ``trim-all`` job on a drive of at least 1 GiB.
TRIM_ALL = trim_all_options(1 << 30)
