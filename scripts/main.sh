#!/usr/bin/env bash
# Set up, then run the main job: a full review of the default drive (Corsair Force GS 240 GB
# profile) with every suite of the articles. Writes the report to review-force-gs-240/index.html
# (charts, tables, raw CSV) and its results to review-force-gs-240/results.sqlite. Progress goes
# to stderr (bars on a terminal, a line per job and at least one every 30 s in a log); the run
# ends with the headline figures and the paths of the report and the database.
# Extra arguments go to `ssdlab review` (e.g. --scale 0.05 for a quick look).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ssdlab review force-gs-240 --out review-force-gs-240 "$@"
