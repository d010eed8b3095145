"""fio's latency distribution in its JSON (``latency_ns``, ``latency_us``, ``latency_ms``: the
share of a job's commands in each of fio's latency ranges), which tools such as fio-plot's
histograms read; ssdlab's JSON had none."""

import json

import pytest
from fio_helpers import small_args, ssdlab

#: fio 3.33's keys of the three entries, in its order.
KEYS = ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"]
KEYS_MS = [*KEYS, "2000", ">=2000"]


def run_json(*options: str) -> list[dict]:
    done = ssdlab("run", *small_args(), "--bs=4k", "--output-format=json", *options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["jobs"]


def cumulative(entry: dict) -> list[tuple[float, float]]:
    """(upper end of each range in ns, share of commands up to it), ascending."""
    out, total = [], 0.0
    for unit, scale, keys in (("latency_ns", 1, KEYS), ("latency_us", 1e3, KEYS), ("latency_ms", 1e6, KEYS_MS[:-1])):
        for key in keys:
            total += entry[unit][key]
            out.append((float(key) * scale, total))
    return out


@pytest.mark.parametrize("rw", ["randwrite", "randread", "randrw"])
def test_the_ranges_hold_every_command_and_agree_with_the_percentiles(rw):
    (entry,) = run_json(f"--rw={rw}", "--size=16m", "--iodepth=8", "--precondition=seq-fill")
    assert list(entry["latency_ns"]) == KEYS and list(entry["latency_us"]) == KEYS and list(entry["latency_ms"]) == KEYS_MS
    shares = [*entry["latency_ns"].values(), *entry["latency_us"].values(), *entry["latency_ms"].values()]
    assert all(s >= 0 for s in shares) and sum(shares) == pytest.approx(100.0, abs=0.2), shares
    # The median of the job's commands lies in the range where the cumulative share crosses 50%.
    kind = {"randwrite": "write", "randread": "read"}.get(rw)
    if kind:
        steps = cumulative(entry)
        p50_ns = entry[kind]["clat_ns"]["percentile"]["50.000000"]
        below = [end for end, share in steps if share < 50.0 - 0.2]
        assert not below or below[-1] <= p50_ns * 1.001, (p50_ns, steps)
        first_over = next(end for end, share in steps if share >= 50.0)
        assert p50_ns <= first_over * 1.001, (p50_ns, steps)


def test_a_group_reported_as_one_holds_its_jobs_commands():
    common = ["--rw=randwrite", "--size=16m", "--numjobs=2", "--iodepth=4"]
    apart = run_json(*common)
    (group,) = run_json(*common, "--group_reporting")
    # The group's share of a range is its jobs' shares weighted by their commands.
    ios = [job["write"]["total_ios"] for job in apart]
    for unit in ("latency_ns", "latency_us", "latency_ms"):
        for key in group[unit]:
            weighted = sum(job[unit][key] * n for job, n in zip(apart, ios, strict=True)) / sum(ios)
            assert group[unit][key] == pytest.approx(weighted, abs=0.011), (unit, key)
