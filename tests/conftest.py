"""Shared fixtures and options for the Python tests."""

import pytest

from small_drive import SMALL  # noqa: F401  (re-exported for fixtures)


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")
    parser.addoption(
        "--crash-rounds",
        type=int,
        default=10,
        help="rounds of each power-loss crash test (the full test: --crash-rounds 50)",
    )


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: give --runslow to run")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def small_overrides():
    """Overrides that shrink the default profile for tests."""
    return list(SMALL)
