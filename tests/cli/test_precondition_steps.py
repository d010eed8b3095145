"""One definition of the preconditioning steps (crates/ssdlab-drive/src/precondition.rs):
`ssdlab run`, `trace replay` and `serve` list the same steps, take the same steps and refuse
the same mistakes with the same line. (That the plugin behind `serve` takes them alike is
crates/ssdlab-serve/tests/precondition.rs.)"""

import pytest
from click.testing import CliRunner

from ssdlab import _native, cli

# Steps each command must take or refuse alike: every step, idle times as numbers and as fio
# times, and mistakes of each kind.
CANDIDATES = [
    "secure-erase",
    "seq-fill",
    "rand-fill",
    "trim-all",
    "idle:0",
    "idle:2.5",
    "idle:1e3",
    "idle:500ms",
    "idle:5m",
    "fill",
    "SEQ-FILL",
    "idle",
    "idle:",
    "idle:-5",
    "idle:abc",
    "idle:5parsecs",
    "idle:2e10",
    "idle:inf",
    "",
    "a=b\nc=d",
    "idle:\x01\n",
]

# A profile file that is not there: a command that takes the step goes on to refuse it.
NO_PROFILE = "no-such-profile.toml"


def verdict(args: list[str]) -> str:
    """The command's verdict on its `--precondition` step: "taken" (it went on to refuse the
    missing profile) or its one error line."""
    result = CliRunner().invoke(cli.cli, args)
    assert result.exit_code == 2, (args, result.output, result.exception)
    line = result.stderr.strip()
    assert line.startswith("ssdlab: error: ") and "\n" not in line, line
    return "taken" if NO_PROFILE in line else line


@pytest.mark.parametrize("step", CANDIDATES)
def test_run_trace_replay_and_serve_take_and_refuse_the_same_steps(step, tmp_path):
    profile = str(tmp_path / NO_PROFILE)
    run = verdict(["run", "--profile", profile, "--precondition", step, "--rw=read"])
    replay = verdict(["trace", "replay", str(tmp_path / "trace.csv"), "--profile", profile, "--precondition", step])
    serve = verdict(["serve", profile, "--backing", str(tmp_path / "drive.img"), "--precondition", step])
    assert run == replay == serve, f"{step!r}: run {run!r}, trace replay {replay!r}, serve {serve!r}"
    try:
        _native.precondition_kind(step)
        expected = "taken"
    except _native.WorkloadError as error:
        expected = f"ssdlab: error: {error}"
    assert run == expected


def test_every_command_lists_the_steps_of_the_one_definition():
    steps = ", ".join(_native.PRECONDITION_STEPS)
    assert steps == "secure-erase, seq-fill, rand-fill, trim-all, idle:SECONDS"
    commands = {"run": cli.cli.commands["run"], "trace replay": cli.cli.commands["trace"].commands["replay"], "serve": cli.cli.commands["serve"]}
    for name, command in commands.items():
        (option,) = [p for p in command.params if "--precondition" in getattr(p, "opts", [])]
        assert steps in option.help, f"{name}: {option.help}"
