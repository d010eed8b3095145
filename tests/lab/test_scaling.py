"""How `--scale` shrinks a drive (`ssdlab.lab.scaling`): the rules, on the built-in profiles,
without running a drive. The behaviour they are for is tested in test_scaled_consistency.py."""

import tomllib

import pytest

from ssdlab.drive import profile_source
from ssdlab.lab import scaling
from ssdlab.lab.context import ReviewContext


def profile(name: str, overrides=()) -> dict:
    return tomllib.loads(profile_source(name, list(overrides)))


def blocks_per_die_of_data(base: dict, blocks: int, capacity: int) -> float:
    nand = base["nand"]
    dies = nand["channels"] * nand["packages_per_channel"] * nand["dies_per_package"]
    return capacity / (dies * nand["planes_per_die"] * nand["pages_per_block"] * nand["page_bytes"])


@pytest.mark.parametrize("name", ["neutron-240", "samsung-830-256", "force-ls-240", "force-100-sf1200"])
@pytest.mark.parametrize("scale", [0.01, 0.05, 0.5])
def test_user_data_keeps_its_share_of_the_blocks_gc_can_fill(name, scale):
    base = profile(name)
    reserve = scaling.gc_reserve_blocks_per_die(base)
    full = base["nand"]["blocks_per_plane"]
    blocks, capacity = scaling.scaled_blocks_and_capacity(base, scale)
    assert blocks < full
    share_full = blocks_per_die_of_data(base, full, base["drive"]["capacity_bytes_user"]) / (full - reserve)
    share_scaled = blocks_per_die_of_data(base, blocks, capacity) / (blocks - reserve)
    assert share_scaled == pytest.approx(share_full, rel=1e-4), (share_scaled, share_full)


def test_the_reserve_follows_the_gc_schedule():
    # Paced holds the low-water mark (2), bursts swing from 2 to 4; both plus the open blocks.
    assert scaling.gc_reserve_blocks_per_die(profile("neutron-240")) == 3.5
    assert scaling.gc_reserve_blocks_per_die(profile("samsung-830-256")) == 4.0
    # Background GC at 3 units per host unit cannot keep up with greedy's ~4.1 at the Force LS's
    # spare factor (it falls to the low-water mark) but keeps up with 25% of the space unused.
    assert scaling.greedy_wa_of(profile("force-ls-240")) > 4.0
    assert scaling.gc_reserve_blocks_per_die(profile("force-ls-240")) == 3.5
    assert scaling.gc_reserve_blocks_per_die(profile("force-ls-240", ["drive.reserved_user_fraction=0.25"])) == 7.5


def test_background_gc_drives_keep_32_spare_blocks_per_die_from_scale_005():
    base = profile("force-gs-240")
    for scale, floor in ((0.05, 32), (0.1, 32), (0.02, 12.8)):
        blocks, capacity = scaling.scaled_blocks_and_capacity(base, scale)
        spare = blocks - blocks_per_die_of_data(base, blocks, capacity)
        assert spare >= floor, (scale, spare)
    # A paced drive is shrunk to its scale.
    assert scaling.scaled_blocks_and_capacity(profile("neutron-240"), 0.05)[0] == int(2048 * 0.05)


def test_the_consistency_test_writes_for_2000_s_times_the_capacity_share():
    ctx = ReviewContext("force-gs-240", scale=0.05)
    assert ctx.capacity_ratio() == pytest.approx(0.122, abs=0.001)
    assert ctx.span_seconds(2000) == pytest.approx(2000 * ctx.capacity_ratio())
    assert ReviewContext("force-gs-240").span_seconds(2000) == 2000


def test_a_scaled_run_says_what_it_does_not_represent():
    base = profile("force-gs-240")
    below = scaling.not_representative(base, 0.02, 28)
    assert len(below) == 2 and "Below scale 0.05" in below[0] and "28 one-second samples" in below[1]
    assert scaling.not_representative(base, 0.5, 300) == []
    assert scaling.not_representative(profile("neutron-240"), 0.02, 300) == []


def test_a_scaled_review_names_the_spans_it_used():
    # A scaled four-corners page said "over an 8 GB span" while the runs used 0.05 of it.
    from ssdlab.lab.suites import four_corners

    full = ReviewContext("vertex3-120", scale=1.0)
    scaled = ReviewContext("vertex3-120", scale=0.05)
    assert full.span_label(8e9, "8 GB") == "8 GB"
    assert scaled.span_bytes(8e9) == 381 << 20 and scaled.span_label(8e9, "8 GB") == "400 MB"
    assert ReviewContext("vertex3-120", scale=0.01).span_label(1e9, "1 GB") == "67.1 MB"  # the 64 MiB floor
    assert "over a span of 400 MB written beforehand" in four_corners._method(scaled)
    assert "over a span of 8 GB written beforehand" in four_corners._method(full)
