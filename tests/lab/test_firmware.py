"""Firmware variants of a profile (issue 15): SF-2281 firmware 5.0.2 keeps a stale pointer for
each trimmed sector, so HD Tach reads after TRIM stay slower than clean and a second TRIM does
not help; 5.0.3 unmaps, so reads after TRIM equal clean."""

from pathlib import Path

import pytest

from ssdlab.lab.context import COMPRESSIBLE, ReviewContext
from ssdlab.lab.suites import hdtach
from ssdlab.lab.suites.resiliency import TRIM_ALL, _torture


def reads(firmware: str, out: Path) -> dict[str, float]:
    ctx = ReviewContext("force-gs-240", [f"controller.firmware={firmware}"], scale=0.05, out_dir=out)
    drive = ctx.new_drive()
    drive.secure_erase()
    found = {}
    for condition in ("clean", "after torture", "after TRIM", "after a second TRIM"):
        if condition == "after torture":
            _torture(ctx, drive, COMPRESSIBLE, 20, "compressible")
        elif "TRIM" in condition:
            ctx.run(drive, TRIM_ALL, "TRIM all")
        _, averages = hdtach.measure(ctx, drive, condition)
        found[condition] = averages["read"]
    return found


@pytest.fixture(scope="module")
def firmware(tmp_path_factory):
    out = tmp_path_factory.mktemp("fw")
    return {fw: reads(fw, out) for fw in ("5.0.2", "5.0.3")}


def test_trim_on_5_0_2_leaves_reads_slower_than_on_5_0_3(firmware):
    old, new = firmware["5.0.2"], firmware["5.0.3"]
    assert old["clean"] == pytest.approx(new["clean"], rel=0.01)  # a secure-erased drive: no firmware difference
    assert old["after torture"] < old["after TRIM"] < 0.9 * old["clean"], old  # up from dirty, not restored
    assert old["after a second TRIM"] == pytest.approx(old["after TRIM"], rel=0.02)  # a second TRIM does not help
    assert new["after TRIM"] > 1.15 * old["after TRIM"], (old, new)


def test_trim_on_5_0_3_restores_clean_reads(firmware):
    new = firmware["5.0.3"]
    assert new["after TRIM"] == pytest.approx(new["clean"], rel=0.05), new
