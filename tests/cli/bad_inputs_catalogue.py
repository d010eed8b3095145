"""Bad and edge inputs a new user might try, with the message each must get.

Shared by the test that holds them (``test_bad_inputs.py``) and the script that writes the
table in ``docs/bad-inputs.md`` (``scripts/bad_inputs_table.py``). Each entry: a short
description, the ``ssdlab`` arguments (``{trace}`` and ``{tmp}`` are filled in), and a piece of
the one-line message expected on stderr with exit status 2.
"""

CASES = [
    (
        "idle longer than the simulated clock can count",
        ["run", "--precondition", "idle:2e10", "--rw=randread", "--bs=4k", "--number_ios=10"],
        "idle time must be",
    ),
    ("negative idle", ["run", "--precondition", "idle:-5", "--rw=randread"], "expected idle:SECONDS"),
    ("time scale that overflows the clock", ["trace", "replay", "{trace}", "--mode", "timestamps", "--time-scale", "1e300"], "--time-scale"),
    ("zero time scale", ["trace", "replay", "{trace}", "--mode", "timestamps", "--time-scale", "0"], "--time-scale"),
    # Before 2026-12-07 ignored without a word in the default queue-depth mode.
    ("time scale without timestamps", ["trace", "replay", "{trace}", "--time-scale", "0.5"], "only --mode timestamps follows"),
    ("unknown time unit", ["trace", "stats", "{trace}", "--time-unit", "fortnights"], "fortnights"),
    ("a volume the trace does not have", ["trace", "stats", "{trace}", "--volume", "h,9"], "no request of that volume in the trace (volumes: `h,0`)"),
    ("every volume of a trace replayed on one drive", ["trace", "replay", "{trace}", "--volume", "all"], "one drive replays one volume"),
    ("JSON output into a missing folder (checked before the replay)", ["trace", "replay", "{trace}", "--json", "/nonexistent/x.json"], "does not exist"),
    ("JSON output that is a folder", ["run", "--rw=read", "--number_ios=1", "--json", "{tmp}"], "is a folder"),
    ("two outputs on standard output", ["run", "--rw=read", "--json", "-", "--series", "-"], "cannot both write to standard output"),
    ("missing data file", ["run", "--rw=write", "--data-file", "/nonexistent/data.bin"], "no such file"),
    ("missing trace", ["trace", "replay", "/nonexistent/trace.csv"], "no such file"),
    ("review scale NaN", ["review", "--scale", "nan"], "--scale"),
    ("review scale too small", ["review", "--scale", "0"], "--scale"),
    ("review database that is a folder", ["review", "--db", "{tmp}", "--suites", "power"], "is a folder"),
    ("review database that is not SQLite (checked before the suites run)", ["review", "--db", "{trace}", "--suites", "power"], "not an SQLite database"),
    ("calibration database that is a folder (checked before the suites run)", ["calibrate", "--db", "{tmp}"], "is a folder"),
    ("calibration database that is not SQLite", ["calibrate", "--db", "{trace}", "--out", "{tmp}/cal.md"], "not an SQLite database"),
    ("review output folder that is a file", ["review", "conventional-240", "--suites", "power", "--out", "{trace}"], "is a regular file, not a folder"),
    ("compare output folder that is a device", ["compare", "--db", "{db}", "--include-scaled", "--out", "/dev/null"], "is a device, not a folder"),
    ("compare into an empty output path (not the current folder)", ["compare", "--db", "{db}", "--include-scaled", "--out", ""], "--out: empty path"),
    ("review into an empty output path (not the default)", ["review", "conventional-240", "--suites", "power", "--out", ""], "--out: empty path"),
    ("review with an empty suite list", ["review", "--suites", ",,"], "names no suite"),
    ("review with an unknown suite", ["review", "--suites", "four-corners,bogus"], "unknown suite 'bogus'"),
    ("latency near 2^63", ["run", "--set", "nand.t_prog_ns=9223372036854775000", "--rw=read"], "nand.t_prog_ns: must be 1 to"),
    ("firmware time 2^62", ["run", "--set", "controller.command_processing_ns=4611686018427387904", "--rw=read"], "controller.command_processing_ns"),
    ("die count that overflows 32 bits", ["run", "--set", "nand.channels=2147483650", "--rw=read"], "nand.channels: must be 1 to 1024"),
    ("link rate that overflows x 10^6", ["run", "--set", "host.link_mbps=288230376151711744", "--rw=read"], "host.link_mbps: must be 1 to"),
    (
        "GC low-water mark of zero (names its own field)",
        ["run", "--set", "ftl.gc_low_free_blocks_per_die=0", "--rw=read"],
        "ftl.gc_low_free_blocks_per_die: must be at least 1",
    ),
    ("empty profile", ["run", "--profile", "", "--rw=read"], "profile: empty name; give a built-in profile's name"),
    ("serve an empty profile (not the current folder)", ["serve", "", "--backing", "{tmp}/d.img"], "profile: empty name"),
    ("unknown profile field", ["run", "--set", "nand.bogus=1", "--rw=read"], "unknown field `bogus`"),
    ("power cut of a server that is not running", ["ctl", "power-cut", "--socket", "{tmp}/none.control"], "cannot reach the server's control socket"),
    ("statistics of a regular file given as the control socket", ["stats", "--socket", "{trace}"], "control socket: is a regular file, not a socket"),
    ("power cut with an empty control socket path", ["ctl", "power-cut", "--socket", ""], "--socket: empty path"),
    ("power cut after zero writes", ["serve", "--backing", "{tmp}/d.img", "--power-cut-after", "0"], "--power-cut-after"),
    ("unknown failure mode", ["serve", "--backing", "{tmp}/d.img", "--fault", "melt"], "unknown failure mode `melt`"),
    (
        "power-loss protection that is not a boolean",
        ["run", "--set", "controller.power_loss_protection=maybe", "--rw=read"],
        "controller.power_loss_protection",
    ),
    ("unknown fio option", ["run", "--rw=randwrite", "--iodeph=4"], "unknown fio option `iodeph`"),
    ("queue deeper than fio allows", ["run", "--rw=randread", "--iodepth=65537"], "iodepth: must be 1 to 65536"),
    (
        "compare highlighting a drive not in the database",
        ["compare", "--db", "{db}", "--highlight", "no-such-drive", "--include-scaled", "--out", "{tmp}/cmp"],
        "--highlight",
    ),
    # Issue 19, causes 6 and 11: the workload's own checks (tests/cli/test_fio_jobfile.py has the job-file ones).
    ("thinktime past the simulated clock", ["run", "--rw=randwrite", "--bs=4k", "--size=64m", "--thinktime=100d"], "past the simulated clock's limit"),
    ("thinktime longer than the whole run", ["run", "--rw=randwrite", "--runtime=1", "--time_based", "--thinktime=2s"], "longer than the whole run"),
    ("blockalign larger than the size", ["run", "--rw=randwrite", "--size=1m", "--blockalign=1g"], "blockalign 1073741824 is larger than size"),
    ("blockalign larger than the span to the drive's end", ["run", "--rw=randwrite", "--offset=223g", "--blockalign=1g"], "is larger than the span"),
    ("size not a whole number of sectors", ["run", "--rw=write", "--bs=512", "--size=1000"], "not a whole number of 512-byte sectors"),
    ("offset + size past 2^64", ["run", "--rw=write", "--offset=18446744073709551104", "--size=1m"], "past 2^64 bytes"),
    ("rwmixread and rwmixwrite disagreeing", ["run", "--rw=randrw", "--rwmixread=60", "--rwmixwrite=30"], "disagree"),
    ("hyphenated fio option", ["run", "--rw=randwrite", "--time-based", "--runtime=1"], "did you mean `time_based`?"),
    ("a device as a job file", ["run", "--job-file", "/dev/zero"], "is a device"),
    ("empty job file path (not the bare run)", ["run", "--job-file", ""], "--job-file: empty path"),
    ("fio log into a missing folder (checked before the run)", ["run", "--rw=randwrite", "--runtime=1", "--write_bw_log=/nonexistent/x"], "does not exist"),
    (
        "unset environment variable in a fio option",
        ["run", "--rw=randwrite", "--size=${{SSDLAB_SURELY_UNSET}}"],
        "environment variable `SSDLAB_SURELY_UNSET` is not set",
    ),
]

