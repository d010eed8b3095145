"""Issue 19: generated garbage through the command line's argument parser and the sweep spec
loader (Hypothesis, 2,400 cases in all). Every outcome is exit 0, one line on stderr with exit
2, or (a run whose job ended in error, as fio's `max_latency` does) exit 1 with a line per such
job: never a traceback, a panic, a case slower than 60 s (Hypothesis' deadline: a hang detector
for endless inputs, not a speed test; a 10 s deadline once failed CI on a case that takes 0.5 s,
the machine having stalled) or a process beyond 1 GiB of memory.

The CLI cases run in this process (a subprocess each would take an hour) through the same
``ssdlab.cli.main`` the ``ssdlab`` command runs. Commands that would legitimately run for
minutes with valid arguments (`review`, `pts`, `calibrate`, a valid `sweep`) get only their
argument parsing exercised by random tokens; `serve` runs with nbdkit hidden, so every path and
option check runs and a valid case ends at "nbdkit is not installed" instead of serving.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import sys
from pathlib import Path

import pytest
from bad_inputs_catalogue import make_fixtures
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ssdlab import cli
from ssdlab.errors import SsdlabError
from ssdlab.sweep import load

SMALL = ["--set", "nand.blocks_per_plane=64", "--set", "drive.capacity_bytes_user=7499997184"]
GIB = 1 << 30


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Files to point options at (FIFO, symlink loop, /dev/zero, bad specs, ...), a working
    folder for outputs, and PATH without nbdkit."""
    folder = tmp_path_factory.mktemp("prop")
    files = make_fixtures(folder)
    trace = folder / "t.csv"
    trace.write_text("".join(f"{i * 10000},h,0,{'Read' if i % 2 else 'Write'},{i * 4096},4096,10\n" for i in range(50)))
    files["trace"] = trace
    paths = [str(p) for k, p in files.items() if k != "spec_ok"] + ["/dev/zero", "/dev/full", "/", "", "-", "\udcff", "x" * 300, str(folder / "out.json")]
    old_cwd, old_path = os.getcwd(), os.environ.get("PATH", "")
    empty = folder / "bin"
    empty.mkdir()
    os.chdir(folder)
    os.environ["PATH"] = str(empty)
    yield {"folder": folder, "paths": paths}
    os.chdir(old_cwd)
    os.environ["PATH"] = old_path


def run_cli(argv: list[str]) -> tuple[int, str]:
    """`ssdlab ARGV` in this process: (exit status, stderr)."""
    err, out = io.StringIO(), io.StringIO()
    saved = sys.argv
    sys.argv = ["ssdlab", *argv]
    code = 0
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            cli.main()
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        sys.argv = saved
    return code, err.getvalue()


#: The process's peak memory when each test starts: a test run earlier in the same process (the
#: served drive's, in another order of the suite) may have set a high-water mark of its own.
PEAK_BEFORE = {"bytes": 0}


