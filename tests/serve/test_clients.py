"""The served drive with real clients: qemu-io, qemu-img, fio (ioengine=nbd), nbdcopy, nbdinfo,
on a SandForce profile and a conventional one (issue 11)."""

import json
import os

import pytest
from served import CONVENTIONAL, SANDFORCE, need, run

DRIVES = [pytest.param(SANDFORCE, id="sandforce"), pytest.param(CONVENTIONAL, id="conventional")]


@pytest.mark.parametrize("drive", DRIVES)
def test_qemu_io_patterns_discards_and_zeroes_read_back(serve, drive):
    need("qemu-io")
    s = serve(drive)
    writes = []
    # Many offsets and sizes, 512-byte aligned and not 4 KiB aligned, overlapping.
    for i, (offset, size) in enumerate(
        [
            (0, 4096),
            (512, 1024),
            (8192, 65536),
            (1 << 20, 1 << 20),
            (3 << 20, 512),
            (5 << 20, 131072),
            (7 << 20, 3584),
            ((64 << 20) + 1536, 20480),
            (1 << 30, 1 << 20),
            (6 << 30, 4096),
        ]
    ):
        writes.append(f"write -P {0x10 + i} {offset} {size}")
    checks = [w.replace("write", "read", 1) for w in writes]
    # Later writes overwrite parts of earlier ones: check only what stays; then discard and zero.
    ops = writes + [
        "read -P 0x10 0 512",
        "read -P 0x11 512 1024",
        "read -P 0x10 1536 2560",
        *checks[2:],
        "discard 1M 1M",
        "read -P 0 1M 1M",
        "write -z 5M 128K",
        "read -P 0 5M 128K",
        "write -z -u 8M 4M",
        "read -P 0 8M 4M",
    ]
    args = ["qemu-io", "-f", "raw"]
    for op in ops:
        args += ["-c", op]
    r = run(*args, s.uri)
    assert "Pattern verification failed" not in r.stdout + r.stderr, r.stdout[-3000:]
    assert r.stdout.count("read ") == len([o for o in ops if o.startswith("read")])


@pytest.mark.parametrize("drive", DRIVES)
def test_fio_random_mixed_and_trim_jobs_verify(serve, drive):
    need("fio")
    s = serve(drive)
    common = [
        "fio",
        "--ioengine=nbd",
        f"--uri={s.uri}",
        "--name=job",
        "--bs=4k",
        "--size=256m",
        "--verify=crc32c",
        "--verify_fatal=1",
        "--verify_state_save=0",
        "--output-format=json",
    ]
    for extra in (
        ["--rw=randwrite", "--iodepth=16", "--do_verify=1"],
        ["--rw=randrw", "--iodepth=8", "--do_verify=1"],
        ["--rw=randtrim", "--iodepth=4", "--size=64m", "--verify=0"],
        ["--rw=randread", "--iodepth=8", "--offset=128m", "--size=128m", "--verify=0"],
    ):
        r = run(*common, *extra, check=False)
        assert r.returncode == 0, r.stderr[-3000:]
        job = json.loads(r.stdout[r.stdout.index("{") :])["jobs"][0]
        assert job["error"] == 0, job
    st = s.stats()
    assert st["trims"] > 0 and st["writes"] > 0 and st["data_failure"] is None


