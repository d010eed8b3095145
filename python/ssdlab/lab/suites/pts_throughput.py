"""SNIA PTS throughput test: 128 KiB and 1024 KiB sequential writes and reads, each block size
from a purged and preconditioned drive, in rounds until the write throughput is in steady state."""

from __future__ import annotations

import pandas as pd

from ssdlab.lab.context import ReviewContext
from ssdlab.lab.pts import charts, procedure
from ssdlab.lab.pts import steady_state as ss
from ssdlab.lab.results import SuiteResult

NAME = "pts-throughput"
TITLE = "SNIA PTS: throughput"
METHOD = (
    "For each block size (1024 KiB, then 128 KiB): purge, WIPC (2 x capacity, 128 KiB sequential), then rounds of "
    "{step} of sequential writes and {step} of sequential reads at that block size, QD32, until the write "
    "throughput is in steady state (5-round window), at most 25 rounds. Throughput is the window's average."
)

BLOCKS = (1 << 20, 128 << 10)

METRICS = {
    "seq_write_1m": "1024 KiB sequential write (steady state)",
    "seq_read_1m": "1024 KiB sequential read (steady state)",
    "seq_write_128k": "128 KiB sequential write (steady state)",
    "seq_read_128k": "128 KiB sequential read (steady state)",
}


def _step(kind: str, block: int, seconds: float, pattern: str) -> procedure.Step:
    rw = "write" if kind == "write" else "read"
    options = (f"rw={rw}", f"bs={block}", f"iodepth={procedure.QUEUE_DEPTH}", f"runtime={seconds:g}", "time_based", pattern)
    return procedure.Step(f"{procedure.block_label(block)} sequential {kind}", options, block, 0 if kind == "write" else 100, sequential=True)


def run(ctx: ReviewContext) -> SuiteResult:
    result = SuiteResult(NAME, TITLE, METHOD.format(step=procedure.step_text(ctx)), METRICS)
    seconds = procedure.step_seconds(ctx)
    pattern = procedure.pattern_option(ctx)
    rows = []
    out = ctx.out_dir / "charts"
    for block in BLOCKS:
        label = procedure.block_label(block)
        drive = ctx.new_drive()
        conditions: list[str] = []
        procedure.purge_and_precondition(ctx, drive, conditions)
        write, read = _step("write", block, seconds, pattern), _step("read", block, seconds, pattern)
        rounds = procedure.run_rounds(ctx, drive, [write, read], lambda r, w=write.label: r[w]["mb_per_s"], f"throughput {label}")
        result.notes.append(procedure.steady_note(f"Throughput {label}", "sequential write MB/s", rounds))
        means = procedure.window_means(rounds)
        by = dict(zip(means["step"], means["mb_per_s"], strict=True))
        reads = rounds.frame[rounds.frame["step"] == read.label]["mb_per_s"].tolist()
        read_window = ss.window(reads, rounds.window.last_round)
        rows.append(
            {
                "block size": label,
                "sequential write MB/s": by[write.label],
                "sequential read MB/s": by[read.label],
                "rounds": len(rounds.tracking),
                "write steady": rounds.steady,
                "read steady (same window)": read_window.steady,
            }
        )
        suffix = "1m" if block == 1 << 20 else "128k"
        result.add(f"seq_write_{suffix}", by[write.label], "MB/s", ctx.pts_pattern, "steady state")
        result.add(f"seq_read_{suffix}", by[read.label], "MB/s", ctx.pts_pattern, "steady state")
        result.charts.append(
            (
                charts.convergence(
                    out / f"pts_tp_{suffix}_convergence.png",
                    ctx.chart_title(f"PTS throughput: convergence, {label}"),
                    rounds.frame,
                    [write.label, read.label],
                    "mb_per_s",
                    "MB/s",
                    rounds.window,
                ),
                f"{label}: steady-state convergence",
            )
        )
        result.charts.append(
            (
                charts.measurement_window(
                    out / f"pts_tp_{suffix}_window.png",
                    ctx.chart_title(f"PTS throughput: {label} sequential write, measurement window"),
                    rounds.tracking,
                    rounds.window,
                    "MB/s",
                    rounds.steady,
                ),
                f"{label}: measurement window of the write throughput",
            )
        )
        result.tables[f"pts_throughput_{suffix}_rounds"] = rounds.frame
        conditions.append(f"rounds: sequential write then read, {seconds:g} s each, QD{procedure.QUEUE_DEPTH}, data {ctx.pts_pattern}")
        result.notes.append(f"Test conditions ({label}): " + "; ".join(conditions) + ".")
    result.tables["pts_throughput"] = pd.DataFrame(rows)
    return result
