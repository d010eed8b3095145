"""Shared fixtures and options for the Python tests."""

import pytest

# The Force GS profile shrunk to 8 dies on 4 channels with 64 blocks per plane: 2 GiB raw,
# 1.8 GB user (15% spare over raw). Same timings and page layout; small enough for fast tests.
SMALL = [
    "nand.channels=4",
    "nand.packages_per_channel=1",
    "nand.blocks_per_plane=64",
    f"drive.capacity_bytes_user={(8 * 2 * 64 * 256 * 8192) * 85 // 100 // 4096 * 4096}",
]


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")


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
