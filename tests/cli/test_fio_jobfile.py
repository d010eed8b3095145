"""fio job files through the real CLI: fio's syntax, grouping, the host queue, overrides, logs,
the JSON shape, and the issue-19 workload checks that used to fail late or not at all."""

import json
import os
import shutil
import subprocess

import pytest
from fio_helpers import small_args, ssdlab


def run_json(*args, cwd=None, env=None):
    r = ssdlab("run", *small_args(), *args, "--quiet", "--json", "-", cwd=cwd, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), r.stderr


def refused(*args, cwd=None):
    r = ssdlab("run", *small_args(), *args, cwd=cwd)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr, r.stderr
    return [line.removeprefix("ssdlab: error: ") for line in r.stderr.splitlines() if line.strip()]


def test_fio_syntax_comments_variables_include_kb_base(tmp_path):
    (tmp_path / "common.fio").write_text("bs=${SSDLAB_BS}   ; the block size comes from the environment\n")
    job = tmp_path / "job.fio"
    job.write_text("[global]\ninclude common.fio\nkb_base=1000\nsize=64m # 64,000,000 bytes\nnumber_ios=100\n[a]\nrw=randwrite\niodepth=2\n")
    doc, _ = run_json(str(job), env={**os.environ, "SSDLAB_BS": "512k"})
    # kb_base=1000: 512k = 512,000 bytes per write.
    assert doc["writes"] == 100 and doc["host_write_bytes"] == 100 * 512_000


def test_every_problem_in_a_file_at_once_with_file_and_line(tmp_path):
    job = tmp_path / "bad.fio"
    job.write_text("[global]\nioengine=libaio\nbogus=1\n[first]\nrw=write\n[second]\nrw=sideways\niodeph=4\n")
    lines = refused(str(job))
    assert len(lines) == 3, lines
    assert lines[0].startswith(f"{job}:3:") and "bogus" in lines[0]
    assert lines[1].startswith(f"{job}:7:") and "sideways" in lines[1]
    assert lines[2].startswith(f"{job}:8:") and "did you mean `iodepth`" in lines[2]


def test_binary_job_file_is_named_not_echoed(tmp_path):
    job = tmp_path / "garbage.fio"
    job.write_bytes(b"[a]\nrw=read\n" + bytes(range(256)) * 4)
    lines = refused(str(job))
    assert len(lines) == 1 and lines[0].startswith(f"{job}:3: binary data"), lines
    assert "\x00" not in lines[0] and "\x1b" not in lines[0]


def test_hyphenated_spelling_suggests_fio_spelling():
    lines = refused("--rw=randwrite", "--time-based", "--runtime=1")
    assert lines == ["option --time-based: unknown fio option `time-based` (did you mean `time_based`?)"], lines


def test_jobs_without_stonewall_run_side_by_side(tmp_path):
    job = tmp_path / "two.fio"
    job.write_text("[global]\nbs=4k\niodepth=4\nnumber_ios=500\nsize=64m\n[w]\nrw=randwrite\n[r]\nrw=randread\n")
    doc, _ = run_json(str(job))
    assert len(doc["jobs"]) == 1 and doc["jobs_in_group"] == 2 and doc["iodepth"] == 8
    assert doc["reads"] == 500 and doc["writes"] == 500


def test_command_line_overrides_the_file(tmp_path):
    job = tmp_path / "long.fio"
    job.write_text("[long]\nrw=randwrite\nbs=4k\niodepth=8\nruntime=900\ntime_based\nsize=64m\n")
    doc, _ = run_json(str(job), "--runtime=1")
    assert 1.0 <= doc["simulated_seconds"] < 1.1
    doc, _ = run_json("--job-file", str(job), "--runtime=500ms", "--size=16m")
    assert 0.5 <= doc["simulated_seconds"] < 0.6