#: Issue 19 ("bad input, round two"): (cause number, description, arguments, expected piece of
#: the one-line message). Placeholders: the files :func:`make_fixtures` writes, by name.
ROUND_TWO = [
    (1, "serve --control on an existing regular file (kept intact)", ["serve", "--backing", "{tmp}/d.img", "--control", "{notes}"], "is a regular file"),
    (1, "serve --control on the backing image", ["serve", "--backing", "{tmp}/d.img", "--control", "{tmp}/d.img"], "same path as --backing"),
    (1, "serve --control equal to --socket", ["serve", "--backing", "{tmp}/d.img", "--control", "{tmp}/s", "--socket", "{tmp}/s"], "same path as --socket"),
    (4, "serve --backing on the root folder", ["serve", "--backing", "/"], "is a folder"),
    (1, "serve --socket on a folder", ["serve", "--backing", "{tmp}/d.img", "--socket", "{tmp}"], "is a folder"),
    (2, "serve --pidfile in a missing folder", ["serve", "--backing", "{tmp}/d.img", "--background", "--pidfile", "{tmp}/no/p"], "does not exist"),
    (2, "serve --pidfile on a file that is not a pid file", ["serve", "--backing", "{tmp}/d.img", "--background", "--pidfile", "{notes}"], "not a pid file"),
    (3, "trace stats of /dev/zero", ["trace", "stats", "/dev/zero"], "is a device"),
    (3, "trace stats of a FIFO", ["trace", "stats", "{fifo}"], "is a FIFO"),
    (3, "trace: a gzip bomb of one 100 MiB line", ["trace", "stats", "{gzbomb}"], "line longer than"),
    (3, "job file /dev/zero", ["run", "--job-file", "/dev/zero"], "is a device"),
    (3, "data file /dev/zero", ["run", "--rw=write", "--data-file", "/dev/zero"], "is a device"),
    (3, "profile /dev/zero", ["run", "--profile", "/dev/zero", "--rw=read"], "is a device"),
    (3, "sweep spec from a FIFO", ["sweep", "{fifo}"], "is a FIFO"),
    (3, "job file larger than any job file", ["run", "--job-file", "{huge}"], "at most"),
    (4, "symbolic link loop as a trace", ["trace", "stats", "{loop}"], "symbolic link loop"),
    (4, "output name longer than the file system allows", ["run", "--rw=read", "--json", "{tmp}/" + "n" * 300], "name too long"),
    (4, "/dev/full as an output", ["run", "--rw=read", "--json", "/dev/full"], "is a device"),
    (4, "path with bytes that are not UTF-8", ["trace", "stats", "{tmp}/\udcff.csv"], "not valid UTF-8"),
    (4, "option value with bytes that are not UTF-8", ["run", "--rw=\udcffread"], "not valid UTF-8"),
    (5, "replay output onto its own trace", ["trace", "replay", "{trace}", "--json", "{trace}"], "is the same file as trace"),
    (5, "--json and --series on one file", ["run", "--rw=read", "--json", "{tmp}/o", "--series", "{tmp}/o"], "is the same file as --json"),
    (5, "--series onto the data file", ["run", "--rw=write", "--data-file", "{notes}", "--series", "{notes}"], "is the same file as --data-file"),
    (5, "empty output path", ["run", "--rw=read", "--json", ""], "empty path"),
    (5, "--json onto a file of the user's", ["run", "--rw=read", "--json", "{notes}"], "already exists and was not written by ssdlab"),
    (5, "a generated trace to standard output", ["trace", "generate", "light2011", "--out", "-"], "this output cannot go to standard output"),
    (6, "GC window of zero blocks", ["run", "--set", "ftl.gc_window_blocks=0", "--rw=read"], "ftl.gc_window_blocks: must be at least 1"),
    (6, "calibrate scale NaN", ["calibrate", "--scale", "nan"], "--scale"),
    (7, "sweep: sample_seed of the wrong type", ["sweep", "{spec_seed}"], "[sweep] sample_seed: expected `int`, got `str`"),
    (7, "sweep: overrides as a string", ["sweep", "{spec_overrides}"], "[sweep] overrides: expected `array`, got `str`"),
    (7, "sweep: preconditions of numbers", ["sweep", "{spec_pre}"], "[sweep] preconditions[0]: expected `str`, got `int`"),
    (7, "sweep: axis name that is a number", ["sweep", "{spec_axis}"], "axis 1 name: expected `str`, got `int`"),
    (7, "sweep: heat map over an axis that does not exist", ["sweep", "{spec_plot}"], "[plot] heatmap: 'nope' is not an axis"),
    (7, "sweep: a grid of 10^7 points", ["sweep", "{spec_grid}"], "at most 10,000 are accepted"),
    (7, "sweep: 10^9 random points", ["sweep", "{spec_random}"], "[sweep] points: expected `int` <= 10000"),
    (7, "sweep: a Dask scheduler file that is not one", ["sweep", "{spec_ok}", "--dask-scheduler-file", "{notes}"], "--dask-scheduler-file"),
    (11, "a folder given as a trace", ["trace", "stats", "{tmp}"], "is a folder"),
    (11, "duplicate key in a profile", ["run", "--profile", "{dupprofile}", "--rw=read"], "duplicate key `pages_per_block`"),
    (11, "--set value with a newline and injected TOML", ["run", "--set", "nand.channels=8\n[ftl]\ngc_policy='greedy'", "--rw=read"], "control character"),
    (11, "--pidfile without --background", ["serve", "--backing", "{tmp}/d.img", "--pidfile", "{tmp}/p"], "only with --background"),
    (11, "--skip-bad over a trace where every line is bad", ["trace", "replay", "{allbad}", "--skip-bad"], "every line was malformed"),
    (11, "sweep output folder that is a file (checked before the points run)", ["sweep", "{spec_ok}", "--out", "{notes}"], "is a regular file, not a folder"),
]


