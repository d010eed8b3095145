#!/usr/bin/env bash
# Set up, then run the main job: the default drive (Corsair Force GS 240 GB profile), secure
# erased and filled sequentially, then 4 KiB random writes at QD32 for 60 simulated seconds.
# Writes the summary to out/run.json and the per-second series to out/series.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p out
.venv/bin/ssdlab run --precondition secure-erase --precondition seq-fill \
    --rw=randwrite --bs=4k --iodepth=32 --runtime=60 --time_based \
    --json out/run.json --series out/series.csv "$@"
echo "wrote out/run.json and out/series.csv"