def test_iodepth_above_the_drive_queue_waits_in_the_host():
    common = ["--rw=randread", "--bs=4k", "--size=64m", "--number_ios=20000", "--precondition", "layout"]
    deep, _ = run_json(*common, "--iodepth=128")
    ncq, _ = run_json(*common, "--iodepth=32")
    assert deep["iodepth"] == 128 and deep["host_queued_max"] == 96 and ncq["host_queued_max"] == 0
    # The drive sees 32 either way: the same throughput, four times the latency (Little's law).
    assert deep["iops"] == pytest.approx(ncq["iops"], rel=0.05)
    assert deep["latency_us"]["mean"] == pytest.approx(4 * ncq["latency_us"]["mean"], rel=0.1)


def test_ramp_time_is_left_out_of_the_figures():
    doc, _ = run_json("--rw=randwrite", "--bs=4k", "--iodepth=8", "--size=64m", "--ramp_time=1", "--runtime=1", "--time_based")
    assert doc["ramp_seconds"] == 1.0 and 1.0 <= doc["simulated_seconds"] < 1.1


def test_zoned_distribution_puts_accesses_in_their_zones():
    # 90% of the writes to the first 10% of a 64 MiB span: that zone holds most written data.
    doc, _ = run_json("--rw=randwrite", "--bs=4k", "--size=64m", "--number_ios=4000", "--random_distribution=zoned:90/10:10/90")
    assert doc["writes"] == 4000


def test_logs_in_fios_format(tmp_path):
    job = tmp_path / "logged.fio"
    job.write_text("[logged]\nrw=randwrite\nbs=4k\niodepth=8\nsize=64m\nruntime=3\ntime_based\nwrite_bw_log=run\nwrite_lat_log=run\nwrite_iops_log=run\n")
    run_json(str(job), cwd=tmp_path)
    for name in ("run_bw.1.log", "run_iops.1.log", "run_lat.1.log", "run_clat.1.log", "run_slat.1.log"):
        rows = [line.split(", ") for line in (tmp_path / name).read_text().splitlines()]
        assert len(rows) == 3, (name, rows)
        assert all(len(r) == 6 and r[2] == "1" and r[3:] == ["0", "0", "0"] for r in rows), rows
        assert [int(r[0]) for r in rows] == [1000, 2000, 3000]
    bw = [int(r.split(", ")[1]) for r in (tmp_path / "run_bw.1.log").read_text().splitlines()]
    assert all(v > 1000 for v in bw)  # KiB/s


def test_two_groups_naming_one_log_write_one_file_each(tmp_path):
    # fio numbers log files across the job file; the second group must not replace the first's.
    job = tmp_path / "two.fio"
    job.write_text(
        "[global]\nbs=4k\nsize=64m\ntime_based\nwrite_bw_log=run\n[writes]\nrw=randwrite\nruntime=2\nstonewall\n[reads]\nrw=randread\nruntime=3\nstonewall\n"
    )
    run_json(str(job), cwd=tmp_path)
    first = [line.split(", ") for line in (tmp_path / "run_bw.1.log").read_text().splitlines()]
    second = [line.split(", ") for line in (tmp_path / "run_bw.2.log").read_text().splitlines()]
    assert [r[2] for r in first] == ["1", "1"], first  # the writes' group: two seconds of writes
    assert [r[2] for r in second] == ["0", "0", "0"], second  # the reads' group: three of reads


