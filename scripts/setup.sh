#!/usr/bin/env bash
# Set up a development environment from the project's own files: a Python virtual environment
# in .venv with the pinned dependencies of requirements.lock, and the Rust extension built in
# release mode and installed into it (editable).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
# nbdkit serves the drive as a block device (`ssdlab serve`); install it where we can.
if ! command -v nbdkit >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nbdkit) >/dev/null 2>&1 \
        || echo "note: nbdkit could not be installed; ssdlab serve will say how" >&2
fi
# Builds the Python extension and, through crates/ssdlab-py/build.rs, the nbdkit plugin.
VIRTUAL_ENV="$PWD/.venv" .venv/bin/maturin develop --release --quiet --locked
echo "ssdlab is set up: .venv/bin/ssdlab --help"
