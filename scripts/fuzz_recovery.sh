#!/usr/bin/env bash
# The long campaign of the recovery fuzzer (crates/ssdlab-serve/tests/fuzz_recovery.rs): the
# corpus in crates/ssdlab-serve/fuzz/seeds.txt, then new seeds for SECONDS (default 600).
# A failure prints its seed; add it to the corpus.
#   bash scripts/fuzz_recovery.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
SSDLAB_FUZZ_SECONDS="${1:-600}" cargo test --release --locked -p ssdlab-serve --test fuzz_recovery -- --nocapture 2>&1 | grep -E "fuzz_recovery:|panicked|seed|rerun|test result"
