#!/usr/bin/env bash
# Sweep benchmarks behind BENCHMARKS.md (issue 13). Run on an otherwise idle machine.
#  1. A 40-point sweep (the example's drive: 20 spare factors x 2 GC policies, 4 GiB of random
#     writes per point after the fills) with 1 and with 2
#     local workers: wall time and points per minute.
#  2. Per-point overhead of the sweep machinery: a point of about 5 s run as a bare `ssdlab run`,
#     as a one-point sweep (whole commands, best of two) and as four points of one sweep (the
#     cost of each point after the first: the sweep's fixed cost is paid once).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
work=$(mktemp -d /tmp/ssdlab-bench-sweep.XXXXXX)
trap 'rm -rf "$work"' EXIT
export WORK="$work"
.venv/bin/python - <<'PY'
import os, re, subprocess, sys, time
from pathlib import Path

work = Path(os.environ["WORK"])
example = Path("examples/sweeps/wa-vs-spare.toml").read_text()
spares = ", ".join(f"{0.05 + 0.025 * i:.3f}" for i in range(20))
forty = re.sub(r"values = \[0\.07[^\]]*\]", f"values = [{spares}]", example).replace('name = "wa-vs-spare"', 'name = "bench40"').replace("io_size=1g", "io_size=4g")
assert forty != example
(work / "forty.toml").write_text(forty)

def timed(cmd):
    started = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started

print("== 40-point sweep (wa-vs-spare drive, 20 spare factors x greedy/cost-benefit) ==")
rates = {}
for workers in (1, 2):
    out = work / f"out{workers}"
    wall = timed([".venv/bin/ssdlab", "sweep", str(work / "forty.toml"), "--out", str(out), "--workers", str(workers), "--quiet"])
    rates[workers] = 40 / wall * 60
    print(f"{workers} worker(s): {wall:.1f} s wall, {rates[workers]:.1f} points per minute")
print(f"speed-up with 2 workers: {rates[2] / rates[1]:.2f}x (cores: {os.cpu_count()})")

print("== per-point overhead: points of about 5 s as a sweep and as bare ssdlab runs ==")
overrides = re.search(r"overrides = \[(.*?)\]", example, re.S).group(1)
overrides = re.findall(r'"([^"]+)"', overrides) + ["drive.capacity_bytes_user=429494272"]  # spare factor 0.2
def spec(name, seeds):
    return f'''[sweep]
name = "{name}"
profile = "conventional-240"
overrides = {overrides!r}
preconditions = ["seq-fill", "rand-fill"]
workload = ["rw=randwrite", "bs=4k", "iodepth=32", "io_size=80g"]
seeds = {seeds!r}

[[axis]]
field = "ftl.gc_policy"
values = ["greedy"]
'''.replace("'", '"')
(work / "one.toml").write_text(spec("one", [1]))
(work / "four.toml").write_text(spec("four", [1, 2, 3, 4]))
run = [".venv/bin/ssdlab", "run", "--quiet", "--profile", "conventional-240", "--seed", "1",
       "--precondition", "seq-fill", "--precondition", "rand-fill", "--set", "ftl.gc_policy=greedy"]
for o in overrides:
    run += ["--set", o]
run += ["--rw=randwrite", "--bs=4k", "--iodepth=32", "--io_size=80g"]
sweep_walls, run_walls = [], []
for i in range(2):
    run_walls.append(timed(run))
    sweep_walls.append(timed([".venv/bin/ssdlab", "sweep", str(work / "one.toml"), "--out", str(work / f"one{i}"), "--workers", "1", "--quiet"]))
four = timed([".venv/bin/ssdlab", "sweep", str(work / "four.toml"), "--out", str(work / "four"), "--workers", "1", "--quiet"])
s, r = min(sweep_walls), min(run_walls)
marginal = (four - s) / 3
print(f"bare ssdlab run (whole command): {r:.2f} s wall (best of 2: {', '.join(f'{x:.2f}' for x in run_walls)})")
print(f"one-point sweep (whole command): {s:.2f} s wall (best of 2: {', '.join(f'{x:.2f}' for x in sweep_walls)}): {s - r:+.2f} s = {(s - r) / r * 100:+.1f}%")
print(f"four-point sweep (seeds 1-4, 1 worker): {four:.2f} s wall; each point after the first: {marginal:.2f} s = {(marginal - r) / r * 100:+.1f}% beside a bare run")
PY
