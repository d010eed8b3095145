#!/usr/bin/env bash
# Lint everything: rustfmt, clippy with warnings as errors, ruff (lint and format check).
# Run by scripts/test.sh (so CI runs it); needs the environment scripts/setup.sh creates.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
status=0
cargo fmt --all -- --check || { echo "lint: cargo fmt found unformatted code (run: cargo fmt --all)" >&2; status=1; }
cargo clippy --workspace --all-targets --locked -q -- -D warnings || { echo "lint: clippy found problems" >&2; status=1; }
.venv/bin/ruff check python tests || { echo "lint: ruff check found problems" >&2; status=1; }
.venv/bin/ruff format --check python tests || { echo "lint: ruff format found unformatted files (run: .venv/bin/ruff format python tests)" >&2; status=1; }
exit $status
