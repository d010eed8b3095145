"""A process keeps the large tables of dropped drives for the next drive (the binding's
`RecyclingAllocator`): a drive built on kept memory behaves exactly as one built on fresh
memory, and `release_memory` gives the kept memory back."""

import gc

from ssdlab.drive import Drive, release_memory

#: A full-size Force GS: its map alone is about 230 MB, kept when the drive is dropped.
PROFILE = "force-gs-240"


def _summary_of_a_run() -> dict:
    with Drive(PROFILE, seed=3) as drive:
        drive.fast_forward(["rw=randwrite", "bs=4k", "iodepth=32", "io_size=256m"], name="scatter")
        summary = drive.run(["rw=randrw", "bs=4k", "iodepth=8", "runtime=0.2", "time_based"], name="mixed").summary
    gc.collect()
    return {k: v for k, v in summary.items() if "wall" not in k}


def test_a_drive_on_kept_memory_gives_the_results_of_one_on_fresh_memory():
    release_memory()
    fresh = _summary_of_a_run()
    # The first drive's tables are kept now; the second drive takes them.
    kept = _summary_of_a_run()
    assert kept == fresh
    assert kept["writes"] > 0 and kept["reads"] > 0


def test_release_memory_gives_back_what_dropped_drives_left():
    release_memory()
    with Drive(PROFILE):
        pass
    gc.collect()
    assert release_memory() >= 32 << 20
    assert release_memory() == 0


def _kept_after(*profiles: str) -> int:
    """Bytes kept after building and dropping drives of `profiles` in turn (from none kept)."""
    release_memory()
    for profile in profiles:
        with Drive(profile):
            pass
        gc.collect()
    return release_memory()


def test_drives_of_other_sizes_do_not_pile_kept_memory_up():
    # A table that no kept block fits gives kept blocks of its size back first, so after two
    # drives of different layouts the process keeps no more than the larger drive left alone.
    alone = {name: _kept_after(name) for name in (PROFILE, "conventional-240")}
    assert min(alone.values()) > 0
    assert _kept_after(PROFILE, "conventional-240") <= max(alone.values())
    assert _kept_after("conventional-240", PROFILE) <= max(alone.values())
