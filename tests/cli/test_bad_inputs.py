"""Bad and edge inputs get one clear line and status 2, never a traceback or nonsense (issue 10).
Each case in ``bad_inputs_catalogue.CASES`` is also listed in docs/bad-inputs.md."""

import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time

import pytest
from bad_inputs_catalogue import CASES

from ssdlab import Drive
from ssdlab.errors import RequestError, WorkloadError


def ssdlab(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True, **kwargs)


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("trace") / "t.csv"
    path.write_text("".join(f"{i * 10000},h,0,{'Read' if i % 2 else 'Write'},{i * 4096},4096,10\n" for i in range(200)))
    return path


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    out = tmp_path_factory.mktemp("db")
    r = ssdlab("review", "conventional-240", "--scale", "0.01", "--suites", "power", "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    return out / "results.sqlite"


@pytest.mark.parametrize("what, args, expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_one_clear_line(what, args, expected, trace, db, tmp_path):
    filled = [a.format(trace=trace, tmp=tmp_path, db=db) for a in args]
    r = ssdlab(*filled)
    assert r.returncode == 2, (what, r.returncode, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and expected in lines[0], (what, r.stderr)


def test_busy_time_at_queue_depth_one_covers_every_command():
    # Regression: the busy clock restarted at every submission, so at QD1 only the last command
    # counted (and energy and power with it).
    r = ssdlab("run", "--rw=randread", "--bs=4k", "--iodepth=1", "--number_ios=2000", "--size=64m", "--json", "-", "--quiet")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["busy_seconds"] > 0.95 * s["simulated_seconds"], (s["busy_seconds"], s["simulated_seconds"])


def test_replay_requests_beyond_the_drive_name_file_and_line(tmp_path):
    path = tmp_path / "far.csv"
    path.write_text("0,h,0,Read,0,4096,10\n100,h,0,Write,999999999999999,4096,10\n")
    r = ssdlab("trace", "replay", str(path))
    assert r.returncode == 2 and f"{path}:2:" in r.stderr and "beyond the drive" in r.stderr, r.stderr


def test_time_scale_too_large_for_the_clock_is_refused_from_python(trace):
    drive = Drive("conventional-240", ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=7499997184"])
    with pytest.raises(WorkloadError, match="time scale"):
        drive.replay(str(trace), mode="timestamps", time_scale=1e300)


def test_series_to_standard_output_is_csv_not_a_file_named_dash(tmp_path):
    r = ssdlab("run", "--rw=randread", "--bs=4k", "--number_ios=100", "--size=1m", "--series", "-", "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("second,span_seconds,iops")
    assert not (tmp_path / "-").exists()


def test_sigterm_stops_like_ctrl_c():
    p = subprocess.Popen(
        [sys.executable, "-m", "ssdlab.cli", "run", "--rw=randwrite", "--bs=4k", "--iodepth=32", "--runtime=100000", "--time_based", "--quiet"],
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(4)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "interrupted" in err, (p.returncode, err)


def test_a_drive_can_be_used_from_another_thread():
    # Regression: the drive was unsendable and raised a PanicException off its thread.
    drive = Drive("conventional-240", ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=7499997184"])
    results = []
    thread = threading.Thread(target=lambda: results.append(drive.run(["rw=randwrite", "bs=4k", "number_ios=500"]).summary["writes"]))
    thread.start()
    thread.join()
    assert results == [500]


def test_real_bytes_memory_is_bounded_with_a_clear_error():
    drive = Drive("force-gs-240", ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=7499997184"], content="real", real_bytes_limit=1 << 20)
    with pytest.raises(RequestError, match="real-bytes mode keeps every stored chunk in memory"):
        drive.run(["rw=write", "bs=128k", "size=64m", "data_pattern=random"])


def test_a_write_refused_for_the_real_bytes_limit_changes_nothing():
    # The limit was checked chunk by chunk: a refused 64 KiB write had already replaced the
    # first sectors' data (and the message said "0 MiB" for a 16 KiB limit).
    drive = Drive("force-gs-240", ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=7499997184"], content="real", real_bytes_limit=16384)
    old = bytes(range(256)) * 32
    drive.write(0, old)
    before = drive.state()
    with pytest.raises(RequestError, match=r"limit of 16 KiB; nothing of it was written"):
        drive.write(0, os.urandom(65536))
    after = drive.state()
    assert after["host_write_bytes"] == before["host_write_bytes"] and after["nand_write_bytes"] == before["nand_write_bytes"]
    assert drive.read(0, 8192) == old


def test_real_bytes_go_through_the_engine_and_read_back():
    drive = Drive("force-gs-240", ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=7499997184"], content="real")
    text = (b"the quick brown fox jumps over the lazy dog. " * 400)[:12288]
    assert drive.write(8192, text) > 0
    assert drive.read(8192, len(text)) == text
    # A partial sector keeps the rest of its old bytes.
    drive.write(8192 + 512, b"X" * 512)
    back = drive.read(8192, 4096)
    assert back[:512] == text[:512] and back[512:1024] == b"X" * 512 and back[1024:] == text[1024:4096]
    assert drive.read(1 << 20, 4096) == bytes(4096)
    # Text compresses: a MiB of it, flushed, programs far less than a MiB (a read of data still
    # in a partly filled unit programs that unit padded first, so the small write above is no
    # measure of compression).
    before = drive.state()["nand_write_bytes"]
    more = (b"the quick brown fox jumps over the lazy dog. " * 30000)[: 1 << 20]
    drive.write(1 << 22, more)
    drive.flush()
    assert drive.state()["nand_write_bytes"] - before < len(more) // 4


def test_data_file_content_goes_through_the_engine(tmp_path):
    data = tmp_path / "data.bin"
    data.write_bytes(b"A" * (1 << 20))  # highly compressible
    r = ssdlab("run", "--rw=write", "--bs=128k", "--size=64m", "--data-file", str(data), "--json", "-", "--quiet")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    # Every 4 KiB block of the file is the same: all but the first are duplicates.
    assert s["reduction"]["dedup_hit_rate"] > 0.99
    assert s["write_amplification"] < 0.05


def test_reviews_started_in_the_same_second_stay_apart(tmp_path):
    db = tmp_path / "lab.sqlite"
    for label in ("first", "second"):
        r = ssdlab(
            "review",
            "conventional-240",
            "--scale",
            "0.01",
            "--suites",
            "power",
            "--out",
            str(tmp_path / label),
            "--db",
            str(db),
            "--label",
            "same drive",
            "--quiet",
        )
        assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as c:
        c.execute("UPDATE runs SET started = '2026-01-01T00:00:00+00:00'")  # as if both started in the same second
    from ssdlab.lab.db import ResultsDatabase

    latest = ResultsDatabase(db, create=False).latest(include_scaled=True)
    assert latest["run_id"].nunique() == 1
    assert len(latest) == len(latest.drop_duplicates(["metric", "pattern", "condition"]))


def test_outputs_get_the_usual_permissions_and_keep_an_existing_files(tmp_path):
    # Regression (QA round eight): outputs went through a temporary file made by mkstemp, so
    # every output (--json, --series, trace generate, a review's report) was 0600 whatever the
    # umask, and an existing output's permissions were changed to 0600.
    umask = os.umask(0o022)
    try:
        kept = tmp_path / "kept.json"
        r = ssdlab("run", "--rw=randread", "--number_ios=10", "--size=1m", "--json", str(kept), "--quiet")
        assert r.returncode == 0, r.stderr
        kept.chmod(0o640)
        r = ssdlab("run", "--rw=randread", "--number_ios=10", "--size=1m", "--json", str(kept), "--series", str(tmp_path / "s.csv"), "--quiet")
        assert r.returncode == 0, r.stderr
        assert stat.S_IMODE((tmp_path / "s.csv").stat().st_mode) == 0o644
        assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    finally:
        os.umask(umask)


def test_fio_log_files_are_checked_before_the_run_and_nothing_there_is_replaced(tmp_path):
    # Regression (QA round eight): write_bw_log/write_lat_log/write_iops_log files were written
    # after the run through a fixed `.NAME.tmp` file renamed into place, unchecked: a FIFO at the
    # log's path was replaced by a regular file, a folder gave a raw `[Errno 21]` after the whole
    # run and left the temporary file behind, and a log could overwrite the job file itself.
    os.mkfifo(tmp_path / "f_bw.1.log")
    (tmp_path / "d_lat.1.log").mkdir()
    job = tmp_path / "j_bw.1.log"
    job.write_text("[j]\nrw=randwrite\nruntime=1\nwrite_bw_log=j\n")
    cases = [
        (["--rw=randwrite", "--runtime=1", "--write_bw_log=f"], "write_bw_log f_bw.1.log: is a FIFO"),
        (["--rw=randwrite", "--runtime=1", "--write_lat_log=d"], "write_lat_log d_lat.1.log: is a folder"),
        (["--job-file", str(job)], "is the same file as --job-file"),
        (["--rw=randwrite", "--runtime=1", "--write_lat_log=q", "--json", "q_clat.1.log"], "write_lat_log q_clat.1.log: is the same file as --json"),
    ]
    for args, expected in cases:
        r = ssdlab("run", *args, "--quiet", cwd=tmp_path)
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        assert r.returncode == 2 and len(lines) == 1 and expected in lines[0], (args, r.stderr)
    assert stat.S_ISFIFO((tmp_path / "f_bw.1.log").lstat().st_mode)
    assert job.read_text().endswith("write_bw_log=j\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d_lat.1.log", "f_bw.1.log", "j_bw.1.log"]  # nothing else written


def test_a_review_into_an_existing_folder_leaves_the_files_it_does_not_write(tmp_path):
    # Regression (QA round eight): the check that the output folder is writable wrote and then
    # deleted a file named .ssdlab-write-test there, whoever's it was.
    (tmp_path / ".ssdlab-write-test").write_text("mine\n")
    (tmp_path / "notes.txt").write_text("mine too\n")
    r = ssdlab("review", "conventional-240", "--scale", "0.01", "--suites", "power", "--out", str(tmp_path), "--quiet")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / ".ssdlab-write-test").read_text() == "mine\n"
    assert (tmp_path / "notes.txt").read_text() == "mine too\n"


def test_compare_leaves_a_database_that_holds_no_results_untouched(tmp_path):
    # Regression (QA round eight): compare only reads --db, yet an empty file (or an SQLite file
    # with no tables) given to it was made into a results database (tables written) before it said
    # there were no results.
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    bare = tmp_path / "bare.sqlite"
    sqlite3.connect(bare).close()
    for db in (empty, bare):
        before = db.read_bytes()
        r = ssdlab("compare", "--db", str(db), "--out", str(tmp_path / "cmp"))
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        assert r.returncode == 2 and len(lines) == 1 and "not an ssdlab results database" in lines[0], r.stderr
        assert db.read_bytes() == before


def test_an_output_that_is_a_symbolic_link_is_written_through_it(tmp_path):
    # Regression (QA round eight): outputs renamed into place replaced a symbolic link given as
    # the output with a regular file: the user's link was gone and the file it named unchanged.
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "summary.json"
    r = ssdlab("run", "--rw=randread", "--number_ios=5", "--size=1m", "--json", str(real), "--quiet")
    assert r.returncode == 0, r.stderr
    link = tmp_path / "link.json"
    link.symlink_to(real)
    r = ssdlab("run", "--rw=randread", "--number_ios=10", "--size=1m", "--json", str(link), "--quiet")
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and json.loads(real.read_text())["reads"] == 10
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == [".ssdlab-outputs", "summary.json"]  # no temporary left
