"""Storage Bench 2011 on the SF-1200 (issue 21): AnandTech's Force 100 / Agility 2 reviews show
the Light workload's average data rate above the Heavy one's. In the model the difference comes
from what the workloads write: Heavy's large transfers (downloads, archives, exports, installs)
carry incompressible data the SandForce engine cannot shrink, Light writes mostly small
compressible data (suite METHOD and LARGE_WRITE_BYTES)."""

import subprocess
import sys

import pandas as pd


def test_sf1200_storage_bench_light_is_faster_than_heavy(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab.cli", "review", "force-100-sf1200", "--scale", "0.02", "--suites", "storage-bench", "--out", str(tmp_path), "--quiet"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    table = pd.read_csv(tmp_path / "data" / "storage_bench.csv").set_index("workload")
    heavy, light = table.loc["heavy2011", "average MB/s"], table.loc["light2011", "average MB/s"]
    print(f"force-100-sf1200 Storage Bench 2011 at scale 0.02: Heavy {heavy:.1f} MB/s, Light {light:.1f} MB/s (ratio {light / heavy:.2f})")
    assert light > heavy * 1.03, f"Light {light:.1f} MB/s is not above Heavy {heavy:.1f} MB/s"