def make_fixtures(folder) -> dict:
    """Write the files ROUND_TWO's placeholders name into `folder`; returns name -> path."""
    import gzip
    import os
    from pathlib import Path

    from ssdlab.drive import profile_source

    folder = Path(folder)
    files = {"tmp": folder}
    files["notes"] = folder / "notes.txt"
    files["notes"].write_text("precious\n")
    files["fifo"] = folder / "fifo"
    os.mkfifo(files["fifo"])
    files["loop"] = folder / "loop1"
    os.symlink(folder / "loop2", folder / "loop1")
    os.symlink(folder / "loop1", folder / "loop2")
    files["gzbomb"] = folder / "bomb.csv.gz"
    files["gzbomb"].write_bytes(gzip.compress(b"a" * (100 << 20), compresslevel=1))
    files["huge"] = folder / "huge.fio"
    with open(files["huge"], "wb") as f:
        f.truncate(8 << 20)
    files["allbad"] = folder / "allbad.csv"
    files["allbad"].write_text("0,h,0,Read,notanumber,4096,10\n1,h,0,Write,x,4096,10\n")
    text = profile_source("force-gs-240")
    files["dupprofile"] = folder / "dup.toml"
    files["dupprofile"].write_text(text.replace("pages_per_block = ", "pages_per_block = 256\npages_per_block = ", 1))
    small = 'overrides = ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=7499997184"]'
    base = '[sweep]\nworkload = ["rw=randwrite", "bs=4k", "number_ios=100"]\n' + small + "\n"
    axis = '[[axis]]\noption = "iodepth"\nvalues = [1, 2]\n'
    specs = {
        "spec_ok": base + axis,
        "spec_seed": base.replace("[sweep]\n", '[sweep]\nsample = "lhs"\npoints = 2\nsample_seed = "seven"\n') + axis,
        "spec_overrides": base.replace(
            'overrides = ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=7499997184"]', 'overrides = "nand.blocks_per_plane=64"'
        )
        + axis,
        "spec_pre": base + "preconditions = [1, 2]\n" + axis,
        "spec_axis": base + axis + "name = 5\n",
        "spec_plot": base + axis + '[plot]\nheatmap = ["iodepth", "nope"]\n',
        "spec_grid": base + "".join(f'[[axis]]\noption = "o{i}"\nrange = [1, 10]\nsteps = 10\n' for i in range(7)),
        "spec_random": base.replace("[sweep]\n", '[sweep]\nsample = "random"\npoints = 1000000000\n') + '[[axis]]\noption = "iodepth"\nrange = [1, 32]\n',
    }
    for name, body in specs.items():
        files[name] = folder / f"{name}.toml"
        files[name].write_text(body)
    return files
