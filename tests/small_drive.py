"""A small drive for fast tests (imported by tests in any folder)."""

# The Force GS profile shrunk to 8 dies on 4 channels with 64 blocks per plane: 2 GiB raw,
# 1.8 GB user (15% spare over raw). Same timings and page layout; small enough for fast tests.
SMALL = [
    "nand.channels=4",
    "nand.packages_per_channel=1",
    "nand.blocks_per_plane=64",
    f"drive.capacity_bytes_user={(8 * 2 * 64 * 256 * 8192) * 85 // 100 // 4096 * 4096}",
]


def small_args():
    """``--set`` arguments of the small test drive, for the command line."""
    out = []
    for item in SMALL:
        out += ["--set", item]
    return out
