"""ssdlab reads sizes and times as fio does: 200 generated values checked against
``fio --parse-only`` (where fio is installed), with ssdlab's documented departures."""

import random
import re
import shutil
import subprocess

import pytest

from ssdlab import _native

FIO = shutil.which("fio")
pytestmark = pytest.mark.skipif(FIO is None, reason="fio is not installed (apt-get install fio; .ci/run installs it)")

SIZE_SUFFIXES = ["", "b", "k", "K", "kb", "KB", "kB", "m", "M", "mb", "MB", "g", "G", "gb", "GB", "t", "T", "p", "Ki", "ki", "Mi", "Gi", "KiB", "MiB", "GiB"]
TIME_SUFFIXES = ["", "s", "m", "h", "d", "ms", "msec", "us", "usec"]


def fio_value(option: str, text: str, kb_base: int = 1024) -> int:
    """The value fio's parser gives ``--option=text`` (its debug output's ``out=``)."""
    args = [FIO, "--parse-only", "--debug=parse", "--name=x", f"--kb_base={kb_base}", f"--{option}={text}"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=30).stdout
    handled = out.split(f"handle_option={option}, ptr={text}", 1)
    assert len(handled) == 2, out
    match = re.search(r"ret=0, out=(\d+)", handled[1])
    assert match, out
    return int(match.group(1))


def documented_departure(suffix: str, kb_base: int) -> bool:
    """Where ssdlab departs from fio on purpose (docs/fio.md): a binary prefix (`Ki`, `KiB`) is
    always 1024-based; fio reads `KiB` as 1000-based under its default kb_base=1024 and `Ki` as
    1000-based under kb_base=1000."""
    if "i" not in suffix.lower():
        return False
    return suffix.lower().endswith("ib") if kb_base == 1024 else not suffix.lower().endswith("b")


def generated(seed: int, count: int, suffixes: list[str]):
    rng = random.Random(seed)
    for _ in range(count):
        yield rng.choice([1, 2, 4, 8, 10, 64, 100, 512, 1000, rng.randint(1, 9999)]), rng.choice(suffixes)


def test_100_sizes_match_fio():
    departures = 0
    for index, (number, suffix) in enumerate(generated(26, 100, SIZE_SUFFIXES)):
        kb_base = 1000 if index % 3 == 0 else 1024
        text = f"{number}{suffix}"
        ours = _native.parse_size(text, kb_base)
        theirs = fio_value("size", text, kb_base)
        if documented_departure(suffix, kb_base):
            departures += 1
            power = "kmgtp".index(suffix[0].lower()) + 1
            assert ours == number * 1024**power and theirs == number * 1000**power, (text, kb_base, ours, theirs)
        else:
            assert ours == theirs, (text, kb_base, ours, theirs)
    assert departures < 30


def test_100_times_match_fio():
    for index, (number, suffix) in enumerate(generated(19, 100, TIME_SUFFIXES)):
        option, bare = ("runtime", "s") if index % 2 == 0 else ("thinktime", "us")
        text = f"{number}{suffix}"
        ours_ns = _native.parse_time_ns(text, bare)
        theirs_us = fio_value(option, text)
        assert ours_ns == theirs_us * 1000, (option, text, ours_ns, theirs_us)
