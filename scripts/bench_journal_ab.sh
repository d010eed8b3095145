#!/usr/bin/env bash
# What the power-loss journal costs a served drive (BENCHMARKS.md, "Power loss"): the nbdkit
# plugin of BASE (default 38e893c, the last commit before the journal) against the working
# tree's, the same fio jobs interleaved, each on a fresh backing file, 20 s each.
#   bash scripts/bench_journal_ab.sh [BASE]
# Needs nbdkit and fio (Debian packages). Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
base=${1:-38e893c}
work=$(mktemp -d /tmp/ssdlab-ab.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; git worktree remove --force "$work/base" 2>/dev/null || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/base" "$base"
(cd "$work/base" && cargo build --release -q -p ssdlab-nbd)
cargo build --release -q -p ssdlab-nbd
before="$work/base/target/release/libssdlab_nbd.so"
after="$PWD/target/release/libssdlab_nbd.so"
run() {  # plugin fio-args...
    local so=$1; shift
    rm -f "$work/d.img" "$work/d.sock"
    nbdkit --foreground --threads 64 -U "$work/d.sock" --filter=blocksize-policy "$so" profile=force-gs-240 backing="$work/d.img" \
        blocksize-minimum=512 blocksize-preferred=4096 blocksize-maximum=33554432 2>/dev/null &
    local pid=$!
    while [ ! -S "$work/d.sock" ]; do sleep 0.1; done
    fio --ioengine=nbd --uri="nbd+unix:///?socket=$work/d.sock" --name=ab --size=16g --runtime=20 --time_based --norandommap --randrepeat=0 "$@" \
        --output-format=json 2>/dev/null \
        | python3 -c "import json,sys; t=sys.stdin.read(); w=json.loads(t[t.index('{'):])['jobs'][0]['write']; print(f'{w[\"iops\"]:,.0f} IOPS')"
    kill $pid
    wait $pid 2>/dev/null || true
}
for job in "--rw=randwrite --bs=4k --iodepth=32" "--rw=write --bs=1m --iodepth=8"; do
    for data in compressible incompressible; do
        extra=()
        if [ $data = compressible ]; then extra=(--buffer_compress_percentage=90 --buffer_compress_chunk=4096 --refill_buffers); fi
        a=$(run "$before" $job "${extra[@]}")
        b=$(run "$after" $job "${extra[@]}")
        echo "$job $data: $base $a; working tree $b"
    done
done
