"""Model-based test through the Python API (page-mapped FTL, data reduction off): a reference
map of sector -> content, driven by Hypothesis. Every write job stamps its sectors with consecutive content tags; the test learns
each job's first tag by reading it back right after the job, then checks every sector against
the reference at the end: the last write wins, TRIMmed sectors read as zero."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssdlab import Drive

SECTOR = 4096
SPAN_SECTORS = 4096  # operate on the first 16 MiB, so overwrites are frequent

operation = st.tuples(
    st.sampled_from(["write", "write", "write", "trim"]),
    st.integers(min_value=0, max_value=SPAN_SECTORS - 1),
    st.integers(min_value=1, max_value=64),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(operation, min_size=1, max_size=40), seed=st.integers(min_value=0, max_value=2**32))
def test_reads_return_last_write_and_trim_reads_zero(small_overrides, ops, seed):
    # A drive with little spare so GC moves data during the test.
    drive = Drive(overrides=small_overrides + ["reduction.enabled=false"], seed=seed, track_tags=True)
    reference = {}
    # Background data everywhere so GC has work.
    drive.run(["rw=randwrite", "bs=4k", "iodepth=16", f"size={SPAN_SECTORS * SECTOR * 4}", f"io_size={SPAN_SECTORS * SECTOR * 8}"])
    for sector in range(SPAN_SECTORS):
        reference[sector] = drive.read_tag(sector)
    for kind, first, count in ops:
        count = min(count, SPAN_SECTORS - first)
        size = count * SECTOR
        if kind == "write":
            drive.run(["rw=write", f"offset={first * SECTOR}", f"size={size}", f"bs={size}", "number_ios=1"])
            base = drive.read_tag(first)
            for i in range(count):
                reference[first + i] = base + i
        else:
            drive.run(["rw=trim", f"offset={first * SECTOR}", f"size={size}", f"bs={size}", "number_ios=1"])
            for i in range(count):
                reference[first + i] = 0
    for sector, expected in reference.items():
        assert drive.read_tag(sector) == expected, f"sector {sector} (seed {seed})"
