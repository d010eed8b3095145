"""The block traces people bring from cloud and enterprise storage (Alibaba Cloud, Tencent CBS,
SNIA SYSTOR '17) and FIU's traces with content hashes, from the command line: detection and
--format, a bad line's exit 2 with file:line, --volume on stats and replay, and content-aware
replay (a hash written to many blocks is stored once on the Force GS)."""

import json
import subprocess
import sys

import pytest

from small_drive import SMALL, small_args

MD5_A = "56f11b711d91a065a2b6458eca924523"

# Three requests of volume A (a 4 KiB read, then writes of 16 KiB and 4 KiB, the second
# following the first) and one of volume B between them, always the third request.
SAMPLES = {
    "alibaba": ("3", "5", "3,R,4096,4096,1577808000000626\n3,W,8192,16384,1577808000001626\n5,W,0,4096,1577808000001700\n3,W,24576,4096,1577808000002626\n"),
    "tencent": ("1283", "77", "1538323200,8,8,0,1283\n1538323201,16,32,1,1283\n1538323201,0,8,1,77\n1538323202,48,8,1,1283\n"),
    "systor": (
        "4",
        "6",
        "Timestamp,Response,IOType,LUN,Offset,Size\n1456135200.013118000,0.0008,R,4,4096,4096\n1456135200.113118000,0.0002,W,4,8192,16384\n"
        "1456135200.113119000,0.0002,W,6,0,4096\n1456135200.213118000,0.0002,W,4,24576,4096\n",
    ),
    "fiu": (
        "8,0",
        "8,16",
        f"1000 42 app 8 8 R 8 0 {MD5_A}\n2000 42 app 16 32 W 8 0 {MD5_A}\n2500 42 app 0 8 W 8 16 {MD5_A}\n3000 42 app 48 8 W 8 0 {MD5_A}\n",
    ),
}


def ssdlab(*args):
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True)


def stats(path, *args):
    r = ssdlab("trace", "stats", str(path), "--json", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_detected_named_and_one_volume_read(tmp_path, fmt):
    first, second, text = SAMPLES[fmt]
    path = tmp_path / f"t.{fmt}"
    path.write_text(text)
    for args in ([], ["--format", fmt]):
        s = stats(path, "--volume", first, *args)
        assert (s["format"], s["requests"], s["ops"]) == (fmt, 3, {"read": 1, "write": 2})
        assert s["bytes_written"] == 20480 and s["bytes_read"] == 4096
        assert s["sequential_share"] == pytest.approx(1 / 3)
        assert s["other_volume_requests"] == 1
        assert dict(s["volumes"]) == {first: 3, second: 1}
    # Without --volume the second volume stops the trace at its line, saying how to pick one.
    r = ssdlab("trace", "stats", str(path))
    line = 4 if fmt == "systor" else 3  # the other volume's request (SYSTOR's file has a header)
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"{path}:{line}: a request for device `{second}`, where the requests before are for `{first}`" in r.stderr
    assert "--volume ID" in r.stderr
    # --volume all lists every volume; replay takes one volume only.
    assert stats(path, "--volume", "all")["requests"] == 4
    r = ssdlab("trace", "replay", str(path), *small_args(), "--volume", "all")
    assert r.returncode == 2 and "one drive replays one volume" in r.stderr
    for volume, requests in ((first, 3), (second, 1)):
        r = ssdlab("trace", "replay", str(path), *small_args(), "--volume", volume, "--json", "-")
        assert r.returncode == 0, r.stderr
        s = json.loads(r.stdout)
        assert (s["requests"], s["other_volume_requests"]) == (requests, 4 - requests)


@pytest.mark.parametrize(
    "fmt, bad, expected",
    [
        ("alibaba", "3,Q,0,4096,1577808000003000", "opcode: `Q` is neither R nor W"),
        ("tencent", "1538323203,0,8,7,1283", "IOType: `7` is neither 0 (read) nor 1 (write)"),
        ("systor", "1456135201.0,0.1,W,4,abc,4096", "Offset: `abc` is not a whole number"),
        ("fiu", f"4000 42 app 48 8 W 8 0 {MD5_A[:30]}", "md5:"),
    ],
)
def test_a_bad_line_exits_2_with_file_line_and_field(tmp_path, fmt, bad, expected):
    first, _, text = SAMPLES[fmt]
    path = tmp_path / f"bad.{fmt}"
    path.write_text(text + bad + "\n")
    r = ssdlab("trace", "stats", str(path), "--volume", first)
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"{path}:{len(text.splitlines()) + 1}: {expected}" in r.stderr


def fiu_writes(count, hash_of):
    return "".join(f"{1000 + i * 20000} 7 app {i * 8} 8 W 8 0 {hash_of(i):032x}\n" for i in range(count))


def test_content_hashes_decide_what_the_drive_stores(tmp_path):
    same, distinct = tmp_path / "same.fiu", tmp_path / "distinct.fiu"
    same.write_text(fiu_writes(3000, lambda i: 0xABC))
    distinct.write_text(fiu_writes(3000, lambda i: 0x100000 + i))
    assert stats(same)["content"]["duplicate_share"] == pytest.approx(2999 / 3000)
    assert stats(distinct)["content"]["duplicate_share"] == 0.0

    def replay(path):
        r = ssdlab("trace", "replay", str(path), *small_args(), "--json", "-")
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    one, many = replay(same), replay(distinct)
    # Random data (the default) does not compress: 3,000 distinct blocks store 12 MB; one
    # content written 3,000 times is stored once.
    assert many["reduction"]["bytes_stored"] >= 3000 * 4096
    assert one["reduction"]["bytes_stored"] * 100 < many["reduction"]["bytes_stored"]
    assert one["reduction"]["dedup_hit_rate"] == pytest.approx(2999 / 3000)
    # The same trace replayed twice: identical results (wall time aside).
    again = replay(same)
    for s in (one, again):
        s.pop("wall_seconds")
    assert one == again
    # The text summary says what the engine did; a data file cannot stand in for named content.
    r = ssdlab("trace", "replay", str(same), *small_args())
    assert r.returncode == 0 and "deduplicated 100.0% of written sectors" in r.stdout, r.stdout
    r = ssdlab("trace", "replay", str(same), *small_args(), "--data-file", str(distinct))
    assert r.returncode == 2 and f"{same}:1: the trace records a content hash" in r.stderr and "Traceback" not in r.stderr


def test_stats_text_lists_volumes_and_the_duplicate_share(tmp_path):
    _, _, text = SAMPLES["fiu"]
    path = tmp_path / "t.fiu"
    path.write_text(text)
    r = ssdlab("trace", "stats", str(path), "--volume", "all")
    assert r.returncode == 0, r.stderr
    assert "volumes (requests): 8,0: 3, 8,16: 1" in r.stdout
    # Six written 4 KiB blocks: the 16 KiB write is four (one hash, four sector contents), then two.
    assert "written blocks with content hashes 6: duplicates" in r.stdout


def test_the_python_api_picks_a_volume_and_checks_its_type(tmp_path):
    from ssdlab import Drive
    from ssdlab.errors import WorkloadError

    first, second, text = SAMPLES["tencent"]
    path = tmp_path / "t.csv"
    path.write_text(text)
    drive = Drive("force-gs-240", list(SMALL), seed=3)
    s = drive.replay(str(path), volume=second).summary
    assert (s["requests"], s["writes"], s["other_volume_requests"]) == (1, 1, 3)
    with pytest.raises(TypeError, match="volume must be a string"):
        drive.replay(str(path), volume=1283)
    with pytest.raises(WorkloadError, match="a request for device `77`"):
        drive.replay(str(path))