def test_output_format_json_has_fios_shape():
    r = ssdlab("run", *small_args(), "--rw=randrw", "--bs=4k", "--size=64m", "--number_ios=2000", "--output-format=json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    job = doc["jobs"][0]
    assert job["read"]["total_ios"] + job["write"]["total_ios"] == 2000
    # fio's default percentile list (test_fio_percentiles.py checks the job's own).
    assert len(job["read"]["clat_ns"]["percentile"]) == 17 and "99.990000" in job["read"]["clat_ns"]["percentile"]
    if shutil.which("fio"):
        real = json.loads(subprocess.run(["fio", "--name=x", "--ioengine=null", "--size=1m", "--output-format=json"], capture_output=True, text=True).stdout)
        # fio writes these two only with global options and real disks.
        assert set(doc) <= set(real) | {"global options", "disk_util"}
        for direction in ("read", "write"):
            assert set(job[direction]) - {"slat_ns", "clat_ns", "lat_ns"} <= set(real["jobs"][0][direction])
            # (fio's null engine, with no latency to speak of, leaves out its percentiles.)
            assert set(job[direction]["clat_ns"]) - {"percentile"} <= set(real["jobs"][0][direction]["clat_ns"])


# Issue 19, cause 6 and 11: workload checks that used to fail late or not at all.


def test_thinktime_past_the_clock_is_refused_at_the_start():
    lines = refused("--rw=randwrite", "--bs=4k", "--size=64m", "--thinktime=100d")
    assert len(lines) == 1 and "thinktime" in lines[0] and "simulated clock" in lines[0], lines
    lines = refused("--rw=randwrite", "--runtime=1", "--time_based", "--thinktime=2s")
    assert len(lines) == 1 and "thinktime" in lines[0] and "longer than the whole run" in lines[0], lines


def test_blockalign_larger_than_the_span_is_refused():
    # The small drive holds 1.8 GB: from 1700 MiB on, the span is about 40 MiB.
    lines = refused("--rw=randwrite", "--offset=1700m", "--blockalign=1g")
    assert len(lines) == 1 and "blockalign 1073741824 is larger than the span" in lines[0], lines
    lines = refused("--rw=randwrite", "--size=1m", "--blockalign=1g")
    assert len(lines) == 1 and "blockalign 1073741824 is larger than size 1048576" in lines[0], lines


def test_size_not_whole_sectors_is_refused_at_parse():
    lines = refused("--rw=write", "--bs=512", "--size=1000")
    assert lines == ["job cli: size 1000 is not a whole number of 512-byte sectors"], lines


def test_offset_plus_size_past_2_to_the_64_is_named():
    lines = refused("--rw=write", "--offset=18446744073709551104", "--size=1m")
    assert len(lines) == 1 and "past 2^64" in lines[0], lines


def test_error_in_the_second_job_names_file_and_line(tmp_path):
    job = tmp_path / "two.fio"
    job.write_text("[a]\nrw=write\nsize=1m\n\n[b]\nrw=read\nbs=512\nsize=1000\n")
    lines = refused(str(job))
    assert len(lines) == 1 and lines[0].startswith(f"{job}:5: job [b]: size 1000"), lines


def test_rwmixread_and_rwmixwrite_disagreeing_are_refused():
    lines = refused("--rw=randrw", "--rwmixread=60", "--rwmixwrite=30")
    assert len(lines) == 1 and "disagree" in lines[0], lines


def test_ssdlab_options_spelled_with_underscores_get_the_hyphenated_spelling():
    lines = refused("--job_file", "x.fio")
    assert lines == ["--job_file: did you mean --job-file (an option of ssdlab run, spelled with hyphens)?"], lines


# QA round nine: what published benchmarks bring.


def test_every_name_on_the_command_line_starts_a_job_as_in_fio():
    # `fio --name=w ... --name=r ...` is two jobs side by side; the first used to vanish (one
    # job `cli` with the last --rw and --number_ios).
    args = ["--bs=4k", "--size=64m", "--name=w", "--rw=randwrite", "--number_ios=100", "--name=r", "--rw=randread", "--number_ios=50"]
    doc, _ = run_json(*args)
    assert doc["jobs_in_group"] == 2 and doc["writes"] == 100 and doc["reads"] == 50, doc
    r = ssdlab("run", *small_args(), *args, "--stonewall", "--output-format=json")
    assert r.returncode == 0, r.stderr
    jobs = json.loads(r.stdout)["jobs"]
    assert [(j["jobname"], j["write"]["total_ios"], j["read"]["total_ios"]) for j in jobs] == [("w", 100, 0), ("r", 0, 50)]
    # A direction a job did not issue has runtime 0 in fio 3.33's JSON (null engine: a write
    # job's read and trim entries); the one it issued, the job's.
    assert [(j["write"]["runtime"] > 0, j["read"]["runtime"], j["trim"]["runtime"]) for j in jobs[:1]] == [(True, 0, 0)], jobs[0]
    assert (jobs[1]["read"]["runtime"] > 0, jobs[1]["write"]["runtime"]) == (True, 0), jobs[1]


def test_fio_defaults_of_refused_options_run_and_other_values_are_refused(tmp_path):
    job = tmp_path / "full.fio"
    job.write_text(
        "[global]\nfsync=0\nend_fsync=0\nstartdelay=0\nrate_iops=0\nthinktime_blocks=1\npercentage_random=100\nzonemode=none\n"
        "file_service_type=random\nfallocate=none\n[j]\nrw=randwrite\nsize=64m\nnumber_ios=100\n"
    )
    doc, _ = run_json(str(job))
    assert doc["writes"] == 100
    job.write_text("[j]\nrw=randwrite\nsize=64m\nzonemode=zbd\nlockfile=readwrite\n")
    lines = refused(str(job))
    assert len(lines) == 2 and lines[0].startswith(f"{job}:4: zonemode:") and lines[1].startswith(f"{job}:5: lockfile:"), lines


def test_rate_iops_limits_the_job_and_the_json_reports_it():
    # 200 commands per second for 2 simulated seconds at QD8: 400 commands, whatever the drive.
    args = ["--rw=randwrite", "--bs=4k", "--size=64m", "--iodepth=8", "--time_based", "--runtime=2", "--rate_iops=200"]
    r = ssdlab("run", *small_args(), *args, "--output-format=json")
    assert r.returncode == 0, r.stderr
    job = json.loads(r.stdout)["jobs"][0]
    assert job["job options"]["rate_iops"] == "200", job["job options"]
    assert abs(job["write"]["total_ios"] - 400) <= 1 and job["ssdlab"]["rate_iops_limit"] == 200.0, job["write"]
    # startdelay: the same job, 1 simulated second later (its runtime counts from its start).
    r = ssdlab("run", *small_args(), *args, "--startdelay=1", "--output-format=json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["jobs"][0]["write"]["total_ios"] == job["write"]["total_ios"]
    # A mixed job's limits are per direction, as fio's: 500 reads and 200 writes per second.
    mixed = ["--rw=randrw", "--bs=4k", "--size=64m", "--iodepth=8", "--time_based", "--runtime=2", "--rate_iops=500,200"]
    r = ssdlab("run", *small_args(), *mixed, "--output-format=json")
    assert r.returncode == 0, r.stderr
    job = json.loads(r.stdout)["jobs"][0]
    assert abs(job["read"]["total_ios"] - 1000) <= 1 and abs(job["write"]["total_ios"] - 400) <= 1, (job["read"]["total_ios"], job["write"]["total_ios"])
    assert job["ssdlab"]["rate_iops_limit"] == 700.0
    # A rate on trimwrite stays refused, saying why.
    lines = refused("--rw=trimwrite", "--size=64m", "--rate_iops=500")
    assert len(lines) == 1 and "rate_iops=500" in lines[0] and "rw=trimwrite is not simulated" in lines[0], lines


def test_a_job_that_ends_inside_its_ramp_time_is_refused_not_measured_over_no_time():
    # It printed 40,960,000,000 MB/s and 596 MW (10 writes over the 1e-12 s after the ramp).
    lines = refused("--rw=randwrite", "--size=64m", "--ramp_time=5", "--number_ios=10")
    assert len(lines) == 1 and "job cli: every command completed within its ramp_time of 5 s" in lines[0], lines


def test_a_group_asking_for_billions_of_commands_in_flight_is_refused_before_it_runs(tmp_path):
    # 4 jobs x numjobs=1024 x iodepth=65536: the host queue grew to 4 GiB and the process
    # aborted (memory allocation failed) under a 4 GB limit; each value alone is within fio's.
    job = tmp_path / "many.fio"
    job.write_text("[global]\nrw=randwrite\nsize=64m\nnumjobs=1024\niodepth=65536\nnumber_ios=10\n[a]\n[b]\n[c]\n[d]\n")
    lines = refused(str(job))
    assert len(lines) == 1 and "job a: its group of 4096 jobs side by side keeps 268435456 commands in flight" in lines[0], lines


def test_fios_output_and_progress_options_of_its_command_line(tmp_path):
    # `fio ... --output-format=json --output=res.json --eta-newline=1`: --output and the progress
    # options were refused as unknown fio options (`eta`: "did you mean `ba`?").
    out = tmp_path / "res.json"
    args = ["--name=t", "--rw=randwrite", "--size=64m", "--number_ios=100", "--output-format=json", f"--output={out}", "--eta-newline=1", "--eta=never"]
    r = ssdlab("run", *small_args(), *args, "--status-interval=1")
    assert r.returncode == 0 and r.stdout == "", (r.stdout, r.stderr)
    job = json.loads(out.read_text())["jobs"][0]
    assert (job["jobname"], job["write"]["total_ios"]) == ("t", 100)
    lines = refused("--rw=randwrite", "--output=")
    assert lines == ["--output: give a file name (fio writes what it prints there)"], lines


def test_exitall_ends_the_group_when_its_job_is_done(tmp_path):
    # fio's exitall: when the job ends, the rest of its group is terminated. It was accepted as
    # changing nothing: the reader below ran its whole 5 s after the writer's 200 writes.
    seconds = {}
    for flag in ("exitall", ""):
        job = tmp_path / f"j{flag}.fio"
        job.write_text(f"[global]\nsize=64m\nbs=4k\n[w]\nrw=randwrite\nnumber_ios=200\n{flag}\n[r]\nrw=randread\ntime_based\nruntime=5\n")
        doc, _ = run_json(str(job))
        assert doc["writes"] == 200
        seconds[flag] = doc["simulated_seconds"]
    assert seconds["exitall"] < 0.5 and seconds[""] >= 5.0, seconds


def test_fio_json_job_options_give_the_jobs_own_iodepth():
    # fio's "job options" are the options as given: iodepth 8 with numjobs=2 (it said 16, the sum).
    args = ["--name=r", "--rw=read", "--bs=1M", "--iodepth=8", "--size=100M", "--numjobs=2", "--group_reporting", "--output-format=json"]
    r = ssdlab("run", *small_args(), *args)
    assert r.returncode == 0, r.stderr
    options = json.loads(r.stdout)["jobs"][0]["job options"]
    assert (options["iodepth"], options["numjobs"]) == ("8", "2"), options
    if shutil.which("fio"):
        real = json.loads(subprocess.run(["fio", "--ioengine=null", *args], capture_output=True, text=True).stdout)
        assert real["jobs"][0]["job options"]["iodepth"] == options["iodepth"]


def test_a_job_file_after_a_flag_option_is_the_job_file(tmp_path):
    # `ssdlab run --time_based job.fio` took job.fio as time_based's value and ran no job file
    # (fio's default job: reads over the whole drive); fio's flags take no separate value.
    job = tmp_path / "j.fio"
    job.write_text("[j]\nrw=randwrite\nsize=64m\nbs=4k\n")
    doc, _ = run_json("--runtime=100ms", "--time_based", str(job))
    assert doc["job"] == "j" and doc["writes"] > 0 and doc["reads"] == 0, doc["job"]
    doc, _ = run_json("--group_reporting", str(job), "--number_ios=10")
    assert (doc["job"], doc["writes"]) == ("j", 10)
    assert refused("--time_based", "5")[0] == "unexpected argument '5' (fio options are written --name=value)"


def test_section_runs_only_the_job_sections_named(tmp_path):
    # fio's --section=NAME (published as `fio --section=randwrite all.fio`) was an unknown option.
    job = tmp_path / "all.fio"
    job.write_text("[global]\nsize=64m\nnumber_ios=100\n[randread]\nrw=randread\n[randwrite]\nrw=randwrite\nstonewall\n")
    doc, _ = run_json(str(job), "--section", "randwrite")
    assert [j["job"] for j in doc["jobs"]] == ["randwrite"] and doc["writes"] == 100
    lines = refused(str(job), "--section=seqread")
    assert lines == [f"option --section: {job} has no job section [seqread] (its sections: randread, randwrite)"], lines


def test_jobs_on_different_files_touch_different_blocks(tmp_path):
    # Two jobs on two files, one verifying: each file has its own region of the drive, so the
    # other job's writes do not land on the verifier's blocks (they did: "VERIFY FAILED for 845
    # blocks", where fio finds every block as written).
    job = tmp_path / "files.fio"
    job.write_text("[global]\nbs=4k\nsize=16m\n[other]\nfilename=fileA\nrw=randwrite\n[verifier]\nfilename=fileB\nrw=randwrite\nverify=crc32c\n")
    r = ssdlab("run", str(job), "--json", "-", *small_args(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verify"]["failures"] == 0 and doc["verify"]["blocks_verified"] > 0, doc["verify"]
    assert "VERIFY FAILED" not in r.stdout + r.stderr
    # The same two jobs on one file share its blocks, as in fio (and the run exits 1, as fio's
    # does for a failed verify; the verifier, whose blocks failed, is named).
    job.write_text(job.read_text().replace("fileA", "fileB"))
    r = ssdlab("run", str(job), "--json", "-", *small_args(), cwd=tmp_path)
    assert r.returncode == 1 and json.loads(r.stdout)["verify"]["failures"] > 0, r.stderr
    assert r.stderr.startswith("ssdlab: job verifier ended in error 84 (EILSEQ): verify failed for "), r.stderr


def test_fio_json_lists_every_job_of_a_group_as_fio_does_unless_group_reporting(tmp_path):
    # Jobs side by side were one entry, the group's, named after the first job; fio lists each
    # job (with its own figures) unless group_reporting is set.
    job = tmp_path / "two.fio"
    body = "[r]\nrw=randread\nbs=4k\nsize=64m\niodepth=2\nnumber_ios=300\n[w]\nrw=randwrite\nbs=4k\nsize=64m\niodepth=4\nnumber_ios=500\n"
    job.write_text(body)
    r = ssdlab("run", *small_args(), str(job), "--output-format=json")
    assert r.returncode == 0, r.stderr
    entries = json.loads(r.stdout)["jobs"]
    got = [(e["jobname"], e["groupid"], e["read"]["total_ios"], e["write"]["total_ios"], e["job options"]["iodepth"]) for e in entries]
    assert got == [("r", 0, 300, 0, "2"), ("w", 0, 0, 500, "4")], got
    # A direction without commands has fio's zero latencies (test_fio_json_entries.py).
    assert entries[0]["read"]["clat_ns"]["N"] == 300 and entries[0]["write"]["clat_ns"]["N"] == 0
    assert entries[1]["ssdlab"]["group"]["writes"] == 500
    assert "each_job" not in entries[1]["ssdlab"]["group"]  # not N copies of N jobs
    grouped = tmp_path / "grouped.fio"
    grouped.write_text("[global]\ngroup_reporting\n" + body)
    r = ssdlab("run", *small_args(), str(grouped), "--output-format=json")
    assert r.returncode == 0, r.stderr
    entries = json.loads(r.stdout)["jobs"]
    assert [(e["jobname"], e["read"]["total_ios"], e["write"]["total_ios"]) for e in entries] == [("r", 300, 500)]
    if shutil.which("fio"):
        for path, count in ((job, 2), (grouped, 1)):
            real = json.loads(
                subprocess.run(["fio", str(path), "--ioengine=null", "--output-format=json"], capture_output=True, text=True, cwd=tmp_path).stdout
            )
            assert len(real["jobs"]) == count, (path.name, [j["jobname"] for j in real["jobs"]])
    # The human summary lists each job under the group's figures.
    r = ssdlab("run", *small_args(), str(job))
    assert r.returncode == 0, r.stderr
    assert "    job r: randread QD2, " in r.stdout and "    job w: randwrite QD4, " in r.stdout, r.stdout
