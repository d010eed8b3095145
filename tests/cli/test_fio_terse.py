"""fio's terse output (``--output-format=terse``, ``--minimal``, ``--append-terse``,
``--terse-version``): one line of ``;``-separated fields per entry of fio's JSON, in fio 3.33's
layout. Before, ssdlab refused these options, so scripts that parse fio's terse lines (older
benchmark wrappers, ``fio_generate_plots``-style tools) could not run on it. The layout is
checked against fio 3.33 itself where it is installed (``ioengine=null``), the values against
ssdlab's own JSON of the same run."""

import json
import shutil
import subprocess

import pytest
from fio_helpers import small_args, ssdlab

#: Fields of one terse line of a job with no description and no continue_on_error, by version
#: and unified_rw_reporting mode, as fio 3.33 writes them (header, 41 per direction, 47 in
#: version 5, CPU 5, depths 7, latency ranges 22). Checked against fio below where installed.
FIELDS = {
    (2, "none"): 4 + 3 * 41 + 34,
    (3, "none"): 5 + 2 * 41 + 34,
    (4, "none"): 5 + 3 * 41 + 34,
    (5, "none"): 5 + 3 * 47 + 34,
    (3, "mixed"): 5 + 41 + 34,
    (3, "both"): 5 + 3 * 41 + 34,
    (5, "both"): 5 + 4 * 47 + 34,
}

JOB = ["--rw=randrw", "--bs=4k", "--size=4m", "--iodepth=4", "--number_ios=2000"]


