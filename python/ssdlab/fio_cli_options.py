"""fio's own command-line options that are not job options (fio 3.33's ``l_opts`` in
``init.c``): which ``ssdlab run`` takes as changing nothing and which it refuses, with the
reason. Without this table they reached the job parser and were called "unknown fio option",
which says the name is a typo (``--minimal`` is fio's terse output)."""

from __future__ import annotations

from ssdlab.errors import SsdlabError

_TERSE = "fio's terse output is not written; --output-format=json gives fio's JSON shape"
_STOPS = "fio prints what it read and stops without running; ssdlab run always runs the jobs"
_TOOL = "a tool of fio's own, not a way to run jobs"
_REMOTE = "fio's client/server mode (jobs run by another fio) is not offered"
_TRIGGER = "fio's triggers run a command on the machine at a moment of the run; a simulation has none"

#: fio's command-line options ssdlab refuses, each with the reason.
REFUSED = {
    "minimal": _TERSE,
    "append-terse": _TERSE,
    "terse-version": _TERSE,
    "bandwidth-log": "give write_bw_log=NAME in the job for fio's bandwidth log",
    "latency-log": "give write_lat_log=NAME in the job for fio's latency logs",
    "parse-only": _STOPS,
    "showcmd": _STOPS,
    "readonly": "fio's guard that refuses jobs that write is not offered (ssdlab writes only its simulated drive)",
    "warnings-fatal": "fio's warnings are not ssdlab's, so they cannot be made fatal the same way",
    "version": "ssdlab --version gives ssdlab's version",
    "cmdhelp": "ssdlab run --help lists the fio options and what ssdlab does with them",
    "enghelp": "ssdlab run --help lists the IO engines and what ssdlab does with them",
    "cpuclock-test": _TOOL,
    "crctest": _TOOL,
    "memcpytest": _TOOL,
    "inflate-log": _TOOL,
    "merge-blktrace-only": _TOOL,
    "server": _REMOTE,
    "client": _REMOTE,
    "daemonize": _REMOTE,
    "remote-config": _REMOTE,
    "trigger": _TRIGGER,
    "trigger-file": _TRIGGER,
    "trigger-timeout": _TRIGGER,
    "trigger-remote": _TRIGGER,
    "idle-prof": "fio's CPU idleness profile measures the machine running it, not the drive",
}

#: fio's command-line options about fio's own workings (its debug traces, job table and shared
#: memory, the folder of its helper files), accepted and listed as changing nothing.
NO_EFFECT = ("debug", "max-jobs", "alloc-size", "aux-path")

#: Those of them that take no value (getopt's ``no_argument`` or ``optional_argument``, given
#: only as ``--option=VALUE``): the word after one is not its value.
FLAGS = frozenset(
    {
        "minimal",
        "append-terse",
        "bandwidth-log",
        "parse-only",
        "showcmd",
        "readonly",
        "warnings-fatal",
        "version",
        "cmdhelp",
        "enghelp",
        "cpuclock-test",
        "crctest",
        "memcpytest",
        "merge-blktrace-only",
        "server",
    }
)


def refuse(key: str) -> None:
    """Raise the one-line refusal of fio's command-line option `key` (spelled with hyphens or
    underscores) when ssdlab refuses it; nothing otherwise."""
    reason = REFUSED.get(key.replace("_", "-"))
    if reason is not None:
        raise SsdlabError(f"--{key}: a command-line option of fio itself that ssdlab run does not take: {reason}")


def no_effect(key: str) -> bool:
    """Whether `key` is one of fio's command-line options accepted as changing nothing."""
    return key.replace("_", "-") in NO_EFFECT
