"""Compare the figures of two reviews' result databases (say a parallel review with
fast-forwarded preconditioning against a serial one with timed preconditioning): the relative
difference of every figure both hold, the worst first. Usage:
    .venv/bin/python scripts/compare_review_dbs.py A/results.sqlite B/results.sqlite [ROWS]
Prints how many figures agree within 1% and the ROWS (default 20) largest differences as a
Markdown table (relative difference = (B - A) / |A|; a figure that is 0 in A and not in B is
shown as inf)."""

import math
import sqlite3
import sys
from pathlib import Path


def figures(path: Path) -> dict[tuple[str, str, str, str], tuple[float, str]]:
    """(suite, metric, pattern, condition) -> (value, unit) of every figure in the database."""
    if not path.is_file():
        sys.exit(f"compare_review_dbs: {path} is not a file")
    try:
        with sqlite3.connect(path) as db:
            rows = db.execute("SELECT suite, metric, pattern, condition, value, unit FROM results").fetchall()
    except sqlite3.DatabaseError as e:
        sys.exit(f"compare_review_dbs: {path} is not a results database ({e})")
    return {(suite, metric, pattern or "", condition or ""): (value, unit or "") for suite, metric, pattern, condition, value, unit in rows}


def relative(a: float | None, b: float | None) -> float:
    """(b - a) / |a|, 0 when both are equal (or both missing or NaN), inf when only a is 0."""
    if a is None or b is None:
        return 0.0 if a is b else math.inf
    if math.isnan(a) or math.isnan(b):
        return 0.0 if math.isnan(a) and math.isnan(b) else math.inf
    if a == b:
        return 0.0
    return (b - a) / abs(a) if a != 0 else math.inf


def main() -> None:
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    a, b = figures(Path(sys.argv[1])), figures(Path(sys.argv[2]))
    try:
        rows = int(sys.argv[3]) if len(sys.argv) == 4 else 20
    except ValueError:
        sys.exit(f"compare_review_dbs: ROWS must be a whole number, not {sys.argv[3]!r}")
    both = sorted(set(a) & set(b))
    diffs = sorted(((relative(a[k][0], b[k][0]), k) for k in both), key=lambda d: (-abs(d[0]), d[1]))
    within = sum(1 for d, _ in diffs if abs(d) <= 0.01)
    exact = sum(1 for d, _ in diffs if d == 0)
    only_a, only_b = len(set(a) - set(b)), len(set(b) - set(a))
    print(f"{len(both)} figures in both ({only_a} only in A, {only_b} only in B): {exact} identical, {within} within 1%, {len(both) - within} beyond")
    print()
    print("| suite | figure | pattern | condition | A | B | B vs A |")
    print("|---|---|---|---|---|---|---|")
    for d, (suite, metric, pattern, condition) in diffs[:rows]:
        (va, unit), (vb, _) = a[suite, metric, pattern, condition], b[suite, metric, pattern, condition]
        print(f"| {suite} | {metric} | {pattern} | {condition} | {va:.6g} {unit} | {vb:.6g} {unit} | {d * 100:+.2f}% |")


if __name__ == "__main__":
    main()
