"""Progress display for long simulations: a bar per job over simulated time, with an ETA."""

from __future__ import annotations

import sys

from tqdm import tqdm


class ProgressBars:
    """Shows one tqdm bar per job on stderr; silent when disabled or when stderr is not a
    terminal and ``force`` is not set."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._bar: tqdm | None = None
        self._job: str | None = None

    def __call__(self, job: str, fraction: float, simulated_seconds: float, completed: int) -> None:
        if not self.enabled:
            return
        if job != self._job:
            self.close()
            self._job = job
            self._bar = tqdm(
                total=1000,
                desc=job,
                unit="‰",
                file=sys.stderr,
                leave=False,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix} [{elapsed}<{remaining}]",
            )
        assert self._bar is not None
        self._bar.n = int(min(max(fraction, 0.0), 1.0) * 1000)
        self._bar.set_postfix_str(f"sim {simulated_seconds:,.1f} s, {completed:,} IOs", refresh=False)
        self._bar.refresh()
        if fraction >= 1.0:
            self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            self._job = None
