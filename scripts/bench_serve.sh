#!/usr/bin/env bash
# Benchmark of the served block device (BENCHMARKS.md, "The drive as a block device"):
#  1. fio over NBD against `ssdlab serve force-gs-240 --latency none` and against `nbdkit memory`
#     in the same run, the same jobs: 4 KiB random write QD32, 4 KiB random read QD32, 128 KiB
#     sequential write QD8 and 128 KiB sequential read QD8, on incompressible and on compressible
#     data; ROUNDS rounds (default 3), each figure the median; the ratio ssdlab / memory. The
#     servers run side by side and every job of every round takes them in turn.
#     With BEFORE_PLUGIN=/path/to/libssdlab_nbd.so, an older build of the plugin runs the same
#     jobs too (a before/after table).
#  2. `--latency emulate` against `ssdlab run --set controller.metadata_writes=false` on the same
#     job and drive state (QD1 4 KiB random reads and QD8 128 KiB sequential reads after the
#     server's own `--precondition seq-fill`, QD32 4 KiB random writes on a fresh drive and in
#     steady state after `--precondition seq-fill --precondition rand-fill`).
#  3. RAM of the server and allocated size of the backing file after 20 GiB written, for
#     force-gs-240 and for the same drive with reduction off (conventional). Where the file
#     system has too little room for 20 GiB of backing file, the 20 GiB are written over a
#     smaller span (named in the line), rewritten until 20 GiB went in.
# Needs nbdkit and fio (Debian packages). Meant for an otherwise idle machine: on a loaded one
# the ratio against nbdkit memory in the same run is the figure that counts.
# Knobs: RUNTIME (s per job, default 20), ROUNDS (3), SPAN (bytes addressed, default 4g),
# PARTS (which of "throughput emulate ram" to run, default all), ONLY_JOBS (throughput jobs to
# run, e.g. "write 128k 8"), BEFORE_PLUGIN, WORKDIR (the folder the backing files, sockets and
# logs go in, default /tmp: /dev/shm puts the backing file in RAM, as `nbdkit memory` keeps its data).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
RUNTIME=${RUNTIME:-20}
ROUNDS=${ROUNDS:-3}
SPAN=${SPAN:-4g}
PARTS=${PARTS:-"throughput emulate ram"}
PLUGIN=$(.venv/bin/python -c "from ssdlab._nbd import PLUGIN; print(PLUGIN)")
work=$(mktemp -d "${WORKDIR:-/tmp}/ssdlab-bench-serve.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

buffers_of() {  # fio options for a data kind
    if [ "$1" = compressible ]; then
        echo "--buffer_compress_percentage=90 --buffer_compress_chunk=4096 --refill_buffers"
    else
        echo "--refill_buffers"
    fi
}

fio_json() {  # URI, fio options...: the job's figures as "iops MB/s mean-latency-us"
    local uri=$1
    shift
    fio --ioengine=nbd --uri="$uri" --name=bench --output-format=json "$@" 2>"$work/fio.err" | python3 -c '
import json, sys
t = sys.stdin.read()
if "{" not in t:
    sys.exit("bench_serve: fio gave no result; its errors:\n" + open(sys.argv[1]).read()[-2000:])
j = json.loads(t[t.index("{"):])["jobs"][0]
r = j["read"] if j["read"]["io_bytes"] > 0 else j["write"]
print("%.0f %.1f %.1f" % (r["iops"], r["bw"] * 1024 / 1e6, r["lat_ns"]["mean"] / 1e3))' "$work/fio.err"
}

JOBS=("randwrite 4k 32" "randread 4k 32" "write 128k 8" "read 128k 8")
# ONLY_JOBS="write 128k 8[,...]": only these jobs of the throughput part (comma-separated).
if [ -n "${ONLY_JOBS:-}" ]; then IFS=',' read -r -a JOBS <<<"$ONLY_JOBS"; fi

start_server() {  # NAME KIND: start a server of KIND (memory, ssdlab, before) on $work/NAME.sock
    local name=$1 kind=$2
    rm -f "$work/$name".*
    case $kind in
        memory) nbdkit --foreground --exit-with-parent --threads 64 -U "$work/$name.sock" memory 240G & ;;
        ssdlab) .venv/bin/ssdlab serve force-gs-240 --backing "$work/$name.img" --socket "$work/$name.sock" >/dev/null 2>&1 & ;;
        before) nbdkit --foreground --exit-with-parent --threads 64 -U "$work/$name.sock" --filter=blocksize-policy "$BEFORE_PLUGIN" \
            profile=force-gs-240 backing="$work/$name.img" latency=none control="$work/$name.control" \
            blocksize-minimum=512 blocksize-preferred=4096 blocksize-maximum=33554432 & ;;
    esac
    server=$!
    while [ ! -S "$work/$name.sock" ]; do sleep 0.2; done
    sleep 0.5
}

