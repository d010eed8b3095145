"""The text summary's rates: a job's line gives small rates with the digits they need (0.33
IOPS, not 0) and a trimming job's trim rate (the probe found "0 IOPS, read 0.0 MB/s" for a job
at 0.3 IOPS, and no trim rate for a trim-only job)."""

from ssdlab.report_text import each_job_lines, rate_text


def figures(**changes) -> dict:
    base = {
        "job": "j",
        "rw": "randread",
        "iodepth": 1,
        "iops": 0.0,
        "read_mbps": 0.0,
        "write_mbps": 0.0,
        "host_trim_bytes": 0,
        "ios": 0,
        "simulated_seconds": 10.0,
    }
    return {**base, **changes}


def test_small_rates_keep_their_digits():
    assert [rate_text(x, 0) for x in (0.0, 0.333, 2.0, 40_763.2)] == ["0", "0.33", "2", "40,763"]
    assert [rate_text(x, 1) for x in (0.0, 0.0041, 0.25, 83.51)] == ["0.0", "0.0041", "0.2", "83.5"]
    (line,) = each_job_lines([figures(iops=0.3, read_mbps=0.0012288, ios=3)])
    assert "randread QD1, 0.3 IOPS, read 0.0012 MB/s, write 0.0 MB/s (3 IOs in 10.00 s)" in line, line


def test_a_trimming_job_shows_its_trim_rate():
    (line,) = each_job_lines([figures(rw="randtrim", iops=100.0, host_trim_bytes=40_960_000, ios=1000)])
    assert "100 IOPS, read 0.0 MB/s, write 0.0 MB/s, trim 4.1 MB/s (1,000 IOs" in line, line
    (line,) = each_job_lines([figures(iops=100.0, read_mbps=0.4, ios=1000)])
    assert "trim" not in line, line
