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
VIRTUAL_ENV="$PWD/.venv" .venv/bin/maturin develop --release --quiet --locked
echo "ssdlab is set up: .venv/bin/ssdlab --help"
