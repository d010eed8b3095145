"""Idle power after a torture (issue 21): measured with the firmware's idle GC running, beside
the secure-erased drive's idle power, where idle GC has nothing to do."""

from pathlib import Path

from ssdlab.lab.context import ReviewContext
from ssdlab.lab.suites import power


def test_idle_after_random_writes_pays_for_idle_gc(tmp_path: Path):
    ctx = ReviewContext("force-gs-240", scale=0.05, out_dir=tmp_path)
    ctx.suite = power.NAME
    figures = {m.key: m.value for m in power.run(ctx).metrics}
    fresh = ctx.new_drive().info["idle_watts"]
    print(f"force-gs-240 idle: fresh {figures['idle']:.3f} W, after random writes {figures['idle_after_torture']:.3f} W (idle terms {fresh:.3f} W)")
    # On the erased drive idle power is the model's idle terms alone.
    assert abs(figures["idle"] - fresh) < 1e-9, figures
    # After the torture idle GC works in the idle time, and its energy shows.
    assert figures["idle_after_torture"] > fresh + 0.1, figures
