"""Run today's suites whose preconditioning can be fast-forwarded (sustained, read-span) and the
heat and power-state suites at scale 0.05 with `--precondition-timing fast` and `full`, and
print the figures that differ (docs/todays-drives.md). Usage:
    .venv/bin/python scripts/today_fast_vs_full.py PROFILE [OUT_DIR]"""

import math
import sys
import time
from pathlib import Path

from ssdlab.lab.context import ReviewContext
from ssdlab.lab.suites import power_states, read_span, sustained, thermal


def main() -> None:
    profile = sys.argv[1]
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/today_fast_vs_full")
    modules = [sustained, read_span, thermal, power_states]
    results = {}
    for timing in ("fast", "full"):
        for module in modules:
            ctx = ReviewContext(profile, scale=0.05, out_dir=out / timing / module.NAME, precondition_timing=timing)
            ctx.suite = module.NAME
            start = time.time()
            result = module.run(ctx)
            results[timing, module.NAME] = ({(m.key, m.pattern, m.condition): m.value for m in result.metrics}, time.time() - start)
    for module in modules:
        (fast, fast_s), (full, full_s) = results["fast", module.NAME], results["full", module.NAME]
        differ = [(key, value, full.get(key)) for key, value in fast.items() if not _same(value, full.get(key))]
        differ += [(key, None, value) for key, value in full.items() if key not in fast]
        print(f"{profile} {module.NAME}: {len(fast)} figures, {len(differ)} differ (wall: fast {fast_s:.1f} s, full {full_s:.1f} s)")
        for row in differ:
            print("   ", row)


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    if math.isnan(a) and math.isnan(b):
        return True
    return a == b


if __name__ == "__main__":
    main()
