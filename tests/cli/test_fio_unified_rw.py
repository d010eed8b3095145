"""fio's ``unified_rw_reporting`` in its JSON output, as fio 3.33 shapes it (checked with
``ioengine=null``): ``mixed``/``1`` gives one ``mixed`` entry instead of ``read``/``write``/
``trim`` (and no ``sync``), ``both``/``2`` gives them and ``mixed`` after ``sync``; the mixed
figures are the kinds' sums, with the latency of every command. The shape is read from the job's
``unified_rw_reporting`` (one value per job of the group): the first tests give it on a stand-in
job, the last runs the command line."""

import json
from types import SimpleNamespace

from fio_helpers import small_args, ssdlab

from ssdlab import fio


def summary(**changes) -> dict:
    lat = {"mean": 20.0, "min": 10.0, "stddev": 5.0, "p50": 18.0, "p99": 40.0, "p999": 50.0, "max": 60.0}
    base = {
        "job": "m", "rw": "randrw", "iodepth": 1, "jobs_in_group": 1, "simulated_seconds": 2.0, "ramp_seconds": 0.0,
        "reads": 700, "writes": 300, "trims": 0, "host_read_bytes": 700 * 4096, "host_write_bytes": 300 * 4096, "host_trim_bytes": 0,
        "latency_us": lat, "read_latency_us": lat, "write_latency_us": lat,
    }  # fmt: skip
    return {**base, **changes}


def document(mode, s=None) -> dict:
    job = SimpleNamespace(name="m", iodepth=1, unified_rw_reporting=[mode] if mode is not None else None)
    return fio.fio_json([SimpleNamespace(summary=s or summary())], [job], 7)


def test_mixed_replaces_the_kinds_and_both_adds_it_after_sync():
    (entry,) = document("mixed")["jobs"]
    assert "mixed" in entry and not {"read", "write", "trim", "sync"} & entry.keys(), list(entry)
    m = entry["mixed"]
    assert (m["total_ios"], m["io_bytes"], m["iops"], m["runtime"]) == (1000, 1000 * 4096, 500.0, 2000)
    assert (m["clat_ns"]["N"], m["clat_ns"]["mean"]) == (1000, 20_000.0)
    (entry,) = document("both")["jobs"]
    keys = list(entry)
    assert keys[keys.index("read") : keys.index("mixed") + 1] == ["read", "write", "trim", "sync", "mixed"], keys
    for mode in ("0", "none", None):
        (entry,) = document(mode)["jobs"]
        assert "mixed" not in entry and "read" in entry and "sync" in entry


def test_each_job_of_a_group_has_its_own_mode():
    figures = {k: v for k, v in summary().items() if k not in ("jobs_in_group", "ramp_seconds")}
    group = summary(jobs_in_group=2, each_job=[{**figures, "job": "a"}, {**figures, "job": "b", "iodepth": 2}])
    job = SimpleNamespace(name="a", iodepth=1, unified_rw_reporting=["1", "none"])
    a, b = fio.fio_json([SimpleNamespace(summary=group)], [job], 7)["jobs"]
    assert "mixed" in a and "read" not in a and "read" in b and "mixed" not in b


def run_json(*options: str) -> dict:
    done = ssdlab("run", *small_args(), "--rw=randrw", "--bs=4k", "--size=16m", "--number_ios=200", "--output-format=json", *options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_option_on_the_command_line_shapes_the_entry():
    (entry,) = run_json("--unified_rw_reporting=mixed")["jobs"]
    assert "mixed" in entry and "read" not in entry and entry["mixed"]["total_ios"] == 200, list(entry)
    (entry,) = run_json("--unified_rw_reporting=2")["jobs"]
    assert "read" in entry and "mixed" in entry
    assert entry["mixed"]["total_ios"] == entry["read"]["total_ios"] + entry["write"]["total_ios"] == 200
    (entry,) = run_json()["jobs"]
    assert "read" in entry and "mixed" not in entry


def test_an_unknown_mode_is_refused_naming_the_option():
    done = ssdlab("run", "--rw=randrw", "--unified_rw_reporting=sometimes")
    assert done.returncode == 2 and "unified_rw_reporting" in done.stderr and "expected none, mixed or both" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
