"""Steps every PTS test shares: purge, workload-independent preconditioning (WIPC), rounds of
workload-dependent preconditioning until steady state (WDPC), the data pattern and progress.

Decisions where the specification leaves room or the drive cannot follow it (docs/pts.md):
- Purge is the drive's ATA SECURE ERASE.
- WIPC writes twice the user capacity in 128 KiB sequential writes (two whole passes).
- Outstanding IO: the enterprise edition asks for 4 threads x QD32; a SATA drive queues at most
  32 commands (NCQ), so the tests run one job at QD32 (latency: QD1, as specified).
- Data: random (incompressible) by default, as the specification requires; ``--pattern``
  picks a compressible one (text, repeating) for data-reduction drives.
- Each round step runs for 60 simulated seconds (scaled in shortened runs, at least 5 s, so a
  queue of 32 large commands reaches its steady flow within the step).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from ssdlab.drive import Drive, RunResult
from ssdlab.lab.context import ReviewContext, duration_text
from ssdlab.lab.pts import steady_state as ss

#: Data patterns a PTS run may use: the specification's (random) and compressible variants.
PATTERNS = ("random", "text", "repeating")
#: Commands in flight for the IOPS, throughput, WSAT and HIR tests (the SATA NCQ limit).
QUEUE_DEPTH = 32
#: Simulated seconds of each step of a round, at full scale.
STEP_SECONDS = 60.0


def pattern_option(ctx: ReviewContext) -> str:
    """The fio option that sets the review's PTS data pattern."""
    return f"data_pattern={ctx.pts_pattern}"


def step_seconds(ctx: ReviewContext) -> float:
    """Duration of one step of a round (a minute, scaled)."""
    return ctx.seconds(STEP_SECONDS, minimum=5.0)


def step_text(ctx: ReviewContext) -> str:
    """How long each step of a round ran, for the method text: "one minute" (the specification's)
    at full scale, else this run's ("5 s")."""
    seconds = step_seconds(ctx)
    return "one minute" if seconds == STEP_SECONDS else duration_text(seconds)


class Phase:
    """Progress of one phase made of many short jobs: one bar over the whole phase."""

    def __init__(self, ctx: ReviewContext, name: str, steps: int) -> None:
        self.ctx, self.name, self.steps, self.done = ctx, name, max(1, steps), 0

    def callback(self, _job: str, fraction: float, simulated_seconds: float, completed: int) -> None:
        if self.ctx.progress is not None:
            label = f"{self.ctx.suite}: {self.name}" if self.ctx.suite else self.name
            whole = min(1.0, (self.done + min(fraction, 0.999)) / self.steps)
            self.ctx.progress(label, whole, simulated_seconds, completed)

    def run(self, drive: Drive, options: Sequence[str], name: str) -> RunResult:
        result = drive.run(list(options), name=name, progress=self.callback)
        self.done += 1
        return result

    def precondition(self, drive: Drive, options: Sequence[str], name: str) -> dict:
        """A step of the phase whose timing is not measured (see `ReviewContext.precondition`)."""
        summary = self.ctx.precondition(drive, list(options), name, progress=self.callback)
        self.done += 1
        return summary

    def finish(self) -> None:
        if self.ctx.progress is not None:
            label = f"{self.ctx.suite}: {self.name}" if self.ctx.suite else self.name
            self.ctx.progress(label, 1.0, 0.0, 0)


def purge_and_precondition(ctx: ReviewContext, drive: Drive, conditions: list[str]) -> None:
    """Purge (secure erase), then WIPC: twice the user capacity in 128 KiB sequential writes."""
    drive.secure_erase()
    phase = Phase(ctx, "purge and WIPC (2 x capacity, 128 KiB sequential)", 2)
    for i in range(2):
        phase.precondition(drive, ["rw=write", "bs=128k", f"iodepth={QUEUE_DEPTH}", pattern_option(ctx)], f"WIPC pass {i + 1}")
    phase.finish()
    conditions.append("purge: ATA SECURE ERASE")
    conditions.append(f"WIPC: 2 x user capacity ({2 * drive.info['capacity_bytes_user'] / 1e9:,.1f} GB) of 128 KiB sequential writes at QD{QUEUE_DEPTH}")


@dataclass(frozen=True)
class Step:
    """One step of a round: a label, its fio options and its coordinates (block size, mix)."""

    label: str
    options: tuple[str, ...]
    block_bytes: int
    read_percent: int
    sequential: bool = False


def random_step(block_bytes: int, read_percent: int, seconds: float, iodepth: int, pattern: str) -> Step:
    """A random-access step at this block size and R/W mix."""
    rw = "randread" if read_percent == 100 else "randwrite" if read_percent == 0 else "randrw"
    options = [f"rw={rw}", f"bs={block_bytes}", f"iodepth={iodepth}", f"runtime={seconds:g}", "time_based", pattern]
    if rw == "randrw":
        options.append(f"rwmixread={read_percent}")
    return Step(f"{block_label(block_bytes)} {read_percent}/{100 - read_percent}", tuple(options), block_bytes, read_percent)


def block_label(block_bytes: int) -> str:
    """0.5 KiB, 4 KiB, 1024 KiB: the specification's names for block sizes."""
    kib = block_bytes / 1024
    return f"{kib:g} KiB"


@dataclass
class Rounds:
    """What the rounds of a test measured: one row per step per round, the tracking variable
    per round, and the measurement window (steady or, after the last round, not)."""

    frame: pd.DataFrame
    tracking: list[float]
    window: ss.Window
    steady: bool


