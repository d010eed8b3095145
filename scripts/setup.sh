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
    echo "setup: installing the Debian package nbdkit with apt-get (for ssdlab serve)" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nbdkit) >/dev/null 2>&1 \
        || echo "note: nbdkit could not be installed; ssdlab serve will say how" >&2
fi
# Builds the Python extension and, through crates/ssdlab-py/build.rs, the nbdkit plugin. Its
# output goes to a log, shown only when the build fails.
echo "setup: building the Rust extension (release; a few minutes the first time)" >&2
mkdir -p target
log=target/setup-maturin.log
if ! VIRTUAL_ENV="$PWD/.venv" .venv/bin/maturin develop --release --quiet --locked >"$log" 2>&1; then
    cat "$log" >&2
    echo "setup: building the extension failed (output above, also in $log)" >&2
    exit 1
fi
echo "ssdlab is set up: .venv/bin/ssdlab --help"