def test_qemu_img_converts_a_gibibyte_in_and_out(serve, tmp_path):
    need("qemu-img")
    s = serve(SANDFORCE)
    image = tmp_path / "in.raw"
    with open(image, "wb") as f:
        for i in range(256):  # 1 GiB: random, compressible and zero mebibytes in turn
            chunk = (
                os.urandom(1 << 20) if i % 3 == 0 else (bytes(1 << 20) if i % 3 == 1 else (b"ssdlab %d " % i) * ((1 << 20) // 10) + b"\0" * ((1 << 20) % 10))
            )
            f.write(chunk[: 1 << 20] * 4)
    run("qemu-img", "convert", "-n", "-f", "raw", "-O", "raw", str(image), s.uri)
    back = tmp_path / "out.raw"
    run("qemu-img", "convert", "-f", "raw", "-O", "raw", s.uri, str(back))
    os.truncate(back, image.stat().st_size)  # the export is larger than the image
    run("qemu-img", "compare", "-f", "raw", "-F", "raw", str(image), str(back))


def test_nbdcopy_round_trip_and_trimmed_range_is_a_hole(serve, tmp_path):
    need("nbdcopy", "nbdinfo")
    s = serve(SANDFORCE)
    data = tmp_path / "mixed.bin"
    with open(data, "wb") as f:
        for i in range(1024):  # 1 GiB of mixed data
            f.write(
                os.urandom(1 << 20)
                if i % 4 == 0
                else (b"block %08d " % i) * 69905 + b"\0" * 1
                if i % 4 == 1
                else bytes(1 << 20)
                if i % 4 == 2
                else bytes([i % 251]) * (1 << 20)
            )
    run("nbdcopy", str(data), s.uri)
    back = tmp_path / "back.bin"
    run("nbdcopy", s.uri, str(back))
    size = data.stat().st_size
    with open(data, "rb") as a, open(back, "rb") as b:
        while True:
            x, y = a.read(1 << 22), b.read(1 << 22)
            if not x:
                break
            assert x == y[: len(x)]
    assert back.stat().st_size >= size
    run("qemu-io", "-f", "raw", "-c", "discard 64M 16M", s.uri)
    m = json.loads(run("nbdinfo", "--map", "--json", s.uri).stdout)
    holes = [e for e in m if e["type"] & 1 and e["offset"] <= 64 << 20 and e["offset"] + e["length"] >= 80 << 20]
    assert holes, m[:20]


@pytest.mark.parametrize("drive, low, high", [pytest.param(SANDFORCE, 0.0, 0.25, id="sandforce"), pytest.param(CONVENTIONAL, 0.9, 1.15, id="conventional")])
def test_a_gibibyte_of_compressible_data_costs_what_the_drive_stores(serve, tmp_path, drive, low, high):
    need("nbdcopy")
    s = serve(drive)
    data = tmp_path / "compressible.bin"
    with open(data, "wb") as f:
        for sector in range(1 << 18):  # 1 GiB of distinct, highly compressible 4 KiB sectors
            block = (b"sector %d " % sector) + b"all work and no play makes a dull drive. " * 100
            f.write(block[:4096])
    before = s.allocated_bytes()
    run("nbdcopy", "--flush", str(data), s.uri)
    grown = (s.allocated_bytes() - before) / (1 << 30)
    assert low <= grown <= high, grown


def test_out_of_range_requests_get_protocol_errors(serve):
    need("qemu-io")
    s = serve(SANDFORCE)
    size = 7499997184
    r = run("qemu-io", "-f", "raw", "-c", f"read {size} 4096", s.uri, check=False)
    assert "error" in (r.stdout + r.stderr).lower() or r.returncode != 0
    r = run("qemu-io", "-f", "raw", "-c", f"write {size - 2048} 4096", s.uri, check=False)
    assert "error" in (r.stdout + r.stderr).lower() or r.returncode != 0
    # The server keeps serving.
    run("qemu-io", "-f", "raw", "-c", "write -P 7 0 4096", "-c", "read -P 7 0 4096", s.uri)


@pytest.mark.parametrize("drive", DRIVES)
def test_qemu_io_discards_of_any_bytes_trim_the_whole_sectors_inside(serve, drive):
    # qemu sends the unaligned head and tail of a discard as trims of their own (here 1000 and
    # 232 bytes) and fails the whole discard when one is refused; the plugin refused them
    # (EINVAL: not in whole 512-byte sectors) until trims of any bytes were taken.
    need("qemu-io")
    s = serve(drive)
    r = run(
        "qemu-io",
        "-f",
        "raw",
        "-c",
        "write -P 0x21 0 64k",
        "-c",
        "discard 1000 20000",
        "-c",
        "discard 30000 100",
        "-c",
        "read -P 0x21 0 4096",
        "-c",
        "read -P 0 4096 16384",
        "-c",
        "read -P 0x21 20480 45056",
        s.uri,
    )
    out = r.stdout + r.stderr
    assert "failed" not in out, out
    assert out.count("discard ") == 2 and out.count("read ") == 3, out


def test_a_drive_with_power_loss_protection_takes_flush_and_fua_from_every_client(serve, tmp_path):
    # Such a drive has no volatile cache; it advertised neither flush nor FUA, and nbdcopy
    # --flush, fio's fsync and nbd_flush refused it (EINVAL). Both are advertised now and
    # answered at once: nothing is programmed for them.
    need("nbdinfo", "nbdcopy", "fio", "qemu-io")
    profile, overrides = SANDFORCE
    s = serve((profile, [*overrides, "controller.power_loss_protection=true"]))
    info = json.loads(run("nbdinfo", "--json", s.uri).stdout)["exports"][0]
    assert info["can_flush"] and info["can_fua"], info
    data = tmp_path / "data.bin"
    data.write_bytes(os.urandom(8 << 20))
    run("nbdcopy", "--flush", str(data), s.uri)
    r = run("qemu-io", "-f", "raw", "-c", "write -f -P 0x5a 0 4096", "-c", "read -P 0x5a 0 4096", s.uri)
    assert "failed" not in r.stdout + r.stderr, r.stdout
    nand = s.stats()["nand_write_bytes"]
    r = run("qemu-io", "-f", "raw", "-c", "flush", s.uri)
    assert "failed" not in r.stdout + r.stderr, r.stdout
    assert s.stats()["nand_write_bytes"] == nand, "a flush on a protected drive programmed something"
    r = run(
        "fio",
        "--ioengine=nbd",
        f"--uri={s.uri}",
        "--name=sync",
        "--rw=randwrite",
        "--bs=4k",
        "--size=4m",
        "--offset=64m",
        "--fsync=4",
        "--end_fsync=1",
        "--verify=crc32c",
        "--verify_fatal=1",
        "--verify_state_save=0",
        "--output-format=json",
        check=False,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads(r.stdout[r.stdout.index("{") :])["jobs"][0]["error"] == 0
