"""The ``serve`` fixture: served drives for the block-device tests, stopped at the end."""

import signal

import pytest
from served import SANDFORCE, Served


@pytest.fixture
def serve(tmp_path):
    """Start servers with ``serve(profile_and_overrides, latency=...)``; all are stopped at the end."""
    started: list[Served] = []

    def start(
        drive=SANDFORCE,
        latency: str = "none",
        name: str = "drive.img",
        faults: tuple[str, ...] = (),
        precondition: tuple[str, ...] = (),
        flags: tuple[str, ...] = (),
    ) -> Served:
        profile, overrides = drive
        s = Served(tmp_path, profile, list(overrides), latency, name, faults, precondition, flags).start()
        started.append(s)
        return s

    yield start
    for s in started:
        if s.process is not None:
            s.process.send_signal(signal.SIGTERM)
            s.process.communicate(timeout=300)
