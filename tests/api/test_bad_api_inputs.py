"""Issue 19 through the Python API: concurrent runs, huge reads, wrong types, strings where lists
belong, read_tag without tags, close(), and inputs that are not regular files."""

import os
import threading

import pytest

from ssdlab import Drive
from ssdlab.drive import jobs_from_file, profile_source
from ssdlab.errors import RequestError, SsdlabError

SMALL = ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=7499997184"]


def test_two_threads_running_on_one_drive_each_count_only_their_own_run():
    drive = Drive("force-gs-240", SMALL)
    results = []
    threads = [
        threading.Thread(target=lambda n=n: results.append((n, drive.run(["rw=randwrite", "bs=4k", f"number_ios={n}"]).summary["writes"])))
        for n in (20000, 30000)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [(20000, 20000), (30000, 30000)]


def test_a_200_gb_read_is_an_error_not_an_abort():
    drive = Drive("force-gs-240", SMALL, content="real")
    with pytest.raises(RequestError, match="length must be 0 to"):
        drive.read(0, 200 * 10**9)
    with pytest.raises(RequestError, match="beyond the drive"):
        drive.read(7499997184 - 4096, 8192)


@pytest.mark.parametrize(
    "call, error, name",
    [
        (lambda d: d.read(-1, 4096), RequestError, "offset"),
        (lambda d: d.read("0", 4096), TypeError, "offset"),
        (lambda d: d.read(0, 4096.0), TypeError, "length"),
        (lambda d: d.write(0, "text"), TypeError, "data"),
        (lambda d: d.read_sector(-3), RequestError, "sector"),
        (lambda d: d.run(["rw=read"], seed=-1), RequestError, "seed"),
        (lambda d: d.idle("ten"), TypeError, "seconds"),
        (lambda d: d.replay(123), TypeError, "trace"),
    ],
)
def test_wrong_types_and_negative_numbers_name_the_parameter(call, error, name):
    drive = Drive("force-gs-240", SMALL, content="real")
    with pytest.raises(error, match=name):
        call(drive)


def test_a_string_where_a_list_belongs_is_refused():
    with pytest.raises(TypeError, match="overrides must be a list of strings, one item per option, not a single string"):
        Drive(overrides="nand.blocks_per_plane=64")
    drive = Drive("force-gs-240", SMALL)
    with pytest.raises(TypeError, match="options must be a list of strings, one item per option, not a single string"):
        drive.run("rw=read")
    # The list the message shows is one that works: one item per option.
    with pytest.raises(TypeError, match=r"\(write \['rw=randwrite', 'bs=4k'\]\)"):
        drive.run("rw=randwrite bs=4k")
    with pytest.raises(TypeError, match="every item of options must be a string"):
        drive.run(["rw=read", 4])
    with pytest.raises(TypeError, match="overrides must be a list"):
        profile_source("force-gs-240", "nand.blocks_per_plane=64")


def test_read_tag_without_tag_tracking_refuses():
    with pytest.raises(RequestError, match="does not track content tags"):
        Drive("force-gs-240", SMALL).read_tag(0)
    assert Drive("force-gs-240", SMALL, track_tags=True).read_tag(0) == 0


def test_close_and_context_manager():
    with Drive("force-gs-240", SMALL) as drive:
        drive.run(["rw=write", "bs=128k", "number_ios=10"])
    with pytest.raises(RequestError, match="closed"):
        drive.state()
    drive.close()  # twice is fine


@pytest.mark.parametrize("path", ["/dev/zero", "{fifo}", "{folder}"])
def test_inputs_that_are_not_regular_files_are_refused_naming_what_they_are(tmp_path, path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    path = path.format(fifo=fifo, folder=tmp_path)
    drive = Drive("force-gs-240", SMALL)
    for call in (
        lambda: drive.replay(path),
        lambda: drive.run(["rw=write", "number_ios=10"], data_file=path),
        lambda: jobs_from_file(path),
        lambda: Drive(path),
    ):
        with pytest.raises(SsdlabError, match=r"is a (device|FIFO|folder)"):
            call()


def test_the_core_refuses_devices_too_without_the_python_checks():
    from ssdlab import _native

    with pytest.raises(SsdlabError, match="is a device"):
        _native.trace_stats("/dev/zero", None, False, None)
    with pytest.raises(SsdlabError, match="is a device"):
        _native.profile_source("/dev/zero", [])


def test_trim_all_works_on_a_drive_smaller_than_1_gib():
    # Cause 6: trim-all used 1 GiB commands and refused a drive smaller than that (small --scale).
    drive = Drive("conventional-240", ["nand.blocks_per_plane=16", "drive.capacity_bytes_user=800002048"])
    drive.run(["rw=write", "bs=128k", "number_ios=100"])
    record = drive.precondition("trim-all")
    assert record["simulated_seconds"] > 0
    assert drive.state()["free_blocks"] > 0
