"""Outputs written whole replace only what ssdlab wrote (a user's file at an output's name is
refused before any work and left as it was), and an output that cannot go to standard output
refuses ``-`` instead of writing a file named ``-``."""

import subprocess
import sys

import pytest

FAST_RUN = ["run", "--rw=randwrite", "--number_ios=20", "--size=1m", "--quiet"]


def ssdlab(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize(
    "args, option",
    [
        ([*FAST_RUN, "--json", "mine"], "--json"),
        ([*FAST_RUN, "--series", "mine"], "--series"),
        ([*FAST_RUN, "--output", "mine"], "--output"),
        ([*FAST_RUN, "--write_bw_log=mine"], "write_bw_log"),
        (["trace", "generate", "light2011", "--out", "mine"], "--out"),
    ],
)
def test_a_file_of_the_users_is_never_replaced(tmp_path, args, option):
    name = "mine_bw.1.log" if option == "write_bw_log" else "mine"
    mine = tmp_path / name
    mine.write_text("user data\n")
    r = ssdlab(*args, cwd=tmp_path)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert option in lines[0] and "not written by ssdlab" in lines[0] and "Traceback" not in r.stderr
    assert mine.read_text() == "user data\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # nothing written


def test_an_empty_file_and_ssdlabs_own_output_are_replaced(tmp_path):
    made = tmp_path / "made-by-mktemp.json"
    made.touch()
    r = ssdlab(*FAST_RUN, "--json", str(made))
    assert r.returncode == 0 and '"writes": 20' in made.read_text(), r.stderr
    # Listed as ssdlab's now: the same command again replaces it.
    r = ssdlab(*FAST_RUN, "--json", str(made), "--seed", "2")
    assert r.returncode == 0 and '"master_seed": 2' in made.read_text(), r.stderr
    assert (tmp_path / ".ssdlab-outputs").read_text().splitlines()[1:] == ["made-by-mktemp.json"]


@pytest.mark.parametrize(
    "args",
    [
        ["trace", "generate", "light2011", "--out", "-"],
        ["calibrate", "--scale", "0.001", "--out", "-"],
    ],
)
def test_an_output_that_cannot_be_standard_output_refuses_a_dash(tmp_path, args):
    r = ssdlab(*args, cwd=tmp_path)
    assert r.returncode == 2 and "--out -: this output cannot go to standard output" in r.stderr, r.stderr
    assert list(tmp_path.iterdir()) == []  # no file named "-"
