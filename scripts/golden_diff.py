#!/usr/bin/env python3
"""Compare two versions of crates/ssdlab-drive/tests/golden/sata_summaries.json and print, per
profile and job, the fields that changed and the largest relative change: the size of a change
made on purpose, for the commit that regenerates the golden file.

Usage: scripts/golden_diff.py OLD.json NEW.json [--top N]
(`git show HEAD:crates/ssdlab-drive/tests/golden/sata_summaries.json > /tmp/old.json`)
"""

from __future__ import annotations

import json
import sys


def leaves(value, path=""):
    """(path, number) of every numeric leaf."""
    if isinstance(value, dict):
        for key, v in value.items():
            yield from leaves(v, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, f"{path}[{i}]")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield path, float(value)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    top = int(argv[argv.index("--top") + 1]) if "--top" in argv else 5
    old, new = (json.load(open(p)) for p in argv[:2])
    worst_overall = 0.0
    for profile in sorted(old):
        for i, (job_old, job_new) in enumerate(zip(old[profile], new.get(profile, []), strict=False)):
            a, b = dict(leaves(job_old)), dict(leaves(job_new))
            changes = []
            for path, x in a.items():
                y = b.get(path)
                if y is None or x == y:
                    continue
                rel = abs(y - x) / abs(x) if x else float("inf")
                changes.append((rel, path, x, y))
            if not changes:
                continue
            changes.sort(reverse=True)
            name = job_old.get("job", "IDLE")
            finite = [c[0] for c in changes if c[0] != float("inf")]
            worst_overall = max(worst_overall, max(finite, default=0.0))
            print(f"{profile} job {i} ({name}): {len(changes)} fields changed, largest {changes[0][0] * 100:.3g}%")
            for rel, path, x, y in changes[:top]:
                print(f"    {path}: {x:g} -> {y:g} ({rel * 100:+.3g}%)" if rel != float("inf") else f"    {path}: {x:g} -> {y:g}")
    print(f"largest relative change of any finite field: {worst_overall * 100:.3g}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
