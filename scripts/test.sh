#!/usr/bin/env bash
# Set up, then run every test: lint (rustfmt, clippy, ruff), the Rust workspace (cargo-nextest
# when present) and the Python suite. Slow Python tests are skipped unless --runslow is passed
# through: scripts/test.sh --runslow
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh
status=0
bash scripts/lint.sh || status=1
if cargo nextest --version >/dev/null 2>&1; then
    cargo nextest run --workspace --exclude ssdlab-py --locked || status=1
else
    cargo test --workspace --exclude ssdlab-py --locked || status=1
fi
.venv/bin/python -m pytest "$@" || status=1
exit $status
