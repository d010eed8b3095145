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
    ("unknown time unit", ["trace", "stats", "{trace}", "--time-unit", "fortnights"], "fortnights"),
    ("JSON output into a missing folder (checked before the replay)", ["trace", "replay", "{trace}", "--json", "/nonexistent/x.json"], "does not exist"),
    ("JSON output that is a folder", ["run", "--rw=read", "--number_ios=1", "--json", "{tmp}"], "is a folder"),
    ("two outputs on standard output", ["run", "--rw=read", "--json", "-", "--series", "-"], "cannot both write to standard output"),
    ("missing data file", ["run", "--rw=write", "--data-file", "/nonexistent/data.bin"], "no such file"),
    ("missing trace", ["trace", "replay", "/nonexistent/trace.csv"], "no such file"),
    ("review scale NaN", ["review", "--scale", "nan"], "--scale"),
    ("review scale too small", ["review", "--scale", "0"], "--scale"),
    ("review database that is a folder", ["review", "--db", "{tmp}", "--suites", "power"], "is a folder"),
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
    ("unknown profile field", ["run", "--set", "nand.bogus=1", "--rw=read"], "unknown field `bogus`"),
    ("power cut of a server that is not running", ["ctl", "power-cut", "--socket", "{tmp}/none.control"], "cannot reach the server's control socket"),
    ("power cut after zero writes", ["serve", "--backing", "{tmp}/d.img", "--power-cut-after", "0"], "--power-cut-after"),
    ("unknown failure mode", ["serve", "--backing", "{tmp}/d.img", "--fault", "melt"], "'melt' is not one of"),
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
    ("a device as a job file", ["run", "--job-file", "/dev/zero"], "is not a regular file"),
    (
        "unset environment variable in a fio option",
        ["run", "--rw=randwrite", "--size=${{SSDLAB_SURELY_UNSET}}"],
        "environment variable `SSDLAB_SURELY_UNSET` is not set",
    ),
]
