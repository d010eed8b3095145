"""Write docs/bad-inputs.md: every bad input of tests/cli/bad_inputs_catalogue.py, tried, with the
message ssdlab gives (run: .venv/bin/python scripts/bad_inputs_table.py)."""

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "cli"))
from bad_inputs_catalogue import CASES, ROUND_TWO, make_fixtures  # noqa: E402

#: Issue 19's causes, and the tests that hold the ones a command line alone cannot show.
CAUSES = {
    1: "`serve --control` deleted whatever was at the path",
    2: "`serve --background` reported success for a server that was not serving",
    3: "unbounded reads (/dev/zero, FIFOs, gzip bombs, huge single lines)",
    4: "path errors escaping the handlers",
    5: "outputs that overwrite inputs or each other",
    6: "unchecked ranges",
    7: "sweep specs not type-checked",
    8: "the control protocol trusted its peer",
    9: "Python API",
    10: "`--data-file` silently read only 256 MiB and cycled",
    11: "weak messages",
}
ELSEWHERE = [
    (
        1,
        "the image of a running server given as `--control` survives byte for byte; its live sockets are refused",
        "tests/serve/test_serve_paths.py::test_the_image_of_a_running_server_survives_being_given_as_control",
    ),
    (
        2,
        "relative `--backing` in the background serves (control beside the image); restart after kill -9 and clean stop",
        "tests/serve/test_serve_paths.py::test_background_start_with_a_relative_backing_serves_and_restarts_after_kill_9",
    ),
    (
        2,
        "kill -9 of nbdkit under a foreground serve is named; the next serve recovers",
        "tests/serve/test_serve_paths.py::test_kill_9_under_a_foreground_serve_says_so_and_the_next_serve_recovers",
    ),
    (2, "a busy port is named", "tests/serve/test_serve_paths.py::test_a_busy_port_names_the_port"),
    (3, "`Drive().replay('/dev/zero')`, FIFOs and folders through the Python API; the core refuses devices too", "tests/api/test_bad_api_inputs.py"),
    (4, "closed and full standard output", "tests/cli/test_bad_inputs_round_two.py::test_closed_and_full_standard_output_get_one_line"),
    (6, "trim-all on a drive smaller than 1 GiB (small --scale)", "tests/api/test_bad_api_inputs.py::test_trim_all_works_on_a_drive_smaller_than_1_gib"),
    (1, "the plugin itself refuses a file or a live socket; removes only the socket it bound", "crates/ssdlab-nbd/src/socket_path.rs (unit tests)"),
    (3, "the core refuses devices, bounds lines and text files, drops a BOM", "crates/ssdlab-core/src/input.rs (unit tests)"),
    (
        5,
        "outputs go through a temporary file renamed into place; a failed run keeps the old output",
        "tests/cli/test_bad_inputs_round_two.py::test_outputs_are_written_whole_through_a_temporary_file",
    ),
    (
        6,
        "`ftl.gc_window_blocks=0`, duplicate keys, injected `--set`, `/dev/zero` as a profile",
        "crates/ssdlab-profile/tests/profile_errors.rs::issue19_profile_inputs_are_refused_naming_the_field_key_or_file",
    ),
    (
        8,
        "a control socket answering non-text, non-JSON, a JSON list or a wrong power-cut reply",
        "tests/serve/test_serve_paths.py::test_a_control_socket_answering_garbage_gets_one_line",
    ),
    (9, "two threads on one Drive, 200 GB read, typed parameter errors, str for a list, read_tag, close()", "tests/api/test_bad_api_inputs.py"),
    (
        10,
        "a 280 MiB file written once shows no dedup; cycling is reported in JSON and text",
        "tests/cli/test_bad_inputs_round_two.py::test_the_whole_data_file_is_streamed_and_cycling_is_reported",
    ),
    (11, "a trace with a UTF-8 byte-order mark reads", "tests/cli/test_bad_inputs_round_two.py::test_a_trace_starting_with_a_byte_order_mark_reads"),
    (
        0,
        "generated garbage: 2,400 command lines and sweep specs, exit 0 or one line with exit 2"
        ' (exit 1 only for a run whose job ended in error, docs/fio.md "Exit status")',
        "tests/cli/test_property_bad_inputs.py",
    ),
]

#: QA round eight: outputs written whole without changing what was there beyond the output itself.
ROUND_EIGHT = [
    (
        "outputs get the umask's permissions (were 0600), an existing output keeps its own",
        "test_outputs_get_the_usual_permissions_and_keep_an_existing_files",
    ),
    (
        "fio's log files are checked before the run: a FIFO or folder there is refused and kept, no log overwrites the job file or `--json`",
        "test_fio_log_files_are_checked_before_the_run_and_nothing_there_is_replaced",
    ),
    (
        "a review into an existing folder leaves the files it does not write (its writability probe deleted one)",
        "test_a_review_into_an_existing_folder_leaves_the_files_it_does_not_write",
    ),
    ("compare refuses a `--db` with no tables and leaves it as it was (it wrote the schema)", "test_compare_leaves_a_database_that_holds_no_results_untouched"),
    ("an output given as a symbolic link is written through it (the link was replaced)", "test_an_output_that_is_a_symbolic_link_is_written_through_it"),
]


