"""The steady-state rule of the SNIA Solid State Storage Performance Test Specification (PTS,
enterprise and client editions, v2.0.x, definition 2.1.24 and each test's "steady state
convergence" step).

For the tracking variable y, over a measurement window of consecutive rounds (5 in every PTS
test), the device is in steady state when both hold:

a) range: Max(y) - Min(y) within the window is no more than 20% of Ave(y) within the window;
b) slope: Max(y) - Min(y) of the best linear fit of y over the window (least squares, y against
   round number), i.e. |slope| x (rounds in the window - 1), is within 10% of Ave(y).

A test runs rounds until the last 5 rounds satisfy both, or until 25 rounds; a test that never
gets there reports its last 5 rounds as the measurement window and says it did not reach
steady state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Rounds in a measurement window.
WINDOW_ROUNDS = 5
#: Rounds after which a test stops without steady state.
MAX_ROUNDS = 25
#: Largest allowed data excursion (max - min) as a fraction of the window's average.
RANGE_LIMIT = 0.20
#: Largest allowed excursion of the best-fit line over the window as a fraction of the average.
SLOPE_LIMIT = 0.10


@dataclass(frozen=True)
class Window:
    """A measurement window and how it stands against the rule."""

    #: First and last round of the window (1-based, inclusive).
    first_round: int
    last_round: int
    average: float
    #: Max(y) - Min(y) of the data in the window.
    data_excursion: float
    #: Slope of the least-squares line through (round, y), per round.
    slope: float
    #: Intercept of that line (its value at round 0).
    intercept: float
    #: Max - Min of the line over the window: |slope| x (rounds - 1).
    slope_excursion: float

    @property
    def range_ok(self) -> bool:
        """Rule (a): the data excursion is no more than 20% of the average."""
        return self.data_excursion <= RANGE_LIMIT * abs(self.average)

    @property
    def slope_ok(self) -> bool:
        """Rule (b): the best-fit line's excursion is within 10% of the average."""
        return self.slope_excursion <= SLOPE_LIMIT * abs(self.average)

    @property
    def steady(self) -> bool:
        """Both rules hold (and the average is not zero: a dead drive is not in steady state)."""
        return self.average != 0 and self.range_ok and self.slope_ok


def window(values: Sequence[float], last_round: int | None = None, rounds: int = WINDOW_ROUNDS) -> Window:
    """The measurement window of `rounds` rounds ending at `last_round` (1-based; default the
    last value) of the tracking variable's per-round `values`."""
    end = len(values) if last_round is None else last_round
    if rounds < 2 or end < rounds or end > len(values):
        raise ValueError(f"a window of {rounds} rounds ending at round {end} needs that many values (have {len(values)})")
    ys = [float(v) for v in values[end - rounds : end]]
    xs = list(range(end - rounds + 1, end + 1))
    n = len(ys)
    mean_x = sum(xs) / n
    mean_y = sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    return Window(
        first_round=xs[0],
        last_round=xs[-1],
        average=mean_y,
        data_excursion=max(ys) - min(ys),
        slope=slope,
        intercept=mean_y - slope * mean_x,
        slope_excursion=abs(slope) * (xs[-1] - xs[0]),
    )


def first_steady_window(values: Sequence[float], rounds: int = WINDOW_ROUNDS) -> Window | None:
    """The first window (in round order) that satisfies the rule, or None."""
    for end in range(rounds, len(values) + 1):
        w = window(values, end, rounds)
        if w.steady:
            return w
    return None
