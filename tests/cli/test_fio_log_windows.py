"""fio's logs averaged over windows that are not whole seconds (`log_avg_msec=250`): a row per
window of simulated time, each measured from that window's completions."""

import json

from fio_helpers import small_args, ssdlab


def rows(path):
    return [[int(v) for v in line.split(", ")] for line in path.read_text().splitlines()]


def test_quarter_second_windows_of_a_rate_limited_job(tmp_path):
    r = ssdlab(
        "run", *small_args(), "--quiet", "--rw=randwrite", "--bs=4k", "--rate_iops=1000", "--runtime=2", "--time_based",
        "--write_bw_log=q", "--write_iops_log=q", "--write_lat_log=q", "--log_avg_msec=250", cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    bw, iops, lat = rows(tmp_path / "q_bw.1.log"), rows(tmp_path / "q_iops.1.log"), rows(tmp_path / "q_lat.1.log")
    # Eight windows over two simulated seconds, stamped at their ends (the last ends with the
    # run's last completion, just before 2,000 ms).
    assert [row[0] for row in bw][:7] == [250, 500, 750, 1000, 1250, 1500, 1750], bw
    assert len(bw) == 8 and 1990 <= bw[7][0] <= 2000, bw
    # 1,000 writes a second of 4 KiB: 250 a window, 4,000 KiB/s, direction 1 (writes).
    for row in bw[:7]:
        assert row[1:] == [4000, 1, 0, 0, 0], row
    assert [row[1] for row in iops[:7]] == [1000] * 7, iops
    assert all(row[1] > 0 for row in lat) and len(lat) == 8, lat


def test_windows_see_what_seconds_average_away(tmp_path):
    # Bursts of 500 writes (a few ms at QD1 on the fresh drive), then 480 ms of thinktime: in
    # 100 ms windows the bursts stand apart with empty windows between them, and the windows
    # add up to every measured write.
    job = tmp_path / "burst.fio"
    job.write_text("[burst]\nrw=write\nbs=4k\nthinktime=480ms\nthinktime_blocks=500\nruntime=3\ntime_based\nwrite_iops_log=b\nlog_avg_msec=100\n")
    r = ssdlab("run", *small_args(), "--quiet", str(job), "--json", "-", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    writes = json.loads(r.stdout)["writes"]
    log = rows(tmp_path / "b_iops.1.log")
    assert [row[0] for row in log[:5]] == [100, 200, 300, 400, 500], log
    # Each burst falls in one window or across two side by side, with empty windows between
    # bursts; a burst's windows hold its 500 writes (rate times 100 ms).
    bursts, last = [], -10
    for i, row in enumerate(log):
        if row[1] > 0:
            if i == last + 1:
                bursts[-1].append(row[1])
            else:
                assert i >= last + 4, log
                bursts.append([row[1]])
            last = i
    assert 6 <= len(bursts) <= 7 and all(len(b) <= 2 for b in bursts), log
    assert all(sum(b) / 10 == 500 for b in bursts[:6]), bursts
    assert abs(sum(map(sum, bursts)) / 10 - writes) <= 2, (bursts, writes)
