"""Where a review's wall and CPU go: run `ssdlab` (say `review force-gs-240 --quiet --out DIR`)
with each pool job wrapped in cProfile and timed (start, end, CPU seconds from getrusage), and
the parent under cProfile too. Usage:
    PROFILE_DIR=/tmp/prof .venv/bin/python scripts/profile_review.py review force-gs-240 --out /tmp/r --quiet
Writes PROFILE_DIR/jobs.jsonl (one line per job), a `.prof` file per job and `parent.prof`, then
prints each job's start, end, wall and CPU seconds and the share of its wall spent fast-forwarding
(in `advance_fast_forward`). A measurement aid: the review's results are those of `ssdlab`."""

import time

STARTED = time.time()

import cProfile  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import pstats  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402

OUT = os.environ.get("PROFILE_DIR", "/tmp/ssdlab-review-profile")
FAST_FORWARD = "<method 'advance_fast_forward' of 'ssdlab._native.NativeDrive' objects>"


def _tag(suite: str, part: str | None) -> str:
    return f"{suite}-{part}".replace(" ", "_").replace("%", "pct")


def profiled_work(fields, suite, part, progress):
    """`ssdlab.lab.parallel._work` under cProfile, its times appended to jobs.jsonl."""
    from ssdlab.lab import parallel

    t0, r0 = time.time(), resource.getrusage(resource.RUSAGE_SELF)
    profile = cProfile.Profile()
    profile.enable()
    try:
        return getattr(parallel, "ORIGINAL_WORK", parallel._work)(fields, suite, part, progress)
    finally:
        profile.disable()
        t1, r1 = time.time(), resource.getrusage(resource.RUSAGE_SELF)
        profile.dump_stats(f"{OUT}/{_tag(suite, part)}.prof")
        cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
        with open(f"{OUT}/jobs.jsonl", "a") as f:
            f.write(json.dumps({"suite": suite, "part": part, "t0": t0, "t1": t1, "cpu": cpu, "pid": os.getpid()}) + "\n")


def report(started: float, ended: float) -> None:
    """Each job's times, by start."""
    jobs = sorted((json.loads(line) for line in open(f"{OUT}/jobs.jsonl")), key=lambda j: j["t0"])
    print(f"wall {ended - started:.1f} s; first job starts at {jobs[0]['t0'] - started:.1f} s, the last ends at {max(j['t1'] for j in jobs) - started:.1f} s")
    print("| job | part | start s | end s | wall s | CPU s | fast-forward share of wall |")
    print("|---|---|---|---|---|---|---|")
    for j in jobs:
        stats = pstats.Stats(f"{OUT}/{_tag(j['suite'], j['part'])}.prof").stats
        ff = sum(v[2] for k, v in stats.items() if k[2] == FAST_FORWARD)
        wall = j["t1"] - j["t0"]
        print(f"| {j['suite']} | {j['part'] or '-'} | {j['t0'] - started:.1f} | {j['t1'] - started:.1f} | {wall:.1f} | {j['cpu']:.1f} | {ff / wall:.2f} |")
    print(f"CPU of the jobs: {sum(j['cpu'] for j in jobs):.1f} s")


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    if os.path.exists(f"{OUT}/jobs.jsonl"):
        os.remove(f"{OUT}/jobs.jsonl")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from ssdlab.lab import parallel

    import profile_review

    parallel.ORIGINAL_WORK = parallel._work
    parallel._work = profile_review.profiled_work
    from ssdlab.cli import cli

    profile = cProfile.Profile()
    profile.enable()
    try:
        cli.main(sys.argv[1:], standalone_mode=False)
    finally:
        profile.disable()
        ended = time.time()
        profile.dump_stats(f"{OUT}/parent.prof")
    report(STARTED, ended)


if __name__ == "__main__":
    main()