@pytest.fixture(autouse=True)
def peak_before():
    PEAK_BEFORE["bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def check_peak(what) -> None:
    """No input may take the process past 1 GiB (measurable only from below that mark)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if PEAK_BEFORE["bytes"] < GIB:
        assert peak < GIB, f"peak memory {peak / GIB:.2f} GiB after {what!r}"


def check_outcome(argv: list[str], code: int, stderr: str) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr and "panicked" not in stderr, (argv, stderr)
    assert code in (0, 2) or (code == 1 and argv[0] == "run"), (argv, code, stderr)
    if code == 1:
        # A job that ended in error (fio's exit status): its lines, and perhaps a warning.
        assert any(" ended in error " in line for line in lines), (argv, stderr)
        assert all(line.startswith("ssdlab: ") and not line.startswith("ssdlab: error: ") for line in lines), (argv, stderr)
    if code == 2:
        # One line per problem (a job file's problems are reported all at once, each a line).
        assert lines and all(line.startswith("ssdlab: error: ") for line in lines), (argv, stderr)
    check_peak(argv)


garbage = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["nan", "inf", "-1", "0", "1e308", "18446744073709551616", "-9223372036854775809", "4k", "1g", "1e-9", "\n", "a=b\nc=d"]),
    # fio's per-direction values, zone and engine names.
    st.sampled_from(["4k,64k", ",8k,", "4k,,", ",,,", "4k-8k,1m-2m", "4k/50:8k/50,64k", "0,0", "strided", "zbd", "none", "null", "cpuio", "external:/x.so"]),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@st.composite
def path_value(draw, world):
    return draw(st.one_of(st.sampled_from(world["paths"]), st.text(max_size=20)))


FIO = ["rw", "bs", "iodepth", "size", "offset", "rwmixread", "rwmixwrite", "blockalign", "thinktime", "data_pattern"]
FIO += ["buffer_compress_percentage", "norandommap"]
FIO += ["max_latency", "rate_min", "rate_iops_min", "rate_cycle", "fsync", "end_fsync", "sync", "buffer_pattern"]
FIO += ["thinktime_blocks", "thinktime_iotime", "host_time", "latency_target", "exitall_on_error"]
FIO += ["bsrange", "bssplit", "zonemode", "zonesize", "zonerange", "zoneskip", "ioengine", "filename", "wait_for"]
FIO += ["rate", "rate_iops", "rate_process", "flow", "flow_id", "flow_sleep"]
RW = ["read", "write", "randread", "randwrite", "randrw", "trim", "trimwrite", "randtrimwrite", "bogus", ""]


def a_valid_scale(text: str) -> bool:
    """Whether `--scale` would take this text (click converts with float(), range 0.001 to 1)."""
    try:
        return 0.001 <= float(text) <= 1.0
    except ValueError:
        return False


@st.composite
def run_args(draw, world):
    args = ["run", *SMALL, "--quiet", "--number_ios=" + draw(st.sampled_from(["1", "50", "x", "-3", "0"]))]
    args.append("--rw=" + draw(st.sampled_from(RW)))
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 2))
        if kind == 0:
            args.append(f"--{draw(st.sampled_from(FIO))}={draw(garbage)}")
        elif kind == 1:
            args += [draw(st.sampled_from(["--json", "--series", "--data-file", "--job-file", "--profile"])), draw(path_value(world))]
        else:
            args += [draw(st.sampled_from(["--set", "--precondition", "--seed", "--content"])), draw(garbage)]
    return args


@st.composite
def trace_args(draw, world):
    sub = draw(st.sampled_from(["stats", "replay"]))
    args = ["trace", sub, draw(path_value(world))]
    if sub == "replay":
        args += SMALL
    for _ in range(draw(st.integers(0, 3))):
        option = draw(st.sampled_from(["--format", "--time-unit", "--skip-bad", "--json", "--time-scale", "--data-file", "--mode", "--remap"]))
        if option in ("--skip-bad", "--remap"):
            args.append(option)
        elif option in ("--json", "--data-file"):
            args += [option, draw(path_value(world))]
        else:
            args += [option, draw(garbage)]
    if sub == "stats":
        args = [a for a in args if a not in SMALL]
    return args


@st.composite
def other_args(draw, world):
    choice = draw(st.integers(0, 5))
    if choice == 0:
        return ["profile", "show", draw(st.one_of(st.sampled_from(["force-gs-240", "nope"]), path_value(world)))] + draw(
            st.lists(garbage.map(lambda g: f"--set={g}"), max_size=2)
        )
    if choice == 1:
        args = ["serve", "--backing", draw(path_value(world))]
        for _ in range(draw(st.integers(0, 3))):
            option = draw(st.sampled_from(["--control", "--socket", "--pidfile", "--port", "--background", "--set", "--latency", "--power-cut-after"]))
            args += [option] if option == "--background" else [option, draw(st.one_of(path_value(world), garbage))]
        return args
    if choice == 2:
        return [draw(st.sampled_from(["stats", "ctl"])), *(["power-cut"] if draw(st.booleans()) else []), "--socket", draw(path_value(world))]
    if choice == 3:
        args = ["sweep", draw(path_value(world))]
        if draw(st.booleans()):
            args += ["--dask-scheduler-file", draw(path_value(world))]
        return args
    if choice == 4:
        return ["trace", "generate", draw(st.sampled_from(["heavy2011", "nope", ""])), "--out", draw(path_value(world)), "--seed", draw(garbage)]
    # Random tokens straight into the top-level parser (options of review, pts, calibrate, compare
    # included; a token list that happens to be valid for those is not drawn: --scale always gets
    # a value the option refuses, so no review or calibration runs for minutes).
    command = draw(st.sampled_from(["review", "pts", "calibrate", "compare", "bogus", "--version", "-h", ""]))
    return [command, "--scale", draw(garbage.filter(lambda g: not a_valid_scale(g))), "--db", draw(path_value(world))] + draw(
        st.lists(st.one_of(garbage, path_value(world)), max_size=3)
    )


@settings(max_examples=1400, deadline=60_000, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], database=None)
@given(data=st.data())
def test_generated_command_lines_end_in_exit_0_or_one_line_with_exit_2(world, data):
    strategy = st.one_of(run_args(world), trace_args(world), other_args(world))
    argv = data.draw(strategy)
    code, stderr = run_cli(argv)
    event(f"{argv[0]}: exit {code}")
    check_outcome(argv, code, stderr)


# -- the sweep spec loader --------------------------------------------------------------------

KEYS = ["name", "profile", "overrides", "preconditions", "workload", "seeds", "sample", "points", "sample_seed", "bogus"]
AXIS_KEYS = ["field", "option", "values", "range", "steps", "name", "noise"]
TARGETS = ["ftl.gc_policy", "iodepth", "spare_factor", "nand.channels", "bs", "x", "", "ftl.gc_window_blocks"]

scalar = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(["greedy", "rw=randwrite", "bs=4k", "seq-fill", "idle:5", "grid", "random", "lhs", "nand.blocks_per_plane=64", "iodepth"]),
)


def _nested(inner):
    return st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["a", "b", "x"]), inner, max_size=2))


value = st.recursive(scalar, _nested, max_leaves=8)


def toml_value(v) -> str:
    """A Python value as TOML (a tiny writer: enough for generated specs)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if v != v else ("inf" if v == float("inf") else "-inf" if v == float("-inf") else repr(v))
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + "}"


@st.composite
def spec_text(draw) -> str:
    if draw(st.integers(0, 9)) == 0:  # raw garbage now and then
        return draw(st.text(max_size=200))
    sweep = draw(st.dictionaries(st.sampled_from(KEYS), value, max_size=6))
    if draw(st.booleans()):
        sweep["workload"] = draw(st.sampled_from([["rw=randwrite", "bs=4k", "number_ios=10"], ["rw=read"], "rw=read", []]))
    if draw(st.booleans()):
        sweep["overrides"] = ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=7499997184"]
    lines = ["[sweep]"] + [f"{k} = {toml_value(v)}" for k, v in sweep.items()]
    for _ in range(draw(st.integers(0, 3))):
        axis = draw(st.dictionaries(st.sampled_from(AXIS_KEYS), value, max_size=4))
        if draw(st.booleans()):
            axis[draw(st.sampled_from(["field", "option"]))] = draw(st.sampled_from(TARGETS))
        if draw(st.booleans()):
            axis["range"] = draw(st.lists(st.one_of(st.integers(-5, 10**9), st.floats(allow_nan=True)), min_size=2, max_size=2))
            axis["steps"] = draw(st.one_of(st.integers(-3, 10**6), st.just(3)))
        lines += ["[[axis]]"] + [f"{k} = {toml_value(v)}" for k, v in axis.items()]
    if draw(st.booleans()):
        plot = draw(st.dictionaries(st.sampled_from(["heatmap", "metric", "x"]), value, max_size=2))
        lines += ["[plot]"] + [f"{k} = {toml_value(v)}" for k, v in plot.items()]
    return "\n".join(lines) + "\n"


@settings(max_examples=1000, deadline=60_000, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(text=spec_text())
def test_generated_sweep_specs_load_or_give_one_line(tmp_path_factory, text):
    path = Path(tmp_path_factory.getbasetemp()) / "generated-spec.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        spec = load(path)
        event("loaded")
    except SsdlabError as error:
        event("refused")
        message = str(error)
        assert message and "\n" not in message.strip(), message
        assert "Traceback" not in message
    else:
        assert 1 <= len(spec.points) <= 10_000
    check_peak(text)
