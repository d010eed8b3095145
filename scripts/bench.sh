#!/usr/bin/env bash
# Benchmarks behind BENCHMARKS.md (not timed tests). Run on an otherwise idle machine.
#
# Every figure is measured twice in the same run: on this tree and on commit $BASE (58da2f5,
# before issue 23), which the script checks out into a temporary worktree and builds, so the
# ratio holds on any machine. It prints a table at the end (also written to $OUT, default
# /tmp/ssdlab-bench.md) with the commands, the load average before each figure and each
# figure's wall time and peak RSS.
#
#   bash scripts/bench.sh                 # everything (about 75 min on the 2-core project machine)
#
# Expected wall times of the parts on the quiet 2-core machine (estimates from the figures in
# BENCHMARKS.md, not measured end to end in one run): steady about 4 min, size about 4 min,
# cli about 5 min, tib about 25 min (58da2f5's extension built for it, about 5 min; its 1 TiB
# run about 8.5 min), review about 30 min (58da2f5's review about 9-12 min, this tree's serial
# review with timed preconditioning about 10 min, the parallel one the rest), engine 1 min.
#   PARTS="steady cli" bash scripts/bench.sh
#
# Parts:
#   steady   steady-state random writes with GC, engine off and on (force-gs-240, the
#            `steady_state` example: fill, 600 simulated s warm-up, 600 s measured), host writes
#            per wall second; engine on / engine off
#   size     the rate at 64 GiB and at 1 TiB raw (conventional drive, fast-forwarded to steady
#            state, 10 M measured writes; this tree only: 58da2f5 cannot reach steady state at
#            1 TiB in reasonable time, see `tib`)
#   tib      `ssdlab run` to steady state (seq-fill + rand-fill) plus 10 M measured 4 KiB random
#            writes on a 1 TiB conventional drive, all-in wall and peak RSS; 4 TiB on this tree
#            (58da2f5 at 4 TiB is not run unless BASE_4TIB=1: about 35 min)
#   cli      the CLI's measured phase against the Rust example on identical simulated work
#   review   the full review of the default drive (`ssdlab review force-gs-240`), this tree's
#            default (suites in parallel, fast-forwarded preconditioning) against 58da2f5; then
#            this tree serially with timed preconditioning, and the largest difference between
#            the two reports' figures
#   engine   real-bytes engine throughput per core (this tree only)
#
# Knobs for a quick check of the script itself (the figures are only comparable at the
# defaults): SS_SECONDS (600), SIZES_GIB ("64 1024"), TIB_GIB ("1024 4096"), MEASURED_IOS
# (10000000), REVIEW_SCALE (1), CLI_IOS (5000000); BASE_TREE (a checkout of $BASE to reuse).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
BASE=${BASE:-58da2f5}
PARTS=${PARTS:-"steady size tib cli review engine"}
OUT=${OUT:-/tmp/ssdlab-bench.md}
SS_SECONDS=${SS_SECONDS:-600}
SIZES_GIB=${SIZES_GIB:-"64 1024"}
TIB_GIB=${TIB_GIB:-"1024 4096"}
MEASURED_IOS=${MEASURED_IOS:-10000000}
REVIEW_SCALE=${REVIEW_SCALE:-1}
CLI_IOS=${CLI_IOS:-5000000}
HERE=$PWD
WORK=$(mktemp -d /tmp/ssdlab-bench-XXXXXX)
# BASE_TREE: an existing checkout of $BASE to reuse (kept); by default a temporary worktree.
KEEP_BASE=${BASE_TREE:+1}
BASE_TREE=${BASE_TREE:-"$WORK/base"}
cleanup() {
    [ -n "$KEEP_BASE" ] || git -C "$HERE" worktree remove --force "$BASE_TREE" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

want() { [[ " $PARTS " == *" $1 "* ]]; }
load() { cut -d' ' -f1 /proc/loadavg; }
started=$(date +%s)
ROWS="$WORK/rows.tsv"
: >"$ROWS"
# row FIGURE | THIS TREE | 58da2f5 | RATIO | COMMAND
# (fields separated by \x1f: a tab is whitespace to `read`, which would merge empty fields)
row() { printf '%s\x1f%s\x1f%s\x1f%s\x1f%s\n' "$@" >>"$ROWS"; }

echo "== building this tree and $BASE (load $(load))"
# The Python environment (a release build of the extension) only for the parts that use it.
if want tib || want review || want cli; then
    bash scripts/setup.sh >/dev/null
fi
cargo build --release --locked -q -p ssdlab-drive --example steady_state --example steady_state_ff --example engine_throughput
[ -n "$KEEP_BASE" ] || git worktree add --detach "$BASE_TREE" "$BASE" >/dev/null 2>&1
(cd "$BASE_TREE" && cargo build --release --locked -q -p ssdlab-drive --example steady_state)
if want tib || want review; then
    (cd "$BASE_TREE" && bash scripts/setup.sh >/dev/null)
fi
NEW_SS=./target/release/examples/steady_state
OLD_SS="$BASE_TREE/target/release/examples/steady_state"

# timed CMD...: runs CMD, prints its stdout, and sets WALL (s) and RSS_MIB from /usr/bin/time.
timed() {
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" >"$WORK/stdout"
    cat "$WORK/stdout"
    read -r WALL RSS_KIB <"$WORK/time"
    RSS_MIB=$((RSS_KIB / 1024))
}
# rate LINE: host writes per wall second from the steady_state example's "random write:" line.
rate() { grep '^random write:' "$WORK/stdout" | sed -E 's/.*, ([0-9]+) host writes per wall second/\1/'; }
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{a / b:.2f}x' if b else '-')" "$1" "$2"; }
# Sizes of the conventional drive (conventional-240: 2048 blocks per plane, 256 GiB raw, 240 GB user).
conv_sets() { # RAW_GIB -> --set options
    local bpp=$((2048 * $1 / 256))
    local user=$((240000000000 * $1 / 256 / 4096 * 4096))
    echo "--set nand.blocks_per_plane=$bpp --set drive.capacity_bytes_user=$user"
}
conv_overrides() { conv_sets "$1" | sed 's/--set //g'; }

if want steady; then
    for engine in off on; do
        extra=(); [ $engine = off ] && extra=(reduction.enabled=false)
        echo "== steady state, engine $engine: force-gs-240, fill, $SS_SECONDS s warm-up, $SS_SECONDS s measured (load $(load))"
        timed "$NEW_SS" force-gs-240 "$SS_SECONDS" random "${extra[@]}"; new=$(rate); new_rss=$RSS_MIB
        timed "$OLD_SS" force-gs-240 "$SS_SECONDS" random "${extra[@]}"; old=$(rate)
        row "steady-state host writes per wall second, engine $engine (force-gs-240)" "$new" "$old" "$(ratio "$new" "$old")" \
            "examples/steady_state force-gs-240 $SS_SECONDS random ${extra[*]}"
        row "  peak RSS, engine $engine" "${new_rss} MiB" "${RSS_MIB} MiB" "" ""
        eval "rate_$engine=$new; old_rate_$engine=$old"
    done
    row "engine on / engine off" "$(ratio "$rate_on" "$rate_off")" "$(ratio "$old_rate_on" "$old_rate_off")" "" "(target: this tree at least 0.65x)"
fi

if want size; then
    set -- $SIZES_GIB
    first_gib=$1; last_gib=${!#}
    for gib in $SIZES_GIB; do
        echo "== steady-state rate at $gib GiB raw (conventional drive, fast-forwarded preconditioning; load $(load))"
        timed ./target/release/examples/steady_state_ff conventional-240 "$MEASURED_IOS" $(conv_overrides $gib)
        r=$(grep '^measured:' "$WORK/stdout" | sed -E 's/.*= ([0-9.]+) million host writes per wall second/\1/')
        eval "size_$gib=$r"
        row "steady-state rate at $gib GiB raw, million host writes per wall second" "$r" "not run" "" "examples/steady_state_ff conventional-240 $MEASURED_IOS $(conv_overrides $gib)"
    done
    last=size_$last_gib; first=size_$first_gib
    row "rate at $last_gib GiB / rate at $first_gib GiB" "$(ratio "${!last}" "${!first}")" "" "" "(target: within 10%)"
fi

if want tib; then
    for gib in $TIB_GIB; do
        cmd=(ssdlab run --profile conventional-240 $(conv_sets $gib) --precondition seq-fill --precondition rand-fill
            --rw=randwrite --bs=4k --iodepth=32 --number_ios=$MEASURED_IOS --quiet --json "$WORK/tib.json")
        echo "== ${cmd[*]} (load $(load))"
        timed .venv/bin/"${cmd[@]}"; new_wall=$WALL; new_rss=$RSS_MIB
        old_wall="not run"; old_rss=""
        if [ "$gib" -le 1024 ] || [ "${BASE_4TIB:-0}" = 1 ]; then
            timed "$BASE_TREE/.venv/bin/${cmd[0]}" "${cmd[@]:1}"; old_wall=$WALL; old_rss="$RSS_MIB MiB"
        fi
        row "steady state at $gib GiB raw + $MEASURED_IOS measured writes, all-in wall s" "$new_wall" "$old_wall" "$(ratio "$old_wall" "$new_wall" 2>/dev/null || true)" "${cmd[*]}"
        row "  peak RSS per raw GiB" "$(python3 -c "print(f'{$new_rss / $gib:.2f} MiB')")" "${old_rss:+$(python3 -c "print(f'{${old_rss% MiB} / $gib:.2f} MiB')")}" "" ""
    done
fi

if want cli; then
    echo "== the CLI's measured phase against the Rust example on identical work (load $(load))"
    for i in 1 2 3; do
        timed ./target/release/examples/steady_state_ff conventional-240 "$CLI_IOS" $(conv_overrides 64)
        example=$(grep '^measured:' "$WORK/stdout" | sed -E 's/.*, ([0-9.]+) s wall.*/\1/')
        .venv/bin/ssdlab run --quiet --profile conventional-240 $(conv_sets 64) --precondition seq-fill --precondition rand-fill \
            --rw=randwrite --bs=4k --iodepth=32 --number_ios="$CLI_IOS" --json "$WORK/cli.json"
        cli=$(python3 -c "import json; print(round(json.load(open('$WORK/cli.json'))['wall_seconds'], 2))")
        row "measured phase of $CLI_IOS writes at 64 GiB (conventional), CLI / Rust example wall, round $i" "$cli / $example s" "" "$(ratio "$cli" "$example")" \
            "ssdlab run --profile conventional-240 $(conv_sets 64) --precondition seq-fill --precondition rand-fill --rw=randwrite --bs=4k --iodepth=32 --number_ios=$CLI_IOS"
    done
fi

if want review; then
    echo "== full review of the default drive: this tree (default: parallel, fast-forward) (load $(load))"
    timed .venv/bin/ssdlab review force-gs-240 --scale "$REVIEW_SCALE" --out "$WORK/review-new" --quiet; new_wall=$WALL; new_rss=$RSS_MIB
    echo "== the same on $BASE (load $(load))"
    timed "$BASE_TREE/.venv/bin/ssdlab" review force-gs-240 --scale "$REVIEW_SCALE" --out "$WORK/review-old" --quiet; old_wall=$WALL
    row "full review of force-gs-240 (scale $REVIEW_SCALE), wall s" "$new_wall" "$old_wall" "$(ratio "$old_wall" "$new_wall")" "ssdlab review force-gs-240 --quiet (target: this tree under 240 s)"
    row "  peak RSS of the largest process" "$new_rss MiB" "$RSS_MIB MiB" "" ""
    echo "== this tree serially with timed preconditioning (load $(load))"
    timed .venv/bin/ssdlab review force-gs-240 --scale "$REVIEW_SCALE" --out "$WORK/review-serial" --jobs 1 --precondition-timing full --quiet
    diff=$(.venv/bin/python - "$WORK/review-new/results.sqlite" "$WORK/review-serial/results.sqlite" <<'PY'
import sqlite3, sys
def rows(path):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT suite, metric, pattern, condition, value FROM results ORDER BY rowid").fetchall()
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert [r[:4] for r in a] == [r[:4] for r in b], "the two reviews recorded different figures"
worst = max((abs(x[4] - y[4]) / abs(y[4]) if y[4] else abs(x[4]), x[:4]) for x, y in zip(a, b))
print(f"{len(a)} figures, largest difference {worst[0] * 100:.4f}% ({' / '.join(map(str, worst[1]))})")
PY
)
    row "review figures: parallel + fast-forward vs serial + timed preconditioning" "$diff" "" "" "ssdlab review force-gs-240 --jobs 1 --precondition-timing full (serial: $WALL s)"
fi

if want engine; then
    echo "== real-bytes engine throughput per core (load $(load))"
    ./target/release/examples/engine_throughput
fi

total=$(($(date +%s) - started))
{
    echo "## scripts/bench.sh: this tree ($(git -C "$HERE" rev-parse --short HEAD)) beside $BASE, same run"
    echo
    echo "$(lscpu | grep 'Model name' | sed 's/  */ /g'), $(nproc) cores; whole script $((total / 60)) min $((total % 60)) s; load average at the end $(load)"
    echo
    echo "| figure | this tree | $BASE | ratio | command |"
    echo "|---|---|---|---|---|"
    while IFS=$'\x1f' read -r a b c d e; do echo "| $a | $b | $c | $d | \`$e\` |"; done <"$ROWS"
} | tee "$OUT"
