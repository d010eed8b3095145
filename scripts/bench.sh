#!/usr/bin/env bash
# Benchmarks behind BENCHMARKS.md (not timed tests). Run on an otherwise idle machine.
#  1. steady state: 240 GB profile, sequential fill, then 4 KiB random writes at QD32 over the
#     whole span with GC running; simulated host writes per wall second and peak RSS; with the
#     data-reduction engine off and on; real-bytes engine throughput per core.
#  2. IO-consistency workload from the CLI: secure erase, fill, 2000 simulated s of 4 KiB random
#     writes at QD32; wall time and peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh >/dev/null
cargo build --release --locked -p ssdlab-drive --example steady_state --example engine_throughput -q
echo "== steady state, engine off (force-gs-240 with reduction.enabled=false: fill, 600 s warm-up, 600 s measured) =="
./target/release/examples/steady_state force-gs-240 600 random reduction.enabled=false | grep -v '^  t='
echo "== steady state, engine on, modeled incompressible content (force-gs-240) =="
./target/release/examples/steady_state force-gs-240 600 random | grep -v '^  t='
echo "== real-bytes engine throughput per core =="
./target/release/examples/engine_throughput
echo "== IO-consistency workload via the CLI =="
.venv/bin/python - <<'PY'
import json, resource, subprocess, time
command = [".venv/bin/ssdlab", "run", "--quiet", "--set", "reduction.enabled=false", "--precondition", "secure-erase", "--precondition", "seq-fill",
           "--rw=randwrite", "--bs=4k", "--iodepth=32", "--runtime=2000", "--time_based",
           "--json", "/tmp/ssdlab-bench-ioc.json"]
started = time.perf_counter()
subprocess.run(command, check=True)
wall = time.perf_counter() - started
peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"engine off, whole command: {wall:.1f} s wall, peak RSS {peak_kib / 1024:.0f} MiB = {peak_kib / 1024 / 256:.2f} MiB per raw GiB")
d = json.load(open("/tmp/ssdlab-bench-ioc.json"))
print(f"random-write phase: {d['ios']:,} IOs, {d['simulated_seconds']:.0f} simulated s, "
      f"{d['wall_seconds']:.1f} s wall, {d['ios'] / d['wall_seconds']:,.0f} host IOs per wall second, WA {d['write_amplification']:.2f}")
PY
echo "== Storage Bench 2011 Heavy replay (force-gs-240), memory at two trace lengths =="
.venv/bin/ssdlab trace generate heavy2011 --out /tmp/ssdlab-bench-heavy.csv.gz >/dev/null
.venv/bin/python - <<'PY'
import json, resource, subprocess, time
for profile_overrides, limit in (([], 395_234), ([], None), (["reduction.enabled=false"], 395_234), (["reduction.enabled=false"], None)):
    code = (f"import json, sys, time; from ssdlab import Drive; d = Drive('force-gs-240', {profile_overrides!r}); d.precondition('seq-fill'); "
            f"s = d.replay('/tmp/ssdlab-bench-heavy.csv.gz', max_requests={limit!r}).summary; "
            "import resource; print(json.dumps([s['requests'], s['wall_seconds'], s['average_mbps'], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss]))")
    started = time.perf_counter()
    out = subprocess.run([".venv/bin/python", "-c", code], capture_output=True, text=True, check=True).stdout
    requests, replay_wall, mbps, rss_kib = json.loads(out)
    print(f"{profile_overrides or 'engine on'}: {requests:,} requests: replay {replay_wall:.1f} s wall ({time.perf_counter() - started:.1f} s with start-up and fill), "
          f"average {mbps:.1f} MB/s, peak RSS {rss_kib / 1024:.0f} MiB")
PY
echo "== full review of the default drive =="
.venv/bin/python - <<'PY'
import subprocess, time
started = time.perf_counter()
subprocess.run([".venv/bin/ssdlab", "review", "force-gs-240", "--out", "/tmp/ssdlab-bench-review", "--quiet"], check=True)
print(f"full review: {time.perf_counter() - started:.0f} s wall")
PY
