"""`ssdlab serve --direct-data` (issue 24): whole 128 KiB units of data bypass the page cache,
`ssdlab stats` says so and counts the bytes written each way, the data reads back; the plugin
refuses a bad value of its `direct-data` key in one line."""

import subprocess

from served import CONVENTIONAL, need, run

from ssdlab.serve import nbdkit_path, plugin_path


def test_direct_data_is_a_serve_option_shown_in_stats(serve, tmp_path):
    need("qemu-io")
    plain = serve(CONVENTIONAL, name="plain.img")
    assert plain.stats()["data_direct_writes"].startswith("off: not asked for"), plain.stats()["data_direct_writes"]
    direct = serve(CONVENTIONAL, name="direct.img", flags=("--direct-data",))
    run("qemu-io", "-f", "raw", "-c", "write -P 0x5a 0 16M", "-c", "flush", "-c", "read -P 0x5a 0 16M", direct.uri)
    s = direct.stats()
    if s["data_direct_writes"].startswith("off: the file system refuses"):
        # The data still went through the page cache, and the reason is named.
        assert s["data_buffered_write_bytes"] > 0, s
        return
    assert s["data_direct_writes"].startswith("on"), s["data_direct_writes"]
    # 16 MiB striped over the drive's 32 dies: 512 KiB per open block, whole 128 KiB units.
    assert s["data_direct_write_bytes"] > 0, s


def test_a_bad_direct_data_value_is_refused_in_one_line(tmp_path):
    need("nbdkit")
    cmd = [nbdkit_path(), "--foreground", "-U", str(tmp_path / "s.sock"), str(plugin_path()), f"backing={tmp_path / 'd.img'}", "direct-data=maybe"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "direct-data: `maybe` is not yes or no" in r.stderr, r.stderr
    assert "panicked" not in r.stderr and "Traceback" not in r.stderr, r.stderr
