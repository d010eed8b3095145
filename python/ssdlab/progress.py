"""Progress display for long simulations: a bar per job over simulated time, with an ETA, on a
terminal; plain lines in a log (stderr not a terminal), so a run under `nohup`, CI or `tee`
still shows it is alive."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from tqdm import tqdm

#: In a log, a running job gets a line at least this often (wall seconds).
LOG_INTERVAL_S = 30.0


class ProgressBars:
    """Progress of the jobs of a run. On a terminal: one tqdm bar per job on stderr. Otherwise
    (``bars`` false, the default when the stream is not a terminal): one line per finished job,
    and a line at least every `interval_s` wall seconds while a job runs. Silent when
    disabled."""

    def __init__(
        self, enabled: bool = True, stream: TextIO | None = None, bars: bool | None = None, interval_s: float = LOG_INTERVAL_S, position: int | None = None
    ) -> None:
        self.enabled = enabled
        #: The terminal line of this display's bar (several displays side by side, one per
        #: worker of a parallel review); None: tqdm's default.
        self.position = position
        self.stream = stream if stream is not None else sys.stderr
        self.bars = bars if bars is not None else _isatty(self.stream)
        self.interval_s = interval_s
        self._bar: tqdm | None = None
        self._job: str | None = None
        self._started = 0.0
        self._last_line = 0.0
        self._state: tuple[float, float, int] = (0.0, 0.0, 0)
        self._ended: float | None = None

    def __call__(self, job: str, fraction: float, simulated_seconds: float, completed: int) -> None:
        if not self.enabled:
            return
        if not self.bars:
            self._log(job, fraction, simulated_seconds, completed)
            return
        if job != self._job:
            self.close()
            self._job = job
            self._bar = tqdm(
                total=1000,
                desc=job,
                unit="‰",
                file=self.stream,
                leave=False,
                position=self.position,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix} [{elapsed}<{remaining}]",
            )
        assert self._bar is not None
        self._bar.n = int(min(max(fraction, 0.0), 1.0) * 1000)
        self._bar.set_postfix_str(f"sim {simulated_seconds:,.1f} s, {completed:,} IOs", refresh=False)
        self._bar.refresh()
        if fraction >= 1.0:
            self.close()

    def _log(self, job: str, fraction: float, simulated_seconds: float, completed: int) -> None:
        now = time.monotonic()
        if job != self._job:
            self.close()
            # The first report comes after the job's first slice: count from the previous
            # job's end (or from this report, for the first job).
            started = self._ended if self._ended is not None and now - self._ended < self.interval_s else now
            self._job, self._started, self._last_line = job, started, now
        if fraction > 0 or completed:
            self._state = (fraction, simulated_seconds, completed)
        if fraction >= 1.0:
            self.close()
        elif now - self._last_line >= self.interval_s:
            self._last_line = now
            self._line(f"{job}: {fraction * 100:3.0f}%, sim {simulated_seconds:,.1f} s, {completed:,} IOs, {now - self._started:,.0f} s so far")

    def _line(self, text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {text}", file=self.stream, flush=True)

    def close(self) -> None:
        """End the current job's display (in a log: its line, with the wall time it took)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._job is not None and not self.bars and self.enabled:
            fraction, simulated, completed = self._state
            ended = "done" if fraction >= 1.0 else f"stopped at {fraction * 100:.0f}%"
            details = f", sim {simulated:,.1f} s, {completed:,} IOs" if completed else ""
            self._ended = time.monotonic()
            self._line(f"{self._job}: {ended}{details}, {self._ended - self._started:,.1f} s")
        self._job = None
        self._state = (0.0, 0.0, 0)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
