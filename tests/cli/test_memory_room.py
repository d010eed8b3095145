"""A drive too large for the memory this process may take is refused before its tables are
built: one line with the sizes and the limit, exit status 2 (it used to be Rust's
allocation-failure abort, exit 134, under ``ulimit -v``, or the kernel's out-of-memory kill)."""

import resource
import subprocess
import sys

# A 4 TiB conventional drive: about 7.7 GiB of tables.
FOUR_TIB = ["--profile", "conventional-240", "--set", "nand.blocks_per_plane=32768", "--set", "drive.capacity_bytes_user=3840000000000"]


def limited(gib: float):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (int(gib * (1 << 30)), resource.RLIM_INFINITY))

    return limit


def test_a_drive_over_the_address_space_limit_is_refused_with_its_sizes():
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab.cli", "run", *FOUR_TIB, "--rw=randwrite", "--bs=4k", "--number_ios=1000", "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limited(4),
    )
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, r.stderr
    assert "the drive's tables need at least 7.65 GiB of memory (mapping table 3.50 GiB, reverse map 4.00 GiB" in lines[0], lines[0]
    assert "under the address-space limit (ulimit -v)" in lines[0], lines[0]


def test_the_api_refuses_it_with_the_configuration_error():
    code = (
        "import ssdlab\n"
        "try:\n"
        "    ssdlab.Drive('conventional-240', overrides=['nand.blocks_per_plane=32768', 'drive.capacity_bytes_user=3840000000000'])\n"
        "except ssdlab.ConfigError as e:\n"
        "    print('refused:', e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, preexec_fn=limited(4))
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.startswith("refused: profile `conventional-240`: the drive's tables need at least"), r.stdout


def test_a_drive_that_fits_under_the_limit_runs():
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab.cli", "run", "--rw=randwrite", "--bs=4k", "--number_ios=1000", "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limited(4),
    )
    assert r.returncode == 0, r.stderr[-2000:]


def test_a_drive_left_in_a_reference_cycle_gives_its_memory_to_the_next():
    # A drive dropped in a reference cycle (a suite's frame held by a traceback, as
    # matplotlib's text parsing leaves them) kept its tables until Python's cycle collector
    # ran, so the next drive of a review could be refused for memory it would have had.
    # Under an address-space limit that holds one 1 TiB drive's tables (1.9 GiB) but not two.
    code = (
        "import resource, ssdlab\n"
        "size = int(open('/proc/self/statm').read().split()[0]) * resource.getpagesize()\n"
        "resource.setrlimit(resource.RLIMIT_AS, (size + (3 << 30), resource.RLIM_INFINITY))\n"
        "big = ['nand.blocks_per_plane=8192', 'drive.capacity_bytes_user=960000000000']\n"
        "first = ssdlab.Drive('conventional-240', overrides=big)\n"
        "first.cycle = first\n"
        "del first\n"
        "second = ssdlab.Drive('conventional-240', overrides=big)\n"
        "print('built', second.info['table_bytes'])\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.startswith("built "), r.stdout
