#!/usr/bin/env bash
# Benchmark of the served block device (BENCHMARKS.md, "The drive as a block device"):
#  1. fio over NBD against `ssdlab serve force-gs-240 --latency none` and against `nbdkit memory`
#     (the same jobs, the same script run): 4 KiB random writes at QD32 and 1 MiB sequential
#     writes at QD8, compressible and incompressible data;
#  2. RAM of the server and allocated size of the backing file after 20 GiB written.
# Needs nbdkit and fio (Debian packages). Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
work=$(mktemp -d /tmp/ssdlab-bench-serve.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

jobs_for() {  # fio jobs against URI, printing IOPS and MB/s
    local uri=$1
    for data in compressible incompressible; do
        local buffers=()
        if [ "$data" = compressible ]; then buffers=(--buffer_compress_percentage=90 --buffer_compress_chunk=4096 --refill_buffers); fi
        for job in "randwrite 4k 32" "write 1m 8"; do
            set -- $job
            fio --ioengine=nbd --uri="$uri" --name=bench --rw="$1" --bs="$2" --iodepth="$3" --size=16g --runtime=20 --time_based \
                --norandommap --randrepeat=0 "${buffers[@]}" --output-format=json 2>/dev/null \
                | python3 -c "import json,sys; t=sys.stdin.read(); w=json.loads(t[t.index('{'):])['jobs'][0]['write']; print(f'  $1 bs=$2 QD$3 $data: {w[\"iops\"]:,.0f} IOPS, {w[\"bw\"]*1024/1e6:,.1f} MB/s')"
        done
    done
}

echo "== nbdkit memory 240G (reference) =="
nbdkit --foreground --exit-with-parent --threads 64 -U "$work/mem.sock" memory 240G &
mem=$!
sleep 1
jobs_for "nbd+unix:///?socket=$work/mem.sock"
kill $mem; wait $mem 2>/dev/null || true

echo "== ssdlab serve force-gs-240 --latency none =="
.venv/bin/ssdlab serve force-gs-240 --backing "$work/gs.img" >/dev/null 2>&1 &
server=$!
while [ ! -S "$work/gs.img.control" ]; do sleep 0.2; done
jobs_for "nbd+unix:///?socket=$work/gs.img.sock"
started=$(date +%s)
kill $server; wait $server 2>/dev/null || true
echo "  clean stop (state saved): $(( $(date +%s) - started )) s"

echo "== RAM and backing file after 20 GiB written (force-gs-240, then conventional) =="
for profile in "force-gs-240" "force-gs-240 --set reduction.enabled=false --set controller.map_cache_bytes=0"; do
    rm -f "$work"/rb.img*
    # shellcheck disable=SC2086
    .venv/bin/ssdlab serve $profile --backing "$work/rb.img" >/dev/null 2>&1 &
    server=$!
    while [ ! -S "$work/rb.img.control" ]; do sleep 0.2; done
    fio --ioengine=nbd --uri="nbd+unix:///?socket=$work/rb.img.sock" --name=fill --rw=write --bs=1m --iodepth=8 --size=20g \
        --buffer_compress_percentage=50 --buffer_compress_chunk=4096 --refill_buffers >/dev/null 2>&1
    pid=$(pgrep -f "nbdkit.*rb.img" | head -1)
    rss=$(awk '/VmHWM/ {print $2}' /proc/$pid/status)
    alloc=$(( $(stat -c %b "$work/rb.img") * 512 ))
    echo "  $profile: peak RSS $((rss / 1024)) MiB ($(python3 -c "print(f'{$rss/1024/256:.2f}')") MiB per raw GiB); backing file allocated $((alloc >> 20)) MiB for 20480 MiB written (data 50% compressible)"
    kill $server; wait $server 2>/dev/null || true
done
