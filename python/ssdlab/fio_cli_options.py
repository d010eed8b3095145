"""fio's own command-line options that are not job options (fio 3.33's ``l_opts`` in
``init.c``): which ``ssdlab run`` takes as changing nothing and which it refuses, with the
reason. Without this table they reached the job parser and were called "unknown fio option",
which says the name is a typo. Also fio's output formats (``--output-format``, ``--minimal``,
``--append-terse``, ``--terse-version``), as fio 3.33's ``init.c`` reads them."""

from __future__ import annotations

from ssdlab.errors import SsdlabError

_STOPS = "fio prints what it read and stops without running; ssdlab run always runs the jobs"
_TOOL = "a tool of fio's own, not a way to run jobs"
_REMOTE = "fio's client/server mode (jobs run by another fio) is not offered"
_TRIGGER = "fio's triggers run a command on the machine at a moment of the run; a simulation has none"

#: fio's command-line options ssdlab refuses, each with the reason.
REFUSED = {
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


#: fio's names of its output formats (``parse_output_format``): ``minimal`` and ``csv`` are
#: other names of ``terse``.
OUTPUT_FORMAT_NAMES = {"normal": "normal", "json": "json", "terse": "terse", "minimal": "terse", "csv": "terse"}

#: fio's terse versions (``--terse-version``) and its default.
TERSE_VERSIONS = (2, 3, 4, 5)
DEFAULT_TERSE_VERSION = 3


def output_formats(given: str | None, minimal: bool = False, append_terse: bool = False) -> frozenset[str]:
    """The output formats of a run (``normal``, ``json``, ``json+`` with ``json``, ``terse``) from fio's
    ``--output-format=A,B`` (`given`; None when not given), ``--minimal`` (terse only) and
    ``--append-terse`` (terse too). fio keeps the last of ``--output-format`` and ``--minimal``
    given; ssdlab, which does not see their order, refuses the two together."""
    if given is not None and minimal:
        raise SsdlabError("give one of --minimal and --output-format (fio keeps whichever comes last)")
    if given is None:
        formats = {"terse"} if minimal else {"normal"}
    else:
        formats = set()
        for token in given.split(","):
            name = token.strip().lower()
            if name == "json+":
                formats |= {"json", "json+"}  # fio's JSON with each latency's bins
                continue
            if name not in OUTPUT_FORMAT_NAMES:
                raise SsdlabError(
                    f"--output-format={given}: {token.strip()!r} is not one of fio's output formats: normal, json, json+, terse (or minimal, csv)"
                )
            formats.add(OUTPUT_FORMAT_NAMES[name])
    if append_terse:
        formats.add("terse")
    return frozenset(formats)


def terse_version(text: str) -> int:
    """fio's ``--terse-version=N``: 2, 3, 4 or 5."""
    try:
        version = int(text.strip())
    except ValueError:
        version = 0
    if version not in TERSE_VERSIONS:
        raise SsdlabError(f"--terse-version={text}: expected one of fio's terse versions 2, 3, 4 or 5")
    return version
