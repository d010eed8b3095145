"""`run` and `trace replay` document every option and share option names and defaults."""

import click
from fio_helpers import ssdlab

from ssdlab.cli import cli


def options_of(*path):
    command = cli
    for name in path:
        command = command.commands[name]
    return {p.name: p for p in command.params if isinstance(p, click.Option)}


def test_every_option_of_run_and_trace_replay_has_help():
    for path in (("run",), ("trace", "replay")):
        missing = [name for name, option in options_of(*path).items() if not option.help]
        assert not missing, (path, missing)


def test_run_help_lists_rw_values_and_no_effect_options():
    r = ssdlab("run", "--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    for value in ("read", "write", "randread", "randwrite", "randrw", "trim", "randtrim"):
        assert value in text
    assert "ioengine" in text and "thread" in text
    # group_reporting and new_group change the report (one entry per group; fio's group ids), so
    # they are not listed as without effect.
    no_effect = text.split("Accepted without effect")[1].split(". ")[0]
    assert "group_reporting" not in no_effect and "new_group" not in no_effect


def test_run_and_trace_replay_share_names_and_defaults():
    run, replay = options_of("run"), options_of("trace", "replay")
    for name in ("profile", "overrides", "seed", "steps", "data_file", "json_path"):
        assert run[name].opts == replay[name].opts, name
        assert run[name].default == replay[name].default, name
    # run's data pattern is fio's --data_pattern (default random, as fio); replay takes the same.
    assert "--data_pattern" in replay["data_pattern"].opts and replay["data_pattern"].default == "random"


def test_run_help_gives_the_exit_statuses():
    text = " ".join(ssdlab("run", "--help").stdout.split())
    assert "0, or 1 when a job ended in error" in text and "2 for bad input" in text, text