stop_server() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
}

extents_line() {  # CONTROL: what the served drive did with its backing file's extents
    .venv/bin/ssdlab stats --socket "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin); e = d["extents"]
print("    extents: %d recycled (emptied blocks), %d given back at erases, %d reused warm, %d reused punched, %d new, %d punched, %d in use, %d warm; data written %d MB direct, %d MB through the page cache"
      % (e["recycled"], e["erased"], e["reused_warm"], e["reused_punched"], e["grown"], e["punched"], e["in_use"], e["warm_now"],
         d["data_direct_write_bytes"] / 1e6, d["data_buffered_write_bytes"] / 1e6))'
}

if [[ " $PARTS " == *" throughput "* ]]; then
    kinds=(memory ssdlab)
    if [ -n "${BEFORE_PLUGIN:-}" ]; then kinds+=(before); fi
    echo "== throughput: fio over NBD, ${RUNTIME} s per job, span $SPAN, median of $ROUNDS rounds (IOPS, MB/s) =="
    for data in incompressible compressible; do
        # shellcheck disable=SC2207
        opts=($(buffers_of $data))
        declare -A result=()
        # Every server runs at once and the rounds take them in turn (round by round, job by
        # job), so a change of the host's state during the run (on this virtual machine: how
        # many of the page cache's fresh pages the host still backs) falls on all of them alike,
        # not on whichever ran last.
        declare -A pid_of=()
        for kind in "${kinds[@]}"; do
            start_server "$kind-$data" "$kind"
            pid_of[$kind]=$server
            # The span written once, so reads read stored data.
            fio_json "nbd+unix:///?socket=$work/$kind-$data.sock" --rw=write --bs=1m --iodepth=8 --size="$SPAN" "${opts[@]}" >/dev/null
        done
        for round in $(seq "$ROUNDS"); do
            for job in "${JOBS[@]}"; do
                set -- $job
                for kind in "${kinds[@]}"; do
                    figures=$(fio_json "nbd+unix:///?socket=$work/$kind-$data.sock" --rw="$1" --bs="$2" --iodepth="$3" --size="$SPAN" --runtime="$RUNTIME" --time_based \
                        --norandommap --randrepeat=0 "${opts[@]}")
                    result["$kind $job"]+="$figures;"
                done
            done
        done
        echo "  ssdlab, $data data, after its rounds:"
        extents_line "$work/ssdlab-$data.img.control" || true
        for kind in "${kinds[@]}"; do
            server=${pid_of[$kind]}
            stop_server
        done
        unset pid_of
        for job in "${JOBS[@]}"; do
            line="$job $data"
            for kind in "${kinds[@]}"; do line+="|$kind=${result["$kind $job"]}"; done
            python3 - "$line" <<'EOF'
import statistics, sys
head, *servers = sys.argv[1].split("|")
rw, bs, qd, data = head.split()
med = {}
for s in servers:
    kind, runs = s.split("=")
    runs = [r.split() for r in runs.strip(";").split(";")]
    med[kind] = (statistics.median(float(r[0]) for r in runs), statistics.median(float(r[1]) for r in runs), [round(float(r[0])) for r in runs])
