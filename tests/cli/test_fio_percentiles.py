"""fio's latency percentiles in its JSON shape: fio's default list, a job's `percentile_list`,
and `clat_percentiles`/`lat_percentiles` choosing the entries that carry them."""

import json

from fio_helpers import small_args, ssdlab

#: fio 3.33's default percentile_list, as its JSON keys them.
FIO_DEFAULT = ["1.000000", "5.000000", "10.000000", "20.000000", "30.000000", "40.000000", "50.000000", "60.000000", "70.000000",
               "80.000000", "90.000000", "95.000000", "99.000000", "99.500000", "99.900000", "99.950000", "99.990000"]  # fmt: skip


def fio_json(*args, cwd=None):
    r = ssdlab("run", *small_args(), "--quiet", "--rw=randwrite", "--bs=4k", "--size=64m", "--number_ios=3000", *args, "--output-format=json", cwd=cwd)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["jobs"]


def test_the_default_list_is_fios_and_rises_with_the_percentile():
    # Reads beside writes: their latencies spread (some wait behind programs).
    (job,) = fio_json("--rw=randrw")
    clat = job["read"]["clat_ns"]["percentile"]
    assert list(clat) == FIO_DEFAULT, list(clat)
    values = list(clat.values())
    assert values == sorted(values) and values[0] < values[-1] <= job["read"]["clat_ns"]["max"], clat
    # The median is the summary's own p50 (the same histogram).
    assert clat["50.000000"] == round(job["ssdlab"]["read_latency_us"]["p50"] * 1e3)
    # As fio by default: the total latency's entry has no percentiles.
    assert "percentile" not in job["read"]["lat_ns"]


def test_a_jobs_list_sorted_and_the_entries_it_goes_in(tmp_path):
    job_file = tmp_path / "p.fio"
    job_file.write_text("[a]\npercentile_list=99.9999:50:99.99:99\nlat_percentiles=1\nclat_percentiles=0\n[b]\nnumber_ios=500\n")
    a, b = fio_json(str(job_file))
    assert list(a["write"]["lat_ns"]["percentile"]) == ["50.000000", "99.000000", "99.990000", "99.999900"], a["write"]["lat_ns"]
    assert "percentile" not in a["write"]["clat_ns"]
    # The job beside it keeps fio's defaults.
    assert list(b["write"]["clat_ns"]["percentile"]) == FIO_DEFAULT and "percentile" not in b["write"]["lat_ns"]
    # ssdlab's own summary carries the job's list too.
    assert [p for p, _ in a["ssdlab"]["write_latency_us"]["percentiles"]] == [50.0, 99.0, 99.99, 99.9999]


def test_a_bad_list_is_refused_at_its_line(tmp_path):
    job_file = tmp_path / "bad.fio"
    job_file.write_text("[a]\nrw=randwrite\npercentile_list=99:abc\n[b]\nrw=randwrite\npercentile_list=0:50\n")
    r = ssdlab("run", *small_args(), str(job_file))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    lines = [line.removeprefix("ssdlab: error: ") for line in r.stderr.splitlines() if line.strip()]
    assert lines == [
        f"{job_file}:3: percentile_list: `abc` is not a number (expected percentiles separated by `:`, such as 99:99.9:99.99)",
        f"{job_file}:6: percentile_list: 0 is not a percentile above 0 and at most 100",
    ], lines
