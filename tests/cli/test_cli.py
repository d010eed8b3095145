"""The ssdlab command: outputs, and one-line errors with exit status 2 for user mistakes."""

import json
import subprocess
import sys

import pytest

from small_drive import small_args


def ssdlab(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True, cwd=cwd)


def test_profiles_and_profile_show():
    r = ssdlab("profiles")
    assert r.returncode == 0
    assert "force-gs-240 (default)" in r.stdout and "conventional-240" in r.stdout
    r = ssdlab("profile", "show", "force-gs-240")
    assert r.returncode == 0 and "[nand]" in r.stdout and "t_prog_ns" in r.stdout


def test_every_command_has_a_summary_in_the_help():
    r = ssdlab("--help")
    assert r.returncode == 0
    # A command's line is indented two spaces (a wrapped summary goes on further in).
    entries = [line.split() for line in r.stdout.split("Commands:")[1].splitlines() if line.startswith("  ") and not line.startswith("   ")]
    assert {"run", "review"} <= {words[0] for words in entries}
    for words in entries:
        assert len(words) > 1, f"no summary: {words[0]}"


def _leaf_commands(command, path):
    """Every command under `command` that runs something, with its words."""
    import click

    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _leaf_commands(sub, [*path, name])
    else:
        yield path, command


def test_every_option_of_every_command_says_what_it_does():
    import click

    from ssdlab.cli import cli

    commands = list(_leaf_commands(cli, ["ssdlab"]))
    assert len(commands) > 10
    silent = [f"{' '.join(path)} {'/'.join(p.opts)}" for path, c in commands for p in c.params if isinstance(p, click.Option) and not p.hidden and not p.help]
    assert not silent, f"options without a help text: {silent}"


def test_a_seed_stored_in_a_results_database_fits_its_integer_column():
    # review and pts store --seed in SQLite (signed 64 bits); run takes any 64-bit seed.
    r = ssdlab("review", "--seed", str(2**63), "--quiet")
    assert r.returncode == 2 and "--seed" in r.stderr and "Traceback" not in r.stderr
    r = ssdlab("pts", "--seed", str(2**63), "--quiet")
    assert r.returncode == 2 and "--seed" in r.stderr
    r = ssdlab("run", "--seed", str(2**64), "--rw=read", "--size=1m")
    assert r.returncode == 2 and "--seed" in r.stderr


def test_run_writes_json_and_series(tmp_path):
    series = tmp_path / "s.csv"
    r = ssdlab(
        "run",
        *small_args(),
        "--precondition",
        "seq-fill",
        "--rw=randwrite",
        "--bs=4k",
        "--iodepth=32",
        "--runtime=2",
        "--time_based",
        "--json",
        "-",
        "--series",
        str(series),
        "--seed",
        "9",
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["master_seed"] == 9 and doc["rw"] == "randwrite"
    assert doc["latency_us"]["p999"] >= doc["latency_us"]["p50"]
    header = series.read_text().splitlines()[0]
    assert header.startswith("second,span_seconds,iops,read_mbps,write_mbps")


def test_job_file_runs_jobs_in_order(tmp_path):
    # As in fio, a job after `stonewall` waits for the jobs before it.
    job = tmp_path / "two.fio"
    job.write_text("[global]\nbs=4k\niodepth=4\nnumber_ios=500\n\n[first]\nrw=randwrite\n\n[second]\nstonewall\nrw=randread\n")
    r = ssdlab("run", *small_args(), "--job-file", str(job), "--json", "-")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [j["job"] for j in doc["jobs"]] == ["first", "second"]
    assert doc["job"] == "second" and doc["reads"] == 500


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--set", "nand.bogus=1", "--rw=read"], "unknown field `bogus`"),
        (["--set", "nand.planes_per_die=0", "--rw=read"], "nand.planes_per_die: must be 1 to 16 (got 0)"),
        (["--set", "nand.blocks_per_plane=-3", "--rw=read"], "blocks_per_plane"),
        (["--set", "drive.capacity_bytes_user=274799996928", "--rw=read"], "over-provisioning too small"),
        (["--rw=randwrite", "--iodeph=4"], "unknown fio option `iodeph`"),
        (["--rw=write", "--size=300g"], "beyond the usable capacity"),
        (["--profile", "no-such-drive", "--rw=read"], "no-such-drive"),
        (["--precondition", "warp", "--rw=read"], "unknown precondition"),
        (["--rw=read", "--iodepth=65537"], "iodepth: must be 1 to 65536"),
        (["--rw=sideways"], "unknown kind `sideways`"),
    ],
)
def test_bad_input_is_one_line_with_status_2(args, expected):
    r = ssdlab("run", *args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert expected in r.stderr
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_malformed_job_file_names_file_and_line(tmp_path):
    job = tmp_path / "bad.fio"
    job.write_text("[a]\nrw=write\nthis is not an option\n")
    r = ssdlab("run", "--job-file", str(job))
    assert r.returncode == 2
    assert f"{job}:3:" in r.stderr and "Traceback" not in r.stderr


def test_bad_profile_file_names_file_line_and_field(tmp_path):
    text = ssdlab("profile", "show", "force-gs-240").stdout.replace("pages_per_block = 256", "pages_per_block = 0")
    path = tmp_path / "drive.toml"
    path.write_text(text)
    line = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("pages_per_block"))
    r = ssdlab("run", "--profile", str(path), "--rw=read")
    assert r.returncode == 2
    assert f"{path}:{line}: nand.pages_per_block" in r.stderr


def test_unwritable_output_is_refused_before_running(tmp_path):
    r = ssdlab("run", "--rw=read", "--json", str(tmp_path / "missing" / "out.json"))
    assert r.returncode == 2 and "does not exist" in r.stderr


def test_db_folder_rules_of_review_pts_and_calibrate(tmp_path):
    """`--db` is checked by one function before anything runs: `review` and `pts` append to a
    database in an existing folder; `calibrate` creates a missing folder (its default is
    calibration/) when its nearest existing folder is a writable folder, and creates nothing
    before every check has passed."""
    missing = tmp_path / "no" / "results.sqlite"
    for command in (["review", "--suites", "power"], ["pts", "--tests", "pts-iops"]):
        r = ssdlab(*command, "--scale", "0.01", "--db", str(missing), "--out", str(tmp_path / "out"))
        assert r.returncode == 2 and "does not exist" in r.stderr and "Traceback" not in r.stderr, r.stderr
    a_file = tmp_path / "file"
    a_file.write_text("x")
    r = ssdlab("calibrate", "--db", str(a_file / "sub" / "results.sqlite"), "--out", str(tmp_path / "cal.md"))
    assert r.returncode == 2 and "cannot be created" in r.stderr and "is not a writable folder" in r.stderr, r.stderr
    # A missing folder under a writable one passes; the run stops at the next check (a page
    # ssdlab did not write), and the folder is not created.
    foreign = tmp_path / "cal.md"
    foreign.write_text("my own notes\n")
    r = ssdlab("calibrate", "--db", str(missing), "--out", str(foreign))
    assert r.returncode == 2 and "not a calibration page ssdlab wrote" in r.stderr, r.stderr
    assert not missing.parent.exists() and not (tmp_path / "out").exists()
