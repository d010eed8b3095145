"""Today's drives served (issue 20's profiles): what `ssdlab stats` says about their SLC cache."""

from served import need, run

#: A Samsung 870 QVO made small (8 dies, 64 blocks a plane: 6 GiB raw, 5 GB user) with a 100 MB
#: static SLC cache and no dynamic one, so a few hundred MiB run through the cache and past it.
SMALL_QVO = (
    "samsung-870-qvo-1tb",
    ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=4999999488", "slc_cache.static_bytes=100000000", "slc_cache.dynamic_max_bytes=0"],
)


def test_stats_show_the_slc_cache_filling_and_keep_it_across_a_restart(serve):
    need("qemu-io")
    s = serve(SMALL_QVO)
    run("qemu-io", "-f", "raw", "-c", "write -P 0x5a 0 300M", "-c", "flush", s.uri)
    stats = s.stats()
    tiers = stats.get("tiers")
    assert tiers is not None, "stats of a drive with an SLC cache have no tiers: " + ", ".join(sorted(stats))
    # `ssdlab run` of the same 300 MiB on the same profile: the 100 MB cache (32 pSLC blocks of
    # 3 MiB, 96 MiB) takes the first part, the rest goes to native QLC blocks.
    assert tiers["slc_write_bytes"] == 100663296, tiers
    assert tiers["native_write_bytes"] == 300 * 2**20 - 100663296, tiers
    assert tiers["slc_blocks_now"] == 32, tiers
    assert stats["map_page_reads"] == 0, "a drive with DRAM reads no map pages"
    s.stop()
    again = serve(SMALL_QVO).stats()
    assert again["tiers"]["slc_write_bytes"] == tiers["slc_write_bytes"], "the tiers continue after a restart, as WA does"
    assert again["tiers"]["native_write_bytes"] == tiers["native_write_bytes"]


def test_a_stop_says_it_is_saving_before_it_is_done(serve):
    # The checkpoint at a stop of a 4 TB drive took 49 s with nothing said between Ctrl-C and
    # "stopped"; `serve` now says what it is doing as soon as it is asked to stop.
    text = serve(SMALL_QVO).stop()
    assert "stopping: once every client has disconnected, saving the drive's state in" in text, text
    assert text.index("stopping: once every client") < text.index("stopped; the drive's state is saved"), text


def test_a_large_drive_says_it_is_opening_before_it_serves():
    # A 4 TB drive took 37 to 72 s to open with nothing printed before "serving".
    from ssdlab.serve import ServeOptions, _opening_line

    line = _opening_line(ServeOptions(profile="samsung-870-evo-4tb", backing="/tmp/big.img"))
    assert line is not None and line.startswith("opening /tmp/big.img: the drive's tables take 7.8 GiB"), line
    small = ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=1999998976"]
    assert _opening_line(ServeOptions(profile="force-gs-240", backing="/tmp/small.img", overrides=small)) is None
