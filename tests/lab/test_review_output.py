"""What a review says in the terminal and in a log (issue 26, items 4 and 5): progress lines when
stderr is not a terminal, the headline figures and where the report and database are at the
end; `calibrate --out` never overwrites a file ssdlab did not write."""

import io
import subprocess
import sys
import time

from ssdlab.progress import ProgressBars


def ssdlab(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True, cwd=cwd)


def test_progress_in_a_log_gives_a_line_per_job_and_one_at_least_every_interval():
    log = io.StringIO()
    bars = ProgressBars(stream=log, interval_s=0.05)
    assert not bars.bars  # a StringIO is no terminal
    for i in range(5):
        bars("long job", i / 10, float(i), i * 100)
        time.sleep(0.06)
    bars("long job", 1.0, 5.0, 500)
    bars("short job", 0.5, 1.0, 10)
    bars("short job", 1.0, 2.0, 20)
    lines = log.getvalue().splitlines()
    running = [line for line in lines if "long job:" in line and "so far" in line]
    assert len(running) >= 3, lines
    assert any("long job: done, sim 5.0 s, 500 IOs" in line for line in lines), lines
    assert any("short job: done, sim 2.0 s, 20 IOs" in line for line in lines), lines
    assert all(line[2] == ":" and line[5] == ":" for line in lines)  # each starts with the time


def test_review_ends_with_headline_figures_and_paths_and_logs_progress(tmp_path):
    out = tmp_path / "rv"
    r = ssdlab("review", "force-gs-240", "--scale", "0.02", "--suites", "as-ssd,power", "--out", str(out))
    assert r.returncode == 0, r.stderr
    tail = r.stdout.splitlines()[-12:]
    assert any("Headline figures" in line for line in tail)
    assert "  AS-SSD" in tail, tail
    assert any(line.strip().startswith("sequential read, incompressible, clean") and line.endswith(" MB/s") for line in tail), tail
    assert any(line.strip().startswith("4K random write QD32, incompressible, load") and line.endswith(" W") for line in tail), tail
    assert f"report:   {out / 'index.html'}" in r.stdout
    assert f"database: {out / 'results.sqlite'}" in r.stdout
    # stderr is a pipe here: progress comes as lines, one per job at least.
    assert "AS-SSD read (clean): done" in r.stderr, r.stderr[-2000:]


def test_calibrate_writes_in_the_current_folder_and_refuses_a_foreign_file(tmp_path):
    r = ssdlab("calibrate", "--help")
    assert "calibration.md" in r.stdout and "docs/calibration.md" not in r.stdout
    foreign = tmp_path / "calibration.md"
    foreign.write_text("my own notes\n")
    r = ssdlab("calibrate", "--scale", "0.01", cwd=tmp_path)
    assert r.returncode == 2 and "not a calibration page ssdlab wrote" in r.stderr and "Traceback" not in r.stderr
    assert foreign.read_text() == "my own notes\n"
    assert not (tmp_path / "calibration").exists()  # refused before any run


def test_profile_show_prints_no_source_tree_paths():
    from ssdlab.drive import profile_names

    for name in profile_names():
        r = ssdlab("profile", "show", name)
        assert r.returncode == 0, r.stderr
        for path in ("docs/", "../", "crates/", "python/ssdlab"):
            assert path not in r.stdout, (name, path)


def test_calibrate_runs_end_to_end_and_again(tmp_path):
    # The suites write their charts into the review folders as they run; the folder check ran
    # after them and refused calibrate's own charts ("has charts but no page ssdlab wrote").
    for _ in range(2):
        r = ssdlab("calibrate", "--scale", "0.01", cwd=tmp_path)
        assert r.returncode == 0, r.stderr[-2000:]
        page = (tmp_path / "calibration.md").read_text()
        assert page.startswith("# Calibration: published figures beside simulated ones"), page[:200]
    folders = sorted(p.name for p in (tmp_path / "calibration").iterdir() if p.is_dir())
    assert folders and all((tmp_path / "calibration" / f / "index.html").is_file() for f in folders), folders
    # A folder holding charts of another program is still refused before any run.
    stray = tmp_path / "other"
    (stray / "calibration" / folders[0] / "charts").mkdir(parents=True)
    r = ssdlab("calibrate", "--scale", "0.01", cwd=stray)
    assert r.returncode == 2 and "has charts but no page ssdlab wrote" in r.stderr, r.stderr[-2000:]
    assert not (stray / "calibration.md").exists()