m = med["memory"][0]
cells = " | ".join(f"{k}: {v[0]:,.0f} IOPS ({v[1]:,.1f} MB/s; rounds {v[2]}) = {v[0] / m:.0%}" for k, v in med.items())
print(f"  {rw} {bs} QD{qd} {data}: {cells}")
EOF
        done
        unset result
    done
fi

if [[ " $PARTS " == *" emulate "* ]]; then
    echo "== --latency emulate on force-gs-240 against ssdlab run (same job, same drive state) =="
    # The drive state comes from the server's own precondition (`serve --precondition`: the
    # simulator's fast-forward, the same steps and seed as `ssdlab run --precondition`), so the
    # steady state of the whole 240 GB drive takes a minute rather than hours over NBD. The
    # simulator runs with metadata writes off, as a served drive keeps its metadata in the file.
    sim() {  # ssdlab run: IOPS of the job (its mean latency to stderr)
        .venv/bin/ssdlab run --quiet --json - --set controller.metadata_writes=false "$@" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("    ssdlab run: %.0f IOPS, mean latency %.1f us" % (d["iops"], d["latency_us"]["mean"]), file=sys.stderr)
print(round(d["iops"]))'
    }
    steps_of() {  # STEPS (comma-separated, or none): --precondition options
        local s
        for s in ${1//,/ }; do [ "$s" = none ] || printf -- '--precondition %s ' "$s"; done
    }
    served_emulated() {  # STEPS fio options of the job: IOPS over NBD, emulated
        local steps=$1
        shift
        rm -f "$work"/emu.*
        # shellcheck disable=SC2046
        .venv/bin/ssdlab serve force-gs-240 --backing "$work/emu.img" --socket "$work/emu.sock" --latency emulate $(steps_of "$steps") >/dev/null 2>&1 &
        server=$!
        local started=$SECONDS
        while [ ! -S "$work/emu.img.control" ]; do sleep 0.2; done
        echo "    server ready after $((SECONDS - started)) s (precondition: $steps)" >&2
        sleep 1 # the transport probe
        local pid cpu0 cpu1
        pid=$(pgrep -f "nbdkit.*emu.sock" | head -1)
        cpu0=$(awk '{print $14 + $15}' /proc/"$pid"/stat)
        fio_json "nbd+unix:///?socket=$work/emu.sock" "$@" --runtime="$RUNTIME" --time_based --refill_buffers | cut -d' ' -f1
        cpu1=$(awk '{print $14 + $15}' /proc/"$pid"/stat)
        echo "    server CPU during the job: $(python3 -c "print(f'{($cpu1 - $cpu0) / $(getconf CLK_TCK) / $RUNTIME:.0%}')") of one core; peak RSS $(awk '/VmHWM/ {print int($2 / 1024)}' /proc/"$pid"/status) MiB" >&2
        .venv/bin/ssdlab stats --socket "$work/emu.img.control" | python3 -c '
import json, sys
d = json.load(sys.stdin); late = d["late_replies"]
print("    simulated %.0f IOPS in the server (mean latency %.1f us); transport round trip %s; late replies %d of %d (mean %.0f us late, max %.0f us; late time %.2f%% of the simulated latency); client gap %d x %.1f us"
      % (d["iops"], d["latency_us"]["mean"], d["transport_round_trip_us"], late["late"], late["answered"], late["mean_late_us"], late["max_late_us"],
         100 * late["late"] * late["mean_late_us"] / max(1e-9, late["answered"] * d["latency_us"]["mean"]), d["client_gap"]["count"], d["client_gap"]["mean_us"]))
print(round(d["client_gap"]["mean_us"] * 1000), file=open(sys.argv[1], "w"))' "$work/gap" >&2
        stop_server
        while [ -S "$work/emu.img.control" ]; do sleep 0.2; done
    }
    compare() {  # LABEL STEPS fio options: the served drive against the simulator
        local label=$1 steps=$2
        shift 2
        local served simulated
        served=$(served_emulated "$steps" "$@")
        # shellcheck disable=SC2046
        simulated=$(sim $(steps_of "$steps") "$@" --runtime="$RUNTIME" --time_based)
        python3 -c "s, m = $served, $simulated; print(f'  $label: served {s:,} IOPS, ssdlab run {m:,} IOPS, {(s - m) / m:+.1%}')"
        if [ "${THINK:-}" = yes ]; then
            # The same loop as the client ran: its measured gap between a reply and its next
            # request as the simulator's thinktime (QD1, where every request measures one).
            # shellcheck disable=SC2046
            simulated=$(sim $(steps_of "$steps") "$@" --runtime="$RUNTIME" --time_based --thinktime="$(cat "$work/gap")ns")
            python3 -c "s, m = $served, $simulated; print(f'  $label, ssdlab run with the client gap as thinktime ($(cat "$work/gap") ns): {m:,} IOPS, served {(s - m) / m:+.1%}')"
        fi
    }
    THINK=yes compare "QD1 4 KiB random read (seq-fill)" seq-fill --rw=randread --bs=4k --iodepth=1 --size="$SPAN"
    compare "QD8 128 KiB sequential read (seq-fill)" seq-fill --rw=read --bs=128k --iodepth=8 --size="$SPAN"
    compare "QD32 4 KiB random write, fresh drive" none --rw=randwrite --bs=4k --iodepth=32 --norandommap --size="$SPAN"
    compare "QD32 4 KiB random write, steady state (seq-fill, rand-fill)" seq-fill,rand-fill --rw=randwrite --bs=4k --iodepth=32 --norandommap --size=100%
fi

if [[ " $PARTS " == *" ram "* ]]; then
    echo "== RAM and backing file after 20 GiB written (force-gs-240, then conventional) =="
    # Backing file bytes per byte written (fio data 50% compressible): measured 0.65 on the
    # data-reduction drive, 1.03 on the conventional one (BENCHMARKS.md, issue 24).
    for drive in "0.65 force-gs-240" "1.03 force-gs-240 --set reduction.enabled=false --set controller.map_cache_bytes=0"; do
        factor=${drive%% *}
        profile=${drive#* }
        rm -f "$work"/rb.img*
        # The span fits the file system's free room (less 3 GiB of margin), at most 20 GiB.
        avail=$(df --output=avail -B1 "$work" | tail -1)
        span_gib=$(python3 -c "print(max(1, min(20, int(($avail / 2**30 - 3) / $factor))))")
        # shellcheck disable=SC2086
        .venv/bin/ssdlab serve $profile --backing "$work/rb.img" >/dev/null 2>&1 &
        server=$!
        # The control socket comes up before nbdkit listens: wait for the data socket too.
        while [ ! -S "$work/rb.img.control" ] || [ ! -S "$work/rb.img.sock" ]; do sleep 0.2; done
        sleep 0.5
        # A failed fill (ENOSPC, say) is reported and the next drive still runs.
        if ! fio --ioengine=nbd --uri="nbd+unix:///?socket=$work/rb.img.sock" --name=fill --rw=write --bs=1m --iodepth=8 --size="${span_gib}g" \
            --io_size=20g --buffer_compress_percentage=50 --buffer_compress_chunk=4096 --refill_buffers >"$work/fill.out" 2>&1; then
            echo "  $profile: the fill failed: $(grep -i -m1 'err' "$work/fill.out" || tail -1 "$work/fill.out")"
        fi
        pid=$(pgrep -f "nbdkit.*rb.img" | head -1)
        rss=$(awk '/VmHWM/ {print $2}' /proc/"$pid"/status)
        alloc=$(($(stat -c %b "$work/rb.img") * 512))
        written=$(.venv/bin/ssdlab stats --socket "$work/rb.img.control" | python3 -c 'import json, sys; print(json.load(sys.stdin)["host_write_bytes"] >> 20)')
        echo "  $profile: peak RSS $((rss / 1024)) MiB ($(python3 -c "print(f'{$rss/1024/256:.2f}')") MiB per raw GiB); backing file allocated $((alloc >> 20)) MiB for $written MiB written over a span of $span_gib GiB (data 50% compressible)"
        extents_line "$work/rb.img.control" || true
        stop_server
        while pgrep -f "nbdkit.*rb.img" >/dev/null; do sleep 0.2; done
    done
fi