def ssdlab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ssdlab.cli", *args], capture_output=True, text=True)


def _shell(arg: str) -> str:
    """An argument as it would be typed (quoted when it has spaces, newlines or is empty;
    bytes that are not UTF-8 as $'\\xNN')."""
    if "\udcff" in arg:
        return "$'" + arg.replace("\udcff", "\\xff") + "'"
    if arg == "" or any(c in arg for c in " \n'"):
        return "$'" + arg.replace("\n", "\\n").replace("'", "\\'") + "'" if "\n" in arg else f"'{arg}'"
    return arg


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "t.csv"
        trace.write_text("".join(f"{i * 10000},h,0,Read,{i * 4096},4096,10\n" for i in range(50)))
        db_dir = Path(tmp) / "db"
        ssdlab("review", "conventional-240", "--scale", "0.01", "--suites", "power", "--out", str(db_dir), "--quiet")
        rows = []
        for what, args, _ in CASES:
            filled = [a.format(trace="trace.csv", tmp="DIR", db="lab.sqlite") for a in args]
            actual = [a.format(trace=trace, tmp=tmp, db=db_dir / "results.sqlite") for a in args]
            r = ssdlab(*actual)
            message = r.stderr.strip().replace(tmp, "DIR").replace(str(trace), "trace.csv").replace("|", "\\|")
            rows.append(f"| {what} | `ssdlab {' '.join(_shell(a) for a in filled)}` | {r.returncode} | {message} |")
        (Path(tmp) / "r2").mkdir()
        fixtures = make_fixtures(Path(tmp) / "r2")
        fixtures["trace"] = trace
        shown = {k: str(v).replace(str(Path(tmp) / "r2"), "DIR") for k, v in fixtures.items()}
        shown["tmp"] = "DIR"
        shown["trace"] = "trace.csv"
        rows2 = []
        for cause, what, args, _ in ROUND_TWO:
            filled = [a.format(**shown) for a in args]
            actual = [a.format(**fixtures) for a in args]
            r = ssdlab(*actual)
            message = r.stderr.strip().replace(str(Path(tmp) / "r2"), "DIR").replace(str(trace), "trace.csv").replace("|", "\\|")
            command = " ".join(_shell(a) for a in filled).replace("|", "\\|")
            rows2.append(f"| {cause} | {what} | `ssdlab {command}` | {r.returncode} | {message} |")
    round_two = [
        "## Round two (issue 19)",
        "",
        "Causes: " + "; ".join(f"{n}. {text}" for n, text in CAUSES.items()) + ".",
        "Held by `tests/cli/test_bad_inputs_round_two.py` (exit status 2, one line, no file in the folder changed).",
        "",
        "| cause | input | command | status | message |",
        "|---|---|---|---|---|",
        *rows2,
        "",
        "Held by tests that need a running server, the Python API or a large file:",
        "",
        "| cause | what | test |",
        "|---|---|---|",
        *[f"| {c or 'all'} | {what} | `{test}` |" for c, what, test in ELSEWHERE],
        "",
        "Limits stated by these checks: text inputs (profiles, job files, sweep specs) at most 4 MiB; trace lines at most",
        "64 KiB; a sweep at most 10,000 points; one `Drive.read` at most 1 GiB. Inputs must be regular files (traces and",
        "data files are streamed, so their size is not bounded); outputs must not be devices or FIFOs (`-` is standard",
        "output). Paths and option values must be UTF-8.",
        "",
    ]
    round_eight = [
        "## Round eight (QA): outputs",
        "",
        "Rows above hold the one-line messages (empty `--out`, `--out` that is not a folder, fio logs into a missing folder);",
        "these tests hold what happens to the files:",
        "",
        "| what | test |",
        "|---|---|",
        *[f"| {what} | `tests/cli/test_bad_inputs.py::{test}` |" for what, test in ROUND_EIGHT],
        "",
    ]
    text = [
        "# Bad inputs and their messages",
        "",
        "Generated by `scripts/bad_inputs_table.py` from `tests/cli/bad_inputs_catalogue.py`; the test suite",
        "(`tests/cli/test_bad_inputs.py`) holds every row: exit status 2, one line on stderr, no traceback.",
        "Profile, trace and workload errors name the file and line (or the `--set` override) and the field;",
        "see also `crates/ssdlab-profile/tests/profile_errors.rs` and `crates/ssdlab-trace/tests/parsers_and_generator.rs`.",
        "",
        "| input | command | status | message |",
        "|---|---|---|---|",
        *rows,
        "",
        *round_two,
        *round_eight,
    ]
    (ROOT / "docs" / "bad-inputs.md").write_text("\n".join(text))
    print(f"wrote {ROOT / 'docs' / 'bad-inputs.md'} ({len(rows)} rows)")


if __name__ == "__main__":
    main()