def run(*args, cwd=None) -> subprocess.CompletedProcess:
    done = ssdlab("run", *small_args(), *args, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done


def fio_fields(tmp_path, *args) -> list[str]:
    """fio 3.33's terse line of the same kind of job, on its null engine."""
    done = subprocess.run(
        ["fio", "--ioengine=null", "--size=4m", "--bs=4k", "--rw=randrw", "--iodepth=4", "--number_ios=2000", *args, "--name=j"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (line,) = [row for row in done.stdout.splitlines() if ";" in row]
    return line.split(";")


@pytest.mark.parametrize(("version", "mode"), sorted(FIELDS))
def test_each_version_and_mode_has_fios_fields(tmp_path, version, mode):
    args = [*JOB, f"--unified_rw_reporting={mode}", "--minimal", f"--terse-version={version}"]
    lines = run(*args, "--name=j").stdout.splitlines()
    assert len(lines) == 1, lines
    fields = lines[0].split(";")
    assert len(fields) == FIELDS[version, mode], (version, mode, len(fields))
    assert fields[0] == str(version)
    assert (fields[1:4] if version == 2 else fields[2:5]) == ["j", "0", "0"]
    if shutil.which("fio"):
        theirs = fio_fields(tmp_path, f"--unified_rw_reporting={mode}", "--minimal", f"--terse-version={version}")
        assert len(theirs) == len(fields), (len(theirs), len(fields))
        # The same kind of field at each place: a percentile (P%=V), a share (N%), a number.
        kind = lambda f: "pct" if "%=" in f else "share" if f.endswith("%") else "number"  # noqa: E731
        assert [kind(f) for f in fields[5:]] == [kind(f) for f in theirs[5:]]


def test_the_terse_line_says_what_the_json_says():
    # --output-format=terse,json prints the terse line, then the JSON document, as fio does.
    out = run(*JOB, "--output-format=terse,json", "--name=j").stdout
    line, _, document = out.partition("\n")
    entry = json.loads(document)["jobs"][0]
    fields = line.split(";")
    for offset, kind in ((5, "read"), (46, "write")):
        part = entry[kind]
        got = fields[offset : offset + 41]
        assert got[0] == str(part["io_kbytes"])
        assert got[1] == str(1000 * part["io_bytes"] // part["runtime"] // 1024)
        assert got[2] == str(1000 * part["total_ios"] // part["runtime"])
        assert got[3] == str(part["runtime"])
        assert got[4:8] == ["0", "0", "0.000000", "0.000000"]  # no submission latency
        clat = part["clat_ns"]
        assert clat["N"] == part["total_ios"] > 0
        assert got[8:12] == [str(clat["min"] // 1000), str(clat["max"] // 1000), f"{clat['mean'] / 1000:f}", f"{clat['stddev'] / 1000:f}"]
        percentiles = [f"{key}%={ns // 1000}" for key, ns in clat["percentile"].items()]
        assert got[12:32] == percentiles + ["0%=0"] * (20 - len(percentiles))
        assert got[32:36] == got[8:12]  # total latency: the same as completion latency here
        assert got[36:38] == [str(part["bw_min"]), str(part["bw_max"])]
        assert float(got[39]) == pytest.approx(part["bw_mean"], abs=1e-6)
    tail = fields[87:]
    assert tail[:5] == ["0.000000%", "0.000000%", "0", "0", "0"]  # no host CPU figures
    assert tail[5:12] == [f"{entry['iodepth_level'][k]:3.1f}%" for k in ("1", "2", "4", "8", "16", "32", ">=64")]
    first_us = entry["latency_us"]["2"] + sum(entry["latency_ns"].values())
    assert tail[12] == f"{first_us:3.2f}%"
    assert sum(float(f.rstrip("%")) for f in tail[12:]) == pytest.approx(100.0, abs=0.5)


def test_latency_entries_have_fios_min_and_stddev():
    # fio's clat_ns: min, max, mean, stddev, N, percentile. ssdlab's had no min and no stddev
    # for a direction with commands (a tool reading lat_ns.stddev failed on it).
    entry = json.loads(run(*JOB, "--output-format=json", "--name=j").stdout)["jobs"][0]
    for kind in ("read", "write"):
        for lat in ("clat_ns", "lat_ns"):
            got = entry[kind][lat]
            assert list(got)[:5] == ["min", "max", "mean", "stddev", "N"], list(got)
            assert 0 < got["min"] <= got["mean"] <= got["max"] and got["stddev"] > 0, got


def test_description_and_continue_on_error_end_the_line_as_fios(tmp_path):
    args = ["--minimal", "--description=the job", "--continue_on_error=all"]
    fields = run(*JOB, *args, "--name=j").stdout.rstrip("\n").split(";")
    assert len(fields) == FIELDS[3, "none"] + 3
    assert fields[-3:] == ["0", "0", "the job"]
    if shutil.which("fio"):
        theirs = fio_fields(tmp_path, *args)
        assert len(theirs) == len(fields) and theirs[-3:] == ["0", "0", "the job"], theirs[-3:]


def test_append_terse_adds_the_line_after_the_text_summary():
    out = run(*JOB, "--append-terse", "--name=j").stdout
    lines = out.splitlines()
    assert lines[-1].startswith("3;ssdlab-") and len(lines[-1].split(";")) == FIELDS[3, "none"]
    assert any("IOPS" in row for row in lines[:-1]), out


def test_a_group_reported_as_one_is_one_line_and_jobs_apart_one_each():
    apart = run(*JOB, "--numjobs=3", "--minimal", "--name=j").stdout.splitlines()
    assert [row.split(";")[2] for row in apart] == ["j", "j", "j"]
    (one,) = run(*JOB, "--numjobs=3", "--group_reporting", "--minimal", "--name=j").stdout.splitlines()
    assert int(one.split(";")[5]) == sum(int(row.split(";")[5]) for row in apart)  # KiB read


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--terse-version=7", "--minimal"], "--terse-version=7: expected one of fio's terse versions 2, 3, 4 or 5"),
        (["--terse-version=x"], "--terse-version=x: expected"),
        (["--output-format=bogus"], "'bogus' is not one of fio's output formats"),
        (["--output-format=json,"], "'' is not one of fio's output formats"),
        (["--output-format=json+,bogus"], "'bogus' is not one of fio's output formats"),
        (["--minimal", "--output-format=json"], "give one of --minimal and --output-format"),
        (["--minimal=1"], "--minimal takes no value"),
        (["--output-format=terse", "--json=-"], "fio's terse output prints on standard output"),
    ],
)
def test_bad_output_options_are_one_line_each(args, message):
    done = ssdlab("run", *small_args(), *JOB, *args, "--name=j")
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert message in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ""


GROUP_FILE = """[global]
size=4m
bs=4k
rw=randread
group_reporting
number_ios=500

[a]
description=first one
percentile_list=50

[b]
description=second one
percentile_list=90:99
continue_on_error=all
"""


def test_a_group_reported_as_one_takes_fios_settings_from_its_last_job(tmp_path):
    # fio (`__show_run_stats`) copies each job's percentile list and continue_on_error over the
    # ones before, and keeps the first job's name and description. ssdlab took all four from
    # the first job.
    (tmp_path / "g.fio").write_text(GROUP_FILE)
    entry = json.loads(run("g.fio", "--output-format=json", cwd=tmp_path).stdout)["jobs"][0]
    assert entry["jobname"] == "a"
    assert list(entry["read"]["clat_ns"]["percentile"]) == ["90.000000", "99.000000"]
    fields = run("g.fio", "--minimal", cwd=tmp_path).stdout.rstrip("\n").split(";")
    assert fields[2] == "a" and fields[-3:] == ["0", "0", "first one"], fields[-3:]
    assert [f.split("=")[0] for f in fields[17:20]] == ["90.000000%", "99.000000%", "0%"]
    if shutil.which("fio"):
        (tmp_path / "n.fio").write_text(GROUP_FILE.replace("[global]", "[global]\nioengine=null"))
        done = subprocess.run(["fio", "--minimal", "n.fio"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
        theirs = done.stdout.rstrip("\n").split(";")
        assert len(theirs) == len(fields) and theirs[-3:] == fields[-3:], theirs[-3:]
        assert [f.split("=")[0] for f in theirs[17:20]] == ["90.000000%", "99.000000%", "0%"]
