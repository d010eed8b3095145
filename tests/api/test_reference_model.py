"""Model-based test through the Python API (page-mapped FTL, data reduction off): a reference
map of sector -> content, driven by Hypothesis, built only from the writes the test made.

The drive stamps every sector it is asked to write with a content tag (``track_tags``): tags
count from 1 since the drive was built, and a write command of n sectors takes n + 1 numbers,
the first n for its sectors in order (``Drive.read_tag``). So the test knows the tag every
sector it wrote must hold from its own sequence of write commands, without asking the drive:
a background of a sequential fill and single-sector random writes (replayed from a trace the
test generates, so the addresses are its own) on a drive with little spare makes GC move data,
then Hypothesis's writes and TRIMs follow.
At the end every sector must hold its reference tag: the last write wins, TRIMmed and
never-written sectors read as 0."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssdlab import Drive

SECTOR = 4096
SPAN_SECTORS = 4096  # Hypothesis operates on the first 16 MiB, so overwrites are frequent
BACKGROUND_SECTORS = 4 * SPAN_SECTORS
BACKGROUND_WRITES = 2 * BACKGROUND_SECTORS
FILL_SECTORS_PER_WRITE = 32  # the fill writes 128 KiB commands
# A small drive with little spare: 8 dies, blocks of 32 pages, 256 MiB raw, 90% of it user
# space, so the background overwrites (128 MiB) exceed the spare (26 MiB) and GC moves data.
RAW_BYTES = 8 * 2 * 64 * 32 * 8192
TINY = [
    "nand.channels=4",
    "nand.packages_per_channel=1",
    "nand.blocks_per_plane=64",
    "nand.pages_per_block=32",
    f"drive.capacity_bytes_user={RAW_BYTES * 9 // 10 // (FILL_SECTORS_PER_WRITE * SECTOR) * (FILL_SECTORS_PER_WRITE * SECTOR)}",
    "reduction.enabled=false",
]

operation = st.tuples(
    st.sampled_from(["write", "write", "write", "trim"]),
    st.integers(min_value=0, max_value=SPAN_SECTORS - 1),
    st.integers(min_value=1, max_value=64),
)


class Reference:
    """What every sector must hold, from the write commands made (tags as the drive numbers
    them: a command of n sectors takes the next n + 1 numbers)."""

    def __init__(self) -> None:
        self.tags: dict[int, int] = {}
        self.counter = 0

    def write(self, first: int, count: int) -> None:
        for i in range(count):
            self.tags[first + i] = self.counter + 1 + i
        self.counter += count + 1

    def trim(self, first: int, count: int) -> None:
        for i in range(count):
            self.tags[first + i] = 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(operation, min_size=1, max_size=40), seed=st.integers(min_value=0, max_value=2**32))
def test_reads_return_last_write_and_trim_reads_zero(tmp_path_factory, ops, seed):
    drive = Drive(overrides=TINY, seed=seed, track_tags=True)
    user_sectors = drive.info["usable_bytes"] // SECTOR
    reference = Reference()
    # Background data, replayed from a trace the test writes (requests in order, all at time 0:
    # the replay keeps them in flight as deep as NCQ allows): a sequential fill of the whole
    # user space in 128 KiB commands, then single-sector writes at addresses the test draws.
    rng = random.Random(seed)
    fill = list(range(0, user_sectors, FILL_SECTORS_PER_WRITE))
    background = [rng.randrange(BACKGROUND_SECTORS) for _ in range(BACKGROUND_WRITES)]
    trace = tmp_path_factory.mktemp("trace") / "background.csv"
    lines = [f"0,test,0,Write,{s * SECTOR},{FILL_SECTORS_PER_WRITE * SECTOR},0\n" for s in fill]
    lines += [f"0,test,0,Write,{s * SECTOR},{SECTOR},0\n" for s in background]
    trace.write_text("".join(lines))
    summary = drive.replay(str(trace), format="msr").summary
    assert summary["writes"] == len(fill) + BACKGROUND_WRITES, summary
    for sector in fill:
        reference.write(sector, FILL_SECTORS_PER_WRITE)
    for sector in background:
        reference.write(sector, 1)
    for kind, first, count in ops:
        count = min(count, SPAN_SECTORS - first)
        size = count * SECTOR
        if kind == "write":
            drive.run(["rw=write", f"offset={first * SECTOR}", f"size={size}", f"bs={size}", "number_ios=1"])
            reference.write(first, count)
        else:
            drive.run(["rw=trim", f"offset={first * SECTOR}", f"size={size}", f"bs={size}", "number_ios=1"])
            reference.trim(first, count)
    assert drive.state()["gc_moved"] > 0, "the background did not make GC move data; the test would not cover it"
    for sector in range(user_sectors):
        expected = reference.tags.get(sector, 0)
        assert drive.read_tag(sector) == expected, f"sector {sector}: tag {drive.read_tag(sector)}, expected {expected} (seed {seed})"
