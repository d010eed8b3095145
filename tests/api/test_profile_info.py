"""`profile_info` gives what a built drive's `info` holds, without building the drive (a review
job reads its profile's facts this way: `ReviewContext.info`)."""

import pytest

from ssdlab.drive import Drive, profile_info, profile_names
from ssdlab.errors import SsdlabError, WorkloadError
from ssdlab.lab.context import ReviewContext


@pytest.mark.parametrize("name", profile_names())
def test_the_facts_of_every_profile_are_those_of_its_drive(name):
    # Shrunk as a scaled review shrinks it (the facts it changes: capacities, blocks, caches),
    # so each drive is small to build.
    ctx = ReviewContext(name, scale=0.01)
    overrides = ctx.scaled_overrides()
    with Drive(name, overrides) as drive:
        assert profile_info(name, overrides) == drive.info
    assert ctx.info() == profile_info(name, overrides)


def test_overrides_and_content_mode_are_those_of_the_drive():
    overrides = ["nand.blocks_per_plane=16", "drive.capacity_bytes_user=999997440", "drive.reserved_user_fraction=0.25"]
    for content in ("modeled", "real"):
        with Drive("force-gs-240", overrides, content=content) as drive:
            facts = profile_info("force-gs-240", overrides, content=content)
            assert facts == drive.info
            assert facts["content_mode"] == content
    assert profile_info("force-gs-240", overrides)["usable_bytes"] < profile_info("force-gs-240", overrides[:2])["usable_bytes"]


def test_bad_input_is_refused_with_the_reason():
    with pytest.raises(SsdlabError, match="no-such-drive"):
        profile_info("no-such-drive")
    with pytest.raises(WorkloadError, match="content mode"):
        profile_info("force-gs-240", content="bogus")
    with pytest.raises(SsdlabError, match="nand.blocks_per_plane"):
        profile_info("force-gs-240", ["nand.blocks_per_plane=zero"])