def summary_row(summary: dict) -> dict:
    """The figures a PTS table reports for one step."""
    lat = summary["latency_us"]
    return {
        "iops": summary["iops"],
        "mb_per_s": (summary["host_read_bytes"] + summary["host_write_bytes"]) / max(summary["simulated_seconds"], 1e-12) / 1e6,
        "read_mb_per_s": summary["read_mbps"],
        "write_mb_per_s": summary["write_mbps"],
        "latency_mean_us": lat["mean"],
        "latency_max_us": lat["max"],
        "latency_p99_us": lat["p99"],
        "latency_p999_us": lat["p999"],
        "write_amplification": summary["write_amplification"],
    }


def run_rounds(
    ctx: ReviewContext,
    drive: Drive,
    steps: Sequence[Step],
    tracking: Callable[[dict[str, dict]], float],
    name: str,
    max_rounds: int = ss.MAX_ROUNDS,
) -> Rounds:
    """Rounds of `steps` until the tracking variable (computed from one round's rows, keyed
    by step label) is in steady state over the last 5 rounds, or `max_rounds` rounds."""
    rows: list[dict] = []
    values: list[float] = []
    window = None
    for round_number in range(1, max_rounds + 1):
        phase = Phase(ctx, f"{name}: round {round_number} (at most {max_rounds})", len(steps))
        this_round: dict[str, dict] = {}
        for step in steps:
            result = phase.run(drive, step.options, f"{name} {step.label}")
            row = {"round": round_number, "step": step.label, "block_bytes": step.block_bytes, "read_percent": step.read_percent}
            row.update(summary_row(result.summary))
            rows.append(row)
            this_round[step.label] = row
        phase.finish()
        values.append(float(tracking(this_round)))
        if round_number >= ss.WINDOW_ROUNDS:
            window = ss.window(values)
            if window.steady:
                return Rounds(pd.DataFrame(rows), values, window, True)
    if window is None:  # fewer rounds than a window (only with max_rounds < 5)
        window = ss.window(values, rounds=len(values)) if len(values) >= 2 else ss.Window(1, 1, values[0], 0.0, 0.0, values[0], 0.0)
    return Rounds(pd.DataFrame(rows), values, window, False)


def window_means(rounds: Rounds) -> pd.DataFrame:
    """Each step's figures averaged over the measurement window (maximum latency: the largest)."""
    w = rounds.window
    inside = rounds.frame[(rounds.frame["round"] >= w.first_round) & (rounds.frame["round"] <= w.last_round)]
    means = inside.groupby(["step", "block_bytes", "read_percent"], sort=False).mean(numeric_only=True).reset_index()
    means["latency_max_us"] = inside.groupby(["step", "block_bytes", "read_percent"], sort=False)["latency_max_us"].max().to_numpy()
    return means.drop(columns=["round"])


def random_rounds_test(
    ctx: ReviewContext,
    notes: list[str],
    name: str,
    mixes: Sequence[int],
    blocks: Sequence[int],
    iodepth: int,
    tracking: Callable[[dict[str, dict]], float],
    tracking_name: str,
) -> tuple[Rounds, pd.DataFrame]:
    """The IOPS and latency tests' procedure: a fresh drive, purge, WIPC, then rounds of random
    steps (R/W mix outer, block size inner, in the given orders) at `iodepth` until
    `tracking` is in steady state. Appends the convergence sentence and the test conditions to
    `notes`; returns the rounds and each step's measurement-window figures."""
    drive = ctx.new_drive()
    conditions: list[str] = []
    purge_and_precondition(ctx, drive, conditions)
    seconds = step_seconds(ctx)
    steps = [random_step(b, m, seconds, iodepth, pattern_option(ctx)) for m in mixes for b in blocks]
    rounds = run_rounds(ctx, drive, steps, tracking, name)
    conditions.append(f"WDPC and measurement: {len(steps)} steps of {seconds:g} s per round, random IO at QD{iodepth}, data {ctx.pts_pattern}")
    notes.append(steady_note(name, tracking_name, rounds))
    notes.append("Test conditions: " + "; ".join(conditions) + ".")
    return rounds, window_means(rounds)


def mix_by_block(means: pd.DataFrame, mixes: Sequence[int], blocks: Sequence[int], column: str) -> pd.DataFrame:
    """One window figure as a table: a row per R/W mix ("65/35"), a column per block size."""
    table = means.pivot_table(index="read_percent", columns="block_bytes", values=column, sort=False).reindex(index=list(mixes), columns=list(blocks))
    table.index = pd.Index([f"{m}/{100 - m}" for m in mixes], name="R/W mix")
    table.columns = pd.Index([block_label(b) for b in blocks], name="block size")
    return table


def steady_note(name: str, tracking_name: str, rounds: Rounds) -> str:
    """The sentence the report gives about convergence."""
    w = rounds.window
    facts = (
        f"measurement window rounds {w.first_round}-{w.last_round}: average {w.average:,.1f}, data excursion "
        f"{w.data_excursion / abs(w.average) * 100 if w.average else 0:.1f}% of it (limit 20%), best-fit excursion "
        f"{w.slope_excursion / abs(w.average) * 100 if w.average else 0:.1f}% (limit 10%)"
    )
    if rounds.steady:
        return f"{name}: steady state on {tracking_name} reached in round {w.last_round}; {facts}."
    return f"{name}: NOT in steady state on {tracking_name} after {len(rounds.tracking)} rounds; the last 5 rounds are reported ({facts})."
